#!/usr/bin/env python3
"""Checks spec/stc.abnf with a real ABNF parser, and README.md against it.

    python3 -m venv /tmp/abnf-venv && /tmp/abnf-venv/bin/pip install 'abnf>=2.2'
    /tmp/abnf-venv/bin/python spec/check_abnf.py

What it checks (exit status 1 and one line per problem otherwise):

1. stc.abnf is ASCII (RFC 5234 comments are VCHAR and WSP only), loads as
   an RFC 5234 rule list (the `abnf` package), and every rule it references
   is defined in it or is a core rule.
2. The whole grammar accepts the valid examples below and rejects the
   invalid ones; the version 1 grammar (stc.abnf without the lines marked
   [v2]) accepts the v1 examples and rejects every v2 one.
3. Every ```abnf block of README.md is a verbatim excerpt of stc.abnf: each
   of its lines is a line of stc.abnf (comments and spacing included), so
   the grammar next to the prose cannot drift from the file.

The ABNF cannot count, so the examples only test shapes (section 4.1 of the
spec adds the counts); the conformance corpus tests behaviour.
"""

from __future__ import annotations

import pathlib
import re
import sys

from abnf import ParseError, Rule

HERE = pathlib.Path(__file__).resolve().parent
CORE = {"ALPHA", "DIGIT", "HEXDIG"}

V1_VALID = [
    "{a: 1}",
    '{"a":[1,2.5e-3,-0,true,false,null,"\\u00e9"]}',
    "([2]{id,name}: 1,\"a\" / 2,\"b\")",
    "{tags[2]: \"a\",\"b\", n[0]:}",
    "[3]: 1,[1]:2,{a:1}",
    "[2]{a}: [1]{c}:2 / 3",
    "[1]{\"first name\",id}: \"Ada\",1",
    " \t\r\n[ 2 ] { a , b } :\n 1 , 2 /\n 3 , 4 ",
    "{true: null}",
]
V2_VALID = [
    "[2]{id,user{id,name},text}: 1,5,\"bob\",\"hi\" / 2,6,\"al\",\"yo\"",
    "[2]{a,b}: 1,~ / ~,2",
    "[1]{a,g {b,c{d}}}: ~,~,~",
    "{2}{name,date}: \"138586341\":\"A\",1 / \"138586345\":\"B\",2",
    "{events{2}{name,date}: a:\"A\",1 / b:~,2}",
    "{0}{a}:",
    "[1]{a}: {1}{b}: k:~",
    "{name: Ada Lovelace, city: S\u00e3o Paulo}",
    "[2]{a,b}: x,true story / null,y z",
    "{2}{n}: k:GET / j:it's ok!",
    "[true story, nullable, e5, v1.2.3, a#tag, R&D, a=b;c?, \u0141\u00f3d\u017a, \u6771\u4eac tower]",
    "({1}{n}: k:a)",
    "hello world",
    "nul",
]
INVALID = [
    "",
    "{a: @ref1}",
    "{a: #tag}",
    "{a: f(x)}",
    "{a: a\u200bb}",
    "{a: tru\u0435}",
    "{a: \u041c\u043e\u0441\u043a\u0432\u0430}",
    "'a'",
    "([1,2])",
    "([1]: 1",
    "{a 1}",
    "[1 2]",
    "[2]{}: 1",
    "[2]{a,}: 1",
    "{a: ~}",
    "[~]",
    "[1]: ~",
    "{a[-1]: 1}",
    "{a[01]: 1}",
    "[2]{a{}}: 1",
    "{1}{a}: 1",
    "{01}{a}: k:1",
    "[1,]",
    "{a: x\u00a0y}",
    "{a: ab\"c\"}",
    "{a: a\\b}",
    "[+1]",
    "[.5]",
    "{a b: 1}",
    "[2]: a:b",
    "[x\u3000y]",
    "[x\u0085]",
    "[a~b]",
]


def load(source: str, name: str) -> type[Rule]:
    grammar = type(name, (Rule,), {})
    grammar.load_grammar(source.replace("\r\n", "\n").replace("\n", "\r\n"))
    return grammar


def accepts(grammar: type[Rule], text: str) -> bool:
    try:
        grammar("stc-text").parse_all(text)
        return True
    except ParseError:
        return False


def main() -> int:
    problems: list[str] = []
    source = (HERE / "stc.abnf").read_text(encoding="utf-8")
    for number, line in enumerate(source.splitlines(), 1):
        if not line.isascii():
            problems.append(f"stc.abnf:{number}: not ASCII (RFC 5234 allows only VCHAR and WSP in comments)")
    if problems:
        print("\n".join(problems))
        return 1

    whole = load(source, "Whole")
    v1_source = "\n".join(line for line in source.splitlines() if "[v2]" not in line) + "\n"
    v1 = load(v1_source, "Version1")

    defined = {
        m.group(1).lower() for m in re.finditer(r"^([A-Za-z][A-Za-z0-9-]*)\s*=", source, re.MULTILINE)
    }
    body = "\n".join(line.split(";", 1)[0] for line in source.splitlines())
    body = re.sub(r'"[^"]*"', "", body)
    for name in sorted(set(re.findall(r"(?<![%\w-])([A-Za-z][A-Za-z0-9-]*)", body))):
        if name.lower() not in defined and name not in CORE:
            problems.append(f"stc.abnf references {name}, which it does not define")

    for text in V1_VALID:
        if not accepts(whole, text):
            problems.append(f"the grammar rejects the valid v1 text {text!r}")
        if not accepts(v1, text):
            problems.append(f"the v1 grammar rejects the valid v1 text {text!r}")
    for text in V2_VALID:
        if not accepts(whole, text):
            problems.append(f"the grammar rejects the valid v2 text {text!r}")
        if accepts(v1, text):
            problems.append(f"the v1 grammar accepts the v2 text {text!r}")
    for text in INVALID:
        if accepts(whole, text):
            problems.append(f"the grammar accepts the invalid text {text!r}")

    lines = set(source.splitlines())
    readme = (HERE / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"^```abnf\n(.*?)^```", readme, re.MULTILINE | re.DOTALL)
    if not blocks:
        problems.append("README.md has no ```abnf block")
    for block in blocks:
        for line in block.splitlines():
            if line.strip() and line not in lines:
                problems.append(f"README.md quotes an ABNF line that stc.abnf does not have: {line!r}")

    for problem in problems:
        print(problem)
    if not problems:
        print(f"stc.abnf: {len(defined)} rules, valid ABNF; {len(V1_VALID) + len(V2_VALID) + len(INVALID)} examples "
              f"as expected; {len(blocks)} README blocks quote it verbatim")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
