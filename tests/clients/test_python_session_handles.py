"""Python clients (sync and anyio) on many sessions in one process (issue 24): ``open_session`` returns a
handle object with the client's per-session methods bound to its handle and its own event
subscription; ``close()``, ``list_open_sessions``, and the ``"default"`` session beside them. Against
our real server and a scripted model whose answer depends on the prompt (so concurrent runs are told apart).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from pi_rpc_client import (
    COMMAND_TYPES,
    DEFAULT_HANDLE,
    PROCESS_COMMAND_TYPES,
    RpcClient,
    RpcCommandError,
    SessionHandle,
)
from pi_rpc_client.aio import AsyncRpcClient, AsyncSessionHandle

from protocol.conformance.scripted_llm import ScriptedLLM, write_agent_config

from .pi_client_testkit import server_argv, server_env


def _answer(tag: str, pieces: int = 40, delay_ms: int = 6) -> dict[str, Any]:
    """A rule: a prompt containing ``ask-<tag>`` is answered ``<tag>0 <tag>1 ...`` in ``pieces`` chunks."""
    return {
        "contains": f"ask-{tag}",
        "turn": {"chunks": [f"{tag}{i} " for i in range(pieces)], "delay_ms": delay_ms},
    }


def _expected(tag: str, pieces: int = 40) -> str:
    return "".join(f"{tag}{i} " for i in range(pieces))


@pytest.fixture
def start_pi(tmp_path: Path) -> Iterator[Callable[..., tuple[list[str], dict[str, str], Path]]]:
    """start_pi(tags) -> (argv, env, cwd) of our server on a scripted model answering each tag."""
    servers: list[ScriptedLLM] = []

    def factory(tags: list[str], *extra: str) -> tuple[list[str], dict[str, str], Path]:
        for d in ("agent", "sessions", "cwd", "home", "other"):
            (tmp_path / d).mkdir(exist_ok=True)
        llm = ScriptedLLM({"rules": [_answer(t) for t in tags]}).start()
        servers.append(llm)
        write_agent_config(str(tmp_path / "agent"), llm.base_url)
        return [*server_argv("ours", str(tmp_path / "sessions")), *extra], server_env(tmp_path), tmp_path / "cwd"

    yield factory
    for s in servers:
        s.stop()


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _text(events: list[dict[str, Any]]) -> str:
    return "".join(
        e["assistantMessageEvent"].get("delta", "")
        for e in events
        if e["type"] == "message_update" and e["assistantMessageEvent"]["type"] == "text_delta"
    )


# ---------------------------------------------------------------- shape (no process)
def test_handle_objects_have_the_per_session_commands_only() -> None:
    process_level = {*PROCESS_COMMAND_TYPES, "list_open_sessions", "close_session", "open_session"}
    for name in COMMAND_TYPES:
        assert callable(getattr(SessionHandle, name)) and callable(getattr(AsyncSessionHandle, name)), name
    for name in process_level:
        assert not hasattr(SessionHandle, name) and not hasattr(AsyncSessionHandle, name), name
        assert callable(getattr(RpcClient, name)) and callable(getattr(AsyncRpcClient, name)), name
    assert {"prompt_and_wait", "events", "on_event", "request", "close"} <= set(dir(SessionHandle))


def test_every_command_of_a_handle_carries_it() -> None:
    sent: list[dict[str, Any]] = []

    class Recorder:
        default_timeout = 1.0

        def request(self, command: dict[str, Any], timeout: Any = ..., *, check: bool = True) -> dict[str, Any]:
            sent.append(command)
            return {"type": "response", "success": True, "data": {"disposition": "started"}}

    h = SessionHandle(Recorder(), {"handle": "h7"})  # type: ignore[arg-type]
    h.prompt("hi")
    h.get_state()
    h.set_model("conf", "conf-model")
    h.switch_session("/x.jsonl")
    h.set_label("e1", None)
    h.request({"type": "get_tree", "handle": "explicit"})
    assert [c["handle"] for c in sent] == ["h7", "h7", "h7", "h7", "h7", "explicit"]
    assert sent[0] == {"type": "prompt", "message": "hi", "handle": "h7"}
    assert sent[4]["label"] is None  # JSON null survives the binding


# ---------------------------------------------------------------- real server, sync
def test_sessions_stream_at_once_each_handle_sees_only_its_own(start_pi) -> None:
    argv, env, cwd = start_pi(["A", "B", "C"])
    with RpcClient(argv, cwd=cwd, env=env, inherit_env=False, default_timeout=30.0) as pi:
        a = pi.open_session()
        b = pi.open_session(cwd=str(cwd.parent / "other"), model="conf/conf-reasoner", thinking_level="high")
        assert a.handle != b.handle and DEFAULT_HANDLE not in (a.handle, b.handle)
        assert b.cwd == str(cwd.parent / "other") and a.session_id != b.session_id
        open_ = {s["handle"]: s for s in pi.list_open_sessions()}
        assert set(open_) == {DEFAULT_HANDLE, a.handle, b.handle}
        assert open_[b.handle]["model"] == "conf/conf-reasoner" and open_[b.handle]["cwd"] == b.cwd
        assert b.get_state()["thinkingLevel"] == "high" and a.get_state()["sessionId"] == a.session_id

        results: dict[str, Any] = {}

        def run(name: str, target: Any, message: str) -> None:
            results[name] = target.prompt_and_wait(message, timeout=30)

        threads = [
            threading.Thread(target=run, args=("a", a, "ask-A")),
            threading.Thread(target=run, args=("b", b, "ask-B")),
            threading.Thread(target=run, args=("default", pi, "ask-C")),
        ]
        with pi.events() as everything:
            for t in threads:
                t.start()
            for t in threads:
                t.join(40)
        assert _text(results["a"].events) == _expected("A")
        assert _text(results["b"].events) == _expected("B")
        assert _text(results["default"].events) == _expected("C")
        assert {e.get("handle") for e in results["a"].events} == {a.handle}
        assert {e.get("handle") for e in results["b"].events} == {b.handle}
        assert all("handle" not in e for e in results["default"].events)
        # The three runs really overlapped on the one stdout.
        tags = [e.get("handle", DEFAULT_HANDLE) for e in everything.drain() if e["type"] == "message_update"]
        first_end = min(max(i for i, t in enumerate(tags) if t == h) for h in set(tags))
        assert len(set(tags[:first_end])) == 3
        assert (a.get_last_assistant_text() or "").strip() == _expected("A").strip()

        # One handle's subscription and listener see only its records.
        seen: list[dict[str, Any]] = []
        unsubscribe = b.on_event(seen.append)
        with a.events() as a_events, b.events() as b_events:
            b.prompt("ask-B again")
            a.prompt_and_wait("ask-A again")
            assert b_events.wait_for("agent_settled", 20)["handle"] == b.handle
            a_records = a_events.drain()
        unsubscribe()
        assert {e.get("handle") for e in a_records} == {a.handle}
        assert {e["handle"] for e in seen} == {b.handle} and seen[-1]["type"] == "agent_settled"

        # close(): the handle is then unknown; the default session and the others go on.
        a.close()
        a.close()  # idempotent
        with pytest.raises(RpcCommandError) as err:
            pi.request({"type": "get_state", "handle": a.handle})
        assert a.handle in err.value.response["error"]
        assert {s["handle"] for s in pi.list_open_sessions()} == {DEFAULT_HANDLE, b.handle}
        with pytest.raises(RpcCommandError):
            pi.session_handle().close()  # "default" cannot be closed
        assert b.get_state()["isStreaming"] is False and pi.get_state()["sessionId"]


def test_handle_tagging_of_the_default_session_keeps_its_filter(start_pi) -> None:
    argv, env, cwd = start_pi(["A", "D"])
    with RpcClient(argv, cwd=cwd, env=env, inherit_env=False, default_timeout=30.0) as pi:
        assert pi.set_event_options(handle=True)["handle"] is True
        assert pi.get_protocol_info()["features"]["handle"] is True
        with pi.open_session(no_session=True) as other, other.events() as other_events:
            assert other.session_file is None
            other.prompt("ask-A")
            result = pi.prompt_and_wait("ask-D")
            assert {e["handle"] for e in result.events} == {DEFAULT_HANDLE}
            assert _text(result.events) == _expected("D")
            default = pi.session_handle()
            assert default.get_state()["sessionId"] == pi.get_state()["sessionId"]
            other_records = [other_events.next(20)]
            while other_records[-1]["type"] != "agent_settled":
                other_records.append(other_events.next(20))
            assert {e["handle"] for e in other_records} == {other.handle}
            assert _text(other_records) == _expected("A")
        assert other.closed
        assert [s["handle"] for s in pi.list_open_sessions()] == [DEFAULT_HANDLE]


def test_open_session_refused_past_max_sessions_and_for_a_held_file(start_pi) -> None:
    argv, env, cwd = start_pi([], "--max-sessions", "2")
    with RpcClient(argv, cwd=cwd, env=env, inherit_env=False, default_timeout=30.0) as pi:
        first = pi.open_session()
        with pytest.raises(RpcCommandError) as err:
            pi.open_session()
        assert "2" in err.value.response["error"]
        first.close()
        path = pi.get_state()["sessionFile"]
        with pytest.raises(RpcCommandError):
            pi.open_session(session_path=path)  # the default handle holds it


# ---------------------------------------------------------------- real server, anyio
@pytest.mark.anyio
async def test_async_handles_run_concurrently_and_close(start_pi) -> None:
    argv, env, cwd = start_pi(["A", "B", "C"])
    async with AsyncRpcClient(argv, cwd=cwd, env=env, inherit_env=False, default_timeout=30.0) as pi:
        handles = [await pi.open_session() for _ in range(3)]
        assert len({h.handle for h in handles}) == 3
        results: dict[str, Any] = {}

        async def run(h: AsyncSessionHandle, tag: str) -> None:
            results[h.handle] = (tag, await h.prompt_and_wait(f"ask-{tag}", timeout=30))

        async with anyio.create_task_group() as tg:
            for h, tag in zip(handles, "ABC", strict=True):
                tg.start_soon(run, h, tag)
        for h in handles:
            tag, result = results[h.handle]
            assert _text(result.events) == _expected(tag)
            assert {e["handle"] for e in result.events} == {h.handle}
            assert (await h.get_state())["sessionId"] == h.session_id
        listened: list[dict[str, Any]] = []
        handles[1].on_event(listened.append)
        async with handles[0] as first:
            await first.prompt_and_wait("ask-A")
        assert first.closed and listened == []
        with pytest.raises(RpcCommandError):
            await pi.request({"type": "get_state", "handle": first.handle})
        assert sorted(s["handle"] for s in await pi.list_open_sessions()) == sorted(
            [DEFAULT_HANDLE, handles[1].handle, handles[2].handle]
        )
