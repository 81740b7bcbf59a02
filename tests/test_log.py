"""``pi_rpc.log``: the one stderr logger writes the bytes pi always wrote (the message and a
newline; a traceback as ``traceback.print_exc`` prints it), to the current ``sys.stderr``,
never to the root logger, and never raises."""

from __future__ import annotations

import io
import logging
import subprocess
import sys
import traceback
from pathlib import Path

import pytest

from pi_rpc.log import LOGGER_NAME, logger

ROOT = Path(__file__).resolve().parents[1]


def test_a_record_is_its_message_and_a_newline_on_the_current_stderr(monkeypatch: pytest.MonkeyPatch) -> None:
    stream = io.StringIO()
    monkeypatch.setattr(sys, "stderr", stream)
    logger().warning("Warning: 100% of %s as is")  # no %-formatting without arguments
    logger().error("pi: line one\n  line two")
    assert stream.getvalue() == "Warning: 100% of %s as is\npi: line one\n  line two\n"


def test_exc_info_appends_the_traceback_as_print_exc_does(monkeypatch: pytest.MonkeyPatch) -> None:
    try:
        raise ValueError("boom")
    except ValueError:
        expected = io.StringIO()
        expected.write("pi_rpc: unexpected error in command 'x':\n")
        traceback.print_exc(file=expected)
        stream = io.StringIO()
        monkeypatch.setattr(sys, "stderr", stream)
        logger().error("pi_rpc: unexpected error in command 'x':", exc_info=True)
    assert stream.getvalue() == expected.getvalue()


def test_records_do_not_reach_the_root_logger(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[str] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            seen.append(record.getMessage())

    collector = Collect()
    logging.getLogger().addHandler(collector)
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    try:
        logger().error("only once")
    finally:
        logging.getLogger().removeHandler(collector)
    assert seen == [] and logger() is logging.getLogger(LOGGER_NAME)


def test_a_broken_stderr_does_not_fail_the_caller(monkeypatch: pytest.MonkeyPatch) -> None:
    closed = io.StringIO()
    closed.close()
    monkeypatch.setattr(sys, "stderr", closed)
    logger().error("nowhere to go")  # no exception, no "--- Logging error ---"


def test_help_does_not_import_logging() -> None:
    """``pi --help`` stays lean: the logger loads ``logging`` on its first record only."""
    code = "import sys, runpy; sys.argv = ['pi', '--help']\ntry:\n    runpy.run_module('pi_rpc', run_name='__main__')\nexcept SystemExit:\n    pass\nprint('logging' in sys.modules, file=sys.stderr)"
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )
    assert out.stderr.strip().splitlines()[-1] == "False", out.stderr
