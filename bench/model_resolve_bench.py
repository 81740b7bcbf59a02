"""CPU cost of resolving ``--model`` text at startup: ``ModelRegistry(agent_dir)`` plus
``resolve(pattern)``, with the catalogue's caches cleared before each sample (what a fresh
process pays), measured with ``time.thread_time`` (min and median of --runs), so the figure
does not move with the load of other processes the way wall time does on a shared machine.

    PYTHONPATH=<tree> python bench/model_resolve_bench.py --runs 30 sonnet opus:high kimi anthropic/claude-sonnet-4-5

Run it with two trees' PYTHONPATH to compare them. ANTHROPIC_API_KEY and OPENAI_API_KEY are set
(to a dummy) for the run, so ties between providers are broken as for a typical user.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("patterns", nargs="+")
    args = ap.parse_args()
    os.environ.setdefault("ANTHROPIC_API_KEY", "dummy")
    os.environ.setdefault("OPENAI_API_KEY", "dummy")
    from pi_rpc.ai.models import catalog
    from pi_rpc.ai.models.registry import ModelRegistry

    agent = tempfile.mkdtemp()
    for pattern in args.patterns:
        samples: list[float] = []
        answer = ""
        for _ in range(args.runs):
            for name in ("_data", "_index", "_labels", "_defaults", "_lowered", "_source"):
                cached = getattr(catalog, name, None)
                if cached is not None:
                    cached.cache_clear()
            start = time.thread_time()
            result = ModelRegistry(agent).resolve(pattern)
            samples.append((time.thread_time() - start) * 1000)
            model = result.get("model")
            answer = f"{result['status']} {model['provider']}/{model['id']}" if model else result["status"]
        print(f"{pattern:30s} min {min(samples):6.2f}  med {statistics.median(samples):6.2f} ms  {answer}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
