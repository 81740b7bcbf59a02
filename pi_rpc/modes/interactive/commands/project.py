"""``/trust`` (save a project trust decision in trust.json, upstream's choices) and ``/import``
(a JSONL session file copied into this project's session directory and opened)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pi_rpc.modes.interactive.commands import command

if TYPE_CHECKING:
    from pi_rpc.modes.interactive.app import PiApp


def trust_options(cwd: str) -> list[tuple[str, tuple[bool, list[tuple[str, bool | None]]]]]:
    """Upstream's ``getProjectTrustOptions``: (label, (trusted, [(path, decision)...]))."""
    here = os.path.realpath(os.path.abspath(cwd))
    options: list[tuple[str, tuple[bool, list[tuple[str, bool | None]]]]] = [("Trust", (True, [(here, True)]))]
    parent = os.path.dirname(here)
    if parent != here:
        options.append((f"Trust parent folder ({parent})", (True, [(parent, True), (here, None)])))
    options.append(("Do not trust", (False, [(here, False)])))
    return options


@command("trust", "Save a project trust decision for future Pi processes")
async def trust(app: PiApp, args: str) -> None:
    from pi_rpc.config import trust as trust_store

    agent = app.session.options.agent_dir
    cwd = str(app.session.options.cwd or os.getcwd())
    saved = trust_store.nearest_decision(trust_store._read(agent), cwd, lambda v: v if isinstance(v, bool) else None)
    state = "none" if saved is None else ("trusted" if saved else "untrusted")
    chosen = await app.pick(
        "Project trust", trust_options(cwd), message=f"{cwd}\nSaved decision: {state}. Applies to future processes."
    )
    if chosen is None:
        return
    trusted, updates = chosen
    for path, decision in updates:
        trust_store.remember(agent, path, decision)
    await app.say(f"Saved trust decision: {'trusted' if trusted else 'untrusted'}. Restart pi for this to take effect.")


def _destination(session_dir: Path, source: Path) -> Path:
    """Upstream's name: the file's own name in the session directory, ``-1``, ``-2``... when taken."""
    target = session_dir / source.name
    if target.resolve() == source.resolve():
        return target
    suffix = 1
    while target.exists():
        target = session_dir / f"{source.stem}-{suffix}{source.suffix}"
        suffix += 1
    return target


@command("import", "Import a JSONL session, preserving its ID and working directory")
async def import_(app: PiApp, args: str) -> None:
    from pi_rpc.config.paths import expand_tilde

    if not args:
        await app.say("Usage: /import <path.jsonl>", "error")
        return
    source = Path(expand_tilde(args.strip().strip("'\""))).resolve()
    if not source.is_file():
        await app.say(f"Failed to import session: File not found: {source}", "error")
        return
    confirmed = await app.pick(
        "Import session", [("Yes", True), ("No", False)], message=f"Replace current session with {args}?"
    )
    if not confirmed:
        await app.say("Import cancelled", "warning")
        return
    store: Any = app.session.session
    session_dir = Path(store.session_dir)
    session_dir.mkdir(parents=True, exist_ok=True)
    target = _destination(session_dir, source)
    copied = target.resolve() != source
    if copied:
        shutil.copyfile(source, target)
    result = await app.session.switch_session(str(target))
    if result.get("cancelled"):
        if copied:
            target.unlink(missing_ok=True)  # upstream copies only once no extension cancels
        await app.say("Import cancelled", "warning")
        return
    await app.reload_transcript()
    await app.say(f"Session imported from: {args}")
