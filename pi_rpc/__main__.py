"""`python -m pi_rpc` entry point."""

from pi_rpc.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
