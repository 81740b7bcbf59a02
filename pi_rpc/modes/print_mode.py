"""``pi -p`` / ``--mode text`` (print mode): run the prompts, print the final reply's text.

``run_print_mode(args) -> exit code``: 0 on success; 1 when the last reply ended in an error
or was aborted (its ``errorMessage`` on stderr), was truncated at the output limit, or a
prompt was refused. The machinery is shared with json mode (``modes._oneshot``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pi_rpc.config.cli_args import CliArgs


def run_print_mode(args: CliArgs) -> int:
    from pi_rpc.modes._oneshot import run_oneshot

    return run_oneshot(args, "text")
