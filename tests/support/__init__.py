"""Helpers shared across test folders (imported as ``tests.support.<module>``)."""
