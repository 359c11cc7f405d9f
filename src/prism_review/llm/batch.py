"""Batch mode (``--batch``) and cost estimates (``--dry-run``): calls deferred to a batch.

In batch mode a call the cache cannot answer is not sent to the chat endpoint: its request is
queued (:meth:`BatchQueue.defer`) and the judge raises :class:`Deferred`, so the unit is not
finished — not written and not failed — exactly like a unit whose call got no reply. When a pass
over the run ends, the runner calls :meth:`BatchQueue.flush`: the queued requests go out as one
OpenAI Batch (JSONL uploaded with ``client.files.create(purpose="batch")``, then
``client.batches.create``), are polled with ``client.batches.retrieve`` until the batch ends,
and the output file (``client.files.content``) is read back. Each reply is accounted at the
batch price and stored in the response cache under the very key the live call would have used;
the next pass re-runs the unfinished units, whose calls now find their replies (parsed, checked
and audited by the judge exactly as live replies) and whose next dependent calls are deferred in
turn. The run is done when a pass defers nothing.

Resumable: every batch is recorded in ``<out>/batches.json`` (input file id as soon as it is
uploaded, then the batch id), so a killed run polls and downloads its recorded batches again
instead of resubmitting. A line that failed (an error object, a non-200 status, missing from the
output of a failed, expired or cancelled batch) is retried *live* on the next pass, through the
ordinary retries and response-format fallbacks.

Estimate mode (``--dry-run``) queues the same requests and never sends them: the runner stops
after one pass and :meth:`BatchQueue.estimate` sums what the first call of every unfinished unit
would cost (later, dependent calls cannot be built without the replies and are excluded).
"""

from __future__ import annotations

import asyncio
import io
import json
import logging
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from prism_review.llm.errors import ConfigError, FatalProviderError, LLMError, ProviderError
from prism_review.llm.limits import backoff_delay
from prism_review.llm.provider import Generation, ModelAPI, Request

if TYPE_CHECKING:
    from prism_review.llm.calls import CallManager

log = logging.getLogger("prism_review.llm")
TERMINAL = ("completed", "failed", "expired", "cancelled")
#: OpenAI's documented per-batch limits are 50,000 requests and a 200 MB input file
MAX_REQUESTS = 50_000
MAX_BYTES = 190_000_000
ENDPOINT = "/v1/chat/completions"


class Deferred(LLMError):
    """A call went into the run's next batch: the unit finishes on a later pass."""

    def __init__(self, step: str) -> None:
        super().__init__(f"{step}: deferred to the next batch")
        self.step = step


@dataclass
class _Pending:
    key: str
    api: ModelAPI
    req: Request
    mode: str
    line: str


class BatchQueue:
    """The run's queued requests, submitted batches and the replies they brought back."""

    def __init__(self, path: str | Path | None, *, poll: float = 30.0,
                 estimate_only: bool = False) -> None:
        self.path = Path(path) if path is not None else None
        self.poll = float(poll)
        self.estimate_only = estimate_only
        self.pending: dict[str, _Pending] = {}
        #: keys whose batch line failed: the next call is made live
        self.live: set[str] = set()
        #: replies ingested by this process, handed to the first call that asks (then cached)
        self.ready: dict[str, Generation] = {}
        self.calls: CallManager | None = None
        self.apis: Callable[[], Iterable[ModelAPI]] = lambda: ()
        self.submitted = 0
        #: --dry-run: per dimension, the units that stopped at a deferred call, the review
        #: texts they hold and their papers (the estimate's counts of the later calls)
        self.units: dict[str, dict[str, Any]] = {}
        self.state: dict[str, Any] = {"version": 1, "batches": []}
        if self.path is not None and self.path.exists():
            try:
                self.state = json.loads(self.path.read_text(encoding="utf-8"))
            except (OSError, json.JSONDecodeError) as exc:
                raise ConfigError(f"{self.path}: unreadable batch record ({exc}); move it "
                                  "aside to start the batches afresh") from None

    # -- the judge's side ----------------------------------------------------------------
    def take(self, key: str) -> Generation | None:
        """A reply brought back by a batch for ``key`` (once), or None."""
        return self.ready.pop(key, None)

    def goes_live(self, key: str) -> bool:
        """True (once) when ``key``'s batch line failed and the call is to be made live."""
        if key in self.live:
            self.live.discard(key)
            return True
        return False

    def defer(self, key: str, api: ModelAPI, req: Request) -> None:
        """Queue ``req`` (named by its cache key) for the next batch."""
        if key in self.pending:
            return
        mode, body = api.batch_line(req)  # type: ignore[attr-defined]  # the live request body
        line = json.dumps({"custom_id": key, "method": "POST", "url": ENDPOINT, "body": body},
                          ensure_ascii=False, separators=(",", ":"))
        self.pending[key] = _Pending(key, api, req, mode, line)

    # -- the runner's side ---------------------------------------------------------------
    async def settle(self) -> None:
        """Wait until no call is in flight (calls of a unit that already gave up still queue)."""
        while self.calls is not None and self.calls.active:
            await asyncio.sleep(0.01)

    def unfinished(self) -> list[dict[str, Any]]:
        return [b for b in self.state["batches"] if not b.get("ingested")]

    async def resume(self) -> int:
        """Poll and read back the batches a previous (killed) run recorded; returns how many."""
        todo = self.unfinished()
        for rec in todo:
            await self._finish(rec)
        return len(todo)

    async def flush(self) -> int:
        """Submit every queued request (split at the API's limits), wait for the batches and
        read their replies back; returns the number of requests submitted."""
        await self.settle()
        if self.estimate_only or not self.pending:
            return 0
        groups: dict[tuple[str, str], list[_Pending]] = {}
        for p in self.pending.values():
            groups.setdefault((p.api.provider, p.api.base_url), []).append(p)
        self.pending = {}
        records = []
        for items in groups.values():
            chunk: list[_Pending] = []
            size = 0
            for p in items:
                if chunk and (len(chunk) >= MAX_REQUESTS or size + len(p.line) > MAX_BYTES):
                    records.append(await self._submit(chunk))
                    chunk, size = [], 0
                chunk.append(p)
                size += len(p.line) + 1
            if chunk:
                records.append(await self._submit(chunk))
        for rec in records:
            await self._finish(rec)
        return sum(len(r["requests"]) for r in records)

    # -- batches -------------------------------------------------------------------------
    def _save(self) -> None:
        if self.path is None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps(self.state, indent=1), encoding="utf-8")
        tmp.replace(self.path)

    def _api(self, rec: dict[str, Any]) -> ModelAPI:
        for api in self.apis():
            if api.provider == rec["provider"] and api.base_url.rstrip("/") == rec["base_url"]:
                return api
        raise ConfigError(f"{self.path}: batch {rec.get('id') or rec.get('input_file_id')} "
                          f"was sent to {rec['base_url']}, which this judge does not use")

    async def _sdk(self, what: str, fn: Callable[[], Any]) -> Any:
        """One SDK call, retried on connection errors, 429 and 5xx like a chat call."""
        import openai  # batches need the SDK; importing this module does not

        settings = self.calls.settings if self.calls is not None else None
        retries = int(settings.get("max_retries")) if settings else 6
        attempt = 0
        while True:
            try:
                return await fn()
            except (openai.APIConnectionError, openai.RateLimitError,
                    openai.InternalServerError) as exc:
                attempt += 1
                if attempt > retries:  # stop the run; recorded batches resume on a re-run
                    raise FatalProviderError(f"batch {what} failed after {attempt} attempts: "
                                             f"{exc}") from None
                base = float(settings.get("retry_base")) if settings else 1.0
                cap = float(settings.get("retry_max")) if settings else 60.0
                await asyncio.sleep(backoff_delay(attempt, base, cap))
            except openai.APIStatusError as exc:  # e.g. a server without a Batch API
                raise FatalProviderError(
                    f"batch {what} refused ({exc.status_code}) by {self._where()}: "
                    f"{str(exc)[:300]}", status=exc.status_code) from None

    def _where(self) -> str:
        return ", ".join(sorted({a.base_url for a in self.apis()})) or "the server"

    async def _submit(self, chunk: list[_Pending]) -> dict[str, Any]:
        api = chunk[0].api
        client = api._client()  # type: ignore[attr-defined]
        data = ("\n".join(p.line for p in chunk) + "\n").encode("utf-8")
        upload = await self._sdk("upload", lambda: client.files.create(
            file=("prism-batch.jsonl", io.BytesIO(data), "application/jsonl"), purpose="batch"))
        rec: dict[str, Any] = {
            "provider": api.provider, "base_url": api.base_url.rstrip("/"),
            "input_file_id": upload.id, "id": None, "status": "uploaded",
            "submitted": round(time.time(), 3), "ingested": False,
            "requests": {p.key: {"model": p.req.model, "mode": p.mode, "step": p.req.step}
                         for p in chunk},
        }
        self.state["batches"].append(rec)
        self._save()  # a run killed now re-uses the uploaded file, it does not upload again
        await self._create(rec, api)
        return rec

    async def _create(self, rec: dict[str, Any], api: ModelAPI) -> None:
        client = api._client()  # type: ignore[attr-defined]
        batch = await self._sdk("create", lambda: client.batches.create(
            input_file_id=rec["input_file_id"], endpoint=ENDPOINT, completion_window="24h"))
        rec["id"], rec["status"] = batch.id, batch.status
        self.submitted += len(rec["requests"])
        self._save()
        log.info("submitted batch %s (%d requests)", batch.id, len(rec["requests"]))

    async def _finish(self, rec: dict[str, Any]) -> None:
        """Wait for ``rec``'s batch to end, then read its replies back."""
        api = self._api(rec)
        if not rec.get("id"):
            await self._create(rec, api)
        client = api._client()  # type: ignore[attr-defined]
        wait = min(1.0, self.poll)  # small batches end fast: poll soon, then back off
        while True:
            batch = await self._sdk("poll", lambda: client.batches.retrieve(rec["id"]))
            if batch.status != rec["status"]:
                rec["status"] = batch.status
                self._save()
            if batch.status in TERMINAL:
                break
            await asyncio.sleep(wait)
            wait = min(self.poll, 2 * wait)
        lines: dict[str, dict[str, Any]] = {}
        for file_id in (batch.output_file_id, batch.error_file_id):
            if file_id:
                content = await self._download(client, file_id)
                for raw in content.text.splitlines():
                    if raw.strip():
                        item = json.loads(raw)
                        lines.setdefault(str(item.get("custom_id")), item)
        ok = failed = 0
        for key, meta in rec["requests"].items():
            gen = self._generation(api, lines.get(key), meta["mode"])
            if gen is None:
                failed += 1
                self.live.add(key)
                continue
            ok += 1
            if self.calls is not None:
                await self.calls.store_batch_reply(key, meta["model"], gen)
            self.ready[key] = gen
        rec.update(ingested=True, replies=ok, failed=failed,
                   output_file_id=batch.output_file_id, error_file_id=batch.error_file_id)
        self._save()
        if failed:
            log.warning("batch %s: %d of %d lines failed; they are retried live",
                        rec["id"], failed, len(rec["requests"]))

    async def _download(self, client: Any, file_id: str) -> Any:
        return await self._sdk("download", lambda: client.files.content(file_id))

    @staticmethod
    def _generation(api: ModelAPI, item: dict[str, Any] | None, mode: str) -> Generation | None:
        if not item or item.get("error"):
            return None
        response = item.get("response") or {}
        if int(response.get("status_code") or 0) != 200:
            return None
        try:
            gen: Generation = api._generation(response.get("body") or {}, mode, 0.0)  # type: ignore[attr-defined]
        except ProviderError:
            return None
        gen.extra["batch"] = True
        return gen

    # -- estimates -----------------------------------------------------------------------
    def note_unit(self, dimension: str, unit: Any) -> None:
        """``--dry-run``: ``unit`` of ``dimension`` stopped at a deferred call."""
        row = self.units.setdefault(dimension, {"units": 0, "reviews": 0, "papers": set()})
        row["units"] += 1
        row["reviews"] += len(unit.reviews)
        row["papers"].add((unit.venue, unit.paper_id))

    def estimate(self, prices: Any, *, batch: bool, by_step: bool = False) -> list[dict[str, Any]]:
        """Per dimension (the step name's first part; per step with ``by_step``): queued calls,
        input tokens (~4 characters a token, schema included), the output budget (an upper
        bound) and cost."""
        rows: dict[str, dict[str, Any]] = {}
        for p in self.pending.values():
            dim = p.req.step if by_step else (p.req.step.split(".", 1)[0] or "?")
            row = rows.setdefault(dim, {"dimension": dim, "calls": 0, "input_tokens": 0,
                                        "output_budget": 0, "cost_input": 0.0,
                                        "cost_max": 0.0, "unpriced": 0, "model": p.req.model})
            body = json.loads(p.line)["body"]
            tokens = len(json.dumps(body.get("messages", []), ensure_ascii=False)) // 4
            tokens += len(json.dumps(body.get("response_format", {}))) // 4
            row["calls"] += 1
            row["input_tokens"] += tokens
            row["output_budget"] += p.req.max_tokens
            low = prices.cost(p.req.model, tokens, 0, batch=batch)
            high = prices.cost(p.req.model, tokens, p.req.max_tokens, batch=batch)
            if low is None:
                row["unpriced"] += 1
            else:
                row["cost_input"] += low
                row["cost_max"] += high
        return [rows[k] for k in sorted(rows)]
