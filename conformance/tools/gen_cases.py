#!/usr/bin/env python3
"""Authoring tool of the STC conformance corpus (Python 3.11, stdlib only).

The committed files in ``conformance/cases/`` are the source of truth; this
script is how they were first written. Every expectation below was written by
hand from the format rules (or, for the systematic families, computed by the
small independent oracles in this file: ``canon`` re-minifies JSON with
canonical strings, truncation and depth families know where the input ends),
never copied from the reference. After running it, ``cargo run -p
stc-conformance --bin bless -- --check`` must report no change: any change is a
disagreement between these expectations and the Rust reference, to be
resolved by reading the spec, not by blessing.

    python3 conformance/tools/gen_cases.py          # write the files it owns
    python3 conformance/tools/gen_cases.py --list   # only print the counts of cases/

It owns the files it writes (every ``file(...)`` call below) and leaves any
other file of ``cases/`` alone.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

CASES_DIR = Path(__file__).resolve().parent.parent / "cases"

FILES: dict[str, dict] = {}
_current: dict | None = None


def file(stem: str, category: str, description: str, prefix: str = "") -> None:
    """Starts a case file; following `case` calls add to it, their names
    prefixed with `prefix` (names are unique across the corpus)."""
    global _current
    assert stem not in FILES, stem
    _current = {"category": category, "description": description, "cases": [], "prefix": prefix}
    FILES[stem] = _current


def at(text: str, sub: str, nth: int = 0) -> int:
    """UTF-8 byte offset of the nth occurrence of `sub` in `text`."""
    b, s = text.encode(), sub.encode()
    i = -1
    for _ in range(nth + 1):
        i = b.index(s, i + 1)
    return i


def blen(text: str) -> int:
    return len(text.encode())


END = object()  # offset = length of the input in bytes


def case(name, spec, input=None, expected=None, error=None, note=None, profile=None, max_depth=None, input_hex=None):
    """Adds a case. `error` is (kind, offset) where offset is an int, END, or a
    substring whose first byte is the offset (or (substring, nth))."""
    assert _current is not None
    c = {"name": _current["prefix"] + name, "spec": spec}
    if note is not None:
        c["note"] = note
    opts = {}
    if profile is not None:
        opts["profile"] = profile
    if max_depth is not None:
        opts["max_depth"] = max_depth
    if opts:
        c["options"] = opts
    if input_hex is not None:
        c["input_hex"] = input_hex
        raw = bytes.fromhex(input_hex)
    else:
        c["input"] = input
        raw = input.encode()
    if expected is not None:
        c["expected"] = expected
    if error is not None:
        kind, where = error
        if where is END:
            off = len(raw)
        elif isinstance(where, int):
            off = where
        elif isinstance(where, tuple):
            off = at(input, where[0], where[1])
        else:
            off = at(input, where)
        c["error"] = {"kind": kind, "offset": off}
    _current["cases"].append(c)


# ---- an independent oracle: canonical minified JSON ----------------------------------

_SIMPLE = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
_UNESC = {'"': 0x22, "\\": 0x5C, "/": 0x2F, "b": 8, "f": 12, "n": 10, "r": 13, "t": 9}


def canon_string_body(body: str) -> str:
    """Canonical escaping of a JSON string body (the text between quotes)."""
    units: list[int] = []
    i = 0
    while i < len(body):
        ch = body[i]
        if ch == "\\":
            e = body[i + 1]
            if e == "u":
                units.append(int(body[i + 2 : i + 6], 16))
                i += 6
            else:
                units.append(_UNESC[e])
                i += 2
        else:
            units.extend(int.from_bytes(ch.encode("utf-16-be")[k : k + 2], "big") for k in range(0, len(ch.encode("utf-16-be")), 2))
            i += 1
    out = []
    k = 0
    while k < len(units):
        u = units[k]
        if 0xD800 <= u < 0xDC00 and k + 1 < len(units) and 0xDC00 <= units[k + 1] < 0xE000:
            out.append(chr(0x10000 + ((u - 0xD800) << 10) + (units[k + 1] - 0xDC00)))
            k += 2
            continue
        if 0xD800 <= u < 0xE000:
            out.append("\\u%04x" % u)
        elif chr(u) in _SIMPLE:
            out.append(_SIMPLE[chr(u)])
        elif u < 0x20:
            out.append("\\u%04x" % u)
        else:
            out.append(chr(u))
        k += 1
    return "".join(out)


def canon(text: str) -> str:
    """Minified JSON with canonical strings and every number lexeme kept."""
    out = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch in " \t\r\n":
            i += 1
        elif ch == '"':
            j = i + 1
            while text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append('"' + canon_string_body(text[i + 1 : j]) + '"')
            i = j + 1
        else:
            out.append(ch)
            i += 1
    return "".join(out)


assert canon('{"a" : [1.0, "\\u00e9\\/\\uD800"]}') == '{"a":[1.0,"é/\\ud800"]}'


# =====================================================================================
# decode: STC (and JSON) in -> exact minified JSON out
# =====================================================================================

file("decode-json-superset", "decode", "Every JSON text is STC and decodes to its canonical minified form (spec §6, §3.2, §3.4)")
for name, spec, text in [
    ("json-null", "3.2", "null"),
    ("json-true", "3.2", "true"),
    ("json-false", "3.2", "false"),
    ("json-zero", "3.2", "0"),
    ("json-string", "3.2", '"hello"'),
    ("json-empty-string", "3.2", '""'),
    ("json-empty-array", "3.4", "[]"),
    ("json-empty-object", "3.3", "{}"),
    ("json-pretty-object", "6", '{\n  "name": "foo",\n  "count": 42,\n  "ok": true\n}'),
    ("json-pretty-nested", "6", '{\n\t"a": [\n\t\t1,\n\t\t{"b": null}\n\t],\n\t"c": {}\n}'),
    ("json-array-of-arrays", "3.4", "[[1, 2], [3], []]"),
    ("json-array-of-objects", "3.4", '[{"id": 1, "name": "a"}, {"id": 2, "name": "b"}]'),
    ("json-quoted-identifier-keys", "3.3", '{"name": "foo", "api_version": "v2"}'),
    ("json-quoted-keys-that-need-quotes", "3.3", '{"a b": 1, "1x": 2, "x-y": 3, "": 4, "é": 5}'),
    ("json-duplicate-keys-kept", "2", '{"a": 1, "a": 2, "a": {"a": 3}}'),
    ("json-key-order-kept", "2", '{"z": 1, "a": 2, "m": 3}'),
    ("json-number-lexemes", "3.2", "[1.0, 1e3, 1E+2, -0, 0.10, -0.0e-0, 123456789012345678901234567890]"),
    ("json-escapes-canonicalized", "3.2", r'["\u0041\u00e9\/", "\uD83D\uDE00", "a\u000ab"]'),
    ("json-crlf-pretty", "3.1", '{\r\n  "a": [1, 2]\r\n}\r\n'),
    ("json-deep-mixed", "3.4", '{"a": [{"b": [{"c": [1, [2, [3]]]}]}]}'),
]:
    case(name, spec, text, canon(text))

file("decode-whitespace", "decode", "Whitespace (space, tab, LF, CR) is allowed around every token and never changes the value (spec §3.1)")
case("columnar-newlines-between-rows", "3.1", '[2]{id, name}:\n  1, "a" /\n  2, "b"\n', '[{"id":1,"name":"a"},{"id":2,"name":"b"}]')
case("leading-and-trailing-whitespace", "3.1", ' \t\r\n{a: 1} \n', '{"a":1}')
case("space-inside-header-brackets", "3.1", "[ 2 ] : 1 , 2", "[1,2]")
case("space-between-key-and-header", "3.1", "{tags [2]: 1,2}", '{"tags":[1,2]}')
case("newline-between-header-and-colon", "3.1", "{tags[2]\n: 1,2}", '{"tags":[1,2]}')
case("space-before-column-list", "3.1", "[1] {a}: 1", '[{"a":1}]')
case("spaces-inside-column-list", "3.1", "[1]{ a , b }: 1 , 2", '[{"a":1,"b":2}]')
case("newlines-in-column-list", "3.1", "[1]{\n a,\n b\n}:\n 1,\n 2", '[{"a":1,"b":2}]')
case("compact-values-one-per-line", "3.1", "{xs[3]:\n  1,\n  2,\n  3\n}", '{"xs":[1,2,3]}')
case("tabs-everywhere", "3.1", "{\ta\t:\t1\t,\tb\t[\t1\t]\t:\t2\t}", '{"a":1,"b":[2]}')
case("crlf-between-rows", "3.1", "[3]{a}:\r\n1\r\n/\r\n2\r\n/\r\n3\r\n", '[{"a":1},{"a":2},{"a":3}]')
case("no-whitespace-at-all", "3.1", '{a:1,b[2]:1,2,c[2]{x,y}:1,2/3,4,d:"e"}', '{"a":1,"b":[1,2],"c":[{"x":1,"y":2},{"x":3,"y":4}],"d":"e"}')
case("readable-spacing", "3.1", '{a: 1, b[2]: 1,2, c[2]{x,y}: 1,2 / 3,4, d: "e"}', '{"a":1,"b":[1,2],"c":[{"x":1,"y":2},{"x":3,"y":4}],"d":"e"}')
case("whitespace-inside-strings-kept", "3.1", '{ a : "  x\\t y  " }', '{"a":"  x\\t y  "}', note="whitespace inside a string is content; a raw tab in a string would be an error, this one is the escape \\t")
case("pretty-printed-stc", "3.1", '{\n  name: "foo",\n  tags[2]: "a", "b",\n  rows[2]{id, ok}:\n    1, true /\n    2, false\n}\n', '{"name":"foo","tags":["a","b"],"rows":[{"id":1,"ok":true},{"id":2,"ok":false}]}')

file("decode-literals-and-numbers", "decode", "Literals and number lexemes are copied byte for byte (spec §3.2)")
for name, lex in [
    ("number-minus-zero", "-0"), ("number-minus-zero-fraction", "-0.0"), ("number-exponent-plus-upper", "1E+2"),
    ("number-exponent-lower", "1e3"), ("number-exponent-minus", "1e-7"), ("number-trailing-zero-fraction", "0.10"),
    ("number-one-point-zero", "1.0"), ("number-30-digit-integer", "123456789012345678901234567890"),
    ("number-40-digit-negative", "-1234567890123456789012345678901234567890"), ("number-huge-exponent", "1e999"),
    ("number-tiny-exponent", "5e-999"), ("number-exponent-leading-zeros", "1e007"),
    ("number-long-fraction", "3.14159265358979323846264338327950288"), ("number-zero-exponent", "0E0"),
]:
    case(name, "3.2", "{n: %s, a[2]: %s,%s}" % (lex, lex, lex), '{"n":%s,"a":[%s,%s]}' % (lex, lex, lex))
case("literals-in-compact-array", "3.2", "{v[3]: true,false,null}", '{"v":[true,false,null]}')
case("literals-in-columnar-cells", "3.2", "[2]{a,b}: true,null / false,null", '[{"a":true,"b":null},{"a":false,"b":null}]')
case("number-lexemes-in-columnar-cells", "3.2", "[2]{x,y}: 1.0,-0 / 1E+2,0.10", '[{"x":1.0,"y":-0},{"x":1E+2,"y":0.10}]')
case("top-level-number-lexeme", "3.2", " 1.50 ", "1.50")

file("decode-strings", "decode", "Strings: every JSON escape is accepted and re-escaped canonically (spec §3.2)")
for name, body, want in [
    ("escape-quote", r'\"', r'\"'),
    ("escape-backslash", r"\\", r"\\"),
    ("escape-solidus-unescaped", r"\/", "/"),
    ("escape-backspace", r"\b", r"\b"),
    ("escape-formfeed", r"\f", r"\f"),
    ("escape-newline", r"\n", r"\n"),
    ("escape-return", r"\r", r"\r"),
    ("escape-tab", r"\t", r"\t"),
    ("u-escape-nul", r"\u0000", r"\u0000"),
    ("u-escape-control-lowercased", r"\u001F", r"\u001f"),
    ("u-escape-named-control-shortened", r"\u0008\u000C\u000A\u000D\u0009", r"\b\f\n\r\t"),
    ("u-escape-ascii-unescaped", r"\u0041\u007a", "Az"),
    ("u-escape-del-raw", r"\u007f", "\u007f"),
    ("u-escape-latin1-unescaped", r"\u00e9\u00C9", "éÉ"),
    ("u-escape-bmp-unescaped", r"\u4e2d\u6587", "中文"),
    ("u-escape-line-separator-raw", r"\u2028\u2029", "\u2028\u2029"),
    ("surrogate-pair-joined", r"\uD83D\uDE00", "😀"),
    ("surrogate-pair-lowercase-hex", r"\ud83d\ude00", "😀"),
    ("lone-high-surrogate-kept", r"\uD800", r"\ud800"),
    ("lone-low-surrogate-kept", r"\uDC00", r"\udc00"),
    ("reversed-surrogates-both-lone", r"\uDC00\uD800", r"\udc00\ud800"),
    ("high-surrogate-then-ascii", r"\uD800A", r"\ud800A"),
    ("high-surrogate-then-u-escape-ascii", r"\uDBFF\u0041", r"\udbffA"),
    ("two-high-surrogates", r"\uD800\uD800", r"\ud800\ud800"),
    ("high-high-low", r"\uD800\uD83D\uDE00", "\\ud800😀"),
    ("raw-utf8-kept", "ñ€😀", "ñ€😀"),
    ("raw-del-kept", "\u007f", "\u007f"),
    ("mixed-escapes", r"a\tb\"c\\d\/e\u00e9", r'a\tb\"c\\d/eé'),
]:
    case(name, "3.2", '{s: "%s"}' % body, '{"s":"%s"}' % want)
case("escaped-key", "3.2", r'{"\u0061\u0062": 1}', '{"ab":1}', note="an escaped key decodes to the same key as the plain one")
case("lone-surrogate-key", "3.2", r'{"\udfff": 1}', r'{"\udfff":1}')
case("escapes-in-column-names", "3.2", r'[1]{"a\"b","\u00e9"}: 1,2', r'[{"a\"b":1,"é":2}]')

file("decode-keys", "decode", "Object keys: identifiers may be bare, any key may be quoted (spec §3.3)")
case("bare-identifier-keys", "3.3", "{name: 1, api_version: 2, _x: 3, X9_: 4}", '{"name":1,"api_version":2,"_x":3,"X9_":4}')
case("bare-keyword-keys", "3.3", "{true: 1, false: 2, null: 3}", '{"true":1,"false":2,"null":3}', note="true/false/null in key position are keys")
case("bare-single-underscore", "3.3", "{_: 0}", '{"_":0}')
case("bare-key-with-digits", "3.3", "{a1b2: 0, a0: 1}", '{"a1b2":0,"a0":1}')
case("bare-long-key", "3.3", "{%s: 1}" % ("k" * 300), '{"%s":1}' % ("k" * 300))
case("quoted-key-that-could-be-bare", "3.3", '{"name": "foo"}', '{"name":"foo"}')
case("mixed-bare-and-quoted", "3.3", '{a: 1, "b": 2, "c d": 3}', '{"a":1,"b":2,"c d":3}')
case("duplicate-bare-and-quoted-key", "3.3", '{a: 1, "a": 2}', '{"a":1,"a":2}', note="duplicates are kept, in order")
case("quoted-key-before-header", "3.3", '{"x y"[2]: 1,2}', '{"x y":[1,2]}')
case("quoted-key-before-columnar-header", "3.3", '{"my rows"[1]{a}: 1}', '{"my rows":[{"a":1}]}')
case("empty-quoted-key", "3.3", '{"": 1}', '{"":1}')
case("unicode-quoted-keys", "3.3", '{"é": 1, "中文": 2, "😀": 3}', '{"é":1,"中文":2,"😀":3}')
case("nested-objects-bare-keys", "3.3", "{a: {b: {c: {}}}}", '{"a":{"b":{"c":{}}}}')
case("key-named-like-header", "3.3", '{"a[2]": 1}', '{"a[2]":1}')

file("decode-compact-arrays", "decode", "Compact arrays [N]: v1,...,vN in member and value position (spec §3.5)")
case("member-compact-numbers", "3.5", "{scores[3]: 95,87,91}", '{"scores":[95,87,91]}')
case("member-compact-strings", "3.5", '{tags[3]: "api","gateway","mcp"}', '{"tags":["api","gateway","mcp"]}')
case("member-compact-mixed", "3.5", '{v[4]: 1,"a",true,null}', '{"v":[1,"a",true,null]}')
case("member-compact-one", "3.5", "{v[1]: 7}", '{"v":[7]}')
case("member-compact-zero", "3.5", "{v[0]:}", '{"v":[]}')
case("member-compact-zero-then-member", "3.5", "{v[0]:, w: 1}", '{"v":[],"w":1}')
case("member-compact-then-member", "3.5", "{a[2]: 1,2, b: 3}", '{"a":[1,2],"b":3}', note="the count ends the body: the comma after the 2nd value separates members")
case("member-compact-then-compact", "3.5", "{a[2]: 1,2, b[1]: 3}", '{"a":[1,2],"b":[3]}')
case("value-position-compact", "3.5", "[3]: 1,2,3", "[1,2,3]")
case("value-position-compact-in-member", "3.5", "{a: [2]: 1,2}", '{"a":[1,2]}', note="a header may also follow the colon of a member")
case("value-position-compact-in-json-array", "3.5", "[[2]: 1,2, 3]", "[[1,2],3]")
case("value-position-compact-zero", "3.5", "[0]:", "[]")
case("compact-of-nulls", "3.5", "{v[3]: null,null,null}", '{"v":[null,null,null]}')
case("compact-holding-containers", "3.5", "{v[3]: [1], {a: 1}, []}", '{"v":[[1],{"a":1},[]]}', note="the body is N values of any kind; the encoder only writes primitives there")
case("compact-holding-compact", "3.5", "[2]: [2]: 1,2, 3", "[[1,2],3]", note="the inner count ends the inner body")
case("compact-holding-columnar", "3.5", "[2]: [1]{a}: 1, 2", '[[{"a":1}],2]')
case("compact-count-large-and-exact", "3.5", "{v[12]: 1,2,3,4,5,6,7,8,9,10,11,12}", '{"v":[1,2,3,4,5,6,7,8,9,10,11,12]}')

file("decode-columnar-arrays", "decode", "Columnar arrays [N]{k1,...}: rows separated by /, cells by , (spec §3.6)")
case("columnar-top-level", "3.6", '[2]{id,name,method}: 1,"users","GET" / 2,"orders","POST"', '[{"id":1,"name":"users","method":"GET"},{"id":2,"name":"orders","method":"POST"}]')
case("columnar-member", "3.6", '{rows[2]{id,name}: 1,"a" / 2,"b", n: 2}', '{"rows":[{"id":1,"name":"a"},{"id":2,"name":"b"}],"n":2}')
case("columnar-one-row", "3.6", "[1]{a,b}: 1,2", '[{"a":1,"b":2}]')
case("columnar-zero-rows", "3.6", "[0]{a,b}:", "[]")
case("columnar-zero-rows-member", "3.6", "{r[0]{a}:, b: 1}", '{"r":[],"b":1}')
case("columnar-one-column", "3.6", "[3]{a}: 1 / 2 / 3", '[{"a":1},{"a":2},{"a":3}]')
case("columnar-quoted-column-names", "3.6", '[1]{"a b","c,d","e/f"}: 1,2,3', '[{"a b":1,"c,d":2,"e/f":3}]')
case("columnar-quoted-identifier-columns", "3.6", '[1]{"id","name"}: 1,"x"', '[{"id":1,"name":"x"}]')
case("columnar-duplicate-columns", "3.6", "[2]{a,a}: 1,2 / 3,4", '[{"a":1,"a":2},{"a":3,"a":4}]', note="duplicate keys are kept in every row")
case("columnar-null-cells", "3.6", "[2]{a,b}: null,1 / 2,null", '[{"a":null,"b":1},{"a":2,"b":null}]')
case("columnar-in-json-array", "3.6", "[[2]{a}: 1 / 2, [1]{b}: 3]", '[[{"a":1},{"a":2}],[{"b":3}]]', note="the count ends the rows; the comma belongs to the outer array")
case("columnar-in-member-value-position", "3.6", "{r: [1]{a}: 1}", '{"r":[{"a":1}]}')
case("columnar-cells-holding-containers", "3.6", "[1]{a,b}: [1,2], {c: 3}", '[{"a":[1,2],"b":{"c":3}}]', note="a cell is any value; the encoder only writes primitives there")
case("columnar-cell-holding-compact", "3.6", "[2]{a,b}: [2]: 1,2, 3 / [0]:, 4", '[{"a":[1,2],"b":3},{"a":[],"b":4}]')
case("columnar-string-cells-with-slash", "3.6", '[2]{p}: "a/b" / "/"', '[{"p":"a/b"},{"p":"/"}]')
case("columnar-many-rows", "3.6", "[5]{i,sq}: 1,1/2,4/3,9/4,16/5,25", '[{"i":1,"sq":1},{"i":2,"sq":4},{"i":3,"sq":9},{"i":4,"sq":16},{"i":5,"sq":25}]')
case("columnar-keyword-columns", "3.6", "[1]{true,null}: false,1", '[{"true":false,"null":1}]')

file("decode-headers-vs-json-arrays", "decode", "Telling [N] apart: a header only when ':' or '{' follows ']' (spec §3.7)")
case("bracket-number-is-json-array", "3.7", "[3]", "[3]")
case("bracket-number-then-comma-is-json", "3.7", "[3, 4]", "[3,4]")
case("bracket-number-with-spaces-is-json", "3.7", "[ 3 ]", "[3]")
case("bracket-number-in-member-is-json", "3.7", "{a: [3]}", '{"a":[3]}')
case("bracket-number-then-comma-in-array", "3.7", "[[3], 4]", "[[3],4]")
case("bracket-number-then-bracket", "3.7", "[[3]]", "[[3]]")
case("bracket-fraction-is-json", "3.7", "[1.5]", "[1.5]", note="only a header needs an integer count")
case("bracket-negative-is-json", "3.7", "[-1]", "[-1]")
case("bracket-exponent-is-json", "3.7", "[1e2]", "[1e2]")
case("bracket-zero-is-json", "3.7", "[0]", "[0]")
case("bracket-number-then-colon-is-header", "3.7", "[1]: 3", "[3]")
case("bracket-number-space-colon-is-header", "3.7", "[1] : 3", "[3]")
case("bracket-number-newline-brace-is-header", "3.7", "[1]\n{a}: 3", '[{"a":3}]')
case("json-array-of-number-and-header", "3.7", "[[1], [1]: 1]", "[[1],[1]]", note="[1] followed by ',' is JSON; [1] followed by ':' is a header")
case("json-array-in-compact-body", "3.7", "{a[2]: [2], [2]: 2, 3}", '{"a":[[2],[2,3]]}')
case("bracket-string-is-json", "3.7", '["3"]', '["3"]')
case("big-number-json-array", "3.7", "[123456789012345678901234567890]", "[123456789012345678901234567890]", note="a count-sized number that is not followed by ':' or '{' is an element")
case("member-json-array-starting-with-number", "3.7", "{a: [2, 3]}", '{"a":[2,3]}')

file("decode-adversarial", "decode", "Inputs that break naive (regex, split-based) decoders (spec §10, §3.5, §3.6)")
for name, s in [
    ("row-separator", " / "), ("comma", ","), ("colon", ":"), ("open-brace", "{"), ("close-brace", "}"),
    ("header-text", "[3]:"), ("columnar-header-text", "[2]{a,b}:"), ("escaped-quote", r"\""), ("escaped-backslash", r"\\"),
    ("backslash-then-quote", r"\\\""), ("brackets", "[]"), ("key-value-text", "a: 1, b: 2"),
]:
    case("compact-string-with-" + name, "10", '{v[2]: "%s","%s"}' % (s, s), '{"v":["%s","%s"]}' % (s, s))
    case("columnar-string-with-" + name, "10", '[2]{a,b}: "%s","x" / "y","%s"' % (s, s), '[{"a":"%s","b":"x"},{"a":"y","b":"%s"}]' % (s, s))
case("quoted-key-with-header-text", "10", '{"k[2]: 1,2": "v[1]: x"}', '{"k[2]: 1,2":"v[1]: x"}')
case("column-name-with-brace-and-colon", "10", '[1]{"}:", "{"}: 1,2', '[{"}:":1,"{":2}]')
case("unicode-everywhere", "10", '{"ключ": "значение", v[2]: "日本","😀"}', '{"ключ":"значение","v":["日本","😀"]}')
case("string-ending-in-backslash", "10", r'{v[2]: "a\\","b"}', r'{"v":["a\\","b"]}', note="the quote after \\\\ closes the string")
case("slash-only-between-values-ends-nothing", "10", '{v[2]: "/","/"}', '{"v":["/","/"]}')
case("nested-columnar-look-alike-in-string", "10", '[1]{q}: "[1]{q}: x"', '[{"q":"[1]{q}: x"}]')

file("decode-limits", "decode", "Depth at the limit is accepted (spec §4.2)")
case("depth-128-arrays", "4.2", "[" * 128 + "]" * 128, "[" * 128 + "]" * 128, note="the default limit is 128; the top-level container is depth 1")
case("depth-128-objects", "4.2", "{a:" * 127 + "{}" + "}" * 127, '{"a":' * 127 + "{}" + "}" * 127)
case("depth-3-at-limit", "4.2", "[[[1]]]", "[[[1]]]", max_depth=3)
case("columnar-rows-count-as-a-level", "4.2", "[1]{a}: 1", '[{"a":1}]', max_depth=2)
case("compact-member-at-limit", "4.2", "{a[1]: 1}", '{"a":[1]}', max_depth=2)
case("scalar-with-depth-zero", "4.2", '"x"', '"x"', max_depth=0, note="a scalar has depth 0")
case("depth-1-compact-top-level", "4.2", "[2]: 1,2", "[1,2]", max_depth=1)
case("depth-1024-at-the-cap", "4.2", "[" * 1024 + "]" * 1024, "[" * 1024 + "]" * 1024, max_depth=1024, note="1024 is the largest depth limit")
case("depth-limit-above-cap-clamped", "4.2", "{a:" * 1023 + "[]" + "}" * 1023, '{"a":' * 1023 + "[]" + "}" * 1023, max_depth=5000, note="a larger limit is clamped to 1024, which this input reaches exactly")


# =====================================================================================
# encode: JSON in -> exact STC out
# =====================================================================================

file("encode-adr-examples", "encode", "The three examples of ADR-066, reproduced byte for byte by the readable profile")
ADR = [
    ('{"name": "foo", "api_version": "v2", "count": 42}', '{name: "foo", api_version: "v2", count: 42}', '{name:"foo",api_version:"v2",count:42}'),
    ('{"tags": ["api", "gateway", "mcp"], "scores": [95, 87, 91]}', '{tags[3]: "api","gateway","mcp", scores[3]: 95,87,91}', '{tags[3]:"api","gateway","mcp",scores[3]:95,87,91}'),
    ('[{"id": 1, "name": "users", "method": "GET"}, {"id": 2, "name": "orders", "method": "POST"}]', '[2]{id,name,method}: 1,"users","GET" / 2,"orders","POST"', '[2]{id,name,method}:1,"users","GET"/2,"orders","POST"'),
]
case("adr-unquoted-keys-readable", "5.6", ADR[0][0], ADR[0][1], profile="readable")
case("adr-compact-arrays-readable", "5.6", ADR[1][0], ADR[1][1], profile="readable")
case("adr-columnar-readable", "5.6", ADR[2][0], ADR[2][1], profile="readable")
case("adr-columnar-compact", "5.6", ADR[2][0], ADR[2][2])
case("adr-unquoted-keys-compact", "5.6", ADR[0][0], ADR[0][2])
case("adr-compact-arrays-compact", "5.6", ADR[1][0], ADR[1][2])

file("encode-keys", "encode", "Keys matching [A-Za-z_][A-Za-z0-9_]* are written bare, all others quoted (spec §5.1)")
for name, key, out in [
    ("identifier-key-bare", "name", "name"),
    ("underscore-key-bare", "_", "_"),
    ("leading-underscore-bare", "_id", "_id"),
    ("digits-after-first-bare", "a1", "a1"),
    ("upper-case-bare", "ApiVersion", "ApiVersion"),
    ("keyword-true-bare", "true", "true"),
    ("keyword-null-bare", "null", "null"),
    ("leading-digit-quoted", "1x", '"1x"'),
    ("all-digits-quoted", "9", '"9"'),
    ("empty-key-quoted", "", '""'),
    ("space-key-quoted", "a b", '"a b"'),
    ("hyphen-key-quoted", "x-y", '"x-y"'),
    ("dot-key-quoted", "a.b", '"a.b"'),
    ("dollar-key-quoted", "$ref", '"$ref"'),
    ("at-key-quoted", "@id", '"@id"'),
    ("non-ascii-letter-quoted", "naïve", '"naïve"'),
    ("cjk-key-quoted", "名前", '"名前"'),
    ("emoji-key-quoted", "😀", '"😀"'),
    ("bracket-key-quoted", "a[2]", '"a[2]"'),
    ("colon-key-quoted", "a:b", '"a:b"'),
]:
    case(name, "5.1", '{"%s": 1}' % key, "{%s:1}" % out)
case("escaped-identifier-key-bare", "5.1", r'{"\u0061\u0062": 1}', "{ab:1}", note="the decision is made on the key's value, not on how the input spelled it")
case("escaped-newline-key-quoted", "5.1", r'{"a\nb": 1}', r'{"a\nb":1}')
case("solidus-escape-key-canonical", "5.1", r'{"a\/b": 1}', '{"a/b":1}')
case("lone-surrogate-key-quoted", "5.1", r'{"\uD800": 1}', r'{"\ud800":1}')
case("duplicate-keys-kept", "5.1", '{"a": 1, "a": 2}', "{a:1,a:2}")
case("quoted-key-before-compact-header", "5.1", '{"a b": [1, 2]}', '{"a b"[2]:1,2}')
case("quoted-column-name", "5.1", '[{"a b": 1, "c": 2}, {"a b": 3, "c": 4}]', '[2]{"a b",c}:1,2/3,4')
case("keys-in-nested-objects", "5.1", '{"outer": {"in-ner": {"x": 1}}}', '{outer:{"in-ner":{x:1}}}')

file("encode-strings", "encode", prefix="encode-", description="String values are always quoted and canonically escaped (spec §5.2)")
for name, body, out in [
    ("plain-string", "hello", "hello"),
    ("empty-string", "", ""),
    ("number-like-string-quoted", "42", "42"),
    ("literal-like-string-quoted", "true", "true"),
    ("identifier-like-value-quoted", "foo", "foo"),
    ("u-escape-ascii-unescaped", r"\u0041", "A"),
    ("solidus-unescaped", r"\/", "/"),
    ("u-escape-latin1-unescaped", r"\u00e9", "é"),
    ("raw-utf8-kept", "é中😀", "é中😀"),
    ("surrogate-pair-joined", r"\uD83D\uDE00", "😀"),
    ("lone-high-surrogate-escaped-lowercase", r"\uD800", r"\ud800"),
    ("lone-low-surrogate-escaped-lowercase", r"\uDFFF", r"\udfff"),
    ("reversed-surrogates", r"\uDE00\uD83D", r"\ude00\ud83d"),
    ("control-u-escape-lowercase", r"\u001F", r"\u001f"),
    ("nul-escaped", r"\u0000", r"\u0000"),
    ("named-controls-short-form", r"\u0008\u000c\u000a\u000d\u0009", r"\b\f\n\r\t"),
    ("quote-escaped", r"\"", r"\""),
    ("backslash-escaped", r"\\", r"\\"),
    ("del-raw", r"\u007F", "\u007f"),
    ("line-separator-raw", r"\u2028", "\u2028"),
    ("replacement-char-raw", r"\uFFFD", "\ufffd"),
]:
    case(name, "5.2", '{"s": "%s"}' % body, '{s:"%s"}' % out)
case("top-level-string", "5.2", '"top"', '"top"')
case("strings-in-compact-array", "5.2", r'{"v": ["\u0041", "\/", "a\"b"]}', r'{v[3]:"A","/","a\"b"}')
case("strings-in-columnar-cells", "5.2", r'[{"s": "\u00e9"}, {"s": "\t"}]', r'[2]{s}:"é"/"\t"')

file("encode-numbers", "encode", "Number lexemes are copied byte for byte, never normalized (spec §5.3)")
for name, lex in [
    ("minus-zero", "-0"), ("exponent-plus-upper", "1E+2"), ("exponent-lower", "1e3"), ("trailing-zero-fraction", "0.10"),
    ("one-point-zero", "1.0"), ("thirty-digit-integer", "123456789012345678901234567890"),
    ("forty-digit-negative", "-1234567890123456789012345678901234567890"), ("huge-exponent", "1e400"),
    ("negative-exponent", "2.5E-10"), ("minus-zero-point-zero", "-0.0"), ("exponent-leading-zeros", "1e007"),
    ("max-safe-plus-one", "9007199254740993"),
]:
    case("member-" + name, "5.3", '{"n": %s}' % lex, "{n:%s}" % lex)
case("lexemes-in-compact-array", "5.3", '{"v": [-0, 1E+2, 0.10, 1.0]}', "{v[4]:-0,1E+2,0.10,1.0}")
case("lexemes-in-columnar-cells", "5.3", '[{"x": 1.0, "y": -0}, {"x": 1E+2, "y": 123456789012345678901234567890}]', "[2]{x,y}:1.0,-0/1E+2,123456789012345678901234567890")
case("top-level-number", "5.3", " 1.50 ", "1.50")
case("top-level-json-array-of-lexemes", "5.3", "[1.0, -0, 1e3]", "[1.0,-0,1e3]")

file("encode-compact-arrays", "encode", "Member arrays of primitives become key[N]: v1,...,vN; other arrays stay JSON (spec §5.4)")
case("member-strings", "5.4", '{"tags": ["a", "b"]}', '{tags[2]:"a","b"}')
case("member-numbers", "5.4", '{"n": [1, 2, 3]}', "{n[3]:1,2,3}")
case("member-booleans", "5.4", '{"b": [true, false]}', "{b[2]:true,false}")
case("member-nulls", "5.4", '{"v": [null, null]}', "{v[2]:null,null}")
case("member-one-element", "5.4", '{"v": [1]}', "{v[1]:1}")
case("member-one-null", "5.4", '{"v": [null]}', "{v[1]:null}")
case("member-empty-array-stays-json", "5.4", '{"v": []}', "{v:[]}", note="an empty array gains nothing from a header")
case("member-array-of-empty-arrays", "5.4", '{"v": [[], []]}', "{v:[[],[]]}")
case("member-nested-array-stays-json", "5.4", '{"v": [[1, 2], [3]]}', "{v:[[1,2],[3]]}")
case("member-array-with-object-stays-json", "5.4", '{"v": [1, {"a": 1}]}', "{v:[1,{a:1}]}")
case("member-array-with-trailing-array", "5.4", '{"v": [1, 2, [3]]}', "{v:[1,2,[3]]}")
case("member-one-object-stays-json", "5.4", '{"v": [{"a": 1}]}', "{v:[{a:1}]}")
case("top-level-primitive-array-stays-json", "5.4", "[1, 2, 3]", "[1,2,3]", note="headers are written only after a key (compact) or for columnar arrays")
case("nested-primitive-arrays-stay-json", "5.4", "[[1, 2], [3, 4]]", "[[1,2],[3,4]]")
case("compact-then-member", "5.4", '{"a": [1, 2], "b": 3}', "{a[2]:1,2,b:3}")
case("compact-then-compact", "5.4", '{"a": [1], "b": ["x"]}', '{a[1]:1,b[1]:"x"}')
case("compact-in-nested-object", "5.4", '{"a": {"b": [1, 2]}}', "{a:{b[2]:1,2}}")
case("compact-in-object-in-array", "5.4", '[{"t": [1]}, {"t": [2, 3]}]', "[{t[1]:1},{t[2]:2,3}]", note="rows holding arrays are not flat, so not columnar")
case("compact-twenty-values", "5.4", '{"z": [%s]}' % ", ".join(["0"] * 20), "{z[20]:%s}" % ",".join(["0"] * 20))
case("member-strings-with-comma", "5.4", '{"v": ["a,b", "c"]}', '{v[2]:"a,b","c"}')

file("encode-columnar-arrays", "encode", "Arrays of two or more flat objects with the same key sequence become [N]{keys}: rows (spec §5.5)")
case("top-level-columnar", "5.5", '[{"a": 1, "b": 2}, {"a": 3, "b": 4}]', "[2]{a,b}:1,2/3,4")
case("member-columnar", "5.5", '{"rows": [{"a": 1}, {"a": 2}]}', "{rows[2]{a}:1/2}")
case("member-columnar-then-member", "5.5", '{"r": [{"a": 1}, {"a": 2}], "n": 2}', "{r[2]{a}:1/2,n:2}")
case("element-columnar", "5.5", '[[{"a": 1}, {"a": 2}], [{"a": 3}, {"a": 4}]]', "[[2]{a}:1/2,[2]{a}:3/4]", note="columnar applies in any position")
case("columnar-then-scalar-in-array", "5.5", '[[{"a": 1}, {"a": 2}], 3]', "[[2]{a}:1/2,3]")
case("columnar-in-object-in-array", "5.5", '[{"r": [{"a": 1}, {"a": 2}]}]', "[{r[2]{a}:1/2}]")
case("three-rows", "5.5", '[{"i": 1}, {"i": 2}, {"i": 3}]', "[3]{i}:1/2/3")
case("null-cells", "5.5", '[{"a": null, "b": 1}, {"a": 2, "b": null}]', "[2]{a,b}:null,1/2,null")
case("mixed-cell-types", "5.5", '[{"a": 1}, {"a": "x"}, {"a": true}]', '[3]{a}:1/"x"/true')
case("same-keys-other-order-not-columnar", "5.5", '[{"a": 1, "b": 2}, {"b": 3, "a": 4}]', "[{a:1,b:2},{b:3,a:4}]", note="columns are a key sequence: reordering would change the document")
case("same-keys-other-order-member-not-columnar", "5.5", '{"r": [{"a": 1, "b": 2}, {"b": 3, "a": 4}]}', "{r:[{a:1,b:2},{b:3,a:4}]}")
case("one-object-not-columnar", "5.5", '[{"a": 1}]', "[{a:1}]")
case("empty-objects-not-columnar", "5.5", "[{}, {}]", "[{},{}]")
case("subset-keys-not-columnar", "5.5", '[{"a": 1}, {"a": 2, "b": 3}]', "[{a:1},{a:2,b:3}]")
case("superset-first-not-columnar", "5.5", '[{"a": 1, "b": 2}, {"a": 3}]', "[{a:1,b:2},{a:3}]")
case("different-keys-not-columnar", "5.5", '[{"a": 1}, {"b": 2}]', "[{a:1},{b:2}]")
case("nested-array-value-not-columnar", "5.5", '[{"a": 1}, {"a": [2]}]', "[{a:1},{a[1]:2}]")
case("nested-object-value-not-columnar", "5.5", '[{"a": {"x": 1}}, {"a": {"x": 2}}]', "[{a:{x:1}},{a:{x:2}}]")
case("empty-array-value-not-columnar", "5.5", '[{"a": []}, {"a": []}]', "[{a:[]},{a:[]}]")
case("empty-object-value-not-columnar", "5.5", '[{"a": {}}, {"a": {}}]', "[{a:{}},{a:{}}]")
case("object-and-scalar-not-columnar", "5.5", '[{"a": 1}, 1]', "[{a:1},1]")
case("scalar-then-objects-not-columnar", "5.5", '[0, {"a": 1}, {"a": 2}]', "[0,{a:1},{a:2}]")
case("duplicate-keys-columnar", "5.5", '[{"a": 1, "a": 2}, {"a": 3, "a": 4}]', "[2]{a,a}:1,2/3,4")
case("duplicate-keys-one-row-not-columnar", "5.5", '[{"a": 1, "a": 2}, {"a": 3, "b": 4}]', "[{a:1,a:2},{a:3,b:4}]")
case("escaped-key-same-sequence", "5.5", r'[{"\u0061": 1}, {"a": 2}]', "[2]{a}:1/2", note="keys are compared by value, not spelling")
case("quoted-member-key-columnar", "5.5", '{"my rows": [{"a": 1}, {"a": 2}]}', '{"my rows"[2]{a}:1/2}')
case("columnar-string-cells", "5.5", '[{"p": "a/b"}, {"p": " / "}]', '[2]{p}:"a/b"/" / "')
case("array-of-columnars-in-member", "5.5", '{"m": [[{"a": 1}, {"a": 2}]]}', "{m:[[2]{a}:1/2]}")

file("encode-profiles", "encode", "compact writes no optional whitespace; readable writes ADR-066's spacing; both choose the same structure (spec §5.6)")
PROFILE_DOCS = [
    ("mixed-document", '{"a": 1, "b": [1, 2], "c": [{"x": 1, "y": 2}, {"x": 3, "y": 4}], "d": {"e": [[1], 2]}}',
     "{a:1,b[2]:1,2,c[2]{x,y}:1,2/3,4,d:{e:[[1],2]}}", "{a: 1, b[2]: 1,2, c[2]{x,y}: 1,2 / 3,4, d: {e: [[1], 2]}}"),
    ("empty-containers", '{"a": {}, "b": []}', "{a:{},b:[]}", "{a: {}, b: []}"),
    ("json-array", "[1, 2, 3]", "[1,2,3]", "[1, 2, 3]"),
    ("array-of-one-object", '[{"a": 1, "b": 2}]', "[{a:1,b:2}]", "[{a: 1, b: 2}]"),
    ("columnar-in-array", '[[{"a": 1}, {"a": 2}], 3]', "[[2]{a}:1/2,3]", "[[2]{a}: 1 / 2, 3]"),
    ("member-json-array", '{"v": [[1, 2], {"k": null}]}', "{v:[[1,2],{k:null}]}", "{v: [[1, 2], {k: null}]}"),
    ("columnar-three-rows", '{"r": [{"i": 1, "s": "a"}, {"i": 2, "s": "b"}, {"i": 3, "s": "c"}]}',
     '{r[3]{i,s}:1,"a"/2,"b"/3,"c"}', '{r[3]{i,s}: 1,"a" / 2,"b" / 3,"c"}'),
    ("scalar", '"x"', '"x"', '"x"'),
    ("empty-object", "{}", "{}", "{}"),
    ("nested-objects", '{"a": {"b": {"c": 1, "d": 2}}}', "{a:{b:{c:1,d:2}}}", "{a: {b: {c: 1, d: 2}}}"),
    ("string-with-spaces-untouched", '{"s": "a , b : c"}', '{s:"a , b : c"}', '{s: "a , b : c"}'),
    ("pretty-input", '{\n  "a": [\n    1,\n    2\n  ]\n}\n', "{a[2]:1,2}", "{a[2]: 1,2}"),
]
for name, doc, compact, readable in PROFILE_DOCS:
    case(name + "-compact", "5.6", doc, compact)
    case(name + "-readable", "5.6", doc, readable, profile="readable")

file("encode-determinism", "encode", "Equal JSON values give byte-identical STC, whatever the input's whitespace or escape style (spec §5.7)")
DET = [
    ("object", "{a[2]:1,2,b:\"/\"}", ['{"a":[1,2],"b":"/"}', '{ "a" : [ 1 , 2 ] , "b" : "\\/" }', '{\n\t"a": [1,\n 2],\r\n"b": "\\u002f"\n}', '{"\\u0061": [1, 2], "\\u0062": "/"}']),
    ("columnar", "[2]{k,v}:\"é\",1/\"😀\",2", ['[{"k":"é","v":1},{"k":"😀","v":2}]', '[ {"k": "\\u00e9", "v": 1} , {"k": "\\ud83d\\ude00", "v": 2} ]', '[{"\\u006b":"\\u00E9","v":1},{"k":"\\uD83D\\uDE00","\\u0076":2}]']),
]
for name, out, inputs in DET:
    for i, doc in enumerate(inputs):
        case("%s-spelling-%d" % (name, i + 1), "5.7", doc, out)
case("numbers-not-normalized", "5.7", '{"a": 1.0, "b": 1.00, "c": 1}', "{a:1.0,b:1.00,c:1}", note="determinism is over the JSON text's lexemes: 1.0 and 1 are different inputs")

file("encode-adversarial", "encode", prefix="encode-", description="Strings holding STC syntax stay inside their quotes (spec §10)")
ADV = [("row-separator", " / "), ("comma", ","), ("colon", ":"), ("braces", "{}"), ("header", "[3]:"), ("columnar-header", "[2]{a,b}:"),
       ("escaped-quote", r"\""), ("escaped-backslash", r"\\"), ("slash", "/")]
for name, s in ADV:
    case("compact-string-with-" + name, "10", '{"v": ["%s", "%s"]}' % (s, s), '{v[2]:"%s","%s"}' % (s, s))
    case("columnar-string-with-" + name, "10", '[{"a": "%s", "b": 1}, {"a": 2, "b": "%s"}]' % (s, s), '[2]{a,b}:"%s",1/2,"%s"' % (s, s))
case("mixed-type-array-is-compacted", "10", '{"v": [1, "a", true, null, 2.5]}', '{v[5]:1,"a",true,null,2.5}', note="decision on ADR-066: 'homogeneous' is not required; any primitives")
case("unicode-keys-and-values", "10", '{"ключ": "значение", "k": ["日本", "😀"]}', '{"ключ":"значение",k[2]:"日本","😀"}')
case("string-ending-in-backslash", "10", r'{"v": ["a\\", "b"]}', r'{v[2]:"a\\","b"}')


# =====================================================================================
# roundtrip: JSON -> encode (both profiles) -> decode == canonical minified JSON
# =====================================================================================

file("roundtrip-data-model", "roundtrip", "The value tree survives encode then decode: lexemes, duplicates, key order, lone surrogates (spec §2)")
RT2 = [
    ("number-lexemes-and-duplicate-keys", '{"a": 1.0, "a": 1e3, "b": [-0, 1E-7, 1234567890123456789012345678901234567890], "s": "\\ud800"}'),
    ("key-order", '{"z": 1, "y": 2, "x": 3, "a": 4}'),
    ("duplicate-keys-everywhere", '{"k": 1, "k": [1, 2], "k": {"k": 1, "k": 2}, "k": [{"k": 1, "k": 2}, {"k": 3, "k": 4}]}'),
    ("number-lexemes-in-arrays", '{"v": [-0, -0.0, 0.10, 1E+2, 1e-0, 30e30, 123456789012345678901234567890]}'),
    ("number-lexemes-in-columns", '[{"a": 1.0, "b": -0}, {"a": 1E+2, "b": 0.10}]'),
    ("lone-surrogates", '{"hi": "\\uD800", "lo": "\\uDC00", "v": ["\\uDBFF\\u0041", "x\\uDFFF"], "\\uD801": 1}'),
    ("surrogate-pairs", '{"e": "\\uD83D\\uDE00", "k": ["\\ud83c\\udf89"]}'),
    ("all-short-escapes", '{"s": "\\" \\\\ \\/ \\b \\f \\n \\r \\t"}'),
    ("all-control-characters", '{"s": "%s"}' % "".join("\\u%04x" % c for c in range(32))),
    ("unicode-keys-and-values", '{"é": "ü", "中文": ["日本", "한국"], "😀": [{"ключ": 1}, {"ключ": 2}]}'),
    ("empty-containers", '{"a": [], "b": {}, "c": [[], {}], "d": [{}, {}], "e": [[]]}'),
    ("null-cells-and-values", '{"n": null, "v": [null], "r": [{"a": null}, {"a": null}]}'),
    ("top-level-scalars-string", '"just a string"'),
    ("top-level-scalars-number", "-12.5e+3"),
    ("top-level-null", "null"),
    ("one-element-arrays", '{"a": [1], "b": [[1]], "c": [{"a": 1}], "d": ["x"]}'),
    ("empty-string-key-and-value", '{"": "", "a": [""]}'),
]
for name, doc in RT2:
    case(name, "2", doc, canon(doc))

file("roundtrip-properties", "roundtrip", "decode(encode(x)) is x for documents that stress the encoder's choices (spec §6, §10)")
RT6 = [
    ("strings-with-stc-syntax-in-compact", '{"v": [" / ", ",", ":", "{", "}", "[3]:", "[2]{a,b}:", "\\"", "\\\\", "\\\\\\""]}'),
    ("strings-with-stc-syntax-in-columns", '[{"a": " / ", "b": "[3]:"}, {"a": "[2]{a,b}:", "b": ","}, {"a": "\\"}", "b": "\\\\"}]'),
    ("keys-with-stc-syntax", '{"a[2]": 1, "b{c}": 2, "d:e": 3, "f/g": 4, "h,i": [{"j k": 1}, {"j k": 2}]}'),
    ("same-keys-other-order", '[{"a": 1, "b": 2}, {"b": 3, "a": 4}]'),
    ("almost-columnar", '[{"a": 1}, {"a": 2}, {"a": 3, "b": 4}]'),
    ("columnar-in-columnar-position", '[[{"a": 1}, {"a": 2}], [{"b": 3}, {"b": 4}], [{"c": 5}]]'),
    ("columnar-followed-by-members", '{"r": [{"a": 1}, {"a": 2}], "s": [{"a": 1}, {"a": 2}], "t": 3}'),
    ("compact-followed-by-members", '{"a": [1, 2], "b": [3], "c": {"d": [4, 5]}, "e": 6}'),
    ("arrays-of-bracket-numbers", '[[3], [3, 4], [[2]], {"a": [3]}, {"a": [[3]]}]'),
    ("numbers-that-look-like-counts", '{"a": [2], "b": [0], "c": [[1], [2]], "d": [1, [2]]}'),
    ("mixed-type-arrays", '{"m": [1, "1", true, null, 1.5], "n": [[1, "x"], [null]]}'),
    ("deep-nesting", "[" * 50 + '{"a": [1, {"b": [{"c": 1}, {"c": 2}]}]}' + "]" * 50),
    ("wide-columnar", '[%s]' % ", ".join('{"a": %d, "b": "%d", "c": %s}' % (i, i, "true" if i % 2 else "null") for i in range(30))),
    ("realistic-tool-response", '{"status": "ok", "page": {"next": null, "size": 2}, "items": [{"id": "a1", "price": 9.90, "tags": ["x", "y"]}, {"id": "b2", "price": 10, "tags": []}], "totals": [{"k": "sum", "v": 19.90}, {"k": "n", "v": 2}]}'),
    ("escaped-identifier-keys", '{"\\u0061": 1, "b\\u0062": [1, 2], "c": [{"\\u0064": 1}, {"d": 2}]}'),
]
for name, doc in RT6:
    case(name, "6", doc, canon(doc))
case("columnar-at-depth-limit", "4.2", '[{"a": 1}, {"a": 2}]', '[{"a":1},{"a":2}]', max_depth=2, note="a columnar array of rows is as deep as the JSON array of objects it encodes")
case("compact-at-depth-limit", "4.2", '{"a": [1, 2]}', '{"a":[1,2]}', max_depth=2)
case("nesting-128-deep", "4.2", '{"a":' * 127 + "[1]" + "}" * 127, '{"a":' * 127 + "[1]" + "}" * 127, note="at the default limit; the innermost array becomes a compact member array")


# =====================================================================================
# invalid: STC in -> rejected with an error kind and byte offset
# =====================================================================================

file("invalid-syntax", "invalid", "Text that is neither JSON nor STC (spec §3, §3.1, §3.4, §4.3)")
for name, spec, text, kind, where in [
    ("empty-input", "3", "", "unexpected_end", END),
    ("whitespace-only", "3.1", "  \n\t", "unexpected_end", END),
    ("two-values", "3", "1 2", "trailing_characters", "2"),
    ("value-then-garbage", "3", "{a: 1} x", "trailing_characters", "x"),
    ("extra-closing-bracket", "3.4", "[1]]", "trailing_characters", ("]", 1)),
    ("extra-closing-brace", "3.3", "{a: 1}}", "trailing_characters", ("}", 1)),
    ("array-trailing-comma", "3.4", "[1,]", "unexpected_char", "]"),
    ("array-leading-comma", "3.4", "[,1]", "unexpected_char", ","),
    ("array-double-comma", "3.4", "[1,,2]", "unexpected_char", (",", 1)),
    ("array-missing-comma", "3.4", "[1 2]", "unexpected_char", "2"),
    ("array-closed-by-brace", "3.4", "[1}", "unexpected_char", "}"),
    ("object-trailing-comma", "3.3", "{a: 1,}", "unexpected_char", "}"),
    ("object-only-comma", "3.3", "{,}", "unexpected_char", ","),
    ("object-missing-colon", "3.3", "{a 1}", "unexpected_char", "1"),
    ("object-missing-comma", "3.3", "{a: 1 b: 2}", "unexpected_char", "b"),
    ("object-missing-value", "3.3", "{a: }", "unexpected_char", "}"),
    ("object-closed-by-bracket", "3.3", "{a: 1]", "unexpected_char", "]"),
    ("stray-closing-brace", "3", "}", "unexpected_char", 0),
    ("stray-closing-bracket", "3", "]", "unexpected_char", 0),
    ("stray-colon", "3", ":", "unexpected_char", 0),
    ("line-comment", "3", "// note\n1", "unexpected_char", 0),
    ("block-comment-in-array", "3.4", "[1 /* c */]", "unexpected_char", "/"),
    ("single-quoted-string", "3.2", "{a: 'x'}", "unexpected_char", "'"),
    ("unquoted-string-value", "3.2", "{a: foo}", "unexpected_char", "o", ),
    ("capitalized-true", "3.2", "{a: True}", "unexpected_char", "T"),
    ("literal-truncated-word", "3.2", "{a: nul}", "unexpected_char", "}"),
    ("literal-misspelled", "3.2", "[tru e]", "unexpected_char", " "),
    ("literal-with-suffix", "3.2", "[nulll]", "unexpected_char", ("l", 2)),
    ("nan", "3.2", "[NaN]", "unexpected_char", "N"),
    ("infinity", "3.2", "[Infinity]", "unexpected_char", "I"),
    ("undefined", "3.2", "{a: undefined}", "unexpected_char", "u"),
    ("byte-order-mark", "3.1", "\ufeff{}", "unexpected_char", 0),
    ("no-break-space-is-not-whitespace", "3.1", "[1,\u00a02]", "unexpected_char", "\u00a0"),
    ("vertical-tab-is-not-whitespace", "3.1", "[1,\u000b2]", "unexpected_char", "\u000b"),
    ("form-feed-is-not-whitespace", "3.1", "[1,\u000c2]", "unexpected_char", "\u000c"),
    ("members-without-braces", "3.3", "tags[2]: 1,2", "unexpected_char", "a", ),
    ("semicolon-separator", "3.4", "[1;2]", "unexpected_char", ";"),
    ("two-documents", "3", "{a: 1}\n{a: 2}", "trailing_characters", ("{", 1)),
]:
    case(name, spec, text, error=(kind, where))

file("invalid-numbers", "invalid", "Numbers follow the JSON number grammar exactly (spec §3.2)")
for name, text, kind, where in [
    ("leading-zero", "[01]", "invalid_number", "1"),
    ("negative-leading-zero", "[-01]", "invalid_number", "1"),
    ("double-zero", "[00]", "invalid_number", ("0", 1)),
    ("fraction-without-digits", "[1.]", "invalid_number", "]"),
    ("fraction-then-exponent-without-digits", "[1.e3]", "invalid_number", "e"),
    ("leading-point", "[.5]", "unexpected_char", "."),
    ("minus-point", "[-.5]", "invalid_number", "."),
    ("leading-plus", "[+1]", "unexpected_char", "+"),
    ("lone-minus", "[-]", "invalid_number", "]"),
    ("minus-space-digit", "[- 1]", "invalid_number", " "),
    ("exponent-without-digits", "[1e]", "invalid_number", "]"),
    ("exponent-sign-without-digits", "[1e+]", "invalid_number", "]"),
    ("double-exponent-sign", "[1e+-1]", "invalid_number", "-"),
    ("hex-number", "[0x10]", "unexpected_char", "x"),
    ("digit-separator", "[1_000]", "unexpected_char", "_"),
    ("two-points", "{n: 1.5.5}", "unexpected_char", (".", 1)),
    ("minus-infinity", "[-Infinity]", "invalid_number", "I"),
    ("leading-zero-in-compact-body", "{v[2]: 1,02}", "invalid_number", ("2", 1)),
    ("bad-number-in-columnar-cell", "[1]{a}: 1.", "unexpected_end", END),
    ("lone-minus-at-end", "-", "unexpected_end", END),
    ("exponent-at-end", "1e", "unexpected_end", END),
]:
    case(name, "3.2", text, error=(kind, where))

file("invalid-strings", "invalid", "Strings: only JSON escapes, no raw control characters, closed before the end (spec §3.2)")
for name, text, kind, where in [
    ("unknown-escape", r'"\x"', "invalid_escape", "\\"),
    ("unknown-escape-in-value", r'{s: "a\qb"}', "invalid_escape", "\\"),
    ("escaped-single-quote", r'"\'"', "invalid_escape", "\\"),
    ("upper-u-escape", r'"\U0041"', "invalid_escape", "\\"),
    ("u-escape-bad-hex", r'"\u12G4"', "invalid_escape", "\\"),
    ("u-escape-too-short", r'"\u12"', "invalid_escape", "\\"),
    ("u-escape-empty", r'"\u"', "invalid_escape", "\\"),
    ("u-escape-braces", r'"\u{41}"', "invalid_escape", "\\"),
    ("escape-in-second-string", r'["ok", "\a"]', "invalid_escape", "\\"),
    ("raw-tab", '"a\tb"', "control_character", "\t"),
    ("raw-newline", '{s: "line1\nline2"}', "control_character", "\n"),
    ("raw-carriage-return", '"a\rb"', "control_character", "\r"),
    ("raw-nul", '"a\u0000b"', "control_character", "\u0000"),
    ("raw-unit-separator", '"\u001f"', "control_character", "\u001f"),
    ("raw-control-in-key", '{"a\nb": 1}', "control_character", "\n"),
    ("raw-control-in-column-name", '[1]{"a\tb"}: 1', "control_character", "\t"),
    ("unknown-escape-in-key", r'{"a\x": 1}', "invalid_escape", "\\"),
    ("unknown-escape-in-column-name", r'[1]{"a\x"}: 1', "invalid_escape", "\\"),
    ("unknown-escape-in-compact-body", r'{v[2]: "a","\z"}', "invalid_escape", "\\"),
    ("unterminated-string", '"abc', "unexpected_end", END),
    ("unterminated-key", '{"a: 1}', "unexpected_end", END),
    ("unterminated-after-escaped-quote", r'"abc\"', "unexpected_end", END),
    ("unterminated-escape", '"abc\\', "unexpected_end", END),
    ("unterminated-u-escape", r'"\u00', "unexpected_end", END),
]:
    case(name, "3.2", text, error=(kind, where))

file("invalid-keys", "invalid", "Bare keys are identifiers [A-Za-z_][A-Za-z0-9_]*; anything else must be quoted (spec §3.3)")
for name, text, kind, where in [
    ("key-starting-with-digit", "{1a: 1}", "unexpected_char", "1"),
    ("key-with-hyphen", "{a-b: 1}", "unexpected_char", "-"),
    ("key-with-dot", "{a.b: 1}", "unexpected_char", "."),
    ("key-with-space", "{a b: 1}", "unexpected_char", "b"),
    ("key-with-dollar", "{$a: 1}", "unexpected_char", "$"),
    ("key-with-minus-first", "{-a: 1}", "unexpected_char", "-"),
    ("non-ascii-bare-key", "{é: 1}", "unexpected_char", "é"),
    ("identifier-then-non-ascii", "{aé: 1}", "unexpected_char", "é"),
    ("cjk-bare-key", "{名前: 1}", "unexpected_char", "名"),
    ("empty-bare-key", "{: 1}", "unexpected_char", ":"),
    ("key-without-value", "{a}", "unexpected_char", "}"),
    ("key-with-colon-no-value", "{a:}", "unexpected_char", "}"),
    ("single-quoted-key", "{'a': 1}", "unexpected_char", "'"),
    ("array-as-key", "{[1]: 2}", "unexpected_char", "["),
    ("number-as-key", "{a: 1, 2: 3}", "unexpected_char", "2"),
    ("object-as-key", "{{}: 1}", "unexpected_char", ("{", 1)),
    ("column-name-starting-with-digit", "[1]{1a}: 1", "unexpected_char", "1a"),
    ("empty-column-list", "[1]{}: 1", "unexpected_char", "}"),
    ("column-list-trailing-comma", "[1]{a,}: 1", "unexpected_char", "}"),
    ("column-list-missing-comma", "[1]{a b}: 1", "unexpected_char", "b"),
    ("column-list-with-values", "[1]{a: 1}", "unexpected_char", ":"),
    ("column-name-with-hyphen", "[1]{a-b}: 1", "unexpected_char", "-"),
    ("column-name-number", "[1]{1}: 1", "unexpected_char", ("1", 1)),
]:
    case(name, "3.3", text, error=(kind, where))

file("invalid-headers", "invalid", "Malformed array headers and bodies (spec §3.5, §3.6, §3.7)")
for name, spec, text, kind, where in [
    ("member-header-without-colon", "3.5", "{a[1]}", "unexpected_char", "}"),
    ("member-header-then-value", "3.5", "{a[1] 5}", "unexpected_char", "5"),
    ("member-header-not-a-count", "3.5", "{a[x]: 1}", "unexpected_char", "x"),
    ("member-header-empty-count", "3.5", "{a[]: 1}", "unexpected_char", "]"),
    ("member-header-two-numbers", "3.5", "{a[1 2]: 1}", "unexpected_char", "2"),
    ("member-header-unclosed", "3.5", "{a[1: 1}", "unexpected_char", ":"),
    ("member-header-string-count", "3.5", '{a["1"]: 1}', "unexpected_char", '"'),
    ("member-header-nested-bracket", "3.5", "{a[[1]]: 1}", "unexpected_char", ("[", 1)),
    ("compact-missing-comma", "3.5", "[2]: 1 2", "unexpected_char", ("2", 1)),
    ("compact-semicolon", "3.5", "[2]: 1;2", "unexpected_char", ";"),
    ("compact-double-colon", "3.5", "[1]:: 1", "unexpected_char", (":", 1)),
    ("compact-leading-comma", "3.5", "{a[2]: ,1,2}", "unexpected_char", ","),
    ("compact-empty-value", "3.5", "{a[3]: 1,,2}", "unexpected_char", (",", 1)),
    ("top-level-member-header", "3.5", "a[1]: 1", "unexpected_char", 0),
    ("column-list-without-colon", "3.6", "[1]{a} 1", "unexpected_char", ("1", 1)),
    ("column-list-then-brace", "3.6", "{a[1]{b}}", "unexpected_char", ("}", 1)),
    ("columnar-missing-cell-comma", "3.6", "[1]{a,b}: 1 2", "unexpected_char", "2"),
    ("columnar-missing-row-separator", "3.6", "[2]{a}: 1 2", "unexpected_char", ("2", 1)),
    ("columnar-double-slash", "3.6", "[2]{a}: 1 // 2", "unexpected_char", ("/", 1)),
    ("columnar-leading-slash", "3.6", "[2]{a}: / 1 / 2", "unexpected_char", "/"),
    ("columnar-row-separator-comma-then-slash", "3.6", "[2]{a,b}: 1,/ 2,3", "unexpected_char", "/"),
    ("columnar-rows-in-braces", "3.6", "[1]{a}: {1}", "unexpected_char", ("1", 1)),
    ("header-with-brace-but-no-columns", "3.7", "[1]{: 1", "unexpected_char", ":"),
    ("header-in-column-list", "3.6", "[1]{a[1]}: 1", "unexpected_char", ("[", 1)),
    ("json-array-then-colon-in-array", "3.7", "[[1, 2]: 3]", "unexpected_char", ":"),
    ("json-array-number-then-brace", "3.7", "[[1, 2]{a}: 3]", "unexpected_char", "{"),
]:
    case(name, spec, text, error=(kind, where))

file("invalid-counts", "invalid", "Counts are authoritative: a body must hold exactly N values or N rows of K cells (spec §4.1)")
for name, text, kind, where, note in [
    ("compact-fewer-values-than-count", "{a[3]: 1,2}", "count_mismatch", "}", None),
    ("columnar-extra-row", "[1]{a}: 1 / 2", "count_mismatch", "/", None),
    ("compact-fewer-member-one-missing", "{a[2]: 1}", "count_mismatch", "}", None),
    ("compact-fewer-in-json-array", "[[2]: 1]", "count_mismatch", ("]", 1), None),
    ("compact-fewer-before-row-separator", "[3]: 1,2 / 3", "count_mismatch", "/", None),
    ("compact-fewer-in-columnar-cell", "[1]{a,b}: [3]: 1,2 / 3", "count_mismatch", "/", None),
    ("compact-fewer-at-end-of-input", "[3]: 1,2", "unexpected_end", END, "the input ends where the third value is due: truncation, not a closed body"),
    ("compact-more-values-top-level", "[2]: 1,2,3", "trailing_characters", (",", 1), "after N values the array is complete; what follows belongs to the enclosing context"),
    ("compact-more-values-in-member", "{a[2]: 1,2,3}", "unexpected_char", "3", "after N values the comma separates members, and 3 is not a key"),
    ("compact-zero-with-value", "{a[0]: 1}", "unexpected_char", "1", None),
    ("compact-zero-with-value-top-level", "[0]: 1", "trailing_characters", "1", None),
    ("columnar-fewer-rows-member", "{r[3]{a}: 1 / 2}", "count_mismatch", ("}", 1), None),
    ("columnar-fewer-rows-in-array", "[[2]{a}: 1]", "count_mismatch", ("]", 1), None),
    ("columnar-fewer-cells", "[2]{a,b}: 1 / 2,3", "count_mismatch", "/", None),
    ("columnar-fewer-cells-last-row", "{r[2]{a,b}: 1,2 / 3}", "count_mismatch", ("}", 1), None),
    ("columnar-more-cells", "[2]{a}: 1,2 / 3", "count_mismatch", ",", None),
    ("columnar-more-cells-last-row-top-level", "[1]{a,b}: 1,2,3", "trailing_characters", (",", 2), None),
    ("columnar-more-cells-last-row-member", "{r[1]{a,b}: 1,2,3}", "unexpected_char", "3", "after K cells of the last row the comma separates members, and 3 is not a key"),
    ("columnar-two-extra-rows", "[2]{a}: 1 / 2 / 3 / 4", "count_mismatch", ("/", 1), None),
    ("columnar-extra-row-member", "{r[1]{a}: 1 / 2}", "count_mismatch", "/", None),
    ("columnar-zero-rows-then-slash", "[0]{a}: / 1", "count_mismatch", "/", None),
    ("columnar-zero-rows-with-cell", "[0]{a}: 1", "trailing_characters", "1", None),
    ("columnar-fewer-at-end-of-input", "[3]{a}: 1 / 2", "unexpected_end", END, None),
    ("negative-count", "[-1]: 1", "invalid_count", "-", None),
    ("negative-zero-count", "[-0]:", "invalid_count", "-", None),
    ("fraction-count", "[1.5]: 1", "invalid_count", "1", None),
    ("exponent-count", "[1e1]: 1", "invalid_count", "1", None),
    ("fraction-zero-count-member", "{a[2.0]: 1,2}", "invalid_count", "2", None),
    ("negative-count-member", "{a[-1]: 1}", "invalid_count", "-", None),
    ("exponent-count-columnar", "[1E0]{a}: 1", "invalid_count", "1", None),
    ("plus-count-member", "{a[+1]: 1}", "unexpected_char", "+", None),
    ("leading-zero-count", "[01]: 1", "invalid_number", ("1", 0), None),
    ("count-far-larger-than-input", "[1000]: 1,2,3", "count_too_large", "1", None),
    ("count-larger-than-input-member", "{a[6]: 1,2}", "count_too_large", "6", "each value needs at least one byte, and five bytes are left"),
    ("count-overflows-64-bits", "[18446744073709551616]: 1", "count_too_large", "1", None),
    ("count-max-64-bits", "[18446744073709551615]: 1", "count_too_large", "1", None),
    ("count-above-32-bits", "{a[4294967296]: 1}", "count_too_large", "4", None),
    ("count-thirty-digits", "[123456789012345678901234567890]{a}: 1", "count_too_large", "1", None),
    ("columnar-cells-larger-than-input", "[5]{a,b}: 1,2/3,4", "count_too_large", "5", "rows times columns cells are due"),
    ("columnar-cells-overflow", "[9999999999]{a,b,c,d,e,f,g,h}: 1", "count_too_large", "9", None),
    ("count-with-empty-body", "{a[2]:}", "count_too_large", "2", None),
]:
    case(name, "4.1", text, error=(kind, where), note=note)

file("invalid-limits", "invalid", "Nesting deeper than the depth limit is rejected at the opening bracket that crosses it (spec §4.2)")
case("depth-129-arrays", "4.2", "[" * 129 + "]" * 129, error=("depth_limit", 128), note="the default limit is 128")
case("depth-129-objects", "4.2", "{a:" * 128 + "{}" + "}" * 128, error=("depth_limit", 128 * 3))
case("depth-129-unclosed", "4.2", "[" * 200, error=("depth_limit", 128), note="the limit is checked before the end of input is seen")
case("depth-past-limit-in-columnar-cell", "4.2", "[1]{a}: " + "[" * 127 + "]" * 127, error=("depth_limit", 8 + 126), note="the rows are depth 2, so the 127th bracket of the cell is depth 129")
case("max-depth-3", "4.2", "[[[[1]]]]", error=("depth_limit", 3), max_depth=3)
case("max-depth-1-member-compact", "4.2", "{a[1]: 1}", error=("depth_limit", 2), max_depth=1, note="a compact member array is one level below its object")
case("max-depth-1-columnar", "4.2", "[1]{a}: 1", error=("depth_limit", 0), max_depth=1, note="a columnar array needs two levels: the array and its rows")
case("max-depth-2-member-columnar", "4.2", "{r[1]{a}: 1}", error=("depth_limit", 2), max_depth=2)
case("max-depth-0-empty-array", "4.2", "[]", error=("depth_limit", 0), max_depth=0)
case("max-depth-0-empty-object", "4.2", "{}", error=("depth_limit", 0), max_depth=0)
case("max-depth-2-inside-compact-body", "4.2", "[2]: [1], [[2]]", error=("depth_limit", 11), max_depth=2)
case("max-depth-2-value-position-header", "4.2", "{a: [1]: [1]}", error=("depth_limit", 9), max_depth=2)

file("invalid-truncated", "invalid", "STC cut short at every byte: unexpected_end at the end of input, or count_too_large once a header's count cannot fit (spec §4.3, §4.1)")
TRUNC_DOC = '{id: 7, "q k": [true, false, null], s: "a\\"b\\u00e9", n[2]: -1.5e+3,0, rows[2]{a,"b c"}: "x",1 / "y",2, o: {e: [], f: [1]: 2}}'
# (offset of the count, offset just after the header's ':', cells the body needs)
TRUNC_HEADERS = [(at(TRUNC_DOC, "n[2]") + 2, at(TRUNC_DOC, "n[2]:") + 5, 2),
                 (at(TRUNC_DOC, "rows[2]") + 5, at(TRUNC_DOC, '"b c"}:') + 7, 4),
                 (at(TRUNC_DOC, "[1]:") + 1, at(TRUNC_DOC, "[1]:") + 4, 1)]
for n in range(len(TRUNC_DOC)):
    prefix = TRUNC_DOC[:n]
    err = ("unexpected_end", n)
    for count_at, body_at, cells in TRUNC_HEADERS:
        if n >= body_at and n - body_at < cells:
            err = ("count_too_large", count_at)
    case("stc-prefix-%03d" % n, "4.3", prefix, error=err)
for name, text in [
    ("cut-after-key", "{abc"), ("cut-after-colon", "{a:"), ("cut-after-member-comma", "{a: 1,"), ("cut-in-count", "{a[12"),
    ("cut-after-count-bracket", "{a[2]"), ("cut-in-column-list", "[2]{a,"), ("cut-after-column-list", "[2]{a,b}"),
    ("cut-after-row-separator", "[2]{a}: 1 /"), ("cut-after-cell-comma", "[1]{a,b}: 1,"), ("cut-in-true", "[t"),
    ("cut-in-false", "[fals"), ("cut-in-null", "[nu"), ("cut-after-minus", "[-"), ("cut-after-point", "[1."),
    ("cut-after-exponent", "[1E"), ("cut-after-exponent-sign", "[1e-"), ("cut-in-string", '["ab'),
    ("cut-after-backslash", '["a\\'), ("cut-in-u-escape", '["\\u12'), ("cut-after-open-bracket", "["),
    ("cut-after-open-brace", "{"), ("cut-after-quoted-column", '[2]{"a"'),
]:
    case(name, "4.3", text, error=("unexpected_end", END))

file("invalid-utf8", "invalid", "Input must be UTF-8; the offset is the first byte that is not part of a valid sequence (spec §4.3, §7)")
for name, hexs, off in [
    ("lone-ff", "ff", 0),
    ("ff-in-string", "5b22ff225d", 2),
    ("truncated-two-byte-sequence", "5b22c3225d", 2),
    ("truncated-three-byte-at-end", "2245e282", 2),
    ("overlong-slash", "22c0af22", 1),
    ("encoded-surrogate", "22eda08022", 1),
    ("above-max-code-point", "22f490808022", 1),
    ("lone-continuation-byte", "228022", 1),
    ("invalid-byte-outside-string", "7b613a31ff7d", 4),
    ("invalid-byte-in-bare-key", "7bff3a317d", 1),
    ("invalid-byte-after-valid-multibyte", "22c3a9fe22", 3),
    ("latin1-text", "7b733a2263616ff722207d", 7),
]:
    case(name, "4.3", input_hex=hexs, error=("invalid_utf8", off))

file("invalid-offsets", "invalid", "Error offsets count UTF-8 bytes from 0, whatever the characters before them (spec §4.3)")
for name, text, kind, where in [
    ("after-two-byte-key", '{"é": x}', "unexpected_char", "x"),
    ("after-four-byte-string", '["😀" 1]', "unexpected_char", "1"),
    ("after-cjk-values", '{v[2]: "日本","中" x}', "unexpected_char", "x"),
    ("escape-after-multibyte", r'"日本\x"', "invalid_escape", "\\"),
    ("control-after-multibyte", '"ü\tx"', "control_character", "\t"),
    ("after-crlf-lines", '{\r\n  a: 1,\r\n  b 2\r\n}', "unexpected_char", "2"),
    ("count-mismatch-after-multibyte", '{"ключ"[3]: "а","б"}', "count_mismatch", "}"),
    ("count-offset-after-multibyte", '{"ключ"[1.5]: 1}', "invalid_count", "1.5"),
    ("depth-offset-after-multibyte", '{"é": [[1]]}', "depth_limit", ("[", 1)),
    ("trailing-after-multibyte", '"€" €', "trailing_characters", ("€", 1)),
]:
    case(name, "4.3", text, error=(kind, where), max_depth=2 if name.startswith("depth") else None)


# =====================================================================================
# json-invalid: text given to encode that is not JSON -> rejected
# =====================================================================================

file("json-invalid-syntax", "json-invalid", prefix="json-", description="encode accepts strict RFC 8259 JSON only: nothing is repaired (spec §5, §3.2)")
for name, spec, text, kind, where in [
    ("nan-is-not-json", "3.2", "[NaN]", "unexpected_char", "N"),
    ("infinity", "3.2", "[Infinity]", "unexpected_char", "I"),
    ("minus-infinity", "3.2", "-Infinity", "invalid_number", "I"),
    ("empty-input", "5", "", "unexpected_end", END),
    ("whitespace-only", "5", " \n ", "unexpected_end", END),
    ("two-values", "5", "1 2", "trailing_characters", "2"),
    ("extra-closing-brace", "5", '{"a": 1}}', "trailing_characters", ("}", 1)),
    ("trailing-comma-array", "3.2", "[1,]", "unexpected_char", "]"),
    ("trailing-comma-object", "3.2", '{"a": 1,}', "unexpected_char", "}"),
    ("line-comment", "5", "// c\n1", "unexpected_char", 0),
    ("block-comment", "5", '{"a": /* c */ 1}', "unexpected_char", "/"),
    ("single-quotes", "3.2", "['x']", "unexpected_char", "'"),
    ("leading-plus", "3.2", "+1", "unexpected_char", 0),
    ("leading-point", "3.2", ".5", "unexpected_char", 0),
    ("leading-zero", "3.2", "01", "invalid_number", 1),
    ("fraction-without-digits-at-end", "3.2", "1.", "unexpected_end", END),
    ("fraction-without-digits", "3.2", "[1.]", "invalid_number", "]"),
    ("hex-number", "3.2", "0x1F", "trailing_characters", "x"),
    ("invalid-escape", "3.2", r'["\x"]', "invalid_escape", "\\"),
    ("raw-tab-in-string", "3.2", '["a\tb"]', "control_character", "\t"),
    ("raw-newline-in-key", "3.2", '{"a\nb": 1}', "control_character", "\n"),
    ("unterminated-string", "3.2", '"abc', "unexpected_end", END),
    ("capitalized-true", "3.2", "True", "unexpected_char", 0),
    ("undefined", "3.2", '{"a": undefined}', "unexpected_char", "u"),
    ("nil", "3.2", "nil", "unexpected_char", "i"),
    ("byte-order-mark", "5", "\ufeff{}", "unexpected_char", 0),
    ("no-break-space", "5", "[1,\u00a02]", "unexpected_char", "\u00a0"),
    ("missing-colon", "3.2", '{"a" 1}', "unexpected_char", "1"),
    ("missing-value", "3.2", '{"a": }', "unexpected_char", "}"),
    ("invalid-utf8-in-string", "3.2", None, "invalid_utf8", 2),
    ("invalid-utf8-lone-byte", "3.2", None, "invalid_utf8", 0),
]:
    if text is None:
        case(name, spec, input_hex="5b22ff225d" if name.endswith("string") else "80", error=(kind, where))
    else:
        case(name, spec, text, error=(kind, where))

file("json-invalid-stc-syntax", "json-invalid", "STC text is not JSON: encode refuses it instead of re-encoding it (spec §5, §6)")
for name, text, kind, where in [
    ("bare-key", "{a: 1}", "unexpected_char", "a"),
    ("bare-keyword-key", "{true: 1}", "unexpected_char", "t"),
    ("top-level-compact-header", "[2]: 1,2", "trailing_characters", ":"),
    ("top-level-columnar-header", '[2]{a}: 1 / 2', "trailing_characters", "{"),
    ("member-compact-header", '{"a"[2]: 1,2}', "unexpected_char", "["),
    ("member-columnar-header", '{"r"[1]{"a"}: 1}', "unexpected_char", "["),
    ("value-position-header-in-member", '{"a": [2]: 1,2}', "unexpected_char", (":", 1)),
    ("header-in-json-array", "[[1]: 5]", "unexpected_char", ":"),
    ("encoded-adr-example", '{tags[3]: "api","gateway","mcp"}', "unexpected_char", "t"),
    ("readable-columnar", '[2]{id,name}: 1,"a" / 2,"b"', "trailing_characters", "{"),
]:
    case(name, "6", text, error=(kind, where))

file("json-invalid-truncated", "json-invalid", "JSON cut short at every byte is rejected with unexpected_end at the end of input (spec §5, §4.3)")
JSON_TRUNC = '{"a": [1, -2.5e+3, "x\\u00e9\\n", true, false, null, {}, []], "b": {"c": ""}}'
for n in range(len(JSON_TRUNC)):
    case("json-prefix-%03d" % n, "4.3", JSON_TRUNC[:n], error=("unexpected_end", n))

file("json-invalid-limits", "json-invalid", prefix="json-", description="encode applies the same depth limit to its JSON input (spec §4.2)")
case("depth-129-arrays", "4.2", "[" * 129 + "]" * 129, error=("depth_limit", 128))
case("depth-129-objects", "4.2", '{"a":' * 128 + "{}" + "}" * 128, error=("depth_limit", 128 * 5))
case("max-depth-3", "4.2", "[[[[]]]]", error=("depth_limit", 3), max_depth=3)
case("max-depth-3-objects", "4.2", '{"a": {"b": {"c": {}}}}', error=("depth_limit", at('{"a": {"b": {"c": {}}}}', "{", 3)), max_depth=3)
case("max-depth-0-array", "4.2", "[]", error=("depth_limit", 0), max_depth=0)
case("max-depth-1-array-of-objects", "4.2", '[{"a": 1}, {"a": 2}]', error=("depth_limit", 1), max_depth=1, note="the JSON depth counts, whatever STC form the array would take")



# =====================================================================================
# The spec's own examples, each cited with the section it appears in
# =====================================================================================

file("decode-spec-examples", "decode", "Every decodable example written in spec/README.md, cited with its section")
case("spec-3-1-rows-on-lines", "3.1", '[2]{id, name}:\n  1, "users" /\n  2, "orders"\n', '[{"id":1,"name":"users"},{"id":2,"name":"orders"}]')
case("spec-3-1-spaces-in-header", "3.1", "[ 2 ]: 1,2", "[1,2]")
case("spec-3-1-key-space-header", "3.1", "{tags [2]: 1,2}", '{"tags":[1,2]}')
case("spec-3-1-spaces-in-column-list", "3.1", "[1]{ id , name }: 1,2", '[{"id":1,"name":2}]')
case("spec-3-3-bare-key", "3.3", '{name: "foo"}', '{"name":"foo"}')
case("spec-3-3-quoted-key", "3.3", '{"name": "foo"}', '{"name":"foo"}')
case("spec-3-5-value-position", "3.5", "[3]: 1,2,3", "[1,2,3]")
case("spec-3-5-member", "3.5", '{tags[2]: "a","b"}', '{"tags":["a","b"]}')
case("spec-3-5-empty", "3.5", "{tags[0]:}", '{"tags":[]}')
case("spec-3-6-adr-columnar", "3.6", '[2]{id,name,method}: 1,"users","GET" / 2,"orders","POST"', '[{"id":1,"name":"users","method":"GET"},{"id":2,"name":"orders","method":"POST"}]')
case("spec-3-6-quoted-column", "3.6", '[1]{"first name",id}: "Ada",1', '[{"first name":"Ada","id":1}]')
case("spec-3-6-repeated-column", "3.6", "[1]{a,a}: 1,2", '[{"a":1,"a":2}]')
case("spec-3-6-member-columnar", "3.6", '{routes[2]{id,name}: 1,"a" / 2,"b"}', '{"routes":[{"id":1,"name":"a"},{"id":2,"name":"b"}]}')
case("spec-3-6-empty-columnar", "3.6", "[0]{a}:", "[]")
case("spec-3-7-json-array", "3.7", "[3]", "[3]")
case("spec-4-1-counts-win", "4.1", "[[2]: 1,2,3]", "[[1,2],3]", note="the outer array has two elements")
case("spec-4-1-extra-value-is-next-element", "4.1", "[[1]: 1,2]", "[[1],2]", note="valid STC with another meaning than a reader might guess: the count is the truth")
case("spec-5-6-adr-1", "5.6", '{name: "foo", api_version: "v2", count: 42}', '{"name":"foo","api_version":"v2","count":42}')
case("spec-5-6-adr-2", "5.6", '{tags[3]: "api","gateway","mcp", scores[3]: 95,87,91}', '{"tags":["api","gateway","mcp"],"scores":[95,87,91]}')
case("spec-5-6-adr-3-compact", "5.6", '[2]{id,name,method}:1,"users","GET"/2,"orders","POST"', '[{"id":1,"name":"users","method":"GET"},{"id":2,"name":"orders","method":"POST"}]')
case("spec-7-nested-cells-are-v1", "7", '[2]{id,tags}: 1,["a","b"] / 2,{k: null}', '[{"id":1,"tags":["a","b"]},{"id":2,"tags":{"k":null}}]', note="a later encoder may write nested cells without a new version, because v1 decoders already read them")
case("spec-7-nested-compact-values-are-v1", "7", "{m[2]: [1,2], {a: [1]: 3}}", '{"m":[[1,2],{"a":[3]}]}')
for i, doc in enumerate(['{"name":"foo","api_version":"v2","count":42}', '[{"id":1,"name":"users"},{"id":2,"name":"orders"}]', '{"a":[1.0,-0,"\\u00e9"],"b":{}}']):
    case("spec-9-gate-fallback-json-%d" % (i + 1), "9", doc, canon(doc), note="when the gate sends minified JSON instead, the client decodes it without knowing which it got")

file("invalid-spec-examples", "invalid", "Every invalid example written in spec/README.md, cited with its section")
for name, spec, text, kind, where in [
    ("spec-3-7-negative-count", "3.7", "[-1]: 1", "invalid_count", "-"),
    ("spec-3-7-fraction-count-columnar", "3.7", "[1.5]{a}: 1", "invalid_count", "1"),
    ("spec-4-1-fewer-values", "4.1", "{a[3]: 1,2}", "count_mismatch", "}"),
    ("spec-4-1-fewer-cells", "4.1", "[2]{a,b}: 1 / 2,3", "count_mismatch", "/"),
    ("spec-4-1-more-cells", "4.1", "[2]{a}: 1,2 / 3", "count_mismatch", ","),
    ("spec-4-1-fewer-rows", "4.1", "{t[3]{a}: 1 / 2}", "count_mismatch", ("}", 1)),
    ("spec-4-1-more-rows", "4.1", "[1]{a}: 1 / 2", "count_mismatch", "/"),
    ("spec-4-1-cut-by-end", "4.1", "[3]: 1,2", "unexpected_end", END),
    ("spec-4-1-extra-value-in-object", "4.1", "{a[1]: 1,2}", "unexpected_char", ("2", 0)),
    ("spec-4-1-extra-value-top-level", "4.1", "[1]: 1,2", "trailing_characters", ","),
    ("spec-4-2-many-brackets-fail-fast", "4.2", "[" * 2000, "depth_limit", 128),
    ("spec-4-3-nan", "4.3", "[NaN]", "unexpected_char", "N"),
    ("spec-4-3-missing-colon", "4.3", "{a 1}", "unexpected_char", "1"),
    ("spec-4-3-missing-comma", "4.3", "[1 2]", "unexpected_char", "2"),
    ("spec-4-3-non-ascii-bare-key", "4.3", "{clé: 1}", "unexpected_char", "é"),
    ("spec-4-3-leading-zero", "4.3", "01", "invalid_number", "1"),
    ("spec-4-3-fraction-letter", "4.3", "1.x", "invalid_number", "x"),
    ("spec-4-3-minus-letter", "4.3", "-a", "invalid_number", "a"),
    ("spec-4-3-exponent-sign-at-end", "4.3", "1e+", "unexpected_end", END),
    ("spec-4-3-exponent-sign-then-letter", "4.3", "1e+x", "invalid_number", "x"),
    ("spec-4-3-bad-escape", "4.3", r'"\x"', "invalid_escape", "\\"),
    ("spec-4-3-bad-u-escape", "4.3", r'"\u12G4"', "invalid_escape", "\\"),
    ("spec-4-3-nul-at-end", "4.3", "nul", "unexpected_end", END),
    ("spec-4-3-tru-e", "4.3", "tru e", "unexpected_char", " "),
    ("spec-4-3-trailing-after-whitespace", "4.3", "[1]  x", "trailing_characters", "x"),
    ("spec-1-offsets-are-bytes", "1", '{"日本": 1 x}', "unexpected_char", "x"),
    ("spec-1-offsets-count-cr-and-lf", "1", '{\r\n"a": 1,\r\n"b" 2}', "unexpected_char", "2"),
]:
    case(name, spec, text, error=(kind, where))
case("spec-4-2-depth-clamped-to-1024", "4.2", "[" * 1025 + "]" * 1025, error=("depth_limit", 1024), max_depth=100000, note="depth limits above 1024 are clamped to 1024")
case("spec-4-2-depth-limit-1024", "4.2", "[" * 1025, error=("depth_limit", 1024), max_depth=1024)
case("spec-4-3-utf8-checked-first", "4.3", input_hex="5b312c2cff5d", error=("invalid_utf8", 4), note="[1,,\\xff]: the UTF-8 check comes before anything else, so the syntax error at byte 3 is not the one reported")

file("json-invalid-spec-examples", "json-invalid", "Text that section 5 says encoders must reject, and STC handed to a JSON reader (spec §5, §7)")
for name, spec, text, kind, where in [
    ("spec-5-nan", "5", '{"a": NaN}', "unexpected_char", "N"),
    ("spec-5-infinity", "5", "Infinity", "unexpected_char", 0),
    ("spec-5-leading-zero", "5", "[007]", "invalid_number", ("0", 1)),
    ("spec-5-trailing-comma", "5", '{"a": [1, 2,]}', "unexpected_char", "]"),
    ("spec-5-comment", "5", '{"a": 1 # c\n}', "unexpected_char", "#"),
    ("spec-5-single-quotes", "5", "{'a': 1}", "unexpected_char", "'"),
    ("spec-5-unquoted-key", "5", '{a: 1}', "unexpected_char", "a"),
    ("spec-5-stc-header", "5", '{"tags"[2]: "a","b"}', "unexpected_char", "["),
    ("spec-5-raw-control", "5", '"a\u0001"', "control_character", "\u0001"),
    ("spec-5-bad-escape", "5", r'"\q"', "invalid_escape", "\\"),
    ("spec-5-truncated", "5", '{"a": [1, 2', "unexpected_end", END),
    ("spec-5-trailing-garbage", "5", '{"a": 1} true', "trailing_characters", "t"),
    ("spec-7-stc-is-not-json-columnar", "7", '[2]{id,name,method}: 1,"users","GET" / 2,"orders","POST"', "trailing_characters", "{"),
    ("spec-7-stc-is-not-json-keys", "7", '{name: "foo", api_version: "v2", count: 42}', "unexpected_char", "n"),
]:
    case(name, spec, text, error=(kind, where))
case("spec-5-invalid-utf8", "5", input_hex="7b2261223a22c328227d", error=("invalid_utf8", 6))

file("roundtrip-keys-and-strings", "roundtrip", "Keys that need quotes and strings that need escapes survive encode then decode (spec §5.1, §5.2)")
for name, spec, doc in [
    ("keys-needing-quotes", "5.1", '{"x-y": 1, "a.b": 2, "a b": 3, "1x": 4, "": 5, "é": 6, "$ref": 7, "a[2]": 8, "k:v": 9, "/": 10}'),
    ("keys-needing-quotes-in-columns", "5.1", '[{"x-y": 1, "a b": 2, "": 3}, {"x-y": 4, "a b": 5, "": 6}]'),
    ("keys-needing-quotes-before-headers", "5.1", '{"x-y": [1, 2], "a b": [{"c": 1}, {"c": 2}]}'),
    ("identifier-like-keys", "5.1", '{"true": 1, "null": [null], "false": [{"true": 1}, {"true": 2}], "_": 0, "A9": 1}'),
    ("escaped-keys", "5.1", '{"\\u0078-\\u0079": 1, "\\"q\\"": 2, "back\\\\slash": 3, "\\ud800": 4, "tab\\tkey": 5}'),
    ("every-escape-in-compact", "5.2", '{"v": ["\\"", "\\\\", "\\/", "\\b", "\\f", "\\n", "\\r", "\\t", "\\u0000", "\\u001F", "\\u007F", "\\u2028", "\\uD83D\\uDE00", "\\uDC00"]}'),
    ("every-escape-in-columns", "5.2", '[{"a": "\\"\\\\", "b": "\\u0001\\n"}, {"a": "\\/\\b", "b": "\\ud800\\udc00\\ud800"}]'),
    ("strings-looking-like-values", "5.2", '{"v": ["1", "true", "null", "-0", "[1]", "{}", "a,b", "x / y"], "w": "[2]{a}: 1 / 2"}'),
]:
    case(name, spec, doc, canon(doc))


file("invalid-whitespace-in-tokens", "invalid", "Whitespace is allowed around tokens, never inside one: key, number, literal, count (spec §3.1)")
for name, text, kind, where in [
    ("space-in-bare-key", "{ab cd: 1}", "unexpected_char", "c"),
    ("space-in-number", "[1 .5]", "unexpected_char", "."),
    ("space-after-minus", "[- 5]", "invalid_number", " "),
    ("space-in-exponent", "[1e 5]", "invalid_number", " "),
    ("space-in-literal", "[tr ue]", "unexpected_char", " "),
    ("newline-in-literal", "[nu\nll]", "unexpected_char", "\n"),
    ("space-in-member-count", "{a[1 0]: 1}", "unexpected_char", "0"),
    ("space-in-value-position-count", "[1 0]: 1", "unexpected_char", "0"),
    ("space-in-columnar-count", "{r[1 2]{a}: 1}", "unexpected_char", "2"),
    ("space-in-column-name", "[1]{ab cd}: 1", "unexpected_char", "c"),
]:
    case(name, "3.1", text, error=(kind, where))

file("decode-empty-bodies", "decode", "Empty compact and columnar bodies end at once, wherever they appear (spec §3.5, §3.6, §10)")
case("empty-compact-in-json-array", "3.5", "[[0]:]", "[[]]")
case("empty-compact-then-element", "3.5", "[[0]:, 1]", "[[],1]")
case("empty-columnar-in-json-array", "3.6", "[[0]{a}:, [0]{b}:]", "[[],[]]")
case("empty-compact-as-columnar-cell", "3.6", "[2]{a,b}: [0]:,1 / [0]{x}:,2", '[{"a":[],"b":1},{"a":[],"b":2}]')
case("empty-bodies-as-members", "3.5", "{a[0]:, b[0]{x}:, c: [0]:}", '{"a":[],"b":[],"c":[]}')
case("whitespace-around-empty-body", "3.5", "{ a [ 0 ] : , b : 1 }", '{"a":[],"b":1}')
case("header-spread-over-lines", "3.1", "[\n2\n]\n:\n1\n,\n2", "[1,2]")

file("encode-realistic", "encode", "Whole tool responses, both profiles: every rule at once (spec §5)")
REAL = [
    ("paged-list",
     '{"status": "ok", "page": {"next": null, "size": 2}, "items": [{"id": "a1", "price": 9.90, "tags": ["x", "y"]}, {"id": "b2", "price": 10, "tags": []}], "totals": [{"k": "sum", "v": 19.90}, {"k": "n", "v": 2}]}',
     '{status:"ok",page:{next:null,size:2},items:[{id:"a1",price:9.90,tags[2]:"x","y"},{id:"b2",price:10,tags:[]}],totals[2]{k,v}:"sum",19.90/"n",2}',
     '{status: "ok", page: {next: null, size: 2}, items: [{id: "a1", price: 9.90, tags[2]: "x","y"}, {id: "b2", price: 10, tags: []}], totals[2]{k,v}: "sum",19.90 / "n",2}'),
    ("api-routes",
     '{"routes": [{"id": 1, "path": "/users", "method": "GET", "auth": true}, {"id": 2, "path": "/users/{id}", "method": "PUT", "auth": true}, {"id": 3, "path": "/health", "method": "GET", "auth": false}], "version": "2.1.0", "deprecated": []}',
     '{routes[3]{id,path,method,auth}:1,"/users","GET",true/2,"/users/{id}","PUT",true/3,"/health","GET",false,version:"2.1.0",deprecated:[]}',
     '{routes[3]{id,path,method,auth}: 1,"/users","GET",true / 2,"/users/{id}","PUT",true / 3,"/health","GET",false, version: "2.1.0", deprecated: []}'),
    ("search-hits",
     '{"query": "caf\\u00e9 \\"best\\"", "hits": [{"title": "Caf\\u00e9 / Bar", "score": 0.95, "url": "https://x.test/a?b=1,2"}, {"title": "Le [3]: caf\\u00e9", "score": 0.80, "url": "https://x.test/c"}], "took_ms": 12, "error": null}',
     '{query:"café \\"best\\"",hits[2]{title,score,url}:"Café / Bar",0.95,"https://x.test/a?b=1,2"/"Le [3]: café",0.80,"https://x.test/c",took_ms:12,error:null}',
     '{query: "café \\"best\\"", hits[2]{title,score,url}: "Café / Bar",0.95,"https://x.test/a?b=1,2" / "Le [3]: café",0.80,"https://x.test/c", took_ms: 12, error: null}'),
]
for name, doc, compact, readable in REAL:
    case(name + "-compact", "5", doc, compact)
    case(name + "-readable", "5", doc, readable, profile="readable")


file("roundtrip-encode-inputs", "roundtrip", "Every distinct input of the encode cases, through encode (both profiles) and decode (spec §6)")
_seen = set()
for _stem, _f in list(FILES.items()):
    if _f["category"] != "encode":
        continue
    for _c in _f["cases"]:
        if _c["input"] in _seen:
            continue
        _seen.add(_c["input"])
        case("rt-" + _c["name"].removeprefix("encode-"), "6", _c["input"], canon(_c["input"]), note="input of encode case %s" % _c["name"])


file("invalid-error-precedence", "invalid", "Which error wins when one input has several: a header is read whole (count, column list) before its count is measured against the input and before its levels are counted (spec §4.3, §4.2)")
for name, text, kind, where, md, note in [
    ("column-list-error-before-count-too-large", "[5]{1}: 1", "unexpected_char", ("1", 0), None, "the column list is read before the count is measured, so its error wins"),
    ("column-list-error-before-count-above-32-bits", "[4294967296]{1}: 1", "unexpected_char", 13, None, "the same on every platform: a count that fits 64 but not 32 bits must not change which error is reported"),
    ("count-too-large-before-depth-columnar", "[5]{a}: 1", "count_too_large", "5", 1, "the rows' level is counted when the body starts, after the count is measured"),
    ("count-too-large-before-depth-member", "{a[9]: 1}", "count_too_large", "9", 1, "a member header's level is counted when the body starts, after the count is measured"),
    ("column-list-error-before-depth", "[1]{1}: 1", "unexpected_char", ("1", 1), 1, None),
    ("value-position-bracket-depth-first", "[5]{a}: 1", "depth_limit", 0, 0, "in value position the '[' opens a level before the reader knows it is a header"),
    ("invalid-count-before-missing-bracket", "{a[-1", "invalid_count", "-", None, "in member position the bracket can only be a header, so the count is judged as soon as it is read"),
    ("invalid-count-before-column-list-error", "{a[2.0{]: 1}", "invalid_count", "2", None, None),
    ("invalid-utf8-before-syntax", "", "invalid_utf8", 4, None, None),
]:
    if name == "invalid-utf8-before-syntax":
        case(name, "4.3", input_hex="7b613a2cff7d", error=(kind, where), note="{a:,\\xff}: the UTF-8 check comes first")
    else:
        case(name, "4.3", text, error=(kind, where), max_depth=md, note=note)


# =====================================================================================

def dump_file(f: dict) -> str:
    """The canonical layout (the same as the Rust bless tool writes)."""
    s = lambda v: json.dumps(v, ensure_ascii=False)
    out = ["{", '  "$schema": "../schema.json",', '  "category": %s,' % s(f["category"]), '  "description": %s,' % s(f["description"]), '  "cases": [']
    for i, c in enumerate(f["cases"]):
        fields = ['"name": %s' % s(c["name"]), '"spec": %s' % s(c["spec"])]
        if "note" in c:
            fields.append('"note": %s' % s(c["note"]))
        if "options" in c:
            parts = []
            if "profile" in c["options"]:
                parts.append('"profile": %s' % s(c["options"]["profile"]))
            if "max_depth" in c["options"]:
                parts.append('"max_depth": %d' % c["options"]["max_depth"])
            fields.append('"options": { %s }' % ", ".join(parts))
        if "input" in c:
            fields.append('"input": %s' % s(c["input"]))
        if "input_hex" in c:
            fields.append('"input_hex": %s' % s(c["input_hex"]))
        if "expected" in c:
            fields.append('"expected": %s' % s(c["expected"]))
        if "error" in c:
            fields.append('"error": { "kind": %s, "offset": %d }' % (s(c["error"]["kind"]), c["error"]["offset"]))
        out.append("    {")
        out.extend("      " + fl + ("," if j + 1 < len(fields) else "") for j, fl in enumerate(fields))
        out.append("    }," if i + 1 < len(f["cases"]) else "    }")
    out += ["  ]", "}", ""]
    return "\n".join(out)


def main() -> None:
    names = Counter(c["name"] for f in FILES.values() for c in f["cases"])
    dup = [n for n, k in names.items() if k > 1]
    assert not dup, dup
    by_cat, by_spec = Counter(), Counter()
    if "--list" in sys.argv:  # count the committed files, whoever wrote them
        sources = [json.loads(p.read_text(encoding="utf-8")) for p in sorted(CASES_DIR.glob("*.json"))]
    else:
        sources = list(FILES.values())
    for f in sources:
        for c in f["cases"]:
            by_cat[f["category"]] += 1
            by_spec[c["spec"]] += 1
    if "--list" not in sys.argv:
        for stem, f in FILES.items():
            (CASES_DIR / (stem + ".json")).write_text(dump_file(f), encoding="utf-8")
    print("%d files, %d cases" % (len(sources), sum(by_cat.values())))
    print("by category:", dict(sorted(by_cat.items())))
    print("by section: ", dict(sorted(by_spec.items(), key=lambda kv: [int(x) for x in kv[0].split(".")])))


if __name__ == "__main__":
    main()
