"""The resource list of ``pi config``'s screen, without Textual: upstream's ``ResourceList`` and
``ConfigSelectorHeader`` (``config-selector.js``) — the rows (group headers, type subheaders,
items), the selection that only stops on items, the search field that filters them, and the
screen's lines as upstream draws them:

    ────────────────────
    Global Resources                  tab switch mode · space toggle · esc close
    ~/.pi/agent/settings.json

    > <search>

      ../pkg (user)
        Prompts
    >     [x] a.md

Global mode marks what loads with ``[x]``/``[ ]``; project mode shows upstream's three states:
``[+]`` project load, ``[-]`` project unload, and a dimmed ``[x]``/``[ ]`` for an inherited
global value, with the state as a suffix. ``pi_rpc.modes.packages_config_ui`` draws these lines
and writes the toggles."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from rich.cells import cell_len
from rich.text import Text

if TYPE_CHECKING:
    from pi_rpc.modes.config_items import ConfigItem

KIND_LABELS = {"extensions": "Extensions", "skills": "Skills", "prompts": "Prompts", "themes": "Themes"}
# upstream's roles under its default (the terminal's) theme: accent magenta, success green,
# warning yellow, border blue, muted and dim both dim
ACCENT, SUCCESS, WARNING, BORDER, MUTED, DIM = "magenta", "green", "yellow", "blue", "dim", "dim"
# lines around the list: top spacer, border, spacer, two header lines, spacer, bottom spacer, border
CHROME = 8

Scope = Literal["global", "project"]
# (kind, resource, package) -> "inherit" | "load" | "unload"; and whether it is a global one
StateOf = Callable[["ConfigItem"], str]
InheritedOf = Callable[["ConfigItem"], bool]


@dataclass
class Row:
    """One line of the list: a group header, a type subheader, or an item."""

    kind: Literal["group", "subgroup", "item"]
    label: str
    scope: str  # the group's scope (user/project): project mode dims the user's
    item: ConfigItem | None = None


def build_rows(items: list[ConfigItem]) -> list[Row]:
    """Rows of ``items`` (already in display order, one group's items together)."""
    rows: list[Row] = []
    group: str | None = None
    kind: str | None = None
    for item in items:
        if item.group != group:
            group, kind = item.group, None
            rows.append(Row("group", item.group, item.scope))
        if item.kind != kind:
            kind = item.kind
            rows.append(Row("subgroup", KIND_LABELS[item.kind], item.scope))
        rows.append(Row("item", item.display, item.scope, item))
    return rows


@dataclass
class ResourceList:
    """The list's state: the rows of the current scope, the search query and cursor, the
    selected row (always an item when there is one)."""

    rows: list[Row]
    scope: Scope = "global"
    project_available: bool = True
    query: str = ""
    cursor: int = 0
    filtered: list[Row] = field(default_factory=list)
    selected: int = 0

    def __post_init__(self) -> None:
        self.filter()

    def set_rows(self, rows: list[Row], scope: Scope) -> None:
        self.rows, self.scope = rows, scope
        self.filter()

    # ------------------------------------------------------------------ selection

    @property
    def current(self) -> ConfigItem | None:
        row = self.filtered[self.selected] if 0 <= self.selected < len(self.filtered) else None
        return row.item if row is not None else None

    def _select_first(self) -> None:
        self.selected = next((i for i, r in enumerate(self.filtered) if r.kind == "item"), 0)

    def move(self, direction: int) -> None:
        """Up/down: the next item that way; headers are skipped, the ends stop."""
        index = self.selected + direction
        while 0 <= index < len(self.filtered):
            if self.filtered[index].kind == "item":
                self.selected = index
                return
            index += direction

    def page(self, direction: int, visible: int) -> None:
        """Page up/down: ``visible`` rows that way, then the nearest item inwards."""
        if direction < 0:
            target = max(0, self.selected - visible)
            while target < len(self.filtered) and self.filtered[target].kind != "item":
                target += 1
            if target < len(self.filtered):
                self.selected = target
        else:
            target = min(len(self.filtered) - 1, self.selected + visible)
            while target >= 0 and self.filtered[target].kind != "item":
                target -= 1
            if target >= 0:
                self.selected = target

    # ------------------------------------------------------------------ search

    def filter(self) -> None:
        """Items whose name, type or path contains the query (any case), under their headers."""
        query = self.query.strip().lower()
        if not query:
            self.filtered = list(self.rows)
            self._select_first()
            return
        out: list[Row] = []
        group: Row | None = None
        subgroup: Row | None = None
        for row in self.rows:
            if row.kind == "group":
                group, subgroup = row, None
                continue
            if row.kind == "subgroup":
                subgroup = row
                continue
            item = row.item
            assert item is not None
            if not any(query in text.lower() for text in (item.display, item.kind, item.path)):
                continue
            if group is not None and group not in out:
                out.append(group)
            if subgroup is not None and subgroup not in out:
                out.append(subgroup)
            out.append(row)
        self.filtered = out
        self._select_first()

    def edit(self, key: str, character: str | None) -> bool:
        """A key for the search field (upstream's ``Input``): typing, Backspace, Delete, the
        cursor keys. Whether the key was the field's."""
        before = self.query
        if key == "backspace":
            if self.cursor > 0:
                self.query = self.query[: self.cursor - 1] + self.query[self.cursor :]
                self.cursor -= 1
        elif key == "delete":
            self.query = self.query[: self.cursor] + self.query[self.cursor + 1 :]
        elif key == "left":
            self.cursor = max(0, self.cursor - 1)
        elif key == "right":
            self.cursor = min(len(self.query), self.cursor + 1)
        elif key in ("home", "ctrl+a"):
            self.cursor = 0
        elif key in ("end", "ctrl+e"):
            self.cursor = len(self.query)
        elif key == "ctrl+u":
            self.query, self.cursor = self.query[self.cursor :], 0
        elif character is not None and character.isprintable() and len(character) == 1:
            self.query = self.query[: self.cursor] + character + self.query[self.cursor :]
            self.cursor += 1
        else:
            return False
        # cursor keys leave the query as it is and must not move the selection
        if self.query != before:
            self.filter()
        return True

    # ------------------------------------------------------------------ drawing

    def lines(self, width: int, height: int, state_of: StateOf, inherited_of: InheritedOf) -> list[Text]:
        """All the screen's lines at ``width`` x ``height`` (the list shows ``height`` − 8
        rows at most; the lines can still be more than ``height``: ``ScreenWindow``)."""
        border = Text("─" * max(1, width), style=BORDER)
        out = [Text(), border, Text(), *self._header(width), Text()]
        out.append(self._search_line(width))
        out.append(Text())
        out.extend(self._list_lines(width, max(5, height - CHROME), state_of, inherited_of))
        out.extend([Text(), border.copy()])
        return out

    def _header(self, width: int) -> list[Text]:
        project = self.scope == "project"
        title = Text("Project Local Resources" if project else "Global Resources", style="bold")
        hint = Text()
        sep = (" · ", MUTED)
        if self.project_available:
            hint.append_tokens([("tab", DIM), (" switch mode", MUTED), sep])
        action = " cycle inherit/+/-" if project else " toggle"
        hint.append_tokens([("space", DIM), (action, MUTED), sep, ("esc", DIM), (" close", MUTED)])
        spacing = max(1, width - title.cell_len - hint.cell_len)
        first = Text.assemble(title, " " * spacing, hint)
        where = ".pi/settings.json · inherited global resources are dimmed" if project else "~/.pi/agent/settings.json"
        return [_truncate(first, width, ""), _truncate(Text(where, style=MUTED), width, "")]

    def _search_line(self, width: int) -> Text:
        line = Text("> ")
        line.append(self.query[: self.cursor])
        line.append(self.query[self.cursor : self.cursor + 1] or " ", style="reverse")
        line.append(self.query[self.cursor + 1 :])
        return _truncate(line, width, "")

    def _list_lines(self, width: int, visible: int, state_of: StateOf, inherited_of: InheritedOf) -> list[Text]:
        if not self.filtered:
            return [Text("  No resources found", style=MUTED)]
        total = len(self.filtered)
        start = max(0, min(self.selected - visible // 2, total - visible))
        end = min(start + visible, total)
        out: list[Text] = []
        project = self.scope == "project"
        for index in range(start, end):
            row = self.filtered[index]
            inherited_group = project and row.scope == "user"
            if row.kind == "group":
                label = f"{row.label}{' · inherited global' if inherited_group else ''}"
                style = f"bold {DIM if inherited_group else ACCENT}"
                out.append(_truncate(Text.assemble("  ", (label, style)), width, ""))
            elif row.kind == "subgroup":
                out.append(_truncate(Text.assemble("    ", (row.label, DIM if inherited_group else MUTED)), width, ""))
            else:
                assert row.item is not None
                out.append(_truncate(self._item_line(row.item, index, state_of, inherited_of), width, "..."))
        if start > 0 or end < total:
            items = sum(1 for r in self.filtered if r.kind == "item")
            position = sum(1 for r in self.filtered[: self.selected] if r.kind == "item") + 1
            out.append(Text(f"  ({position}/{items})", style=DIM))
        return out

    def _item_line(self, item: ConfigItem, index: int, state_of: StateOf, inherited_of: InheritedOf) -> Text:
        selected = index == self.selected
        state = state_of(item) if self.scope == "project" else "inherit"
        inherited = self.scope == "project" and inherited_of(item)
        dimmed = inherited and state == "inherit"
        box = "[x]" if item.enabled else "[ ]"
        if self.scope == "project":
            mark = {"load": ("[+]", SUCCESS), "unload": ("[-]", WARNING)}.get(state, (box, DIM))
        else:
            mark = (box, SUCCESS if item.enabled else DIM)
        name_style = DIM if dimmed else ("bold" if selected else "")
        line = Text.assemble("> " if selected else "  ", "    ", mark, " ", (item.display, name_style))
        if state != "inherit":
            line.append(f"  project {state}", style=MUTED)
        elif inherited:
            line.append("  inherited global", style=DIM)
        return line


@dataclass
class ScreenWindow:
    """Which lines a terminal of ``height`` rows shows, as upstream's inline screen does:
    lines past the bottom scroll the first ones away for good, so after the list shrinks the
    screen still starts where it had scrolled to (a resize draws it afresh)."""

    top: int = 0
    size: tuple[int, int] = (0, 0)

    def visible(self, lines: list[Text], width: int, height: int) -> list[Text]:
        if (width, height) != self.size:
            self.size, self.top = (width, height), 0
        self.top = max(self.top, len(lines) - height)
        return lines[self.top : self.top + height]


def _truncate(text: Text, width: int, ellipsis: str) -> Text:
    """Upstream's ``truncateToWidth``: cut to ``width`` cells, ending with ``ellipsis``."""
    if text.cell_len <= width:
        return text
    keep = max(0, width - cell_len(ellipsis))
    cut = text.copy()
    cut.truncate(keep)
    if ellipsis:
        cut.append(ellipsis)
    return cut
