"""``prism data …``: download, sample, validate and inspect datasets.

A thin layer over :mod:`prism_review.data`; every command imports its library lazily so
``prism --help`` stays fast.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

console = Console(stderr=True)

data_app = typer.Typer(
    help="Download, sample, validate and inspect datasets.", no_args_is_help=True
)


@data_app.command("download")
def download(
    name: Annotated[
        str, typer.Argument(help="prism-corpus | prism-demo | proreviewer | perturbation")
    ],
    dest: Annotated[Path, typer.Option("--dest", help="Folder to download into")] = Path("data"),
    endpoint: Annotated[
        str | None,
        typer.Option(
            "--endpoint",
            help="Hub base URL (default: $PRISM_HF_ENDPOINT, $HF_ENDPOINT or huggingface.co)",
        ),
    ] = None,
    token: Annotated[
        str | None, typer.Option("--token", help="Hub token (default: $HF_TOKEN)")
    ] = None,
    revision: Annotated[str, typer.Option("--revision", help="Dataset revision")] = "main",
    no_extract: Annotated[bool, typer.Option("--no-extract", help="Keep zips as they are")] = False,
    keep_zip: Annotated[
        bool, typer.Option("--keep-zip", help="Keep the zip after extracting it")
    ] = False,
) -> None:
    """Download a hub dataset through huggingface_hub (shared HF cache, resumable, HF_TOKEN,
    HF_HUB_OFFLINE); zips are extracted safely."""
    from prism_review.data.download import DownloadError, download_dataset
    from prism_review.guards.errors import DataError

    try:
        paths = download_dataset(
            name, dest, endpoint=endpoint, token=token, revision=revision,
            extract=not no_extract, keep_zip=keep_zip,
        )  # fmt: skip
    except KeyError as exc:
        console.print(f"[red]error:[/] {exc.args[0]}")
        raise typer.Exit(2) from None
    except (DownloadError, DataError) as exc:
        console.print(f"[red]error:[/] {exc}", soft_wrap=True)
        raise typer.Exit(1) from None
    console.print(f"{len(paths)} file(s) in {dest}")


def _parse_sizes(items: list[str] | None) -> dict[str, int]:
    sizes: dict[str, int] = {}
    for item in items or []:
        venue, _, n = item.partition("=")
        if not n.isdigit() or int(n) < 1:
            raise typer.BadParameter(f"expected VENUE=N with N ≥ 1, got {item!r}",
                                     param_hint="--venue-size")
        sizes[venue] = int(n)
    return sizes


@data_app.command("sample")
def sample(
    source: Annotated[
        Path, typer.Argument(help="Any source evaluate reads: an evaluation layout, papers.parquet, venue folders/zips, ProReviewer")
    ],
    out_dir: Annotated[
        Path, typer.Option("--out", help="Where to write the manifest and id lists")
    ],
    seed: Annotated[int, typer.Option("--seed", help="Sampling seed")] = 0,
    size: Annotated[int, typer.Option("--size", min=1, help="Papers per venue")] = 200,
    venue_size: Annotated[
        list[str] | None, typer.Option("--venue-size", help="VENUE=N override (repeatable)")
    ] = None,
    venue: Annotated[
        list[str] | None, typer.Option("--venue", help="Only these venues (repeatable)")
    ] = None,
    classes: Annotated[
        str,
        typer.Option(
            "--classes",
            help="Decision classes to draw from (oral, spotlight, poster, conditional, reject, pending, unknown)",
        ),
    ] = "oral,spotlight,poster,conditional,reject",
    allocation: Annotated[
        str, typer.Option("--allocation", help="proportional | equal")
    ] = "proportional",
) -> None:
    """Draw a seeded sample stratified by venue × decision class and write its manifest."""
    from prism_review.data.sampling import PaperMeta, draw_sample, metadata_from, write_manifest
    from prism_review.data.skips import SkipLog
    from prism_review.guards.errors import DataError
    from prism_review.progress import showing

    skips = SkipLog()
    read: dict[str, int] = {}  # decision class → papers read, to say why a sample is empty

    def counted(papers: Iterator[PaperMeta]) -> Iterator[PaperMeta]:
        for p in papers:
            read[p.decision_class] = read.get(p.decision_class, 0) + 1
            yield p

    try:
        with showing(console):
            manifest = draw_sample(
                counted(metadata_from(source, skips)), seed=seed, sizes=_parse_sizes(venue_size), default_size=size,
                classes=[c.strip() for c in classes.split(",") if c.strip()], allocation=allocation,
                venues=venue, source=source.name,
            )  # fmt: skip
    except (DataError, ValueError, KeyError) as exc:
        msg = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc  # no repr quotes
        console.print(f"[red]error:[/] {escape(str(msg))}")
        raise typer.Exit(1) from None
    if not any(vs.paper_ids for vs in manifest.venues.values()):  # else evaluate takes everything
        seen = ", ".join(f"{c} {n}" for c, n in read.items()) or "none"
        console.print(f"[red]error:[/] no paper to sample in {escape(str(source))}: papers read by "
                      f"decision class: {seen}; drawn from: {classes} (add classes with --classes, "
                      "check --venue); no manifest written", soft_wrap=True, highlight=False)
        raise typer.Exit(1)
    for path in write_manifest(manifest, out_dir):
        typer.echo(str(path))
    for v, vs in manifest.venues.items():
        note = f" (short by {vs.shortfall})" if vs.shortfall else ""
        alloc = ", ".join(f"{c} {n}" for c, n in vs.allocated.items() if n)
        console.print(f"{v}: {len(vs.paper_ids)} papers{note}: {alloc}")
    if skips:
        console.print(f"[yellow]skipped[/] {skips.summary()}")
        for s in skips.skips:
            console.print(f"  {s}")


@data_app.command("validate")
def validate(
    root: Annotated[Path, typer.Argument(help="DATA_ROOT of a PRISM evaluation layout")],
    venue: Annotated[
        list[str] | None, typer.Option("--venue", help="Only (and require) these venues")
    ] = None,
    complete: Annotated[
        bool, typer.Option("--complete", help="Also require PRISM's six review folders, each "
                           "covering every paper (the paper's setup check)")
    ] = False,
    partial: Annotated[
        bool, typer.Option("--partial", hidden=True, help="The default now (kept for old scripts)")
    ] = False,
) -> None:
    """Check a layout as `prism evaluate` reads it; print every problem, exit 1 if any."""
    from prism_review.data.layout_check import LayoutProblem, validate_layout

    skips: list[LayoutProblem] = []
    # one definition of valid: what evaluate runs on; --complete adds PRISM's coverage rule
    problems = validate_layout(root, venues=venue, require_all_systems=complete and not partial,
                               skips=skips)
    for s in skips:
        typer.echo(f"skipped: {s}")
    if skips:
        console.print(f"[yellow]{len(skips)} input(s) skipped[/] (evaluated without them; not errors)")
    for p in problems:
        where = p.path + (f" [{p.field}]" if p.field else "")
        typer.echo(f"{where}: {p.message}")
    if problems:
        console.print(f"[red]{len(problems)} problem(s)[/] in {root}")
        raise typer.Exit(1)
    what = "a complete PRISM layout" if complete else "a valid layout (what prism evaluate reads)"
    console.print(f"[green]ok[/]: {root} is {what}")


@data_app.command("info")
def info(path: Annotated[Path, typer.Argument(help="A dataset file or folder")]) -> None:
    """Say what a dataset file or folder is and count what it holds."""
    import json

    from prism_review.data.info import describe
    from prism_review.guards.errors import DataError

    try:
        facts = describe(path)
    except DataError as exc:
        console.print(f"[red]error:[/] {exc}")
        raise typer.Exit(1) from None
    typer.echo(json.dumps(facts, indent=2, ensure_ascii=False))


@data_app.command("export-layout")
def export_layout(
    src: Annotated[Path, typer.Argument(help="papers.parquet, a corpus venue folder/zip, ProReviewer, or a layout")],
    out: Annotated[Path, typer.Option("--out", help="Folder to write the evaluation layout into")],
    sample: Annotated[
        Path | None, typer.Option("--sample", help="Only the papers of this `prism data sample` manifest")
    ] = None,
    venue: Annotated[list[str] | None, typer.Option("--venue", help="Venue(s) to export (repeatable)")] = None,
    limit: Annotated[int | None, typer.Option("--limit", min=1, help="At most N papers per venue")] = None,
) -> None:
    """Write a source's papers and every system's reviews as an evaluation layout."""
    from prism_review.data.export import export_layout as run_export
    from prism_review.data.sources import open_source, read_sample
    from prism_review.guards.errors import DataError

    try:
        source = open_source(src)
        picked = read_sample(sample) if sample else None
        res = run_export(source, out, venues=venue or None, sample=picked, limit=limit)
    except DataError as exc:
        console.print(f"[red]error:[/] {escape(str(exc))}", highlight=False)
        raise typer.Exit(2) from None
    for v, n in res.papers.items():
        console.print(f"{v}: {n} paper(s)")
    others = "".join(f", {n} {s} review(s)" for s, n in res.systems.items())
    console.print(f"wrote {sum(res.papers.values())} paper(s), {res.reviews} human review(s)"
                  f"{others} from {source.kind} {src} to {out}/", soft_wrap=True)
    if res.skipped:
        console.print(f"[yellow]{len(res.skipped)} input(s) skipped:[/]")
        for line in res.skipped[:20]:
            console.print(f"  - {line}", markup=False, highlight=False, soft_wrap=True)
        raise typer.Exit(1)
    if not res.papers:
        console.print("[yellow]nothing exported[/]: no paper matched")
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    """Mount ``prism data``."""
    app.add_typer(data_app, name="data")
