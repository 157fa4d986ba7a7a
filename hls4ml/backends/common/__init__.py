"""Lowering shared by every backend: IR layer -> implementation record, weights and tables to emit."""
