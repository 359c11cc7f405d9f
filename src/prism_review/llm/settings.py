"""Judge settings: built-in defaults < config file < environment < CLI options.

Every setting is resolved through four layers, the later winning:

1. built-in defaults (:data:`DEFAULTS`; a step's own ``temperature`` class attribute sits just
   above them);
2. the config file (TOML or YAML; ``config_path=`` / ``--config`` or ``$PRISM_CONFIG``);
3. environment variables;
4. CLI options (the keyword options of :func:`prism_review.llm.make_judge`).

Inside each layer a per-step value beats a global one, and a longer step prefix beats a shorter
one (``flaws.step1`` beats ``flaws``). Per-step fields are ``model``, ``temperature`` and
``max_tokens`` (a cap: a step asking for a smaller budget gets it); all other fields are global.

Step caps: a step states the most output it asks for (``JudgeStep.reply_cap``: flaw
consolidation and mapping 35,000 tokens, the calls that answer for many items 32,000) next to
the budget it computes, and that cap replaces the global default for the step, as a step's
``temperature`` does; a ``max_tokens`` configured in any layer above the defaults, global or for
the step, caps it again. (Before, such caps were a table here that each new step had to be
added to by hand; two were forgotten and their requests were cut to the global 8,000.)

Config file (TOML; the same structure works in YAML, and the ``[llm]`` table may also be the
whole file)::

    [llm]
    temperature = 0.0
    max_tokens = 8000        # output-token cap for every step
    concurrency = 16         # simultaneous requests per provider
    rpm = 500                # requests per minute (0 = unlimited)
    tpm = 200000             # tokens per minute (0 = unlimited)
    timeout = 120            # seconds per request
    max_errors = 10          # failed calls before the run stops
    max_retries = 6
    prices = "prices.toml"   # optional price-table override

    [llm.steps.flaws]        # every flaws.* step
    max_tokens = 16000

    [llm.steps."depth.segment"]
    model = "gpt-4.1-mini"              # same provider, other model
    temperature = 0.0

    [llm.steps."novelty.verdict_batch"]
    model = "gemini/gemini-2.5-flash"   # or another provider entirely

Environment: ``PRISM_<FIELD>`` for globals (``PRISM_TEMPERATURE``, ``PRISM_MAX_TOKENS``,
``PRISM_CONCURRENCY``, ``PRISM_RPM``, ``PRISM_TPM``, ``PRISM_TIMEOUT``, ``PRISM_MAX_ERRORS``,
``PRISM_MAX_RETRIES``, ``PRISM_SEED``; ``PRISM_RPM_LIMIT``/``PRISM_TPM_LIMIT`` are accepted
aliases) and ``PRISM_STEP__<STEP>__<FIELD>`` per step, where ``<STEP>`` is the step name or
prefix upper-cased with dots as underscores (``PRISM_STEP__DEPTH_SEGMENT__MAX_TOKENS=8000``).
"""

from __future__ import annotations

import json
import os
import tomllib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import yaml

from prism_review.guards.errors import DataError
from prism_review.guards.limits import check_file_size, loads
from prism_review.llm.errors import ConfigError

DEFAULTS: dict[str, Any] = {
    "temperature": 0.0,
    "max_tokens": 8000,  # the reference config's cap; steps ask for less where they can
    "concurrency": 8,
    "rpm": 0.0,
    "tpm": 0.0,
    "timeout": 120.0,
    "max_errors": 10,
    "max_retries": 6,
    "retry_base": 1.0,
    "retry_max": 60.0,
    "seed": None,
    "prices": None,
}
STEP_FIELDS = ("model", "temperature", "max_tokens")
_TYPES: dict[str, type] = {
    "temperature": float, "max_tokens": int, "concurrency": int, "rpm": float, "tpm": float,
    "timeout": float, "max_errors": int, "max_retries": int, "retry_base": float,
    "retry_max": float, "seed": int, "model": str, "prices": str,
}
_ENV_ALIASES = {"rpm": ("PRISM_RPM_LIMIT",), "tpm": ("PRISM_TPM_LIMIT",)}
#: the valid range of each numeric setting: (lowest, whether the lowest itself is allowed,
#: highest or None); checked in every layer and for the CLI options (:func:`check_setting`).
#: ``rpm``/``tpm`` 0 and ``max_errors`` 0 mean "no limit"; a concurrency or timeout of 0 would
#: hang or fail every call.
RANGES: dict[str, tuple[float, bool, float | None]] = {
    "temperature": (0.0, True, 2.0), "max_tokens": (1, True, None), "concurrency": (1, True, None),
    "rpm": (0.0, True, None), "tpm": (0.0, True, None), "timeout": (0.0, False, None),
    "max_errors": (0, True, None), "max_retries": (0, True, None), "retry_base": (0.0, True, None),
    "retry_max": (0.0, True, None),
}


def check_setting(field: str, value: Any, source: str) -> Any:
    """``value`` when it lies in :data:`RANGES` for ``field`` (finite), else a
    :class:`ConfigError` naming ``source`` (the file, variable or option it came from)."""
    if field not in RANGES or value is None or isinstance(value, bool):
        return value
    lo, lo_ok, hi = RANGES[field]
    if not isinstance(value, int | float) or value != value or value in (float("inf"), -float("inf")):
        raise ConfigError(f"{source}: {field}={value!r} is not a finite number")
    if value < lo or (value == lo and not lo_ok) or (hi is not None and value > hi):
        bound = f">= {lo:g}" if lo_ok else f"> {lo:g}"
        bound += f" and <= {hi:g}" if hi is not None else ""
        raise ConfigError(f"{source}: {field}={value!r} must be {bound}")
    return value


def _coerce(field: str, value: Any, source: str) -> Any:
    if value is None or value == "":
        return None
    typ = _TYPES.get(field)
    if typ is None:
        raise ConfigError(f"{source}: unknown setting {field!r}")
    try:
        if typ is int and isinstance(value, float) and not value.is_integer():
            raise ValueError
        if typ is not str and isinstance(value, dict | list):
            raise ValueError
        out = typ(value)
    except (TypeError, ValueError, OverflowError):
        raise ConfigError(f"{source}: {field}={value!r} is not a valid {typ.__name__}") from None
    return check_setting(field, out, source)


def load_config_file(path: str | Path) -> dict[str, Any]:
    """Read a TOML (``.toml``), YAML (``.yaml``/``.yml``) or JSON config; returns its ``llm`` part."""
    p = Path(path)
    if not p.is_file():
        raise ConfigError(f"config file not found: {p}")
    try:
        check_file_size(p, 1 << 20)
        text = p.read_text(encoding="utf-8")
        if p.suffix.lower() == ".toml":
            data = tomllib.loads(text)
        elif p.suffix.lower() == ".json":
            data = loads(text)
        else:
            data = yaml.safe_load(text) or {}
    except DataError as exc:
        raise ConfigError(str(exc)) from None
    except (tomllib.TOMLDecodeError, yaml.YAMLError, json.JSONDecodeError, UnicodeDecodeError,
            OSError) as exc:
        raise ConfigError(f"cannot read config file {p}: {exc}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"config file {p} must hold a table/mapping")
    section = data.get("llm", data)
    if not isinstance(section, dict):
        raise ConfigError(f"config file {p}: [llm] must be a table")
    return section


class Layer:
    """One precedence layer: global values plus per-step (prefix) values."""

    def __init__(self, name: str, globals_: Mapping[str, Any] | None = None,
                 steps: Mapping[str, Mapping[str, Any]] | None = None,
                 sources: Mapping[str, str] | None = None) -> None:
        self.name = name
        where = sources or {}
        self.globals = {k: _coerce(k, v, where.get(k, name)) for k, v in (globals_ or {}).items()
                        if v is not None}
        self.globals = {k: v for k, v in self.globals.items() if v is not None}
        self.steps: dict[str, dict[str, Any]] = {}
        for prefix, values in (steps or {}).items():
            bad = set(values) - set(STEP_FIELDS)
            if bad:
                raise ConfigError(f"{name}: step {prefix!r} may only set {STEP_FIELDS}, "
                                  f"not {sorted(bad)}")
            self.steps[prefix] = {k: _coerce(k, v, f"{name} [{prefix}]")
                                  for k, v in values.items() if v is not None}

    @classmethod
    def from_config(cls, section: Mapping[str, Any], name: str = "config file") -> Layer:
        """A layer from a config file's ``llm`` table."""
        glob = {k: v for k, v in section.items() if k != "steps"}
        return cls(name, glob, section.get("steps") or {})

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> Layer:
        """A layer from ``PRISM_*`` environment variables."""
        glob: dict[str, Any] = {}
        sources: dict[str, str] = {}
        for field in DEFAULTS:
            for var in (f"PRISM_{field.upper()}", *_ENV_ALIASES.get(field, ())):
                if env.get(var):
                    glob[field] = env[var]
                    sources[field] = f"environment variable {var}"
                    break
        steps: dict[str, dict[str, Any]] = {}
        for var, value in env.items():
            if var.startswith("PRISM_STEP__") and value != "":
                parts = var[len("PRISM_STEP__"):].split("__")
                if len(parts) == 2 and parts[1].lower() in STEP_FIELDS:
                    steps.setdefault(parts[0], {})[parts[1].lower()] = value
        return cls("environment", glob, steps, sources)

    def matches(self, prefix: str, step: str) -> bool:
        """Whether this layer's per-step ``prefix`` applies to ``step``."""
        if self.name == "environment":
            env_key = step.upper().replace(".", "_")
            return env_key == prefix or env_key.startswith(prefix + "_")
        return step == prefix or step.startswith(prefix + ".")

    def step_values(self, step: str) -> dict[str, Any]:
        """This layer's values for ``step``: globals, then prefixes shortest to longest."""
        out = {k: v for k, v in self.globals.items() if k in STEP_FIELDS}
        matches = []
        for prefix, values in self.steps.items():
            if self.matches(prefix, step):
                matches.append((len(prefix), values))
        for _, values in sorted(matches, key=lambda m: m[0]):
            out.update(values)
        return out


class Settings:
    """Resolves global and per-step settings across the layers (see the module docstring)."""

    def __init__(self, *, cli: Mapping[str, Any] | None = None,
                 cli_steps: Mapping[str, Mapping[str, Any]] | None = None,
                 env: Mapping[str, str] | None = None, config_path: str | Path | None = None
                 ) -> None:
        env = os.environ if env is None else env
        config_path = config_path or env.get("PRISM_CONFIG") or None
        self.config_path = str(config_path) if config_path else None
        config = load_config_file(config_path) if config_path else {}
        self.layers = [
            Layer("defaults", DEFAULTS),
            Layer.from_config(config, f"config file {self.config_path}"),
            Layer.from_env(env),
            Layer("CLI options", cli or {}, cli_steps or {}),
        ]

    def get(self, field: str) -> Any:
        """A global setting."""
        value = None
        for layer in self.layers:
            if field in layer.globals:
                value = layer.globals[field]
        return value

    def for_step(self, step: str, step_temperature: float | None = None,
                 step_cap: int | None = None) -> dict[str, Any]:
        """``model`` (None = the judge's), ``temperature`` and ``max_tokens`` for ``step``; the
        step's own temperature and output cap (``JudgeStep.temperature``, ``reply_cap``) sit
        just above the built-in defaults."""
        out: dict[str, Any] = {"model": None}
        for i, layer in enumerate(self.layers):
            out.update(layer.step_values(step))
            if i == 0 and step_temperature is not None:
                out["temperature"] = float(step_temperature)
            if i == 0 and step_cap is not None:
                out["max_tokens"] = int(step_cap)
        return out

    def unmatched_steps(self, steps: Iterable[str]) -> list[str]:
        """Per-step settings (``layer: prefix``) that apply to none of ``steps`` — typically a
        misspelt step name in the config file or environment, which would otherwise do nothing."""
        seen = list(steps)
        return [f"{layer.name}: {prefix}" for layer in self.layers[1:] for prefix in layer.steps
                if not any(layer.matches(prefix, st) for st in seen)]

    def step_models(self) -> set[str]:
        """Every per-step ``model`` override, in any layer."""
        return {v["model"] for layer in self.layers for v in layer.steps.values()
                if v.get("model")}

    def result_settings(self) -> dict[str, Any]:
        """What changes results: global temperature/max_tokens/seed and every step override.

        A step override is recorded as configured (its layers' values for that prefix, higher
        layers winning), not merged with the globals: a step's own temperature and output cap
        (``JudgeStep.temperature``, ``reply_cap``) sit between the two, so a merged entry
        would state the global 0.0 and 8,000 for ``flaws.consolidate``, which asks at 0.1 and
        35,000. The built-in step values are fixed by the package version recorded beside."""
        prefixes = sorted({p for layer in self.layers for p in layer.steps})
        return {
            "temperature": self.for_step("")["temperature"],
            "max_tokens": self.for_step("")["max_tokens"],
            "seed": self.get("seed"),
            "steps": {p: self._configured(p) for p in prefixes},
        }

    def _configured(self, prefix: str) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for layer in self.layers:
            out.update(layer.steps.get(prefix, {}))
        return out

    def transport(self) -> dict[str, Any]:
        """What does not change results: limits, retries, timeout, config file, price file."""
        fields = ("concurrency", "rpm", "tpm", "timeout", "max_errors", "max_retries",
                  "retry_base", "retry_max", "prices")
        info: dict[str, Any] = {f: self.get(f) for f in fields}
        info["config_file"] = self.config_path
        return info
