"""Built-in coding tools (read, bash, edit, write, grep, find, ls) and their shared machinery:
argument validation, truncation, path resolution, the bash executor and the process registry.
"""

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

__all__ = [
    "ALL_TOOL_NAMES",
    "DEFAULT_TOOL_NAMES",
    "BashExecutionError",
    "BashExecutionResult",
    "ToolArgumentsError",
    "bash_execution_message",
    "bash_execution_to_text",
    "bash_execution_to_user_message",
    "create_tool",
    "create_tools",
    "execute_bash",
    "tool_definition",
    "tool_guidelines",
    "tool_summary_line",
    "validate_tool_arguments",
]
