"""The OpenAI chat-completions client every built-in provider uses: :class:`OpenAICompatibleAPI`.

OpenAI, Gemini's OpenAI-compatible endpoint and any OpenAI-compatible server (vLLM, Ollama,
llama.cpp, OpenRouter, Together) speak this one protocol, through the official ``openai`` SDK's
``AsyncOpenAI``. What differs between them (labels, key variables, whether ``seed`` is sent) is
read from the provider's registered unit (:mod:`prism_review.llm.provider`). Only provider
factories import this module, so the SDK is loaded when a judge is built, not before.

SDK retries are disabled (``max_retries=0``): the judge owns retries so it can count errors,
honour ``retry-after`` and apply the max-errors cutoff. The request body is built here, exactly
as sent, and posted with the SDK's documented low-level ``client.post(...,
cast_to=Response)``: the SDK still provides authentication, base-URL handling, connection
pooling, timeouts and its error classes, while its typed-parameter transform and response-model
construction (measured at ~0.65 ms of ~2 ms client CPU per call) are skipped. SDK exceptions are translated into
:class:`~prism_review.llm.errors.ProviderError` (``retryable`` set for 408/409/429/5xx, timeouts
and connection errors) or :class:`~prism_review.llm.errors.FatalProviderError` (401/403/404).
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import time
from typing import Any

import openai

try:  # the openai SDK 3.x is built on httpx2; earlier majors on httpx
    from httpx2 import ConnectError as _ConnectError
    from httpx2 import Response as _Response
except ImportError:  # pragma: no cover - depends on the installed SDK major
    from httpx import ConnectError as _ConnectError  # type: ignore[assignment]
    from httpx import Response as _Response  # type: ignore[assignment]

from prism_review.llm.budget import allowed_max_tokens, is_model_wide
from prism_review.llm.credentials import mask_url
from prism_review.llm.errors import (
    FatalProviderError,
    NoLargerBudget,
    ProviderError,
    TransportError,
)
from prism_review.llm.limits import retry_after_seconds
from prism_review.llm.provider import (
    Generation,
    ModelSpec,
    Request,
    get_provider,
    is_reasoning_model,
)

log = logging.getLogger("prism_review.llm")
#: response formats tried in order; a server that rejects one gets the next
RESPONSE_MODES = ("json_schema", "json_object", "text")


class ServerUnreachable(FatalProviderError, TransportError):
    """No connection to a server that never answered (wrong URL, server not started): fatal,
    as no retry fixes it, and a transport failure, as no reply came (nothing is written)."""

    def __init__(self, message: str, *, provider: str) -> None:
        ProviderError.__init__(self, message, provider=provider)
        self.step = ""


#: 400s that a different response format cannot fix
_NOT_FORMAT = re.compile(r"context.?length|maximum context|too many tokens|prompt is too long|"
                         r"input is too long|api.?key", re.I)
#: rate limiting reported with another status than 429
_RATE_LIMITED = re.compile(r"rate.?limit|too many requests|resource.?exhausted", re.I)
#: Gemini answers a bad key with 400 API_KEY_INVALID rather than 401
_BAD_KEY = re.compile(r"API_KEY_INVALID|API key not valid|invalid api key", re.I)


def _not_about_format(message: str) -> bool:
    return bool(_NOT_FORMAT.search(message) or _RATE_LIMITED.search(message))


def _schema_hint(schema: dict[str, Any]) -> str:
    return ("Reply with one JSON object only, matching this JSON schema:\n"
            + json.dumps(schema, separators=(",", ":")))


class OpenAICompatibleAPI:
    """Chat completions through ``openai.AsyncOpenAI`` (one client per event loop)."""

    def __init__(self, spec: ModelSpec, *, base_url: str, api_key: str) -> None:
        self.spec = spec
        self.provider = spec.provider
        unit = get_provider(spec.provider)
        self.label = unit.label or unit.name
        self.keys = " or ".join(unit.key_vars) or "--api-key"
        self.sends_seed = unit.sends_seed
        self.base_url = base_url
        self._api_key = api_key
        self._clients: dict[int, openai.AsyncOpenAI] = {}
        #: per (model, schema name): index into RESPONSE_MODES that the server accepted
        self.mode_floor: dict[tuple[str, str], int] = {}
        self.completion_tokens_param: set[str] = set()
        #: per model: the largest output budget the server said it accepts (see llm.budget)
        self.output_ceiling: dict[str, int] = {}
        self._told: set[str] = set()
        #: the server has answered once: later connection errors are transient (a restart)
        self._reached = False

    def _client(self) -> openai.AsyncOpenAI:
        loop_id = id(asyncio.get_running_loop())
        client = self._clients.get(loop_id)
        if client is None:
            client = openai.AsyncOpenAI(  # a redirect would carry the key and prompt elsewhere
                api_key=self._api_key, base_url=self.base_url, max_retries=0,
                http_client=openai.DefaultAsyncHttpxClient(follow_redirects=False))
            self._clients[loop_id] = client
        return client

    def scrub(self, text: str) -> str:
        """``text`` with the API key masked."""
        return text.replace(self._api_key, "***") if self._api_key else text

    def _body(self, req: Request, mode: str) -> dict[str, Any]:
        """The chat-completions request body, exactly as sent on the wire."""
        messages = [dict(m) for m in req.messages]
        kw: dict[str, Any] = {"model": req.model, "messages": messages}
        budget = self._budget(req)
        if is_reasoning_model(req.model) or req.model in self.completion_tokens_param:
            kw["max_completion_tokens"] = budget
            if req.model not in self._told and is_reasoning_model(req.model):
                self._told.add(req.model)
                log.info("%s is a reasoning model: no temperature is sent (configured %s)",
                         req.model, req.temperature)
        else:
            kw["max_tokens"] = budget
            kw["temperature"] = req.temperature
        if req.seed is not None and self.sends_seed:
            kw["seed"] = req.seed
        if req.schema is not None:
            if mode == "json_schema":
                kw["response_format"] = {"type": "json_schema", "json_schema": {
                    "name": req.schema_name, "schema": req.schema, "strict": req.strict}}
            else:
                hint = {"role": "system", "content": _schema_hint(req.schema)}
                messages.insert(1 if messages and messages[0]["role"] == "system" else 0, hint)
                if mode == "json_object":
                    kw["response_format"] = {"type": "json_object"}
        return kw

    def _budget(self, req: Request) -> int:
        """The output budget ``req`` is sent with: its own, within the model's known limit."""
        return min(req.max_tokens, self.output_ceiling.get(req.model, req.max_tokens))

    def _refuse_floor(self, req: Request, allowed: int) -> None:
        """Raise :class:`NoLargerBudget` when ``allowed`` is not above ``req.floor`` (a longer
        re-ask that the server's limit would shrink to the first ask's budget or below)."""
        if req.floor and allowed <= req.floor:
            raise NoLargerBudget(
                f"{self.label} allows at most {allowed} output tokens for this request, no more "
                f"than the {req.floor} the reply was already cut at", provider=self.provider,
                allowed=allowed)

    def batch_line(self, req: Request) -> tuple[str, dict[str, Any]]:
        """(response mode, body) the live call of ``req`` would send now: a Batch API line."""
        slot = (req.model, req.schema_name)
        mode = RESPONSE_MODES[self.mode_floor.get(slot, 0) if req.schema is not None else 2]
        return mode, self._body(req, mode)

    async def generate(self, req: Request) -> Generation:
        """One attempt (no retries here); falls back through response formats on a 400."""
        slot = (req.model, req.schema_name)
        mode_i = self.mode_floor.get(slot, 0) if req.schema is not None else 2
        shrunk = False
        while True:
            sent = self._budget(req)
            # the model's known limit, or (after a 400, per prompt for vLLM) the shrunk budget,
            # is no larger than the first ask's: not sent
            self._refuse_floor(req, sent)
            mode = RESPONSE_MODES[mode_i]
            started = time.perf_counter()
            try:
                http = await self._client().post(
                    "/chat/completions", body=self._body(req, mode), cast_to=_Response,
                    options={"headers": {"X-Prism-Step": req.step}, "timeout": req.timeout})
                self._reached = True
                resp = json.loads(http.content)
            except openai.BadRequestError as exc:
                self._reached = True
                msg = str(exc)
                if ("max_completion_tokens" in msg and req.model not in
                        self.completion_tokens_param and not is_reasoning_model(req.model)):
                    self.completion_tokens_param.add(req.model)
                    continue
                smaller = None if shrunk else allowed_max_tokens(msg, req.max_tokens)
                if smaller is not None:  # more output than the server allows: its largest budget
                    shrunk = True
                    if is_model_wide(msg):
                        self.output_ceiling[req.model] = smaller
                    req = Request(**{**req.__dict__, "max_tokens": smaller})
                    continue
                if req.schema is not None and mode_i < 2 and not _not_about_format(msg):
                    mode_i += 1
                    continue
                raise self._translate(exc, req) from None
            except Exception as exc:  # noqa: BLE001 - translated into our error family
                raise self._translate(exc, req) from None
            if req.schema is not None:
                self.mode_floor[slot] = mode_i
            gen = self._generation(resp, mode, time.perf_counter() - started)
            gen.max_tokens = sent
            return gen

    def _generation(self, resp: Any, mode: str, latency: float) -> Generation:
        try:
            choice = resp["choices"][0]
            text = choice["message"].get("content") or ""
        except (KeyError, IndexError, TypeError, AttributeError):
            raise ProviderError(f"{self.label} returned no usable choice",
                                provider=self.provider, retryable=True) from None
        usage = resp.get("usage") or {}
        details = usage.get("prompt_tokens_details") or {}
        prompt = int(usage.get("prompt_tokens") or 0)
        # the output is all the total holds beyond the prompt: some servers count a thinking
        # model's reasoning there only (a cut at the budget would look early, and go unpriced)
        output = max(int(usage.get("completion_tokens") or 0),
                     int(usage.get("total_tokens") or 0) - prompt)
        return Generation(
            text=text if isinstance(text, str) else json.dumps(text),
            prompt_tokens=prompt,
            completion_tokens=output,
            cached_prompt_tokens=int((details.get("cached_tokens") if isinstance(details, dict) else 0) or 0),
            finish_reason=choice.get("finish_reason"), latency=latency, response_mode=mode,
        )

    def _translate(self, exc: BaseException, req: Request) -> ProviderError:
        label, keys = self.label, self.keys
        if isinstance(exc, openai.APITimeoutError):
            return ProviderError(f"{label}: request timed out after {req.timeout:g}s",
                                 provider=self.provider, retryable=True)
        if isinstance(exc, openai.APIConnectionError):
            if not self._reached and isinstance(exc.__cause__, _ConnectError):
                # refused or unresolvable before the server ever answered: a wrong URL or a
                # server that is not running, which no retry fixes
                return ServerUnreachable(f"{label}: cannot connect to {mask_url(self.base_url)}; "
                                         "is the server running at that URL?", provider=self.provider)
            return ProviderError(f"{label}: cannot connect to {mask_url(self.base_url)}",
                                 provider=self.provider, retryable=True)
        if isinstance(exc, openai.APIStatusError):
            self._reached = True
            code = exc.status_code
            detail = self.scrub(str(exc))[:300]
            retry_after = retry_after_seconds(exc.response.headers)
            if code == 401 or (code == 400 and _BAD_KEY.search(detail)):
                return FatalProviderError(
                    f"{label} rejected the API key ({code}): set {keys} to a valid key",
                    provider=self.provider, status=code)
            if code != 429 and _RATE_LIMITED.search(detail):  # rate limits sent as 400/403
                return ProviderError(f"{label} rate limit ({code}): {detail}",
                                     provider=self.provider, status=code, retryable=True,
                                     retry_after=retry_after)
            if code == 403:
                return FatalProviderError(
                    f"{label} refused access (403) to model {req.model!r}: check that the key "
                    f"in {keys} has access to it", provider=self.provider, status=code)
            if code == 404:
                return FatalProviderError(
                    f"{label}: model {req.model!r} not found at {mask_url(self.base_url)} (404): check "
                    "the model name and the base URL", provider=self.provider, status=code)
            if 300 <= code < 400:
                return FatalProviderError(
                    f"{label} answered with a redirect ({code}) to "
                    f"{mask_url(exc.response.headers.get('location'))}; redirects are not followed "
                    "(they would carry the key and prompts): use the final URL as the base URL",
                    provider=self.provider, status=code)
            retryable = code in (408, 409, 429) or code >= 500
            return ProviderError(f"{label} error {code}: {detail}", provider=self.provider,
                                 status=code, retryable=retryable, retry_after=retry_after)
        # a 200 whose body is not a chat completion (proxies, gateways): worth another try
        return ProviderError(f"{label}: unusable response ({type(exc).__name__}: "
                             f"{self.scrub(str(exc))[:200]})", provider=self.provider,
                             retryable=True)

    async def aclose(self) -> None:
        """Close the SDK clients of the current event loop."""
        client = self._clients.pop(id(asyncio.get_running_loop()), None)
        if client is not None:
            await client.close()
