"""pi-hello: an example pi package written in Python (see README.md)."""
