import json

import pytest

from pi_rpc.tools import ToolArgumentsError, create_tools, validate_tool_arguments


@pytest.fixture
def tools(tmp_path):
    return {t.name: t for t in create_tools(str(tmp_path), ["read", "bash", "edit", "write", "grep", "ls"])}


def upstream_validation_text(fixtures_dir) -> str:
    for line in (fixtures_dir / "c_tool_bash_tool_events.jsonl").read_text().splitlines():
        event = json.loads(line)
        if event["type"] == "tool_execution_end" and event["toolCallId"] == "call_4":
            return event["result"]["content"][0]["text"]
    raise AssertionError("fixture event missing")


def test_missing_required_matches_upstream_text_exactly(tools, fixtures_dir):
    with pytest.raises(ToolArgumentsError) as exc:
        validate_tool_arguments(tools["bash"], {"wrong": 1})
    assert str(exc.value) == upstream_validation_text(fixtures_dir)


def test_numeric_strings_coerced_per_schema(tools):
    args = validate_tool_arguments(tools["read"], {"path": "a.txt", "offset": "5", "limit": "2.5"})
    assert args == {"path": "a.txt", "offset": 5, "limit": 2.5}
    args = validate_tool_arguments(tools["grep"], {"pattern": "x", "ignoreCase": "true", "context": "1"})
    assert args["ignoreCase"] is True and args["context"] == 1


def test_null_optional_dropped_and_original_untouched(tools):
    original = {"command": "ls", "timeout": None}
    args = validate_tool_arguments(tools["bash"], original)
    assert args == {"command": "ls"}
    assert original == {"command": "ls", "timeout": None}


def test_wrong_type_message_and_received_arguments(tools):
    with pytest.raises(ToolArgumentsError) as exc:
        validate_tool_arguments(tools["read"], {"path": "a", "offset": "abc"})
    assert str(exc.value) == (
        'Validation failed for tool "read":\n  - offset: must be number\n\n'
        'Received arguments:\n{\n  "path": "a",\n  "offset": "abc"\n}'
    )


def test_several_missing_properties_each_listed(tools):
    with pytest.raises(ToolArgumentsError) as exc:
        validate_tool_arguments(tools["write"], {})
    assert str(exc.value).startswith('Validation failed for tool "write":\n  - path: missing\n  - content: missing\n\n')
    assert str(exc.value).endswith("Received arguments:\n{}")


def test_nested_path_in_array_items(tools):
    with pytest.raises(ToolArgumentsError) as exc:
        validate_tool_arguments(tools["edit"], {"path": "f", "edits": [{"oldText": "a"}]})
    assert "  - edits.0.newText: missing" in str(exc.value)


def test_edit_legacy_and_string_forms_prepared_before_validation(tools):
    legacy = validate_tool_arguments(tools["edit"], {"path": "f", "oldText": "a", "newText": "b"})
    assert legacy == {"path": "f", "edits": [{"oldText": "a", "newText": "b"}]}
    as_string = validate_tool_arguments(tools["edit"], {"path": "f", "edits": '[{"oldText":"a","newText":"b"}]'})
    assert as_string["edits"] == [{"oldText": "a", "newText": "b"}]
    single = validate_tool_arguments(tools["edit"], {"path": "f", "edits": {"oldText": "a", "newText": "b"}})
    assert single["edits"] == [{"oldText": "a", "newText": "b"}]


def test_received_arguments_printed_like_json_stringify(tools):
    with pytest.raises(ToolArgumentsError) as exc:
        validate_tool_arguments(tools["bash"], {"x": 1.0, "y": [], "z": "é"})
    assert exc.value.args[0].endswith('{\n  "x": 1,\n  "y": [],\n  "z": "é"\n}')


def test_root_not_an_object(tools):
    with pytest.raises(ToolArgumentsError) as exc:
        validate_tool_arguments(tools["ls"], ["a"])
    assert "  - root: must be object" in str(exc.value)
