"""stc.http: the httpx transports (sync, async) and the requests adapter against
a real upstream server process on 127.0.0.1 (tests/http_upstream.py), and end
to end through a real ``stc proxy`` process in front of that upstream. The
``stc`` binary is ``$STC_BIN``, else this checkout's debug build (``cargo build
-p stc-cli``, run by the fixture)."""

from __future__ import annotations

import asyncio
import contextlib
import doctest
import json
import os
import re
import selectors
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import httpx
import pytest
import requests

import stc
import stc.http
from stc.http import DEFAULT_ACCEPT, AsyncSTCTransport, STCTransport, UnsupportedSTCVersion

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from http_upstream import BROKEN_STC, V2_JSON, V2_STC, corpus_dir  # noqa: E402


def _core_reads_v2() -> bool:
    try:
        return bool(json.loads(stc.decode(V2_STC, version=2)) == V2_JSON)
    except stc.STCDecodeError:
        return False


V2_READY = pytest.mark.skipif(not _core_reads_v2(), reason="stc-core does not read STC version 2 constructs yet")

REPO = HERE.parents[1]
DOCS = sorted(p.name for p in corpus_dir().glob("*.json"))
SMALL_DOCS = [d for d in DOCS if (corpus_dir() / d).stat().st_size < 300_000]


def _read_line(proc: subprocess.Popen[str], what: str, stderr: IO[str], timeout: float = 60.0) -> str:
    """The first line the process prints, or a clear failure (no hang)."""
    assert proc.stdout is not None
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)
    try:
        if not sel.select(timeout):
            proc.kill()
            pytest.fail(f"{what} printed nothing within {timeout} s")
    finally:
        sel.close()
    line = proc.stdout.readline()
    if not line:
        code = proc.wait()
        stderr.seek(0)
        pytest.fail(f"{what} exited (code {code}) before printing its address: {stderr.read()}")
    return line.strip()


def _stop(proc: subprocess.Popen[str]) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


@contextlib.contextmanager
def _process(args: list[str], what: str) -> Iterator[str]:
    """Runs ``args``; yields its first line of output; stops it afterwards.

    stderr goes to a file (a pipe nobody reads would fill up and block the
    proxy's per-request log lines)."""
    with tempfile.TemporaryFile("w+") as stderr:
        proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=stderr, text=True)
        try:
            yield _read_line(proc, what, stderr)
        finally:
            _stop(proc)
            if proc.stdout is not None:
                proc.stdout.close()


@pytest.fixture(scope="module")
def upstream() -> Iterator[str]:
    with _process([sys.executable, str(HERE / "http_upstream.py")], "tests/http_upstream.py") as line:
        assert line.startswith("listening http://127.0.0.1:"), line
        yield line.split(" ", 1)[1]


def stc_binary() -> str:
    """``$STC_BIN`` (set by scripts/test-all.sh), else this checkout's debug
    ``stc``, built now if needed; fails (never skips) when there is none."""
    env = os.environ.get("STC_BIN")
    if env:
        if not Path(env).is_file():
            pytest.fail(f"STC_BIN={env} does not exist")
        return env
    target = Path(os.environ.get("CARGO_TARGET_DIR") or REPO / "target")
    try:
        built = subprocess.run(["cargo", "build", "--quiet", "-p", "stc-cli"], cwd=REPO, timeout=1800)
        status = f"exit {built.returncode}"
    except (OSError, subprocess.TimeoutExpired) as e:
        status = str(e)
    binary = target / "debug" / "stc"
    if not binary.is_file():
        pytest.fail(f"no stc binary: set STC_BIN or make `cargo build -p stc-cli` work ({status}); looked for {binary}")
    return str(binary)


@pytest.fixture(scope="module")
def proxy(upstream: str) -> Iterator[str]:
    args = [stc_binary(), "proxy", "--listen", "127.0.0.1:0", "--upstream", upstream]
    with _process(args, "stc proxy") as line:
        m = re.search(r"http://127\.0\.0\.1:\d+", line)
        assert m is not None, f"stc proxy printed no address: {line}"
        yield m.group(0)


def minified(name: str) -> str:
    """The upstream document as minified JSON, number lexemes and key order kept."""
    return stc.decode((corpus_dir() / name).read_bytes())


def expected_value(name: str) -> Any:
    return json.loads((corpus_dir() / name).read_bytes())


# --- the three clients behind one small interface --------------------------------------


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    text: str
    content: bytes
    value: Any


def _value(f: Callable[[], Any]) -> Any:
    try:
        return f()
    except ValueError:
        return None


def get_httpx(url: str, headers: dict[str, str] | None = None, method: str = "GET", **kw: Any) -> Answer:
    with httpx.Client(transport=STCTransport(**kw)) as client:
        r = client.request(method, url, headers=headers)
        return Answer(r.status_code, dict(r.headers), r.text, r.content, _value(r.json))


def get_httpx_async(url: str, headers: dict[str, str] | None = None, method: str = "GET", **kw: Any) -> Answer:
    async def run() -> Answer:
        async with httpx.AsyncClient(transport=AsyncSTCTransport(**kw)) as client:
            r = await client.request(method, url, headers=headers)
            return Answer(r.status_code, dict(r.headers), r.text, r.content, _value(r.json))

    return asyncio.run(run())


def get_requests(url: str, headers: dict[str, str] | None = None, method: str = "GET", **kw: Any) -> Answer:
    with stc.http.session(**kw) as s:
        r = s.request(method, url, headers=headers)
        return Answer(r.status_code, {k.lower(): v for k, v in r.headers.items()}, r.text, r.content, _value(r.json))


CLIENTS = {"httpx": get_httpx, "httpx-async": get_httpx_async, "requests": get_requests}
Client = Callable[..., Answer]


@pytest.fixture(params=sorted(CLIENTS))
def client(request: pytest.FixtureRequest) -> Client:
    return CLIENTS[request.param]


def assert_decoded_json(a: Answer, name: str) -> None:
    """The body is the upstream's minified JSON, with headers that say so."""
    assert a.status == 200
    assert a.text == minified(name)
    assert a.value == expected_value(name)
    assert a.headers["content-type"] == "application/json"
    assert a.headers["content-length"] == str(len(a.content))
    assert a.content == a.text.encode("utf-8")
    assert "content-encoding" not in a.headers


# --- against the upstream directly: STC made by the binding's own encoder -------------


def test_accept_is_added(upstream: str, client: Client) -> None:
    a = client(f"{upstream}/echo")
    assert a.value["accept"] == DEFAULT_ACCEPT
    assert a.value["accept_encoding"] is None or "stc" not in a.value["accept_encoding"]


def test_explicit_accept_is_kept(upstream: str, client: Client) -> None:
    a = client(f"{upstream}/echo", headers={"Accept": "text/csv"})
    assert a.value["accept"] == "text/csv"


def test_accept_none_leaves_the_default(upstream: str, client: Client) -> None:
    a = client(f"{upstream}/echo", accept=None)
    assert a.value["accept"] == "*/*"


def test_custom_accept(upstream: str, client: Client) -> None:
    a = client(f"{upstream}/echo", accept="application/stc+json")
    assert a.value["accept"] == "application/stc+json"


@pytest.mark.parametrize("name", DOCS)
def test_stc_media_type_is_decoded(upstream: str, client: Client, name: str) -> None:
    a = client(f"{upstream}/stc/{name}")
    assert_decoded_json(a, name)
    assert a.headers["x-stc-version"] == "1"


@pytest.mark.parametrize("route", ["stc-ce", "stc-gzip", "stc-ce-gzip", "stc-ce-deflate"])
@pytest.mark.parametrize("name", SMALL_DOCS)
def test_stc_content_encodings_are_decoded(upstream: str, client: Client, route: str, name: str) -> None:
    assert_decoded_json(client(f"{upstream}/{route}/{name}"), name)


def test_corrupt_coding_on_top_of_stc_is_an_error(upstream: str, client: Client) -> None:
    # httpx undoes gzip itself (httpx.DecodingError); the requests adapter does it (ValueError).
    with pytest.raises((ValueError, httpx.DecodingError)) as info:
        client(f"{upstream}/stc-ce-badgzip/github_events.json")
    assert not isinstance(info.value, stc.STCDecodeError), "the gzip layer is reported, not an STC error"
    assert "gzip" in str(info.value).lower() or "decompress" in str(info.value).lower(), str(info.value)


@pytest.mark.parametrize("name", ["twitter_api_response.json", "github_events.json"])
def test_json_passes_untouched(upstream: str, client: Client, name: str) -> None:
    a = client(f"{upstream}/json/{name}")
    raw = (corpus_dir() / name).read_bytes()
    assert a.content == raw  # as stored, not re-serialized
    assert a.headers["content-type"] == "application/json"
    assert a.headers["content-length"] == str(len(raw))


def test_other_media_types_pass_untouched(upstream: str, client: Client) -> None:
    a = client(f"{upstream}/text")
    assert a.text == "hello, not JSON"
    assert a.headers["content-type"] == "text/plain; charset=utf-8"


def test_head_and_204_are_not_decoded(upstream: str, client: Client) -> None:
    head = client(f"{upstream}/stc/github_events.json", method="HEAD")
    assert head.status == 200
    assert head.content == b""
    assert head.headers["content-type"] == "application/stc+json"
    empty = client(f"{upstream}/no-content")
    assert empty.status == 204
    assert empty.content == b""


def test_request_body_is_sent(upstream: str) -> None:
    with httpx.Client(transport=STCTransport()) as c:
        assert c.post(f"{upstream}/echo", content=b"x" * 1000).json()["body_length"] == 1000
    with stc.http.session() as s:
        assert s.post(f"{upstream}/echo", data=b"y" * 777).json()["body_length"] == 777


def broken_error() -> stc.STCDecodeError:
    with pytest.raises(stc.STCDecodeError) as info:
        stc.decode(BROKEN_STC)
    return info.value


@pytest.mark.parametrize("route", ["broken", "broken-ce"])
def test_stc_body_error_has_line_and_column(upstream: str, client: Client, route: str) -> None:
    want = broken_error()
    assert (want.lineno, want.colno) == (3, 16)
    url = f"{upstream}/{route}"
    with pytest.raises(stc.STCDecodeError) as info:
        client(url)
    e = info.value
    assert (e.kind, e.lineno, e.colno, e.pos, e.offset) == (want.kind, want.lineno, want.colno, want.pos, want.offset)
    assert e.kind == "unexpected_char"
    assert url in str(e)
    assert f"line {want.lineno} column {want.colno}" in str(e)
    assert isinstance(e, json.JSONDecodeError)


def test_unknown_version_is_refused(upstream: str, client: Client) -> None:
    with pytest.raises(UnsupportedSTCVersion) as info:
        client(f"{upstream}/v3")
    assert info.value.version == "3"
    assert "/v3" in str(info.value) and "versions 1, 2" in str(info.value)
    assert isinstance(info.value, ValueError)


def test_version_2_is_asked_for(upstream: str, client: Client) -> None:
    a = client(f"{upstream}/echo", version=2)
    assert a.value["accept"] == "application/stc+json; version=2, application/json;q=0.9"
    assert a.value["accept"] == stc.http.accept_header(2)
    # The caller's own Accept still wins.
    assert client(f"{upstream}/echo", version=2, accept="application/json").value["accept"] == "application/json"


def test_a_bad_client_version_is_the_cores_error() -> None:
    for make in (STCTransport, AsyncSTCTransport, stc.http.STCAdapter):
        with pytest.raises(ValueError, match=r'unknown version "3" \(expected one of: 1, 2\)'):
            make(version=3)  # type: ignore[arg-type]


@pytest.mark.parametrize("asked", [1, 2])
def test_the_stated_version_decodes(upstream: str, client: Client, asked: int) -> None:
    # A version 2 response holding version 1 text: decoded whatever was asked.
    a = client(f"{upstream}/v2-typed-v1-body", version=asked)
    assert a.value == [{"a": 1}, {"a": 2}]
    assert a.headers["x-stc-version"] == "2"


@V2_READY
@pytest.mark.parametrize("route", ["v2", "v2-ce"])
def test_a_v2_body_is_decoded_with_the_version_it_states(upstream: str, client: Client, route: str) -> None:
    assert client(f"{upstream}/{route}", version=2).value == V2_JSON
    assert client(f"{upstream}/{route}").value == V2_JSON  # the response's word, not the request's


@V2_READY
def test_a_v2_body_announced_as_v1_is_an_error_not_a_guess(upstream: str, client: Client) -> None:
    with pytest.raises(stc.STCDecodeError) as info:
        client(f"{upstream}/v2-as-v1", version=2)
    assert info.value.kind == "newer_version"


def test_response_version_parsing() -> None:
    rv = stc.http.response_version
    url = "http://127.0.0.1/x"
    assert rv(None, None, url) == 1
    assert rv("application/stc+json", None, url) == 1
    assert rv('application/stc+json; charset=utf-8; Version="2"', None, url) == 2
    assert rv("application/stc+json", "2", url) == 2
    assert rv("application/stc+json; version=1", "2", url) == 1  # the media type's parameter wins
    for bad in ("3", "", "2.0", "v2"):
        with pytest.raises(UnsupportedSTCVersion):
            rv(f"application/stc+json; version={bad}", None, url)


def test_streaming_json_is_not_read_ahead(upstream: str) -> None:
    name = "twitter.json"
    raw = (corpus_dir() / name).read_bytes()
    with httpx.Client(transport=STCTransport()) as c, c.stream("GET", f"{upstream}/json/{name}") as r:
        assert not r.is_stream_consumed
        assert b"".join(r.iter_bytes()) == raw


def test_max_depth_applies(upstream: str, client: Client) -> None:
    # github_events.json nests deeper than 2 levels.
    with pytest.raises(stc.STCDecodeError) as info:
        client(f"{upstream}/stc/github_events.json", max_depth=2)
    assert info.value.kind == "depth_limit"


def test_import_stc_needs_neither_httpx_nor_requests() -> None:
    code = """
import sys
sys.modules["httpx"] = None
sys.modules["requests"] = None
import stc, stc.http
assert stc.loads("([1]: 2)") == [2]
assert stc.http.is_stc("application/stc+json", None)
for name, lib in [("STCTransport", "httpx"), ("AsyncSTCTransport", "httpx"), ("STCAdapter", "requests"),
                  ("session", "requests")]:
    try:
        getattr(stc.http, name)
    except ImportError as e:
        assert f"stc-json[{lib}]" in str(e), e
    else:
        raise AssertionError(name + " should need " + lib)
try:
    from stc.http import STCTransport
except ImportError as e:
    assert "httpx" in str(e)
else:
    raise AssertionError("from-import should fail")
print("ok")
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


def test_requests_adapter_is_a_http_adapter() -> None:
    with stc.http.session() as s:
        adapter = s.get_adapter("http://127.0.0.1/")
        assert isinstance(adapter, stc.http.STCAdapter)
        assert isinstance(adapter, requests.adapters.HTTPAdapter)
        assert isinstance(s.get_adapter("https://example.invalid/"), stc.http.STCAdapter)


def test_corpus_is_there() -> None:
    assert corpus_dir().is_dir(), f"corpus not found at {corpus_dir()} (set STC_CORPUS)"
    assert len(DOCS) >= 10, DOCS


def test_module_docstring_examples() -> None:
    result = doctest.testmod(stc.http, verbose=False)
    assert result.attempted >= 4
    assert result.failed == 0


# --- end to end: stc proxy in front of the upstream ---------------------------------


@pytest.mark.parametrize("name", DOCS)
def test_through_proxy(proxy: str, client: Client, name: str) -> None:
    raw = (corpus_dir() / name).read_bytes()
    a = client(f"{proxy}/json/{name}")
    assert a.status == 200
    via_stc = a.headers.get("x-stc-version") == "1"
    # The proxy's gate (estimate tokenizer, 5 % saving) chooses as stc-core's gate does.
    assert ("stc" if via_stc else "json") == stc.encode_gated(raw.decode("utf-8")).chosen
    # STC decodes to the document minified (lexemes, key order kept); when the gate keeps JSON, a client
    # that asked for STC gets it minified too (spec 7.2), so the text is the same either way.
    assert a.text == minified(name)
    assert a.value == expected_value(name)
    assert a.headers["content-type"] == "application/json"
    if via_stc:
        assert a.headers["content-length"] == str(len(a.content))
        assert re.fullmatch(r"\d\.\d\d", a.headers["x-stc-ratio"])


def test_through_proxy_some_documents_are_stc(proxy: str) -> None:
    # The corpus has documents on both sides of the gate; make sure both paths ran.
    chosen = {stc.encode_gated((corpus_dir() / d).read_text(encoding="utf-8")).chosen for d in DOCS}
    assert chosen == {"stc", "json"}


def test_through_proxy_accept_encoding_stc(proxy: str, client: Client) -> None:
    name = "instruments.json"
    with httpx.Client() as plain:
        r = plain.get(f"{proxy}/json/{name}", headers={"Accept-Encoding": "stc"})
        assert "stc" in r.headers.get("content-encoding", ""), "the proxy answers Accept-Encoding: stc in kind"
    a = client(f"{proxy}/json/{name}", headers={"Accept-Encoding": "stc"}, accept=None)
    assert_decoded_json(a, name)


def test_through_proxy_small_and_broken(proxy: str, client: Client) -> None:
    small = client(f"{proxy}/small")
    assert "x-stc-version" not in small.headers
    assert small.value == [1, 2, 3]
    with pytest.raises(stc.STCDecodeError) as info:
        client(f"{proxy}/broken")
    assert (info.value.lineno, info.value.colno) == (3, 16)


def test_readme_http_example_runs_through_the_proxy(proxy: str) -> None:
    text = (REPO / "bindings-python" / "README.md").read_text(encoding="utf-8")
    block = re.search(r"## HTTP: read STC.*?```python\n(.*?)```", text, re.S)
    assert block is not None, "README.md has no HTTP example"
    code = block.group(1)
    assert code.count("http://127.0.0.1:8080/api/users") == 2
    name = "twitter_timeline.json"  # the proxy sends it as STC
    namespace: dict[str, Any] = {}
    exec(
        compile(code.replace("http://127.0.0.1:8080/api/users", f"{proxy}/json/{name}"), "README.md", "exec"), namespace
    )
    assert namespace["users"] == expected_value(name)
    namespace["client"].close()
    namespace["session"].close()
