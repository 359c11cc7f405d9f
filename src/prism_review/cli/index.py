"""``prism index build``: the local literature index novelty retrieval uses offline."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any

import typer

index_app = typer.Typer(help="Local literature index for offline novelty retrieval.", no_args_is_help=True)


@index_app.command("build")
def build(
    out: Annotated[Path, typer.Option("--out", help="Index folder to (re)write")],
    corpus: Annotated[list[Path] | None, typer.Option("--corpus", help="papers.parquet (titles, abstracts, GROBID bibliographies)")] = None,
    venue_dir: Annotated[list[Path] | None, typer.Option("--venue-dir", help="Raw venue folder or zip (repeatable)")] = None,
    jsonl: Annotated[list[Path] | None, typer.Option("--jsonl", help="JSONL of papers {id,title,abstract,year,venue} (repeatable)")] = None,
    data: Annotated[list[Path] | None, typer.Option("--data", help="Evaluation layout DATA_ROOT: papers and their reference lists")] = None,
    demo: Annotated[bool, typer.Option("--demo", help="Add the bundled demo layout and literature")] = False,
    venue: Annotated[list[str] | None, typer.Option("--venue", help="With --corpus: only these venues")] = None,
) -> None:
    """Build a BM25 index (tantivy) from any mix of sources; prints the document counts."""
    from prism_review.data.skips import SkipLog
    from prism_review.retrieval import sources
    from prism_review.retrieval.local_index import build_index

    skips = SkipLog()
    streams: list[Iterator[dict[str, Any]]] = []
    names: list[str] = []
    for p in corpus or []:
        streams.append(sources.docs_from_corpus(p, venues=venue, skips=skips))
        names.append(f"corpus:{p}")
    for p in venue_dir or []:
        streams.append(sources.docs_from_venue_dir(p, skips=skips))
        names.append(f"venue-dir:{p}")
    for p in jsonl or []:
        streams.append(sources.docs_from_jsonl(p))  # strict: a bad line refuses, the old index stays
        names.append(f"jsonl:{p}")
    for p in data or []:
        from prism_review.data.layout import find_data_root
        from prism_review.guards.errors import DataError

        try:  # a path without venue folders used to give an empty index and exit 0
            root = find_data_root(p)
        except DataError as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2) from exc
        streams.append(sources.docs_from_layout(root, skips))
        names.append(f"data:{p}")
    if demo:
        streams.append(sources.docs_from_demo(skips))
        names.append("demo")
    if not streams:
        typer.echo("error: give at least one source (--corpus, --venue-dir, --jsonl, --data or --demo)", err=True)
        raise typer.Exit(2)
    from prism_review import progress

    try:  # the sources are streams of unknown length: the bar counts documents read
        with progress.showing():
            docs = progress.iterate(itertools.chain(*streams), "documents read")
            manifest = build_index(out, docs, sources=names)
    except (FileExistsError, ValueError, OSError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from exc
    typer.echo(
        f"indexed {manifest['documents']} documents ({manifest['papers']} papers, "
        f"{manifest['bibliography_titles']} bibliography titles) in {manifest['seconds']}s → {out}"
    )
    if manifest["id_conflicts"]:  # two papers under one id: the index holds one of them
        typer.echo(f"{manifest['id_conflicts']} document(s) not indexed: their id belongs to "
                   "another title", err=True)
        for note in manifest["id_conflict_notes"][:10]:
            typer.echo(f"  {note}", err=True)
    if skips:  # unreadable rows or bibliographies are left out of the index: say so
        typer.echo(f"left out: {skips.summary()}", err=True)
        for skip in skips.skips[:10]:
            typer.echo(f"  {skip}", err=True)


def register(app: typer.Typer) -> None:
    """Mount ``prism index``."""
    app.add_typer(index_app, name="index")
