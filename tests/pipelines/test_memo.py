import asyncio

from prism_review.pipelines.memo import MemoStore


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
