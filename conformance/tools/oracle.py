"""A second, independent STC reader and writer, written in Python from
spec/README.md and spec/stc.abnf, to cross-check the corpus and the Rust
reference (tools/crosscheck.py, tools/fuzz.py). It is a test oracle, not an
implementation: slow, unoptimized, and never shipped. Stdlib only.

    decode(data: bytes, max_depth=128, json_only=False, version=1)
        -> ('ok', canonical minified JSON) | ('err', kind, byte offset)
    encode(json_text: str, profile='compact') -> STC text (input must be JSON)

The decoder reads version 1 and version 2 (column groups, absent cells,
keyed tables, bare strings: spec 3.8-3.11; version 2 constructs read as
version 1 are newer_version, 4.5). The encoder writes the version 1 forms of
the original rules (plain objects, `key[N]:` arrays of scalars, flat
tables), not the reference's cost-driven choices: its output decodes to the
input's value at either version, so it is a correct encoder, checked by
value (RUNNER.md, --encoder-check value), not the canonical one.
"""
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
    def __init__(self, b, max_depth, json_only=False, version=1):
        self.b, self.p, self.depth, self.max = b, 0, 0, max_depth
        self.json_only = json_only
        self.version = version
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
        if self.b.startswith(b"\xef\xbb\xbf"):
            raise E("unexpected_char", 0)  # 3.1: no byte-order mark
        self.ws()
        enclosed = not self.json_only and self.peek() == ord("(")
        if enclosed:  # 3.12: a top-level header form is enclosed in ( )
            self.p += 1
            self.ws()
            if self.peek() not in (ord("["), ord("{")):
                self.expected()
        self.enclosed, self.top, self.top_header = enclosed, self.p, False
        self.value()
        if enclosed:
            if not self.top_header:
                raise E("unexpected_char", self.top)
            self.ws()
            if self.peek() != ord(")"):
                self.expected()
            self.p += 1
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
        if c is not None and not self.json_only:
            # not a quoted string, number, array, header or object: a run [v2 3.11]
            lead = self.b[self.p]
            size = 1 if lead < 0x80 else 2 if lead < 0xE0 else 3 if lead < 0xF0 else 4
            first = self.b[self.p : self.p + size].decode()
            if not bare_letter(ord(first)):
                if first in RESERVED:  # 3.12
                    raise E("newer_version", self.p)
                if self.version >= 2 and (first in "+." or ord(first) >= 0x80):
                    raise E("unexpected_char", self.p)
            end = self.run_end() if bare_letter(ord(first)) else self.p
            word = self.b[self.p : end]
            if word in (b"true", b"false", b"null"):
                self.p = end
                self.out.append(word.decode())
                return
            text = word.decode()
            if is_bare(text):
                if self.version < 2:
                    raise E("newer_version", self.p)
                self.p = end
                self.out.append('"' + text + '"')
                return
            if self.version >= 2 and word:
                raise E("unexpected_char", self.p)
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

    def run_end(self):
        """[v2] The end of the run at self.p: the longest sequence of characters
        allowed in a bare string, without its trailing spaces."""
        b, i, n = self.b, self.p, len(self.b)
        while i < n:
            lead = b[i]
            size = 1 if lead < 0x80 else 2 if lead < 0xE0 else 3 if lead < 0xF0 else 4
            if not bare_char(ord(b[i : i + size].decode())):
                break
            i += size
        while i > self.p and b[i - 1] == 0x20:
            i -= 1
        return i

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
        open_ = self.p
        self.enter(open_)
        self.p += 1
        self.ws()
        c = self.peek()
        if c == ord("}"):
            self.p += 1
            self.depth -= 1
            self.out.append("{}")
            return
        if not self.json_only and c is not None and 48 <= c <= 57:
            # '{' then a digit: a keyed table (v2, 3.10); its '{' was counted above
            if self.version < 2:
                raise E("newer_version", open_)
            self.depth -= 1
            return self.keyed(open_, None)
        self.out.append("{")
        first = True
        while True:
            key_at = self.p
            k = self.key()
            self.ws()
            if not first:
                self.out.append(",")
            first = False
            c = self.peek()
            if c == ord(":"):
                self.out.append(q(k) + ":")
                self.p += 1
                self.ws()
                self.value()
            elif c == ord("[") and not self.json_only:
                # in member position the bracket can only be a header (3.7): the
                # count candidate is judged at once
                open_h = self.p
                self.p += 1
                self.ws()
                cat, text = self.candidate()
                count = self.judge(cat, text)
                self.ws()
                if self.peek() != ord("]"):
                    self.expected()
                self.p += 1
                self.ws()
                if self.peek() not in (ord(":"), ord("{")):
                    self.expected()
                self.header(open_h, count, cat, q(k) + ":")
            elif c == ord("{") and not self.json_only:
                if self.version < 2:
                    raise E("newer_version", self.p)
                open_k = self.p
                self.p += 1
                self.keyed(open_k, q(k) + ":")
            else:
                self.expected()
            del key_at
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

    def candidate(self):
        """The count candidate: the run of bytes a number could hold (3.7)."""
        at = self.p
        while self.p < len(self.b) and self.b[self.p] in COUNT_BYTES:
            self.p += 1
        return at, self.b[at : self.p]

    def judge(self, at, text):
        if not text and at >= len(self.b):
            raise E("unexpected_end", at)
        if not text or not text.isdigit() or (len(text) > 1 and text[0] == 0x30):
            raise E("invalid_count", at)
        return int(text)

    def guard(self, cat, count, cells, keyed=False):
        """The count guard (4.2), when the header is complete."""
        if count > 2**64 - 1:
            raise E("count_too_large", cat)
        need = max(0, 2 * count * cells - 1) + (2 * count if keyed else 0)
        if need > len(self.b) - self.p:
            raise E("count_mismatch", cat)

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
            at, text = self.candidate()
            self.ws()
            if self.peek() == ord("]"):
                self.p += 1
                self.ws()
                if self.peek() in (ord(":"), ord("{")):
                    after = self.p
                    count = self.judge(at, text)
                    self.p = after
                    self.depth -= 1
                    return self.header(open_, count, at, "")
            self.p = at
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

    def columns(self):
        """A column list at '{' up to its '}', as [(name, None | sub-list)]."""
        self.p += 1
        cols = []
        while True:
            self.ws()
            c = self.peek()
            if c == ord('"') or (c is not None and chr(c).isascii() and (chr(c).isalpha() or c == ord("_"))):
                name = self.key()
            else:
                self.expected()
            self.ws()
            if self.peek() == ord("{"):
                if self.version < 2:
                    raise E("newer_version", self.p)
                cols.append((name, self.columns()))
                self.ws()
            else:
                cols.append((name, None))
            c = self.peek()
            if c == ord(","):
                self.p += 1
            elif c == ord("}"):
                self.p += 1
                return cols
            else:
                self.expected()

    def column_list(self):
        cols = self.columns()
        self.ws()
        if self.peek() != ord(":"):
            self.expected()
        self.p += 1
        return cols

    def top_level(self, open_):
        """3.12: a header form as the top-level value must be enclosed."""
        if open_ == self.top:
            if not self.enclosed:
                raise E("unexpected_char", open_)
            self.top_header = True

    def header(self, open_, count, cat, prefix):
        self.top_level(open_)
        if self.peek() == ord("{"):
            cols = self.column_list()
            self.guard(cat, count, leaves(cols))
            self.enter(open_)
            self.out.append(prefix + "[")
            self.rows(cols, count, cat, False)
            self.depth -= 1
            self.out.append("]")
        else:
            self.p += 1
            self.guard(cat, count, 1)
            self.enter(open_)
            self.out.append(prefix + "[")
            for i in range(count):
                self.ws()
                if i > 0:
                    c = self.peek()
                    if c == ord(","):
                        self.p += 1
                        self.ws()
                    elif c is None or c in (ord("}"), ord("]"), ord("/")):
                        raise E("count_mismatch", cat)
                    else:
                        self.expected()
                    self.out.append(",")
                c = self.peek()
                if c is None or c in (ord("}"), ord("]"), ord("/")):
                    raise E("count_mismatch", cat)
                self.value()
            self.depth -= 1
            self.out.append("]")

    def keyed(self, open_, prefix):
        """[v2] After a keyed table's '{' (3.10). `prefix` is the member's key, or None in value position."""
        if prefix is None:
            self.top_level(open_)
        self.ws()
        cat, text = self.candidate()
        count = self.judge(cat, text)
        self.ws()
        if self.peek() != ord("}"):
            self.expected()
        self.p += 1
        self.ws()
        if self.peek() != ord("{"):
            self.expected()
        cols = self.column_list()
        self.guard(cat, count, leaves(cols), keyed=True)
        self.enter(open_)
        self.out.append((prefix or "") + "{")
        self.rows(cols, count, cat, True)
        self.depth -= 1
        self.out.append("}")

    def rows(self, cols, count, cat, keyed):
        for r in range(count):
            self.ws()
            if r > 0:
                c = self.peek()
                if c == ord("/"):
                    self.p += 1
                    self.ws()
                elif c == ord(","):
                    raise E("count_mismatch", self.p)
                elif c is None or c in (ord("}"), ord("]")):
                    raise E("count_mismatch", cat)
                else:
                    self.expected()
                self.out.append(",")
            c = self.peek()
            if c is None or c in (ord("}"), ord("]")):
                raise E("count_mismatch", cat)
            row_at = self.p
            self.enter(row_at)
            if keyed:
                c = self.peek()
                if c == ord('"') or (chr(c).isascii() and (chr(c).isalpha() or c == ord("_"))):
                    k = self.key()
                else:
                    self.expected()
                self.ws()
                if self.peek() != ord(":"):
                    self.expected()
                self.p += 1
                self.ws()
                self.out.append(q(k) + ":")
            st = {"first": True, "row_at": row_at, "cat": cat, "open": []}
            self.out.append("{" + ",".join(self.cells(cols, st)) + "}")
            self.depth -= 1

    def cells(self, cols, st):
        """The members of one row (or group) object, reading one cell per leaf."""
        parts = []
        for name, sub in cols:
            if sub is None:
                text = self.cell(st)
                if text is not None:
                    parts.append(q(name) + ":" + text)
            else:
                st["open"].append(False)
                inner = self.cells(sub, st)
                if st["open"].pop():
                    self.depth -= 1
                    parts.append(q(name) + ":{" + ",".join(inner) + "}")
        return parts

    def cell(self, st):
        if not st["first"]:
            self.ws()
            c = self.peek()
            if c == ord(","):
                self.p += 1
                self.ws()
            elif c in (ord("/"), ord("]"), ord("}")):
                raise E("count_mismatch", self.p)
            elif c is None:
                raise E("count_mismatch", st["cat"])
            else:
                self.expected()
        st["first"] = False
        c = self.peek()
        if c == ord("~") and not self.json_only:
            if self.version < 2:
                raise E("newer_version", self.p)
            self.p += 1
            return None
        if c is None or c in (ord("]"), ord("}")):
            raise E("count_mismatch", st["cat"])
        # a present cell: the groups it is the first present leaf of exist now
        for i, emitted in enumerate(st["open"]):
            if not emitted:
                self.enter(st["row_at"])
                st["open"][i] = True
        saved, self.out = self.out, []
        self.value()
        text = "".join(self.out)
        self.out = saved
        return text


# [v2] Bare strings (spec 3.11): an allow-list.
BARE_MARKS = frozenset(map(ord, "!#$%&'*+-.;<=>?@^_`|"))
RESERVED = "!#$%&'()*;<=>?@^_`|"  # 3.12: reserved where a value is due
BARE_LETTER_RANGES = (
    (0xC0, 0xD6), (0xD8, 0xF6), (0xF8, 0x130), (0x132, 0x137), (0x139, 0x13E), (0x141, 0x148), (0x14A, 0x17E),
    (0x3041, 0x3096), (0x30A1, 0x30FA), (0x4E01, 0x9FFF), (0xAC00, 0xD7A3),
)
LITERAL_LOOKALIKES = ("true", "false", "null", "nan", "inf", "infinity", "none", "nil", "undefined")


def bare_letter(cp):
    """An ASCII letter or a listed non-ASCII letter: may start a bare string."""
    if cp < 0x80:
        return 0x41 <= cp <= 0x5A or 0x61 <= cp <= 0x7A
    return any(lo <= cp <= hi for lo, hi in BARE_LETTER_RANGES)


def bare_char(cp):
    """A character allowed inside a bare string."""
    return bare_letter(cp) or 0x30 <= cp <= 0x39 or cp == 0x20 or cp in BARE_MARKS


def is_bare(s):
    """A string value that may be written without quotes."""
    if not s or not bare_letter(ord(s[0])) or s[-1] == " ":
        return False
    if s.isascii() and s.lower() in LITERAL_LOOKALIKES:
        return False
    return all(bare_char(ord(ch)) for ch in s)


def leaves(cols):
    return sum(1 if sub is None else leaves(sub) for _, sub in cols)


def q(key):
    return '"' + key + '"'


COUNT_BYTES = b"0123456789+-.eE"


def decode(data: bytes, max_depth=128, json_only=False, version=1):
    """('ok', canonical minified JSON) or ('err', kind, byte offset)."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as e:
        return ("err", "invalid_utf8", e.start)
    try:
        return ("ok", R(data, max_depth, json_only, version).run())
    except E as e:
        return ("err", e.kind, e.off)


# ---- the writer (spec section 5) ---------------------------------------------------


class Num(str):
    """A number, as its lexeme."""


class Obj(list):
    """An object, as its (key, value) pairs in order, duplicates kept."""


def load(text):
    """The value of a JSON text already known to be strict JSON (no `json`
    module: its import, with `re`, is most of a run's start-up): objects as
    Obj, numbers as Num, strings with lone surrogates as lone code points."""
    return Loader(text).value()


class Loader:
    def __init__(self, text):
        self.t, self.p = text, 0

    def ws(self):
        t, n = self.t, len(self.t)
        while self.p < n and t[self.p] in " \t\n\r":
            self.p += 1

    def value(self):
        self.ws()
        t, c = self.t, self.t[self.p]
        if c == "{":
            self.p += 1
            obj = Obj()
            self.ws()
            if t[self.p] == "}":
                self.p += 1
                return obj
            while True:
                self.ws()
                k = self.string()
                self.ws()
                self.p += 1  # ':'
                obj.append((k, self.value()))
                self.ws()
                self.p += 1  # ',' or '}'
                if t[self.p - 1] == "}":
                    return obj
        if c == "[":
            self.p += 1
            arr = []
            self.ws()
            if t[self.p] == "]":
                self.p += 1
                return arr
            while True:
                arr.append(self.value())
                self.ws()
                self.p += 1  # ',' or ']'
                if t[self.p - 1] == "]":
                    return arr
        if c == '"':
            return self.string()
        for word, v in (("true", True), ("false", False), ("null", None)):
            if t.startswith(word, self.p):
                self.p += len(word)
                return v
        s = self.p
        while self.p < len(t) and t[self.p] in "0123456789+-.eE":
            self.p += 1
        return Num(t[s : self.p])

    def string(self):
        t, i = self.t, self.p + 1
        parts = []  # str runs, and ints for the code units of \u escapes
        while True:
            j = i
            while t[j] != '"' and t[j] != "\\":
                j += 1
            if j > i:
                parts.append(t[i:j])
            if t[j] == '"':
                break
            e = t[j + 1]
            if e == "u":
                parts.append(int(t[j + 2 : j + 6], 16))
                i = j + 6
            else:
                parts.append(JSON_ESCAPES[e])
                i = j + 2
        self.p = j + 1
        out, k = [], 0
        while k < len(parts):
            u = parts[k]
            if isinstance(u, str):
                out.append(u)
            elif 0xD800 <= u < 0xDC00 and k + 1 < len(parts) and isinstance(parts[k + 1], int) and 0xDC00 <= parts[k + 1] < 0xE000:
                out.append(chr(0x10000 + ((u - 0xD800) << 10) + (parts[k + 1] - 0xDC00)))
                k += 1
            else:
                out.append(chr(u))
            k += 1
        return "".join(out)


JSON_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


def is_ident(k):
    """An identifier (3.3): [A-Za-z_][A-Za-z0-9_]*, ASCII only."""
    return k != "" and k.isascii() and (k[0].isalpha() or k[0] == "_") and (k.replace("_", "a").isalnum())
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
    return k if is_ident(k) else string(k)


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
    if style == STYLES["readable"]:  # 5.6: one row per line (flat cells: never nested)
        colon, row = ":\n  ", " /\n  "
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
    v = load(json_text)
    text = enc(v, STYLES[profile])
    if isinstance(v, list) and not isinstance(v, Obj) and columnar(v):
        text = "(" + text + ")"  # 3.12: a top-level header form is enclosed
    return text
