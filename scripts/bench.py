#!/usr/bin/env python3
"""The benchmark driver behind scripts/bench (see there for the knobs).

usage: bench.py PATH/TO/mcpconf [PATH/TO/static-mcpconf]

The second binary, when given, is the static Linux build the release archives ship (musl,
mimalloc; scripts/bench builds it with
scripts/release-build when the musl target and a musl C compiler are here): its `lint` rows
are measured too, since that is the binary most Linux users run.

Every figure is measured in this run, next to its baseline: medians of BENCH_RUNS hyperfine runs
(wall time), peak RSS from /usr/bin/time (median of 3). It rewrites the part of docs/benchmarks.md
between the `bench:begin` and `bench:end` markers and writes docs/benchmarks.svg.
"""
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_growth  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.abspath(sys.argv[1])
STATIC = os.path.abspath(sys.argv[2]) if len(sys.argv) > 2 else None
SIZES = [float(s) for s in os.environ.get("BENCH_SIZES", "0.1 0.5 1 2 4 8 72 300").split()]
# The size of issue 13's rows and the table's (b) rows (the largest size when it is not measured).
HEADLINE = float(os.environ.get("BENCH_HEADLINE", "72"))
if HEADLINE not in SIZES:
    HEADLINE = SIZES[-1]
CURVE_LINT = [int(x) for x in os.environ.get("BENCH_CURVE_LINT", "300 3000 30000").split()]
SCALE = [int(x) for x in os.environ.get("BENCH_SCALE", "500 2000 4000").split()]
CURVE_SERVERS = [int(x) for x in os.environ.get("BENCH_CURVE_SERVERS", "1 10 100 1000 2000").split()]
CURVE_TARGETS = [int(x) for x in os.environ.get("BENCH_CURVE_TARGETS", "1 10 100 500").split()]
RUNS = int(os.environ.get("BENCH_RUNS", "7"))
OUT = os.environ.get("BENCH_OUT", os.path.join(ROOT, "docs", "benchmarks.md"))
SVG = os.path.join(os.path.dirname(OUT), "benchmarks.svg")
WORK = os.environ.get("BENCH_DIR") or tempfile.mkdtemp(prefix="mcpconf-bench-")
os.makedirs(WORK, exist_ok=True)

ENTRY_ARGS = '["-y", "@acme/mcp-server", "--stdio"]'


def sh(cmd, **kw):
    return subprocess.run(cmd, shell=True, check=True, **kw)


def out(cmd):
    try:
        return subprocess.run(cmd, shell=True, capture_output=True, text=True).stdout.strip()
    except OSError:
        return ""


def manifest(path, owner, server, target):
    with open(path, "w") as f:
        f.write(f'owner = "{owner}"\n\n[servers.{server}]\ncommand = "npx"\nargs = {ENTRY_ARGS}\n\n'
                f'[[targets]]\nclient = "json"\nscope = "user"\npath = "{target}"\n')


def hyperfine(commands, prepare=None, runs=RUNS):
    """Median seconds of each command (dict label -> shell command)."""
    js = os.path.join(WORK, "hf.json")
    args = ["hyperfine", "--style", "none", "--runs", str(runs), "--warmup", "1",
            "--export-json", js]
    if prepare:
        args += ["--prepare", prepare]
    for label, cmd in commands.items():
        args += ["-n", label, cmd]
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL)
    with open(js) as f:
        res = json.load(f)["results"]
    return {r["command"]: statistics.median(r["times"]) for r in res}


def peak_rss_kb(cmd, prepare=None, n=3):
    vals = []
    for _ in range(n):
        if prepare:
            sh(prepare)
        r = subprocess.run(f"/usr/bin/time -f '%M' {cmd} >/dev/null", shell=True,
                           capture_output=True, text=True)
        vals.append(int(r.stderr.strip().splitlines()[-1]))
    return statistics.median(vals)


def static_rows(ls):
    """The (c) rows of the release archives' static Linux binary, or one saying it was not built."""
    if not ls:
        return ["| (c) `lint` with the static Linux binary of the release archives | not measured "
                "(needs the musl target and a musl C compiler) | | | | |"]
    return [
        "| (c) `lint` as above with the static Linux binary of the release archives (musl, "
        f"mimalloc) | {ms(ls['time']['lint'])} | {ms(ls['time']['jq'])} (`jq empty`) | "
        f"{ls['ratio_time']:.2f}× | ≤ 0.5× | {verdict(ls['ratio_time'] <= 0.5)} |",
        "| (c) peak RSS of that `lint` (static binary) | "
        f"{ls['rss_kb']['lint'] / 1024:.1f} MB | {ls['rss_kb']['jq'] / 1024:.1f} MB (`jq empty`) | "
        f"{ls['ratio_rss']:.2f}× | ≤ 1× | {verdict(ls['ratio_rss'] <= 1)} |",
    ]


def ms(s):
    return f"{s * 1000:.1f} ms" if s < 1 else f"{s:.2f} s"


def verdict(ok):
    return "met" if ok else "**not met**"


results = {}
lines = []

# --- machine -------------------------------------------------------------------------------
cpu = ""
try:
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
except OSError:
    pass
machine = {
    "nproc": out("nproc"),
    "cpu": cpu or platform.processor(),
    "kernel": platform.release(),
    "fs": out(f"df -T {WORK} | awk 'NR==2 {{print $2}}'"),
    "commit": out(f"git -C {ROOT} rev-parse --short HEAD"),
    "hyperfine": out("hyperfine --version"),
    "jq": out("jq --version"),
    "date": time.strftime("%Y-%m-%d"),
}
print(f"machine: {machine}", file=sys.stderr)

# --- (a) one server into a small config ----------------------------------------------------
small_dir = os.path.join(WORK, "small")
os.makedirs(os.path.join(small_dir, "home"), exist_ok=True)
small = {"mcpServers": {
    "github": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"],
               "env": {"GITHUB_TOKEN": "${GITHUB_TOKEN}"}},
    "fs": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"]},
    "remote": {"url": "https://example.invalid/mcp"}}}
with open(os.path.join(small_dir, "orig.json"), "w") as f:
    f.write(json.dumps(small, indent=2) + "\n")
manifest(os.path.join(small_dir, "m.toml"), "bench", "added", "small.json")
sd = small_dir
prep = f"cp {sd}/orig.json {sd}/home/small.json && rm -rf {sd}/state"
jq_edit = (f"jq '.mcpServers.added = {{\"command\": \"npx\", \"args\": {ENTRY_ARGS}}}' "
           f"{sd}/home/small.json > {sd}/home/small.json.tmp && mv {sd}/home/small.json.tmp {sd}/home/small.json")
r = hyperfine({
    "mcpconf apply": f"{BIN} apply --yes -m {sd}/m.toml --home {sd}/home --state-dir {sd}/state",
    "jq edit": jq_edit,
}, prepare=prep, runs=max(RUNS, 20))
results["small"] = r
print(f"small: {r}", file=sys.stderr)

# --- (b) big ~/.claude.json-like files -------------------------------------------------------
big = []
for mb in SIZES:
    d = os.path.join(WORK, f"big{mb:g}")
    os.makedirs(os.path.join(d, "home"), exist_ok=True)
    os.makedirs(os.path.join(d, "noop"), exist_ok=True)
    src = os.path.join(d, "orig.json")
    if not os.path.exists(src):
        sh(f"python3 {ROOT}/scripts/bench_gen.py {mb} > {src}")
    size = os.path.getsize(src)
    manifest(os.path.join(d, "m.toml"), "bench", "added", "big.json")
    apply_cmd = f"{BIN} apply --yes -m {d}/m.toml --home {d}/home --state-dir {d}/state"
    prep = f"cp {src} {d}/home/big.json && rm -rf {d}/state"
    # A no-op plan: the entry is already there and owned.
    sh(f"cp {src} {d}/noop/big.json && rm -rf {d}/noop-state")
    sh(f"{BIN} apply --yes -m {d}/m.toml --home {d}/noop --state-dir {d}/noop-state >/dev/null")
    plan_cmd = f"{BIN} plan -m {d}/m.toml --home {d}/noop --state-dir {d}/noop-state"
    # Small files take milliseconds, where one slow run moves a median of 7: take more.
    runs = max(RUNS, 21) if size < 10_000_000 else RUNS if size < 30_000_000 else max(3, RUNS - 2)
    t_apply = hyperfine({"apply": apply_cmd}, prepare=prep, runs=runs)["apply"]
    jq_one = (f"jq '.mcpServers.added = {{\"command\": \"npx\", \"args\": {ENTRY_ARGS}}}' "
              f"{d}/home/big.json > {d}/home/big.json.tmp && mv {d}/home/big.json.tmp {d}/home/big.json")
    t_jq_edit = hyperfine({"jq edit": jq_one}, prepare=prep, runs=runs)["jq edit"]
    # The floor: the file read and written once, its data fsynced (coreutils `sync FILE`).
    t = hyperfine({"plan": plan_cmd, "jq": f"jq -c . {src} > /dev/null",
                   "floor": f"cp {src} {d}/floor.json && sync {d}/floor.json"}, runs=runs)
    rss_apply = peak_rss_kb(apply_cmd, prepare=prep)
    rss_plan = peak_rss_kb(plan_cmd)
    row = {"mb": mb, "size": size, "apply": t_apply, "plan": t["plan"], "jq": t["jq"],
           "floor": t["floor"],
           "jq_edit": t_jq_edit, "rss_apply": rss_apply * 1024, "rss_plan": rss_plan * 1024}
    if mb == HEADLINE:
        # An update: the owned server `added` removed and `added2` added, in one apply.
        with open(f"{d}/m2.toml", "w") as f:
            f.write(f'owner = "bench"\n\n[servers.added2]\ncommand = "npx"\nargs = {ENTRY_ARGS}\n\n'
                    '[[targets]]\nclient = "json"\nscope = "user"\npath = "big.json"\n')
        # The state is made for this copy (a copy of noop-state would name the noop file,
        # and the update would then also prune that one: two files, not one).
        upd_prep = (f"cp {src} {d}/home/big.json && rm -rf {d}/upd-state && "
                    f"{BIN} apply --yes -m {d}/m.toml --home {d}/home --state-dir {d}/upd-state >/dev/null")
        upd_cmd = f"{BIN} apply --yes -m {d}/m2.toml --home {d}/home --state-dir {d}/upd-state"
        row["rss_update"] = peak_rss_kb(upd_cmd, prepare=upd_prep) * 1024
        # The same update when the server is its object's only entry (the object is edited
        # twice: the new entry added, the old one removed), and the prune of that only entry.
        with open(src) as f:
            text = f.read()
        a = text.index('"mcpServers": {')
        z = text.index('  "projects"')
        with open(f"{d}/only.json", "w") as f:
            f.write(text[:a] + '"mcpServers": {},\n' + text[z:])
        del text
        only_prep = (f"cp {d}/only.json {d}/home/big.json && rm -rf {d}/upd-state && "
                     f"{BIN} apply --yes -m {d}/m.toml --home {d}/home --state-dir {d}/upd-state >/dev/null")
        row["rss_update_only"] = peak_rss_kb(upd_cmd, prepare=only_prep) * 1024
        prune_cmd = f"{BIN} prune --yes -m {d}/m.toml --home {d}/home --state-dir {d}/upd-state"
        row["rss_prune_only"] = peak_rss_kb(prune_cmd, prepare=only_prep) * 1024
        os.remove(f"{d}/only.json")
    print(f"big: {row}", file=sys.stderr)
    big.append(row)
    for p in (src, f"{d}/home/big.json", f"{d}/noop/big.json", f"{d}/floor.json"):
        if os.path.exists(p):
            os.remove(p)
results["big"] = big

# --- (d) 64 concurrent writers ---------------------------------------------------------------
cd = os.path.join(WORK, "conc")
shutil.rmtree(cd, ignore_errors=True)
os.makedirs(os.path.join(cd, "home"))
N = 64
for i in range(N):
    manifest(os.path.join(cd, f"m{i}.toml"), f"owner{i}", f"server{i}", "conc.json")
conc_orig = os.path.join(cd, "orig.json")
with open(conc_orig, "w") as f:
    f.write(json.dumps(small, indent=2) + "\n")
one = hyperfine({"one": f"{BIN} apply --yes -m {cd}/m0.toml --home {cd}/home --state-dir {cd}/s0"},
                prepare=f"cp {conc_orig} {cd}/home/conc.json && rm -rf {cd}/s0", runs=max(RUNS, 20))["one"]
walls = []
for rep in range(3):
    sh(f"cp {conc_orig} {cd}/home/conc.json && rm -rf {cd}/s*")
    t0 = time.monotonic()
    procs = [subprocess.Popen([BIN, "apply", "--yes", "-m", f"{cd}/m{i}.toml", "--home", f"{cd}/home",
                               "--state-dir", f"{cd}/s{i}", "--lock-timeout", "120"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for i in range(N)]
    codes = [p.wait() for p in procs]
    walls.append(time.monotonic() - t0)
    with open(f"{cd}/home/conc.json") as f:
        got = json.load(f)["mcpServers"]
    lost = [i for i in range(N) if f"server{i}" not in got]
    if any(codes) or lost:
        sys.exit(f"concurrency run failed: exit codes {codes}, lost {lost}")
results["conc"] = {"one": one, "wall": statistics.median(walls), "walls": walls}
print(f"conc: {results['conc']}", file=sys.stderr)

# --- (c) lint over 3 000 small files vs jq empty (scripts/bench-lint, same run) ---------------
def bench_lint(binary, n, runs, name):
    """scripts/bench-lint of `binary` over n files (its own jq baseline), as it wrote it in JSON;
    its scratch files are removed after."""
    js = os.path.join(WORK, f"{name}.json")
    sh(f"{os.path.join(ROOT, 'scripts', 'bench-lint')} --bin {binary} --runs {runs} "
       f"--dir {os.path.join(WORK, name)} --json {js} {n}")
    shutil.rmtree(os.path.join(WORK, name), ignore_errors=True)
    with open(js) as f:
        return json.load(f)


results["lint"] = bench_lint(BIN, 3000, max(RUNS, 40), "lint")
print(f"lint: {results['lint']}", file=sys.stderr)
rss_version = peak_rss_kb(f"{BIN} --version")
# The same with the release archives' static binary (its own jq baseline, in this run).
if STATIC:
    results["lint_static"] = bench_lint(STATIC, 3000, max(RUNS, 40), "lint-static")
    print(f"lint (static binary): {results['lint_static']}", file=sys.stderr)
# Lint time against the number of files (the 3 000 above is one point).
lint_curve = {}
for n in CURVE_LINT:
    if n == 3000:
        lint_curve[n] = results["lint"]
        continue
    lint_curve[n] = bench_lint(BIN, n, max(3, RUNS) if n > 10000 else max(RUNS, 10), f"lint-{n}")
results["lint_curve"] = lint_curve
print(f"lint curve: {lint_curve}", file=sys.stderr)

# --- (e) growth with the work (issue 17) and scaling curves (issue 13) -------------------------
results["fsyncs"] = bench_growth.fsyncs_of_one_file_apply(BIN, WORK)
print(f"fsyncs: {results['fsyncs']}", file=sys.stderr)
results["growth"] = bench_growth.growth(BIN, WORK, SCALE, runs_servers=7, runs_agents=3)
curve_servers = {n: bench_growth.scale_run(BIN, WORK, "servers", n, 3) for n in CURVE_SERVERS}
curve_targets = {n: bench_growth.scale_run(BIN, WORK, "agents", n, 1) for n in CURVE_TARGETS}


def alternatives(kind, n, runs):
    """The obvious alternative and the floor at one point of a work curve, median seconds.
    The alternative: `jq` editing the file(s) with a temp file and `mv`, as setup scripts do
    (no lock, no fsync): for servers, one edit adding the n servers to the file; for target
    files, one edit per agent file adding its server. The floor: the bytes `apply` leaves
    written once and fsynced (`cp` + `sync FILE...`), as for the file-size rows."""
    w, base = bench_growth.setup(WORK, kind, n)
    root, orig, after = (os.path.join(w, x) for x in ("root", "orig", "after"))
    shutil.copytree(root, orig)
    sh(f"{BIN} apply --yes {' '.join(base)} >/dev/null")
    shutil.copytree(root, after)
    if kind == "servers":
        f = f"{root}/.cursor/mcp.json"
        with open(os.path.join(w, "servers.json"), "w") as out:
            json.dump({f"s{i}": {"command": "npx", "args": ["-y", f"@acme/server-{i}"]}
                       for i in range(n)}, out)
        alt = (f"jq --slurpfile s {w}/servers.json '.mcpServers += $s[0]' {f} > {f}.tmp "
               f"&& mv {f}.tmp {f}")
        floor = f"cp {after}/.cursor/mcp.json {w}/floor.json && sync {w}/floor.json"
        floor_prep = f"rm -f {w}/floor.json"
    else:
        d = ".kiro/agents"
        alt = (f"for f in {root}/{d}/*.json; do jq '.mcpServers.s = {{\"command\": \"npx\", "
               f"\"args\": [\"-y\", \"@acme/server\"]}}' \"$f\" > \"$f.tmp\" && mv \"$f.tmp\" \"$f\"; done")
        floor = f"mkdir {w}/floor && cp {after}/{d}/*.json {w}/floor/ && sync {w}/floor/*.json"
        floor_prep = f"rm -rf {w}/floor"
    t_alt = hyperfine({"alt": alt}, prepare=f"rm -rf {root} && cp -r {orig} {root}", runs=runs)["alt"]
    t_floor = hyperfine({"floor": floor}, prepare=floor_prep, runs=runs)["floor"]
    shutil.rmtree(w, ignore_errors=True)
    return {"alt": t_alt, "floor": t_floor}


for n in CURVE_SERVERS:
    curve_servers[n].update(alternatives("servers", n, max(RUNS, 5)))
for n in CURVE_TARGETS:
    curve_targets[n].update(alternatives("agents", n, 3))
results["curves"] = {"servers": curve_servers, "targets": curve_targets}
print(f"curves: {results['curves']}", file=sys.stderr)
SVG_SIZE = os.path.join(os.path.dirname(OUT), "benchmarks-size.svg")
SVG_WORK = os.path.join(os.path.dirname(OUT), "benchmarks-work.svg")
size_series = [
    ("apply, s", "#d9480f", "", [(r["size"] / 1e6, r["apply"]) for r in big]),
    ("no-op plan, s", "#1971c2", "", [(r["size"] / 1e6, r["plan"]) for r in big]),
    ("jq -c ., s", "#888888", "6,4", [(r["size"] / 1e6, r["jq"]) for r in big]),
    ("apply peak RSS, GB", "#2b8a3e", "2,3", [(r["size"] / 1e6, r["rss_apply"] / 1e9) for r in big]),
]
with open(SVG_SIZE, "w") as f:
    f.write(bench_growth.loglog_svg("time and memory vs file size (log-log)", "file size (MB)",
                                    "seconds / GB", size_series))
work_series = [
    ("apply, servers in one file", "#d9480f", "", [(n, t["apply"]) for n, t in curve_servers.items()]),
    ("no-op plan, servers", "#1971c2", "", [(n, t["plan"]) for n, t in curve_servers.items()]),
    ("apply, target files", "#d9480f", "6,4", [(n, t["apply"]) for n, t in curve_targets.items()]),
    ("no-op plan, target files", "#1971c2", "6,4", [(n, t["plan"]) for n, t in curve_targets.items()]),
    ("jq edit, servers", "#888888", "", [(n, t["alt"]) for n, t in curve_servers.items()]),
    ("jq edits, target files", "#888888", "2,3", [(n, t["alt"]) for n, t in curve_targets.items()]),
    ("lint, files", "#2b8a3e", "", [(n, r["time"]["lint"]) for n, r in lint_curve.items()]),
    ("jq empty, files", "#888888", "6,4", [(n, r["time"]["jq"]) for n, r in lint_curve.items()]),
]
with open(SVG_WORK, "w") as f:
    f.write(bench_growth.loglog_svg("time vs amount of work (log-log)", "servers / target files / linted files",
                                    "seconds", work_series))


# --- chart -----------------------------------------------------------------------------------
def svg_chart(rows):
    W, H, L, R, T, B = 640, 380, 70, 170, 30, 50
    xmax = max(r["size"] for r in rows) / 1e6
    ymax = max(max(r["apply"], r["plan"], r["jq"]) for r in rows) * 1.1
    def x(mb):
        return L + (W - L - R) * mb / xmax
    def y(s):
        return T + (H - T - B) * (1 - s / ymax)
    series = [("jq -c . (baseline)", "jq", "#888888", "6,4"), ("mcpconf apply (1 server)", "apply", "#d9480f", ""),
              ("mcpconf plan (no-op)", "plan", "#1971c2", "")]
    o = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" '
         'font-family="sans-serif" font-size="12">',
         f'<rect width="{W}" height="{H}" fill="white"/>',
         f'<text x="{W / 2 - 60}" y="18" font-size="14">time vs file size</text>']
    for i in range(6):
        v = ymax * i / 5
        o.append(f'<line x1="{L}" y1="{y(v):.1f}" x2="{W - R}" y2="{y(v):.1f}" stroke="#eee"/>')
        o.append(f'<text x="{L - 8}" y="{y(v) + 4:.1f}" text-anchor="end">{v:.2f} s</text>')
    for r in rows:
        mb = r["size"] / 1e6
        o.append(f'<text x="{x(mb):.1f}" y="{H - B + 16}" text-anchor="middle">{mb:.0f}</text>')
    o.append(f'<text x="{(L + W - R) / 2}" y="{H - 12}" text-anchor="middle">file size (MB)</text>')
    o.append(f'<line x1="{L}" y1="{H - B}" x2="{W - R}" y2="{H - B}" stroke="black"/>')
    o.append(f'<line x1="{L}" y1="{T}" x2="{L}" y2="{H - B}" stroke="black"/>')
    for n, (label, key, color, dash) in enumerate(series):
        pts = " ".join(f"{x(r['size'] / 1e6):.1f},{y(r[key]):.1f}" for r in rows)
        da = f' stroke-dasharray="{dash}"' if dash else ""
        o.append(f'<polyline points="{pts}" fill="none" stroke="{color}" stroke-width="2"{da}/>')
        for r in rows:
            o.append(f'<circle cx="{x(r["size"] / 1e6):.1f}" cy="{y(r[key]):.1f}" r="3" fill="{color}"/>')
        ly = T + 20 + 20 * n
        o.append(f'<line x1="{W - R + 10}" y1="{ly}" x2="{W - R + 30}" y2="{ly}" stroke="{color}" stroke-width="2"{da}/>')
        o.append(f'<text x="{W - R + 35}" y="{ly + 4}">{label}</text>')
    o.append("</svg>")
    return "\n".join(o) + "\n"


with open(SVG, "w") as f:
    f.write(svg_chart(big))

# --- report ----------------------------------------------------------------------------------
s = results["small"]
hb = next(r for r in big if r["mb"] == HEADLINE)
c = results["conc"]
ratio_small = s["mcpconf apply"] / s["jq edit"]
ratio_apply = hb["apply"] / hb["jq"]
ratio_plan = hb["plan"] / hb["jq"]
ratio_rss = hb["rss_apply"] / hb["size"]
ratio_rss_plan = hb["rss_plan"] / hb["size"]
ratio_conc = c["wall"] / (N * c["one"])
lt = results["lint"]
m = machine
lines += [
    f"Measured on {m['date']} at commit `{m['commit']}`: {m['nproc']} cores ({m['cpu']}), Linux "
    f"{m['kernel']}, scratch files on {m['fs'] or 'an unknown file system'}; {m['hyperfine']}, {m['jq']}. "
    f"Times are medians of {RUNS} runs (20 for the small cases; 3 or more for files over 30 MB) after one "
    "warm-up, wall clock, page cache warm; peak RSS is the median of 3 runs of `/usr/bin/time -f %M`.",
    "",
    "| case | mcpconf | baseline | ratio | goal | |",
    "|---|---|---|---|---|---|",
    f"| (a) add one server to a small config (lock, fsync, ledger) | {ms(s['mcpconf apply'])} | "
    f"{ms(s['jq edit'])} (`jq … > tmp && mv tmp f`) | {ratio_small:.2f}× | ≤ 0.25× | {verdict(ratio_small <= 0.25)} |",
    f"| (b) `apply` of one server, {hb['size'] / 1e6:.0f} MB file | {ms(hb['apply'])} | {ms(hb['jq'])} "
    f"(`jq -c . file > /dev/null`) | {ratio_apply:.2f}× | ≤ 0.35× | {verdict(ratio_apply <= 0.35)} |",
    f"| (b) no-op `plan`, {hb['size'] / 1e6:.0f} MB file | {ms(hb['plan'])} | {ms(hb['jq'])} | "
    f"{ratio_plan:.2f}× | ≤ 0.25× | {verdict(ratio_plan <= 0.25)} |",
    f"| (b) peak RSS of that `apply` | {hb['rss_apply'] / 1e6:.0f} MB | file {hb['size'] / 1e6:.0f} MB | "
    f"{ratio_rss:.2f}× | ≤ 2.5× | {verdict(ratio_rss <= 2.5)} |",
    f"| (b) peak RSS of the no-op `plan` | {hb['rss_plan'] / 1e6:.0f} MB | file {hb['size'] / 1e6:.0f} MB | "
    f"{ratio_rss_plan:.2f}× | | |",
    "| (c) `lint` over 3 000 pretty-printed `.cursor/mcp.json` vs `jq empty` on the same files | "
    f"{ms(lt['time']['lint'])} | {ms(lt['time']['jq'])} (`jq empty`) | "
    f"{lt['ratio_time']:.2f}× | ≤ 0.5× | {verdict(lt['ratio_time'] <= 0.5)} |",
    "| (c) peak RSS of that `lint` | "
    f"{lt['rss_kb']['lint'] / 1024:.1f} MB | {lt['rss_kb']['jq'] / 1024:.1f} MB (`jq empty`) | "
    f"{lt['ratio_rss']:.2f}× | ≤ 1× | {verdict(lt['ratio_rss'] <= 1)} |",
    "| (c) CPU time (user + system) of that `lint` (two threads) vs `jq empty` | "
    f"{ms(lt['cpu']['lint'])} | {ms(lt['cpu']['jq'])} | {lt['ratio_cpu']:.2f}× | | |",
    f"| (c) peak RSS of `mcpconf --version` (what any command maps before its work) | "
    f"{rss_version / 1024:.1f} MB | {lt['rss_kb']['jq'] / 1024:.1f} MB (`jq empty` over the files) | "
    f"{rss_version / lt['rss_kb']['jq']:.2f}× | | |",
    *static_rows(results.get("lint_static")),
    f"| (d) {N} concurrent writers (distinct owners, one file) | {ms(c['wall'])} total | "
    f"{N} × one write = {ms(N * c['one'])} | {ratio_conc:.2f}× | ≈ 1× | {verdict(ratio_conc <= 1.25)} |",
    "",
    "Time and memory versus file size (`apply` of one server, no-op `plan`, `jq -c .`). The floor "
    "is the file read and written once with its data fsynced (`cp` + `sync FILE`); an `apply` "
    "also parses and checks the whole file and makes four fsyncs (the intent and the file, each "
    "with its directory), a no-op `plan` reads and checks it:",
    "",
    "| file | apply | plan (no-op) | jq -c . | floor | apply / floor | apply / jq | plan / jq | RSS apply | RSS plan |",
    "|---|---|---|---|---|---|---|---|---|---|",
]
for r in big:
    lines.append(f"| {r['size'] / 1e6:.1f} MB | {ms(r['apply'])} | {ms(r['plan'])} | {ms(r['jq'])} | "
                 f"{ms(r['floor'])} | {r['apply'] / r['floor']:.2f}× | "
                 f"{r['apply'] / r['jq']:.2f}× | {r['plan'] / r['jq']:.2f}× | {r['rss_apply'] / 1e6:.0f} MB "
                 f"({r['rss_apply'] / r['size']:.2f}×) | {r['rss_plan'] / 1e6:.0f} MB |")
lines += ["", "![time versus file size](benchmarks.svg)", ""]

# Issue 13's table, every row a ratio measured in this run.
mid = [r for r in big if 0.4e6 <= r["size"] <= 9e6]
fs = results["fsyncs"]
lines += [
    "Issue 13's goals, each a ratio measured in this run:",
    "",
    "| case | measured | goal | |",
    "|---|---|---|---|",
]
for r in mid:
    q = r["apply"] / r["jq_edit"]
    lines.append(f"| `apply` on a {r['size'] / 1e6:.1f} MB `~/.claude.json` vs a `jq` one-line edit | "
                 f"{ms(r['apply'])} / {ms(r['jq_edit'])} = {q:.2f}× | ≤ 0.2× | {verdict(q <= 0.2)} |")
if "rss_update" in hb:
    q = hb["rss_update"] / hb["size"]
    lines.append(f"| {hb['size'] / 1e6:.0f} MB update (one server removed, one added): peak RSS | "
                 f"{hb['rss_update'] / 1e6:.0f} MB = {q:.2f}× the file | ≤ 1.5× | {verdict(q <= 1.5)} |")
if "rss_update_only" in hb:
    for key, what in (("rss_update_only", "update of its object's only server (removed, another added)"),
                      ("rss_prune_only", "prune of its object's only server")):
        q = hb[key] / hb["size"]
        lines.append(f"| {hb['size'] / 1e6:.0f} MB {what}: peak RSS | "
                     f"{hb[key] / 1e6:.0f} MB = {q:.2f}× the file | ≤ 1.5× | {verdict(q <= 1.5)} |")
lines.append(f"| {hb['size'] / 1e6:.0f} MB `apply` vs `jq -c .` | {ratio_apply:.3f}× | ≤ 0.12× | "
             f"{verdict(ratio_apply <= 0.12)} |")
lines.append(f"| {hb['size'] / 1e6:.0f} MB no-op `plan` vs `jq -c .` | {ratio_plan:.3f}× | ≤ 0.06× | "
             f"{verdict(ratio_plan <= 0.06)} |")
if fs:
    lines.append(f"| fsync/fdatasync calls in a one-file `apply` (state exists; first run: "
                 f"{fs['first']}) | {fs['steady']} | ≤ 4 | {verdict(fs['steady'] <= 4)} |")
lines.append("")

# Issue 17: growth factors.
g = results["growth"]
lo, hi_n = SCALE[0], SCALE[-1]
lines += [
    f"Growth with the work (issue 17): `apply`, no-op `plan`, `status` and `prune` of n servers in "
    "one `.cursor/mcp.json` (one that holds the user's entry, and one that does not exist yet: "
    "apply creates it, prune deletes it) and of n Kiro agent files in one directory (a glob target, one server "
    "each), each the median of 7 cycles for servers and 3 for agent files (apply, plan, status, "
    "prune from the same files; a server cycle takes well under a second, and this machine has "
    "moments where one command runs a third slower). The "
    "growth factor is time(n) / time("
    f"{lo}) for n / {lo} times the work; linear work gives about n / {lo} (goal: at most 4.5 for 4×).",
    "",
    "| work | n | apply | plan | status | prune |",
    "|---|---|---|---|---|---|",
]
lines += bench_growth.growth_lines(g, SCALE)
lines.append("")

# Issue 13: scaling curves with their slopes.
cs, ct = results["curves"]["servers"], results["curves"]["targets"]
sl = bench_growth.slope
lines += [
    "Scaling curves (log-log; a slope of 1 is linear). Against file size, the floor is reading "
    "and writing the file once (`cp` + `fsync`); `jq -c .` is the alternative that builds values:",
    "",
    f"- `apply` time vs file size: slope {sl([(r['size'], r['apply']) for r in big]):.2f}; "
    f"`jq -c .`: {sl([(r['size'], r['jq']) for r in big]):.2f}; no-op `plan`: "
    f"{sl([(r['size'], r['plan']) for r in big]):.2f}; `apply` peak RSS: "
    f"{sl([(r['size'], r['rss_apply']) for r in big]):.2f} (a fixed ~10 MB dominates small files).",
    f"- servers in one file ({', '.join(map(str, cs))}): `apply` slope "
    f"{sl([(n, t['apply']) for n, t in cs.items()]):.2f}, no-op `plan` "
    f"{sl([(n, t['plan']) for n, t in cs.items()]):.2f} (a fixed start-up cost flattens the small end). "
    "The alternative is one `jq` edit adding the n servers (temp file and `mv`, no fsync); the "
    "floor is the file `apply` leaves written once and fsynced (`cp` + `sync`). At "
    f"{max(cs)} servers `apply` is {cs[max(cs)]['apply'] / cs[max(cs)]['alt']:.2f}× the `jq` edit and "
    f"{cs[max(cs)]['apply'] / cs[max(cs)]['floor']:.1f}× the floor.",
    f"- target files ({', '.join(map(str, ct))} agent files): `apply` slope "
    f"{sl([(n, t['apply']) for n, t in ct.items()]):.2f} (one fsync per file written, one per "
    f"directory), no-op `plan` {sl([(n, t['plan']) for n, t in ct.items()]):.2f}. The alternative "
    "is a `jq` edit of each agent file (temp file and `mv`, no fsync); the floor is the files "
    "`apply` leaves written once and each fsynced (`cp` + `sync FILE...`). At "
    f"{max(ct)} files `apply` is {ct[max(ct)]['apply'] / ct[max(ct)]['alt']:.2f}× the `jq` edits and "
    f"{ct[max(ct)]['apply'] / ct[max(ct)]['floor']:.1f}× the floor.",
    f"- linted files ({', '.join(map(str, lint_curve))} pretty-printed `.cursor/mcp.json`): `lint` slope "
    f"{sl([(n, r['time']['lint']) for n, r in lint_curve.items()]):.2f}, `jq empty` "
    f"{sl([(n, r['time']['jq']) for n, r in lint_curve.items()]):.2f}; the floor is the kernel's "
    "`open`/`read`/`close` of each file, which both make.",
    "",
    "| linted files | lint | jq empty | ratio | lint peak RSS | jq peak RSS |",
    "|---|---|---|---|---|---|",
    *[f"| {n} | {ms(r['time']['lint'])} | {ms(r['time']['jq'])} | {r['time']['lint'] / r['time']['jq']:.2f}× | "
      f"{r['rss_kb']['lint'] / 1024:.1f} MB | {r['rss_kb']['jq'] / 1024:.1f} MB |" for n, r in lint_curve.items()],
    "",
    "| servers in one file | apply | plan (no-op) | status | prune | `jq` edit | floor | apply / jq | apply / floor |",
    "|---|---|---|---|---|---|---|---|---|",
]
for n, t in cs.items():
    lines.append(f"| {n} | {ms(t['apply'])} | {ms(t['plan'])} | {ms(t['status'])} | {ms(t['prune'])} | "
                 f"{ms(t['alt'])} | {ms(t['floor'])} | {t['apply'] / t['alt']:.2f}× | {t['apply'] / t['floor']:.1f}× |")
lines += ["", "| target files | apply | plan (no-op) | status | prune | `jq` edits | floor | apply / jq | apply / floor |",
          "|---|---|---|---|---|---|---|---|---|"]
for n, t in ct.items():
    lines.append(f"| {n} | {ms(t['apply'])} | {ms(t['plan'])} | {ms(t['status'])} | {ms(t['prune'])} | "
                 f"{ms(t['alt'])} | {ms(t['floor'])} | {t['apply'] / t['alt']:.2f}× | {t['apply'] / t['floor']:.1f}× |")
lines += ["", "![time and memory versus file size, log-log](benchmarks-size.svg)", "",
          "![time versus servers and target files, log-log](benchmarks-work.svg)", ""]

begin, end = "<!-- bench:begin -->", "<!-- bench:end -->"
try:
    with open(OUT) as f:
        doc = f.read()
except FileNotFoundError:
    doc = f"# Benchmarks\n\n{begin}\n{end}\n"
if begin not in doc or end not in doc:
    doc += f"\n{begin}\n{end}\n"
head, rest = doc.split(begin, 1)
_, tail = rest.split(end, 1)
with open(OUT, "w") as f:
    f.write(head + begin + "\n" + "\n".join(lines) + "\n" + end + tail)
with open(os.path.join(WORK, "results.json"), "w") as f:
    json.dump({"machine": machine, **results}, f, indent=2)
print(f"wrote {OUT} and {SVG} (raw: {WORK}/results.json)", file=sys.stderr)

# Issue 27: lint and YAML editing at n and 4n, in a section of their own
# (scripts/bench_linear.py; its knobs are BENCH_LINEAR_*).
import bench_linear  # noqa: E402

bench_linear.write_section(OUT, bench_linear.section(bench_linear.run(BIN, WORK)))
print(f"wrote the linear growth rows into {OUT}", file=sys.stderr)

# Issue 31: big TOML and YAML files (scripts/bench_formats.py; knobs BENCH_FORMATS_*).
import bench_formats  # noqa: E402

bench_formats.write_section(OUT, bench_formats.section(bench_formats.run(BIN, WORK)))
print(f"wrote the TOML and YAML rows into {OUT}", file=sys.stderr)

# Issue 43: inventory over N repositories against lint of the same files
# (scripts/bench_inventory.py; knobs BENCH_INVENTORY_*).
import bench_inventory  # noqa: E402

bench_inventory.write_section(OUT, bench_inventory.section(bench_inventory.run(BIN, WORK)))
print(f"wrote the inventory rows into {OUT}", file=sys.stderr)
