"""A second, independent STC reader and writer, written in Python from
spec/README.md and spec/stc.abnf, to cross-check the corpus and the Rust
reference (tools/crosscheck.py, tools/fuzz.py). It is a test oracle, not an
implementation: slow, unoptimized, and never shipped. Stdlib only.

    decode(data: bytes, max_depth=128, json_only=False)
        -> ('ok', canonical minified JSON) | ('err', kind, byte offset)
    encode(json_text: str, profile='compact') -> STC text (input must be JSON)
"""
import json
import re
import sys

sys.setrecursionlimit(20000)


class E(Exception):
    def __init__(self, kind, off):
        self.kind, self.off = kind, off


WS = b" \t\n\r"
SIMPLE = {0x22: '\\"', 0x5C: "\\\\", 8: "\\b", 12: "\\f", 10: "\\n", 13: "\\r", 9: "\\t"}
UNESC = {ord('"'): 0x22, ord("\\"): 0x5C, ord("/"): 0x2F, ord("b"): 8, ord("f"): 12, ord("n"): 10, ord("r"): 13, ord("t"): 9}
HEX = b"0123456789abcdefABCDEF"


class R:
    def __init__(self, b, max_depth, json_only=False):
        self.b, self.p, self.depth, self.max = b, 0, 0, min(max_depth, 1024)
        self.json_only = json_only
        self.out = []

    def peek(self):
        return self.b[self.p] if self.p < len(self.b) else None

    def ws(self):
        while self.p < len(self.b) and self.b[self.p] in WS:
            self.p += 1

    def expected(self):
        raise E("unexpected_end" if self.p >= len(self.b) else "unexpected_char", self.p)

    def enter(self, at, n=1):
        if self.depth + n > self.max:
            raise E("depth_limit", at)
        self.depth += n

    def run(self):
        self.ws()
        self.value()
        self.ws()
        if self.p < len(self.b):
            raise E("trailing_characters", self.p)
        return "".join(self.out)

    def value(self):
        c = self.peek()
        if c == ord("{"):
            return self.obj()
        if c == ord("["):
            return self.arr()
        if c == ord('"'):
            self.out.append('"' + self.string() + '"')
            return
        if c is not None and (c == ord("-") or 48 <= c <= 57):
            self.out.append(self.number())
            return
        for w in (b"true", b"false", b"null"):
            if c == w[0]:
                for k in range(len(w)):
                    if self.p + k >= len(self.b):
                        raise E("unexpected_end", len(self.b))
                    if self.b[self.p + k] != w[k]:
                        raise E("unexpected_char", self.p + k)
                self.p += len(w)
                self.out.append(w.decode())
                return
        self.expected()

    def number(self):
        b, i, s = self.b, self.p, self.p
        n = len(b)

        def fail(at):
            raise E("unexpected_end" if at >= n else "invalid_number", at)

        if i < n and b[i] == ord("-"):
            i += 1
        if i < n and b[i] == ord("0"):
            i += 1
            if i < n and 48 <= b[i] <= 57:
                raise E("invalid_number", i)
        elif i < n and 49 <= b[i] <= 57:
            while i < n and 48 <= b[i] <= 57:
                i += 1
        else:
            fail(i)
        if i < n and b[i] == ord("."):
            i += 1
            if not (i < n and 48 <= b[i] <= 57):
                fail(i)
            while i < n and 48 <= b[i] <= 57:
                i += 1
        if i < n and b[i] in b"eE":
            i += 1
            if i < n and b[i] in b"+-":
                i += 1
            if not (i < n and 48 <= b[i] <= 57):
                fail(i)
            while i < n and 48 <= b[i] <= 57:
                i += 1
        self.p = i
        return b[s:i].decode()

    def string(self):
        b, n = self.b, len(self.b)
        i = self.p + 1
        units = []
        while True:
            if i >= n:
                raise E("unexpected_end", n)
            c = b[i]
            if c == 0x22:
                break
            if c < 0x20:
                raise E("control_character", i)
            if c == 0x5C:
                if i + 1 >= n:
                    raise E("unexpected_end", n)
                e = b[i + 1]
                if e in UNESC:
                    units.append(UNESC[e])
                    i += 2
                    continue
                if e == ord("u"):
                    h = b[i + 2 : i + 6]
                    if len(h) == 4 and all(x in HEX for x in h):
                        units.append(int(h, 16))
                        i += 6
                        continue
                    if all(x in HEX for x in h) and len(h) < 4 and i + 2 + len(h) >= n:
                        raise E("unexpected_end", n)
                raise E("invalid_escape", i)
            j = i
            while j < n and b[j] not in (0x22, 0x5C) and b[j] >= 0x20:
                j += 1
            for ch in b[i:j].decode():
                enc = ch.encode("utf-16-be")
                units.extend(int.from_bytes(enc[k : k + 2], "big") for k in range(0, len(enc), 2))
            i = j
        self.p = i + 1
        out, k = [], 0
        while k < len(units):
            u = units[k]
            if 0xD800 <= u < 0xDC00 and k + 1 < len(units) and 0xDC00 <= units[k + 1] < 0xE000:
                out.append(chr(0x10000 + ((u - 0xD800) << 10) + (units[k + 1] - 0xDC00)))
                k += 2
                continue
            if 0xD800 <= u < 0xE000:
                out.append("\\u%04x" % u)
            elif u in SIMPLE:
                out.append(SIMPLE[u])
            elif u < 0x20:
                out.append("\\u%04x" % u)
            else:
                out.append(chr(u))
            k += 1
        return "".join(out)

    def key(self):
        c = self.peek()
        if c == ord('"'):
            return self.string()
        if not self.json_only and c is not None and (chr(c).isascii() and (chr(c).isalpha() or c == ord("_"))):
            s = self.p
            while self.p < len(self.b) and (chr(self.b[self.p]).isascii() and (chr(self.b[self.p]).isalnum() or self.b[self.p] == ord("_"))):
                self.p += 1
            return self.b[s : self.p].decode()
        self.expected()

    def obj(self):
        self.enter(self.p)
        self.p += 1
        self.out.append("{")
        self.ws()
        if self.peek() == ord("}"):
            self.p += 1
        else:
            first = True
            while True:
                k = self.key()
                self.ws()
                if not first:
                    self.out.append(",")
                first = False
                self.out.append('"' + k + '":')
                if self.peek() == ord(":"):
                    self.p += 1
                    self.ws()
                    self.value()
                elif self.peek() == ord("[") and not self.json_only:
                    open_ = self.p
                    self.p += 1
                    self.ws()
                    cat = self.p
                    c = self.peek()
                    if c is None or not (c == ord("-") or 48 <= c <= 57):
                        self.expected()
                    # in member position the bracket can only be a header (3.7),
                    # so the count is judged as soon as it is read
                    count = self.count(self.number(), cat)
                    self.ws()
                    if self.peek() != ord("]"):
                        self.expected()
                    self.p += 1
                    self.ws()
                    if self.peek() not in (ord(":"), ord("{")):
                        self.expected()
                    self.header(open_, count, cat)
                else:
                    self.expected()
                self.ws()
                c = self.peek()
                if c == ord(","):
                    self.p += 1
                    self.ws()
                    continue
                if c == ord("}"):
                    self.p += 1
                    break
                self.expected()
        self.depth -= 1
        self.out.append("}")

    def count(self, lex, at):
        if not lex.isdigit():
            raise E("invalid_count", at)
        return int(lex)

    def arr(self):
        open_ = self.p
        self.enter(open_)
        self.p += 1
        self.ws()
        c = self.peek()
        if c == ord("]"):
            self.p += 1
            self.depth -= 1
            self.out.append("[]")
            return
        if not self.json_only and c is not None and (c == ord("-") or 48 <= c <= 57):
            at = self.p
            lex = self.number()
            self.ws()
            if self.peek() == ord("]"):
                close = self.p
                self.p += 1
                self.ws()
                if self.peek() in (ord(":"), ord("{")):
                    self.depth -= 1
                    return self.header(open_, self.count(lex, at), at)
                self.p = close
            self.out.append("[" + lex)
        else:
            self.out.append("[")
            self.value()
        while True:
            self.ws()
            c = self.peek()
            if c == ord(","):
                self.p += 1
                self.ws()
                self.out.append(",")
                self.value()
            elif c == ord("]"):
                self.p += 1
                break
            else:
                self.expected()
        self.depth -= 1
        self.out.append("]")

    def header(self, open_, count, cat):
        if self.peek() == ord("{"):
            self.p += 1
            cols = []
            while True:
                self.ws()
                c = self.peek()
                if c == ord('"') or (c is not None and chr(c).isascii() and (chr(c).isalpha() or c == ord("_"))):
                    cols.append(self.key())
                else:
                    self.expected()
                self.ws()
                c = self.peek()
                if c == ord(","):
                    self.p += 1
                elif c == ord("}"):
                    self.p += 1
                    break
                else:
                    self.expected()
            self.ws()
            if self.peek() != ord(":"):
                self.expected()
            self.p += 1
            if count * len(cols) > len(self.b) - self.p:
                raise E("count_too_large", cat)
            self.enter(open_, 2)
            self.out.append("[")
            for r in range(count):
                self.ws()
                if r > 0:
                    c = self.peek()
                    if c == ord("/"):
                        self.p += 1
                        self.ws()
                    elif c in (ord(","), ord("}"), ord("]")):
                        raise E("count_mismatch", self.p)
                    else:
                        self.expected()
                    self.out.append(",")
                self.out.append("{")
                for ci, col in enumerate(cols):
                    if ci > 0:
                        self.ws()
                        c = self.peek()
                        if c == ord(","):
                            self.p += 1
                            self.ws()
                        elif c in (ord("/"), ord("}"), ord("]")):
                            raise E("count_mismatch", self.p)
                        else:
                            self.expected()
                        self.out.append(",")
                    self.out.append('"' + col + '":')
                    self.value()
                self.out.append("}")
            save = self.p
            self.ws()
            if self.peek() == ord("/"):
                raise E("count_mismatch", self.p)
            self.p = save
            self.depth -= 2
            self.out.append("]")
        else:
            self.p += 1
            if count > len(self.b) - self.p:
                raise E("count_too_large", cat)
            self.enter(open_)
            self.out.append("[")
            for i in range(count):
                self.ws()
                if i > 0:
                    c = self.peek()
                    if c == ord(","):
                        self.p += 1
                        self.ws()
                    elif c in (ord("}"), ord("]"), ord("/")):
                        raise E("count_mismatch", self.p)
                    else:
                        self.expected()
                    self.out.append(",")
                self.value()
            self.depth -= 1
            self.out.append("]")


def decode(data: bytes, max_depth=128, json_only=False):
    """('ok', canonical minified JSON) or ('err', kind, byte offset)."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as e:
        return ("err", "invalid_utf8", e.start)
    try:
        return ("ok", R(data, max_depth, json_only).run())
    except E as e:
        return ("err", e.kind, e.off)


# ---- the writer (spec section 5) ---------------------------------------------------


class Num(str):
    """A number, as its lexeme."""


class Obj(list):
    """An object, as its (key, value) pairs in order, duplicates kept."""


def load(text):
    return json.loads(text, object_pairs_hook=Obj, parse_int=Num, parse_float=Num)


IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
STYLES = {"compact": (",", ":", "/"), "readable": (", ", ": ", " / ")}


def string(s):
    """Canonical string (5.2); lone surrogates arrive as lone code points."""
    out = []
    for ch in s:
        o = ord(ch)
        if ch in ESCAPES:
            out.append(ESCAPES[ch])
        elif o < 0x20 or 0xD800 <= o < 0xE000:
            out.append("\\u%04x" % o)
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def is_scalar(v):
    return not isinstance(v, list)


def scalar(v):
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, Num):
        return str(v)
    return string(v)


def key(k):
    """5.1: bare iff an identifier."""
    return k if IDENT.match(k) else string(k)


def columnar(v):
    """5.5: two or more objects, each non-empty and flat, same key sequence."""
    if len(v) < 2:
        return False
    if not all(isinstance(o, Obj) and len(o) > 0 and all(is_scalar(x) for _, x in o) for o in v):
        return False
    keys = [k for k, _ in v[0]]
    return all([k for k, _ in o] == keys for o in v)


def columns(v, style):
    item, colon, row = style
    head = "[%d]{%s}" % (len(v), ",".join(key(k) for k, _ in v[0]))
    return head + colon + row.join(",".join(scalar(x) for _, x in o) for o in v)


def enc(v, style):
    item, colon, row = style
    if isinstance(v, Obj):
        parts = []
        for k, x in v:
            if isinstance(x, list) and not isinstance(x, Obj) and x:
                if columnar(x):
                    parts.append(key(k) + columns(x, style))
                    continue
                if all(is_scalar(e) for e in x):  # 5.4: member arrays of primitives
                    parts.append(key(k) + "[%d]" % len(x) + colon + ",".join(scalar(e) for e in x))
                    continue
            parts.append(key(k) + colon + enc(x, style))
        return "{" + item.join(parts) + "}"
    if isinstance(v, list):
        if columnar(v):
            return columns(v, style)
        return "[" + item.join(enc(e, style) for e in v) + "]"
    return scalar(v)


def encode(json_text: str, profile: str = "compact") -> str:
    """STC text of a JSON text that is already known to be valid."""
    return enc(load(json_text), STYLES[profile])
