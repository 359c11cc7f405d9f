"""Token buckets, rate limiters, retry-after parsing and back-off."""

from __future__ import annotations

import asyncio
import random
import time
from email.utils import formatdate

import pytest

from prism_review.llm import limits
from prism_review.llm.limits import RateLimiter, TokenBucket, backoff_delay, retry_after_seconds


class Clock:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


def test_bucket_pinned_values():
    # the reference client's pinned values: rate 10/s, capacity 100
    clock = Clock()
    b = TokenBucket(10, 100, clock=clock)
    assert b.reserve(30) == 0.0 and b.tokens == 70
    assert b.reserve(80) == pytest.approx(1.0)  # (80 - 70) / 10
    assert b.tokens == pytest.approx(-10)


def test_bucket_refills_and_caps():
    clock = Clock()
    b = TokenBucket(10, 100, clock=clock)
    b.reserve(100)
    clock.t = 3.0
    assert b.reserve(30) == 0.0 and b.tokens == pytest.approx(0)
    clock.t = 100.0
    b.reserve(0)
    assert b.tokens == 100  # never above capacity


def test_oversized_request_is_clamped_to_capacity():
    b = TokenBucket(1, 10, clock=Clock())
    assert b.reserve(1000) == 0.0 and b.tokens == 0


def test_refund_caps_at_capacity():
    b = TokenBucket(1, 10, clock=Clock())
    b.reserve(4)
    b.refund(100)
    assert b.tokens == 10


def _fake_time(monkeypatch: pytest.MonkeyPatch, lim: RateLimiter, *, rpm: float = 0.0,
               tpm: float = 0.0) -> tuple[Clock, list[float]]:
    """Give ``lim`` buckets on a fake clock; its sleeps are recorded and advance that clock.

    Wall-clock bounds flake on a loaded CI box (a slow host both refills buckets between calls
    and stretches sleeps), so the limiter's waits are checked exactly instead.
    """
    clock, slept = Clock(), []
    if rpm:
        lim.requests = TokenBucket(rpm / 60.0, rpm, clock=clock)
    if tpm:
        lim.tokens = TokenBucket(tpm / 60.0, tpm, clock=clock)

    async def fake_sleep(seconds: float) -> None:
        slept.append(seconds)
        clock.t += seconds

    monkeypatch.setattr(limits.asyncio, "sleep", fake_sleep)
    return clock, slept


async def test_rpm_limiter_spaces_requests(monkeypatch):
    lim = RateLimiter(rpm=600)  # 10 per second, burst 600: first 600 free
    clock, slept = _fake_time(monkeypatch, lim, rpm=600)
    await asyncio.gather(*(lim.acquire(1) for _ in range(600)))
    assert slept == [] and lim.waited == 0
    await asyncio.gather(*(lim.acquire(1) for _ in range(3)))  # 3 more at 10/s
    assert slept == pytest.approx([0.1, 0.1, 0.1]) and clock.t == pytest.approx(0.3)
    assert lim.waited == pytest.approx(0.3)


async def test_tpm_limiter_waits_for_tokens_and_settles(monkeypatch):
    lim = RateLimiter(tpm=6000)  # 100 tokens/s
    clock, slept = _fake_time(monkeypatch, lim, tpm=6000)
    await lim.acquire(6000)
    assert slept == []
    await lim.acquire(30)
    assert slept == pytest.approx([0.3])  # 30 tokens at 100/s
    lim.settle(30, 10)  # 20 unused tokens come back: -30 + 0.3 s x 100/s + 20
    assert lim.tokens is not None and lim.tokens.tokens == pytest.approx(20)


async def test_limiter_really_sleeps():
    lim = RateLimiter(rpm=300)
    lim.requests = TokenBucket(5.0, 300, clock=lambda: 0.0)  # frozen clock: no refill
    for _ in range(300):
        await lim.acquire(1)
    t0 = time.perf_counter()
    await lim.acquire(1)  # one request short at 5 per second: waits 0.2 s
    assert lim.waited == pytest.approx(0.2)
    assert time.perf_counter() - t0 >= 0.18  # a lower bound only: a busy host cannot shorten a sleep


def test_tpm_accounting_pinned_example():
    # the reference's pinned example: 1000 tokens, reserve 12, refund 9 -> 997; a failed call
    # (whole reservation refunded) leaves the balance unchanged
    lim = RateLimiter(tpm=1000)
    clock = Clock()
    lim.tokens = TokenBucket(1000 / 60, 1000, clock=clock)
    assert lim.tokens.reserve(12) == 0.0
    lim.settle(12, 3)
    assert lim.tokens.tokens == 997
    lim.tokens.reserve(12)
    lim.settle(12, None)
    assert lim.tokens.tokens == 997


def test_disabled_limits():
    lim = RateLimiter()
    assert lim.requests is None and lim.tokens is None


@pytest.mark.parametrize(
    ("headers", "expected"),
    [({}, None), ({"retry-after": "2"}, 2.0), ({"retry-after": "0.25"}, 0.25),
     ({"retry-after-ms": "1500", "retry-after": "9"}, 1.5), ({"retry-after": "soon"}, None)],
)
def test_retry_after(headers, expected):
    assert retry_after_seconds(headers) == expected


def test_retry_after_http_date():
    got = retry_after_seconds({"retry-after": formatdate(time.time() + 30, usegmt=True)})
    assert got is not None and 27 <= got <= 31


def test_backoff_is_exponential_with_jitter_and_capped():
    rng = random.Random(1)
    for attempt, top in [(1, 1.0), (2, 2.0), (3, 4.0), (4, 8.0)]:
        values = [backoff_delay(attempt, 1.0, 60.0, rng=rng) for _ in range(200)]
        assert min(values) >= top / 2 and max(values) <= top
        assert max(values) - min(values) > top / 4  # jittered, not constant
    assert backoff_delay(20, 1.0, 60.0, rng=rng) <= 60.0
    assert backoff_delay(1, 1.0, 60.0, retry_after=7.5) == 7.5
    assert backoff_delay(1, 1.0, 5.0, retry_after=100) == 5.0
