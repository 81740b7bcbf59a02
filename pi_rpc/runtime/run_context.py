"""Which session-level run the running task works for (the RPC ``runId`` of its events).

A session-level run (``AgentSession._session_run``: from ``agent_start`` to its
``agent_settled``, retries, compactions and queued messages included) runs in a task of its
own and binds its id there. Every event that task emits, and every task it starts (parallel
tools, summarizers), sees the id through a context variable; commands run in their own tasks
and never see it, so what another command causes during a run carries no run id.
"""

from __future__ import annotations

from contextvars import ContextVar

from pi_rpc.session.ids import uuid7

_RUN_ID: ContextVar[str | None] = ContextVar("pi_rpc_run_id", default=None)


def current_run_id() -> str | None:
    """The id of the run the current task belongs to, or None outside any run."""
    return _RUN_ID.get()


def bind_run_id(run_id: str | None) -> None:
    """Make ``run_id`` the current task's run (a run task calls this first thing)."""
    _RUN_ID.set(run_id)


def new_run_id() -> str:
    """A unique run id for a run whose prompt had no string id (``run_`` + a UUIDv7)."""
    return "run_" + uuid7()
