"""Pure pieces: tool names, exposures, result conversion and the 20 KB limit, the servers
section, BM25 search, codemode declarations and options."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from pi_rpc.mcp.codemode.source import SourceError, parse_source
from pi_rpc.mcp.codemode.tool import create_description, prepare_loadout, read_store, script_reach
from pi_rpc.mcp.content import MCP_OUTPUT_MAX_BYTES, convert_result, normalize_input_schema, to_llm_content
from pi_rpc.mcp.naming import create_mcp_tool_name, mcp_namespace, server_summary, tool_exposure
from pi_rpc.mcp.prompt import render_servers_section
from pi_rpc.mcp.search import create_document, rank, tokenize
from pi_rpc.mcp.tools import create_tool_definition, progress_text


def test_tool_names_are_sanitised_and_shortened() -> None:
    assert create_mcp_tool_name("dev-radius", "get.thing") == "mcp__dev_radius__get_thing"
    long = create_mcp_tool_name("server", "t" * 80)
    assert len(long) == 64 and long.startswith("mcp__server__ttt") and long[-9] == "_"
    taken = create_mcp_tool_name("a", "x-y", lambda name: name == "mcp__a__x_y")
    assert taken != "mcp__a__x_y" and taken.startswith("mcp__a__x_y_") and len(taken) == len("mcp__a__x_y_") + 8
    assert mcp_namespace("dev-radius") == "mcp__dev_radius"
    assert server_summary("  First line\nsecond ", "instr") == "First line"
    assert server_summary(None, "\nInstructions line\n") == "Instructions line"


def test_tool_exposure_exact_beats_patterns_and_first_pattern_wins() -> None:
    config = {"exposure": "deferred", "toolExposure": {"get_*": "codemode", "get_secret": "hidden", "g*": "direct"}}
    assert tool_exposure(config, "get_secret") == "hidden"
    assert tool_exposure(config, "get_x") == "codemode"
    assert tool_exposure(config, "go") == "direct"
    assert tool_exposure(config, "other") == "deferred"
    assert tool_exposure({}, "x") == "codemode"


def test_results_as_the_model_sees_them(tmp_path: Path) -> None:
    saved: list[tuple[object, str]] = []

    def save(data: str | bytes, extension: str) -> str:
        saved.append((data, extension))
        return str(tmp_path / f"out{len(saved)}{extension}")

    pixel = base64.b64encode(b"\x89PNG").decode()
    result = convert_result(
        "srv",
        "t",
        {
            "content": [
                {"type": "text", "text": "hello"},
                {"type": "image", "data": pixel, "mimeType": "image/png"},
                {"type": "audio", "data": "x", "mimeType": "audio/wav"},
                {"type": "resource_link", "uri": "file:///a.txt", "name": "a", "mimeType": "text/plain", "size": 2048},
                {
                    "type": "resource",
                    "resource": {
                        "uri": "file:///b.json",
                        "mimeType": "application/json",
                        "blob": base64.b64encode(b'{"b":1}').decode(),
                    },
                },
                {
                    "type": "resource",
                    "resource": {
                        "uri": "file:///c.zip",
                        "mimeType": "application/zip",
                        "blob": base64.b64encode(b"zz").decode(),
                    },
                },
            ],
            "_meta": {"x": 1},
        },
        readable_resources=True,
        save_output=save,
    )
    assert result["content"] == [
        {"type": "text", "text": "hello"},
        {"type": "image", "data": pixel, "mimeType": "image/png"},
        {"type": "text", "text": "[audio audio/wav omitted]"},
        {
            "type": "text",
            "text": '[Resource file:///a.txt "a" (text/plain, 2.0KB). Read it with read_mcp_resource (server "srv")]',
        },
        {"type": "text", "text": '{"b":1}'},
        {
            "type": "text",
            "text": f"[Binary resource file:///c.zip (application/zip, 2B) saved to {tmp_path / 'out1.zip'}]",
        },
    ]
    assert saved == [(b"zz", ".zip")]
    assert "_meta" not in result["structuredContent"] and "isError" not in result
    error = convert_result("srv", "t", {"content": [], "isError": True})
    assert (
        error["content"] == [{"type": "text", "text": "MCP tool srv/t returned an error"}] and error["isError"] is True
    )
    structured = to_llm_content({"content": [], "structuredContent": {"sum": 3.0}})
    assert structured == [{"type": "text", "text": '{\n  "sum": 3\n}'}]


def test_text_over_20_kb_keeps_its_ends_and_names_the_full_output(tmp_path: Path) -> None:
    text = "".join(f"{i:05d}é\n" for i in range(8000))  # 64 000 bytes, multi-byte characters
    saved: list[object] = []

    def save(data: str | bytes, extension: str) -> str:
        saved.append(data)
        return "/tmp/full.txt"

    result = convert_result("s", "big", {"content": [{"type": "text", "text": text}]}, save_output=save)
    (block,) = result["content"]
    body = block["text"]
    assert body.startswith(
        "Warning: truncated output (original token count: 16000)\nTotal output lines: 8000\n\n00000é\n"
    )
    assert body.endswith("07999é\n\n\n[Full output: /tmp/full.txt (read it with offset/limit)]")
    assert "chars truncated…" in body and saved == [text]
    head, tail = body.split("\n\n", 1)[1].split("…", 1)[0], body.rsplit("chars truncated…", 1)[1]
    assert len(head.encode()) <= MCP_OUTPUT_MAX_BYTES // 2 and len(tail.encode()) < MCP_OUTPUT_MAX_BYTES // 2 + 100
    assert result["details"] == {"server": "s", "tool": "big", "fullOutputPath": "/tmp/full.txt"}
    assert result["structuredContent"]["content"][0]["text"] == text  # scripts get it whole


def test_input_schemas_become_object_schemas() -> None:
    assert normalize_input_schema({"properties": {"a": {}}}) == {"properties": {"a": {}}, "type": "object"}
    assert normalize_input_schema({"type": "object"}) == {"type": "object", "properties": {}}


def test_tool_definitions_carry_upstreams_metadata() -> None:
    async def connection() -> object:
        raise AssertionError("not called")

    definition = create_tool_definition(
        server="s",
        tool={
            "name": "q",
            "title": "Query",
            "inputSchema": {"type": "object", "properties": {"x": {"type": "string"}}},
            "outputSchema": {
                "type": "object",
                "$defs": {"I": {"type": "string"}},
                "properties": {"i": {"$ref": "#/$defs/I"}},
            },
            "annotations": {"readOnlyHint": True, "destructiveHint": "no", "title": "T"},
        },
        name="mcp__s__q",
        exposure="codemode",
        namespace={"name": "mcp__s"},
        get_connection=connection,
    )
    assert definition["description"] == "Query" and definition["label"] == "s/q"
    assert definition["exposure"] == "deferred" and definition["annotations"] == {"readOnlyHint": True}
    assert definition["outputSchema"]["properties"]["structuredContent"]["properties"]["i"] == {
        "$ref": "#/properties/structuredContent/$defs/I"
    }
    assert progress_text(3.0, 10.0, None) == "Progress 3/10" and progress_text(1, None, "step") == "step"


def test_servers_section_lists_indirect_servers_within_budget() -> None:
    section = render_servers_section(
        [
            ("zeta", {"exposure": "deferred"}, "Zeta tools.\nMore."),
            ("alpha", {"description": "Alpha things"}, None),
            ("direct-only", {"exposure": "direct"}, None),
        ]
    )
    assert section is not None
    lines = section.split("\n")
    assert "`codemode`" in lines[0] and "`tool_search`" in lines[0]
    assert lines[1:] == ["- mcp__alpha (codemode): Alpha things", "- mcp__zeta (tool_search): Zeta tools."]
    assert render_servers_section([("d", {"exposure": "direct"}, None)]) is None
    many = render_servers_section([(f"s{i:03d}", {"description": "x" * 300}, None) for i in range(300)])
    assert many is not None and len(many) <= 4096 and many.endswith("find their tools with search_tools()")


def test_bm25_ranking() -> None:
    assert tokenize("getIssueComments for the repos") == ["get", "issue", "comment", "repo"]
    documents = [
        create_document(
            "mcp__gh__list_issues",
            "List issues of a repository",
            {"properties": {"repo": {"description": "owner/name"}}},
            {"name": "mcp__gh"},
        ),
        create_document("mcp__gh__create_issue", "Create an issue", {}, {"name": "mcp__gh"}),
        create_document("read", "Read a file", {}, None),
    ]
    # A name match outweighs mentions in a longer description (upstream ranks the same way).
    assert [name for name, _ in rank("issues", documents, 8)] == ["mcp__gh__create_issue", "mcp__gh__list_issues"]
    assert [name for name, _ in rank("create_issue", documents, 8)][0] == "mcp__gh__create_issue"
    assert rank("", documents, 8) == [] and rank("zzz", documents, 8) == []


def test_codemode_options_line() -> None:
    assert parse_source("x = 1") == ("x = 1", parse_source("x = 1")[1])
    code, options = parse_source('# @options: {"max_output_tokens": 5, "timeout_ms": 100}\nreturn 1')
    assert code == "\nreturn 1" and options.max_output_tokens == 5 and options.timeout_ms == 100
    with pytest.raises(SourceError, match="must be the first line of the input; found one on line 2"):
        parse_source('x = 1\n# @options: {"timeout_ms": 1}')
    with pytest.raises(SourceError, match="only supports `max_output_tokens` and `timeout_ms`; got `x`"):
        parse_source('# @options: {"x": 1}\npass')
    with pytest.raises(SourceError, match="must be followed by Python source"):
        parse_source('# @options: {"timeout_ms": 1}')
    with pytest.raises(SourceError, match="non-empty"):
        parse_source("  \n")


def test_codemode_description_and_loadout() -> None:
    assert script_reach("await tools.mcp__docs__search({})") == ["await", "tools", "mcp__docs__search"]
    assert script_reach("x = await search_tools('a')") == "all"
    tool = {
        "name": "lookup",
        "description": "Look things up.",
        "parameters": {
            "type": "object",
            "required": ["q"],
            "properties": {"q": {"type": "string", "description": "Query"}},
        },
    }
    description = create_description(
        [tool, {**tool, "name": "mcp__n__t", "namespace": {"name": "mcp__n", "description": "N server"}}]
    )
    assert "Nested tools:" in description and "### `lookup`" in description and "## mcp__n\nN server" in description
    assert '"q": str,  # Query' in description
    assert "(tools not listed)" in create_description([{**tool, "namespace": {"name": "mcp__n"}}], inline_budget=0)
    exposures = {"read": "direct", "mcp__s__a": "deferred", "lookup": "direct"}
    view = {
        "declared": [{"name": "read", "description": "Read."}, {"name": "codemode", "description": "cm"}],
        "callable": [{"name": "read", "description": "Read."}, {"name": "mcp__s__a", "description": "A."}],
        "getExposure": lambda name: exposures.get(name, "model-only"),
        "getPromptGuidelines": lambda name: [],
    }
    changes = prepare_loadout(view, "on", 3000)
    assert changes["descriptions"]["read"] == "Read.\n\nCodemode: `await tools.read(args)` returns a string."
    assert "Nested tools" not in changes["descriptions"]["codemode"] and changes["hiddenDeclarations"] == []
    only = prepare_loadout(view, "only", 3000)
    assert only["hiddenDeclarations"] == ["read"] and "### `read`" in only["descriptions"]["codemode"]


def test_codemode_store_follows_the_branch() -> None:
    branch = [
        {"type": "custom", "customType": "codemode-store", "data": {"set": {"a": 1, "b": 2}, "delete": []}},
        {"type": "message"},
        {"type": "custom", "customType": "codemode-store", "data": {"set": {"c": 3}, "delete": ["a"]}},
        {"type": "custom", "customType": "other", "data": {"set": {"z": 1}, "delete": []}},
    ]
    assert read_store(branch) == {"b": 2, "c": 3}
    assert json.dumps(read_store([])) == "{}"


def test_server_log_lines_and_rotation(tmp_path: Path) -> None:
    from pi_rpc.mcp import log

    path = tmp_path / "mcp.log"
    assert (
        log.format_log_message("s", {"level": "warning", "logger": "db", "data": "a\nb"}, now="T")
        == "T [s] warning db: a\n    b\n"
    )
    assert log.format_log_message("s", {"data": {"k": 1}}, now="T") == 'T [s] info {"k":1}\n'
    assert log.format_log_message("s", "plain", now="T") == "T [s] info plain\n"
    path.write_bytes(b"x" * (log.MAX_LOG_BYTES + 1))
    writer = log.ServerLog(str(path))
    writer.write("s", {"data": "after rotation"})
    assert (tmp_path / "mcp.log.1").stat().st_size == log.MAX_LOG_BYTES + 1
    assert path.read_text().endswith("[s] info after rotation\n")


def test_config_values_from_the_environment_and_commands(monkeypatch: pytest.MonkeyPatch) -> None:
    from pi_rpc.mcp.configvalue import resolve_headers_or_raise, resolve_or_raise

    monkeypatch.setenv("PI_T_A", "alpha")
    assert resolve_or_raise("Bearer ${PI_T_A}-$PI_T_A", "x") == "Bearer alpha-alpha"
    assert resolve_or_raise("!echo from-command", "x") == "from-command"
    with pytest.raises(
        ValueError, match='Failed to resolve MCP server "s" header "H" from environment variables: PI_T_B, PI_T_C'
    ):
        resolve_headers_or_raise({"H": "${PI_T_B}${PI_T_C}"}, 'MCP server "s"')
    with pytest.raises(ValueError, match="from shell command: exit 3"):
        resolve_or_raise("!exit 3", "x")
