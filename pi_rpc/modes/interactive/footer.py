"""The footer, laid out as upstream's (``components/footer.js``): the working directory (``~``
for the home folder), its git branch and the session's name on the first line; token totals,
cost, context usage with ``(auto)`` while auto-compaction is on, and the model (with its
thinking level) right-aligned on the second; extensions' statuses on a third."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.text import Text

if TYPE_CHECKING:
    from pi_rpc.runtime.session import AgentSession


def format_tokens(count: Any) -> str:
    """Upstream's ``formatTokens``: 999, 1.2k, 12k, 1.2M, 12M."""
    n = int(count or 0)
    if n < 1000:
        return str(n)
    if n < 10000:
        return f"{n / 1000:.1f}k"
    if n < 1_000_000:
        return f"{round(n / 1000)}k"
    if n < 10_000_000:
        return f"{n / 1_000_000:.1f}M"
    return f"{round(n / 1_000_000)}M"


def format_cwd(cwd: str, home: str | None) -> str:
    if not home:
        return cwd
    resolved_cwd, resolved_home = Path(cwd).resolve(), Path(home).resolve()
    if resolved_cwd == resolved_home:
        return "~"
    try:
        return "~" + os.sep + str(resolved_cwd.relative_to(resolved_home))
    except ValueError:
        return cwd


def git_branch(cwd: str) -> str | None:
    """The branch checked out in the repository holding ``cwd`` (``HEAD`` read directly: no
    git process per repaint); a detached head shows as ``detached``, as upstream's."""
    folder = Path(cwd).resolve()
    for candidate in (folder, *folder.parents):
        dot_git = candidate / ".git"
        if dot_git.is_file():  # a worktree or submodule: "gitdir: <path>"
            try:
                target = dot_git.read_text(encoding="utf-8").strip()
            except OSError:
                return None
            if not target.startswith("gitdir:"):
                return None
            dot_git = (candidate / target[len("gitdir:") :].strip()).resolve()
        if dot_git.is_dir():
            try:
                head = (dot_git / "HEAD").read_text(encoding="utf-8").strip()
            except OSError:
                return None
            prefix = "ref: refs/heads/"
            return head[len(prefix) :] if head.startswith(prefix) else "detached"
    return None


def routed_suffix(session: AgentSession) -> str:
    """Under a virtual selection, where the latest response went (upstream's footer):
    `` → <physical model id>`` and its thinking level; empty before any response."""
    model = session.model
    if not model or model.get("api") != "pi-virtual":
        return ""
    from pi_rpc.ai.models.virtual import latest_response

    latest = latest_response(session.agent.messages)
    routed = session.registry.physical_model(str(latest.get("provider")), str(latest.get("model"))) if latest else None
    if latest is None or routed is None:
        return ""
    level = latest.get("thinkingLevel")
    return f" → {routed['id']}" + (f" • {level}" if level else "")


def footer_text(session: AgentSession, width: int, statuses: list[str]) -> Text:
    try:
        stats = session.get_session_stats()
    except Exception:  # noqa: BLE001 - the footer never breaks the screen
        stats = {}
    pwd = format_cwd(str(session.cwd), os.environ.get("HOME"))
    branch = git_branch(str(session.cwd))
    if branch:
        pwd = f"{pwd} ({branch})"
    name = session.session.get_session_name() if hasattr(session.session, "get_session_name") else None
    if name:
        pwd = f"{pwd} • {name}"
    tokens = stats.get("tokens") or {}
    parts = []
    for key, label in (("input", "↑"), ("output", "↓"), ("cacheRead", "R"), ("cacheWrite", "W")):
        if tokens.get(key):
            parts.append(f"{label}{format_tokens(tokens[key])}")
    cost = float(stats.get("cost") or 0)
    if cost:
        parts.append(f"${cost:.3f}")
    usage = stats.get("contextUsage") or {}
    auto = " (auto)" if session.settings.compaction_enabled else ""
    percent = usage.get("percent")
    model = session.model
    window = format_tokens(usage.get("contextWindow") or (model.get("contextWindow") if model else 0))
    parts.append(f"{float(percent):.1f}%/{window}{auto}" if percent is not None else f"?/{window}{auto}")
    left = " ".join(parts)
    right = str(model["id"]) if model else "no-model"
    if model and model.get("reasoning"):
        level = session.thinking_level or "off"
        right = f"{right} • thinking off" if level == "off" else f"{right} • {level}"
    right += routed_suffix(session)
    if model and len({m["provider"] for m in session.get_available_models()}) > 1:
        with_provider = f"({model['provider']}) {right}"
        if len(left) + 2 + len(with_provider) <= width:
            right = with_provider
    gap = width - len(left) - len(right)
    stats_line = left + " " * gap + right if gap >= 2 else left + "  " + right
    if len(pwd) > width:  # upstream: truncated with an ellipsis
        pwd = pwd[: max(width - 3, 0)] + "..."
    text = Text(pwd, style="dim")
    text.append("\n" + stats_line, style="dim")
    if statuses:
        text.append("\n" + " ".join(statuses))
    return text
