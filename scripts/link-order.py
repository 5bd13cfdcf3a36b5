#!/usr/bin/env python3
"""The function order for the release binary's second link (scripts/release-build).

usage: scripts/link-order.py profile BIN DIR      run BIN's profiled workload under callgrind
       scripts/link-order.py order MAP DIR OUT    write the symbols it ran, for lld
       scripts/link-order.py check MAP ORDER      fail unless the order took effect

Why: the kernel maps a program's code a folio (64-128 KiB) around each page it touches, so a
command whose functions are spread over a 5 MB `.text` keeps most of it resident. `lint` runs
about 700 of the binary's functions; laid out together (lld's `--symbol-ordering-file`) they
take about 1 MB of resident code instead of 3 (docs/benchmarks.md, "Seventh round").

`profile` runs the first link's binary (stripped, so functions are known by address) under
`valgrind --tool=callgrind --dump-instr=yes`, one run after another: `lint` over 600 generated
project files of five clients, `--version`, `lint --format json` over 50 of them, `plan` of the
bundled example. `order` maps every instruction address each run executed to the input
section that holds it, through the first link's map file (`-Wl,-Map`), and writes those
sections' symbols, `lint`'s first, then what each later run adds, each run's in their first
link's order: the same objects are linked again, so the names match by construction (no list
is kept in the repository to go stale). `check` reads the second link's map and fails when
fewer than 95 % of the symbols were found or they do not sit together at the start of
`.text`.
"""
import bisect
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# An input section in lld's map: VMA LMA Size Align, then `file:(section)`.
SECTION = re.compile(r"^\s*([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)\s+\d+\s+(\S.*):\((\.text[^)]*)\)$")
# A symbol line under it: the same numbers, then (after more indentation) the symbol.
SYMBOL = re.compile(r"^\s*([0-9a-f]+)\s+[0-9a-f]+\s+[0-9a-f]+\s+\d+\s{10,}(\S.*)$")
# `.text.NAME`, `.text.unlikely.NAME`, …: the section of function NAME (-ffunction-sections).
PREFIX = re.compile(r"^\.text\.(?:unlikely\.|hot\.|startup\.|exit\.|split\.)?")


def sections(map_path):
    """The `.text` input sections of a map: (start, size, symbol), by address."""
    out = []
    cur = None
    with open(map_path, errors="replace") as f:
        for line in f:
            m = SECTION.match(line)
            if m:
                start, size, name = int(m.group(1), 16), int(m.group(2), 16), m.group(4)
                # Named after its function, or (C objects: one `.text` each) by the first
                # symbol listed under it; lld's map shows symbols demangled, so a Rust
                # function is only ever named by its section.
                sym = PREFIX.sub("", name) if name.startswith(".text.") else None
                cur = [start, size, sym, name == ".text" or sym is None]
                out.append(cur)
                continue
            if cur is not None and cur[3]:
                m = SYMBOL.match(line)
                if m:
                    cur[2], cur[3] = m.group(2), False
    return sorted((s, n, sym) for s, n, sym, _ in out if sym)


def executed(cg_path):
    """Every instruction address a callgrind `--dump-instr=yes` profile counts."""
    addrs = set()
    pos = 0
    with open(cg_path, errors="replace") as f:
        for line in f:
            c = line[:1]
            if c not in "0+-*":
                continue
            tok = line.split(None, 1)[0]
            if tok.startswith("0x"):
                pos = int(tok, 16)
            elif c == "+":
                pos += int(tok[1:])
            elif c == "-":
                pos -= int(tok[1:])
            addrs.add(pos)
    return addrs


def profile(binary, work):
    """Run the workload under callgrind; one profile file per command in WORK."""
    os.makedirs(work, exist_ok=True)
    for old in os.listdir(work):
        if old.startswith("cg."):
            os.unlink(os.path.join(work, old))
    corpus = os.path.join(work, "corpus")
    files = []
    # Project files of the clients lint meets most, with and without findings, so that the
    # rules' and the renderers' code is in the profile too.
    shapes = [
        (".cursor/mcp.json", "mcpServers"),
        (".vscode/mcp.json", "servers"),
        (".mcp.json", "mcpServers"),
        (".kiro/settings/mcp.json", "mcpServers"),
        (".gemini/settings.json", "mcpServers"),
    ]
    for i in range(600):
        rel, key = shapes[i % len(shapes)]
        p = os.path.join(corpus, f"p{i}", rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        servers = {
            f"github-{i}": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"],
                            "env": {"GITHUB_TOKEN": "${env:GITHUB_TOKEN}"}},
            f"api-{i}": {"url": f"https://api.example.com/mcp/{i}",
                         "headers": {"Authorization": "Bearer ${env:API_TOKEN}"}},
        }
        if i % 50 == 7:
            servers["same"] = dict(servers[f"github-{i}"])
        with open(p, "w") as f:
            f.write(json.dumps({key: servers}, indent=2) + "\n")
        files.append(p)
    home = os.path.join(work, "home")
    os.makedirs(home, exist_ok=True)
    ex = os.path.join(ROOT, "examples", "openab")
    runs = [
        ["lint", "--home", home, "--state-dir", os.path.join(work, "state")] + files,
        ["--version"],
        ["lint", "--format", "json", "--home", home, "--state-dir", os.path.join(work, "state")]
        + files[:50],
        ["plan", "-m", os.path.join(ex, "mcpconf.toml"), "--root", os.path.join(ex, "workdir"),
         "--home", os.path.join(ex, "home"), "--state-dir", os.path.join(ex, "state")],
    ]
    for n, args in enumerate(runs):
        out = os.path.join(work, f"cg.{n}")
        r = subprocess.run(
            ["valgrind", "--tool=callgrind", "--dump-instr=yes", "--callgrind-out-file=" + out,
             binary] + args,
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        # lint exits 1 on findings; anything above that is a failed run.
        if r.returncode > 1 or not os.path.exists(out):
            sys.exit(f"link-order: profiling `{' '.join(args[:1])}` failed:\n{r.stderr[-2000:]}")


def order(map_path, work, out):
    secs = sections(map_path)
    starts = [s for s, _, _ in secs]
    names = []
    seen = set()
    size = 0
    # The runs in their order of priority (`lint` first: its resident memory is the one
    # measured against jq's), each adding the functions the runs before it did not use.
    runs = sorted((n for n in os.listdir(work) if n.startswith("cg.")),
                  key=lambda n: int(n.split(".")[1]))
    for name in runs:
        hot = set()
        for a in executed(os.path.join(work, name)):
            i = bisect.bisect_right(starts, a) - 1
            if i >= 0 and a < secs[i][0] + max(secs[i][1], 1):
                hot.add(i)
        for i in sorted(hot):
            sym = secs[i][2]
            if sym not in seen:
                seen.add(sym)
                names.append(sym)
                size += secs[i][1]
    if not names:
        sys.exit("link-order: the profile ran no function the map names")
    with open(out, "w") as f:
        f.write("\n".join(names) + "\n")
    print(f"link-order: {len(names)} functions ({size // 1024} KiB) of {len(secs)} first",
          file=sys.stderr)


def check(map_path, order_path):
    wanted = [l.strip() for l in open(order_path) if l.strip()]
    secs = sections(map_path)
    # A name can stand for several sections (a C file's static functions): the first counts.
    at = {}
    for s, _, sym in secs:
        at.setdefault(sym, s)
    found = [at[w] for w in wanted if w in at]
    if len(found) < 0.95 * len(wanted):
        sys.exit(f"link-order: only {len(found)} of the {len(wanted)} ordered functions are in "
                 "the second link: the names did not match, the order was lost")
    text_start = secs[0][0]
    span = max(found) - text_start
    size = sum(n for s, n, sym in secs if sym in set(wanted))
    # Together at the start: they span little more than their own size.
    if span > 2 * size + (256 << 10):
        sys.exit(f"link-order: the ordered functions span {span // 1024} KiB for "
                 f"{size // 1024} KiB of code: the order did not take effect")
    print(f"link-order: {len(found)} functions in the first {span // 1024} KiB of .text",
          file=sys.stderr)


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "profile":
        profile(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 5 and sys.argv[1] == "order":
        order(sys.argv[2], sys.argv[3], sys.argv[4])
    elif len(sys.argv) == 4 and sys.argv[1] == "check":
        check(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
