"""``pi config`` in a terminal: upstream's resource configuration screen as a Textual app.

Every resource the configured packages offer (extensions, skills, prompt templates, themes) and
every top-level one (settings entries, the conventional folders, the built-in extensions) is
listed under upstream's group and type headers (``config_items``), drawn as upstream draws them
(``config_list``: ``[x]``/``[ ]`` in global mode; ``[+]`` load, ``[-]`` unload and the dimmed
inherited value in project mode). The keys are upstream's: Up/Down (and Page Up/Down) move
between items, Space or Enter toggles one and writes the ``+path``/``-path`` entry at once,
Tab switches between the global settings and the project's overrides (trusted projects only)
where Space cycles the three states (``pi_rpc.packages.project_override``), typing filters
the list by name, type or path, Escape or Ctrl+C closes. As upstream, the global mode lists what
the global settings alone resolve, the project mode what the trusted project resolves.
Imported only by ``pi config`` on a terminal (Textual is loaded then, never at startup)."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from rich.console import Group
from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.widget import Widget

from pi_rpc.modes.config_list import ResourceList, Scope, ScreenWindow, build_rows

if TYPE_CHECKING:
    from rich.console import RenderableType

    from pi_rpc.modes.config_items import ConfigItem
    from pi_rpc.packages.project_override import ProjectOverrides


class ResourceView(Widget, can_focus=True):
    """The whole screen: header, search field, resource list (``config_list.ResourceList``)."""

    DEFAULT_CSS = "ResourceView { width: 100%; height: 100%; }"

    def __init__(self, config: ConfigApp) -> None:
        super().__init__(id="resources")
        self.config = config
        self.window = ScreenWindow()

    def render(self) -> RenderableType:
        width, height = self.size.width or 80, self.size.height or 24
        lines = self.config.list.lines(width, height, self.config.state_of, self.config.inherited_of)
        return Group(*self.window.visible(lines, width, height))

    def on_key(self, event: events.Key) -> None:
        event.stop()
        event.prevent_default()
        self.config.handle_key(event.key, event.character)
        self.refresh()


class ConfigApp(App[None]):
    """The screen; ``manager`` is a :class:`pi_rpc.packages.manager.PackageManager`."""

    # Tab must reach the list (not move the focus); Ctrl+C closes, as upstream's.
    BINDINGS = [
        Binding("tab", "switch_scope", "Switch scope", show=False, priority=True),
        Binding("ctrl+c", "quit", "Quit", show=False, priority=True),
    ]

    def __init__(self, manager: Any, *, write_scope: str = "user") -> None:
        # the terminal's own colours, as upstream's default theme draws with them
        super().__init__(ansi_color=True)
        self.manager = manager
        self.scope: Scope = "project" if write_scope == "project" else "global"
        self.items: list[ConfigItem] = []
        self.errors: list[str] = []
        self.overrides: ProjectOverrides | None = None
        self.list = ResourceList([], project_available=bool(manager.project_trusted))
        self.loaded = False

    def compose(self) -> ComposeResult:
        yield ResourceView(self)

    def load(self) -> list[str]:
        """Resolve the current scope's resources; the package install warnings."""
        from pi_rpc.modes.config_items import config_items, global_items, project_overrides

        if self.scope == "project":
            self.items, self.errors = config_items(self.manager)
            self.overrides = project_overrides(self.manager)
        else:
            self.items, self.errors = global_items(self.manager)
            self.overrides = None
        self.list.set_rows(build_rows(self.items), self.scope)
        self.loaded = True
        return self.errors

    def on_mount(self) -> None:
        self.theme = "ansi-dark"
        if not self.loaded:
            self.load()
        self.query_one(ResourceView).focus()

    # ------------------------------------------------------------------ the list's view

    def state_of(self, item: ConfigItem) -> str:
        overrides = self.overrides
        return overrides.state(item.kind, item.resource, item.package) if overrides is not None else "inherit"

    def inherited_of(self, item: ConfigItem) -> bool:
        overrides = self.overrides
        return overrides is not None and overrides.is_inherited_global(item.kind, item.resource)

    # ------------------------------------------------------------------ keys

    def handle_key(self, key: str, character: str | None) -> None:
        """Upstream's ``ResourceList.handleInput`` order: moves, close, toggle, then search."""
        lst = self.list
        visible = max(5, self.size.height - 8)
        if key == "up":
            lst.move(-1)
        elif key == "down":
            lst.move(1)
        elif key == "pageup":
            lst.page(-1, visible)
        elif key == "pagedown":
            lst.page(1, visible)
        elif key == "escape":
            self.exit()
        elif key in ("space", "enter"):
            self.toggle()
        else:
            lst.edit(key, character)

    def toggle(self) -> None:
        """Global mode: the user's resource on/off; project mode: its next state."""
        from pi_rpc.packages.records import PackageError

        item = self.list.current
        if item is None or (self.scope == "global" and item.scope != "user"):
            return
        try:
            if self.scope == "project":
                self._cycle(item)
            else:
                item.toggle(self.manager, not item.enabled, item.scope)
        except PackageError as exc:
            # upstream's screen has no place for it; ours shows it in a notification
            self.notify(str(exc), severity="error")

    def _cycle(self, item: ConfigItem) -> None:
        overrides = self.overrides
        if overrides is None:
            return
        state = overrides.next_state(item.kind, item.resource, item.package)
        if overrides.set_state(item.kind, item.resource, item.package, state):
            item.enabled = item.resource.enabled = overrides.effective(item.kind, item.resource, state)

    def action_switch_scope(self) -> None:
        if not self.manager.project_trusted:
            return  # upstream offers no project mode then: Tab does nothing
        self.scope = "global" if self.scope == "project" else "project"
        # resolved again: a toggle in the other mode may have changed what is inherited
        self.load()
        self.query_one(ResourceView).refresh()


def run_config_ui(manager: object, *, local: bool) -> int:
    app = ConfigApp(manager, write_scope="project" if local else "user")
    for warning in app.load():
        print(f"Warning: {warning}", file=sys.stderr)
    app.run()
    return 0
