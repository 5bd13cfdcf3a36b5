#!/usr/bin/env python3
"""A scripted MCP stdio server for tests/it/probe.rs: one behaviour per mode (argv[1]).

Every mode first writes its own pid to $FAKE_PID_FILE (when set), so the test knows the
process group to check afterwards. Modes that start a child pass it a marker argument and
write the child's pid to $FAKE_CHILD_PID_FILE.
"""
import json
import os
import signal
import subprocess
import sys
import time

mode = sys.argv[1]
marker = sys.argv[2] if len(sys.argv) > 2 else "no-marker"


def write_pid(var, pid):
    path = os.environ.get(var)
    if path:
        with open(path + ".tmp", "w") as f:
            f.write(str(pid))
        os.rename(path + ".tmp", path)


write_pid("FAKE_PID_FILE", os.getpid())


def send(msg):
    sys.stdout.write(json.dumps(msg) + "\n")
    sys.stdout.flush()


def recv(legacy=True):
    # A handshake-era server, as most are: `server/discover` (the 2026-07-28 revision's first
    # request) is a method it does not know.
    while True:
        line = sys.stdin.readline()
        if not line:
            sys.exit(0)
        m = json.loads(line)
        if legacy and m.get("method") == "server/discover":
            send({"jsonrpc": "2.0", "id": m["id"], "error": {"code": -32601, "message": "Method not found"}})
            continue
        return m


MODERN = "2026-07-28"
PV_KEY = "io.modelcontextprotocol/protocolVersion"
CAPS_KEY = "io.modelcontextprotocol/clientCapabilities"
INFO_KEY = "io.modelcontextprotocol/serverInfo"


def modern_server(tools_pages, info):
    """A server of the stateless 2026-07-28 revision only: `initialize` is an unknown method,
    every request must carry the `_meta` envelope, every result carries `resultType` and the
    server info in its `_meta`."""
    while True:
        m = recv(legacy=False)
        if "id" not in m:
            continue
        meta = (m.get("params") or {}).get("_meta") or {}
        method = m.get("method")
        if method == "initialize":
            send({"jsonrpc": "2.0", "id": m["id"], "error": {"code": -32601, "message": "Method not found: initialize"}})
            continue
        if meta.get(PV_KEY) != MODERN or CAPS_KEY not in meta:
            send({"jsonrpc": "2.0", "id": m["id"], "error": {"code": -32602, "message": "missing the _meta envelope"}})
            continue
        stamp = {INFO_KEY: info}
        if method == "server/discover":
            send({"jsonrpc": "2.0", "id": m["id"], "result": {
                "supportedVersions": [MODERN], "capabilities": {"tools": {}},
                "resultType": "complete", "cacheScope": "public", "ttlMs": 0, "_meta": stamp}})
        elif method == "tools/list":
            cursor = m["params"].get("cursor")
            tools, nxt = tools_pages[cursor]
            result = {"tools": tools, "resultType": "complete", "cacheScope": "public", "ttlMs": 0, "_meta": stamp}
            if nxt:
                result["nextCursor"] = nxt
            send({"jsonrpc": "2.0", "id": m["id"], "result": result})
        elif method == "tools/call":
            send({"jsonrpc": "2.0", "id": m["id"], "result": {
                "content": [{"type": "text", "text": "unknown tool"}], "isError": True, "resultType": "complete"}})
        else:
            send({"jsonrpc": "2.0", "id": m["id"], "error": {"code": -32601, "message": "Method not found"}})


def legacy_server(tools, info, unknown_method_result=False):
    """A handshake-era server with one page of tools (objects as given)."""
    m = recv()
    send({"jsonrpc": "2.0", "id": m["id"], "result": {
        "protocolVersion": "2025-11-25", "capabilities": {"tools": {}}, "serverInfo": info}})
    while True:
        m = recv()
        if "id" not in m or "method" not in m:
            continue
        if m["method"] == "tools/list":
            send({"jsonrpc": "2.0", "id": m["id"], "result": {"tools": tools}})
        elif m["method"] == "tools/call":
            send({"jsonrpc": "2.0", "id": m["id"], "error": {"code": -32602, "message": "Unknown tool"}})
        elif unknown_method_result:
            send({"jsonrpc": "2.0", "id": m["id"], "result": {}})
        else:
            send({"jsonrpc": "2.0", "id": m["id"], "error": {"code": -32601, "message": "Method not found"}})


def sleep_forever():
    while True:
        time.sleep(60)


def start_child(extra_setup):
    # The child ignores SIGTERM (and optionally leaves the process group) and sleeps.
    code = (
        "import os, signal, sys, time\n"
        "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
        + extra_setup
        + "while True: time.sleep(60)\n"
    )
    p = subprocess.Popen(
        [sys.executable, "-c", code, marker],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    write_pid("FAKE_CHILD_PID_FILE", p.pid)


def start_ready_child(extra_setup):
    # Like start_child, but the child writes its own pid and process group (after its setup)
    # to $FAKE_CHILD_PID_FILE, and this waits until it has: the child is set up for sure.
    code = (
        "import os, signal, sys, time\n"
        "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
        + extra_setup
        + "p = os.environ['FAKE_CHILD_PID_FILE']\n"
        "open(p + '.pgrp', 'w').write(str(os.getpgrp()))\n"
        "open(p + '.tmp', 'w').write(str(os.getpid()))\n"
        "os.rename(p + '.tmp', p)\n"
        "while True: time.sleep(60)\n"
    )
    subprocess.Popen(
        [sys.executable, "-c", code, marker],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    while not os.path.exists(os.environ["FAKE_CHILD_PID_FILE"]):
        time.sleep(0.02)


def answer_initialize_then_ignore_eof():
    m = recv()
    send({"jsonrpc": "2.0", "id": m["id"], "result": {"protocolVersion": "2025-06-18", "capabilities": {}}})
    while sys.stdin.readline():
        pass
    sleep_forever()


if mode == "ok":
    # A correct server: checks the client's side of the handshake, sends notifications and a
    # ping request in between, and pages its tools over three pages.
    pages = {None: (["alpha", "beta"], "c1"), "c1": (["gamma"], "c2"), "c2": (["delta", "beta"], None)}
    m = recv()
    assert m["method"] == "initialize", m
    if m["params"]["protocolVersion"] != "2025-11-25":
        send({"jsonrpc": "2.0", "id": m["id"], "error": {"code": -32602, "message": "wrong version asked"}})
        sys.exit(1)
    send({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "hi"}})
    send({
        "jsonrpc": "2.0",
        "id": m["id"],
        "result": {
            "protocolVersion": "2025-06-18",
            "capabilities": {"tools": {"listChanged": True}},
            "serverInfo": {"name": "fake", "version": "1.2.3"},
        },
    })
    initialized = False
    pinged = False
    while True:
        m = recv()
        if m.get("method") == "notifications/initialized":
            initialized = True
            continue
        if m.get("id") == "srv-ping":
            pinged = "result" in m
            continue
        if m.get("method") == "tools/list":
            if not initialized:
                send({"jsonrpc": "2.0", "id": m["id"], "error": {"code": -32600, "message": "not initialized"}})
                continue
            cursor = m.get("params", {}).get("cursor")
            if cursor == "c1" and not pinged:
                # Ask the client for a ping and wait for the answer before going on.
                send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
                send({"jsonrpc": "2.0", "id": "srv-ping", "method": "ping"})
                a = recv()
                if a.get("id") != "srv-ping" or "result" not in a:
                    send({"jsonrpc": "2.0", "id": m["id"], "error": {"code": -1, "message": "ping unanswered"}})
                    continue
                pinged = True
            # An unrelated response id first: the client must keep waiting for its own.
            send({"jsonrpc": "2.0", "id": 999, "result": {}})
            tools, nxt = pages[cursor]
            result = {"tools": [{"name": t, "inputSchema": {"type": "object"}} for t in tools]}
            if nxt:
                result["nextCursor"] = nxt
            send({"jsonrpc": "2.0", "id": m["id"], "result": result})
elif mode == "exit":
    sys.stderr.write("fatal: cannot open the database\n")
    sys.stderr.flush()
    sys.exit(3)
elif mode == "hang":
    sleep_forever()
elif mode == "rendezvous":
    # Answer only once four servers of this test are running at the same time (each wrote
    # its pid file next to ours): a serial probe never gets an answer from the first one.
    d = os.path.dirname(os.environ["FAKE_PID_FILE"])
    while len([n for n in os.listdir(d) if n.endswith(".pid")]) < 4:
        time.sleep(0.02)
    m = recv()
    send({"jsonrpc": "2.0", "id": m["id"], "result": {"protocolVersion": "2025-06-18", "capabilities": {}}})
    while True:
        recv()
elif mode == "garbage":
    recv()
    sys.stdout.write("Welcome to my server! v1.0\n")
    sys.stdout.flush()
    sleep_forever()
elif mode == "init-error":
    m = recv()
    send({"jsonrpc": "2.0", "id": m["id"], "error": {"code": -32602, "message": "Unsupported protocol version"}})
    sleep_forever()
elif mode == "flood-line":
    chunk = "x" * 65536
    while True:
        sys.stdout.write(chunk)
elif mode == "flood-messages":
    line = json.dumps({"jsonrpc": "2.0", "method": "notifications/message", "params": {"data": "y" * 1000}}) + "\n"
    chunk = line * 64
    while True:
        sys.stdout.write(chunk)
elif mode == "sigterm-child":
    start_child("")
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    sleep_forever()
elif mode == "setsid-child":
    start_child("os.setsid()\n")
    sleep_forever()
elif mode == "sigterm-child-then-ok":
    # Answers the handshake once its SIGTERM-ignoring child runs; ignores EOF and SIGTERM.
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    start_ready_child("")
    answer_initialize_then_ignore_eof()
elif mode == "setsid-child-then-ok":
    # Answers the handshake once its child has left the process group; ignores EOF.
    start_ready_child("os.setsid()\n")
    answer_initialize_then_ignore_eof()
elif mode == "repeat-cursor":
    m = recv()
    send({"jsonrpc": "2.0", "id": m["id"], "result": {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}}})
    while True:
        m = recv()
        if "id" in m:
            send({"jsonrpc": "2.0", "id": m["id"], "result": {"tools": [{"name": "t"}], "nextCursor": "same"}})
elif mode == "leak-cut":
    # Echo the command line and $API_TOKEN on stderr so that the 4 KiB tail starts in the
    # middle of the token, then write a non-JSON stdout line whose 120-character excerpt ends
    # in the middle of it.
    secret = os.environ.get("API_TOKEN", "")
    recv()
    tail = "\nargs: " + " ".join(sys.argv[2:]) + "\n"
    filler = 4096 - len(secret) // 2 - len(tail) - 1
    sys.stderr.write("x" * 300 + "\ntoken=" + secret + "\n" + "y" * filler + tail)
    sys.stderr.flush()
    sys.stdout.write("Z" * (120 - len(secret) // 2) + secret + " banner\n")
    sys.stdout.flush()
    sleep_forever()
elif mode == "leak-env":
    sys.stderr.write("token is " + os.environ.get("API_TOKEN", "") + "\n")
    sys.stderr.flush()
    sys.exit(1)
elif mode == "modern-only":
    obj = {"type": "object"}
    modern_server(
        {None: ([{"name": "search", "inputSchema": obj}], "p2"), "p2": ([{"name": "fetch", "inputSchema": obj}], None)},
        {"name": "modern-fake", "version": "0.2.0"},
    )
elif mode == "described":
    # One tool whose description comes from $FAKE_DESC; version from $FAKE_VERSION.
    legacy_server(
        [{"name": "search", "description": os.environ.get("FAKE_DESC", "Search."),
          "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}}},
         {"name": "fetch", "description": "Fetch.", "inputSchema": {"type": "object"}}],
        # (`ver:` first: a declared env value is a secret the probe masks wherever it appears.)
        {"name": "described", "version": os.environ.get("FAKE_VERSION", "ver:1.2.3")[4:]},
    )
elif mode == "decorated":
    # Tools with the members a client keeps for itself (title, annotations, outputSchema,
    # _meta, icons) beside the ones its model gets, and non-ASCII text; members out of order.
    legacy_server(
        [{"title": "Look things up in the index", "name": "lookup",
          "annotations": {"readOnlyHint": True, "openWorldHint": False},
          "inputSchema": {"type": "object", "required": ["term"],
                          "properties": {"term": {"type": "string", "description": "Wörter, 東京 or 🚀"}}},
          "outputSchema": {"type": "object", "properties": {"hits": {"type": "array"}}},
          "description": "Finds   the term\n in the index.",
          "_meta": {"vendor/x": "y" * 200}, "icons": [{"src": "data:image/png;base64," + "A" * 300}]},
         {"name": "ping", "inputSchema": {"type": "object"}}],
        {"name": "decorated", "version": "1.0.0"},
    )
elif mode == "exit-on-discover":
    # A handshake server that dies on a method it does not know before `initialize`.
    line = sys.stdin.readline()
    if json.loads(line).get("method") == "server/discover":
        sys.stderr.write("unexpected method server/discover\n")
        sys.exit(1)
    sys.exit(2)
elif mode == "smoke-result":
    # Answers an unknown method with a result: fails `--smoke`.
    legacy_server([{"name": "t", "inputSchema": {"type": "object"}}], {"name": "lax", "version": "1.0.0"}, True)
elif mode == "loud":
    # Prints its whole environment on stderr, names a tool with the value of $ECHO_ME, reports
    # as its version the value of the variable $ECHO_VAR names (one it only inherited), and
    # adds terminal control characters.
    sys.stderr.write("\n".join(f"{k}={v}" for k, v in sorted(os.environ.items())) + "\n\x1b]0;pwned\x07\n")
    sys.stderr.flush()
    echo = os.environ.get("ECHO_ME", "")
    legacy_server(
        [{"name": "tool-" + echo, "inputSchema": {"type": "object"}}, {"name": "bell\x07\x1b[2J", "inputSchema": {"type": "object"}}],
        {"name": "loud\x1b[31m", "version": "1.0.0-" + os.environ.get(os.environ.get("ECHO_VAR", ""), "")},
    )
elif mode == "tiny-values":
    # Answers `tools/list` with one ~3 MB message of tiny values (a million of them).
    m = recv()
    send({"jsonrpc": "2.0", "id": m["id"], "result": {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}}})
    while True:
        m = recv()
        if m.get("method") == "tools/list":
            sys.stdout.write('{"jsonrpc":"2.0","id":%s,"result":{"tools":[],"padding":[%s0]}}\n' % (json.dumps(m["id"]), "0," * 1500000))
            sys.stdout.flush()
elif mode == "endless-tools":
    # Page after page of tiny tools with fresh names.
    m = recv()
    send({"jsonrpc": "2.0", "id": m["id"], "result": {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}}})
    page = 0
    while True:
        m = recv()
        if m.get("method") == "tools/list":
            page += 1
            tools = ",".join('{"name":"t%d_%d"}' % (page, i) for i in range(5000))
            sys.stdout.write('{"jsonrpc":"2.0","id":%s,"result":{"tools":[%s],"nextCursor":"c%d"}}\n' % (json.dumps(m["id"]), tools, page))
            sys.stdout.flush()
else:
    sys.stderr.write("unknown mode " + mode + "\n")
    sys.exit(2)
