"""grep/find through ripgrep/fd: exercised with small stand-in executables that record their
arguments and print what the real tools print, since rg and fd may be absent here."""

import json
import stat

import pytest

from pi_rpc.agent.types import ToolError
from pi_rpc.tools.find import FindTool
from pi_rpc.tools.grep import GrepTool

from .tools_helpers import text_of

pytestmark = pytest.mark.anyio


def make_exe(path, stdout: str, code: int = 0, stderr: str = ""):
    args_file = path.parent / f"{path.name}.args"
    out_file = path.parent / f"{path.name}.out"
    out_file.write_text(stdout)
    path.write_text(
        f"#!/bin/sh\nprintf '%s\\n' \"$@\" > '{args_file}'\ncat '{out_file}'\nprintf '%s' '{stderr}' >&2\nexit {code}\n"
    )
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return args_file


async def test_grep_uses_ripgrep_json(tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    (work / "a.txt").write_text("zero\nhello one\n")
    events = [
        {"type": "begin", "data": {"path": {"text": str(work / "a.txt")}}},
        {
            "type": "match",
            "data": {"path": {"text": str(work / "a.txt")}, "lines": {"text": "hello one\r\n"}, "line_number": 2},
        },
        {"type": "end", "data": {}},
    ]
    args_file = make_exe(tmp_path / "rg", "\n".join(json.dumps(e) for e in events) + "\n")
    tool = GrepTool(str(work), rg_path=str(tmp_path / "rg"))
    r = await tool.execute("c", {"pattern": "hello", "ignoreCase": True, "literal": True, "glob": "*.txt"}, None, None)
    assert text_of(r) == "a.txt:2: hello one"
    assert args_file.read_text().split("\n")[:-1] == [
        "--json",
        "--line-number",
        "--color=never",
        "--hidden",
        "--ignore-case",
        "--fixed-strings",
        "--glob",
        "*.txt",
        "--",
        "hello",
        str(work),
    ]


async def test_grep_ripgrep_failure_reports_stderr(tmp_path):
    make_exe(tmp_path / "rg", "", code=2, stderr="rg: bad regex")
    with pytest.raises(ToolError, match="^rg: bad regex$"):
        await GrepTool(str(tmp_path), rg_path=str(tmp_path / "rg")).execute("c", {"pattern": "("}, None, None)
    make_exe(tmp_path / "rg", "", code=1)
    r = await GrepTool(str(tmp_path), rg_path=str(tmp_path / "rg")).execute("c", {"pattern": "x"}, None, None)
    assert text_of(r) == "No matches found"


async def test_find_uses_fd(tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    args_file = make_exe(tmp_path / "fd", f"{work}/src/\n{work}/src/a.ts\n")
    tool = FindTool(str(work), fd_path=str(tmp_path / "fd"))
    r = await tool.execute("c", {"pattern": "src/**/*.ts", "limit": 2}, None, None)
    assert text_of(r) == "src/\nsrc/a.ts\n\n[2 results limit reached. Use limit=4 for more, or refine pattern]"
    assert args_file.read_text().split("\n")[:-1] == [
        "--glob",
        "--color=never",
        "--hidden",
        "--no-require-git",
        "--max-results",
        "2",
        "--full-path",
        "--",
        "**/src/**/*.ts",
        str(work),
    ]
