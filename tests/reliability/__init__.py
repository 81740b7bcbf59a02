"""Reliability: fuzz, SIGKILL, slow readers, hostile input, session write faults."""
