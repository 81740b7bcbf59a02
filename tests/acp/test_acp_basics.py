"""``pi --mode acp`` driven by the official ACP client SDK: handshake, sessions, a streamed
answer, configuration options, stop reasons, the offline model and the nothing-configured case."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from acp.exceptions import RequestError

pytestmark = pytest.mark.anyio


async def test_initialize_advertises_capabilities_and_agent_info(acp_agent):
    async with acp_agent() as run:
        init = await run.initialize()
        assert init.protocol_version == 1
        caps = init.agent_capabilities
        assert caps.load_session is True
        assert (caps.prompt_capabilities.image, caps.prompt_capabilities.embedded_context) == (True, True)
        assert caps.session_capabilities.list is not None
        assert init.agent_info.name == "pi_rpc" and init.agent_info.version
        assert [m.id for m in init.auth_methods] == [
            "pi-configuration",
            "login:anthropic",
            "login:github-copilot",
            "login:kimi-coding",
            "login:meta",
            "login:openai-codex",
            "login:openrouter",
            "login:xai",
        ]


async def test_new_session_streams_an_answer_and_ends_the_turn(acp_agent):
    script = [{"thinking": "Let me think.", "text": "Hello there, my friend!", "chunkChars": 4}]
    async with acp_agent("--model", "faux/faux-reasoner", script=script) as run:
        await run.initialize()
        session = await run.new_session()
        options = {o.id: o for o in session.config_options}
        assert options["model"].category == "model" and options["model"].current_value == "faux/faux-reasoner"
        assert {o.value for o in options["model"].options} == {"faux/faux-1", "faux/faux-reasoner"}
        assert options["thought_level"].category == "thought_level"
        result = await run.prompt(session.session_id, "hi")
        assert result.stop_reason == "end_turn"
        chunks = run.client.of("agent_message_chunk")
        assert len(chunks) > 1 and run.client.text() == "Hello there, my friend!"
        assert run.client.text("agent_thought_chunk") == "Let me think."
        assert run.client.of("available_commands_update")
        # every update of the turn was written before the prompt's result
        result_index = next(i for i, m in enumerate(run.raw) if m.get("result", {}).get("stopReason"))
        assert all(
            i < result_index
            for i, m in enumerate(run.raw)
            if m.get("method") == "session/update" and m["params"]["update"]["sessionUpdate"] == "agent_message_chunk"
        )


async def test_set_config_option_changes_model_and_thinking_level(acp_agent):
    async with acp_agent("--model", "faux/faux-1") as run:
        await run.initialize()
        session = await run.new_session()
        reply = await run.conn.set_config_option(
            config_id="model", session_id=session.session_id, value="faux/faux-reasoner"
        )
        options = {o.id: o for o in reply.config_options}
        assert options["model"].current_value == "faux/faux-reasoner"
        assert "high" in {o.value for o in options["thought_level"].options}
        reply = await run.conn.set_config_option(config_id="thought_level", session_id=session.session_id, value="high")
        assert {o.id: o for o in reply.config_options}["thought_level"].current_value == "high"
        with pytest.raises(RequestError) as bad:
            await run.conn.set_config_option(config_id="model", session_id=session.session_id, value="nope/none")
        assert bad.value.code == -32602 and "Model not found: nope/none" in str(bad.value.data)


async def test_max_tokens_and_provider_failure(acp_agent):
    script = [{"text": "cut sho", "stopReason": "length"}, {"error": {"status": 400, "body": "bad request body"}}]
    async with acp_agent(script=script) as run:
        await run.initialize()
        session = await run.new_session()
        assert (await run.prompt(session.session_id, "one")).stop_reason == "max_tokens"
        with pytest.raises(RequestError) as failed:
            await run.prompt(session.session_id, "two")
        assert failed.value.code == -32603 and "400 bad request body" in str(failed.value)


async def test_nothing_configured_asks_the_editor_to_sign_in(acp_agent):
    async with acp_agent(faux=False, env={"ANTHROPIC_API_KEY": "", "OPENAI_API_KEY": "", "GEMINI_API_KEY": ""}) as run:
        await run.initialize()
        with pytest.raises(RequestError) as needed:
            await run.new_session()
        assert needed.value.code == -32000 and "No models available" in str(needed.value.data)
        with pytest.raises(RequestError) as still:
            await run.conn.authenticate(method_id="pi-configuration")
        assert still.value.code == -32000


async def test_authenticate_succeeds_once_a_model_is_configured(acp_agent):
    async with acp_agent() as run:
        await run.initialize()
        assert await run.conn.authenticate(method_id="pi-configuration") is not None


async def test_list_sessions_and_close(acp_agent):
    async with acp_agent() as run:
        await run.initialize()
        session = await run.new_session()
        await run.prompt(session.session_id, "remember me")
        listed = await run.conn.list_sessions(cwd=str(run.cwd))
        assert [(s.session_id, s.title) for s in listed.sessions] == [(session.session_id, "remember me")]
        await run.conn.close_session(session_id=session.session_id)
        with pytest.raises(RequestError) as gone:
            await run.prompt(session.session_id, "again")
        assert gone.value.code == -32002


def _refusal_stream(explanation: str | None) -> bytes:
    delta: dict = {"stop_reason": "refusal", "stop_sequence": None}
    if explanation is not None:
        delta["stop_details"] = {"type": "refusal", "explanation": explanation}
    events = [
        (
            "message_start",
            {
                "type": "message_start",
                "message": {
                    "id": "msg_1",
                    "type": "message",
                    "role": "assistant",
                    "content": [],
                    "model": "claude-test",
                    "stop_reason": None,
                    "usage": {"input_tokens": 5, "output_tokens": 1},
                },
            },
        ),
        (
            "content_block_start",
            {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        ),
        (
            "content_block_delta",
            {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "I"}},
        ),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        ("message_delta", {"type": "message_delta", "delta": delta, "usage": {"output_tokens": 3}}),
        ("message_stop", {"type": "message_stop"}),
    ]
    return "".join(f"event: {name}\ndata: {json.dumps(data)}\n\n" for name, data in events).encode()


async def test_an_anthropic_refusal_ends_the_turn_with_refusal(acp_agent):
    """Anthropic's ``refusal`` stop, with its own explanation or without: ``refusal``, not an error
    (a local 127.0.0.1 server streams the Messages API's events)."""
    bodies = [_refusal_stream("This request violates the usage policy on cyber attacks."), _refusal_stream(None)]

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_POST(self):
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            body = bodies.pop(0)
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    try:
        async with acp_agent("--model", "anth/claude-test") as run:
            (run.agent_dir / "models.json").write_text(
                json.dumps(
                    {
                        "providers": {
                            "anth": {
                                "baseUrl": f"http://127.0.0.1:{server.server_address[1]}",
                                "api": "anthropic-messages",
                                "apiKey": "test-key",
                                "models": [
                                    {
                                        "id": "claude-test",
                                        "name": "Claude Test",
                                        "contextWindow": 200000,
                                        "maxTokens": 4096,
                                    }
                                ],
                            }
                        }
                    }
                )
            )
            await run.initialize()
            session = await run.new_session()
            assert (await run.prompt(session.session_id, "one")).stop_reason == "refusal"
            assert (await run.prompt(session.session_id, "two")).stop_reason == "refusal"
            assert bodies == []
    finally:
        server.shutdown()
        server.server_close()
