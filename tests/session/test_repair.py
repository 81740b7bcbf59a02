"""Loading is permissive but never silent, and crash damage is repaired so the next append
is intact."""

from __future__ import annotations

import glob
import io
import os

import orjson
import pytest

from pi_rpc.session import SessionInvalidError, SessionManager, print_diagnostics

from .session_helpers import read_lines, session_files

USER = {"role": "user", "content": [{"type": "text", "text": "after repair"}], "timestamp": 1}


def _parse_all(path: str) -> list[dict]:
    """Every line must parse: the file is whole again."""
    data = open(path, "rb").read()
    assert data.endswith(b"\n")
    return [orjson.loads(line) for line in data[:-1].split(b"\n")]


def test_truncated_at_every_offset_of_last_line(tmp_path):
    (src,) = session_files("b_text")
    data = open(src, "rb").read()
    start = data.rstrip(b"\n").rfind(b"\n") + 1  # first byte of the last line
    full_entries = len(data.splitlines())
    path = str(tmp_path / "s.jsonl")
    for cut in range(start, len(data)):  # len(data)-1 = whole line without its LF
        for leftover in glob.glob(str(tmp_path / "*")):
            os.unlink(leftover)
        with open(path, "wb") as f:
            f.write(data[:cut])
        m = SessionManager.open(path)
        torn = glob.glob(path + ".torn-*")
        if cut == start:  # clean cut at a line boundary: nothing to report
            assert m.diagnostics == [] and torn == []
            expected = full_entries - 2
        elif cut == len(data) - 1:  # complete last line, only the LF missing
            assert m.diagnostics == ["appended the missing newline after the last line"]
            assert torn == []
            expected = full_entries - 1
        else:
            assert len(m.diagnostics) == 2, m.diagnostics
            assert "torn last line" in m.diagnostics[0] and "moved the torn last line" in m.diagnostics[1]
            assert len(torn) == 1 and not torn[0].endswith(".jsonl")
            assert open(torn[0], "rb").read() == data[start:cut]
            expected = full_entries - 2
        assert len(m.get_entries()) == expected
        m.append_message(USER)
        m.close()
        lines = _parse_all(path)
        assert len(lines) == expected + 2
        assert lines[-1]["message"] == USER and lines[-1]["parentId"] == lines[-2]["id"]
        reopened = SessionManager.open(path)
        assert reopened.diagnostics == [] and reopened.get_leaf_id() == lines[-1]["id"]
        reopened.close()


def test_malformed_middle_lines_are_skipped_and_reported(tmp_path):
    (src,) = session_files("b_text")
    lines = open(src, "rb").read().split(b"\n")
    lines.insert(2, b"{not json")
    lines.insert(4, b"42")
    lines.insert(5, b"   ")
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"\n".join(lines))
    before = path.read_bytes()
    m = SessionManager.open(str(path))
    assert m.diagnostics == [
        "line 3: skipped malformed JSON (9 bytes)",
        "line 5: skipped a JSON value that is not an object",
    ]
    assert len(m.get_entries()) == 5
    m.close()
    assert path.read_bytes() == before  # skipped lines are reported, never deleted
    out = io.StringIO()
    print_diagnostics(m, out)
    assert out.getvalue().splitlines()[0] == f"pi: session {path}: line 3: skipped malformed JSON (9 bytes)"


def test_entry_glued_to_a_torn_line_is_recovered(tmp_path):
    """Upstream <= 1.0 appended right after a torn line; the glued entry is salvaged."""
    (src,) = session_files("b_text")
    data = open(src, "rb").read()
    good = orjson.dumps(
        {
            "type": "session_info",
            "id": "abcd1234",
            "parentId": "ffd69464",
            "timestamp": "2026-11-29T19:40:00.000Z",
            "name": "saved",
        }
    )
    path = tmp_path / "s.jsonl"
    path.write_bytes(data + b'{"type":"message","id":"dead' + good + b"\n")
    m = SessionManager.open(str(path))
    assert "recovered the entry appended after a torn line" in m.diagnostics[0]
    assert m.get_session_name() == "saved" and m.get_leaf_id() == "abcd1234"
    m.close()


def test_non_session_file_is_refused_untouched(tmp_path):
    for content in (b"hello world", b'{"type":"message"}\n', b"   \n", b"[1,2]\n{oops"):
        path = tmp_path / "x.jsonl"
        path.write_bytes(content)
        with pytest.raises(SessionInvalidError) as err:
            SessionManager.open(str(path))
        assert str(err.value) == f"Session file is not a valid pi session: {path}"
        assert path.read_bytes() == content
        assert glob.glob(str(path) + ".*") == []  # no sidecar, lock released and removed


def test_empty_existing_file_gets_a_header(tmp_path):
    path = tmp_path / "empty.jsonl"
    path.write_bytes(b"")
    m = SessionManager.open(str(path), base_cwd=str(tmp_path))
    header = read_lines(str(path))
    assert len(header) == 1 and header[0]["type"] == "session" and header[0]["id"] == m.session_id
    m.append_model_change("p", "m")  # the file exists now: every entry is appended at once
    m.append_message(USER)
    m.close()
    lines = read_lines(str(path))
    assert [line["type"] for line in lines] == ["session", "model_change", "message"]  # one header only


def test_read_only_open_never_modifies(tmp_path):
    (src,) = session_files("b_text")
    data = open(src, "rb").read()
    path = tmp_path / "s.jsonl"
    path.write_bytes(data[:-10])
    m = SessionManager.open(str(path), read_only=True)
    assert "left in place" in m.diagnostics[-1]
    assert path.read_bytes() == data[:-10] and glob.glob(str(path) + ".*") == []
    with pytest.raises(Exception):
        m.append_message(USER)
    m.close()
