#!/usr/bin/env python3
"""Writes a deterministic file shaped like a history-heavy ~/.claude.json of about SIZE_MB
megabytes (bytes, not characters) to stdout: a root `mcpServers` with one user entry, a few
settings, and a `projects` map whose entries carry long prompt histories (ASCII and non-ASCII).

usage: bench_gen.py SIZE_MB
"""
import json
import random
import sys

target = int(float(sys.argv[1]) * 1_000_000)
rng = random.Random(1)
alphabet = "abcdefgh ijklmnop \u00e9\u4e2d\"\\/\n\t"
out = []
size = 0


def emit(s):
    global size
    out.append(s)
    size += len(s.encode())


emit('{\n  "numStartups": 412,\n  "installMethod": "native",\n  "autoUpdates": true,\n')
emit('  "mcpServers": {\n    "github": {\n      "type": "stdio",\n      "command": "npx",\n'
     '      "args": ["-y", "@modelcontextprotocol/server-github"],\n'
     '      "env": {"GITHUB_TOKEN": "${GITHUB_TOKEN}"}\n    }\n  },\n')
emit('  "projects": {')
pool = ["".join(rng.choice(alphabet) for _ in range(rng.randint(40, 600))) for _ in range(3000)]
i = 0
while True:
    hist = [{"display": rng.choice(pool),
             "pastedContents": {}} for _ in range(40)]
    proj = {"allowedTools": [], "mcpServers": {}, "hasTrustDialogAccepted": i % 3 == 0,
            "lastCost": round(rng.random() * 10, 6), "history": hist}
    body = json.dumps(proj, indent=2, ensure_ascii=False).replace("\n", "\n    ")
    emit(("," if i else "") + f'\n    "/home/u/src/proj{i}": ' + body)
    i += 1
    if size >= target - 200:
        break
emit('\n  },\n  "userID": "0123456789abcdef",\n  "firstStartTime": "2025-01-01T00:00:00.000Z"\n}\n')
sys.stdout.write("".join(out))
