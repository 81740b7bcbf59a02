"""``pi --mode json``: the session header line, then every session event as JSONL in wire form
(``message_update`` without the cumulative partial), one prompt per message; exit 0 even when
the model failed (1 only when a prompt is refused or stdout breaks; 143/129 on signals).

``run_json_mode(args) -> exit code``. The machinery is shared with print mode
(``modes._oneshot``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pi_rpc.config.cli_args import CliArgs


def run_json_mode(args: CliArgs) -> int:
    from pi_rpc.modes._oneshot import run_oneshot

    return run_oneshot(args, "json")
