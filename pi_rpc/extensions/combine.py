"""How the handlers' results of each extension event combine into the dispatch's result
(upstream's rules), declared once: ``FOLDS`` maps an event name to its ``Fold``; every other
event is a notification whose results are ignored. ``ExtensionRunner.emit`` is the one call
path that runs a fold (pluggy's ``_multicall`` is the model): it snapshots the handlers, gives
each the event the fold builds, reports a raising handler as the fold's ``on_error`` says, and
stops when the fold says so.

A fold lives for one dispatch and holds its running state: ``event()`` is what the next handler
sees, ``take(ext, result)`` folds one handler's result in (True stops the dispatch),
``check(ext)`` runs after every handler when ``checks`` is set, ``result()`` is the outcome.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Literal, cast

from pi_rpc.extensions.api import error_message
from pi_rpc.extensions.events import CANCELLABLE_EVENTS
from pi_rpc.extensions.types import ExtensionErrorRecord

if TYPE_CHECKING:
    from pi_rpc.extensions.types import Extension

Report = Callable[[ExtensionErrorRecord], None]

#: What a raising handler does to the dispatch: ``report``: reported, the next handler runs;
#: ``reraise``: reported, then raised to the caller; ``raise``: raised unreported (the caller
#: turns it into its own outcome, e.g. a blocked tool call).
OnError = Literal["report", "reraise", "raise"]

INVALID_USER_BASH_RESULT = (
    "Invalid user_bash handler result: return None for local execution or exactly one valid "
    '{"operations"} or {"result"} dict'
)
LOST_SYSTEM_HEAD = (
    "Handler removed the leading system message; the request has no prompt or initial tool declarations. "
    "Keep it at index 0 or replace a dropped prefix with getCurrentSystemMessage()."
)
MESSAGE_END_ROLE = "message_end handlers must return a message with the same role"


def _same_items(left: list[Any], right: list[Any]) -> bool:
    return len(left) == len(right) and all(a is b for a, b in zip(left, right))


def _current_system_message(messages: list[dict[str, Any]]) -> dict[str, Any] | None:
    from pi_rpc.ai.transcript import get_current_system_message

    # The context pipeline hands extensions plain JSON objects.
    return cast("dict[str, Any] | None", get_current_system_message(messages))


def _valid_bash_result(result: Any) -> bool:
    if not isinstance(result, dict):
        return False
    has_operations = result.get("operations") is not None
    has_result = result.get("result") is not None
    if has_operations == has_result:
        return False
    if has_operations:
        operations = result["operations"]
        return callable(getattr(operations, "exec", None)) or (
            isinstance(operations, dict) and callable(operations.get("exec"))
        )
    record = result["result"]
    return (
        isinstance(record, dict)
        and isinstance(record.get("output"), str)
        and "exitCode" in record
        and (record["exitCode"] is None or isinstance(record["exitCode"], int))
        and isinstance(record.get("cancelled"), bool)
        and isinstance(record.get("truncated"), bool)
        and (record.get("fullOutputPath") is None or isinstance(record.get("fullOutputPath"), str))
    )


class Fold:
    """A notification: every handler sees the same event; results are ignored."""

    on_error: ClassVar[OnError] = "report"
    checks: ClassVar[bool] = False  # check(ext) runs after every handler

    def __init__(self, event: dict[str, Any], report: Report) -> None:
        self.base = event
        self.report = report

    def event(self) -> dict[str, Any]:
        return self.base

    def take(self, ext: Extension, result: Any) -> bool:
        return False

    async def check(self, ext: Extension) -> None:
        return None

    def result(self) -> Any:
        return None


class FirstCancel(Fold):
    """``session_before_*``: the last non-empty result; the first ``{"cancel": True}`` wins."""

    stop_key: ClassVar[str] = "cancel"

    def __init__(self, event: dict[str, Any], report: Report) -> None:
        super().__init__(event, report)
        self.found: Any = None

    def take(self, ext: Extension, result: Any) -> bool:
        if not result:
            return False
        self.found = result
        return isinstance(result, dict) and bool(result.get(self.stop_key))

    def result(self) -> Any:
        return self.found


class FirstBlock(FirstCancel):
    """``tool_call``: handlers may mutate ``event["input"]`` (later ones see it); the first
    ``{"block": True}`` wins. A raising handler is not reported here: the caller blocks the call
    with its message."""

    on_error: ClassVar[OnError] = "raise"
    stop_key: ClassVar[str] = "block"


class FirstBashResult(Fold):
    """``user_bash``: the first valid ``{"result"}`` or ``{"operations"}`` wins. An invalid
    result or a raising handler is reported and raised (the command must not fall through to
    local execution)."""

    on_error: ClassVar[OnError] = "reraise"

    def __init__(self, event: dict[str, Any], report: Report) -> None:
        super().__init__(event, report)
        self.found: dict[str, Any] | None = None

    def take(self, ext: Extension, result: Any) -> bool:
        if result is None:
            return False
        if not _valid_bash_result(result):
            raise ValueError(INVALID_USER_BASH_RESULT)
        self.found = result
        return True

    def result(self) -> dict[str, Any] | None:
        return self.found


class ToolResultPatches(Fold):
    """``tool_result``: handlers chain partial patches of ``content``, ``details``,
    ``structuredContent``, ``isError`` and ``usage`` (each sees the result so far); the patched
    fields, or None when nothing changed."""

    def __init__(self, event: dict[str, Any], report: Report) -> None:
        super().__init__(event, report)
        self.current = dict(event)
        self.modified = False

    def event(self) -> dict[str, Any]:
        return self.current

    def take(self, ext: Extension, patch: Any) -> bool:
        if not isinstance(patch, dict):
            return False
        current = self.current
        if patch.get("content") is not None:
            current["content"] = patch["content"]
            if patch.get("structuredContent") is None:
                current.pop("structuredContent", None)
            self.modified = True
        for key in ("details", "structuredContent", "isError", "usage"):
            if patch.get(key) is not None:
                current[key] = patch[key]
                self.modified = True
        return False

    def result(self) -> dict[str, Any] | None:
        if not self.modified:
            return None
        current = self.current
        return {
            "content": current.get("content"),
            "details": current.get("details"),
            "structuredContent": current.get("structuredContent"),
            "isError": current.get("isError"),
            "usage": current.get("usage"),
        }


class ContextChain(Fold):
    """``context``: handlers see the conversation without system messages (``event["messages"]``
    is already a deep copy) and may return ``{"messages": [...]}`` or edit the list in place. A
    changed list gets the current prompt and tools back as one leading system message."""

    def __init__(self, event: dict[str, Any], report: Report) -> None:
        super().__init__(event, report)
        self.current: list[dict[str, Any]] = event["messages"]
        self.visible: list[dict[str, Any]] = []
        self.snapshot: list[dict[str, Any]] = []

    def event(self) -> dict[str, Any]:
        self.visible = [m for m in self.current if m.get("role") != "system"]
        self.snapshot = list(self.visible)
        return {"type": "context", "messages": self.visible}

    def take(self, ext: Extension, result: Any) -> bool:
        returned = result.get("messages") if isinstance(result, dict) else None
        if returned is None:
            if _same_items(self.visible, self.snapshot):
                return False
            returned = self.visible
        if _same_items(list(returned), self.snapshot):
            return False
        head = _current_system_message(self.current)
        self.current = [head, *returned] if head is not None else list(returned)
        return False

    def result(self) -> list[dict[str, Any]]:
        return self.current


class SystemContextChain(Fold):
    """``context_with_system``: handlers see the full transcript (system messages included) and
    what they return is sent as it is; dropping the leading system message is reported
    (upstream's text) but honoured."""

    def __init__(self, event: dict[str, Any], report: Report) -> None:
        super().__init__(event, report)
        self.current: list[dict[str, Any]] = event["messages"]
        self.had_head = False

    def event(self) -> dict[str, Any]:
        self.had_head = bool(self.current) and self.current[0].get("role") == "system"
        return {"type": "context_with_system", "messages": self.current}

    def take(self, ext: Extension, result: Any) -> bool:
        returned = result.get("messages") if isinstance(result, dict) else None
        if returned is not None:
            self.current = list(returned)
        current = self.current
        if self.had_head and not (current and isinstance(current[0], dict) and current[0].get("role") == "system"):
            self.report({"extensionPath": ext.path, "event": "context_with_system", "error": LOST_SYSTEM_HEAD})
        return False

    def result(self) -> list[dict[str, Any]]:
        return self.current


class PayloadChain(Fold):
    """``before_provider_request``: each handler may return a replacement payload."""

    def __init__(self, event: dict[str, Any], report: Report) -> None:
        super().__init__(event, report)
        self.current: Any = event.get("payload")

    def event(self) -> dict[str, Any]:
        return {"type": "before_provider_request", "payload": self.current}

    def take(self, ext: Extension, result: Any) -> bool:
        if result is not None:
            self.current = result
        return False

    def result(self) -> Any:
        return self.current


class HeaderEdits(Fold):
    """``before_provider_headers``: handlers mutate ``headers`` in place (a value of ``None``
    deletes the header); the result is that dict."""

    def event(self) -> dict[str, Any]:
        return {"type": "before_provider_headers", "headers": self.base["headers"]}

    def result(self) -> dict[str, Any]:
        headers: dict[str, Any] = self.base["headers"]
        return headers


class PromptEvent(dict[str, Any]):
    """A ``before_agent_start`` event whose ``systemPrompt`` is rendered from the options when
    read (upstream's getter), so it reflects edits made before the read."""

    def __init__(
        self, fields: dict[str, Any], options: dict[str, Any], render: Callable[[dict[str, Any]], str]
    ) -> None:
        super().__init__(fields)
        self["systemPrompt"] = ""  # listed among the keys; the value is rendered on access
        self._options = options
        self._render = render

    def __getitem__(self, key: Any) -> Any:
        if key == "systemPrompt":
            return self._render(self._options)
        return super().__getitem__(key)

    def get(self, key: Any, default: Any = None) -> Any:
        if key == "systemPrompt":
            return self._render(self._options)
        return super().get(key, default)


class PromptInjections(Fold):
    """``before_agent_start``: handlers see ``systemPromptOptions`` (edited in place and seen by
    later handlers) and ``systemPrompt`` rendered from it when read; a returned ``systemPrompt``
    sets ``options["forceSystemPrompt"]``. The result is the messages handlers injected."""

    def __init__(self, event: dict[str, Any], report: Report, *, render: Callable[[dict[str, Any]], str]) -> None:
        super().__init__(event, report)
        self.options: dict[str, Any] = event["systemPromptOptions"]
        self.render = render
        self.messages: list[dict[str, Any]] = []

    def event(self) -> dict[str, Any]:
        return PromptEvent(self.base, self.options, self.render)

    def take(self, ext: Extension, result: Any) -> bool:
        if isinstance(result, dict):
            if result.get("message"):
                self.messages.append(result["message"])
            if result.get("systemPrompt") is not None:
                self.options["forceSystemPrompt"] = str(result["systemPrompt"])
        return False

    def result(self) -> list[dict[str, Any]]:
        return self.messages


class InputChain(Fold):
    """``input``: transforms chain, ``handled`` stops; the result is
    ``{"action": "continue"|"transform"|"handled", "text"?, "images"?}``."""

    def __init__(self, event: dict[str, Any], report: Report) -> None:
        super().__init__(event, report)
        self.text: str = event["text"]
        self.images: list[dict[str, Any]] | None = event.get("images")
        self.handled: dict[str, Any] | None = None

    def event(self) -> dict[str, Any]:
        base = self.base
        return {
            "type": "input",
            "text": self.text,
            "images": self.images,
            "source": base.get("source"),
            "streamingBehavior": base.get("streamingBehavior"),
        }

    def take(self, ext: Extension, result: Any) -> bool:
        if not isinstance(result, dict):
            return False
        if result.get("action") == "handled":
            self.handled = result
            return True
        if result.get("action") == "transform":
            self.text = str(result.get("text", self.text))
            if result.get("images") is not None:
                self.images = result["images"]
        return False

    def result(self) -> dict[str, Any]:
        if self.handled is not None:
            return self.handled
        if self.text != self.base["text"] or self.images is not self.base.get("images"):
            return {"action": "transform", "text": self.text, "images": self.images}
        return {"action": "continue"}


class MessageReplacement(Fold):
    """``message_end``: handlers may return ``{"message": replacement}`` with the same role
    (each sees the message so far); the replacement, or None."""

    def __init__(self, event: dict[str, Any], report: Report) -> None:
        super().__init__(event, report)
        self.current: dict[str, Any] = event["message"]
        self.modified = False

    def event(self) -> dict[str, Any]:
        return {**self.base, "message": self.current}

    def take(self, ext: Extension, result: Any) -> bool:
        replacement = result.get("message") if isinstance(result, dict) else None
        if not replacement:
            return False
        if replacement.get("role") != self.current.get("role"):
            self.report({"extensionPath": ext.path, "event": "message_end", "error": MESSAGE_END_ROLE})
            return False
        self.current = replacement
        self.modified = True
        return False

    def result(self) -> dict[str, Any] | None:
        return self.current if self.modified else None


class DiscoveredPaths(Fold):
    """``resources_discover``: the paths every handler returned, in order."""

    def __init__(self, event: dict[str, Any], report: Report) -> None:
        super().__init__(event, report)
        self.found: dict[str, list[str]] = {"skillPaths": [], "promptPaths": [], "themePaths": []}

    def event(self) -> dict[str, Any]:
        return dict(self.base)

    def take(self, ext: Extension, result: Any) -> bool:
        if isinstance(result, dict):
            for key, found in self.found.items():
                paths = result.get(key)
                if isinstance(paths, list):
                    found.extend(str(p) for p in paths)
        return False

    def result(self) -> dict[str, list[str]]:
        return self.found


@dataclass
class BoundaryResult:
    """What the handlers of an actionable boundary proposed (``valid`` False: nothing)."""

    entries: Any
    continue_: bool
    context: dict[str, Any]
    valid: bool


class BoundaryProposal(Fold):
    """An actionable boundary (``turn_end``, ``agent_before_settle``; upstream
    ``emitBoundary``): each handler sees the entries and continuation proposed so far and
    ``context`` rebuilt from them; a returned ``entries`` or ``continue`` replaces only that
    field. The proposal is checked after every handler (``build_context`` raises for an invalid
    one: reported as ``Invalid boundary entries: …``; a later handler may fix it). An invalid
    final proposal commits nothing and does not continue."""

    checks: ClassVar[bool] = True

    def __init__(
        self,
        event: dict[str, Any],
        report: Report,
        *,
        build_context: Callable[[list[Any]], Awaitable[dict[str, Any]]],
        context: dict[str, Any],
    ) -> None:
        super().__init__(event, report)
        self.build_context = build_context
        self.entries: Any = []
        self.should_continue = False
        self.context = context
        self.valid = True

    def event(self) -> dict[str, Any]:
        return {**self.base, "entries": self.entries, "continue": self.should_continue, "context": self.context}

    def take(self, ext: Extension, result: Any) -> bool:
        if isinstance(result, dict):
            if result.get("entries") is not None:
                self.entries = result["entries"]
            if result.get("continue") is not None:
                self.should_continue = bool(result["continue"])
        return False

    async def check(self, ext: Extension) -> None:
        try:
            self.context = await self.build_context(self.entries)
            self.valid = True
        except Exception as exc:  # noqa: BLE001 - the proposal is invalid
            self.valid = False
            etype = str(self.base.get("type"))
            self.report(
                {"extensionPath": ext.path, "event": etype, "error": f"Invalid boundary entries: {error_message(exc)}"}
            )

    def result(self) -> BoundaryResult:
        if not self.valid:
            return BoundaryResult([], False, self.context, False)
        return BoundaryResult(self.entries, self.should_continue, self.context, True)


#: How each event's handler results combine; an event not listed is a notification (``Fold``).
FOLDS: dict[str, type[Fold]] = {
    **{name: FirstCancel for name in sorted(CANCELLABLE_EVENTS)},
    "tool_call": FirstBlock,
    "tool_result": ToolResultPatches,
    "user_bash": FirstBashResult,
    "context": ContextChain,
    "context_with_system": SystemContextChain,
    "before_provider_request": PayloadChain,
    "before_provider_headers": HeaderEdits,
    "before_agent_start": PromptInjections,
    "input": InputChain,
    "message_end": MessageReplacement,
    "resources_discover": DiscoveredPaths,
    "turn_end": BoundaryProposal,
    "agent_before_settle": BoundaryProposal,
}
