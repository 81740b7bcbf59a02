import pytest

from pi_rpc.agent.types import ToolError
from pi_rpc.tools.edit import EditTool

from .tools_helpers import text_of

pytestmark = pytest.mark.anyio


async def run(tmp_path, args):
    return await EditTool(str(tmp_path)).execute("c", args, None, None)


async def test_single_edit_success_with_diff_details(tmp_path):
    f = tmp_path / "a.py"
    f.write_text("def f():\n    return 1\n\nprint(f())\n")
    r = await run(tmp_path, {"path": "a.py", "edits": [{"oldText": "return 1", "newText": "return 2"}]})
    assert text_of(r) == "Successfully replaced 1 block(s) in a.py."
    assert f.read_text() == "def f():\n    return 2\n\nprint(f())\n"
    assert r["details"]["firstChangedLine"] == 2
    assert r["details"]["diff"] == " 1 def f():\n-2     return 1\n+2     return 2\n 3 \n 4 print(f())"
    assert r["details"]["patch"].startswith(
        "--- a.py\n+++ a.py\n@@ -1,4 +1,4 @@\n def f():\n-    return 1\n+    return 2\n"
    )


async def test_multiple_edits_matched_against_original(tmp_path):
    f = tmp_path / "m.txt"
    f.write_text("alpha\nbeta\ngamma\n")
    r = await run(
        tmp_path,
        {"path": "m.txt", "edits": [{"oldText": "gamma", "newText": "GAMMA"}, {"oldText": "alpha", "newText": "beta"}]},
    )
    assert text_of(r) == "Successfully replaced 2 block(s) in m.txt."
    assert f.read_text() == "beta\nbeta\nGAMMA\n"


async def test_legacy_old_new_text_accepted(tmp_path):
    (tmp_path / "l.txt").write_text("x = 1\n")
    r = await run(tmp_path, {"path": "l.txt", "oldText": "1", "newText": "2"})
    assert text_of(r) == "Successfully replaced 1 block(s) in l.txt."
    assert (tmp_path / "l.txt").read_text() == "x = 2\n"


async def test_crlf_and_bom_preserved(tmp_path):
    f = tmp_path / "w.txt"
    f.write_bytes("\ufeffone\r\ntwo\r\nthree\r\n".encode())
    await run(tmp_path, {"path": "w.txt", "edits": [{"oldText": "two\nthree", "newText": "2\n3"}]})
    assert f.read_bytes() == "\ufeffone\r\n2\r\n3\r\n".encode()


async def test_fuzzy_match_rewrites_only_touched_lines(tmp_path):
    f = tmp_path / "q.txt"
    f.write_text("keep “smart”   \nsay “hi”\n")
    await run(tmp_path, {"path": "q.txt", "edits": [{"oldText": 'say "hi"', "newText": 'say "bye"'}]})
    assert f.read_text() == 'keep “smart”   \nsay "bye"\n'


async def test_error_texts(tmp_path):
    (tmp_path / "e.txt").write_text("dup\ndup\nunique line here\n")
    with pytest.raises(ToolError) as exc:
        await run(tmp_path, {"path": "e.txt", "edits": [{"oldText": "dup", "newText": "x"}]})
    assert str(exc.value) == (
        "Found 2 occurrences of the text in e.txt. The text must be unique. Please provide more context to make it unique."
    )
    with pytest.raises(ToolError) as exc:
        await run(tmp_path, {"path": "e.txt", "edits": [{"oldText": "absent text entirely", "newText": "x"}]})
    assert str(exc.value).startswith(
        "Could not find the exact text in e.txt. The old text must match exactly including all whitespace and newlines.\n"
    )
    with pytest.raises(ToolError) as exc:
        await run(tmp_path, {"path": "e.txt", "edits": [{"oldText": "unique", "newText": "unique"}]})
    assert str(exc.value) == (
        "No changes made to e.txt. The replacement produced identical content. This might indicate an issue with "
        "special characters or the text not existing as expected."
    )
    with pytest.raises(ToolError) as exc:
        await run(
            tmp_path,
            {
                "path": "e.txt",
                "edits": [{"oldText": "unique line", "newText": "a"}, {"oldText": "line here", "newText": "b"}],
            },
        )
    assert (
        str(exc.value) == "edits[0] and edits[1] overlap in e.txt. Merge them into one edit or target disjoint regions."
    )
    with pytest.raises(ToolError) as exc:
        await run(
            tmp_path,
            {"path": "e.txt", "edits": [{"oldText": "unique", "newText": "a"}, {"oldText": "dup", "newText": "b"}]},
        )
    assert str(exc.value).startswith("Found 2 occurrences of edits[1] in e.txt. Each oldText must be unique.")
    with pytest.raises(ToolError) as exc:
        await run(tmp_path, {"path": "missing.txt", "edits": [{"oldText": "a", "newText": "b"}]})
    assert str(exc.value) == "Could not edit file: missing.txt. Error code: ENOENT."
    with pytest.raises(ToolError) as exc:
        await run(tmp_path, {"path": "e.txt", "edits": []})
    assert str(exc.value) == "Edit tool input is invalid. edits must contain at least one replacement."
    with pytest.raises(ToolError, match=r"^oldText must not be empty in e.txt\.$"):
        await run(tmp_path, {"path": "e.txt", "edits": [{"oldText": "", "newText": "b"}]})
    assert (tmp_path / "e.txt").read_text() == "dup\ndup\nunique line here\n"


async def test_not_found_shows_closest_context(tmp_path):
    (tmp_path / "c.py").write_text("a\nb\ndef compute_total(items):\n    pass\n")
    with pytest.raises(ToolError) as exc:
        await run(tmp_path, {"path": "c.py", "edits": [{"oldText": "def compute_total(things):", "newText": "x"}]})
    assert "Closest match is around line 3:\n  1: a\n  2: b\n  3: def compute_total(items):" in str(exc.value)


async def test_diff_elides_long_unchanged_context(tmp_path):
    lines = [f"l{i}" for i in range(1, 31)]
    (tmp_path / "big.txt").write_text("\n".join(lines) + "\n")
    r = await run(tmp_path, {"path": "big.txt", "edits": [{"oldText": "l15\n", "newText": "L15\n"}]})
    diff = r["details"]["diff"]
    assert diff.splitlines()[0] == "    ..."
    assert "-15 l15" in diff and "+15 L15" in diff and diff.splitlines()[-1] == "    ..."
    assert r["details"]["firstChangedLine"] == 15
