"""The built-in providers, one module each (see :mod:`prism_review.llm.provider`).

* :mod:`.openai` — ``openai/<model>``;
* :mod:`.gemini` — ``gemini/<model>`` (alias ``google/``), Gemini's OpenAI-compatible endpoint;
* :mod:`.openai_compatible` — ``openai-compatible/<model>@<url>`` (aliases ``vllm/`` and
  ``ollama/``, the latter with Ollama's default address).

All three speak the OpenAI chat-completions protocol through
:class:`~prism_review.llm.openai_chat.OpenAICompatibleAPI`; each imports it (and with it the
``openai`` SDK) only when a judge is built.

Importing this package registers the three in this order (which error messages and
:func:`~prism_review.llm.provider.providers` follow), whichever of its modules is imported first.
"""

from importlib import import_module

for _module in ("openai", "gemini", "openai_compatible"):  # the registration order
    import_module(f"{__name__}.{_module}")
