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
    from pi_rpc.session.errors import MissingSessionCwdError

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
    try:
        cancelled = await _import_copy(app, source)
    except MissingSessionCwdError as exc:
        # upstream's promptForMissingSessionCwd: continue here, fork here, or cancel
        choice = await app.pick(f"Session cwd does not exist: {exc.session_cwd}", missing_cwd_options(exc.fallback_cwd))
        if choice == "continue":
            cancelled = await _import_copy(app, source, cwd_override=exc.fallback_cwd)
        elif choice == "fork":
            await _import_fork(app, source, exc.fallback_cwd)
            return
        else:
            cancelled = True
    if cancelled:
        await app.say("Import cancelled", "warning")
        return
    # (the transcript was reloaded when the holder told the app of the replacement)
    await app.say(f"Session imported from: {args}")


def missing_cwd_options(fallback_cwd: str) -> list[tuple[str, str | None]]:
    """Upstream's ``getMissingSessionCwdOptions``: the labels name the current cwd."""
    return [
        (f"Continue in {fallback_cwd} (asks again next time)", "continue"),
        (f"Fork into {fallback_cwd} (new session ID, original kept)", "fork"),
        ("Cancel", None),
    ]


async def _import_copy(app: PiApp, source: Path, cwd_override: str | None = None) -> bool:
    """Copy ``source`` into this project's session directory and open it; True when an
    extension cancelled. The copy is dropped when the switch does not happen (cancelled, or the
    stored cwd is gone), so a retry with a cwd or a fork leaves no stray file, as upstream."""
    store: Any = app.session.session
    session_dir = Path(store.session_dir)
    session_dir.mkdir(parents=True, exist_ok=True)
    target = _destination(session_dir, source)
    copied = target.resolve() != source
    if copied:
        shutil.copyfile(source, target)
    try:
        result = await app.session.switch_session(str(target), cwd_override=cwd_override)
    except BaseException:
        if copied:
            target.unlink(missing_ok=True)
        raise
    if result.get("cancelled"):
        if copied:
            target.unlink(missing_ok=True)  # upstream copies only once no extension cancels
        return True
    return False


async def _import_fork(app: PiApp, source: Path, cwd: str) -> None:
    """Upstream's ``switchToForkedSession``: a new session (new id, ``parentSession`` the
    source) in ``cwd`` in this project's session directory; the source file is untouched."""
    from pi_rpc.session.manager import SessionManager

    store: Any = app.session.session
    fork = SessionManager.fork_from(str(source), cwd, str(store.session_dir))
    fork_path = fork.session_file
    fork_id = fork.session_id
    fork.close()
    assert fork_path is not None  # fork_from writes the new session at once
    result = await app.session.switch_session(fork_path)
    if result.get("cancelled"):
        Path(fork_path).unlink(missing_ok=True)  # an extension vetoed: no copy left behind
        await app.say("Import cancelled", "warning")
        return
    await app.say(f"Forked into new session {fork_id} in {cwd}")
