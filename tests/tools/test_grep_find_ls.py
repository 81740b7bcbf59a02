import os

import pytest

from pi_rpc.agent.types import ToolError
from pi_rpc.tools.find import FindTool
from pi_rpc.tools.grep import GrepTool
from pi_rpc.tools.ls import LsTool
from pi_rpc.tools.walk import glob_matches

from .tools_helpers import text_of

pytestmark = pytest.mark.anyio


@pytest.fixture
def tree(tmp_path):
    (tmp_path / "src" / "lib").mkdir(parents=True)
    (tmp_path / "src" / "main.py").write_text("import os\nprint('Hello')\nprint('bye')\n")
    (tmp_path / "src" / "lib" / "util.py").write_text("def hello():\n    return 'hello'\n")
    (tmp_path / "src" / "lib" / "util.ts").write_text("export const hello = 1;\n")
    (tmp_path / ".hidden.txt").write_text("hello hidden\n")
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "out.py").write_text("hello from build\n")
    (tmp_path / ".gitignore").write_text("build/\n*.log\n")
    (tmp_path / "debug.log").write_text("hello log\n")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "config").write_text("hello git\n")
    (tmp_path / "blob.bin").write_bytes(b"hello\x00\x01")
    return tmp_path


def grep(cwd):
    return GrepTool(str(cwd), use_ripgrep=False)


async def test_grep_python_fallback_respects_gitignore_and_hidden(tree):
    r = await grep(tree).execute("c", {"pattern": "hello"}, None, None)
    assert text_of(r) == (
        ".hidden.txt:1: hello hidden\n"
        "src/lib/util.py:1: def hello():\n"
        "src/lib/util.py:2:     return 'hello'\n"
        "src/lib/util.ts:1: export const hello = 1;"
    )
    assert "details" not in r


async def test_grep_options_glob_case_literal_context(tree):
    r = await grep(tree).execute(
        "c", {"pattern": "hello", "ignoreCase": True, "glob": "*.py", "path": "src"}, None, None
    )
    assert text_of(r) == "lib/util.py:1: def hello():\nlib/util.py:2:     return 'hello'\nmain.py:2: print('Hello')"
    r = await grep(tree).execute(
        "c", {"pattern": "print(", "literal": True, "context": 1, "path": "src/main.py"}, None, None
    )
    # Like upstream, a file's trailing newline yields an empty last line in context blocks.
    assert text_of(r) == (
        "main.py-1- import os\nmain.py:2: print('Hello')\nmain.py-3- print('bye')\n"
        "main.py-2- print('Hello')\nmain.py:3: print('bye')\nmain.py-4- "
    )
    r = await grep(tree).execute("c", {"pattern": "zzz_none"}, None, None)
    assert r == {"content": [{"type": "text", "text": "No matches found"}]}


async def test_grep_limit_and_long_lines(tmp_path):
    (tmp_path / "many.txt").write_text("".join(f"match {i}\n" for i in range(10)) + "match " + "x" * 600 + "\n")
    r = await grep(tmp_path).execute("c", {"pattern": "match", "limit": 3}, None, None)
    assert text_of(r) == (
        "many.txt:1: match 0\nmany.txt:2: match 1\nmany.txt:3: match 2\n\n"
        "[3 matches limit reached. Use limit=6 for more, or refine pattern]"
    )
    assert r["details"] == {"matchLimitReached": 3}
    r = await grep(tmp_path).execute("c", {"pattern": "xxxx"}, None, None)
    assert text_of(r).endswith(
        "... [truncated]\n\n[Some lines truncated to 500 chars. Use read tool to see full lines]"
    )
    assert r["details"] == {"linesTruncated": True}


async def test_grep_byte_truncation(tmp_path):
    (tmp_path / "wide.txt").write_text("".join(f"hit {'y' * 400}\n" for _ in range(300)))
    r = await grep(tmp_path).execute("c", {"pattern": "hit", "limit": 1000}, None, None)
    assert text_of(r).endswith("\n\n[50.0KB limit reached]")
    assert r["details"]["truncation"]["truncatedBy"] == "bytes"


async def test_grep_errors(tmp_path):
    with pytest.raises(ToolError) as exc:
        await grep(tmp_path).execute("c", {"pattern": "x", "path": "nope"}, None, None)
    assert str(exc.value) == f"Path not found: {tmp_path / 'nope'}"
    (tmp_path / "f.txt").write_text("x\n")
    with pytest.raises(ToolError, match="regex parse error"):
        await grep(tmp_path).execute("c", {"pattern": "("}, None, None)


async def test_find_fallback(tree):
    tool = FindTool(str(tree), use_fd=False)
    r = await tool.execute("c", {"pattern": "*.py"}, None, None)
    assert text_of(r) == "src/lib/util.py\nsrc/main.py"
    r = await tool.execute("c", {"pattern": "lib"}, None, None)
    assert text_of(r) == "src/lib/"
    r = await tool.execute("c", {"pattern": "src/**/*.ts"}, None, None)
    assert text_of(r) == "src/lib/util.ts"
    r = await tool.execute("c", {"pattern": "*", "limit": 2}, None, None)
    assert text_of(r) == ".gitignore\n.hidden.txt\n\n[2 results limit reached. Use limit=4 for more, or refine pattern]"
    assert r["details"] == {"resultLimitReached": 2}
    r = await tool.execute("c", {"pattern": "*.rs"}, None, None)
    assert text_of(r) == "No files found matching pattern"
    with pytest.raises(ToolError) as exc:
        await tool.execute("c", {"pattern": "*", "path": "missing"}, None, None)
    assert str(exc.value) == f"Path not found: {tree / 'missing'}"


async def test_find_byte_truncation(tmp_path):
    for i in range(600):
        (tmp_path / f"{'n' * 90}_{i:04d}.txt").write_text("")
    r = await FindTool(str(tmp_path), use_fd=False).execute("c", {"pattern": "*.txt"}, None, None)
    assert text_of(r).endswith("\n\n[50.0KB limit reached]")


def test_glob_semantics():
    assert glob_matches("*.py", "a/b/c.py")
    assert not glob_matches("src/*.py", "src/a/b.py")
    assert glob_matches("src/**/*.py", "x/src/a/b.py")
    assert not glob_matches("src/**/*.py", "x/src/a/b.py", anchored=True)
    assert glob_matches("*.{ts,tsx}", "a.tsx")


async def test_ls(tree):
    r = await LsTool(str(tree)).execute("c", {}, None, None)
    assert text_of(r) == ".git/\n.gitignore\n.hidden.txt\nblob.bin\nbuild/\ndebug.log\nsrc/"
    r = await LsTool(str(tree)).execute("c", {"path": "src", "limit": 1}, None, None)
    assert text_of(r) == "lib/\n\n[1 entries limit reached. Use limit=2 for more]"
    assert r["details"] == {"entryLimitReached": 1}
    (tree / "empty").mkdir()
    r = await LsTool(str(tree)).execute("c", {"path": "empty"}, None, None)
    assert text_of(r) == "(empty directory)"


async def test_ls_case_insensitive_sort_and_errors(tmp_path):
    for name in ("b", "A", "c", "B2"):
        (tmp_path / name).write_text("")
    r = await LsTool(str(tmp_path)).execute("c", {}, None, None)
    assert text_of(r) == "A\nb\nB2\nc"
    with pytest.raises(ToolError) as exc:
        await LsTool(str(tmp_path)).execute("c", {"path": "zz"}, None, None)
    assert str(exc.value) == f"Path not found: {tmp_path / 'zz'}"
    with pytest.raises(ToolError) as exc:
        await LsTool(str(tmp_path)).execute("c", {"path": "A"}, None, None)
    assert str(exc.value) == f"Not a directory: {tmp_path / 'A'}"
    os.symlink(tmp_path / "nowhere", tmp_path / "dangling")
    r = await LsTool(str(tmp_path)).execute("c", {}, None, None)
    assert "dangling" not in text_of(r)
