"""An upstream JSON API for the proxy tests: a separate process, standard library only.

With `--tls CERT KEY` it serves HTTPS. Prints its port on the first line of stdout, then one line `got METHOD PATH`
per request once the request has been read (tests wait for it before they
act on an in-flight request). Stops when its stdin closes or it is killed.
"""

import gzip
import http.server
import json
import sys
import threading
import time
import urllib.parse

TABLE = [{"id": i, "name": f"user{i}", "active": i % 2 == 0, "email": f"user{i}@example.com"} for i in range(40)]
TABLE_BYTES = json.dumps(TABLE, indent=2).encode()
NUMBERS_BYTES = b"[\n  1,\n  2,\n  3,\n  4.5e3\n]\n"
# Records with an optional key: a table only in STC version 2 (absent cells).
OPTIONAL_BYTES = json.dumps(
    [dict({"id": i, "name": f"user{i}", "score": i * 7 % 100}, **({"email": f"user{i}@example.com"} if i % 3 == 0 else {}))
     for i in range(60)]
).encode()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send(self, status, body, content_type="application/json", extra=()):
        self.send_response(status)
        if content_type:
            self.send_header("Content-Type", content_type)
        for name, value in extra:
            self.send_header(name, value)
        if status not in (204, 304):
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD" and status not in (204, 304):
            self.wfile.write(body)

    def route(self):
        url = urllib.parse.urlsplit(self.path)
        query = dict(urllib.parse.parse_qsl(url.query))
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            body = self.read_chunked()
        print(f"got {self.command} {url.path}", flush=True)
        path = url.path
        if path == "/table":
            self.send(200, TABLE_BYTES, extra=[("ETag", '"v1"'), ("Vary", "Origin")])
        elif path == "/etag":
            # A validator and If-None-Match with weak comparison (RFC 9110 13.1.2), as most servers do;
            # the 304 repeats Content-Type, as many frameworks do.
            extra = [("ETag", '"e1"'), ("Vary", "Origin"), ("Cache-Control", "max-age=60")]
            tags = [t.strip() for t in self.headers.get("If-None-Match", "").split(",") if t.strip()]
            if any(t == "*" or t.removeprefix("W/") == '"e1"' for t in tags):
                self.send(304, b"", "application/json", extra)
            else:
                self.send(200, TABLE_BYTES, extra=extra)
        elif path == "/cors":
            # The upstream's CORS policy, from the query: origin, expose, credentials.
            extra = [("Access-Control-Allow-Origin", query.get("origin", "*"))]
            if "expose" in query:
                extra.append(("Access-Control-Expose-Headers", query["expose"]))
            if query.get("credentials"):
                extra.append(("Access-Control-Allow-Credentials", "true"))
            self.send(200, NUMBERS_BYTES if query.get("small") else TABLE_BYTES, extra=extra)
        elif path == "/optional":
            self.send(200, OPTIONAL_BYTES)
        elif path == "/numbers":
            self.send(200, NUMBERS_BYTES, extra=[("ETag", '"n1"')] if query.get("etag") else [])
        elif path == "/short":
            # Declares more body than it sends, then closes the connection.
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", "1000")
            if not query.get("silent"):
                self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(b'[{"id": 1}, ')
            self.wfile.flush()
            self.close_connection = True
        elif path == "/varystar":
            self.send(200, TABLE_BYTES, extra=[("Vary", "*")])
        elif path == "/problem":
            self.send(404, json.dumps([{"code": i, "detail": f"missing item {i}"} for i in range(20)]).encode(),
                      "application/problem+json")
        elif path == "/garbage":
            self.send(200, b'{"id": 1, "name": "trunc', "application/json; charset=utf-8")
        elif path == "/text":
            self.send(200, b'[{"id":1},{"id":2}]', "text/plain")
        elif path == "/stc":
            self.send(200, b"([2]{id}:1/2)", "application/stc+json")
        elif path == "/slow":
            time.sleep(float(query.get("ms", "1000")) / 1000)
            self.send(200, TABLE_BYTES)
        elif path == "/stall":
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", "1000")
            self.end_headers()
            self.wfile.write(b'[{"id": 1}, ')
            self.wfile.flush()
            time.sleep(float(query.get("ms", "10000")) / 1000)
        elif path == "/big":
            n = int(query.get("n", "1000"))
            self.send(200, json.dumps(TABLE * n).encode())
        elif path == "/chunked":
            n = int(query.get("n", "1"))
            data = json.dumps(TABLE * n).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for start in range(0, len(data), 1000):
                piece = data[start:start + 1000]
                self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                self.wfile.flush()
            self.wfile.write(b"0\r\n\r\n")
        elif path == "/nocontent":
            self.send(204, b"", None)
        elif path == "/notmodified":
            self.send(304, b"", None, [("ETag", '"v1"')])
        elif path == "/range":
            self.send(206, TABLE_BYTES[:100], extra=[("Content-Range", f"bytes 0-99/{len(TABLE_BYTES)}")])
        elif path == "/gzip":
            self.send(200, gzip.compress(TABLE_BYTES), extra=[("Content-Encoding", "gzip")])
        elif path == "/identity-or-gzip":
            if "gzip" in self.headers.get("Accept-Encoding", ""):
                self.send(200, gzip.compress(TABLE_BYTES), extra=[("Content-Encoding", "gzip")])
            else:
                self.send(200, TABLE_BYTES)
        elif path.startswith("/echo"):
            headers = {k.lower(): v for k, v in self.headers.items()}
            echo = {"method": self.command, "path": self.path, "headers": headers, "body": body.decode("latin-1")}
            self.send(200, json.dumps(echo).encode())
        else:
            self.send(404, b'{"error":"not found"}')

    def read_chunked(self):
        out = b""
        while True:
            size = int(self.rfile.readline().split(b";")[0], 16)
            if size == 0:
                self.rfile.readline()
                return out
            out += self.rfile.read(size)
            self.rfile.readline()

    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = do_HEAD = route


def main():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    if len(sys.argv) == 4 and sys.argv[1] == "--tls":
        # --tls CERT KEY: serve HTTPS with this certificate chain and key.
        import ssl

        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(sys.argv[2], sys.argv[3])
        server.socket = context.wrap_socket(server.socket, server_side=True)
    print(server.server_address[1], flush=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    sys.stdin.read()  # the test closes stdin (or dies): stop


if __name__ == "__main__":
    main()
