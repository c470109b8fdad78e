"""A minimal raw JSON-RPC MCP client for bench/services/mcp-proxy.sh.

  mcp_client.py latency CALLS OUT.json -- COMMAND [ARGS...]
      Starts COMMAND (an MCP server, or `stc mcp-proxy -- server`), initializes,
      makes CALLS calls of each tool case below one after another and writes
      per-case latencies (microseconds) to OUT.json.
  mcp_client.py fetch OUTDIR NAME... -- COMMAND [ARGS...]
      Calls the fixture's `corpus` tool for each NAME and writes the text of
      the first content block to OUTDIR/NAME. With MCP_BENCH_RETRIEVE=TOOL,
      every stash marker's key in that text is passed to TOOL and the result
      written to OUTDIR/NAME.KEY.retrieved (a tool error ends the run).

The client lists the tools after initializing, as real clients do (the
proxy's retrieve tool, and with it truncation, needs that).

Raw lines over pipes keep the client's own cost small and equal on both sides.
Every read has a deadline, so a hang ends the run with an error.
"""

import json
import os
import re
import select
import subprocess
import sys
import time

CASES = [
    ("words (not JSON, passed through)", "words", {}),
    ("table 40 rows (3 KB, re-encoded)", "table", {"rows": 40}),
    ("table 1000 rows (80 KB, re-encoded)", "table", {"rows": 1000}),
]
DEADLINE_S = 60


class Server:
    def __init__(self, command):
        self.proc = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
        )
        self.buf = b""
        self.next_id = 0

    def readline(self):
        end = time.monotonic() + DEADLINE_S
        fd = self.proc.stdout.fileno()
        while b"\n" not in self.buf:
            left = end - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                raise SystemExit("mcp_client: no answer within %d s" % DEADLINE_S)
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                raise SystemExit("mcp_client: the server closed its output")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return line

    def request(self, method, params):
        self.next_id += 1
        rid = self.next_id
        msg = {"jsonrpc": "2.0", "id": rid, "method": method, "params": params}
        self.proc.stdin.write(json.dumps(msg).encode() + b"\n")
        self.proc.stdin.flush()
        while True:
            reply = json.loads(self.readline())
            if reply.get("id") == rid and "method" not in reply:
                if "error" in reply:
                    raise SystemExit("mcp_client: %s failed: %s" % (method, reply["error"]))
                return reply["result"]

    def initialize(self):
        self.request(
            "initialize",
            {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}},
        )
        self.proc.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        self.proc.stdin.flush()

    def close(self):
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=DEADLINE_S)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            raise SystemExit("mcp_client: the server did not exit")


def main():
    argv = sys.argv[1:]
    if "--" not in argv or len(argv) < 3:
        raise SystemExit(__doc__)
    split = argv.index("--")
    mode, rest, command = argv[0], argv[1:split], argv[split + 1 :]
    server = Server(command)
    server.initialize()
    server.request("tools/list", {})
    if mode == "latency":
        calls, out = int(rest[0]), rest[1]
        result = {}
        for label, tool, args in CASES:
            for _ in range(5):  # warm-up
                server.request("tools/call", {"name": tool, "arguments": args})
            times = []
            for _ in range(calls):
                t0 = time.perf_counter_ns()
                server.request("tools/call", {"name": tool, "arguments": args})
                times.append((time.perf_counter_ns() - t0) / 1000)
            result[label] = times
        with open(out, "w") as f:
            json.dump(result, f)
    elif mode == "fetch":
        outdir, names = rest[0], rest[1:]
        for name in names:
            r = server.request("tools/call", {"name": "corpus", "arguments": {"name": name}})
            if r.get("isError"):
                raise SystemExit("mcp_client: corpus %s: %s" % (name, r))
            text = r["content"][0]["text"]
            with open(os.path.join(outdir, name), "w", encoding="utf-8", newline="") as f:
                f.write(text)
            tool = os.environ.get("MCP_BENCH_RETRIEVE")
            # `stc mcp-proxy` writes sealed keys (KEY.TAG); the file is named by the stash key.
            for key in sorted(set(re.findall(r"with key=([0-9a-f]{24}(?:\.[0-9a-f]{16})?)", text))) if tool else []:
                got = server.request("tools/call", {"name": tool, "arguments": {"key": key}})
                if got.get("isError"):
                    raise SystemExit("mcp_client: %s %s: %s" % (tool, key, got))
                path = os.path.join(outdir, "%s.%s.retrieved" % (name, key.split(".")[0]))
                with open(path, "w", encoding="utf-8", newline="") as f:
                    f.write(got["content"][0]["text"])
    else:
        raise SystemExit(__doc__)
    server.close()


if __name__ == "__main__":
    main()
