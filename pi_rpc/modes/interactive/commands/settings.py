"""``/settings`` (upstream's general settings, written to the global settings.json under
upstream's keys; hide thinking, quiet startup and skill commands are only stored; the display
settings a Textual app can express restyle the app at once, display.py) and ``/scoped-models``
(the models Ctrl+P cycles through, saved as ``enabledModels``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
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
    offers (as upstream shows them) and how a shown value is stored."""

    label: str
    key: str
    values: list[str]
    default: Any
    store: Callable[[str], Any] = str
    show: Callable[[Any], str] = str


def _bool_show(value: Any) -> str:
    return "true" if value else "false"


def _bool_store(value: str) -> bool:
    return value == "true"


def _quiet_show(value: Any) -> str:
    return "header" if value == "header" else _bool_show(value)


def _quiet_store(value: str) -> Any:
    return "header" if value == "header" else _bool_store(value)


def _theme_values(app: PiApp) -> list[str]:
    from pi_rpc.modes.interactive.theme import available_themes

    options = app.session.options
    return available_themes(options.agent_dir, str(options.cwd), options.project_trusted, app.session.settings)


SETTINGS: list[Setting] = [
    Setting("Auto-compact", "compaction.enabled", BOOL, True, _bool_store, _bool_show),
    Setting("Steering mode", "steeringMode", QUEUE, "one-at-a-time"),
    Setting("Follow-up mode", "followUpMode", QUEUE, "one-at-a-time"),
    Setting("Transport", "transport", ["sse", "websocket", "websocket-cached", "auto"], "auto"),
    Setting("Hide thinking", "hideThinkingBlock", BOOL, False, _bool_store, _bool_show),
    Setting("Quiet startup", "quietStartup", ["true", "header", "false"], False, _quiet_store, _quiet_show),
    Setting(
        "Default project trust",
        "defaultProjectTrust",
        list(TRUST_LABELS.values()),
        "ask",
        lambda label: next(k for k, v in TRUST_LABELS.items() if v == label),
        lambda value: TRUST_LABELS.get(str(value), "Ask"),
    ),
    Setting("Double-escape action", "doubleEscapeAction", ["tree", "fork", "none"], "tree"),
    Setting("Theme", "theme", [], "dark"),
    Setting("Auto-resize images", "images.autoResize", BOOL, True, _bool_store, _bool_show),
    Setting("Block images", "images.blockImages", BOOL, False, _bool_store, _bool_show),
    Setting("Skill commands", "enableSkillCommands", BOOL, True, _bool_store, _bool_show),
    # display settings (display.py); the editor's unset padding is this mode's 1 inside its border
    Setting("Editor padding", "editorPaddingX", ["0", "1", "2", "3"], 1, int),
    Setting("Output padding", "outputPad", ["0", "1"], 1, int),
    Setting("Autocomplete max items", "autocompleteMaxVisible", ["3", "5", "7", "10", "15", "20"], 5, int),
    Setting("Terminal progress", "terminal.showTerminalProgress", BOOL, False, _bool_store, _bool_show),
]
DISPLAY_KEYS = {"editorPaddingX", "outputPad", "autocompleteMaxVisible", "terminal.showTerminalProgress"}


async def _apply(app: PiApp, setting: Setting, value: Any) -> None:
    """Settings the running session holds go through its setters (they persist too)."""
    session = app.session
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


@command("settings", "Open settings")
async def settings(app: PiApp, args: str) -> None:
    current = app.session.settings
    while True:
        rows = [(f"{s.label}: {s.show(current.get(s.key, s.default))}", s) for s in SETTINGS]
        chosen: Setting | None = await app.pick("Settings", rows)
        if chosen is None:
            return
        values = chosen.values or _theme_values(app)
        shown = chosen.show(current.get(chosen.key, chosen.default))
        picked = await app.pick(
            chosen.label, [(v, v) for v in values], initial=values.index(shown) if shown in values else 0
        )
        if picked is None:
            continue
        await _apply(app, chosen, chosen.store(picked))
        await app.say(f"{chosen.label}: {picked}")


def _key(model: Mapping[str, Any]) -> str:
    return f"{model['provider']}/{model['id']}"


@command("scoped-models", "Configure the models used by interactive cycling")
async def scoped_models(app: PiApp, args: str) -> None:
    """Enter toggles a model; "Save" keeps the choice in settings.json (``enabledModels``) as
    upstream's Ctrl+S does, "Use for this session" only changes this process."""
    session = app.session
    models = session.get_available_models()
    chosen = {_key(m) for m in session.models.scoped_models}
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
            return
        if picked == "clear":
            chosen.clear()
            continue
        if picked in ("save", "session"):
            break
        chosen.symmetric_difference_update({picked})
        cursor = next(i for i, (_, value) in enumerate(options) if value == picked)
    scoped = [m for m in models if _key(m) in chosen]
    session.models.set_scoped_models(scoped)
    if picked == "save":
        if scoped:
            session.settings.set_global("enabledModels", [_key(m) for m in scoped])
        else:
            session.settings.unset_global("enabledModels")
    names = ", ".join(_key(m) for m in scoped) or "all models"
    await app.say(f"Scoped models{' (saved)' if picked == 'save' else ''}: {names}")
