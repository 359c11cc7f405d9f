"""The built-in providers, one module each (see :mod:`prism_review.llm.provider`).

Every module of this package is imported on the first provider look-up and registers its unit
with :func:`~prism_review.llm.provider.modelapi`; adding a provider is adding a module (its
``order`` places it in listings and messages). The built-ins:

* :mod:`.openai` — ``openai/<model>``;
* :mod:`.gemini` — ``gemini/<model>`` (alias ``google/``), Gemini's OpenAI-compatible endpoint;
* :mod:`.openai_compatible` — ``openai-compatible/<model>@<url>`` (aliases ``vllm/`` and
  ``ollama/``, the latter with Ollama's default address).

All three speak the OpenAI chat-completions protocol through
:class:`~prism_review.llm.openai_chat.OpenAICompatibleAPI`; each imports it (and with it the
``openai`` SDK) only when a judge is built.
"""
