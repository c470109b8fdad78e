"""ADR-066's "reference" Python decoder, as printed in the ADR (indentation
restored, nothing else changed). It is a benchmark peer only: it is WRONG
(regexes over text cannot track strings, nesting or counts; its columnar
expansion even turns every value into a string). `bench.py` counts the corpus
documents it mis-decodes. Never model anything on it.
"""

# ruff: noqa
"""STOA Token Compression (STC) decoder — reference implementation."""
import re
import json


def decode_stc(stc: str) -> str:
    """Decode an STC-encoded string back to standard JSON."""

    # Phase 1: Restore columnar objects
    # Pattern: [N]{key1,key2,...}: val1,val2 / val3,val4
    def expand_columnar(m: re.Match) -> str:
        count = int(m.group(1))
        keys = m.group(2).split(",")
        rows_str = m.group(3)
        rows = rows_str.split(" / ")
        objects = []
        for row in rows[:count]:
            values = _split_values(row, len(keys))
            obj = dict(zip(keys, values))
            objects.append(json.dumps(obj))
        return "[" + ",".join(objects) + "]"

    # Phase 2: Restore compact arrays
    # Pattern: key[N]: val1,val2,val3
    def expand_compact_array(m: re.Match) -> str:
        key = m.group(1)
        count = int(m.group(2))
        values_str = m.group(3)
        values = _split_values(values_str, count)
        return f'"{key}": [{",".join(values)}]'

    # Phase 3: Re-quote unquoted keys
    def quote_keys(s: str) -> str:
        return re.sub(r"(?<=[{,])\s*([a-zA-Z_]\w*)\s*:", r' "\1":', s)

    result = re.sub(r"\[(\d+)\]\{([^}]+)\}:\s*(.+?)(?=\s*[}\]]|$)", expand_columnar, stc, flags=re.DOTALL)
    result = re.sub(r"([a-zA-Z_]\w*)\[(\d+)\]:\s*(.+?)(?=,\s*[a-zA-Z_]|\s*[}])", expand_compact_array, result)
    result = quote_keys(result)
    return result


def _split_values(s: str, expected: int) -> list[str]:
    """Split comma-separated values respecting quoted strings."""
    values, current, in_quote = [], [], False
    for ch in s:
        if ch == '"':
            in_quote = not in_quote
            current.append(ch)
        elif ch == "," and not in_quote and len(values) < expected - 1:
            values.append("".join(current).strip())
            current = []
        else:
            current.append(ch)
    values.append("".join(current).strip())
    return values
