"""``pi config`` in a terminal: upstream's resource configuration screen as a Textual app.

Every resource the configured packages offer (extensions, skills, prompt templates, themes) is
listed under its package with a checkbox; Space (or Enter, or a click) toggles it and writes the
``+path``/``-path`` entry of the package's settings object form at once, as upstream's TUI does;
Tab switches between the global settings and the project's overrides (trusted projects only;
a user package toggled there gets an ``autoload: false`` delta entry); ``q``/Escape closes.
Imported only by ``pi config`` on a terminal (Textual is loaded then, never at startup)."""

from __future__ import annotations

import os
from typing import Any

from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.widgets import Footer, SelectionList, Static
from textual.widgets.selection_list import Selection

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
        self.items: list[tuple[str, Any]] = []
        self.errors: list[str] = []

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
        resolved = self.manager.resolve(install_missing=True)
        self.errors = [failure.warning() for failure in resolved.install_failures]
        self.items = [(kind, r) for kind in KINDS for r in resolved.of(kind)]
        listing = self.query_one("#resources", SelectionList)
        listing.clear_options()
        selections = []
        for index, (kind, resource) in enumerate(self.items):
            rel = os.path.relpath(resource.path, resource.base_dir or os.path.dirname(resource.path))
            label = f"{resource.source} ({resource.scope})  {kind[:-1]}: {rel}"
            selections.append(Selection(label, index, resource.enabled))
        listing.add_options(selections)
        listing.focus()
        if selections:
            listing.highlighted = 0
        self.query_one("#title", Static).update(self._title())
        status = "\n".join(self.errors) if self.errors else ("" if self.items else "No package resources.")
        self.query_one("#status", Static).update(status)

    def on_selection_list_selection_toggled(self, message: SelectionList.SelectionToggled[int]) -> None:
        from pi_rpc.packages.records import PackageError
        from pi_rpc.packages.resource_toggle import toggle_package_resource

        kind, resource = self.items[int(message.selection.value)]
        enabled = int(message.selection.value) in message.selection_list.selected
        try:
            scope = "project" if self.write_scope == "project" else resource.scope
            toggle_package_resource(self.manager, kind, resource, enabled, scope)
            resource.enabled = enabled
            self.query_one("#status", Static).update(f"{'Enabled' if enabled else 'Disabled'} {resource.path}")
        except PackageError as exc:
            self.query_one("#status", Static).update(f"Error: {exc}")

    def action_switch_scope(self) -> None:
        if not self.manager.project_trusted:
            self.query_one("#status", Static).update("Project is not trusted: only global settings can be edited.")
            return
        self.write_scope = "user" if self.write_scope == "project" else "project"
        self.reload()


def run_config_ui(manager: object, *, local: bool) -> int:
    ConfigApp(manager, write_scope="project" if local else "user").run()
    return 0
