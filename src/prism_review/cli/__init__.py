"""The ``prism`` command line: a thin layer that parses arguments and calls the library.

Sub-command groups live in sibling modules (``prism_review.cli.<name>``), each exposing
``register(app)``; they are mounted here so each area owns its own CLI file.
"""

from __future__ import annotations

import importlib

import typer

app = typer.Typer(
    name="prism",
    help="prism-review: evaluate scientific peer reviewers (human or LLM) with the PRISM benchmark.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)

_MODULES = ["evaluate", "agreement", "data", "compare", "index", "report", "review", "tasks"]


def _mount() -> None:
    for name in _MODULES:
        try:
            mod = importlib.import_module(f"prism_review.cli.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"prism_review.cli.{name}":
                continue
            raise
        mod.register(app)


def _version(value: bool) -> None:
    if value:
        from prism_review import __version__

        typer.echo(f"prism-review {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                 help="Print the version and exit"),
) -> None:
    """prism-review command line."""


_mount()


def main() -> None:
    """The ``prism`` command. A full disk, a file-size limit or a read-only folder met by any
    command is one line and exit 4, not a traceback (``prism evaluate`` says so itself)."""
    from prism_review.atomic import disk_error, is_disk_error

    try:
        app()
    except OSError as exc:
        if not is_disk_error(exc):
            raise
        typer.echo(f"error: {disk_error(exc, run=False)}", err=True)
        raise SystemExit(4) from None
