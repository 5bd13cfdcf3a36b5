#!/usr/bin/env python3
"""Big TOML and YAML files for scripts/bench (issue 31): peak memory and time of each command.

usage: bench_formats.py PATH/TO/mcpconf

Two inputs, generated in a scratch directory and removed after use:
- a Codex `~/.codex/config.toml` of about BENCH_FORMATS_MB megabytes (default 25): one server of
  the user's, then `[projects."…"]` trust tables (what Codex adds for every folder it opens),
  then another server of the user's;
- a Goose `~/.config/goose/config.yaml` of the same size: the user's `extensions` (one server),
  then one top-level key per setting;
- a Goose `config.yaml` of the same size that is all `extensions` (the user's servers);
- a Codex `config.toml` of the same size that is all `[mcp_servers.…]` tables (the user's
  servers).

For each: `plan` and `apply` of one new server, the update that removes it and adds another
(the owner's manifest switched to another server), and `prune` of it. Each row is the median of
BENCH_FORMATS_RUNS runs (default 3) of `/usr/bin/time`: wall time and peak RSS, with the RSS as a
multiple of the file. It rewrites the part of BENCH_OUT (default docs/benchmarks.md) between the
`bench-formats:begin` and `bench-formats:end` markers. scripts/bench.py runs it too.
"""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MB = float(os.environ.get("BENCH_FORMATS_MB", "25"))
RUNS = int(os.environ.get("BENCH_FORMATS_RUNS", "3"))
# The clients' files where --home puts them, whatever this shell's variables say.
ENV = {k: v for k, v in os.environ.items()
       if k not in ("XDG_CONFIG_HOME", "GOOSE_PATH_ROOT", "CODEX_HOME")}


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def fill(path, size, head, row, tail=""):
    """`head`, then `row(i)` for i = 0, 1, … until the file holds `size` bytes, then `tail`."""
    with open(path, "w") as f:
        f.write(head)
        i = 0
        while f.tell() < size:
            f.write(row(i))
            i += 1
        f.write(tail)


def codex(path, size):
    fill(path, size, 'model = "o3"\n\n[mcp_servers.user]\ncommand = "uvx"\nargs = ["mcp-server-user"]\n\n',
         lambda i: f'[projects."/home/user/src/project-{i:07d}"]\ntrust_level = "trusted"\n\n',
         '[mcp_servers.later]\ncommand = "npx"\nargs = ["-y", "later@1.0.0"]\n')


def codex_servers(path, size):
    fill(path, size, 'model = "o3"\n\n',
         lambda i: f'[mcp_servers.user{i:07d}]\ncommand = "uvx"\nargs = ["mcp-server-{i}"]\n\n')


def goose(path, size):
    fill(path, size, "extensions:\n  user:\n    name: user\n    cmd: uvx\n    args:\n    - mcp-server-user\n"
                     "    enabled: true\n    type: stdio\n    timeout: 300\n",
         lambda i: f"SETTING_{i:07d}: value {i}\n")


def goose_extensions(path, size):
    fill(path, size, "GOOSE_MODEL: gpt-4o\nextensions:\n",
         lambda i: f"  user{i:07d}:\n    name: user{i:07d}\n    cmd: uvx\n    args:\n    - mcp-server-{i}\n"
                   "    enabled: true\n    type: stdio\n    timeout: 300\n")


def manifest(path, client, server, package):
    write(path, f'owner = "bench"\n\n[servers.{server}]\ncommand = "npx"\n'
                f'args = ["-y", "{package}@1.0.0"]\n\n[[targets]]\nclient = "{client}"\n')


def measure(argv, prepare):
    """Median wall seconds and peak RSS (bytes) of RUNS runs, each after `prepare()`."""
    times, rss = [], []
    for _ in range(RUNS):
        prepare()
        out = subprocess.run(["/usr/bin/time", "-f", "%e %M", *argv], capture_output=True, text=True,
                             env=ENV)
        if out.returncode != 0:
            sys.exit(f"{' '.join(argv)} failed: {out.stderr[-2000:]}")
        t, m = out.stderr.strip().splitlines()[-1].split()
        times.append(float(t))
        rss.append(int(m) * 1024)
    return statistics.median(times), statistics.median(rss)


def run(binary, work):
    rows = []
    for fmt, client, rel, gen in (
        ("TOML", "codex", ".codex/config.toml", codex),
        ("YAML", "goose", ".config/goose/config.yaml", goose),
        ("YAML, all of it `extensions`", "goose", ".config/goose/config.yaml", goose_extensions),
        ("TOML, all of it `mcp_servers`", "codex", ".codex/config.toml", codex_servers),
    ):
        w = os.path.join(work, f"formats-{client}-{gen.__name__}")
        shutil.rmtree(w, ignore_errors=True)
        os.makedirs(w)
        src = os.path.join(w, "original")
        gen(src, int(MB * 1e6))
        size = os.path.getsize(src)
        manifest(f"{w}/m.toml", client, "added", "added")
        manifest(f"{w}/m2.toml", client, "other", "other")
        home, state = f"{w}/home", f"{w}/state"
        target = os.path.join(home, rel)

        def fresh():
            shutil.rmtree(state, ignore_errors=True)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            shutil.copyfile(src, target)

        def applied():
            fresh()
            subprocess.run([binary, "apply", "--yes", "-m", f"{w}/m.toml", "--home", home,
                            "--state-dir", state], check=True, capture_output=True, env=ENV)

        base = ["--home", home, "--state-dir", state]
        cases = [
            ("`plan` of one new server", [binary, "plan", "-m", f"{w}/m.toml", *base], fresh),
            ("`apply` of one new server", [binary, "apply", "--yes", "-m", f"{w}/m.toml", *base], fresh),
            ("update: that server removed, another added",
             [binary, "apply", "--yes", "-m", f"{w}/m2.toml", *base], applied),
            ("`prune` of that server", [binary, "prune", "--yes", "-m", f"{w}/m.toml", *base], applied),
        ]
        for what, argv, prep in cases:
            t, m = measure(argv, prep)
            rows.append((fmt, client, rel, size, what, t, m))
        shutil.rmtree(w, ignore_errors=True)
    return rows


def section(rows):
    lines = [
        "Big TOML and YAML files (issue 31; `scripts/bench_formats.py`): a Codex `config.toml` of "
        "`[projects.\"…\"]` tables between two servers of the user's, a Goose `config.yaml` of "
        "one key per setting after the user's `extensions`, one that is all `extensions` and a "
        "Codex `config.toml` that is all `[mcp_servers.…]` tables (the user's servers); each row "
        "is the median of "
        f"{RUNS} runs.",
        "",
        "| file | command | time | peak RSS | × the file |",
        "|---|---|---|---|---|",
    ]
    for fmt, client, rel, size, what, t, m in rows:
        lines.append(f"| {size / 1e6:.0f} MB {client} `{rel.split('/')[-1]}` ({fmt}) | {what} | "
                     f"{t:.2f} s | {m / 1e6:.0f} MB | {m / size:.2f}× |")
    return "\n".join(lines)


def write_section(out, text):
    with open(out) as f:
        doc = f.read()
    begin, end = "<!-- bench-formats:begin -->", "<!-- bench-formats:end -->"
    if begin not in doc:
        doc = doc.rstrip("\n") + f"\n\n{begin}\n{end}\n"
    head, rest = doc.split(begin, 1)
    _, tail = rest.split(end, 1)
    with open(out, "w") as f:
        f.write(f"{head}{begin}\n{text}\n{end}{tail}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = os.environ.get("BENCH_OUT", os.path.join(ROOT, "docs/benchmarks.md"))
    with tempfile.TemporaryDirectory() as work:
        write_section(out, section(run(os.path.abspath(sys.argv[1]), work)))
