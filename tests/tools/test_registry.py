import json

from pi_rpc.agent.types import AgentTool
from pi_rpc.tools import ALL_TOOL_NAMES, DEFAULT_TOOL_NAMES, create_tools, tool_definition, tool_summary_line
from pi_rpc.tools.registry import tool_guidelines


def load_upstream(fixtures_dir):
    return json.loads((fixtures_dir / "c_tool_bash_tools_added.json").read_text())


def test_default_tools_are_read_bash_edit_write(tmp_path):
    tools = create_tools(str(tmp_path))
    assert [t.name for t in tools] == ["read", "bash", "edit", "write"]
    assert DEFAULT_TOOL_NAMES == ("read", "bash", "edit", "write")
    assert all(isinstance(t, AgentTool) for t in create_tools(str(tmp_path), ALL_TOOL_NAMES))


def test_parameter_schemas_match_upstream_exactly_including_key_order(tmp_path, fixtures_dir):
    upstream = {t["name"]: t for t in load_upstream(fixtures_dir)["toolsAdded"]}
    for tool in create_tools(str(tmp_path)):
        ours = tool_definition(tool)
        theirs = upstream[tool.name]
        # Serialised comparison so key order counts too.
        assert json.dumps(ours["parameters"]) == json.dumps(theirs["parameters"])
        assert ours["constrainedSampling"] == theirs["constrainedSampling"]
        assert list(ours) == list(theirs)
        # Our own wording, but the same limits are stated.
        assert ours["description"] != theirs["description"]


def test_descriptions_state_the_limits(tmp_path):
    tools = {t.name: t for t in create_tools(str(tmp_path), ALL_TOOL_NAMES)}
    assert "2000 lines" in tools["read"].description and "50KB" in tools["read"].description
    assert "2000 lines" in tools["bash"].description and "temp file" in tools["bash"].description
    assert "100 matches" in tools["grep"].description and "500 characters" in tools["grep"].description
    assert "1000 results" in tools["find"].description
    assert "500 entries" in tools["ls"].description


def test_summary_lines_match_upstream_tools_section(tmp_path, fixtures_dir):
    section = load_upstream(fixtures_dir)["toolsSection"]
    lines = [tool_summary_line(t) for t in create_tools(str(tmp_path))]
    assert "\n".join(lines) in section


def test_grep_find_ls_schemas_shape(tmp_path):
    tools = {t.name: t for t in create_tools(str(tmp_path), ["grep", "find", "ls"])}
    assert list(tools["grep"].parameters["properties"]) == [
        "pattern",
        "path",
        "glob",
        "ignoreCase",
        "literal",
        "context",
        "limit",
    ]
    assert tools["grep"].parameters["required"] == ["pattern"]
    assert list(tools["find"].parameters["properties"]) == ["pattern", "path", "limit"]
    assert "required" not in tools["ls"].parameters
    assert list(tools["ls"].parameters) == ["type", "properties"]


def test_guidelines_are_collected_in_order(tmp_path):
    rules = tool_guidelines(create_tools(str(tmp_path)))
    assert rules[0] == "Use read to examine files instead of cat or sed."
    assert "Use write only for new files or complete rewrites." in rules


def test_unknown_tool_name_rejected(tmp_path):
    import pytest

    with pytest.raises(ValueError):
        create_tools(str(tmp_path), ["nope"])
