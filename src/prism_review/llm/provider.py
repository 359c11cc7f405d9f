"""The provider seam: what a judge spec names, the registry of providers, and the request types.

A judge spec is ``<provider>/<model>`` (``openai/gpt-4o-mini``, ``gemini/gemini-2.5-flash``,
``openai-compatible/<model>@http://host:port/v1``). Each provider is one registered unit, a
:class:`Provider`, declared in its own module under :mod:`prism_review.llm.providers` with the
:func:`modelapi` decorator on the function that builds its API object::

    @modelapi("toy", key_vars=("TOY_API_KEY",), base_url="http://127.0.0.1:8000/v1")
    def toy(spec, *, base_url, api_key):
        from prism_review.llm.openai_chat import OpenAICompatibleAPI  # the SDK loads here
        return OpenAICompatibleAPI(spec, base_url=base_url, api_key=api_key)

The unit says everything the rest of the LLM layer used to branch on: its name and aliases, the
variables holding its key and when a key is required, its default server and the variable that
overrides it, whether a model string carries ``@<url>``, its built-in prices, whether
``--batch`` can use it, whether it accepts a ``seed``, and which SDK distribution the manifest
records. Nothing outside the units lists providers: :func:`parse_spec`,
:func:`resolve_endpoint` and :class:`~prism_review.llm.judge.LLMJudge` ask the registry.

The built-in units are found on the first look-up as every module of
:mod:`prism_review.llm.providers` (a new one is one file there, listed by nothing), then any
module named by an entry point in the ``prism_review.providers`` group (a plug-in package's way
to register its own). Listings and messages follow each unit's ``order``, then registration. SDKs are
imported only inside the factories, so importing :mod:`prism_review` or
:mod:`prism_review.llm` loads none.
"""

from __future__ import annotations

import importlib
import logging
import os
import pkgutil
import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from importlib import metadata
from typing import Any, Protocol, runtime_checkable

from prism_review.llm.credentials import check_server_url, host_of, mask_url
from prism_review.llm.errors import ConfigError

log = logging.getLogger("prism_review.llm")

#: the package of the built-in providers, imported on the first look-up
BUILTIN_PACKAGE = "prism_review.llm.providers"
ENTRY_POINT_GROUP = "prism_review.providers"


@dataclass(frozen=True)
class ModelSpec:
    """A parsed judge spec: provider, model and (optional) base URL."""

    provider: str
    model: str
    base_url: str | None = None

    @property
    def name(self) -> str:
        """The spec as a string (``provider/model``, plus ``@base_url`` when the provider's
        model strings carry the server)."""
        unit = _REGISTRY.get(self.provider)
        if unit is not None and unit.url_in_spec and self.base_url:
            return f"{self.provider}/{self.model}@{mask_url(self.base_url)}"
        return f"{self.provider}/{self.model}"


@dataclass
class Request:
    """One chat-completion request, provider-neutral."""

    model: str
    messages: list[dict[str, str]]
    temperature: float
    max_tokens: int
    schema: dict[str, Any] | None = None
    schema_name: str = "output"
    strict: bool = True
    seed: int | None = None
    timeout: float = 120.0
    step: str = ""
    #: the output budget a reply to this request must be allowed *more* than (0: any): the
    #: longer re-ask of a cut reply carries the budget the first ask was granted, and a server
    #: that allows no more for this prompt gets no second request (:class:`NoLargerBudget`)
    floor: int = 0


@dataclass
class Generation:
    """A model reply with its usage."""

    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    #: prompt tokens the provider served from its prompt cache (billed at the cached price)
    cached_prompt_tokens: int = 0
    finish_reason: str | None = None
    latency: float = 0.0
    response_mode: str = "text"
    #: the output budget the answered request was sent with (a server that refused the asked
    #: one in a 400 got its largest allowed one); None when the API does not say
    max_tokens: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)


@runtime_checkable
class ModelAPI(Protocol):
    """What a provider's factory returns: one ``generate`` attempt per request (retries live
    in the caller).

    ``provider`` and ``base_url`` name the concurrency pool and go into the cache key;
    ``generate`` raises :class:`~prism_review.llm.errors.ProviderError` (``retryable`` set) or
    :class:`~prism_review.llm.errors.FatalProviderError`, never an SDK exception.
    """

    provider: str
    base_url: str

    async def generate(self, req: Request) -> Generation:
        """Send ``req`` once and return the reply with its usage."""
        ...

    async def aclose(self) -> None:
        """Release connections bound to the running event loop."""
        ...


#: ``factory(spec, *, base_url, api_key) -> ModelAPI``
APIFactory = Callable[..., ModelAPI]


def _key_on_home_host(unit: Provider, url: str) -> bool:
    """A provider with key variables wants a key on its own host (``base_url``) only."""
    return bool(unit.key_vars and unit.base_url) and host_of(url) == host_of(unit.base_url or "")


@dataclass(frozen=True)
class Provider:
    """One provider: the registered unit (see the module docstring)."""

    #: the canonical name, written into specs, manifests, cache keys and results
    name: str
    #: builds the API object: ``factory(spec, *, base_url, api_key) -> ModelAPI``
    factory: APIFactory
    #: what messages call it ("OpenAI", "Gemini")
    label: str = ""
    #: environment variables holding the key, the first one set wins
    key_vars: tuple[str, ...] = ()
    #: the default server (None: the spec, ``--base-url`` or ``base_url_var`` must give one)
    base_url: str | None = None
    #: an environment variable that overrides the default server
    base_url_var: str | None = None
    #: other spellings: alias -> the base URL it implies (None: the provider's own default)
    aliases: Mapping[str, str | None] = field(default_factory=dict)
    #: model strings may end in ``@http(s)://...`` naming the server (and the spec's name shows it)
    url_in_spec: bool = False
    #: ``needs_key(unit, url)``: is a key required at ``url``? Without one a local server is
    #: sent ``"not-needed"``. Default: on the provider's own host (``base_url``), if it has
    #: ``key_vars``.
    needs_key: Callable[[Provider, str], bool] = _key_on_home_host
    #: built-in list prices, USD per 1M tokens: model -> (input, output)
    prices: Mapping[str, tuple[float, float]] = field(default_factory=dict)
    #: built-in cached-input prices, USD per 1M tokens: model -> price
    cached_input_prices: Mapping[str, float] = field(default_factory=dict)
    #: ``--batch`` may send this provider's calls through its Batch API (the factory's API
    #: must then be an :class:`~prism_review.llm.openai_chat.OpenAICompatibleAPI`)
    batch: bool = False
    #: the server accepts a ``seed`` parameter
    sends_seed: bool = True
    #: the SDK distribution whose version the manifest records (None: none)
    sdk: str | None = None
    #: place in listings, messages and ``--judge`` help (lower first); ties keep registration
    order: int = 100

    def homes(self, env: Mapping[str, str]) -> list[str]:
        """The provider's own servers: the default one and the one ``base_url_var`` names."""
        out = [self.base_url] if self.base_url else []
        return out + ([env.get(self.base_url_var, "")] if self.base_url_var else [])

    def usage(self) -> list[str]:
        """How the provider and its aliases are written (for error messages and help)."""
        tail = "@http://host:port/v1" if self.url_in_spec and not self.base_url else ""
        out = [f"'{self.name}/<model>{tail}'"]
        for alias, url in self.aliases.items():
            at = "@<url>" if self.url_in_spec and not (url or self.base_url) else ""
            out.append(f"'{alias}/<model>{at}'")
        return out


_REGISTRY: dict[str, Provider] = {}
_ALIASES: dict[str, tuple[str, str | None]] = {}
_LOADED = False
_LOCK = threading.RLock()
#: the providers a fresh process registers by itself (built-ins and entry points)
_FOUND: set[str] = set()
#: the providers of this package's own modules (not plug-ins)
_BUILTIN: set[str] = set()


def modelapi(name: str, **declared: Any) -> Callable[[APIFactory], APIFactory]:
    """Register the decorated factory as provider ``name`` (fields of :class:`Provider`)."""
    import sys

    caller = sys._getframe(1).f_globals.get("__name__", "")  # the module declaring the unit

    def wrap(factory: APIFactory) -> APIFactory:
        register(Provider(name=name, factory=factory, **declared))
        if caller.startswith(BUILTIN_PACKAGE + "."):  # one of this package's own modules
            _BUILTIN.add(name)
        return factory

    return wrap


def register(unit: Provider) -> Provider:
    """Add ``unit`` to the registry; a name or alias already taken is a :class:`ConfigError`."""
    with _LOCK:
        for word in (unit.name, *unit.aliases):
            if word in _REGISTRY or word in _ALIASES or word == "offline" or "/" in word:
                raise ConfigError(f"provider name {word!r} is already taken or not allowed")
        _REGISTRY[unit.name] = unit
        for alias, url in unit.aliases.items():
            _ALIASES[alias] = (unit.name, url)
    return unit


def unregister(name: str) -> None:
    """Remove provider ``name`` and its aliases (tests and plug-ins that are unloaded)."""
    with _LOCK:
        unit = _REGISTRY.pop(name, None)
        for alias in unit.aliases if unit else ():
            _ALIASES.pop(alias, None)


def _load() -> None:
    global _LOADED
    if _LOADED:
        return
    with _LOCK:
        if _LOADED:
            return
        _LOADED = True
        before = set(_REGISTRY)
        package = importlib.import_module(BUILTIN_PACKAGE)
        for mod in pkgutil.iter_modules(package.__path__):  # each module registers its unit
            importlib.import_module(f"{BUILTIN_PACKAGE}.{mod.name}")
        for ep in metadata.entry_points(group=ENTRY_POINT_GROUP):
            try:
                ep.load()
            except Exception as exc:  # noqa: BLE001 - one broken plug-in must not stop the rest
                log.warning("provider plug-in %s (%s) failed to load: %s: %s", ep.name,
                            ep.value, type(exc).__name__, exc)
        _FOUND.update(set(_REGISTRY) - before)


def builtin() -> list[Provider]:
    """The providers this package ships (its ``llm/providers`` modules), in order."""
    _load()
    return [u for u in providers() if u.name in _BUILTIN]


def registered_here() -> list[Provider]:
    """The providers registered in this process only (a ``@modelapi`` module a script
    imported), which another process does not find by itself."""
    _load()
    return [u for n, u in _REGISTRY.items() if n not in _FOUND]


def providers() -> Iterator[Provider]:
    """Every registered provider, by ``order`` then registration."""
    _load()
    yield from sorted(_REGISTRY.values(), key=lambda u: u.order)


def judge_forms(sep: str = " | ") -> str:
    """How every registered provider's judge spec is written, for ``--judge`` help and messages
    (``openai/<model> | gemini/<model> | google/<model> | ...``)."""
    return sep.join(form.strip("'") for unit in providers() for form in unit.usage())


def get_provider(name: str) -> Provider:
    """The provider registered as ``name`` (an alias also finds it)."""
    _load()
    unit = _REGISTRY.get(_ALIASES.get(name, (name, None))[0])
    if unit is None:
        raise ConfigError(f"unknown provider {name!r}: {_known()}")
    return unit


def is_provider(word: str, *, aliases: bool = True) -> bool:
    """True when ``word`` names a registered provider (or, with ``aliases``, an alias).

    A per-step model setting is read with ``aliases=False``: there ``google/gemma-2-9b-it`` is
    a Hugging Face model id served by the main judge's server, not a Gemini spec.
    """
    _load()
    return word in _REGISTRY or (aliases and word in _ALIASES)


def _known() -> str:
    units = list(providers())
    words = ["'offline'"] + [w for u in units for w in u.usage()[:1]]
    aliases = [w for u in units for w in u.usage()[1:]]
    if aliases:
        return f"use {', '.join(words)} or an alias: {', '.join(aliases)}"
    return f"use {', '.join(words[:-1])} or {words[-1]}"


def split_url(rest: str) -> tuple[str, str | None]:
    """``model@http(s)://server`` → (model, server); the last ``@http`` counts, as a URL may
    hold ``user:pw@``."""
    at = max(rest.rfind("@http://"), rest.rfind("@https://"))
    return (rest, None) if at < 0 else (rest[:at], rest[at + 1 :])


def parse_spec(spec: str) -> ModelSpec:
    """Parse ``<provider>/<model>`` (``@<url>`` for providers whose model strings carry the
    server); an alias becomes its provider's spec."""
    _load()
    head, sep, rest = spec.strip().partition("/")
    name, default_url = _ALIASES.get(head, (head, None))
    unit = _REGISTRY.get(name)
    if not sep or not rest or unit is None:
        raise ConfigError(f"unknown judge {spec!r}: {_known()}")
    base_url = None
    if unit.url_in_spec:
        rest, base_url = split_url(rest)
        base_url = base_url or default_url
    if not rest:
        raise ConfigError(f"judge {spec!r} names no model")
    return ModelSpec(unit.name, rest, base_url)


def resolve_endpoint(spec: ModelSpec, *, api_key: str | None, base_url: str | None,
                     env: Mapping[str, str] | None = None) -> tuple[str, str]:
    """(base URL, API key) for ``spec``; a missing server or required key raises a
    :class:`ConfigError`. The server: ``base_url``, else the spec's, else the provider's
    variable, else its default."""
    env = os.environ if env is None else env
    unit = get_provider(spec.provider)
    url = (base_url or spec.base_url or (env.get(unit.base_url_var) if unit.base_url_var else None)
           or unit.base_url or "")
    if not url:
        how = (f"write the judge as '{unit.name}/<model>@http://host:port/v1' or pass --base-url"
               if unit.url_in_spec else "pass --base-url"
               + (f" or set {unit.base_url_var}" if unit.base_url_var else ""))
        raise ConfigError(f"{spec.name}: no server URL; {how}")
    try:
        check_server_url(url)
    except ValueError as exc:
        raise ConfigError(f"{spec.name}: {exc}") from None
    key = api_key or next((env[v] for v in unit.key_vars if env.get(v)), None)
    if not key:
        if unit.needs_key(unit, url):
            names = " or ".join(unit.key_vars) or "--api-key"
            raise ConfigError(f"{unit.label or unit.name} needs an API key: set {names}")
        key = "not-needed"  # local servers accept any key
    return url, key


def make_api(spec: ModelSpec, *, base_url: str, api_key: str) -> ModelAPI:
    """The API object of ``spec``'s provider for this server and key."""
    return get_provider(spec.provider).factory(spec, base_url=base_url, api_key=api_key)


def is_reasoning_model(model: str) -> bool:
    """o-series and gpt-5 models: ``max_completion_tokens`` and no temperature (whoever
    serves them)."""
    name = model.rsplit("/", 1)[-1].lower()
    return name.startswith(("o1", "o3", "o4", "gpt-5"))
