"""Errors raised by loaders. Every message names the file (and the field or line) at fault."""

from __future__ import annotations


class DataError(ValueError):
    """Malformed or unreadable input. ``path`` and ``field`` say where; ``message`` is what is
    wrong, without the ``path (field …):`` prefix that ``str()`` adds."""

    def __init__(self, path: object, message: str, *, field: str | None = None) -> None:
        self.path = str(path)
        self.field = field
        self.message = message
        where = f"{self.path}" + (f" (field {field!r})" if field else "")
        super().__init__(f"{where}: {message}")
