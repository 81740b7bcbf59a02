"""The codemode script process: runs one Python script whose only way to pi's tools is the pipe
to the agent. Started by ``runner`` as ``python -I -S worker.py`` (standard library only; this
file must not import pi_rpc).

Protocol: JSON lines. The agent writes to our stdin, we write to a private copy of stdout (fd 1
is pointed at stderr first, so nothing the script prints can corrupt the channel).

- agent → worker: ``{"type":"start","code","tools":[{"id","name","description"}],"store"}``,
  then ``{"type":"result","id","ok","value"|"error"}`` answering our calls.
- worker → agent: ``{"type":"call","id","kind":"tool"|"global","name","args"}``,
  ``{"type":"output","item":{"type":"text"|"console"|"image",…}}``, and finally
  ``{"type":"done","ok",("value"|"error"),"store":{"set","delete"}}``.

The script is the body of an async function (top-level ``await`` and ``return`` work). Its
globals: ``tools``, ``text``, ``image``, ``print``/``console``, ``exit``, ``store``/``load``,
``ALL_TOOLS``, ``search_tools``/``describe_tool``/``describe_namespace`` (and upstream's
camelCase names), ``ToolError``. An audit hook refuses file access outside the interpreter's
own files, sockets, subprocesses and native code (a guard against accidents, not a security
boundary); the address space is limited to 1 GiB.
"""

from __future__ import annotations

import ast
import asyncio
import json
import os
import sys
import threading
import traceback
from typing import Any

MAX_OUTPUT_CHARS = 16_777_216
MAX_OUTPUT_CALLS = 100_000
MAX_STORE_VALUE_CHARS = 262_144
MAX_STORE_TOTAL_CHARS = 1_048_576
MEMORY_LIMIT_BYTES = 1 << 30
SCRIPT_FILE = "<script>"

_PRELOADED = (
    "base64",
    "bisect",
    "collections",
    "copy",
    "csv",
    "dataclasses",
    "datetime",
    "decimal",
    "difflib",
    "enum",
    "fractions",
    "functools",
    "hashlib",
    "heapq",
    "html",
    "itertools",
    "math",
    "operator",
    "pprint",
    "random",
    "re",
    "statistics",
    "string",
    "textwrap",
    "time",
    "typing",
    "unicodedata",
    "urllib.parse",
    "uuid",
    "zlib",
)


class ToolError(Exception):
    """A tool call failed, was blocked, or got invalid arguments."""


class _Exit(BaseException):
    pass


class _OutputLimit(Exception):
    pass


def _identifier(name: str) -> str:
    out: list[str] = []
    for ch in name:
        ok = (
            (ch.isascii() and (ch.isalpha() or ch == "_"))
            if not out
            else (ch.isascii() and (ch.isalnum() or ch == "_"))
        )
        out.append(ch if ok else "_")
    return "".join(out) or "_"


def _value_text(value: object) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)


class Channel:
    def __init__(self, out_fd: int) -> None:
        self._out = out_fd
        self._lock = threading.Lock()
        self._next = 0
        self._pending: dict[int, asyncio.Future[object]] = {}
        self.loop: asyncio.AbstractEventLoop | None = None

    def send(self, message: dict[str, object]) -> None:
        data = (json.dumps(message, ensure_ascii=False, default=str) + "\n").encode("utf-8", "surrogatepass")
        with self._lock:
            view = memoryview(data)
            while view:
                written = os.write(self._out, view)
                view = view[written:]

    def call(self, kind: str, name: str, args: object) -> asyncio.Future[object]:
        assert self.loop is not None
        self._next += 1
        future: asyncio.Future[object] = self.loop.create_future()
        self._pending[self._next] = future
        self.send({"type": "call", "id": self._next, "kind": kind, "name": name, "args": args})
        return future

    def resolve(self, message: dict[str, Any]) -> None:
        future = self._pending.pop(message.get("id"), None)  # type: ignore[arg-type]
        if future is None or future.done():
            return
        if message.get("ok"):
            future.set_result(message.get("value"))
        else:
            future.set_exception(ToolError(str(message.get("error") or "Tool call failed")))


def _reader(channel: Channel, stream: Any) -> None:
    for raw in stream:
        try:
            message = json.loads(raw)
        except ValueError:
            continue
        if message.get("type") == "result" and channel.loop is not None:
            try:
                channel.loop.call_soon_threadsafe(channel.resolve, message)
            except RuntimeError:
                return  # the loop closed: the script is over
    os._exit(0)  # the agent went away: nothing left to do


class Output:
    def __init__(self, channel: Channel) -> None:
        self.channel = channel
        self.chars = 0
        self.calls = 0

    def emit(self, item: dict[str, object], size: int) -> None:
        self.calls += 1
        self.chars += size
        if self.calls > MAX_OUTPUT_CALLS:
            raise _OutputLimit(f"Script output exceeded {MAX_OUTPUT_CALLS} text(), image(), and console calls")
        if self.chars > MAX_OUTPUT_CHARS:
            raise _OutputLimit(f"Script output exceeded {MAX_OUTPUT_CHARS} characters of text and image data")
        self.channel.send({"type": "output", "item": item})


def _image_item(value: Any) -> dict[str, Any]:
    if isinstance(value, dict) and value.get("type") == "image" and isinstance(value.get("data"), str):
        return {"type": "image", "data": value["data"], "mimeType": str(value.get("mimeType") or "")}
    url = value.get("image_url") if isinstance(value, dict) else value
    if isinstance(url, dict):
        url = url.get("url")
    if isinstance(url, str) and url.startswith("data:") and ";base64," in url:
        head, data = url[5:].split(";base64,", 1)
        return {"type": "image", "data": data, "mimeType": head}
    if isinstance(url, str) and url.startswith(("http://", "https://")):
        raise ValueError("image() does not support remote URLs; pass a base64 data: URL or an image block")
    raise ValueError(
        "image() expects a base64 data: URL, an {image_url} object, or an image block {type: 'image', data, mimeType}"
    )


class Store:
    def __init__(self, initial: dict[str, object]) -> None:
        self.values = dict(initial)
        self.set: dict[str, object] = {}
        self.deleted: list[str] = []

    def store(self, key: str, value: object = None) -> None:
        if not isinstance(key, str):
            raise TypeError("store() expects a string key")
        if value is None:
            self.values.pop(key, None)
            self.set.pop(key, None)
            if key not in self.deleted:
                self.deleted.append(key)
            return
        text = json.dumps(value, ensure_ascii=False)
        if len(text) > MAX_STORE_VALUE_CHARS:
            raise ValueError(f"store() value for {key!r} exceeds {MAX_STORE_VALUE_CHARS} characters of JSON")
        values = {**self.values, key: json.loads(text)}
        if len(json.dumps(values, ensure_ascii=False)) > MAX_STORE_TOTAL_CHARS:
            raise ValueError(f"store() values exceed {MAX_STORE_TOTAL_CHARS} characters of JSON in total")
        self.values = values
        self.set[key] = values[key]
        if key in self.deleted:
            self.deleted.remove(key)

    def load(self, key: str) -> object:
        return json.loads(json.dumps(self.values.get(key))) if key in self.values else None


def _compile(code: str) -> Any:
    tree = ast.parse(code, SCRIPT_FILE, "exec")
    body = tree.body or [ast.Pass(lineno=1, col_offset=0)]
    function = ast.AsyncFunctionDef(
        name="__pi_script__",
        args=ast.arguments(
            posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[]
        ),
        body=body,
        decorator_list=[],
        returns=None,
        type_comment=None,
        lineno=1,
        col_offset=0,
    )
    if sys.version_info >= (3, 12):
        function.type_params = []
    module = ast.Module(body=[function], type_ignores=[])
    ast.fix_missing_locations(module)
    return compile(module, SCRIPT_FILE, "exec")


def _format_error(error: BaseException) -> str:
    frames = [frame for frame in traceback.extract_tb(error.__traceback__) if frame.filename == SCRIPT_FILE]
    lines = traceback.format_list(frames)
    head = "".join(traceback.format_exception_only(type(error), error)).rstrip()
    if not lines:
        return head
    return "Traceback (most recent call last):\n" + "".join(lines).replace(" in __pi_script__", " in <script>") + head


def _allowed_roots() -> list[str]:
    roots = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix, os.path.dirname(os.__file__)}
    return [os.path.realpath(root) for root in roots if root]


def _install_guard() -> None:
    roots = _allowed_roots()
    blocked_prefixes = (
        "socket.",
        "subprocess.",
        "os.exec",
        "os.spawn",
        "os.posix_spawn",
        "os.fork",
        "ctypes.",
        "winreg.",
    )
    blocked = {
        "os.system",
        "os.kill",
        "os.killpg",
        "os.remove",
        "os.rename",
        "os.rmdir",
        "os.mkdir",
        "os.chmod",
        "os.chown",
        "os.link",
        "os.symlink",
        "os.truncate",
        "os.utime",
        "os.listdir",
        "os.scandir",
        "os.chdir",
        "os.putenv",
        "os.unsetenv",
        "shutil.rmtree",
        "shutil.copyfile",
        "shutil.move",
        "pty.spawn",
        "glob.glob",
        "webbrowser.open",
        "sys.remote_exec",
        "mmap.__new__",
    }

    def allowed_path(path: Any) -> bool:
        if not isinstance(path, (str, bytes, os.PathLike)):
            return False
        real = os.path.realpath(os.fsdecode(path))
        return any(real == root or real.startswith(root + os.sep) for root in roots)

    def hook(event: str, args: tuple[object, ...]) -> None:
        if event == "open":
            path, mode = args[0], args[1] if len(args) > 1 else "r"
            writing = isinstance(mode, str) and any(flag in mode for flag in "wax+")
            if isinstance(path, int) or (not writing and allowed_path(path)):
                return
            raise PermissionError(f"codemode scripts cannot open files ({path}); use the read and write tools")
        if event == "import" and args and str(args[0]).split(".")[0] in ("ctypes", "_ctypes", "cffi"):
            raise PermissionError("codemode scripts cannot load native code")
        if event in blocked or event.startswith(blocked_prefixes):
            raise PermissionError(f"codemode scripts cannot use {event}; call tools instead")

    sys.addaudithook(hook)


def _limit_memory() -> None:
    try:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT_BYTES, MEMORY_LIMIT_BYTES))
    except (ImportError, ValueError, OSError):
        pass


def _build_globals(channel: Channel, output: Output, store: Store, start: dict[str, Any]) -> dict[str, Any]:
    catalog = list(start.get("tools") or [])
    by_name: dict[str, str] = {}
    for entry in catalog:
        by_name[entry["id"]] = entry["name"]
        by_name[entry["name"]] = entry["name"]

    def text(value: object) -> None:
        rendered = _value_text(value)
        output.emit({"type": "text", "text": rendered}, len(rendered))

    def image(value: object) -> None:
        item = _image_item(value)
        output.emit(item, len(item["data"]))

    def console_line(*values: object, **_kw: object) -> None:
        line = " ".join(v if isinstance(v, str) else _value_text(v) for v in values)
        output.emit({"type": "console", "text": line}, len(line))

    class Console:
        log = info = warn = error = debug = staticmethod(console_line)

    def exit_script() -> None:
        raise _Exit()

    def make_call(name: str) -> object:
        async def call(args: object = None, /, **kwargs: object) -> object:
            if args is not None and not isinstance(args, dict):
                raise TypeError(f"tools.{_identifier(name)}() takes one dict of arguments (or keyword arguments)")
            merged = {**(args or {}), **kwargs}
            return await channel.call("tool", name, json.loads(json.dumps(merged, default=str)))

        call.__name__ = _identifier(name)
        return call

    class Tools:
        def __getattr__(self, attr: str) -> object:
            name = by_name.get(attr)
            if name is None:
                raise AttributeError(f"No tool named {attr!r}; find tools with search_tools() or ALL_TOOLS")
            return make_call(name)

        def __getitem__(self, key: str) -> object:
            return self.__getattr__(_identifier(key) if key not in by_name else key)

        def __dir__(self) -> list[str]:
            return [entry["id"] for entry in catalog]

    def global_call(name: str) -> Any:
        async def call(*args: object) -> object:
            return await channel.call("global", name, list(args))

        return call

    search_tools = global_call("searchTools")
    describe_tool = global_call("describeTool")
    describe_namespace = global_call("describeNamespace")

    async def search(query: object, options: object = None, /, **kwargs: object) -> object:
        merged = {**(options or {}), **kwargs} if isinstance(options, dict) or options is None else options
        return await search_tools(query, merged or None)

    return {
        "__name__": "__script__",
        "__builtins__": __builtins__,
        "tools": Tools(),
        "text": text,
        "image": image,
        "print": console_line,
        "console": Console(),
        "exit": exit_script,
        "store": store.store,
        "load": store.load,
        "ALL_TOOLS": [{"name": entry["id"], "description": entry["description"]} for entry in catalog],
        "search_tools": search,
        "searchTools": search,
        "describe_tool": describe_tool,
        "describeTool": describe_tool,
        "describe_namespace": describe_namespace,
        "describeNamespace": describe_namespace,
        "ToolError": ToolError,
        "asyncio": asyncio,
        "json": json,
    }


async def _run(channel: Channel, start: dict[str, Any]) -> dict[str, Any]:
    channel.loop = asyncio.get_running_loop()
    output = Output(channel)
    store = Store(start.get("store") or {})
    scope = _build_globals(channel, output, store, start)
    try:
        code = _compile(start.get("code") or "")
    except SyntaxError as exc:
        return {"ok": False, "error": "".join(traceback.format_exception_only(type(exc), exc)).rstrip()}
    value: object = None
    try:
        exec(code, scope)  # noqa: S102 - defines __pi_script__; running it is the point of codemode
        value = await scope["__pi_script__"]()
    except _Exit:
        value = None
    except (Exception, _OutputLimit) as exc:  # noqa: BLE001 - reported to the model
        return {"ok": False, "error": _format_error(exc)}
    result: dict[str, object] = {"ok": True, "store": {"set": store.set, "delete": store.deleted}}
    if value is not None:
        rendered = _value_text(value)
        result["value"] = rendered
    return result


def main() -> None:
    out_fd = os.dup(1)
    os.dup2(2, 1)  # stray prints and C-level writes go to stderr, never into the channel
    channel = Channel(out_fd)
    stdin = os.fdopen(0, "r", encoding="utf-8", errors="surrogateescape")
    start = json.loads(stdin.readline() or "{}")
    for name in _PRELOADED:
        __import__(name)
    loop = asyncio.new_event_loop()  # before the guard: the loop needs a socket pair
    _limit_memory()
    threading.Thread(target=_reader, args=(channel, stdin), daemon=True).start()
    _install_guard()
    try:
        done = loop.run_until_complete(_run(channel, start))
    except MemoryError:
        done = {"ok": False, "error": "MemoryError: the script ran out of memory"}
    channel.send({"type": "done", **done})
    sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
