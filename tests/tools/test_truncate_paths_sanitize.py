import os
import unicodedata

from pi_rpc.tools.paths import expand_path, resolve_read_path, resolve_to_cwd
from pi_rpc.tools.sanitize import AnsiStreamStripper, OutputSanitizer, sanitize_text
from pi_rpc.tools.truncate import format_size, truncate_head, truncate_line, truncate_tail


def test_head_truncation_by_lines_keeps_first_lines():
    content = "\n".join(f"l{i}" for i in range(1, 2501))
    r = truncate_head(content)
    assert r["truncated"] and r["truncatedBy"] == "lines"
    assert r["outputLines"] == 2000 and r["totalLines"] == 2500
    assert r["content"].split("\n")[-1] == "l2000"


def test_head_truncation_by_bytes_and_first_line_too_long():
    content = ("x" * 1000 + "\n") * 60
    r = truncate_head(content)
    assert r["truncatedBy"] == "bytes" and r["outputLines"] == 51 and r["outputBytes"] <= 51200
    big = truncate_head("y" * 60000 + "\nshort")
    assert big["firstLineExceedsLimit"] and big["content"] == ""


def test_trailing_newline_is_not_a_line_and_untruncated_content_unchanged():
    r = truncate_tail("hi\n")
    assert not r["truncated"] and r["content"] == "hi\n" and r["totalLines"] == 1


def test_tail_truncation_keeps_last_lines_and_partial_last_line():
    content = "\n".join(f"l{i}" for i in range(1, 3001))
    r = truncate_tail(content)
    assert r["content"].startswith("l1001\n") and r["content"].endswith("l3000")
    partial = truncate_tail("é" * 30000)  # 60000 bytes on one line
    assert partial["lastLinePartial"] and partial["outputBytes"] <= 51200
    assert set(partial["content"]) == {"é"}


def test_format_size_and_truncate_line():
    assert format_size(500) == "500B"
    assert format_size(51200) == "50.0KB"
    assert format_size(3 * 1024 * 1024) == "3.0MB"
    assert truncate_line("a" * 501) == ("a" * 500 + "... [truncated]", True)
    assert truncate_line("abc") == ("abc", False)


def test_path_resolution(tmp_path):
    cwd = str(tmp_path)
    assert resolve_to_cwd("@src/a.txt", cwd) == os.path.join(cwd, "src", "a.txt")
    assert resolve_to_cwd("a\u00a0b.txt", cwd) == os.path.join(cwd, "a b.txt")
    assert resolve_to_cwd("/abs/x", cwd) == "/abs/x"
    assert resolve_to_cwd("../x", cwd) == os.path.join(os.path.dirname(cwd), "x")
    assert expand_path("~") == os.path.expanduser("~")
    assert expand_path("~/x") == os.path.join(os.path.expanduser("~"), "x")


def test_read_path_fallbacks(tmp_path):
    shot = tmp_path / "Screenshot 2024-01-01 at 10.00.00\u202fAM.png"
    shot.write_bytes(b"x")
    assert resolve_read_path("Screenshot 2024-01-01 at 10.00.00 AM.png", str(tmp_path)) == str(shot)
    curly = tmp_path / "Capture d\u2019e\u0301cran.png"
    curly.write_bytes(b"x")
    typed = unicodedata.normalize("NFC", "Capture d'e\u0301cran.png")
    assert resolve_read_path(typed, str(tmp_path)) == str(curly)
    assert resolve_read_path("missing.txt", str(tmp_path)) == str(tmp_path / "missing.txt")


def test_ansi_stripped_even_when_split_across_chunks():
    s = AnsiStreamStripper()
    parts = ["a\x1b", "[3", "1mred\x1b[", "0m b\x1b]0;ti", "tle\x07c"]
    assert "".join(s.write(p) for p in parts) == "ared bc"


def test_sanitizer_handles_split_utf8_cr_and_control_chars():
    s = OutputSanitizer()
    data = "é\r\n\x1b[1mx\x1b[0m\x00\x07y\tz\ufffa".encode()
    out = "".join(s.feed(data[i : i + 1]) for i in range(len(data))) + s.finish()
    assert out == "é\nxy\tz"
    assert sanitize_text("a\rb\x1b[2Kc") == "abc"
