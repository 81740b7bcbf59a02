"""``pi config`` in a terminal: upstream's resource configuration screen as a Textual app.

Every resource the configured packages offer (extensions, skills, prompt templates, themes) and
every top-level one (settings entries, the conventional folders, the built-in extensions) is
listed under its group as upstream's screen groups them (``config_items``), with a checkbox; Space (or Enter, or a click) toggles it and writes the
``+path``/``-path`` entry of the package's settings object form at once, as upstream's TUI does;
Tab switches between the global settings and the project's overrides (trusted projects only),
where Space cycles upstream's three states — inherit (dimmed global value), load, unload
(``pi_rpc.packages.project_override``), each item showing its state; ``q``/Escape closes.
Imported only by ``pi config`` on a terminal (Textual is loaded then, never at startup)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.widgets import Footer, SelectionList, Static
from textual.widgets.selection_list import Selection

if TYPE_CHECKING:
    from pi_rpc.packages.project_override import ProjectOverrides

KINDS = ("extensions", "skills", "prompts", "themes")


class ConfigApp(App[None]):
    """The screen; ``manager`` is a :class:`pi_rpc.packages.manager.PackageManager`."""

    BINDINGS = [
        Binding("tab", "switch_scope", "Switch scope", priority=True),
        Binding("q", "quit", "Quit"),
        Binding("escape", "quit", "Quit", show=False),
    ]

    def __init__(self, manager: Any, *, write_scope: str = "user") -> None:
        super().__init__()
        self.manager = manager
        self.write_scope = write_scope
        self.items: list[Any] = []  # pi_rpc.modes.config_items.ConfigItem
        self.errors: list[str] = []
        self.overrides: ProjectOverrides | None = None  # project mode

    def compose(self) -> ComposeResult:
        yield Static(id="title")
        yield SelectionList[int](id="resources")
        yield Static(id="status")
        yield Footer()

    def on_mount(self) -> None:
        self.reload()

    def _title(self) -> str:
        where = "project overrides (.pi/settings.json)" if self.write_scope == "project" else "global settings"
        switch = "  Tab: switch scope" if self.manager.project_trusted else ""
        return f"Resource configuration: {where}{switch}"

    def reload(self) -> None:
        from pi_rpc.modes.config_items import config_items, project_overrides, state_suffix

        self.items, self.errors = config_items(self.manager)
        if self.write_scope == "project" and self.overrides is None:
            self.overrides = project_overrides(self.manager)
        listing = self.query_one("#resources", SelectionList)
        listing.clear_options()
        selections = []
        for index, item in enumerate(self.items):
            label = f"{item.group}  {item.kind[:-1]}: {item.display}"
            suffix = state_suffix(self.overrides, item) if self.overrides and self.write_scope == "project" else ""
            selections.append(Selection(f"{label}  {suffix}" if suffix else label, index, item.enabled))
        listing.add_options(selections)
        listing.focus()
        if selections:
            listing.highlighted = 0
        self.query_one("#title", Static).update(self._title())
        status = "\n".join(self.errors) if self.errors else ("" if self.items else "No resources.")
        self.query_one("#status", Static).update(status)

    def on_selection_list_selection_toggled(self, message: SelectionList.SelectionToggled[int]) -> None:
        from pi_rpc.packages.records import PackageError

        index = int(message.selection.value)
        item = self.items[index]
        enabled = index in message.selection_list.selected
        try:
            if self.write_scope == "project":
                self._cycle(index, item, message.selection_list)
                return
            item.toggle(self.manager, enabled, item.scope)
            self.query_one("#status", Static).update(f"{'Enabled' if enabled else 'Disabled'} {item.path}")
        except PackageError as exc:
            self.query_one("#status", Static).update(f"Error: {exc}")

    def _cycle(self, index: int, item: Any, listing: SelectionList[int]) -> None:
        """Project mode: the next of upstream's three states. The item stays where it is (as
        on upstream's screen) showing its state and whether it now loads in the project."""
        from pi_rpc.modes.config_items import project_overrides, state_suffix

        if self.overrides is None:
            self.overrides = project_overrides(self.manager)
        state = self.overrides.next_state(item.kind, item.resource, item.package)
        if not self.overrides.set_state(item.kind, item.resource, item.package, state):
            return
        item.enabled = item.resource.enabled = self.overrides.effective(item.kind, item.resource, state)
        suffix = state_suffix(self.overrides, item)
        label = f"{item.group}  {item.kind[:-1]}: {item.display}"
        listing.replace_option_prompt_at_index(index, f"{label}  {suffix}" if suffix else label)
        # select/deselect post no SelectionToggled, so this does not cycle again
        (listing.select if item.enabled else listing.deselect)(index)
        self.query_one("#status", Static).update(f"Project {state}: {item.path}")

    def action_switch_scope(self) -> None:
        if not self.manager.project_trusted:
            self.query_one("#status", Static).update("Project is not trusted: only global settings can be edited.")
            return
        self.write_scope = "user" if self.write_scope == "project" else "project"
        self.overrides = None  # the global settings may have changed meanwhile
        self.reload()


def run_config_ui(manager: object, *, local: bool) -> int:
    ConfigApp(manager, write_scope="project" if local else "user").run()
    return 0
