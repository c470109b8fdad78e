"""Per-call latency of `tools/call` over Streamable HTTP in three set-ups, for
bench/services/mcp-proxy.sh:

  direct    the Python SDK 2.x fixture (tests/fixtures/http_server.py) under uvicorn
  upstream  stc mcp-proxy --listen 127.0.0.1:0 --upstream <that server's URL>
  stdio     stc mcp-proxy --listen 127.0.0.1:0 -- <the same fixture over stdio>

    python http_cases.py STC PYTHON2 CALLS OUT.json

PYTHON2 runs the fixture (the `mcp` 2.x venv); the timing client is
http_overhead.py (standard library, one keep-alive connection, 20 warm-up
calls). Writes {"direct": {...}, "upstream": {...}, "stdio": {...}}, each
http_overhead.py's line. Loopback only; every process started here is
stopped here; each step is bounded by a timeout, and a failure says which set-up
failed and how.
"""

import json
import os
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SERVER = os.path.join(HERE, "..", "tests", "fixtures", "http_server.py")
OVERHEAD = os.path.join(HERE, "http_overhead.py")


def first_line(proc, what, timeout=60):
    """The first stdout line of a process, or SystemExit naming `what`."""
    import selectors

    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if sel.select(timeout=0.5):
            line = proc.stdout.readline()
            if line:
                return line.strip()
        if proc.poll() is not None:
            proc.log.seek(0)
            raise SystemExit(f"http_cases.py: {what} exited with {proc.returncode} before it was ready: "
                             f"{proc.log.read()[-500:]}")
    raise SystemExit(f"http_cases.py: {what} printed nothing within {timeout} s")


def start(cmd, what):
    # stderr (uvicorn's access log among others) to a file, so that no pipe fills up.
    log = tempfile.TemporaryFile("w+")
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=log, text=True)
    proc.log = log
    started.append(proc)
    return proc, first_line(proc, what)


def proxy_url(line, what):
    prefix = "stc mcp-proxy: listening on "
    if not line.startswith(prefix):
        raise SystemExit(f"http_cases.py: {what}: unexpected first line {line!r}")
    return line[len(prefix):]


def time_calls(url, calls, what):
    try:
        out = subprocess.run([sys.executable, OVERHEAD, url, str(calls)], capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired:
        raise SystemExit(f"http_cases.py: {what}: {calls} calls took more than 300 s")
    if out.returncode != 0:
        raise SystemExit(f"http_cases.py: {what}: http_overhead.py failed: {out.stderr.strip()[-500:]}")
    return json.loads(out.stdout)


started = []


def main():
    stc, py2, calls, path = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    result = {}
    try:
        _, port = start([py2, SERVER, "--http"], "the 2.x fixture under uvicorn (http_server.py --http)")
        direct = f"http://127.0.0.1:{int(port)}/mcp"
        # It prints the port before uvicorn accepts connections: wait for that (30 s at most).
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", int(port)), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline or started[0].poll() is not None:
                    raise SystemExit("http_cases.py: the 2.x fixture under uvicorn never accepted a connection")
                time.sleep(0.1)
        result["direct"] = time_calls(direct, calls, "direct")
        what = "stc mcp-proxy --listen --upstream"
        _, line = start([stc, "mcp-proxy", "--quiet", "--listen", "127.0.0.1:0", "--upstream", direct], what)
        result["upstream"] = time_calls(proxy_url(line, what), calls, what)
        what = "stc mcp-proxy --listen -- http_server.py (stdio)"
        _, line = start([stc, "mcp-proxy", "--quiet", "--listen", "127.0.0.1:0", "--", py2, SERVER], what)
        result["stdio"] = time_calls(proxy_url(line, what), calls, what)
    finally:
        for proc in reversed(started):
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
    with open(path, "w") as f:
        json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
