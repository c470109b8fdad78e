"""Per-call latency of `tools/call` over Streamable HTTP, for `stc mcp-proxy --listen`.

    python http_overhead.py URL [CALLS] [ROWS]

A raw HTTP/1.1 client (standard library, one keep-alive connection) does the
2025-11-25 handshake at URL, then CALLS (default 200) sequential calls of the
fixture's `table(rows=ROWS)` (default 40) with `Accept: application/json,
text/event-stream`, after 20 warm-up calls; prints p50, p90, p99 and max in
milliseconds, and the bytes of the last response, as one JSON line.
"""

import http.client
import json
import sys
import time
import urllib.parse


def main():
    url = urllib.parse.urlsplit(sys.argv[1])
    calls = int(sys.argv[2]) if len(sys.argv) > 2 else 200
    rows = int(sys.argv[3]) if len(sys.argv) > 3 else 40
    conn = http.client.HTTPConnection(url.hostname, url.port, timeout=30)
    headers = {"content-type": "application/json", "accept": "application/json, text/event-stream"}

    def post(body):
        conn.request("POST", url.path, json.dumps(body), headers)
        r = conn.getresponse()
        data = r.read()
        return r, data

    r, _ = post({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}}})
    session = r.getheader("mcp-session-id")
    if session:
        headers["mcp-session-id"] = session
    headers["mcp-protocol-version"] = "2025-11-25"
    post({"jsonrpc": "2.0", "method": "notifications/initialized"})
    times = []
    size = 0
    for i in range(20 + calls):
        t = time.perf_counter()
        r, data = post({"jsonrpc": "2.0", "id": i + 1, "method": "tools/call",
                        "params": {"name": "table", "arguments": {"rows": rows}}})
        dt = time.perf_counter() - t
        if r.status != 200 or b'"result"' not in data:
            raise SystemExit(f"call {i}: HTTP {r.status}: {data[:200]!r}")
        size = len(data)
        if i >= 20:
            times.append(dt * 1000)
    times.sort()
    q = lambda p: round(times[min(len(times) - 1, int(p * len(times)))], 3)
    print(json.dumps({"url": sys.argv[1], "calls": calls, "rows": rows, "p50_ms": q(0.5), "p90_ms": q(0.9),
                      "p99_ms": q(0.99), "max_ms": round(times[-1], 3), "response_bytes": size}))


if __name__ == "__main__":
    main()
