"""Building the built-in tool set and describing tools for prompts and ``toolsAdded``."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pi_rpc.agent.types import AgentTool
from pi_rpc.tools.bash import BashTool
from pi_rpc.tools.edit import EditTool
from pi_rpc.tools.find import FindTool
from pi_rpc.tools.grep import GrepTool
from pi_rpc.tools.ls import LsTool
from pi_rpc.tools.read import ReadTool
from pi_rpc.tools.write import WriteTool

ALL_TOOL_NAMES: tuple[str, ...] = ("read", "bash", "edit", "write", "grep", "find", "ls")
DEFAULT_TOOL_NAMES: tuple[str, ...] = ("read", "bash", "edit", "write")


def create_tool(name: str, cwd: str, **options: Any) -> AgentTool:
    """One built-in tool. Options that do not apply to it are ignored.

    Options: ``shell_path``, ``shell_command_prefix``, ``session_env`` (mapping or callable giving
    PI_SESSION_ID / PI_SESSION_FILE / PI_PROVIDER / PI_MODEL / PI_REASONING_LEVEL), ``bin_dir``
    (``<agentDir>/bin``, put first on PATH), ``update_throttle_s`` (bash), ``auto_resize_images``
    and ``get_model`` (read: callable giving the session's current model), ``rg_path`` /
    ``use_ripgrep`` (grep), ``fd_path`` / ``use_fd`` (find), ``file_access`` (read/edit/write:
    a ``TextFileAccess`` delegate for text files, e.g. an editor's buffers; None = local disk),
    ``bash_runner`` (bash: a ``BashRunner`` that runs commands elsewhere, e.g. an editor's
    terminal; None = a local process).
    """
    if name == "read":
        return ReadTool(
            cwd,
            auto_resize_images=options.get("auto_resize_images", True),
            get_model=options.get("get_model"),
            file_access=options.get("file_access"),
        )
    if name == "bash":
        return BashTool(
            cwd,
            shell_path=options.get("shell_path"),
            command_prefix=options.get("shell_command_prefix"),
            session_env=options.get("session_env"),
            bin_dir=options.get("bin_dir"),
            update_throttle_s=options.get("update_throttle_s", 0.1),
            runner=options.get("bash_runner"),
        )
    if name == "edit":
        return EditTool(cwd, file_access=options.get("file_access"))
    if name == "write":
        return WriteTool(cwd, file_access=options.get("file_access"))
    if name == "grep":
        return GrepTool(cwd, rg_path=options.get("rg_path"), use_ripgrep=options.get("use_ripgrep", True))
    if name == "find":
        return FindTool(cwd, fd_path=options.get("fd_path"), use_fd=options.get("use_fd", True))
    if name == "ls":
        return LsTool(cwd)
    raise ValueError(f"Unknown tool: {name}")


def create_tools(cwd: str, names: Iterable[str] | None = None, **options: object) -> list[AgentTool]:
    """Built-in tools in the order given (default: read, bash, edit, write)."""
    return [create_tool(name, cwd, **options) for name in (DEFAULT_TOOL_NAMES if names is None else names)]


def tool_definition(tool: Any) -> dict[str, Any]:
    """``{name, description, parameters, constrainedSampling?}``: a ``toolsAdded`` entry and
    (without ``constrainedSampling``) what providers send as the tool declaration."""
    definition: dict[str, object] = {
        "name": tool.name,
        "description": tool.description,
        "parameters": tool.parameters,
    }
    sampling = getattr(tool, "constrained_sampling", None)
    if sampling is not None:
        definition["constrainedSampling"] = dict(sampling)
    return definition


def tool_summary_line(tool: Any) -> str:
    """``- read: Read file contents`` for the system prompt's tools section."""
    snippet = getattr(tool, "prompt_snippet", "") or tool.description.split(". ")[0]
    return f"- {tool.name}: {snippet}"


def tool_guidelines(tools: Iterable[object]) -> list[str]:
    """Per-tool rules for the system prompt (deduplicated, in tool order)."""
    seen: list[str] = []
    for tool in tools:
        for line in getattr(tool, "prompt_guidelines", ()) or ():
            if line not in seen:
                seen.append(line)
    return seen
