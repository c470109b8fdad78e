"""An upstream HTTP server for the tests of :mod:`stc.http`, run as its own process.

``python tests/http_upstream.py`` binds 127.0.0.1 on a free port, prints
``listening http://127.0.0.1:PORT`` and serves until killed. Routes (GET and
HEAD; POST to ``/echo``):

- ``/json/NAME``: corpus document ``NAME`` as stored, ``application/json``
- ``/stc/NAME``: its STC (made by ``stc.encode``), ``application/stc+json``
- ``/stc-ce/NAME``: the same with ``Content-Encoding: stc`` (ADR-066's form)
- ``/stc-gzip/NAME``: the STC gzipped, ``Content-Encoding: gzip``
- ``/stc-ce-gzip/NAME``: gzipped, ``Content-Encoding: stc, gzip``
- ``/stc-ce-deflate/NAME``: zlib-deflated, ``Content-Encoding: stc, deflate``
- ``/stc-ce-badgzip/NAME``: ``Content-Encoding: stc, gzip`` on a body that is not gzip
- ``/broken``: an invalid STC body, ``application/stc+json``
- ``/broken-ce``: the same body as ``application/json`` with ``Content-Encoding: stc``
- ``/v2``: an STC version 2 body (a column group), ``application/stc+json; version=2``
  and ``X-STC-Version: 2``
- ``/v2-ce``: the same body as ``application/json`` with ``Content-Encoding: stc``
  and ``X-STC-Version: 2`` (no media type parameter)
- ``/v2-as-v1``: the same body announced as version 1 (no parameter, ``X-STC-Version: 1``)
- ``/v2-typed-v1-body``: a version 1 body announced as version 2 (v2 reads v1)
- ``/v3``: announced as ``application/stc+json; version=3``
- ``/small``: ``[1,2,3]`` (STC saves nothing on it: a gate keeps JSON)
- ``/echo``: JSON with the method, ``Accept``, ``Accept-Encoding`` and request body length
- ``/no-content``: 204 with ``Content-Type: application/stc+json``
- ``/text``: ``text/plain``
"""

from __future__ import annotations

import gzip
import json
import os
import sys
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import stc

#: STC version 2 (a column group) and the JSON it stands for.
V2_STC = b'([2]{id,user{id,name},text}: 1,5,"bob","hi" / 2,6,"al","yo")'
V2_JSON = [
    {"id": 1, "user": {"id": 5, "name": "bob"}, "text": "hi"},
    {"id": 2, "user": {"id": 6, "name": "al"}, "text": "yo"},
]

#: An invalid STC text: a missing ',' at line 3 column 16.
BROKEN_STC = b'{\n  ok: true,\n  tags[2]: "a" "b"\n}'


def corpus_dir() -> Path:
    """``$STC_CORPUS``, else ``shared/corpus`` beside the repository, else ``/work/shared/corpus``."""
    env = os.environ.get("STC_CORPUS")
    if env:
        return Path(env)
    beside = Path(__file__).resolve().parents[3] / "shared" / "corpus"
    return beside if beside.is_dir() else Path("/work/shared/corpus")


class Handler(BaseHTTPRequestHandler):
    """The routes above."""

    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:
        pass

    def _send(self, status: int, headers: dict[str, str], body: bytes) -> None:
        self.send_response(status)
        for k, v in headers.items():
            self.send_header(k, v)
        if status != 204:
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD" and status != 204:
            self.wfile.write(body)

    def _document(self, name: str) -> bytes | None:
        if "/" in name or name.startswith("."):
            return None
        path = corpus_dir() / name
        return path.read_bytes() if path.is_file() else None

    def do_HEAD(self) -> None:
        self.do_GET()

    def do_POST(self) -> None:
        self.do_GET()

    def do_GET(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        request_body = self.rfile.read(length) if length else b""
        path = self.path.split("?", 1)[0]
        stc_type = {"Content-Type": "application/stc+json", "X-STC-Version": "1"}
        if path == "/echo":
            info = {
                "method": self.command,
                "accept": self.headers.get("Accept"),
                "accept_encoding": self.headers.get("Accept-Encoding"),
                "body_length": len(request_body),
            }
            return self._send(200, {"Content-Type": "application/json"}, json.dumps(info).encode())
        if path == "/broken":
            return self._send(200, stc_type, BROKEN_STC)
        if path == "/broken-ce":
            return self._send(200, {"Content-Type": "application/json", "Content-Encoding": "stc"}, BROKEN_STC)
        v2_type = {"Content-Type": "application/stc+json; version=2", "X-STC-Version": "2"}
        if path == "/v2":
            return self._send(200, v2_type, V2_STC)
        if path == "/v2-ce":
            headers = {"Content-Type": "application/json", "Content-Encoding": "stc", "X-STC-Version": "2"}
            return self._send(200, headers, V2_STC)
        if path == "/v2-as-v1":
            return self._send(200, stc_type, V2_STC)
        if path == "/v2-typed-v1-body":
            return self._send(200, v2_type, b"([2]{a}: 1 / 2)")
        if path == "/v3":
            return self._send(200, {"Content-Type": "application/stc+json; version=3", "X-STC-Version": "3"}, b"([1]: 1)")
        if path == "/small":
            return self._send(200, {"Content-Type": "application/json"}, b"[1,2,3]")
        if path == "/no-content":
            return self._send(204, stc_type, b"")
        if path == "/text":
            return self._send(200, {"Content-Type": "text/plain; charset=utf-8"}, b"hello, not JSON")
        route, _, name = path.lstrip("/").partition("/")
        doc = self._document(name)
        if doc is None:
            return self._send(404, {"Content-Type": "text/plain"}, b"no such document")
        if route == "json":
            return self._send(200, {"Content-Type": "application/json"}, doc)
        body = stc.encode(doc).encode("utf-8")
        if route == "stc":
            return self._send(200, stc_type, body)
        if route == "stc-ce":
            return self._send(200, {**stc_type, "Content-Encoding": "stc"}, body)
        if route == "stc-gzip":
            return self._send(200, {**stc_type, "Content-Encoding": "gzip"}, gzip.compress(body))
        if route == "stc-ce-deflate":
            return self._send(200, {**stc_type, "Content-Encoding": "stc, deflate"}, zlib.compress(body))
        if route == "stc-ce-badgzip":
            return self._send(200, {**stc_type, "Content-Encoding": "stc, gzip"}, body)  # not gzip at all
        if route == "stc-ce-gzip":
            return self._send(200, {**stc_type, "Content-Encoding": "stc, gzip"}, gzip.compress(body))
        return self._send(404, {"Content-Type": "text/plain"}, b"no such route")


def main() -> None:
    """Serve on 127.0.0.1, port 0, until killed."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print(f"listening http://127.0.0.1:{server.server_address[1]}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    sys.exit(0)


if __name__ == "__main__":
    main()
