"""The ACP agent: the methods an editor calls (``initialize``, ``authenticate``, ``session/new``,
``session/load``, ``session/list``, ``session/prompt``, ``session/cancel``,
``session/set_config_option`` and the unstable ``session/fork``, ``session/resume``,
``session/close``) and the live sessions they create.

Each session is built exactly like the other modes build theirs (``runtime.factory``, from the
command line's flags, with the request's ``cwd``), so settings, models.json, sessions on disk,
skills and prompt templates behave as in ``pi --mode rpc``. The runtime is imported at the
first session, not at ``initialize``, to keep the editor's handshake fast.
"""

from __future__ import annotations

import os
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from pi_rpc import __version__
from pi_rpc.errors import StartupError
from pi_rpc.log import logger
from pi_rpc.modes.acp.jsonrpc import (
    AUTH_REQUIRED,
    INTERNAL_ERROR,
    RESOURCE_NOT_FOUND,
    JsonRpcPeer,
    Reply,
    RpcError,
    invalid_params,
)

if TYPE_CHECKING:
    from anyio.abc import TaskGroup

    from pi_rpc.config.cli_args import CliArgs
    from pi_rpc.modes.acp.session import AcpSession
    from pi_rpc.modes.rpc.backend import ServerHandle
    from pi_rpc.modes.rpc.registry import HandlerRegistry

PROTOCOL_VERSION = 1
AUTH_METHOD_ID = "pi-configuration"
AUTH_METHODS = [
    {
        "id": AUTH_METHOD_ID,
        "name": "Configure a model provider",
        "description": (
            "pi reads its keys from its own configuration: set a provider key (ANTHROPIC_API_KEY, "
            "OPENAI_API_KEY, GEMINI_API_KEY, …) in the environment the editor starts pi with, add it "
            "to <agent dir>/auth.json, or add a provider to <agent dir>/models.json; then retry."
        ),
    }
]
LIST_PAGE_SIZE = 100


def _string(params: dict[str, object], key: str) -> str:
    value = params.get(key)
    if not isinstance(value, str) or not value:
        raise invalid_params(f'"{key}" must be a non-empty string')
    return value


def _cwd(params: dict[str, object]) -> str:
    cwd = _string(params, "cwd")
    if not os.path.isabs(cwd):
        raise invalid_params(f'"cwd" must be an absolute path, got "{cwd}"')
    if not os.path.isdir(cwd):
        raise invalid_params(f'"cwd" is not a directory: {cwd}')
    return cwd


def _mcp_servers(params: dict[str, object]) -> list[dict[str, object]]:
    from pi_rpc.modes.acp.mcp_servers import client_mcp_servers

    return client_mcp_servers(params.get("mcpServers", []))


def _stored(locator: str) -> bool:
    """Whether a session (a file, or a session of a database) is stored."""
    from pi_rpc.session.backends import backend_for

    return backend_for(locator).exists(locator)


def _not_found(session_id: str) -> RpcError:
    return RpcError(RESOURCE_NOT_FOUND, "Resource not found", {"details": f"Unknown session: {session_id}"})


class AcpAgent:
    """The ACP server's backend (``RpcServer`` lifecycle: ``start``, ``aclose``)."""

    def __init__(self, args: CliArgs) -> None:
        self.args = args
        self.sessions: dict[str, AcpSession] = {}
        # Sessions another process holds, continued here in a fork: client id -> the fork's
        # ``_meta`` (a second load of the id reopens that fork rather than forking again).
        self._continued: dict[str, dict[str, Any]] = {}
        self.client_capabilities: dict[str, Any] = {}
        self._task_group: TaskGroup | None = None
        self.peer: JsonRpcPeer | None = None

    # ------------------------------------------------------------------ server lifecycle

    def register(self, registry: HandlerRegistry) -> None:
        """(RPC command registry: unused; methods are registered on the JSON-RPC peer.)"""

    def attach(self, peer: JsonRpcPeer) -> None:
        self.peer = peer
        for name, handler in (
            ("initialize", self.initialize),
            ("authenticate", self.authenticate),
            ("session/new", self.new_session),
            ("session/load", self.load_session),
            ("session/resume", self.resume_session),
            ("session/fork", self.fork_session),
            ("session/close", self.close_session),
            ("session/list", self.list_sessions),
            ("session/prompt", self.prompt),
            ("session/set_config_option", self.set_config_option),
        ):
            peer.method(name, handler)
        peer.notification("session/cancel", self.cancel)

    async def start(self, server: ServerHandle) -> None:
        self._task_group = server.task_group

    async def input_ended(self) -> None:
        """The client closed stdin: fail its unanswered requests and cancel running turns."""
        if self.peer is not None:
            self.peer.close()
        for session in list(self.sessions.values()):
            await session.cancel()

    async def aclose(self) -> None:
        sessions, self.sessions = list(self.sessions.values()), {}
        for session in sessions:
            await session.close()

    # ------------------------------------------------------------------ handshake

    async def initialize(self, params: dict[str, object]) -> dict[str, object]:
        version = params.get("protocolVersion")
        if type(version) is not int or not 0 <= version <= 65535:
            raise invalid_params('"protocolVersion" must be an integer (ACP protocol version)')
        from pi_rpc.modes.acp.login import login_auth_methods  # the provider table: at the handshake only

        capabilities = params.get("clientCapabilities")
        self.client_capabilities = capabilities if isinstance(capabilities, dict) else {}
        return {
            "protocolVersion": PROTOCOL_VERSION,
            "agentCapabilities": {
                "loadSession": not self.args.no_session,
                "promptCapabilities": {"image": True, "audio": False, "embeddedContext": True},
                "mcpCapabilities": {"http": True, "sse": False},
                "sessionCapabilities": {"list": {}, "fork": {}, "resume": {}, "close": {}},
            },
            "authMethods": AUTH_METHODS + login_auth_methods(),
            "agentInfo": {"name": "pi_rpc", "title": "pi", "version": __version__},
        }

    async def authenticate(self, params: dict[str, object]) -> dict[str, object]:
        from pi_rpc.modes.acp.login import METHOD_PREFIX, authenticate_with_login, login_auth_methods

        method = _string(params, "methodId")
        if method in {m["id"] for m in login_auth_methods()}:
            # A provider sign-in (modes/acp/login.py): the flow runs here, the credential is saved.
            elicitation = self.client_capabilities.get("elicitation")
            form = isinstance(elicitation, dict) and isinstance(elicitation.get("form"), dict)
            await authenticate_with_login(method[len(METHOD_PREFIX) :], self.peer, form)
            return {}
        if method != AUTH_METHOD_ID:
            raise invalid_params(f'unknown methodId "{method}" (this agent offers "{AUTH_METHOD_ID}")')
        from pi_rpc.ai.models.registry import ModelRegistry
        from pi_rpc.config import paths
        from pi_rpc.runtime.errors import no_models_available_message

        registry = ModelRegistry(
            paths.agent_dir(), faux=bool(self.args.faux_script) or str(self.args.model or "").startswith("faux/")
        )
        if not registry.get_available():
            raise RpcError(AUTH_REQUIRED, "Authentication required", {"details": no_models_available_message()})
        return {}

    # ------------------------------------------------------------------ sessions

    def _session(self, params: dict[str, object]) -> AcpSession:
        session_id = _string(params, "sessionId")
        session = self.sessions.get(session_id)
        if session is None:
            raise _not_found(session_id)
        return session

    async def _open(
        self, cwd: str, mcp_servers: list[dict[str, Any]], client_id: str | None = None, **overrides: Any
    ) -> AcpSession:
        """Build a session runtime like every mode does, with the client's cwd, file access
        and MCP servers. ``client_id``: the id the client knows the session by when it is not
        the runtime's (a session continued in a fork, ``_reopen``)."""
        import anyio

        from pi_rpc.modes.acp.client_fs import ClientFileAccess
        from pi_rpc.modes.acp.dialogs import AcpDialogs
        from pi_rpc.modes.acp.session import PERMISSION_MODES, AcpSession
        from pi_rpc.runtime.factory import build_runtime_options
        from pi_rpc.runtime.session import AgentSession

        assert self.peer is not None and self._task_group is not None
        args = replace(self.args, session=None, continue_session=False, resume=False, fork=None, session_id=None)
        args = replace(args, **overrides)
        try:
            # Settings, models and the session (its reading, its lock, a migration's rewrite, a
            # fork's first write): off the event loop, so a session database locked by another
            # process, or a large file, never stalls the agent's other sessions.
            options = await anyio.to_thread.run_sync(
                lambda: build_runtime_options(args, cwd=cwd, mcp_servers=mcp_servers)
            )
        except StartupError as exc:
            if overrides.get("session") or overrides.get("fork"):
                raise _not_found(str(overrides.get("session") or overrides.get("fork"))) from None
            raise invalid_params(exc.message) from None
        session_id = client_id or options.session.session_id
        fs_caps = self.client_capabilities.get("fs")
        fs: dict[str, object] = fs_caps if isinstance(fs_caps, dict) else {}
        files = ClientFileAccess(
            self.peer, session_id, read=fs.get("readTextFile") is True, write=fs.get("writeTextFile") is True
        )
        if files.delegates_read or files.delegates_write:
            options.file_access = files
        holder: list[AcpSession] = []
        if self._terminal_enabled(options.settings.get("acp.terminal", False)):
            from pi_rpc.modes.acp.terminal import ClientTerminals

            async def on_terminal(call_id: str, terminal_id: str) -> None:
                if holder:
                    await holder[0].show_terminal(call_id, terminal_id)

            options.bash_runner = ClientTerminals(self.peer, session_id, on_terminal)
        permissions = options.settings.get("acp.permissions", "never")
        if permissions not in PERMISSION_MODES:
            logger().warning(
                f'Warning: invalid acp.permissions "{permissions}" in settings (expected never, ask-writes or ask-all); using "never"'
            )
            permissions = "never"
        runtime = AgentSession(options)
        elicitation = self.client_capabilities.get("elicitation")
        dialogs = AcpDialogs(
            self.peer,
            session_id,
            elicitation=isinstance(elicitation, dict) and isinstance(elicitation.get("form"), dict),
        )
        session = AcpSession(runtime, self.peer, permissions=permissions, files=files, dialogs=dialogs)
        session.id = session_id
        holder.append(session)
        session.start(self._task_group)
        return session

    def _terminal_enabled(self, setting: object) -> bool:
        """``acp.terminal: true`` and a client that offers ``terminal/*``."""
        if setting not in (True, False):
            logger().warning(
                f"Warning: invalid acp.terminal {setting!r} in settings (expected true or false); using false"
            )
            return False
        return setting and self.client_capabilities.get("terminal") is True

    async def _register(self, session: AcpSession, *, require_model: bool) -> None:
        if require_model and session.runtime.model is None:
            await session.close()
            from pi_rpc.runtime.errors import no_models_available_message

            raise RpcError(AUTH_REQUIRED, "Authentication required", {"details": no_models_available_message()})
        if session.runtime.ext is not None:
            await self._start_extensions(session)
        previous = self.sessions.pop(session.id, None)
        if previous is not None and previous is not session:
            await previous.close()
        self.sessions[session.id] = session

    async def _start_extensions(self, session: AcpSession) -> None:
        """Extensions run with ``ctx.mode`` "acp" and a UI (``ctx.has_ui`` true): their dialogs
        become requests to the editor (``dialogs.AcpDialogs``). Their errors go to stderr and,
        as a notification, to the conversation. One that fails to load fails the session
        request: a permission gate must not be skipped silently."""
        from pi_rpc.extensions.host import ModeBinding

        def on_error(error: Any) -> None:
            text = f"Extension error ({error['extensionPath']}): {error['error']}"
            logger().error(text)
            session.dialogs.notify(text)

        try:
            await session.runtime.start_extensions(ModeBinding(mode="acp", ui=session.dialogs, on_error=on_error))
        except StartupError as exc:
            await session.close()
            raise RpcError(INTERNAL_ERROR, "Internal error", {"details": exc.message}) from None

    def _ready(self, session: AcpSession, result: dict[str, object]) -> Reply:
        session.sent_config = result["configOptions"] = session.config_options()

        async def after() -> None:
            await session.update(
                {"sessionUpdate": "available_commands_update", "availableCommands": session.available_commands()}
            )
            await session.dialogs.ready()

        return Reply(result, after)

    async def new_session(self, params: dict[str, object]) -> Reply:
        cwd = _cwd(params)
        session = await self._open(cwd, _mcp_servers(params))
        await self._register(session, require_model=True)
        return self._ready(session, {"sessionId": session.id})

    def _existing(self, session_id: str) -> dict[str, Any]:
        from pi_rpc.session.backends import is_database_locator

        if is_database_locator(session_id):
            # A database session named by its locator: the client keeps addressing it so.
            return {"session": session_id, "client_id": session_id}
        if "/" in session_id or "\\" in session_id or session_id.endswith(".jsonl"):
            raise _not_found(session_id)
        return {"session": session_id}

    def _session_backend(self, settings: Any, agent_dir: Any, cwd: str) -> Any:
        """The session backend ``--session-store``/``--session-db`` and the settings select."""
        from pi_rpc.runtime.options import session_backend

        return session_backend(
            settings, agent_dir, cwd, cli_store=self.args.session_store, cli_database=self.args.session_db
        )

    def _held_elsewhere(self, session_id: str, cwd: str) -> tuple[str, int] | None:
        """The file of session ``session_id`` and the pid of the other process holding its
        single-writer lock (another editor chat, a ``pi --mode rpc``), or None when no other
        process holds it (or there is no such session)."""
        from pi_rpc.config import paths
        from pi_rpc.config.settings import Settings
        from pi_rpc.session.backends import is_database_locator
        from pi_rpc.session.errors import SessionError
        from pi_rpc.session.listing import build_session_info
        from pi_rpc.session.session_arg import resolve_session_arg

        agent_dir = paths.agent_dir()
        settings = Settings.load(agent_dir=agent_dir, cwd=cwd)
        choice = paths.resolve_session_dir(
            cwd=cwd, agent=agent_dir, cli_session_dir=self.args.session_dir, settings_session_dir=settings.session_dir
        )
        backend = self._session_backend(settings, agent_dir, cwd)
        try:
            resolved = resolve_session_arg(
                session_id,
                cwd=cwd,
                session_dir=str(choice.path),
                all_sessions_dir=str(paths.sessions_root(agent_dir)),
                custom_dir=choice.custom,
                backend=backend,
            )
        except SessionError:
            return None
        if is_database_locator(resolved.path):
            # A database locator names its session's id after the last '#' (the client may
            # have named the session by its locator).
            wanted = session_id.rpartition("#")[2] if is_database_locator(session_id) else session_id
            if resolved.path.rpartition("#")[2] != wanted:  # an id prefix matched another session
                return None
        else:
            info = build_session_info(resolved.path)
            if info is None or info.id != session_id:  # an id prefix matched another session
                return None
        pid = backend.holder_pid(resolved.path)
        if pid is None or pid == os.getpid():  # free, or ours (shared within the process)
            return None
        return resolved.path, pid

    async def _reopen(self, params: dict[str, object]) -> tuple[AcpSession, dict[str, object] | None]:
        """The session ``params.sessionId`` names, ready to use, and — when another process
        holds its file — how it was continued instead: two writers would corrupt the file, so
        the history is loaded from it and continued in a fork (a new file whose header's
        ``parentSession`` is the original), which the client keeps addressing by the id it
        asked for. A session another process holds is never "not found" (``session/list``
        lists it, so an editor would otherwise silently start an empty one)."""
        session_id = _string(params, "sessionId")
        cwd = _cwd(params)
        servers = _mcp_servers(params)
        if self.args.no_session:
            raise _not_found(session_id)
        live = self.sessions.pop(session_id, None)
        if live is not None:
            await live.close()
        held = self._held_elsewhere(session_id, cwd)
        if held is None:
            try:
                session = await self._open(cwd, servers, **self._existing(session_id))
            except RpcError as exc:
                # The other process may have taken the lock between the check and the open.
                held = self._held_elsewhere(session_id, cwd) if exc.code == RESOURCE_NOT_FOUND else None
                if held is None:
                    raise
            else:
                if session.id != session_id:  # an id prefix matched another session: not this one
                    await session.close()
                    raise _not_found(session_id)
                await self._register(session, require_model=False)
                return session, None
        original, pid = held
        earlier = self._continued.get(session_id)
        if earlier is not None and earlier["originalSessionFile"] == original and _stored(earlier["sessionFile"]):
            session = await self._open(cwd, servers, client_id=session_id, session=earlier["sessionFile"])
        else:
            session = await self._open(cwd, servers, client_id=session_id, fork=original)
        await self._register(session, require_model=False)
        fork_file = session.runtime.session.session_file
        forked = {
            "reason": "locked",
            "holderPid": pid,
            "originalSessionId": session_id,
            "originalSessionFile": original,
            "sessionId": session.runtime.session.session_id,
            "sessionFile": fork_file,
        }
        self._continued[session_id] = forked
        session.dialogs.notify(
            f"This session is open in another pi process (pid {pid}), so it continues here in a copy: {fork_file}. "
            f"Its history is loaded; the original ({original}) stays with the other process, unchanged by this chat.",
            "warning",
        )
        return session, forked

    @staticmethod
    def _fork_meta(forked: dict[str, object] | None) -> dict[str, object]:
        return {} if forked is None else {"_meta": {"pi": {"forked": forked}}}

    async def load_session(self, params: dict[str, object]) -> Reply:
        session, forked = await self._reopen(params)
        await session.replay()  # the whole history before the result
        return self._ready(session, self._fork_meta(forked))

    async def resume_session(self, params: dict[str, object]) -> Reply:
        session, forked = await self._reopen(params)
        return self._ready(session, self._fork_meta(forked))

    async def fork_session(self, params: dict[str, object]) -> Reply:
        source = _string(params, "sessionId")
        cwd = _cwd(params)
        servers = _mcp_servers(params)
        if self.args.no_session:
            raise _not_found(source)
        live = self.sessions.get(source)
        origin = live.runtime.session.session_file if live is not None else None
        session = await self._open(cwd, servers, fork=origin or self._existing(source)["session"])
        await self._register(session, require_model=False)
        return self._ready(session, {"sessionId": session.id})

    async def close_session(self, params: dict[str, object]) -> dict[str, object]:
        session = self._session(params)
        self.sessions.pop(session.id, None)
        await session.close()
        return {}

    async def list_sessions(self, params: dict[str, object]) -> dict[str, object]:
        from pi_rpc.config import paths
        from pi_rpc.config.settings import Settings

        cwd = params.get("cwd")
        if cwd is not None and (not isinstance(cwd, str) or not os.path.isabs(cwd)):
            raise invalid_params('"cwd" must be an absolute path')
        cursor = params.get("cursor")
        start = 0
        if cursor is not None:
            if not isinstance(cursor, str) or not cursor.isdigit():
                raise invalid_params('"cursor" is not one this agent returned')
            start = int(cursor)
        agent_dir = paths.agent_dir()
        if cwd is not None:
            settings = Settings.load(agent_dir=agent_dir, cwd=cwd)
            choice = paths.resolve_session_dir(
                cwd=cwd,
                agent=agent_dir,
                cli_session_dir=self.args.session_dir,
                settings_session_dir=settings.session_dir,
            )
            backend = self._session_backend(settings, agent_dir, cwd)
            infos = backend.list_sessions(str(choice.path), cwd if choice.custom else None)
        else:
            settings = Settings.load(agent_dir=agent_dir, cwd=os.getcwd())
            backend = self._session_backend(settings, agent_dir, os.getcwd())
            infos = backend.list_all_sessions(str(paths.sessions_root(agent_dir)))
        page = infos[start : start + LIST_PAGE_SIZE]
        sessions = []
        for info in page:
            entry: dict[str, object] = {"sessionId": info.id, "cwd": info.cwd}
            title = info.name or info.first_message.strip().split("\n", 1)[0][:120]
            if title:
                entry["title"] = title
            entry["updatedAt"] = info.to_dict()["modified"]
            sessions.append(entry)
        result: dict[str, object] = {"sessions": sessions}
        if start + LIST_PAGE_SIZE < len(infos):
            result["nextCursor"] = str(start + LIST_PAGE_SIZE)
        return result

    # ------------------------------------------------------------------ turns

    async def prompt(self, params: dict[str, object]) -> dict[str, object]:
        session = self._session(params)
        if "prompt" not in params:
            raise invalid_params('"prompt" is required')
        return await session.prompt(params["prompt"])

    async def cancel(self, params: dict[str, Any]) -> None:
        session = self.sessions.get(params.get("sessionId"))  # type: ignore[arg-type]
        if session is not None:
            await session.cancel()

    async def set_config_option(self, params: dict[str, object]) -> dict[str, object]:
        session = self._session(params)
        config_id = _string(params, "configId")
        return {"configOptions": await session.set_config_option(config_id, params.get("value"))}
