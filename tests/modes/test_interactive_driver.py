"""The interactive mode's terminal drivers (terminal_driver.py): the input thread sleeps while
nothing happens (Textual's woke ten times a second: an idle pi's only CPU, issue 37) and still
reads keys, times out a lone Escape and stops when asked. The loop runs here on a real pty."""

from __future__ import annotations

import os
import selectors
import shutil
import sys
import threading
import time
import tty
from typing import Any

import pytest
from textual import events
from textual._xterm_parser import XTermParser

from pi_rpc.modes.interactive.terminal_driver import (
    WakingEvent,
    parser_timeout,
    read_input,
)

from .interactive_support import Tmux


class Loop:
    """``read_input`` in a thread over a pty, counting its ``select`` calls."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)  # as the driver sets the terminal: bytes arrive unbuffered
        self.exit_event = WakingEvent()
        self.events: list[Any] = []
        self.selects = 0
        real_select = selectors.SelectSelector.select

        def counting_select(selector: Any, timeout: float | None = None) -> Any:
            self.selects += 1
            return real_select(selector, timeout)

        monkeypatch.setattr(selectors.SelectSelector, "select", counting_select)
        self.thread = threading.Thread(
            target=read_input, args=(self.slave, self.exit_event, XTermParser(), self.events.append), daemon=True
        )
        self.thread.start()

    def keys(self) -> list[str]:
        return [event.key for event in self.events if isinstance(event, events.Key)]

    def wait_keys(self, count: int, timeout: float = 5.0) -> list[str]:
        deadline = time.monotonic() + timeout
        while len(self.keys()) < count and time.monotonic() < deadline:
            time.sleep(0.01)
        return self.keys()

    def close(self) -> None:
        self.exit_event.set()
        self.thread.join(5)
        os.close(self.master)
        os.close(self.slave)


@pytest.fixture
def loop(monkeypatch: pytest.MonkeyPatch) -> Any:
    running = Loop(monkeypatch)
    yield running
    running.close()


def test_an_idle_input_thread_sleeps_until_a_key_arrives(loop: Loop) -> None:
    time.sleep(0.6)  # Textual's loop would have selected 6 times by now
    assert loop.selects <= 1
    os.write(loop.master, b"a")
    assert loop.wait_keys(1) == ["a"]
    time.sleep(0.4)
    assert loop.selects <= 3  # the key woke it once; it went back to sleep


def test_a_lone_escape_is_still_reported_after_the_parser_s_timeout(loop: Loop) -> None:
    os.write(loop.master, b"\x1b")
    assert loop.wait_keys(1) == ["escape"]
    os.write(loop.master, b"\x1b[A")  # a whole sequence is one key, not Escape and text
    assert loop.wait_keys(2) == ["escape", "up"]


def test_setting_the_exit_event_wakes_and_ends_the_thread(loop: Loop) -> None:
    time.sleep(0.2)
    loop.exit_event.set()
    loop.thread.join(2)
    assert not loop.thread.is_alive()


def test_the_parser_deadline_is_none_while_nothing_is_pending() -> None:
    parser = XTermParser()
    assert parser_timeout(parser) is None
    list(parser.feed("\x1b"))  # Escape or the start of a sequence: wait a little for more
    pending = parser_timeout(parser)
    assert pending is not None and 0 <= pending <= 1


def _context_switches(pid: int) -> int:
    """Every thread's voluntary context switches: one per wake-up of a sleeping thread."""
    total = 0
    for tid in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{tid}/status") as status:
            for line in status:
                if line.startswith("voluntary_ctxt_switches"):
                    total += int(line.split()[1])
    return total


@pytest.mark.skipif(shutil.which("tmux") is None or not os.path.isdir("/proc/self/task"), reason="tmux and /proc")
@pytest.mark.parametrize("mode", ["fullscreen", "regular"])
def test_pi_idling_in_a_terminal_does_not_wake_up(tmp_path: Any, mode: str) -> None:
    """A real pi in tmux, both TUI modes: over a second and a half of idling, no thread wakes up
    (Textual's input thread woke 15 times); then a typed prompt is still read and answered."""
    command = f"exec {sys.executable} -m pi_rpc --model faux/faux-1 --tui-mode {mode} --no-session"
    term = Tmux(tmp_path, command)
    try:
        term.wait_for("faux-1")
        pid = term.pid()
        time.sleep(1.5)  # what startup scheduled after the first frame
        before = _context_switches(pid)
        time.sleep(1.5)
        woke = _context_switches(pid) - before
        assert woke <= 2, f"{woke} wake-ups while idle"
        term.type("still listening")
        term.wait_for("still listening")
    finally:
        term.kill()


def test_the_loop_ends_when_its_input_is_at_its_end() -> None:
    """A pipe closed or a terminal hung up stays readable with nothing to read: the loop ends
    (it spun a full core until the process was killed, and kept the process alive)."""
    read_end, write_end = os.pipe()
    os.close(write_end)
    exit_event = WakingEvent()
    thread = threading.Thread(target=read_input, args=(read_end, exit_event, XTermParser(), print), daemon=True)
    thread.start()
    thread.join(10)
    try:
        assert not thread.is_alive(), "the input loop went on reading a stdin at its end"
        assert not exit_event.is_set()
    finally:
        exit_event.set()
        os.close(read_end)


def _cpu_seconds(pid: int) -> float:
    """The process's user + system CPU seconds; ``ProcessLookupError`` once it has ended (gone,
    or a zombie its new parent has not reaped yet)."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    if fields[0] == "Z":
        raise ProcessLookupError(pid)
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@pytest.mark.skipif(shutil.which("tmux") is None or not os.path.isdir("/proc/self/task"), reason="tmux and /proc")
@pytest.mark.parametrize("mode", ["fullscreen", "regular"])
def test_pi_ends_without_spinning_when_its_terminal_goes_away(tmp_path: Any, mode: str) -> None:
    """The terminal closed under a running pi (``tmux kill-server``, as a closed window): pi
    ends on the SIGHUP without spinning. Its input thread used to spin on the dead terminal at
    a full core until the hard-exit timer ended the process (about 6 s of CPU after the
    hangup, in every test that ended a terminal this way). pi's CPU time is read until it ends."""
    command = f"exec {sys.executable} -m pi_rpc --model faux/faux-1 --tui-mode {mode} --no-session"
    term = Tmux(tmp_path, command)
    try:
        term.wait_for("faux-1")
        pid = term.pid()
        term.type("hello")
        term.wait_for("hello")
        at_hangup = _cpu_seconds(pid)
    finally:
        term.kill()
    last, deadline = at_hangup, time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            last = _cpu_seconds(pid)
        except (FileNotFoundError, ProcessLookupError):
            break
        time.sleep(0.05)
    else:
        raise AssertionError("pi did not end after its terminal went away")
    assert last - at_hangup < 2.0, f"{last - at_hangup:.2f} s of CPU after the terminal went away"
