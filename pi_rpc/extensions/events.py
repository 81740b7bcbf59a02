"""The names of the events extensions subscribe to with ``pi.on(name, handler)`` (upstream pi
1.6's names), and which of them this implementation emits.

Every event reaches a handler as a plain dict with upstream's camelCase keys and its ``"type"``;
what a handler may return (and how several handlers' results compose) is upstream's, see
``pi_rpc.extensions.runner``.
"""

from __future__ import annotations

# Emitted by this implementation, in the order of upstream's lifecycle documentation.
SESSION_EVENTS = (
    "session_start",  # {reason: startup|reload|new|resume|fork, previousSessionFile?}
    "resources_discover",  # {cwd, reason: startup|reload} -> {skillPaths?, promptPaths?}
    "session_info_changed",  # {name?}
    "session_before_switch",  # {reason: new|resume, targetSessionFile?} -> {cancel?}
    "session_before_fork",  # {entryId, position} -> {cancel?}
    "session_before_compact",  # {preparation, branchEntries, customInstructions?, reason, willRetry, signal} -> {cancel?|compaction?}
    "session_compact",  # {compactionEntry, fromExtension, reason, willRetry}
    "session_compact_failed",  # {reason, errorMessage?, aborted, willRetry, fromExtension}
    "session_before_tree",  # {preparation, signal} -> {cancel?|summary?|customInstructions?|replaceInstructions?|label?}
    "session_tree",  # {newLeafId, oldLeafId, summaryEntry?, fromExtension?}
    "session_shutdown",  # {reason: quit|reload|new|resume|fork, targetSessionFile?}
)
AGENT_EVENTS = (
    "input",  # {text, images?, source: rpc|extension|sdk, streamingBehavior?} -> {action: continue|transform|handled}
    "before_agent_start",  # {messageType, prompt?, images?, message?, systemPrompt, systemPromptOptions} -> {message?, systemPrompt?}
    "agent_start",
    "agent_end",  # {messages}
    "agent_settled",  # {aborted}
    "turn_start",  # {turnIndex, timestamp}
    "turn_end",  # {turnIndex, message, toolResults}
    "message_start",  # {message}
    "message_update",  # {message, assistantMessageEvent}
    "message_end",  # {message} -> {message?} (same role)
    "tool_execution_start",  # {toolCallId, toolName, args}
    "tool_execution_update",  # {toolCallId, toolName, args, partialResult}
    "tool_execution_end",  # {toolCallId, toolName, result, isError, durationMs?}
    "tool_call",  # {toolName, toolCallId, input} -> {block?, reason?, terminate?}; input is mutable
    "tool_result",  # {toolName, toolCallId, input, content, details, isError, usage?} -> patch
    "context",  # {messages} (no system messages; a deep copy) -> {messages?}
    "before_provider_headers",  # {headers} (mutate in place; None deletes)
    "before_provider_request",  # {payload} -> a replacement payload
    "after_provider_response",  # {status, headers}
    "model_select",  # {model, previousModel?, source: set|cycle}
    "thinking_level_select",  # {level, previousLevel}
    "user_bash",  # {command, excludeFromContext, cwd} -> {result}|{operations}
    "ui_prompt_start",  # {reason: "ui_prompt", kind, title?}
    "ui_prompt_end",
)
EMITTED_EVENTS = SESSION_EVENTS + AGENT_EVENTS

# Upstream events accepted by ``pi.on`` that this implementation never emits (their sources do
# not exist here: project trust prompts, terminal UI, cache warming, raw provider streams, MCP
# connections, actionable turn boundaries).
NEVER_EMITTED_EVENTS = (
    "project_trust",
    "mcp_servers_change",
    "agent_before_settle",
    "context_with_system",
    "provider_stream_event",
    "cache_warming_decision",
)

ALL_EVENTS = EMITTED_EVENTS + NEVER_EMITTED_EVENTS

# A handler result with {"cancel": True} stops these operations (first cancel wins).
CANCELLABLE_EVENTS = frozenset(
    {"session_before_switch", "session_before_fork", "session_before_compact", "session_before_tree"}
)
