"""The GIL is released while the Rust core works on large inputs.

No speed is measured: with a switch interval of 10 s, a thread that holds the
GIL keeps it until it blocks or releases it. A worker calls a stc function
again and again for one second while a pure-Python counter thread waits for
the GIL. If the function releases the GIL, the counter gets it during a call
and finishes first; if not, the worker runs its whole second first. (The
second only leaves room for the counter thread to be scheduled on a loaded
machine.)
"""

from __future__ import annotations

import json
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest

import stc

ROWS = [{"id": i, "name": f"user{i}", "tags": ["a", "b"], "score": i / 7} for i in range(20_000)]
JSON_TEXT = json.dumps(ROWS)
STC_TEXT = stc.encode(JSON_TEXT)
# The stash: truncation and store I/O release the GIL whatever the size.
STASH = stc.MemoryStash()
(STASH_KEY,) = stc.truncate(JSON_TEXT, stash=STASH, truncate_arrays_at=8).keys
OTHER_STASH = stc.MemoryStash()

WORK: dict[str, Callable[[], Any]] = {
    "decode": lambda: stc.decode(STC_TEXT),
    "encode": lambda: stc.encode(JSON_TEXT),
    "encode_gated": lambda: stc.encode_gated(JSON_TEXT),
    "count_tokens": lambda: stc.count_tokens(STC_TEXT, "estimate"),
    "dumps": lambda: stc.dumps(ROWS),
    "truncate": lambda: stc.truncate(JSON_TEXT, stash=OTHER_STASH, truncate_arrays_at=8),
    "retrieve": lambda: stc.retrieve(STASH_KEY, stash=STASH),
    # Below the 8 KiB threshold the GIL is kept: the same check, reversed.
    "small-decode": lambda: stc.decode("{a[3]: 1,2,3}"),
}


def _who_finishes_first(work: Callable[[], Any]) -> list[str]:
    finished: list[str] = []
    started = threading.Event()

    def worker() -> None:
        started.set()
        deadline = time.monotonic() + 1.0
        while time.monotonic() < deadline:
            work()
        finished.append("stc")

    def counter() -> None:
        started.wait()
        total = 0
        for i in range(1_000_000):
            total += i
        finished.append("python")

    old = sys.getswitchinterval()
    sys.setswitchinterval(10.0)
    try:
        threads = [threading.Thread(target=counter), threading.Thread(target=worker)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(old)
    return finished


@pytest.mark.parametrize("name", sorted(WORK))
def test_gil_released_on_large_inputs_only(name: str) -> None:
    expected = ["stc", "python"] if name.startswith("small-") else ["python", "stc"]
    assert _who_finishes_first(WORK[name]) == expected
