"""The Catapult backend."""
