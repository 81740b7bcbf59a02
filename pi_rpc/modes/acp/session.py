"""One ACP session over one ``AgentSession`` (the runtime every mode uses): prompt turns with
their stop reasons, cancel, the model / thinking-level configuration options, slash commands,
history replay, and permission requests before tools run (``acp.permissions``).

A turn: the prompt's blocks become pi's prompt text and images, the run's events stream out as
``session/update`` notifications (``updates.LiveUpdates``), and the request is answered after
the run settled, so every update precedes the result. Stop reasons: ``cancelled`` after
``session/cancel`` (or any abort), ``max_tokens`` when the reply hit its length limit,
``refusal`` when the provider refused, else ``end_turn``; a provider failure (after pi's
retries) is a JSON-RPC error carrying pi's error text. Prompts sent while a turn runs wait for
it to finish.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import anyio

from pi_rpc.ai.types import is_assistant
from pi_rpc.modes.acp.client_fs import ClientFileAccess
from pi_rpc.modes.acp.content import prompt_from_blocks, replay_updates
from pi_rpc.modes.acp.dialogs import AcpDialogs
from pi_rpc.modes.acp.jsonrpc import AUTH_REQUIRED, INTERNAL_ERROR, JsonRpcPeer, RpcError, invalid_params
from pi_rpc.modes.acp.tool_calls import absolute_path, tool_call_fields
from pi_rpc.modes.acp.updates import LiveUpdates
from pi_rpc.runtime.errors import RuntimeCommandError

if TYPE_CHECKING:
    from anyio.abc import TaskGroup

    from pi_rpc.ai.types import AssistantMessage
    from pi_rpc.runtime.events import SessionEvent
    from pi_rpc.runtime.session import AgentSession

PERMISSION_MODES = ("never", "ask-writes", "ask-all")
WRITE_TOOLS = frozenset({"write", "edit", "bash"})
MCP_TOOL_PREFIX = "mcp__"
# The providers' own stop reasons (``rawStopReason``) for a refusal or a safety stop: Anthropic
# ``refusal`` (with or without its own explanation text) and ``sensitive``, OpenAI
# ``content_filter`` (chat) / ``incomplete.content_filter`` (responses), Google's safety stops.
REFUSAL_STOP_REASONS = frozenset(
    {
        "refusal",
        "sensitive",
        "content_filter",
        "incomplete.content_filter",
        "SAFETY",
        "BLOCKLIST",
        "PROHIBITED_CONTENT",
        "SPII",
        "IMAGE_SAFETY",
        "RECITATION",
    }
)
# Error texts that mean the same when the raw reason is missing.
REFUSAL_MARKERS = ("The model refused", "Provider stopped with: sensitive", "content_filter", "content filter")
NO_KEY_PREFIX = "No API key found"


def stop_reason_for(message: dict[str, Any] | None, cancelled: bool) -> str:
    """The ACP stop reason of a finished turn, or raise ``RpcError`` for a failed one."""
    if cancelled:
        return "cancelled"
    reason = (message or {}).get("stopReason")
    if reason == "aborted":
        return "cancelled"
    if reason == "length":
        return "max_tokens"
    if reason == "error":
        text = str((message or {}).get("errorMessage") or "The request failed")
        if (message or {}).get("rawStopReason") in REFUSAL_STOP_REASONS or any(
            marker in text for marker in REFUSAL_MARKERS
        ):
            return "refusal"
        if text.startswith(NO_KEY_PREFIX):
            raise RpcError(AUTH_REQUIRED, "Authentication required", {"details": text})
        raise RpcError(INTERNAL_ERROR, text)
    return "end_turn"


class AcpSession:
    def __init__(
        self,
        runtime: AgentSession,
        peer: JsonRpcPeer,
        *,
        permissions: str,
        files: ClientFileAccess,
        dialogs: AcpDialogs,
    ) -> None:
        # The runtime's holder: this ACP session drives its current session (``runtime``).
        self.holder = runtime.holder
        self.peer = peer
        self.id = runtime.session.session_id
        self.cwd = runtime.options.cwd
        self.permissions = permissions
        self.files = files
        self.dialogs = dialogs
        self.live = LiveUpdates(self.cwd, files.read_text_or_none)
        self._turn_lock = anyio.Lock()
        self._cancelled = False
        self._last_assistant: AssistantMessage | None = None
        self._always_allowed: set[str] = set()
        self._setting_config = False
        self.sent_config: list[dict[str, Any]] | None = None  # the options the client has
        self._unsubscribe: Any = None
        runtime.set_tool_gate(self._before_tool_call)

    @property
    def runtime(self) -> AgentSession:
        """The holder's current session (an extension's ``ctx.new_session`` replaces it)."""
        return self.holder.current

    # ------------------------------------------------------------------ lifecycle

    def start(self, task_group: TaskGroup) -> None:
        self.runtime.bind_task_group(task_group)
        self._unsubscribe = self.holder.subscribe(self._on_event)

    async def close(self) -> None:
        self.dialogs.dismiss_all()
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        await self.runtime.shutdown()

    async def show_terminal(self, call_id: str, terminal_id: str) -> None:
        """bash runs in the editor's terminal: embed it in the tool call."""
        await self.update(self.live.attach_terminal(call_id, terminal_id))

    async def update(self, update: dict[str, Any]) -> None:
        await self.peer.notify("session/update", {"sessionId": self.id, "update": update})

    # ------------------------------------------------------------------ events

    async def _on_event(self, event: SessionEvent) -> None:
        if event["type"] == "message_end":
            message = event["message"]
            if is_assistant(message):
                self._last_assistant = message
        if event["type"] == "thinking_level_changed" and not self._setting_config:
            await self.push_config_if_changed()
        if event["type"] == "session_info_changed":
            await self.dialogs.post({"sessionUpdate": "session_info_update", "title": event.get("name") or None})
        for update in await self.live.translate(event):
            await self.update(update)

    # ------------------------------------------------------------------ turns

    async def prompt(self, blocks: Any) -> dict[str, Any]:
        text, images = prompt_from_blocks(blocks)
        async with self._turn_lock:
            self._cancelled = False
            self._last_assistant = None
            try:
                disposition = await self.runtime.prompt(text, images or None)
            except RuntimeCommandError as exc:
                message = str(exc)
                if message.startswith(NO_KEY_PREFIX):
                    raise RpcError(AUTH_REQUIRED, "Authentication required", {"details": message}) from None
                raise RpcError(INTERNAL_ERROR, message) from None
            if disposition == "started":
                await self.runtime.wait_for_settled()
            # A command or an extension may have changed the model without an event.
            await self.push_config_if_changed()
            return {"stopReason": stop_reason_for(self._last_assistant, self._cancelled)}

    async def cancel(self) -> None:
        """``session/cancel``: abort everything running (provider stream, tools, retries,
        compaction, pending permission requests, extension dialogs); a prompt in progress then
        ends with ``cancelled``."""
        if self._turn_lock.locked() or self.runtime.is_streaming or self.runtime.is_compacting:
            self._cancelled = True
        self.dialogs.dismiss_all()
        await self.runtime.abort()

    async def replay(self) -> None:
        for update in replay_updates(self.runtime.get_messages(), self.cwd):
            await self.update(update)

    # ------------------------------------------------------------------ configuration

    async def push_config_if_changed(self) -> None:
        """``config_option_update`` when the options differ from what the client last got."""
        options = self.config_options()
        if options != self.sent_config:
            self.sent_config = options
            await self.dialogs.post({"sessionUpdate": "config_option_update", "configOptions": options})

    def config_options(self) -> list[dict[str, Any]]:
        model = self.runtime.model
        current = f"{model['provider']}/{model['id']}" if model else ""
        models = [
            {
                "value": f"{m['provider']}/{m['id']}",
                "name": str(m.get("name") or m["id"]),
                "description": f"{m['provider']}/{m['id']}",
            }
            for m in self.runtime.get_available_models()
        ]
        if current and current not in {m["value"] for m in models}:
            models.insert(0, {"value": current, "name": str(model.get("name") or model["id"]) if model else current})
        levels = self.runtime.get_available_thinking_levels()
        return [
            {
                "id": "model",
                "name": "Model",
                "category": "model",
                "type": "select",
                "currentValue": current,
                "options": models,
            },
            {
                "id": "thought_level",
                "name": "Thinking",
                "category": "thought_level",
                "type": "select",
                "currentValue": self.runtime.thinking_level,
                "options": [{"value": level, "name": level} for level in levels],
            },
        ]

    async def set_config_option(self, config_id: Any, value: Any) -> list[dict[str, Any]]:
        if not isinstance(value, str):
            raise invalid_params("value must be a string")
        self._setting_config = True
        try:
            if config_id == "model":
                provider, _, model_id = value.partition("/")
                if not provider or not model_id:
                    raise invalid_params(f'model value must be "provider/id", got "{value}"')
                await self.runtime.set_model(provider, model_id)
            elif config_id == "thought_level":
                await self.runtime.set_thinking_level(value)
            else:
                raise invalid_params(f'unknown configId "{config_id}" (expected "model" or "thought_level")')
        except RuntimeCommandError as exc:
            raise invalid_params(str(exc)) from None
        finally:
            self._setting_config = False
        self.sent_config = self.config_options()
        return self.sent_config

    def available_commands(self) -> list[dict[str, Any]]:
        commands = []
        for command in self.runtime.get_commands():
            entry: dict[str, Any] = {
                "name": command["name"],
                "description": command.get("description") or command["name"],
            }
            if command.get("source") == "prompt":
                entry["input"] = {"hint": "arguments"}
            commands.append(entry)
        return commands

    # ------------------------------------------------------------------ permissions

    def _asks_for(self, name: str) -> bool:
        if self.permissions == "ask-all":
            return True
        if self.permissions != "ask-writes":
            return False
        if name in WRITE_TOOLS:
            return True
        # MCP server tools may change things unless their server marks them read-only.
        return name.startswith(MCP_TOOL_PREFIX) and not self._read_only(name)

    def _read_only(self, name: str) -> bool:
        ext = self.runtime.ext
        definition = ext.loadout.definition(name) if ext is not None else None
        annotations = (definition or {}).get("annotations")
        return isinstance(annotations, dict) and annotations.get("readOnlyHint") is True

    async def _before_tool_call(self, ctx: Any, signal: Any) -> Any:
        """The runtime's tool gate (model-issued and nested calls, after extension hooks)."""
        name = str(ctx.tool_call.get("name", ""))
        if not self._asks_for(name) or name in self._always_allowed:
            return None
        return await self._ask(
            str(ctx.tool_call.get("id", "")), name, ctx.args if isinstance(ctx.args, dict) else {}, signal
        )

    async def _ask(self, call_id: str, name: str, args: dict[str, Any], signal: Any) -> dict[str, Any] | None:
        """Ask before the call; it runs unless the answer is allow / always allow. An abort or
        ``session/cancel`` ends the request (the call is blocked as cancelled)."""
        announced = self.live.announce(call_id, name, args, "pending")
        if announced is not None:
            await self.update(announced)
        tool_call: dict[str, Any] = {
            "toolCallId": call_id,
            **tool_call_fields(name, args, self.cwd),
            "status": "pending",
        }
        path = absolute_path(args.get("path"), self.cwd)
        if name == "write" and path is not None and isinstance(args.get("content"), str):
            old = await self.files.read_text_or_none(path)
            tool_call["content"] = [{"type": "diff", "path": path, "oldText": old, "newText": args["content"]}]
        options = [
            {"optionId": "allow", "name": "Allow", "kind": "allow_once"},
            {"optionId": "allow_always", "name": f"Always allow {name} in this session", "kind": "allow_always"},
            {"optionId": "reject", "name": "Reject", "kind": "reject_once"},
        ]
        answer = await self.dialogs.request(
            "session/request_permission", {"toolCall": tool_call, "options": options}, signal=signal
        )
        outcome = answer.get("outcome") if isinstance(answer, dict) else None
        selected = (
            outcome.get("optionId") if isinstance(outcome, dict) and outcome.get("outcome") == "selected" else None
        )
        if selected == "allow_always":
            self._always_allowed.add(name)
            return None
        if selected == "allow":
            return None
        if selected is None:
            return {"block": True, "reason": "Permission request cancelled"}
        return {"block": True, "reason": "The user rejected this tool call"}
