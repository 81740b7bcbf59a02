"""Tests of the wire layer: framing, parsing, validation, output, the RPC process bytes."""
