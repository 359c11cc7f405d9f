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
