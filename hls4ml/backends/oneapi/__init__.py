"""The oneAPI backend."""
