#!/usr/bin/env python3
"""Times the language server's re-check after an edit: `harness-gen harness lsp` is started,
a program is opened, then edited RUNS times (a description changed each time, so every edit
is a real change); each time is from sending `didChange` to receiving its
`publishDiagnostics`. Prints the median in milliseconds.

    scripts/lsp-recheck.py HARNESS_GEN PROGRAM.harness [RUNS]
"""
import json
import subprocess
import sys
import time


def main():
    binary, program = sys.argv[1], sys.argv[2]
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 21
    text = open(program).read()
    server = subprocess.Popen([binary, "harness", "lsp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def send(message):
        body = json.dumps(message).encode()
        server.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        server.stdin.flush()

    def receive():
        length = 0
        while True:
            line = server.stdout.readline().strip()
            if not line:
                break
            if line.startswith(b"Content-Length:"):
                length = int(line.split(b":")[1])
        return json.loads(server.stdout.read(length))

    def diagnostics():
        while True:
            message = receive()
            if message.get("method") == "textDocument/publishDiagnostics":
                return message

    uri = "file:///bench/program.harness"
    send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"processId": None, "rootUri": None, "capabilities": {}}})
    receive()
    send({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {"uri": uri, "languageId": "harness", "version": 1, "text": text}}})
    first = diagnostics()
    assert first["params"]["diagnostics"] == [], first
    times = []
    for run in range(runs):
        edited = text.replace('"Follow policy 0."', '"Follow policy 0, edit %d."' % run, 1)
        start = time.perf_counter()
        send({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {"textDocument": {"uri": uri, "version": run + 2}, "contentChanges": [{"text": edited}]}})
        diagnostics()
        times.append((time.perf_counter() - start) * 1000)
    send({"jsonrpc": "2.0", "id": 2, "method": "shutdown"})
    receive()
    send({"jsonrpc": "2.0", "method": "exit"})
    server.wait()
    times.sort()
    print("%.1f" % times[len(times) // 2])


main()
