"""The test suite (a package, so test modules and helpers import as ``tests.<folder>.<module>``; pytest puts the repository root on ``sys.path``)."""
