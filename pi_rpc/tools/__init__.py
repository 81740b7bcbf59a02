"""Built-in coding tools (read, bash, edit, write, grep, find, ls) and their shared machinery:
argument validation, truncation, path resolution, the bash executor and the process registry.

Exports load lazily (``pi_rpc._lazy``): describing the tools for the first request needs the
registry, not the bash executor.
"""

from typing import TYPE_CHECKING

from pi_rpc._lazy import lazy_exports

if TYPE_CHECKING:
    from pi_rpc.tools.bash_executor import (
        BashExecutionError,
        BashExecutionResult,
        bash_execution_message,
        bash_execution_to_text,
        bash_execution_to_user_message,
        execute_bash,
    )
    from pi_rpc.tools.registry import (
        ALL_TOOL_NAMES,
        DEFAULT_TOOL_NAMES,
        create_tool,
        create_tools,
        tool_definition,
        tool_guidelines,
        tool_summary_line,
    )
    from pi_rpc.tools.validation import ToolArgumentsError, validate_tool_arguments

_EXPORTS = {
    "BashExecutionError": "pi_rpc.tools.bash_executor",
    "BashExecutionResult": "pi_rpc.tools.bash_executor",
    "bash_execution_message": "pi_rpc.tools.bash_executor",
    "bash_execution_to_text": "pi_rpc.tools.bash_executor",
    "bash_execution_to_user_message": "pi_rpc.tools.bash_executor",
    "execute_bash": "pi_rpc.tools.bash_executor",
    "ALL_TOOL_NAMES": "pi_rpc.tools.registry",
    "DEFAULT_TOOL_NAMES": "pi_rpc.tools.registry",
    "create_tool": "pi_rpc.tools.registry",
    "create_tools": "pi_rpc.tools.registry",
    "tool_definition": "pi_rpc.tools.registry",
    "tool_guidelines": "pi_rpc.tools.registry",
    "tool_summary_line": "pi_rpc.tools.registry",
    "ToolArgumentsError": "pi_rpc.tools.validation",
    "validate_tool_arguments": "pi_rpc.tools.validation",
}

__getattr__, __dir__ = lazy_exports(globals(), _EXPORTS)

__all__ = sorted(_EXPORTS)
