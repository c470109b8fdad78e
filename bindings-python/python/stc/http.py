"""STC over HTTP for Python clients: an httpx transport and a requests adapter.

Both ask for STC (``Accept: application/stc+json, application/json;q=0.9``)
and hand back responses whose ``.text``, ``.content`` and ``.json()`` are the
JSON the server meant::

    import httpx, stc.http
    client = httpx.Client(transport=stc.http.STCTransport())
    rows = client.get("http://127.0.0.1:8080/api/users").json()

    import stc.http
    session = stc.http.session()  # a requests.Session with STCAdapter mounted
    rows = session.get("http://127.0.0.1:8080/api/users").json()

A response is STC when its media type is ``application/stc+json`` (what
``stc proxy`` sends) or its ``Content-Encoding`` lists ``stc`` (ADR-066's
form); both are decoded. Such a response is read whole, decoded by
:func:`stc.decode` and replaced by a response with the JSON body and fixed
headers: ``Content-Type: application/json``, ``Content-Length`` of the JSON,
no ``Content-Encoding`` (gzip or br applied on top of STC are undone by the
HTTP library first). ``X-STC-Version`` and ``X-STC-Ratio`` stay, so a caller
can still see that STC was used. Every other response (JSON the gate chose,
other media types, HEAD, 204, 304) is passed on untouched and unread, so
streaming keeps working.

Versions: ``version=2`` asks for STC version 2
(``Accept: application/stc+json; version=2, application/json;q=0.9``); the
default asks for version 1. Whatever was asked, a response is decoded with
the version it states: the ``version`` parameter of its ``Content-Type``
(``application/stc+json; version=2``), else its ``X-STC-Version`` header,
else 1. A version this package does not know raises
:class:`UnsupportedSTCVersion` (the spec says a decoder must not guess).

Errors: an invalid STC body raises :class:`stc.STCDecodeError` (line, column,
kind, offset of the problem in the body; the message names the URL) from the
call that sent the request.

The request's ``Accept`` header is set only when it is absent or ``*/*``
(the default of httpx and requests); an explicit ``Accept`` of the caller is
kept as given, so a caller who asks for something else gets it. Pass
``accept=None`` to never touch ``Accept`` (responses are still decoded).

httpx and requests are optional (``pip install stc-json[httpx]``,
``stc-json[requests]`` or ``stc-json[http]``); ``import stc`` needs neither,
and this module only needs the one whose classes are used.
"""

from __future__ import annotations

import gzip
import importlib
import zlib
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from ._stc import MEDIA_TYPE, VERSIONS, _version, decode
from ._types import STCDecodeError, Version

try:
    import httpx
except ImportError as _e:  # pragma: no cover - exercised in a subprocess test
    _HTTPX_ERROR: ImportError | None = _e
else:
    _HTTPX_ERROR = None

try:
    import requests
    import requests.adapters
    import requests.structures
except ImportError as _e:  # pragma: no cover - exercised in a subprocess test
    _REQUESTS_ERROR: ImportError | None = _e
else:
    _REQUESTS_ERROR = None


def accept_header(version: Version = 1) -> str:
    """The ``Accept`` value the clients send: STC of ``version`` preferred,
    JSON accepted.

    >>> accept_header()
    'application/stc+json, application/json;q=0.9'
    >>> accept_header(2)
    'application/stc+json; version=2, application/json;q=0.9'
    """
    number = _version(version)
    media = MEDIA_TYPE if number == 1 else f"{MEDIA_TYPE}; version={number}"
    return f"{media}, application/json;q=0.9"


#: What the clients send in ``Accept`` by default: STC version 1 preferred, JSON accepted.
DEFAULT_ACCEPT = accept_header(1)

# Headers that describe the STC body and are wrong for the decoded JSON body.
_DROPPED = ("content-encoding", "content-length", "transfer-encoding", "content-type", "content-md5", "digest")


class UnsupportedSTCVersion(ValueError):
    """The response announced an STC version (``Content-Type`` parameter or
    ``X-STC-Version``) this package cannot read."""

    def __init__(self, version: str, url: str) -> None:
        super().__init__(
            f"response from {url} is STC version {version!r}; this package reads versions {', '.join(VERSIONS)}"
        )
        #: The announced version, as sent.
        self.version = version
        #: The URL of the response.
        self.url = url


def is_stc(content_type: str | None, content_encoding: str | None) -> bool:
    """Whether a response with these header values carries an STC body.

    True when the media type is ``application/stc+json`` (parameters and case
    ignored) or when ``Content-Encoding`` lists the ``stc`` coding.

    >>> is_stc("application/stc+json; charset=utf-8", None)
    True
    >>> is_stc("application/json", "stc, gzip")
    True
    >>> is_stc("application/json", "gzip")
    False
    """
    if content_type is not None and content_type.split(";", 1)[0].strip().lower() == MEDIA_TYPE:
        return True
    if content_encoding is not None:
        return "stc" in _codings(content_encoding)
    return False


def _accept_for(accept: str | None, version: Version) -> str | None:
    # The version is checked (by the core) even when ``accept`` is the caller's.
    header = accept_header(version)
    return header if accept == DEFAULT_ACCEPT else accept


def _wants_default_accept(value: str | None) -> bool:
    return value is None or value.strip() in ("", "*/*")


def _media_parameter(content_type: str | None, name: str) -> str | None:
    """The value of parameter ``name`` of a media type (case-insensitive name,
    quotes removed), or None."""
    if content_type is None:
        return None
    for param in content_type.split(";")[1:]:
        key, eq, value = param.partition("=")
        if eq and key.strip().lower() == name:
            return value.strip().strip('"')
    return None


def response_version(content_type: str | None, x_stc_version: str | None, url: str) -> Version:
    """The STC version a response states: the ``version`` parameter of its
    ``Content-Type``, else its ``X-STC-Version``, else 1.

    Raises :class:`UnsupportedSTCVersion` for a version this package does
    not know (never a guess).

    >>> response_version("application/stc+json; version=2", "2", "http://127.0.0.1/x")
    2
    >>> response_version("application/json", None, "http://127.0.0.1/x")
    1
    """
    stated = _media_parameter(content_type, "version")
    if stated is None and x_stc_version is not None:
        stated = x_stc_version.strip()
    if stated is None:
        return 1
    try:
        return _version(stated)
    except ValueError:
        raise UnsupportedSTCVersion(stated, url) from None


def decode_body(body: bytes, url: str, *, max_depth: int | None = None, version: Version = 1) -> bytes:
    """Decode an STC response body of STC ``version`` to UTF-8 JSON bytes.

    Raises :class:`stc.STCDecodeError` with the position in the body and a
    message naming ``url``.

    >>> decode_body(b'([2]{id}: 1 / 2)', "http://127.0.0.1/x")
    b'[{"id":1},{"id":2}]'
    """
    try:
        text = decode(body, max_depth=max_depth, version=version)
    except STCDecodeError as e:
        raise STCDecodeError(
            f"invalid STC body from {url}: {e.msg}", e.doc, e.pos, e.kind, e.offset, e.lineno, e.colno
        ) from e
    return text.encode("utf-8")


def _codings(content_encoding: str | None) -> list[str]:
    if content_encoding is None:
        return []
    return [c for c in (t.strip().lower() for t in content_encoding.split(",")) if c not in ("", "identity")]


def _undo_codings(body: bytes, codings: list[str], url: str) -> bytes:
    # The codings applied on top of STC (``Content-Encoding: stc, gzip``),
    # undone last applied first.
    for coding in reversed(codings):
        if coding == "stc":
            continue
        if coding in ("gzip", "x-gzip"):
            step: Callable[[bytes], bytes] = gzip.decompress
        elif coding == "deflate":
            step = _inflate
        elif coding == "br":
            try:
                step = importlib.import_module("brotli").decompress  # what httpx and urllib3 use for br
            except ImportError:
                raise ValueError(f"the response from {url} is br-compressed; install brotli to read it") from None
        else:
            raise ValueError(f"unsupported Content-Encoding {coding!r} in the response from {url}")
        try:
            body = step(body)
        except Exception as e:  # zlib.error, OSError, EOFError, brotli.error
            raise ValueError(f"the {coding} layer of the response from {url} is corrupt: {e}") from e
    return body


def _inflate(body: bytes) -> bytes:
    try:
        return zlib.decompress(body)
    except zlib.error:
        return zlib.decompress(body, -zlib.MAX_WBITS)  # raw deflate, as some servers send


def _fixed_headers(items: Iterable[tuple[str, str]], length: int) -> list[tuple[str, str]]:
    headers = [(k, v) for k, v in items if k.lower() not in _DROPPED]
    headers.append(("Content-Type", "application/json"))
    headers.append(("Content-Length", str(length)))
    return headers


def _skip_body(method: str, status: int) -> bool:
    # No body to decode: HEAD answers, 204 and 304 (their headers may still
    # describe the STC representation, which is right as it is).
    return method.upper() == "HEAD" or status in (204, 304)


if TYPE_CHECKING or _HTTPX_ERROR is None:

    def _prepare_httpx(request: httpx.Request, accept: str | None) -> None:
        if accept is not None and _wants_default_accept(request.headers.get("accept")):
            request.headers["Accept"] = accept

    def _stc_response_httpx(request: httpx.Request, response: httpx.Response) -> bool:
        if _skip_body(request.method, response.status_code):
            return False
        return is_stc(response.headers.get("content-type"), response.headers.get("content-encoding"))

    def _version_httpx(request: httpx.Request, response: httpx.Response) -> Version:
        h = response.headers
        return response_version(h.get("content-type"), h.get("x-stc-version"), str(request.url))

    def _decoded_httpx(
        request: httpx.Request, response: httpx.Response, max_depth: int | None, version: Version
    ) -> httpx.Response:
        # ``response.content`` is the body with gzip/deflate/br undone; httpx
        # skips codings it does not know, such as ``stc``.
        body = decode_body(response.content, str(request.url), max_depth=max_depth, version=version)
        return httpx.Response(
            status_code=response.status_code,
            headers=_fixed_headers(response.headers.multi_items(), len(body)),
            content=body,
            request=request,
            extensions=response.extensions,
        )

    class STCTransport(httpx.BaseTransport):
        """An httpx transport that asks for STC and decodes STC responses.

        Wraps another transport (default ``httpx.HTTPTransport()``; pass your
        own for TLS, retries, proxies or limits)::

            client = httpx.Client(transport=STCTransport())

        Args:
            transport: the transport that does the HTTP work.
            accept: the ``Accept`` value set on requests that have none (or
                ``*/*``); ``None`` leaves ``Accept`` alone.
            max_depth: nesting limit for decoding (default 128, see
                :func:`stc.decode`).
            version: the STC version to ask for (1 or 2): with the default
                ``accept``, 2 sends :func:`accept_header` ``(2)``. Responses
                are decoded with the version they state.
        """

        def __init__(
            self,
            transport: httpx.BaseTransport | None = None,
            *,
            accept: str | None = DEFAULT_ACCEPT,
            max_depth: int | None = None,
            version: Version = 1,
        ) -> None:
            self._accept = _accept_for(accept, version)
            self._inner = transport if transport is not None else httpx.HTTPTransport()
            self._max_depth = max_depth

        def handle_request(self, request: httpx.Request) -> httpx.Response:
            """Send ``request`` through the wrapped transport; decode an STC answer."""
            _prepare_httpx(request, self._accept)
            response = self._inner.handle_request(request)
            if not _stc_response_httpx(request, response):
                return response
            try:
                version = _version_httpx(request, response)
                response.read()
                return _decoded_httpx(request, response, self._max_depth, version)
            finally:
                response.close()

        def close(self) -> None:
            """Close the wrapped transport."""
            self._inner.close()

    class AsyncSTCTransport(httpx.AsyncBaseTransport):
        """The asynchronous twin of :class:`STCTransport`, for ``httpx.AsyncClient``::

            client = httpx.AsyncClient(transport=AsyncSTCTransport())

        Wraps ``transport`` (default ``httpx.AsyncHTTPTransport()``); ``accept``,
        ``max_depth`` and ``version`` as in :class:`STCTransport`.
        """

        def __init__(
            self,
            transport: httpx.AsyncBaseTransport | None = None,
            *,
            accept: str | None = DEFAULT_ACCEPT,
            max_depth: int | None = None,
            version: Version = 1,
        ) -> None:
            self._accept = _accept_for(accept, version)
            self._inner = transport if transport is not None else httpx.AsyncHTTPTransport()
            self._max_depth = max_depth

        async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
            """Send ``request`` through the wrapped transport; decode an STC answer."""
            _prepare_httpx(request, self._accept)
            response = await self._inner.handle_async_request(request)
            if not _stc_response_httpx(request, response):
                return response
            try:
                version = _version_httpx(request, response)
                await response.aread()
                return _decoded_httpx(request, response, self._max_depth, version)
            finally:
                await response.aclose()

        async def aclose(self) -> None:
            """Close the wrapped transport."""
            await self._inner.aclose()


if TYPE_CHECKING or _REQUESTS_ERROR is None:

    class STCAdapter(requests.adapters.HTTPAdapter):
        """A requests transport adapter that asks for STC and decodes STC responses.

        Mount it on a session (or use :func:`session`)::

            s = requests.Session()
            s.mount("http://", STCAdapter())
            s.mount("https://", STCAdapter())

        ``accept``, ``max_depth`` and ``version`` as in :class:`STCTransport`;
        every other argument goes to :class:`requests.adapters.HTTPAdapter`.
        An STC body is read whole even with ``stream=True``.
        """

        def __init__(
            self,
            *args: Any,
            accept: str | None = DEFAULT_ACCEPT,
            max_depth: int | None = None,
            version: Version = 1,
            **kwargs: Any,
        ) -> None:
            self._accept = _accept_for(accept, version)
            self._max_depth = max_depth
            super().__init__(*args, **kwargs)

        def send(self, request: requests.PreparedRequest, *args: Any, **kwargs: Any) -> requests.Response:
            """Send ``request``; decode an STC answer before returning it."""
            if self._accept is not None and _wants_default_accept(request.headers.get("Accept")):
                request.headers["Accept"] = self._accept
            response = super().send(request, *args, **kwargs)
            method = request.method or "GET"
            if _skip_body(method, response.status_code):
                return response
            if not is_stc(response.headers.get("Content-Type"), response.headers.get("Content-Encoding")):
                return response
            url = request.url or ""
            try:
                h = response.headers
                version = response_version(h.get("Content-Type"), h.get("X-STC-Version"), url)
                codings = _codings(response.headers.get("Content-Encoding"))
                if "stc" in codings and len(codings) > 1:
                    # urllib3 would take the unknown ``stc`` for deflate: undo
                    # the other codings here.
                    raw = response.raw.read(decode_content=False)
                    body = _undo_codings(raw, codings, url)
                else:
                    # ``.content`` undoes gzip/deflate/br; urllib3 skips a lone ``stc``.
                    body = response.content
                body = decode_body(body, url, max_depth=self._max_depth, version=version)
            finally:
                response.close()
            fixed = _fixed_headers(response.headers.items(), len(body))
            response.headers = requests.structures.CaseInsensitiveDict(fixed)
            response._content = body
            response._content_consumed = True  # type: ignore[attr-defined]
            response.encoding = "utf-8"
            return response

    def session(
        *, accept: str | None = DEFAULT_ACCEPT, max_depth: int | None = None, version: Version = 1
    ) -> requests.Session:
        """A new :class:`requests.Session` with :class:`STCAdapter` on ``http://`` and ``https://``."""
        s = requests.Session()
        s.mount("http://", STCAdapter(accept=accept, max_depth=max_depth, version=version))
        s.mount("https://", STCAdapter(accept=accept, max_depth=max_depth, version=version))
        return s


_NEEDS = {
    "STCTransport": ("httpx", "_HTTPX_ERROR"),
    "AsyncSTCTransport": ("httpx", "_HTTPX_ERROR"),
    "STCAdapter": ("requests", "_REQUESTS_ERROR"),
    "session": ("requests", "_REQUESTS_ERROR"),
}

if not TYPE_CHECKING:

    def __getattr__(name: str) -> Any:
        # Only reached for names that were not defined: say which extra to install.
        need = _NEEDS.get(name)
        if need is not None:
            raise ImportError(
                f"stc.http.{name} needs {need[0]}: pip install 'stc-json[{need[0]}]'",
                name=need[0],
            ) from globals()[need[1]]
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "DEFAULT_ACCEPT",
    "AsyncSTCTransport",
    "STCAdapter",
    "STCTransport",
    "UnsupportedSTCVersion",
    "accept_header",
    "decode_body",
    "is_stc",
    "response_version",
    "session",
]
