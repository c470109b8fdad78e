"""Nesting depth costs no native stack and no Python recursion (issue 12).

`dumps` walks Python objects with its own stack on the heap, and `loads`
builds them from the core's events with its own stack, so the depth limit is
policy only. Each check runs in a child process, in a `threading.Thread`
started after `threading.stack_size(256 * 1024)`: a stack overflow kills the
child (SIGSEGV), which the test reports as a failure instead of losing the
whole pytest run.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

SMALL_STACK = 256 * 1024


def _in_small_stack_thread(body: str) -> str:
    """Runs `body` (which defines `run() -> str`) in a thread with a 256 KiB
    stack in a fresh interpreter; returns what `run` returned."""
    script = textwrap.dedent(
        f"""
        import sys, threading
        import stc

        def nest(n):
            value = []
            for _ in range(n - 1):
                value = [value]
            return value

        {textwrap.indent(textwrap.dedent(body), "        ").strip()}

        out = []
        def target():
            try:
                out.append(run())
            except BaseException as e:
                out.append("raised " + type(e).__name__ + ": " + str(e)[:200])
        threading.stack_size({SMALL_STACK})
        t = threading.Thread(target=target)
        t.start()
        t.join()
        print(out[0])
        """
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, f"child died with status {proc.returncode}: {proc.stderr[-2000:]}"
    return proc.stdout.strip()


def test_dumps_of_a_very_deep_list_is_a_clean_error_at_the_default_limit() -> None:
    out = _in_small_stack_thread(
        """
        def run():
            stc.dumps(nest(100_000))
            return "no error"
        """
    )
    assert out.startswith("raised ValueError: nesting deeper than the limit of 128"), out


def test_dumps_ignores_pythons_recursion_limit() -> None:
    out = _in_small_stack_thread(
        """
        def run():
            sys.setrecursionlimit(50)
            n = min(stc.MAX_DEPTH_LIMIT, 1000)
            text = stc.dumps(nest(n), max_depth=n)
            return "ok" if text == "[" * n + "]" * n else text[:100]
        """
    )
    assert out == "ok"


def test_dumps_cycle_through_default_is_an_error() -> None:
    out = _in_small_stack_thread(
        """
        def run():
            class Node:
                pass
            node = Node()
            return stc.dumps([node], default=lambda o: [o], max_depth=stc.MAX_DEPTH_LIMIT)
        """
    )
    assert out.startswith("raised ValueError: nesting deeper than the limit"), out


def test_100k_nested_lists_every_way_on_a_small_stack() -> None:
    out = _in_small_stack_thread(
        """
        def run():
            n = 100_000
            text = stc.dumps(nest(n), max_depth=n)
            assert text == "[" * n + "]" * n
            value = stc.loads(text, max_depth=n)
            depth = 0
            while value:
                (value,) = value
                depth += 1
            assert depth == n - 1, depth
            json_text = "[" * n + "]" * n
            assert stc.decode(stc.encode(json_text, max_depth=n), max_depth=n) == json_text
            return "ok"
        """
    )
    assert out == "ok"
