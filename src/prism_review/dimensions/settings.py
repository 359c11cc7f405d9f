"""Dimension settings (``prism evaluate --set KEY=VALUE``): declared, checked, never guessed.

Each dimension declares the settings it reads as :class:`SettingSpec` entries in its
``setting_specs``. :func:`check_settings` refuses a run whose settings hold an unknown key
or a value outside a setting's choices or type: a misspelt key (``novelty_polcy=max``) or an
unknown value (``novelty_policy=maxx``) would otherwise fall back to a default without a word,
and the run's numbers would silently mean something else.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any


class SettingsError(ValueError):
    """A dimension setting that is unknown or has an invalid value."""


@dataclass(frozen=True)
class SettingSpec:
    """One dimension setting: its key, what it does, and the values it accepts."""

    key: str
    help: str
    choices: tuple[str, ...] | None = None
    kind: type = str  # str, int or float
    minimum: float | None = None

    def check(self, value: Any) -> None:
        """Raise :class:`SettingsError` when ``value`` is not acceptable."""
        if self.choices is not None:
            if str(value) not in self.choices:
                raise SettingsError(
                    f"setting {self.key} must be one of {', '.join(self.choices)}; got {value!r}"
                )
            return
        if self.kind in (int, float):
            ok = isinstance(value, int | float) and not isinstance(value, bool)
            if self.kind is int and ok and isinstance(value, float) and not value.is_integer():
                ok = False
            if not ok:
                raise SettingsError(
                    f"setting {self.key} needs {'an integer' if self.kind is int else 'a number'}; "
                    f"got {value!r}"
                )
            if self.minimum is not None and float(value) < self.minimum:
                raise SettingsError(f"setting {self.key} must be ≥ {self.minimum:g}; got {value!r}")


def by_closeness(word: str, keys: Iterable[str]) -> list[str]:
    """``keys`` ordered by similarity to ``word``, the closest first (ties alphabetical)."""
    low = word.lower()
    return sorted(
        set(keys), key=lambda k: (-difflib.SequenceMatcher(None, low, k.lower()).ratio(), k)
    )


def check_settings(settings: Mapping[str, Any], specs: Iterable[SettingSpec]) -> None:
    """Refuse unknown keys and invalid values (see the module docstring)."""
    known = {s.key: s for s in specs}
    for key, value in settings.items():
        spec = known.get(key)
        if spec is None:
            raise SettingsError(
                f"unknown setting {key!r}; valid settings (closest first): "
                + ", ".join(by_closeness(key, known))
            )
        spec.check(value)


__all__ = ["SettingSpec", "SettingsError", "by_closeness", "check_settings"]
