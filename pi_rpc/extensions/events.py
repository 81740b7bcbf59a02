"""The names of the events extensions subscribe to with ``pi.on(name, handler)`` (upstream pi
1.6's names), and which of them this implementation emits.

Every event reaches a handler as a plain dict with upstream's camelCase keys and its ``"type"``;
what a handler may return (and how several handlers' results compose) is upstream's, see
``pi_rpc.extensions.combine``. ``pi.on`` refuses a name not in ``ALL_EVENTS``.
"""

from __future__ import annotations

# Emitted by this implementation, in the order of upstream's lifecycle documentation.
STARTUP_EVENTS = (
    "project_trust",  # {cwd} -> {trusted: yes|no|undecided, remember?} (limited ctx; before the session)
)
SESSION_EVENTS = (
    "session_start",  # {reason: startup|reload|new|resume|fork, previousSessionFile?}
    "resources_discover",  # {cwd, reason: startup|reload} -> {skillPaths?, promptPaths?}
    "mcp_servers_change",  # {servers: [{name, config, extensionPath}]} after pi.register_mcp_server changes
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
    "before_agent_start",  # {messageType, prompt?, images?, message?, systemPrompt, systemPromptOptions (edit in place)} -> {message?, systemPrompt?}
    "agent_start",
    "agent_end",  # {messages}
    "agent_before_settle",  # {outcome, entries, continue, context} -> {entries?, continue?} (actionable boundary)
    "agent_settled",  # {aborted}
    "turn_start",  # {turnIndex, timestamp}
    "turn_end",  # {turnIndex, message, toolResults, messageEntryId, toolResultEntryIds, outcome, entries, continue, context} -> {entries?, continue?}
    "message_start",  # {message}
    "message_update",  # {message, assistantMessageEvent}
    "message_end",  # {message} -> {message?} (same role)
    "tool_execution_start",  # {toolCallId, toolName, args}
    "tool_execution_update",  # {toolCallId, toolName, args, partialResult}
    "tool_execution_end",  # {toolCallId, toolName, result, isError, durationMs?}
    "tool_call",  # {toolName, toolCallId, input} -> {block?, reason?, terminate?}; input is mutable
    "tool_result",  # {toolName, toolCallId, input, content, details, isError, usage?} -> patch
    "context",  # {messages} (no system messages; a deep copy) -> {messages?}
    "context_with_system",  # {messages} (the full transcript) -> {messages?}, sent as returned
    "before_provider_headers",  # {headers} (mutate in place; None deletes)
    "before_provider_request",  # {payload} -> a replacement payload
    "after_provider_response",  # {status, headers}
    "provider_stream_event",  # {provider, api, model, data} for each parsed stream event (HTTP providers)
    "model_select",  # {model, previousModel?, source: set|cycle}
    "thinking_level_select",  # {level, previousLevel}
    "user_bash",  # {command, excludeFromContext, cwd} -> {result}|{operations}
    "ui_prompt_start",  # {reason: "ui_prompt", kind, title?}
    "ui_prompt_end",
)
EMITTED_EVENTS = STARTUP_EVENTS + SESSION_EVENTS + AGENT_EVENTS

# Upstream events accepted by ``pi.on`` that this implementation never emits: pi_rpc has no
# idle prompt-cache refresh, so there is no cache warming decision to make.
NEVER_EMITTED_EVENTS = ("cache_warming_decision",)

ALL_EVENTS = EMITTED_EVENTS + NEVER_EMITTED_EVENTS

# A handler result with {"cancel": True} stops these operations (first cancel wins).
CANCELLABLE_EVENTS = frozenset(
    {"session_before_switch", "session_before_fork", "session_before_compact", "session_before_tree"}
)
