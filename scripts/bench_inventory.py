#!/usr/bin/env python3
"""Inventory against lint over the same project files (issue 43): N repositories (default 1000),
each a directory with `.git` and a pretty-printed `.cursor/mcp.json` of three servers, in a
scratch directory. `mcpconf inventory --discover TREE` (finds the repositories, reads every
client file of each, one row per server) is timed against `mcpconf lint` of the same N files
given on its command line, in the same run: wall time and peak RSS, the median of
BENCH_INVENTORY_RUNS runs (default 5) of `/usr/bin/time`. The target: inventory within 2×
lint's time. It rewrites the part of BENCH_OUT (default docs/benchmarks.md) between the
`bench-inventory:begin` and `bench-inventory:end` markers; scripts/bench.py runs it too.

usage: bench_inventory.py PATH/TO/mcpconf
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
N = int(os.environ.get("BENCH_INVENTORY_N", "1000"))
RUNS = int(os.environ.get("BENCH_INVENTORY_RUNS", "5"))
OUT = os.environ.get("BENCH_OUT", os.path.join(ROOT, "docs", "benchmarks.md"))


def make_tree(tree, n):
    files = []
    for i in range(n):
        repo = os.path.join(tree, f"group-{i % 20:02d}", f"repo-{i:05d}")
        os.makedirs(os.path.join(repo, ".git"))
        os.makedirs(os.path.join(repo, ".cursor"))
        doc = {"mcpServers": {
            f"docs-{i}": {"url": f"https://docs{i}.example.com/mcp"},
            "git": {"command": "uvx", "args": [f"mcp-server-git=={i % 7}.0.0"]},
            "fs": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem@1.0.0", "."],
                   "env": {"LOG_LEVEL": "info"}},
        }}
        path = os.path.join(repo, ".cursor", "mcp.json")
        with open(path, "w") as f:
            json.dump(doc, f, indent=2)
            f.write("\n")
        files.append(path)
    return files


def measure(argv, env):
    """Median wall seconds (perf_counter around the process: `/usr/bin/time`'s 10 ms steps are
    too coarse here) and median peak RSS (`/usr/bin/time -f %M`) of RUNS runs, after one
    warm-up run."""
    times, rss = [], []
    subprocess.run(argv, capture_output=True, env=env)
    for _ in range(RUNS):
        start = time.perf_counter()
        out = subprocess.run(["/usr/bin/time", "-f", "%M", *argv], capture_output=True, text=True,
                             env=env)
        times.append(time.perf_counter() - start)
        if out.returncode not in (0, 1):
            sys.exit(f"{argv[0]} {argv[1]} failed ({out.returncode}): {out.stderr[-2000:]}")
        rss.append(int(out.stderr.strip().splitlines()[-1]) * 1024)
    return statistics.median(times), statistics.median(rss)


def run(binary, work):
    tree = os.path.join(work, "inventory-tree")
    shutil.rmtree(tree, ignore_errors=True)
    files = make_tree(tree, N)
    home = os.path.join(work, "inventory-home")
    os.makedirs(home, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if k not in ("XDG_CONFIG_HOME", "CODEX_HOME")}
    common = ["--home", home, "--root", home, "--state-dir", os.path.join(work, "inventory-state")]
    repos = sorted({os.path.dirname(os.path.dirname(f)) for f in files})
    lint_files = measure([binary, "lint", "--format", "json", *common, *files], env)
    lint = measure([binary, "lint", "--format", "json", *common, *repos], env)
    inv = measure([binary, "inventory", "--format", "json", *common, "--discover", tree], env)
    shutil.rmtree(tree, ignore_errors=True)
    return {"n": N, "lint_files": lint_files, "lint": lint, "inventory": inv}


def section(r):
    ratio = r["inventory"][0] / r["lint"][0] if r["lint"][0] else float("inf")
    verdict = "met" if ratio <= 2 else "not met"
    return "\n".join([
        f"Inventory over {r['n']} repositories (issue 43; `scripts/bench_inventory.py`): each a "
        "directory with `.git` and a `.cursor/mcp.json` of three servers; `mcpconf inventory "
        "--discover TREE` (finds the repositories, one row per server) against `mcpconf lint` of the "
        f"same {r['n']} repositories, median of {RUNS} runs (wall time around the process, peak RSS "
        "from `/usr/bin/time`).",
        "",
        "| command | time | peak RSS | × lint's time | target | |",
        "|---|---|---|---|---|---|",
        f"| `lint` of the {r['n']} repositories (directories: every client file of each) | "
        f"{r['lint'][0] * 1e3:.0f} ms | {r['lint'][1] / 1e6:.0f} MB | 1× | | |",
        f"| `inventory --discover` of the tree | {r['inventory'][0] * 1e3:.0f} ms | "
        f"{r['inventory'][1] / 1e6:.0f} MB | {ratio:.2f}× | ≤ 2× | {verdict} |",
        f"| `lint` of the {r['n']} files named one by one (no discovery) | "
        f"{r['lint_files'][0] * 1e3:.0f} ms | {r['lint_files'][1] / 1e6:.0f} MB | "
        f"{r['lint_files'][0] / r['lint'][0]:.2f}× | | |",
    ])


def write_section(path, text):
    with open(path) as f:
        doc = f.read()
    begin, end = "<!-- bench-inventory:begin -->", "<!-- bench-inventory:end -->"
    block = f"{begin}\n{text}\n{end}"
    if begin in doc:
        head, rest = doc.split(begin, 1)
        doc = head + block + rest.split(end, 1)[1]
    else:
        marker = "## History"
        doc = doc.replace(marker, f"{block}\n\n{marker}", 1) if marker in doc else doc + "\n" + block + "\n"
    with open(path, "w") as f:
        f.write(doc)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    with tempfile.TemporaryDirectory() as work:
        result = run(sys.argv[1], work)
    text = section(result)
    print(text)
    write_section(OUT, text)
