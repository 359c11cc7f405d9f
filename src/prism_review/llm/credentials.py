"""Secrets stay off disk and go only to the endpoint they belong to.

* :func:`mask_url` hides the ``user:password@`` part (and ``key=``/``token=`` query values) of a
  URL before it is written to ``manifest.json``, results rows, logs or error messages.
* :func:`step_key` decides which key a per-step model (a step of the config file that names its
  own model) may be sent. The main judge's key and the provider variables (``OPENAI_API_KEY``,
  ``GEMINI_API_KEY``) belong to the main endpoint and to the provider's own host; a step model
  on any other host gets only the key of its own variable ``PRISM_API_KEY_<HOST>`` (the host and
  port upper-cased, other characters as ``_``: ``judge2.lab:8000`` → ``PRISM_API_KEY_JUDGE2_LAB_8000``),
  and no key at all without one.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

_SECRET_PARAMS = re.compile(r"(key|token|secret|password|sig)", re.I)
_URL = re.compile(r"https?://[^\s'\"<>]+")


def mask_url(url: str | None) -> str | None:
    """``url`` with any ``user:password@`` and secret-looking query values replaced by ``***``."""
    if not url:
        return url
    try:
        parts = urlsplit(url)
    except ValueError:
        return "***"
    netloc = parts.netloc
    if "@" in netloc:
        netloc = "***@" + netloc.rsplit("@", 1)[1]
    query = parts.query
    if query:
        pairs = [(k, "***" if _SECRET_PARAMS.search(k) else v)
                 for k, v in parse_qsl(query, keep_blank_values=True)]
        query = urlencode(pairs, safe="*")
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def mask_urls(text: str) -> str:
    """``text`` with every URL in it masked (for judge specs and messages)."""
    return _URL.sub(lambda m: mask_url(m.group(0)) or "", text)


#: command-line options whose value is a secret
_SECRET_OPTIONS = ("--api-key",)


def redact_argv(argv: list[str]) -> list[str]:
    """``argv`` fit to be written down (a lock file, a manifest): every URL masked and the value
    of ``--api-key`` (``--api-key K`` or ``--api-key=K``) replaced by ``***``."""
    out: list[str] = []
    hide = False
    for arg in argv:
        if hide:
            out.append("***")
            hide = False
            continue
        name, eq, _value = arg.partition("=")
        if name in _SECRET_OPTIONS:
            out.append(f"{name}=***" if eq else name)
            hide = not eq
            continue
        out.append(mask_urls(arg))
    return out


def check_server_url(url: str) -> str:
    """``url`` when it can address an LLM server as given, else ``ValueError`` (the message
    shows the URL masked). Refused: a scheme other than http(s), no host, a ``user:password@``
    part (httpx would send it as Basic auth in place of the provider's own key scheme: the key
    goes in ``--api-key`` or the provider's variable), and a query string or fragment (the client
    appends ``/chat/completions`` to the URL, so ``?api_key=`` would end up inside the path)."""
    shown = mask_url(url)
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError on a bad port
    except ValueError as exc:
        raise ValueError(f"server URL {shown!r} is not a valid URL ({exc})") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"server URL {shown!r} must be http(s)://host[:port]/path")
    if "@" in parts.netloc:
        raise ValueError(f"server URL {shown!r} holds a user name or password; they would be sent "
                         "as HTTP Basic auth instead of the API key: remove them from the URL "
                         "and pass the key with --api-key or the provider's key variable")
    if parts.query or parts.fragment or url.rstrip().endswith(("?", "#")):
        raise ValueError(f"server URL {shown!r} holds a query string or fragment, which would be "
                         "sent inside the request path: give the server's base URL only (a key "
                         "goes in --api-key or the provider's key variable)")
    return url


def host_of(url: str) -> str:
    """``host[:port]`` of ``url``, lower-case, without credentials."""
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    return f"{host}:{parts.port}" if parts.port else host


def key_variable(url: str) -> str:
    """The environment variable holding the key for a step model served at ``url``."""
    return "PRISM_API_KEY_" + re.sub(r"[^A-Z0-9]", "_", host_of(url).upper())


def step_key(
    url: str,
    *,
    main_url: str,
    main_key: str,
    home_urls: list[str],
    provider_key: str | None,
    env: Mapping[str, str],
) -> str | None:
    """The key a step model at ``url`` may be sent (None: send none).

    Same host as the main judge → the main key; the provider's own host (``home_urls``) → the
    provider variable's key; any other host → only ``PRISM_API_KEY_<HOST>``.
    """
    host = host_of(url)
    own = env.get(key_variable(url))
    if own:
        return own
    if host == host_of(main_url):
        return main_key
    if provider_key and any(host == host_of(h) for h in home_urls if h):
        return provider_key
    return None
