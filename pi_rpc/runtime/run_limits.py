"""Run limits and structured output for one session-level run (RPC ``prompt {limits,
outputSchema}``, the CLI's ``--max-turns``/``--max-cost``/``--timeout``/``--output-schema``).

A ``RunGuard`` watches one run (everything from the prompt to ``agent_settled``: retries and
queued messages included) through the agent's hooks, wrapping the ones the session installed:

- ``maxTurns``: after the N-th model response, a run that would make another request ends;
- ``maxToolCalls``: calls beyond the N-th are blocked (their result says why) and the run ends
  after that turn;
- ``maxOutputTokens`` / ``maxCostUsd``: once the run's assistant messages reach the total
  (``usage.output``, ``usage.cost.total``), checked after each response, the run ends;
- ``timeoutMs``: the run is aborted when it runs longer (pending tools are cancelled).

A run a limit ended stops cleanly: the turn's tool results and every message are recorded as
always, queued messages stay queued, and its last ``agent_end`` carries
``"limit": {"kind", "limit", "used"}``.

``outputSchema``: when the model gives its final answer (no tool calls), the answer's text must
be JSON (a fenced ``json`` block is accepted) valid against the schema; otherwise the model is
told the problem in a user message and answers again, at most ``MAX_OUTPUT_RETRIES`` times.
The last ``agent_end`` carries the parsed ``output``, or ``outputError`` when no answer was valid.
"""

from __future__ import annotations

import json
import math
import re
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pi_rpc.agent.events import AgentEndEvent

import anyio

from pi_rpc.agent.loop import TurnSnapshot, TurnUpdate
from pi_rpc.agent.tool_exec import maybe_await
from pi_rpc.ai.abort import AbortSignal
from pi_rpc.ai.types import Message, tool_calls_of

LIMIT_KINDS: tuple[str, ...] = ("maxTurns", "maxToolCalls", "maxOutputTokens", "maxCostUsd", "timeoutMs")
_INTEGER_KINDS = frozenset({"maxTurns", "maxToolCalls", "maxOutputTokens", "timeoutMs"})
MAX_OUTPUT_RETRIES = 2
_FENCE = re.compile(r"^```(?:json)?\s*\n(.*?)\n?```$", re.DOTALL)


class LimitsError(ValueError):
    """``limits`` or ``outputSchema`` was refused; ``str(exc)`` says why."""


def parse_limits(raw: object, field: str = "limits") -> dict[str, float]:
    """A ``limits`` object checked: known keys, positive numbers (integers where counted)."""
    if not isinstance(raw, dict):
        raise LimitsError(f'"{field}" must be an object with any of {", ".join(LIMIT_KINDS)}')
    out: dict[str, float] = {}
    for key, value in raw.items():
        if key not in LIMIT_KINDS:
            raise LimitsError(f'"{field}.{key}" is not a limit (known: {", ".join(LIMIT_KINDS)})')
        if value is None:
            continue
        number_ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
        if not number_ok or value <= 0:
            raise LimitsError(f'"{field}.{key}" must be a positive number')
        if key in _INTEGER_KINDS and not float(value).is_integer():
            raise LimitsError(f'"{field}.{key}" must be a positive integer')
        out[key] = int(value) if key in _INTEGER_KINDS else float(value)
    return out


def check_output_schema(schema: object) -> dict[str, object]:
    """``outputSchema`` checked against the JSON Schema meta-schema (draft 2020-12)."""
    if not isinstance(schema, dict):
        raise LimitsError('"outputSchema" must be a JSON Schema object')
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import SchemaError

    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as exc:
        raise LimitsError(f'"outputSchema" is not a valid JSON Schema: {exc.message}') from None
    return schema


def _answer_text(message: Message) -> str:
    content: Any = message.get("content") or []
    return "".join(b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text").strip()


def validate_output(text: str, schema: dict[str, object]) -> tuple[bool, object]:
    """``(True, value)`` when ``text`` is JSON valid against ``schema``, else ``(False, why)``."""
    fenced = _FENCE.match(text)
    if fenced:
        text = fenced.group(1).strip()
    try:
        value = json.loads(text)
    except ValueError as exc:
        return False, f"the answer is not JSON ({exc})"
    from jsonschema import Draft202012Validator

    errors = sorted(Draft202012Validator(schema).iter_errors(value), key=lambda e: list(e.absolute_path))
    if errors:
        first = errors[0]
        path = "/".join(str(p) for p in first.absolute_path)
        return False, f"the answer does not match the schema at /{path}: {first.message}"
    return True, value


def _correction(error: str, schema: dict[str, object]) -> Message:
    text = (
        f"Your final answer must be only JSON that is valid against this JSON Schema, and {error}.\n"
        f"Schema:\n{json.dumps(schema, ensure_ascii=False)}\n"
        "Answer again with only the JSON."
    )
    return {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": int(time.time() * 1000)}


FinishTurn = Callable[[TurnSnapshot, AbortSignal | None], Awaitable[object]]
PrepareNextTurn = Callable[[TurnSnapshot], Awaitable[TurnUpdate | None]]


class RunGuard:
    """The limits and output schema of one run (see the module docstring)."""

    def __init__(
        self,
        limits: dict[str, float],
        output_schema: dict[str, object] | None,
        *,
        abort: Callable[[], None],
        has_queued: Callable[[], bool],
    ) -> None:
        self.limits = dict(limits)
        self.output_schema = output_schema
        self._abort = abort
        self._has_queued = has_queued
        self.turns = 0
        self.tool_calls = 0
        self.output_tokens = 0
        self.cost = 0.0
        self.started = time.monotonic()
        self.hit: dict[str, object] | None = None
        self.output: object = None
        self.has_output = False
        self.output_error: str | None = None
        self._retries = 0
        self._correction: Message | None = None
        self._installed: dict[str, Any] = {}

    # ------------------------------------------------------------------ limits

    def update_limits(self, limits: dict[str, float]) -> None:
        """New limits for the running run (``steer``/``follow_up``/a queued ``prompt``);
        what it used so far still counts."""
        self.limits.update(limits)

    def _mark(self, kind: str, used: float) -> None:
        if self.hit is None:
            value = self.limits[kind]
            self.hit = {"kind": kind, "limit": value, "used": round(used, 6) if isinstance(used, float) else used}

    def _check_totals(self) -> None:
        if "maxOutputTokens" in self.limits and self.output_tokens >= self.limits["maxOutputTokens"]:
            self._mark("maxOutputTokens", self.output_tokens)
        if "maxCostUsd" in self.limits and self.cost >= self.limits["maxCostUsd"]:
            self._mark("maxCostUsd", self.cost)

    async def run_timer(self) -> None:
        """Abort the run once ``timeoutMs`` has passed (cancelled when the run ends)."""
        timeout = self.limits.get("timeoutMs")
        if timeout is None:
            return
        await anyio.sleep(max(0.0, timeout / 1000 - (time.monotonic() - self.started)))
        self._mark("timeoutMs", int((time.monotonic() - self.started) * 1000))
        self._abort()

    # ------------------------------------------------------------------ the agent's hooks

    def install(self, agent: Any) -> None:
        """Wrap the agent's ``finish_turn``, ``prepare_next_turn`` and ``before_tool_call``."""
        self._installed = {
            "finish_turn": (agent.finish_turn, self._finish_turn(agent.finish_turn)),
            "prepare_next_turn": (agent.prepare_next_turn, self._prepare_next_turn(agent.prepare_next_turn)),
            "before_tool_call": (agent.before_tool_call, self._before_tool_call(agent.before_tool_call)),
        }
        for name, (_original, wrapped) in self._installed.items():
            setattr(agent, name, wrapped)

    def uninstall(self, agent: object) -> None:
        for name, (original, wrapped) in self._installed.items():
            if getattr(agent, name) is wrapped:  # (unless something replaced it meanwhile)
                setattr(agent, name, original)
        self._installed = {}

    def _before_tool_call(self, original: Any) -> Any:
        async def before(context: object, signal: AbortSignal | None) -> object:
            if original is not None:
                result = await maybe_await(original(context, signal))
                if result and result.get("block"):
                    return result
            limit = self.limits.get("maxToolCalls")
            if limit is not None and self.tool_calls >= limit:
                self._mark("maxToolCalls", self.tool_calls)
                return {
                    "block": True,
                    "reason": f"Not run: the run's tool call limit (maxToolCalls {int(limit)}) was reached",
                }
            self.tool_calls += 1
            return None

        return before

    def _finish_turn(self, original: FinishTurn | None) -> FinishTurn:
        async def finish(turn: TurnSnapshot, signal: AbortSignal | None) -> object:
            decision = await original(turn, signal) if original is not None else None
            message = turn.message
            self.turns += 1
            usage = message.get("usage") or {}
            self.output_tokens += int(usage.get("output") or 0)
            self.cost += float((usage.get("cost") or {}).get("total") or 0)
            self._check_totals()
            if message.get("stopReason") in ("error", "aborted"):
                return decision
            wants_more = bool(tool_calls_of(message)) or self._has_queued() or decision == "continue"
            if self.hit is None and wants_more and "maxTurns" in self.limits and self.turns >= self.limits["maxTurns"]:
                self._mark("maxTurns", self.turns)
            if self.hit is not None:
                return "end"
            if (
                self.output_schema is not None
                and not tool_calls_of(message)
                and decision != "continue"
                and not self._has_queued()
            ):
                return self._check_answer(message, decision)
            return decision

        return finish

    def _check_answer(self, message: Message, decision: object) -> object:
        assert self.output_schema is not None
        ok, value = validate_output(_answer_text(message), self.output_schema)
        if ok:
            self.output, self.has_output, self.output_error = value, True, None
            return decision
        self.output_error = str(value)
        if self._retries >= MAX_OUTPUT_RETRIES:
            return decision
        if "maxTurns" in self.limits and self.turns >= self.limits["maxTurns"]:
            self._mark("maxTurns", self.turns)
            return "end"
        self._retries += 1
        self._correction = _correction(str(value), self.output_schema)
        return "continue"

    def _prepare_next_turn(self, original: PrepareNextTurn | None) -> PrepareNextTurn:
        async def prepare(turn: TurnSnapshot) -> TurnUpdate | None:
            update = await original(turn) if original is not None else None
            correction, self._correction = self._correction, None
            if correction is not None:
                update = update or TurnUpdate()
                update.messages = [*update.messages, correction]
            return update

        return prepare

    # ------------------------------------------------------------------ agent_end

    def add_end_fields(self, fields: AgentEndEvent) -> None:
        """What the run's ``agent_end`` carries beyond upstream's keys, added to ``fields``."""
        if self.hit is not None:
            fields["limit"] = dict(self.hit)
        if self.output_schema is not None:
            if self.has_output:
                fields["output"] = self.output
            elif self.output_error is not None:
                fields["outputError"] = self.output_error
