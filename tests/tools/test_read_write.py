import base64

import pytest

from pi_rpc.agent.types import ToolError
from pi_rpc.ai.abort import AbortController
from pi_rpc.tools.read import ReadTool
from pi_rpc.tools.write import WriteTool

from .tools_helpers import text_of

pytestmark = pytest.mark.anyio


async def test_read_whole_file_without_line_numbers(tmp_path):
    (tmp_path / "a.txt").write_text("one\ntwo\nthree\n")
    result = await ReadTool(str(tmp_path)).execute("c1", {"path": "a.txt"}, None, None)
    assert result == {"content": [{"type": "text", "text": "one\ntwo\nthree\n"}]}


async def test_read_offset_limit_notice(tmp_path):
    (tmp_path / "a.txt").write_text("\n".join(f"line{i}" for i in range(1, 11)))
    tool = ReadTool(str(tmp_path))
    r = await tool.execute("c", {"path": "a.txt", "offset": 3, "limit": 2}, None, None)
    assert text_of(r) == "line3\nline4\n\n[6 more lines in file. Use offset=5 to continue.]"
    r = await tool.execute("c", {"path": "a.txt", "offset": 9}, None, None)
    assert text_of(r) == "line9\nline10"
    with pytest.raises(ToolError, match=r"^Offset 20 is beyond end of file \(10 lines total\)$"):
        await tool.execute("c", {"path": "a.txt", "offset": 20}, None, None)


async def test_read_truncation_by_lines_and_bytes(tmp_path):
    (tmp_path / "long.txt").write_text("\n".join(f"l{i}" for i in range(1, 2501)))
    r = await ReadTool(str(tmp_path)).execute("c", {"path": "long.txt", "offset": 2}, None, None)
    assert text_of(r).endswith("l2001\n\n[Showing lines 2-2001 of 2500. Use offset=2002 to continue.]")
    assert r["details"]["truncation"]["truncatedBy"] == "lines"
    (tmp_path / "wide.txt").write_text(("x" * 1000 + "\n") * 100)
    r = await ReadTool(str(tmp_path)).execute("c", {"path": "wide.txt"}, None, None)
    assert text_of(r).endswith("\n\n[Showing lines 1-51 of 101 (50.0KB limit). Use offset=52 to continue.]")


async def test_read_first_line_too_long_hint(tmp_path):
    (tmp_path / "min.js").write_text("z" * 60000)
    r = await ReadTool(str(tmp_path)).execute("c", {"path": "min.js"}, None, None)
    assert text_of(r) == "[Line 1 is 58.6KB, exceeds 50.0KB limit. Use bash: sed -n '1p' min.js | head -c 51200]"
    assert r["details"]["truncation"]["firstLineExceedsLimit"] is True


async def test_read_image_detected_by_content(tmp_path):
    # A real 1x1 PNG (upstream's sniffing wants the IHDR chunk; auto-resize decodes it).
    png = base64.b64decode(
        "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
    )
    (tmp_path / "pic.dat").write_bytes(png)
    r = await ReadTool(str(tmp_path)).execute("c", {"path": "pic.dat"}, None, None)
    assert r["content"][0] == {"type": "text", "text": "Read image file [image/png]"}
    assert r["content"][1] == {"type": "image", "data": base64.b64encode(png).decode(), "mimeType": "image/png"}


async def test_read_errors(tmp_path):
    tool = ReadTool(str(tmp_path))
    with pytest.raises(ToolError) as exc:
        await tool.execute("c", {"path": "nope.txt"}, None, None)
    assert str(exc.value) == f"ENOENT: no such file or directory, access '{tmp_path / 'nope.txt'}'"
    (tmp_path / "d").mkdir()
    with pytest.raises(ToolError, match="^EISDIR: illegal operation on a directory, read$"):
        await tool.execute("c", {"path": "d"}, None, None)
    ctl = AbortController()
    ctl.abort()
    (tmp_path / "ok.txt").write_text("x")
    with pytest.raises(ToolError, match="^Operation aborted$"):
        await tool.execute("c", {"path": "ok.txt"}, ctl.signal, None)


async def test_write_creates_parents_and_reports_like_upstream(tmp_path):
    tool = WriteTool(str(tmp_path))
    r = await tool.execute("c", {"path": "deep/er/f.txt", "content": "héllo 😀\n"}, None, None)
    # upstream 1.6's text (core/tools/write.ts): no byte count.
    assert r == {"content": [{"type": "text", "text": "Successfully wrote to deep/er/f.txt"}]}
    assert (tmp_path / "deep/er/f.txt").read_bytes() == "héllo 😀\n".encode()
    await tool.execute("c", {"path": "deep/er/f.txt", "content": "a\r\nb"}, None, None)
    assert (tmp_path / "deep/er/f.txt").read_bytes() == b"a\r\nb"


async def test_write_errors(tmp_path):
    (tmp_path / "file").write_text("x")
    with pytest.raises(ToolError, match="ENOTDIR|EEXIST"):
        await WriteTool(str(tmp_path)).execute("c", {"path": "file/sub.txt", "content": "x"}, None, None)
    ctl = AbortController()
    ctl.abort()
    with pytest.raises(ToolError, match="^Operation aborted$"):
        await WriteTool(str(tmp_path)).execute("c", {"path": "n.txt", "content": "x"}, ctl.signal, None)
    assert not (tmp_path / "n.txt").exists()
