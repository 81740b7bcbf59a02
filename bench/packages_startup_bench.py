"""Package startup benchmark: ``pi --mode rpc`` spawn -> ``get_commands`` answered, with no
package configured (the baseline, measured in the same run), with one installed local package
(two skills, two prompt templates) and with five, all offline. The package resolve happens at
startup; the figure to watch is the first ratio (no packages: the package layer must cost
nothing) and the per-package increment.

    python bench/packages_startup_bench.py [-n 11]

Prints medians (ms) and ratios to the no-package baseline.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _package(root: Path, name: str) -> None:
    for skill in ("one", "two"):
        path = root / name / "skills" / f"{name}-{skill}" / "SKILL.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"---\nname: {name}-{skill}\ndescription: {skill}\n---\nbody\n")
    for prompt in ("p1", "p2"):
        path = root / name / "prompts" / f"{name}-{prompt}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"---\ndescription: {prompt}\n---\nbody\n")
    (root / name / "package.json").write_text(
        json.dumps({"name": name, "pi": {"skills": ["./skills"], "prompts": ["./prompts"]}})
    )


def _agent(base: Path, count: int) -> dict[str, str]:
    agent = base / f"agent-{count}"
    agent.mkdir(parents=True)
    for i in range(count):
        _package(base, f"pkg{i}")
    (agent / "settings.json").write_text(json.dumps({"packages": [f"../pkg{i}" for i in range(count)]}))
    env = {k: v for k, v in os.environ.items() if not k.startswith("PI_")}
    env.update(PI_CODING_AGENT_DIR=str(agent), HOME=str(base / "home"), PI_OFFLINE="1", PYTHONPATH=str(REPO))
    return env


def _once(env: dict[str, str], cwd: str) -> float:
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "pi_rpc", "--mode", "rpc", "--no-session"],
        input=b'{"id":"c","type":"get_commands"}\n',
        env={**env, "PI_FAUX_SCRIPT": os.devnull},
        cwd=cwd,
        capture_output=True,
        check=True,
    )
    assert b'"id":"c"' in done.stdout, done.stderr
    return (time.perf_counter() - start) * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("-n", type=int, default=11)
    runs = parser.parse_args().n
    # as an installed pi_rpc would be: bytecode compiled (PYTHONDONTWRITEBYTECODE may be set)
    import compileall

    compileall.compile_dir(str(REPO / "pi_rpc"), quiet=1)
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        (base / "home").mkdir()
        (base / "cwd").mkdir()
        envs = {count: _agent(base / f"set{count}", count) for count in (0, 1, 5)}
        times: dict[int, list[float]] = {count: [] for count in envs}
        for _ in range(runs):  # interleaved, so load changes hit every variant alike
            for count, env in envs.items():
                times[count].append(_once(env, str(base / "cwd")))
        baseline = statistics.median(times[0])
        for count in envs:
            median = statistics.median(times[count])
            print(f"{count} packages: {median:7.1f} ms  ratio {median / baseline:5.2f}")


if __name__ == "__main__":
    main()
