"""``prism review …``: LLM generation of reviews, quote-anchored comments and meta-reviews.

* ``prism review generate`` — write LLM reviews into ``DATA_ROOT/<VENUE>/<system>/reviews.jsonl``;
* ``prism review comments`` — quote-anchored comments for perturbation rows;
* ``prism review meta`` — meta-reviews from a system's reviews.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from prism_review.cli.llm_options import (
    AuditOpt,
    BaseUrlOpt,
    CacheOpt,
    CharsOpt,
    ConcOpt,
    ConfigOpt,
    DataOpt,
    JudgeOpt,
    LimitOpt,
    MaxErrOpt,
    NoCacheOpt,
    VenueOpt,
    console,
    fail,
    llm_judge,
    run_llm,
)

review_app = typer.Typer(help="Generate reviews, quote-anchored comments and meta-reviews with an LLM.",
                         no_args_is_help=True)  # fmt: skip


def _report_generation(rep: Any) -> None:
    d = rep.as_dict()
    console.print(f"{d['path']}: {d['written']} written, {d['skipped_existing']} already there, "
                  f"{d['failed']} failed (of {d['total']})")  # fmt: skip
    for key, err in rep.failed[:10]:
        console.print(f"  [yellow]{key}[/]: {err}")
    if rep.failed:
        console.print("Failed items are not written; re-run the same command to retry them.")


@review_app.command("generate")
def review_generate(
    system: Annotated[str, typer.Option("--system", help="Folder name for the generated system")],
    judge: JudgeOpt = "offline", data: DataOpt = None, venue: VenueOpt = None, limit: LimitOpt = None,
    manifest: Annotated[str | None, typer.Option("--manifest", help="Paper-id manifest (200, 50 or a file)")] = None,
    max_paper_chars: CharsOpt = 48_000, reviewer_id: Annotated[str, typer.Option("--reviewer-id")] = "LLM_Reviewer",
    layout_out: Annotated[Path | None, typer.Option("--layout-out", help="Where to write a non-layout --data as an evaluation layout first")] = None,
    concurrency: ConcOpt = 4, base_url: BaseUrlOpt = None, config: ConfigOpt = None, cache_dir: CacheOpt = None,
    no_cache: NoCacheOpt = False, max_errors: MaxErrOpt = None, audit: AuditOpt = None,
) -> None:  # fmt: skip
    """Generate one review per paper into DATA_ROOT/<VENUE>/<system>/reviews.jsonl (resumable).

    A --data that is not an evaluation layout (papers.parquet, corpus folders, ProReviewer) is
    first written as one under --layout-out (papers and human reviews), and the reviews go there.
    """
    from prism_review.data.layout import EvalLayout
    from prism_review.reviewers.generate import generate_reviews

    the_judge = llm_judge(judge, what="review generation", base_url=base_url, config=config,
                       cache_dir=cache_dir, no_cache=no_cache, concurrency=concurrency,
                       max_errors=max_errors, audit=audit)  # fmt: skip
    layout = EvalLayout(_layout_root(data, layout_out, venue, limit))
    for vid in _venues(layout, venue):
        ids = layout.paper_ids(vid, manifest)
        rep = run_llm(generate_reviews(layout, vid, system, the_judge, paper_ids=ids, limit=limit,
                                    max_paper_chars=max_paper_chars or None, concurrency=concurrency,
                                    reviewer_id=reviewer_id))  # fmt: skip
        _report_generation(rep)
    console.print(f"evaluate them with: prism evaluate --data {layout.root} --system {system}")


def _layout_root(data: Path | None, layout_out: Path | None, venue: list[str] | None,
                 limit: int | None) -> Path:
    """The evaluation layout to generate into: ``data`` itself, or ``data`` exported to one."""
    from prism_review.data.export import export_layout
    from prism_review.data.layout import demo_root, find_data_root
    from prism_review.data.sources import open_source
    from prism_review.guards.errors import DataError

    if data is None:
        return demo_root()
    try:
        source = open_source(data)
        if source.kind == "layout":
            return find_data_root(data)
        if layout_out is None:
            raise fail(f"{data} is a {source.kind} source, not an evaluation layout: give "
                        "--layout-out DIR to write its papers and human reviews there first")
        res = export_layout(source, layout_out, venues=venue, limit=limit)
    except DataError as exc:
        raise fail(str(exc)) from exc
    console.print(f"wrote {sum(res.papers.values())} paper(s) of {data} to {layout_out}/"
                  + (f" ({len(res.skipped)} input(s) skipped)" if res.skipped else ""))
    return layout_out


def _venues(layout: Any, venue: list[str] | None) -> list[str]:
    from prism_review.venues import get_venue

    present = layout.venues()
    if not venue:
        return list(present)
    wanted = [get_venue(v).id for v in venue]
    missing = [v for v in wanted if v not in present]
    if missing:
        raise fail(f"venue folder(s) not found under {layout.root}: {', '.join(missing)}")
    return wanted


@review_app.command("comments")
def review_comments(
    rows: Annotated[Path, typer.Option("--rows", help="Perturbation rows (.jsonl or .parquet)")],
    out: Annotated[Path, typer.Option("--out", help="Comments JSONL to write (appended; resumable)")],
    judge: JudgeOpt = "offline", limit: Annotated[int | None, typer.Option("--limit", min=1, help="At most N rows")] = None,
    max_comments: Annotated[int, typer.Option("--max-comments")] = 20,
    max_paper_chars: Annotated[int, typer.Option("--max-paper-chars", help="Extra character cap on review_input (0: none)")] = 0,
    concurrency: ConcOpt = 4, base_url: BaseUrlOpt = None, config: ConfigOpt = None, cache_dir: CacheOpt = None,
    no_cache: NoCacheOpt = False, max_errors: MaxErrOpt = None, audit: AuditOpt = None,
) -> None:  # fmt: skip
    """Write OpenAIReview-style quote-anchored comments for each perturbation row."""
    from prism_review.data.perturbation import load_perturbations
    from prism_review.reviewers.generate import generate_comments

    the_judge = llm_judge(judge, what="comment generation", base_url=base_url, config=config,
                       cache_dir=cache_dir, no_cache=no_cache, concurrency=concurrency,
                       max_errors=max_errors, audit=audit)  # fmt: skip
    data = load_perturbations(rows)
    data = data[:limit] if limit else data
    withheld = sum(1 for r in data if r.text_withheld)
    if withheld:
        console.print(f"[yellow]{withheld} row(s) have no text (licence); rebuild them from arXiv to review them[/]")
    rep = run_llm(generate_comments(data, out, the_judge, max_paper_chars=max_paper_chars or None,
                                 max_comments=max_comments, concurrency=concurrency))  # fmt: skip
    _report_generation(rep)


@review_app.command("meta")
def review_meta(
    out: Annotated[Path, typer.Option("--out", help="Meta-review JSONL to write (appended; resumable)")],
    judge: JudgeOpt = "offline", data: DataOpt = None, venue: VenueOpt = None, limit: LimitOpt = None,
    source: Annotated[str, typer.Option("--source", help="System whose reviews are synthesised")] = "human",
    concurrency: ConcOpt = 4, base_url: BaseUrlOpt = None, config: ConfigOpt = None, cache_dir: CacheOpt = None,
    no_cache: NoCacheOpt = False, max_errors: MaxErrOpt = None, audit: AuditOpt = None,
) -> None:  # fmt: skip
    """Generate a meta-review (and accept/reject recommendation) per paper from its reviews."""
    from prism_review.data.layout import EvalLayout, demo_root, find_data_root
    from prism_review.reviewers.generate import generate_meta_reviews

    the_judge = llm_judge(judge, what="meta-review generation", base_url=base_url, config=config,
                       cache_dir=cache_dir, no_cache=no_cache, concurrency=concurrency,
                       max_errors=max_errors, audit=audit)  # fmt: skip
    layout = EvalLayout(find_data_root(data) if data else demo_root())
    for vid in _venues(layout, venue):
        rep = run_llm(generate_meta_reviews(layout, vid, source, out, the_judge, limit=limit,
                                         concurrency=concurrency))  # fmt: skip
        _report_generation(rep)


def register(app: typer.Typer) -> None:
    app.add_typer(review_app, name="review")
