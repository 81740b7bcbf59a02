"""Use pi in-process from Python (no subprocess): ``pi_rpc.runtime.open_session``.

Runs offline against the scripted ``faux`` model (examples/hello-faux-script.json): the first
prompt makes the model call the ``bash`` tool, the second is a plain reply. Then it forks the
conversation before the second prompt and asks something else.

    python examples/sdk_example.py [--model provider/id]   # any configured model works too
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from typing import Any

import anyio

from pi_rpc.runtime import open_session

HERE = Path(__file__).resolve().parent


def on_event(event: dict[str, Any]) -> None:
    """A live listener: show tool activity as it happens (sync listeners are fine)."""
    if event["type"] == "tool_execution_start":
        print(f"  [tool] {event['toolName']} {event['args']}")
    elif event["type"] == "tool_execution_end":
        print(f"  [tool] {event['toolName']} done (error={event['isError']})")


async def main(argv: list[str]) -> int:
    model = argv[argv.index("--model") + 1] if "--model" in argv else "faux/faux-1"
    with tempfile.TemporaryDirectory() as project:
        Path(project, "README.md").write_text("demo project\n")
        async with open_session(
            cwd=project,
            model=model,
            no_session=True,  # in memory; pass session_dir=... to keep a session file
            faux_script=HERE / "hello-faux-script.json",
        ) as session:
            unsubscribe = session.subscribe(on_event)

            first = await session.prompt_and_wait("List the files, please.")
            print(f"assistant: {first.text}  ({len(first.events)} events, stop={first.stop_reason})")

            second = await session.prompt_and_wait("Thanks!")
            print(f"assistant: {second.text}")
            unsubscribe()

            # Fork before the second user message: the branch forgets "Thanks!".
            forkable = session.get_fork_messages()
            result = await session.fork(forkable[-1]["entryId"])
            print(f"forked; re-editable text was {result['text']!r}")
            third = await session.prompt_and_wait("What was my first request?")
            print(f"assistant: {third.text}")
            print(f"messages in context: {session.get_state()['messageCount']}")
            if not third.ok:
                print(f"error: {third.error_message}", file=sys.stderr)
                return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(anyio.run(main, sys.argv[1:]))
