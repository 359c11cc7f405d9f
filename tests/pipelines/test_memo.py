import asyncio

import pytest

from prism_review.dimensions.memo import MemoStore


async def test_memo_computes_once_and_persists(tmp_path):
    calls = 0

    async def fn():
        nonlocal calls
        calls += 1
        await asyncio.sleep(0.01)
        return {"pool": [1, 2, 3]}

    store = MemoStore(tmp_path / "memo")
    a, b = await asyncio.gather(store.get_or_compute("k", fn), store.get_or_compute("k", fn))
    assert a == b == {"pool": [1, 2, 3]} and calls == 1
    fresh = MemoStore(tmp_path / "memo")  # a resumed run
    assert await fresh.get_or_compute("k", fn) == {"pool": [1, 2, 3]}
    assert calls == 1


async def test_two_stores_on_one_folder_compute_a_key_once(tmp_path):
    """The actors of ``--engine ray`` each hold a store on the run's memo folder: a key asked by
    two of them at the same time (a group call shared by units on two workers) is computed once."""
    calls = 0

    async def fn():
        nonlocal calls
        calls += 1
        await asyncio.sleep(0.1)
        return {"call": calls}

    a, b = MemoStore(tmp_path / "memo"), MemoStore(tmp_path / "memo")
    got = await asyncio.gather(a.get_or_compute("k", fn), b.get_or_compute("k", fn))
    assert got == [{"call": 1}, {"call": 1}] and calls == 1


async def test_a_run_folder_keeps_no_lock_file_per_key(tmp_path):
    """Each key's lock file is removed once its value is stored (a corpus-scale run left one
    per paper and piece), also when many stores wait on one key, which is still computed once."""
    calls = []

    async def fn(i):
        calls.append(i)
        await asyncio.sleep(0.05)
        return i

    stores = [MemoStore(tmp_path / "memo") for _ in range(4)]
    for i in range(5):
        got = await asyncio.gather(*(s.get_or_compute(f"k{i}", lambda i=i: fn(i)) for s in stores))
        assert got == [i] * 4
    assert calls == list(range(5))
    assert sorted(p.suffix for p in (tmp_path / "memo").iterdir()) == [".json"] * 5


async def test_a_failed_compute_releases_the_lock(tmp_path):
    store = MemoStore(tmp_path / "memo")

    async def boom():
        raise RuntimeError("deferred")

    async def ok():
        return 1

    with pytest.raises(RuntimeError):
        await store.get_or_compute("k", boom)
    assert await asyncio.wait_for(MemoStore(tmp_path / "memo").get_or_compute("k", ok), 2) == 1


async def test_memory_is_bounded_and_a_dropped_value_is_read_back_from_disk(tmp_path):
    """A corpus-scale run asks for one piece per paper: the store keeps only the most recently
    used values in memory; the files stay the source of truth."""
    calls = []

    def make(i):
        async def fn():
            calls.append(i)
            return {"piece": i}
        return fn

    store = MemoStore(tmp_path / "memo")
    store.memory_entries = 3
    for i in range(10):
        assert await store.get_or_compute(f"k{i}", make(i)) == {"piece": i}
    assert len(store._mem) == 3  # the bound holds
    assert not store._locks  # no per-key lock is kept once its key is done
    assert "k0" not in store._mem
    assert await store.get_or_compute("k0", make(-1)) == {"piece": 0}  # from its file
    assert calls == list(range(10))  # nothing computed twice
    assert len(store._mem) == 3 and "k0" in store._mem
