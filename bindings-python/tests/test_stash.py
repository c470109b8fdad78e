"""The stash from Python: ``stc.truncate`` with a budget, ``stc.retrieve``,
``stc.SqliteStash`` and ``stc.MemoryStash``.

The SQLite tests read the entries back from separate OS processes: the real
``stc retrieve`` binary (``$STC_BIN``, else this checkout's debug build) and a
second Python interpreter. Node's side of the shared file (Node stashes,
Python retrieves, and back) is tested in ``bindings-node/test/stash.test.js``.
"""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_http import stc_binary

import stc

KEY_RE_LEN = 24


def records(n: int = 500) -> list[dict[str, object]]:
    return [
        {
            "id": i,
            "name": f"user{i}",
            "status": "error" if i == 250 else "ok",
            "latency_ms": 10 + i % 17,
            "region": ["eu-west", "us-east", "ap-south"][i % 3],
        }
        for i in range(n)
    ]


def minified(value: object) -> str:
    return json.dumps(value, separators=(",", ":"))


RECORDS = records()
DOC = minified({"total": 500, "items": RECORDS})
ITEMS = minified(RECORDS)


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private stash data directory (``$STC_DATA_DIR``) for this test."""
    monkeypatch.setenv("STC_DATA_DIR", str(tmp_path))
    monkeypatch.delenv("STC_STASH_DB", raising=False)
    return tmp_path


@pytest.fixture
def sqlite(data_dir: Path) -> Iterator[stc.SqliteStash]:
    with stc.SqliteStash() as stash:
        yield stash


def marker_of(text: str) -> dict[str, object]:
    """The ``stc_stash`` member of the record-array marker in a truncated output."""
    doc = json.loads(stc.decode(text))
    marker = doc["items"]["stc_stash"]
    assert isinstance(marker, dict)
    return marker


def stc_retrieve(key: str, data_dir: Path) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "STC_DATA_DIR": str(data_dir)}
    env.pop("STC_STASH_DB", None)
    return subprocess.run([stc_binary(), "retrieve", key], env=env, capture_output=True, timeout=120)


def test_default_sqlite_path_follows_the_data_dir(data_dir: Path, sqlite: stc.SqliteStash) -> None:
    assert Path(sqlite.path) == data_dir.resolve() / "stash.db"
    assert Path(sqlite.path).is_file()
    assert len(sqlite) == 0
    assert "stash.db" in repr(sqlite)


def test_500_records_under_a_budget_are_resolved_by_stc_retrieve(data_dir: Path, sqlite: stc.SqliteStash) -> None:
    lossless = stc.count_tokens(stc.encode(DOC), "estimate")
    out = stc.truncate(DOC, stash=sqlite, budget=600)
    assert out.truncated and out.kept is None
    assert out.tokens <= 600 < lossless
    assert out.tokens == stc.count_tokens(out.text, "estimate")
    assert out.original_tokens == lossless
    assert stc.decode(out.text) == out.json
    # The marker: how much is missing and how to get it back.
    marker = marker_of(out.text)
    assert marker["omitted"] == 500 - len(json.loads(out.json)["items"]["items"])
    assert marker["of"] == 500 and marker["unit"] == "records"
    key = marker["key"]
    assert isinstance(key, str) and len(key) == KEY_RE_LEN
    assert f"stc retrieve {key}" in str(marker["retrieve"])
    assert out.keys == (key,)
    assert out.omissions == (stc.Omission("records", key, marker["omitted"], 500),)
    assert len(sqlite) == 1
    # The error record is kept in the view.
    assert any(r["status"] == "error" for r in json.loads(out.json)["items"]["items"])
    # Another process (the CLI) prints the exact original array.
    done = stc_retrieve(key, data_dir)
    assert done.returncode == 0, done.stderr
    assert done.stdout.decode() == ITEMS
    # And this process too.
    assert stc.retrieve(key, stash=sqlite) == ITEMS
    assert sqlite.retrieve(key) == ITEMS


def test_a_second_python_process_reads_the_same_file(data_dir: Path, sqlite: stc.SqliteStash) -> None:
    out = stc.truncate(DOC, stash=sqlite, truncate_arrays_at=8)
    assert out.truncated and len(json.loads(out.json)["items"]["items"]) == 8
    (key,) = out.keys
    code = "import stc, sys; sys.stdout.write(stc.retrieve(sys.argv[1], stash=stc.SqliteStash()))"
    env = {**os.environ, "STC_DATA_DIR": str(data_dir)}
    done = subprocess.run([sys.executable, "-c", code, key], env=env, capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.decode() == ITEMS


def test_entries_written_by_stc_encode_are_retrieved_from_python(data_dir: Path, sqlite: stc.SqliteStash) -> None:
    env = {**os.environ, "STC_DATA_DIR": str(data_dir)}
    done = subprocess.run(
        [stc_binary(), "encode", "--budget", "600"], input=DOC.encode(), env=env, capture_output=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    (key,) = stc.truncate(DOC, stash=sqlite, budget=600).keys  # same content, same key (a refresh)
    assert key in done.stdout.decode()
    assert stc.retrieve(key, stash=sqlite) == ITEMS


def test_unknown_key_says_retrying_will_not_help(sqlite: stc.SqliteStash, data_dir: Path) -> None:
    with pytest.raises(stc.StashError) as caught:
        stc.retrieve("0123456789abcdef01234567", stash=sqlite)
    assert caught.value.kind == "not_found"
    assert caught.value.retryable is False
    assert caught.value.key == "0123456789abcdef01234567"
    assert "retrying will not help" in str(caught.value)
    # The CLI agrees on the same file.
    done = stc_retrieve("0123456789abcdef01234567", data_dir)
    assert done.returncode == 1 and b"retrying will not help" in done.stderr


def test_expired_entry_is_never_returned(data_dir: Path) -> None:
    with stc.SqliteStash(ttl=0.2) as stash:
        (key,) = stc.truncate(DOC, stash=stash, truncate_arrays_at=8).keys
        assert stash.retrieve(key) == ITEMS
        time.sleep(0.5)
        with pytest.raises(stc.StashError) as caught:
            stash.retrieve(key)
        assert caught.value.kind == "expired"
        assert not caught.value.retryable
        assert "expired" in str(caught.value) and "retrying will not help" in str(caught.value)
        assert len(stash) == 0


HOSTILE_KEYS = [
    "",
    "0123",
    "0123456789abcdef012345678",  # 25
    "0123456789ABCDEF01234567",  # upper case
    "0123456789abcdef0123456g",
    "0123456789abcdef0123456'; DROP TABLE stash; --",
    "../../../../etc/passwd",
    "0123456789abcdef01234567\n",
    "0123456789abcdef\x0001234567",
    "é" * 24,
    "0" * 1_000_000,
]


@pytest.mark.parametrize("key", HOSTILE_KEYS)
def test_hostile_keys_are_rejected_before_any_store_read(key: str, data_dir: Path) -> None:
    # A closed store fails on any read: the key check must come first.
    stash = stc.SqliteStash()
    stash.close()
    with pytest.raises(stc.StashError) as caught:
        stc.retrieve(key, stash=stash)
    assert caught.value.kind == "invalid_key"
    assert caught.value.key is None and not caught.value.retryable
    assert len(str(caught.value)) < 300  # the key is shown cut and escaped
    with pytest.raises(stc.StashError) as on_method:
        stash.retrieve(key)
    assert on_method.value.kind == "invalid_key"
    # A well-formed key then meets the closed store.
    with pytest.raises(stc.StashError) as closed:
        stash.retrieve("0123456789abcdef01234567")
    assert closed.value.kind == "closed"


def test_path_policy_refuses_relative_traversing_and_symlinked_paths(data_dir: Path) -> None:
    for bad in ["stash.db", str(data_dir / ".." / "x.db"), "/etc/stc-stash.db"]:
        with pytest.raises(stc.StashError) as caught:
            stc.SqliteStash(bad)
        assert caught.value.kind == "config", bad
    target = data_dir / "real.db"
    stc.SqliteStash(target).close()
    link = data_dir / "link.db"
    link.symlink_to(target)
    with pytest.raises(stc.StashError, match="symlink"):
        stc.SqliteStash(link)
    with stc.SqliteStash(str(target)) as explicit:
        assert Path(explicit.path) == target.resolve()


def test_memory_stash_round_trip_and_capacity() -> None:
    with stc.MemoryStash(capacity=1) as stash:
        first = stc.truncate(DOC, stash=stash, truncate_arrays_at=8)
        assert stash.retrieve(first.keys[0]) == ITEMS
        other = minified({"items": records(100)[::-1]})
        second = stc.truncate(other, stash=stash, truncate_arrays_at=8)
        assert len(stash) == 1
        assert stc.retrieve(second.keys[0], stash=stash) == minified(records(100)[::-1])
        with pytest.raises(stc.StashError) as caught:
            stash.retrieve(first.keys[0])  # evicted (FIFO)
        assert caught.value.kind == "not_found"
    with pytest.raises(stc.StashError) as closed:
        len(stash)
    assert closed.value.kind == "closed"


def test_no_store_means_no_silent_truncation() -> None:
    out = stc.truncate(DOC, stash=None, budget=600)
    assert not out.truncated and out.kept == "no_store"
    assert json.loads(stc.decode(out.text)) == json.loads(DOC)
    assert out.keys == () and out.omissions == ()
    assert out.tokens == out.original_tokens > 600


def test_lossy_cut_says_it_is_not_recoverable() -> None:
    out = stc.truncate(DOC, stash=None, truncate_arrays_at=8, lossy=True)
    assert out.truncated and out.keys == ()
    marker = marker_of(out.text)
    assert marker["recoverable"] is False and "key" not in marker and "retrieve" not in marker
    assert out.omissions[0].key is None
    with pytest.raises(ValueError, match="lossy"):
        stc.truncate(DOC, stash=stc.MemoryStash(), lossy=True)


def test_retrieve_tool_names_a_tool_call_and_is_validated() -> None:
    stash = stc.MemoryStash()
    out = stc.truncate(DOC, stash=stash, truncate_arrays_at=8, retrieve_tool="stc_retrieve")
    assert f"call tool stc_retrieve with key={out.keys[0]}" in str(marker_of(out.text)["retrieve"])
    with pytest.raises(ValueError):
        stc.truncate(DOC, stash=stash, retrieve_tool="rm -rf /")


def test_a_retrieve_does_not_exempt_the_content_from_later_cuts() -> None:
    # Issue 24: only the retrieve's own output is exempt; the same content is cut again.
    stash = stc.MemoryStash()
    (key,) = stc.truncate(DOC, stash=stash, truncate_arrays_at=8).keys
    items = stash.retrieve(key)
    again = stc.truncate(items, stash=stash, truncate_arrays_at=8)
    assert again.truncated and again.kept is None and list(again.keys) == [key]


def test_small_and_marked_inputs_are_kept() -> None:
    stash = stc.MemoryStash()
    assert stc.truncate('{"a":[1,2,3]}', stash=stash).kept == "nothing_to_cut"
    out = stc.truncate(DOC, stash=stash, truncate_arrays_at=8)
    assert stc.truncate(out.json, stash=stash, truncate_arrays_at=8).kept == "has_markers"


def test_invalid_json_and_wrong_types() -> None:
    stash = stc.MemoryStash()
    with pytest.raises(stc.STCDecodeError) as caught:
        stc.truncate('{"items": [1, 2', stash=stash)
    assert caught.value.kind == "unexpected_end"
    with pytest.raises(TypeError, match="stash must be"):
        stc.truncate(DOC, stash="memory")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        stc.retrieve("0123456789abcdef01234567", stash=None)  # type: ignore[arg-type]
    # stc-stash's one check (StoreConfig::new), with the messages of every binding.
    for bad, shown in [(0.0, "0"), (-1.0, "-1"), (float("nan"), "NaN")]:
        with pytest.raises(ValueError) as refused:
            stc.MemoryStash(ttl=bad)
        assert str(refused.value) == f"ttl must be a positive number of seconds, got {shown}"
    with pytest.raises(ValueError) as refused:
        stc.SqliteStash(capacity=0)
    assert str(refused.value) == "capacity must be a positive integer, got 0"


def test_stash_error_pickles() -> None:
    e = stc.StashError("gone", "expired", False, "0123456789abcdef01234567")
    back = pickle.loads(pickle.dumps(e))
    assert (str(back), back.kind, back.retryable, back.key) == ("gone", "expired", False, e.key)


def test_threads_share_one_sqlite_stash(sqlite: stc.SqliteStash) -> None:
    from concurrent.futures import ThreadPoolExecutor

    docs = [minified({"items": records(60 + i)}) for i in range(8)]
    with ThreadPoolExecutor(max_workers=4) as pool:
        outs = list(pool.map(lambda d: stc.truncate(d, stash=sqlite, truncate_arrays_at=8), docs))
    assert len({o.keys[0] for o in outs}) == 8 and len(sqlite) == 8
    for i, out in enumerate(outs):
        assert sqlite.retrieve(out.keys[0]) == minified(records(60 + i))
