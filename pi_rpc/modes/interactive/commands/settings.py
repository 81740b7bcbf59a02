"""``/settings`` (upstream's general settings, written to the global settings.json under
upstream's keys; hide thinking, quiet startup and skill commands are only stored; the display
settings a Textual app can express restyle the app at once, display.py) and ``/scoped-models``
(the models Ctrl+P cycles through, saved as ``enabledModels``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pi_rpc.modes.interactive.commands import command

if TYPE_CHECKING:
    from pi_rpc.modes.interactive.app import PiApp

BOOL = ["true", "false"]
QUEUE = ["one-at-a-time", "all"]
TRUST_LABELS = {"ask": "Ask", "always": "Always trust", "never": "Never trust"}


@dataclass(frozen=True)
class Setting:
    """One row of upstream's settings list: its label, the settings.json key, the values it
    offers (as upstream shows them), upstream's description of the row and how a shown value is
    stored."""

    label: str
    key: str
    values: list[str]
    default: Any
    store: Callable[[str], Any] = str
    show: Callable[[Any], str] = str
    description: str = ""
    note: str = ""  # said after a change that does not take effect at once


def _bool_show(value: Any) -> str:
    return "true" if value else "false"


def _bool_store(value: str) -> bool:
    return value == "true"


def _quiet_show(value: Any) -> str:
    return "header" if value == "header" else _bool_show(value)


def _quiet_store(value: str) -> Any:
    return "header" if value == "header" else _bool_store(value)


def _wheel_show(value: Any) -> str:
    return str(int(value)) if isinstance(value, (int, float)) and not isinstance(value, bool) else "auto"


def _wheel_store(value: str) -> Any:
    return "auto" if value == "auto" else int(value)


def _theme_values(app: PiApp) -> list[str]:
    from pi_rpc.modes.interactive.theme import available_themes

    options = app.session.options
    return available_themes(options.agent_dir, str(options.cwd), options.project_trusted, app.session.settings)


def _values(app: PiApp, setting: Setting, shown: str) -> list[str]:
    if setting.key == "theme":
        return _theme_values(app)
    if setting.key == "fullscreenWheelScrollLines" and shown not in setting.values:
        # upstream lists a configured number it does not offer among its own, in order
        numbers = sorted({int(v) for v in setting.values if v != "auto"} | {int(shown)})
        return ["auto", *map(str, numbers)]
    return setting.values


def _b(label: str, key: str, default: bool, description: str, note: str = "") -> Setting:
    return Setting(label, key, BOOL, default, _bool_store, _bool_show, description, note)


NEXT_START = "takes effect the next time pi starts"

SETTINGS: list[Setting] = [
    _b("Auto-compact", "compaction.enabled", True, "Automatically compact context when it gets too large"),
    Setting(
        "Steering mode",
        "steeringMode",
        QUEUE,
        "one-at-a-time",
        description="Enter while streaming queues steering messages. 'one-at-a-time': deliver one, "
        "wait for response. 'all': deliver all at once.",
    ),
    Setting(
        "Follow-up mode",
        "followUpMode",
        QUEUE,
        "one-at-a-time",
        description="Alt+Enter queues follow-up messages until agent stops. 'one-at-a-time': deliver "
        "one, wait for response. 'all': deliver all at once.",
    ),
    Setting(
        "Transport",
        "transport",
        ["sse", "websocket", "websocket-cached", "auto"],
        "auto",
        description="Preferred transport for providers that support multiple transports",
    ),
    _b("Hide thinking", "hideThinkingBlock", False, "Hide thinking blocks in assistant responses"),
    Setting(
        "Quiet startup",
        "quietStartup",
        ["true", "header", "false"],
        False,
        _quiet_store,
        _quiet_show,
        "Disable verbose printing at startup (header: keep only the startup header)",
    ),
    Setting(
        "Default project trust",
        "defaultProjectTrust",
        list(TRUST_LABELS.values()),
        "ask",
        lambda label: next(k for k, v in TRUST_LABELS.items() if v == label),
        lambda value: TRUST_LABELS.get(str(value), "Ask"),
        "Fallback behavior when no extension or saved trust decision decides project trust",
    ),
    Setting(
        "Double-escape action",
        "doubleEscapeAction",
        ["tree", "fork", "none"],
        "tree",
        description="Action when pressing Escape twice with empty editor",
    ),
    Setting(
        "Tree filter mode",
        "treeFilterMode",
        ["default", "no-tools", "user-only", "labeled-only", "all"],
        "default",
        description="Default filter when opening /tree",
    ),
    Setting(
        "TUI mode",
        "tuiMode",
        ["regular", "fullscreen"],
        "fullscreen",
        description="Interface layout; regular mode uses the terminal's normal scrollback",
    ),
    Setting(
        "Fullscreen exit output",
        "fullscreenExitOutput",
        ["transcript", "resume-hint"],
        "transcript",
        description="Print the transcript or only a session resume hint when exiting fullscreen mode",
    ),
    Setting(
        "Fullscreen scrollbar",
        "fullscreenScrollbar",
        ["auto", "always", "hidden"],
        "auto",
        description="Scrollbar behavior in fullscreen mode; has no effect in regular mode",
    ),
    _b(
        "Fullscreen copy on select",
        "fullscreenCopyOnSelect",
        True,
        "Automatically copy selected text in fullscreen mode; disable to copy selections with Ctrl+X",
    ),
    Setting(
        "Fullscreen wheel scrolling",
        "fullscreenWheelScrollLines",
        ["auto", "1", "2", "3", "5", "10"],
        "auto",
        _wheel_store,
        _wheel_show,
        "Lines per mouse-wheel event in fullscreen mode; 'auto' speeds up fast wheel spins where the terminal does not",
    ),
    Setting("Theme", "theme", [], "dark", description="Color theme for the interface"),
    _b(
        "Auto-resize images",
        "images.autoResize",
        True,
        "Resize large images to 2000x2000 max for better model compatibility",
    ),
    _b("Block images", "images.blockImages", False, "Prevent images from being sent to LLM providers"),
    _b("Skill commands", "enableSkillCommands", True, "Register skills as /skill:name commands"),
    # display settings (display.py); the editor's unset padding is this mode's 1 inside its border
    Setting(
        "Editor padding",
        "editorPaddingX",
        ["0", "1", "2", "3"],
        1,
        int,
        description="Horizontal padding for input editor (0-3)",
    ),
    Setting(
        "Output padding",
        "outputPad",
        ["0", "1"],
        1,
        int,
        description="Horizontal padding for messages, tool output, and command output",
    ),
    Setting(
        "Autocomplete max items",
        "autocompleteMaxVisible",
        ["3", "5", "7", "10", "15", "20"],
        5,
        int,
        description="Max visible items in autocomplete dropdown (3-20)",
    ),
    _b(
        "Terminal progress",
        "terminal.showTerminalProgress",
        False,
        "Show OSC 9;4 progress indicators in the terminal tab bar",
    ),
]
DISPLAY_KEYS = {
    "editorPaddingX",
    "outputPad",
    "autocompleteMaxVisible",
    "terminal.showTerminalProgress",
    "fullscreenScrollbar",
    "fullscreenWheelScrollLines",
}


async def _apply(app: PiApp, setting: Setting, value: Any) -> bool:
    """Settings the running session holds go through its setters (they persist too). False
    when the change is refused: ``tuiMode`` while a dialog is open (upstream's words said,
    nothing stored, as upstream's settings list puts the old value back)."""
    session = app.session
    if setting.key == "tuiMode":
        from pi_rpc.modes.interactive.tui_mode import REFUSED_WITH_DIALOG

        if not await app.switch_tui_mode(str(value)):
            await app.say(REFUSED_WITH_DIALOG)
            return False
    if setting.key == "compaction.enabled":
        session.set_auto_compaction(bool(value))
    elif setting.key == "steeringMode":
        session.set_steering_mode(str(value))
    elif setting.key == "followUpMode":
        session.set_follow_up_mode(str(value))
    else:
        session.settings.set_global(setting.key, value)
    if setting.key == "theme":
        app.apply_theme_setting()
    if setting.key in DISPLAY_KEYS:
        from pi_rpc.modes.interactive import display

        display.apply(app)
    return True


@command("settings", "Open settings")
async def settings(app: PiApp, args: str) -> None:
    """Upstream's settings list: each row with its value and description; Enter opens the row's
    values with the current one marked. ``tuiMode`` switches the running app too (upstream's
    "TUI mode: <mode>" notice)."""
    current = app.session.settings
    row = 0
    while True:
        rows = [(f"{s.label}: {s.show(current.get(s.key, s.default))}", s) for s in SETTINGS]
        chosen: Setting | None = await app.pick(
            "Settings", rows, initial=row, descriptions=[s.description for s in SETTINGS]
        )
        if chosen is None:
            return
        row = SETTINGS.index(chosen)
        shown = chosen.show(current.get(chosen.key, chosen.default))
        values = _values(app, chosen, shown)
        picked = await app.pick(
            chosen.label, [(v, v) for v in values], message=chosen.description or None, current=shown
        )
        if picked is None:
            continue
        if not await _apply(app, chosen, chosen.store(picked)):
            continue
        note = f" ({chosen.note})" if chosen.note and picked != shown else ""
        await app.say(f"{chosen.label}: {picked}{note}")


def _key(model: Mapping[str, Any]) -> str:
    return f"{model['provider']}/{model['id']}"


async def pick_scope(
    app: PiApp, models: Sequence[Mapping[str, Any]], chosen: set[str]
) -> tuple[list[str], bool] | None:
    """The scoped-models picker: Enter toggles a model; returns the chosen ``"provider/id"`` keys
    in ``models``' order and whether "Save" was picked; None when dismissed. Shared by ``pi``
    (this process's scope) and ``pi attach`` (the server's, ``set_scoped_models``)."""
    chosen = set(chosen)
    cursor = 0
    while True:
        options: list[tuple[str, Any]] = [
            ("Save", "save"),
            ("Use for this session", "session"),
            ("Clear (cycle through all models)", "clear"),
        ]
        options += [(f"[{'x' if _key(m) in chosen else ' '}] {_key(m)}", _key(m)) for m in models]
        picked = await app.pick("Scoped models (Enter toggles)", options, initial=cursor)
        if picked is None:
            return None
        if picked == "clear":
            chosen.clear()
            continue
        if picked in ("save", "session"):
            return [_key(m) for m in models if _key(m) in chosen], picked == "save"
        chosen.symmetric_difference_update({picked})
        cursor = next(i for i, (_, value) in enumerate(options) if value == picked)


def say_scope(keys: list[str], saved: bool) -> str:
    """The notice after the picker."""
    return f"Scoped models{' (saved)' if saved else ''}: {', '.join(keys) or 'all models'}"


@command("scoped-models", "Configure the models used by interactive cycling")
async def scoped_models(app: PiApp, args: str) -> None:
    """Enter toggles a model; "Save" keeps the choice in settings.json (``enabledModels``) as
    upstream's Ctrl+S does, "Use for this session" only changes this process."""
    session = app.session
    models = session.get_available_models()
    result = await pick_scope(app, models, {_key(m) for m in session.models.scoped_models})
    if result is None:
        return
    keys, save = result
    scoped = [m for m in models if _key(m) in keys]
    session.models.set_scoped_models(scoped)
    if save:
        if scoped:
            session.settings.set_global("enabledModels", keys)
        else:
            session.settings.unset_global("enabledModels")
    await app.say(say_scope(keys, save))
