"""``Agent``: the stateful owner of one transcript, its runs, queues and abort controller
(upstream pi-agent-core 1.6 ``Agent``).

State is reduced from the loop's events before listeners see them (``message_end`` appends to
``messages``, tool start/end maintain ``pending_tool_calls``, ``turn_end`` records ``error``).
Listeners are awaited one after another, under a lock, for every event: a slow listener (the
RPC writer under backpressure) holds the loop, and concurrent tools never interleave inside a
listener.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

import anyio

from pi_rpc.agent.convert import convert_to_llm as default_convert_to_llm
from pi_rpc.agent.convert import transform_messages as default_transform_messages
from pi_rpc.agent.fifo_lock import FifoLock
from pi_rpc.agent.listeners import Listeners
from pi_rpc.agent.loop import (
    FinishTurn,
    LoopConfig,
    PrepareNextTurn,
    PrepareRequest,
    StreamFn,
    ToolExecution,
    default_stream_fn,
    run_agent_loop,
    run_agent_loop_continue,
)
from pi_rpc.agent.tool_exec import error_text, maybe_await
from pi_rpc.agent.transcript import get_current_system_message, get_current_system_prompt, has_system_message
from pi_rpc.agent.types import AfterToolCallHook, AgentContext, AgentEventListener, BeforeToolCallHook
from pi_rpc.agent.validation import ValidateArgs, resolve_validator
from pi_rpc.ai.abort import AbortController, AbortSignal
from pi_rpc.ai.types import ImageContent, Message, Model, TextContent, UserMessage, empty_usage, is_assistant

if TYPE_CHECKING:
    from pi_rpc.agent.events import AgentEvent

QueueMode = str  # "one-at-a-time" | "all"
DequeueCallback = Callable[[Message, str], Awaitable[None]]

ERR_BUSY_PROMPT = (
    "Agent is already processing a prompt. Use steer() or followUp() to queue messages, or wait for completion."
)
ERR_BUSY_CONTINUE = "Agent is already processing. Wait for completion before continuing."
ERR_BUSY_RESET = "Agent is already processing. Wait for completion before resetting."
ERR_NO_MODEL = "No model configured"
ERR_NO_MESSAGES = "No messages to continue from"
ERR_CONTINUE_ASSISTANT = "Cannot continue from message role: assistant"


class PendingMessageQueue:
    def __init__(self, mode: QueueMode = "one-at-a-time") -> None:
        self.mode = mode
        self.messages: list[Message] = []

    def enqueue(self, message: Message) -> None:
        self.messages.append(message)

    def has_items(self) -> bool:
        return bool(self.messages)

    def peek(self) -> list[Message]:
        if self.mode == "all":
            return list(self.messages)
        return self.messages[:1]

    def drain(self) -> list[Message]:
        drained = self.peek()
        self.messages = self.messages[len(drained) :]
        return drained

    def clear(self) -> list[Message]:
        cleared, self.messages = self.messages, []
        return cleared


class _ActiveRun:
    def __init__(self) -> None:
        self.controller = AbortController()
        self.done = anyio.Event()


class Agent:
    def __init__(
        self,
        *,
        model: Model | None = None,
        system_prompt: str = "",
        thinking_level: str = "off",
        tools: Sequence[object] | None = None,
        messages: Sequence[Message] | None = None,
        stream_fn: StreamFn | None = None,
        convert_to_llm: Callable[[list[Message]], object] | None = None,
        transform_context: Callable[[list[Message], AbortSignal | None], Awaitable[list[Message]]] | None = None,
        transform_messages: Callable[[list[Message], Model], list[Message]] | None = default_transform_messages,
        get_api_key: Callable[[str], Awaitable[str | None]] | None = None,
        api_key: str | None = None,
        before_tool_call: BeforeToolCallHook | None = None,
        after_tool_call: AfterToolCallHook | None = None,
        steering_mode: QueueMode = "one-at-a-time",
        follow_up_mode: QueueMode = "one-at-a-time",
        tool_execution: ToolExecution = "parallel",
        session_id: str | None = None,
        stream_options: dict[str, object] | None = None,
        validate_args: ValidateArgs | None = None,
        on_dequeue: DequeueCallback | None = None,
        prepare_next_turn: PrepareNextTurn | None = None,
        prepare_request: PrepareRequest | None = None,
        finish_turn: FinishTurn | None = None,
        declare_tools: bool = True,
    ) -> None:
        # State
        self.system_prompt = system_prompt
        self.model = model
        self.thinking_level = thinking_level
        self.tools: list[Any] = list(tools or [])
        self.messages: list[Message] = list(messages or [])
        self.is_streaming = False
        self.stream_message: Message | None = None
        self.pending_tool_calls: set[str] = set()
        self.error: str | None = None
        # Config
        self._stream_fn = stream_fn
        self.convert_to_llm = convert_to_llm or default_convert_to_llm
        self.transform_context = transform_context
        self.transform_messages = transform_messages
        self.get_api_key = get_api_key
        self.api_key = api_key
        self.before_tool_call = before_tool_call
        self.after_tool_call = after_tool_call
        self.tool_execution = tool_execution
        self.session_id = session_id
        self.stream_options: dict[str, object] = dict(stream_options or {})
        self._validate_args = validate_args
        self.on_dequeue = on_dequeue
        self.prepare_next_turn = prepare_next_turn
        self.prepare_request = prepare_request
        self.finish_turn = finish_turn
        self.declare_tools = declare_tools

        self._steering = PendingMessageQueue(steering_mode)
        self._follow_up = PendingMessageQueue(follow_up_mode)
        self._listeners: Listeners[AgentEventListener] = Listeners()
        self._active: _ActiveRun | None = None
        # Taken once per event (every streamed delta): free costs nothing (see FifoLock).
        self._emit_lock = FifoLock()
        # id(message) -> "steer" | "follow_up" for dequeued messages not yet started.
        self._dequeued: dict[int, tuple[Message, str]] = {}

    # ------------------------------------------------------------------ listeners

    def subscribe(self, listener: AgentEventListener) -> Callable[[], None]:
        return self._listeners.subscribe(listener)

    # ------------------------------------------------------------------ derived state

    @property
    def stream_fn(self) -> StreamFn:
        if self._stream_fn is None:
            self._stream_fn = default_stream_fn()
        return self._stream_fn

    @stream_fn.setter
    def stream_fn(self, fn: StreamFn) -> None:
        self._stream_fn = fn

    @property
    def current_system_prompt(self) -> str:
        """The prompt the next request would carry (system messages, else ``system_prompt``)."""
        if has_system_message(self.messages):
            return get_current_system_prompt(self.messages)
        return self.system_prompt

    @property
    def argument_validator(self) -> ValidateArgs | None:
        """The tool-argument validator runs use (None until the first run resolved the default)."""
        return self._validate_args

    @property
    def signal(self) -> AbortSignal | None:
        """The active run's abort signal (``None`` while idle)."""
        return self._active.controller.signal if self._active else None

    # ------------------------------------------------------------------ queues

    @property
    def steering_mode(self) -> QueueMode:
        return self._steering.mode

    @steering_mode.setter
    def steering_mode(self, mode: QueueMode) -> None:
        self._steering.mode = mode

    @property
    def follow_up_mode(self) -> QueueMode:
        return self._follow_up.mode

    @follow_up_mode.setter
    def follow_up_mode(self, mode: QueueMode) -> None:
        self._follow_up.mode = mode

    @property
    def follow_up_queue(self) -> list[Message]:
        return list(self._follow_up.messages)

    def steer(self, message: Message) -> None:
        self._steering.enqueue(message)

    def follow_up(self, message: Message) -> None:
        self._follow_up.enqueue(message)

    def clear_steering_queue(self) -> list[Message]:
        return self._steering.clear()

    def clear_follow_up_queue(self) -> list[Message]:
        return self._follow_up.clear()

    def clear_all_queues(self) -> tuple[list[Message], list[Message]]:
        return self.clear_steering_queue(), self.clear_follow_up_queue()

    def has_queued_messages(self) -> bool:
        return self._steering.has_items() or self._follow_up.has_items()

    def peek_queued_messages(self) -> list[Message]:
        steering = self._steering.peek()
        return steering if steering else self._follow_up.peek()

    def _drain(self, queue: PendingMessageQueue, kind: str) -> list[Message]:
        drained = queue.drain()
        for message in drained:
            self._dequeued[id(message)] = (message, kind)
        return drained

    # ------------------------------------------------------------------ runs

    def abort(self, reason: str | None = None) -> None:
        """Abort the active run (stream, tools, hooks); a no-op while idle."""
        if self._active is not None:
            self._active.controller.abort(reason)

    async def wait_for_idle(self) -> None:
        if self._active is not None:
            await self._active.done.wait()

    def reset(self) -> None:
        """Clear the transcript (keeping the folded system message) and both queues."""
        if self._active is not None:
            raise RuntimeError(ERR_BUSY_RESET)
        baseline = get_current_system_message(self.messages)
        self.messages = [baseline] if baseline else []
        self.is_streaming = False
        self.stream_message = None
        self.pending_tool_calls = set()
        self.error = None
        self.clear_all_queues()

    async def prompt(
        self, input: str | Message | Sequence[Message], images: Sequence[ImageContent] | None = None
    ) -> None:
        """Run the loop with new prompt message(s); returns after ``agent_end``."""
        if self._active is not None:
            raise RuntimeError(ERR_BUSY_PROMPT)
        if self.model is None:
            raise RuntimeError(ERR_NO_MODEL)
        await self._run_prompt_messages(self._normalize_prompt(input, images))

    async def continue_(self) -> None:
        """Continue from the transcript (retries, overflow recovery, queued messages)."""
        if self._active is not None:
            raise RuntimeError(ERR_BUSY_CONTINUE)
        if self.model is None:
            raise RuntimeError(ERR_NO_MODEL)
        if not self.messages or all(m.get("role") == "system" for m in self.messages):
            raise RuntimeError(ERR_NO_MESSAGES)
        if self.messages[-1].get("role") == "assistant":
            steering = self._drain(self._steering, "steer")
            if steering:
                await self._run_prompt_messages(steering, skip_initial_steering_poll=True)
                return
            follow_ups = self._drain(self._follow_up, "follow_up")
            if follow_ups:
                await self._run_prompt_messages(follow_ups)
                return
            raise RuntimeError(ERR_CONTINUE_ASSISTANT)
        await self._run_with_lifecycle(
            lambda signal: run_agent_loop_continue(
                self._context_snapshot(), self._loop_config(), self._process_event, signal, self.stream_fn
            )
        )

    @staticmethod
    def _normalize_prompt(
        input: str | Message | Sequence[Message], images: Sequence[ImageContent] | None
    ) -> list[Message]:
        if isinstance(input, (list, tuple)):
            return list(input)
        if isinstance(input, dict):
            return [input]
        text: TextContent = {"type": "text", "text": cast(str, input)}
        content: list[TextContent | ImageContent] = [text]
        content.extend(images or [])
        message: UserMessage = {"role": "user", "content": content, "timestamp": int(time.time() * 1000)}
        return [message]

    async def _run_prompt_messages(self, messages: list[Message], *, skip_initial_steering_poll: bool = False) -> None:
        config = self._loop_config(skip_initial_steering_poll=skip_initial_steering_poll)
        await self._run_with_lifecycle(
            lambda signal: run_agent_loop(
                messages, self._context_snapshot(), config, self._process_event, signal, self.stream_fn
            )
        )

    def _context_snapshot(self) -> AgentContext:
        return AgentContext(messages=list(self.messages), tools=list(self.tools), system_prompt=self.system_prompt)

    def _loop_config(self, *, skip_initial_steering_poll: bool = False) -> LoopConfig:
        skip = skip_initial_steering_poll

        async def get_steering() -> list[Message]:
            nonlocal skip
            if skip:
                skip = False
                return []
            return self._drain(self._steering, "steer")

        async def get_follow_up() -> list[Message]:
            return self._drain(self._follow_up, "follow_up")

        if self._validate_args is None:
            self._validate_args = resolve_validator()
        assert self.model is not None
        return LoopConfig(
            model=self.model,
            reasoning=None if self.thinking_level == "off" else self.thinking_level,
            session_id=self.session_id,
            api_key=self.api_key,
            get_api_key=self.get_api_key,
            stream_options=dict(self.stream_options),
            convert_to_llm=self.convert_to_llm,
            transform_context=self.transform_context,
            transform_messages=self.transform_messages,
            tool_execution=self.tool_execution,
            before_tool_call=self.before_tool_call,
            after_tool_call=self.after_tool_call,
            validate_args=self._validate_args,
            get_steering_messages=get_steering,
            get_follow_up_messages=get_follow_up,
            prepare_next_turn=self.prepare_next_turn,
            prepare_request=self.prepare_request,
            finish_turn=self.finish_turn,
            declare_tools=self.declare_tools,
        )

    async def _run_with_lifecycle(self, executor: Callable[[AbortSignal], Awaitable[object]]) -> None:
        if self._active is not None:
            raise RuntimeError("Agent is already processing.")
        run = _ActiveRun()
        self._active = run
        self.is_streaming = True
        self.stream_message = None
        self.error = None
        try:
            try:
                await executor(run.controller.signal)
            except Exception as exc:  # noqa: BLE001 - a loop failure ends the run with an error message
                await self._handle_run_failure(exc, run.controller.signal.aborted)
        finally:
            self.is_streaming = False
            self.stream_message = None
            self.pending_tool_calls = set()
            self._dequeued.clear()
            self._active = None
            run.done.set()

    async def _handle_run_failure(self, error: BaseException, aborted: bool) -> None:
        model: Mapping[str, Any] = self.model or {}
        failure: Message = {
            "role": "assistant",
            "content": [{"type": "text", "text": ""}],
            "api": model.get("api", "unknown"),
            "provider": model.get("provider", "unknown"),
            "model": model.get("id", "unknown"),
            "usage": empty_usage(),
            "stopReason": "aborted" if aborted else "error",
            "errorMessage": error_text(error),
            "timestamp": int(time.time() * 1000),
        }
        await self._process_event({"type": "message_start", "message": failure})
        await self._process_event({"type": "message_end", "message": failure})
        await self._process_event({"type": "turn_end", "message": failure, "toolResults": []})
        await self._process_event({"type": "agent_end", "messages": [failure]})

    async def _process_event(self, event: AgentEvent) -> None:
        # ``async with self._emit_lock`` without its two coroutines when the lock is free (every
        # streamed delta); a held lock is waited for in turn, as before.
        lock = self._emit_lock
        if not lock.try_acquire():
            await lock.__aenter__()
        try:
            if event["type"] == "message_update":  # first: one per streamed delta
                self.stream_message = event["message"]
            elif event["type"] == "message_start":
                self.stream_message = event["message"]
                dequeued = self._dequeued.pop(id(event["message"]), None)
                if dequeued is not None and self.on_dequeue is not None:
                    await maybe_await(self.on_dequeue(dequeued[0], dequeued[1]))
            elif event["type"] == "message_end":
                self.stream_message = None
                self.messages.append(event["message"])
            elif event["type"] == "tool_execution_start":
                self.pending_tool_calls = {*self.pending_tool_calls, event["toolCallId"]}
            elif event["type"] == "tool_execution_end":
                self.pending_tool_calls = self.pending_tool_calls - {event["toolCallId"]}
            elif event["type"] == "turn_end":
                message = event["message"]
                if is_assistant(message) and message.get("errorMessage"):
                    self.error = message["errorMessage"]
            elif event["type"] == "agent_end":
                self.stream_message = None

            for listener in self._listeners.all:
                await listener(event)
        finally:
            lock.release()
