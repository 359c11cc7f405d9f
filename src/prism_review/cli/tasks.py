"""``prism review …``, ``prism task …`` and ``prism perturbation …``: generation and prediction tasks.

* ``prism review generate`` — write LLM reviews into ``DATA_ROOT/<VENUE>/<system>/reviews.jsonl``;
* ``prism review comments`` — quote-anchored comments for perturbation rows;
* ``prism review meta`` — meta-reviews from a system's reviews;
* ``prism task acceptance`` / ``prism task scores`` — prediction tasks with their metrics;
* ``prism perturbation score`` — injected-error recall of quote-anchored comments.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

console = Console(stderr=True)

review_app = typer.Typer(help="Generate reviews, quote-anchored comments and meta-reviews with an LLM.",
                         no_args_is_help=True)  # fmt: skip
task_app = typer.Typer(help="Prediction tasks: acceptance and review scores.", no_args_is_help=True)
perturbation_app = typer.Typer(help="OpenAIReview perturbation benchmark: injected-error recall.",
                               no_args_is_help=True)  # fmt: skip

JudgeOpt = Annotated[str, typer.Option("--judge", help="openai/<model> | gemini/<model> | openai-compatible/<model>@<url>")]
BaseUrlOpt = Annotated[str | None, typer.Option("--base-url", help="OpenAI-compatible server URL")]
ConfigOpt = Annotated[Path | None, typer.Option("--config", help="Judge config file (TOML/YAML)")]
CacheOpt = Annotated[Path | None, typer.Option("--cache-dir", help="LLM response cache folder")]
NoCacheOpt = Annotated[bool, typer.Option("--no-cache", help="Do not read or write the LLM cache")]
ConcOpt = Annotated[int, typer.Option("--concurrency", help="Items in flight")]
MaxErrOpt = Annotated[int | None, typer.Option("--max-errors", help="Stop after this many failed calls")]
AuditOpt = Annotated[Path | None, typer.Option("--audit", help="Write every LLM call to this JSONL audit log")]
DataOpt = Annotated[Path | None, typer.Option("--data", help="Evaluation layout, papers.parquet, corpus venue folder/zip or ProReviewer (by shape); default: the bundled demo")]
ProOpt = Annotated[Path | None, typer.Option("--proreviewer", help="ProReviewer parquet/arrow/JSONL file or folder")]
VenueOpt = Annotated[list[str] | None, typer.Option("--venue", help="Venue(s) (repeatable)")]
LimitOpt = Annotated[int | None, typer.Option("--limit", help="At most N papers per venue (per split for ProReviewer)")]
OutOpt = Annotated[Path | None, typer.Option("--out", help="Folder for results.json and predictions.jsonl")]
CharsOpt = Annotated[int, typer.Option("--max-paper-chars", help="Paper text budget in characters (0: no limit)")]


def _fail(msg: str, code: int = 2) -> typer.Exit:
    console.print(f"[red]error:[/] {msg}")
    return typer.Exit(code)


def _judge(spec: str, *, what: str, base_url: str | None = None, config: Path | None = None,
           cache_dir: Path | None = None, no_cache: bool = False, concurrency: int | None = None,
           max_errors: int | None = None, audit: Path | None = None) -> Any:  # fmt: skip
    """Build the LLM judge, refusing ``offline`` (these commands need an LLM)."""
    if spec.strip() == "offline":
        raise _fail(
            f"{what} needs an LLM; there is no offline judge for it. Pass --judge openai/<model>, "
            "gemini/<model> or openai-compatible/<model>@<url>."
        )
    from prism_review.llm import make_judge

    opts = {"base_url": base_url, "config_path": config, "cache_dir": cache_dir,
            "no_cache": no_cache or None, "concurrency": concurrency, "max_errors": max_errors,
            "audit_path": audit}  # fmt: skip
    try:
        return make_judge(spec, **{k: v for k, v in opts.items() if v is not None})
    except Exception as exc:  # bad spec or missing key: a message, not a traceback
        raise _fail(str(exc)) from exc


def _run(coro: Any) -> Any:
    from prism_review.llm.errors import FatalProviderError, TooManyErrors, TransportError
    from prism_review.progress import showing

    try:
        with showing():
            return asyncio.run(coro)
    except (FatalProviderError, TooManyErrors, TransportError) as exc:  # no reply: not a result
        raise _fail(f"stopped: {exc}. Finished items are kept; re-run to resume.", 3) from exc


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

    the_judge = _judge(judge, what="review generation", base_url=base_url, config=config,
                       cache_dir=cache_dir, no_cache=no_cache, concurrency=concurrency,
                       max_errors=max_errors, audit=audit)  # fmt: skip
    layout = EvalLayout(_layout_root(data, layout_out, venue, limit))
    for vid in _venues(layout, venue):
        ids = layout.paper_ids(vid, manifest)
        rep = _run(generate_reviews(layout, vid, system, the_judge, paper_ids=ids, limit=limit,
                                    max_paper_chars=max_paper_chars or None, concurrency=concurrency,
                                    reviewer_id=reviewer_id))  # fmt: skip
        _report_generation(rep)
    console.print(f"evaluate them with: prism evaluate --data {layout.root} --system {system}")


def _layout_root(data: Path | None, layout_out: Path | None, venue: list[str] | None,
                 limit: int | None) -> Path:
    """The evaluation layout to generate into: ``data`` itself, or ``data`` exported to one."""
    from prism_review.data.errors import DataError
    from prism_review.data.export import export_layout
    from prism_review.data.layout import demo_root, find_data_root
    from prism_review.data.sources import open_source

    if data is None:
        return demo_root()
    try:
        source = open_source(data)
        if source.kind == "layout":
            return find_data_root(data)
        if layout_out is None:
            raise _fail(f"{data} is a {source.kind} source, not an evaluation layout: give "
                        "--layout-out DIR to write its papers and human reviews there first")
        res = export_layout(source, layout_out, venues=venue, limit=limit)
    except DataError as exc:
        raise _fail(str(exc)) from exc
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
        raise _fail(f"venue folder(s) not found under {layout.root}: {', '.join(missing)}")
    return wanted


@review_app.command("comments")
def review_comments(
    rows: Annotated[Path, typer.Option("--rows", help="Perturbation rows (.jsonl or .parquet)")],
    out: Annotated[Path, typer.Option("--out", help="Comments JSONL to write (appended; resumable)")],
    judge: JudgeOpt = "offline", limit: Annotated[int | None, typer.Option("--limit", help="At most N rows")] = None,
    max_comments: Annotated[int, typer.Option("--max-comments")] = 20,
    max_paper_chars: Annotated[int, typer.Option("--max-paper-chars", help="Extra character cap on review_input (0: none)")] = 0,
    concurrency: ConcOpt = 4, base_url: BaseUrlOpt = None, config: ConfigOpt = None, cache_dir: CacheOpt = None,
    no_cache: NoCacheOpt = False, max_errors: MaxErrOpt = None, audit: AuditOpt = None,
) -> None:  # fmt: skip
    """Write OpenAIReview-style quote-anchored comments for each perturbation row."""
    from prism_review.data.perturbation import load_perturbations
    from prism_review.reviewers.generate import generate_comments

    the_judge = _judge(judge, what="comment generation", base_url=base_url, config=config,
                       cache_dir=cache_dir, no_cache=no_cache, concurrency=concurrency,
                       max_errors=max_errors, audit=audit)  # fmt: skip
    data = load_perturbations(rows)
    data = data[:limit] if limit else data
    withheld = sum(1 for r in data if r.text_withheld)
    if withheld:
        console.print(f"[yellow]{withheld} row(s) have no text (licence); rebuild them from arXiv to review them[/]")
    rep = _run(generate_comments(data, out, the_judge, max_paper_chars=max_paper_chars or None,
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

    the_judge = _judge(judge, what="meta-review generation", base_url=base_url, config=config,
                       cache_dir=cache_dir, no_cache=no_cache, concurrency=concurrency,
                       max_errors=max_errors, audit=audit)  # fmt: skip
    layout = EvalLayout(find_data_root(data) if data else demo_root())
    for vid in _venues(layout, venue):
        rep = _run(generate_meta_reviews(layout, vid, source, out, the_judge, limit=limit,
                                         concurrency=concurrency))  # fmt: skip
        _report_generation(rep)


def _write_outputs(out: Path | None, result: dict[str, Any], rows: list[dict[str, Any]]) -> None:
    typer.echo(json.dumps(result, indent=2, default=str))
    if out is None:
        return
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.json").write_text(json.dumps(result, indent=2, default=str) + "\n", encoding="utf-8")
    with (out / "predictions.jsonl").open("w", encoding="utf-8") as fh:
        for r in rows:
            fh.write(json.dumps(r, ensure_ascii=False, default=str) + "\n")
    console.print(f"wrote {out}/results.json and {out}/predictions.jsonl")


def _papers(data: Path | None, proreviewer: Path | None, venue: list[str] | None, limit: int | None,
            train_fraction: float, seed: int, keep_text: bool = True) -> list[Any]:  # fmt: skip
    """The task papers; unreadable papers/reviews are left out and each is named on stderr."""
    from prism_review.data.errors import DataError
    from prism_review.data.layout import demo_root
    from prism_review.tasks.sources import load_papers

    if data is None and proreviewer is None:
        data = demo_root()
    if data is not None and proreviewer is not None:
        raise _fail("give --data or --proreviewer, not both")
    problems: list[str] = []
    try:
        papers = load_papers(data=data, proreviewer=proreviewer, venues=venue, limit=limit,
                             train_fraction=train_fraction, seed=seed, keep_text=keep_text,
                             problems=problems)  # fmt: skip
    except DataError as exc:  # the source itself is unreadable
        raise _fail(str(exc)) from exc
    if problems:
        console.print(f"{len(problems)} input problem(s), left out:", style="yellow", markup=False)
        for msg in problems[:10]:
            console.print(f"  - {msg}", markup=False, soft_wrap=True)
    return papers


TrainOpt = Annotated[float, typer.Option("--train-fraction", help="PRISM layout: share of papers in the train split")]
SeedOpt = Annotated[int, typer.Option("--seed", help="PRISM layout: seed of the hash split")]
SplitOpt = Annotated[str, typer.Option("--split", help="Evaluate on: test | all (all: unfitted predictors only)")]


@task_app.command("acceptance")
def task_acceptance(
    predictor: Annotated[str, typer.Option("--predictor", help="rating | majority | llm | file")] = "rating",
    predictions: Annotated[Path | None, typer.Option("--predictions", help="file: JSONL {paper_id, recommendation|decision, confidence?} (e.g. prism review meta output)")] = None,
    data: DataOpt = None, proreviewer: ProOpt = None, venue: VenueOpt = None, limit: LimitOpt = None,
    allow_biased: Annotated[bool, typer.Option("--allow-biased", help="Include ICML 2025 / NeurIPS 2025 (accept-biased)")] = False,
    with_reviews: Annotated[bool, typer.Option("--with-reviews", help="llm: show the reviews too")] = False,
    objective: Annotated[str, typer.Option("--objective", help="rating: threshold objective (balanced_accuracy | accuracy)")] = "balanced_accuracy",
    train_fraction: TrainOpt = 0.5, seed: SeedOpt = 0, split: SplitOpt = "test", judge: JudgeOpt = "offline", out: OutOpt = None,
    max_paper_chars: CharsOpt = 48_000, concurrency: ConcOpt = 4, base_url: BaseUrlOpt = None,
    config: ConfigOpt = None, cache_dir: CacheOpt = None, no_cache: NoCacheOpt = False,
    max_errors: MaxErrOpt = None, audit: AuditOpt = None,
) -> None:  # fmt: skip
    """Predict accept/reject; report accuracy, balanced accuracy, macro-F1, ROC-AUC, accept rate."""
    from prism_review.tasks.acceptance import AcceptBiasedVenue, predictions_as_rows, run_acceptance

    if predictor not in {"rating", "majority", "llm", "file"}:
        raise _fail(f"unknown predictor {predictor!r} (rating, majority, llm, file)")
    rows = None
    unreadable = 0
    if predictor == "file":
        from prism_review.data.jsonl import iter_jsonl
        from prism_review.data.skips import SkipLog

        if predictions is None or not predictions.is_file():
            raise _fail("the file predictor needs --predictions FILE (JSONL)")
        skipped = SkipLog()
        rows = [row for _, row in iter_jsonl(predictions, skipped)]
        for skip in skipped.skips:  # those papers get no prediction: say why
            console.print(f"skipped {skip}", style="yellow", markup=False, soft_wrap=True)
        unreadable = len(skipped)
    if objective not in {"balanced_accuracy", "accuracy"}:
        raise _fail(f"unknown objective {objective!r}")
    if split not in {"test", "all"}:
        raise _fail("--split is test|all")
    the_judge = None
    if predictor == "llm":
        the_judge = _judge(judge, what="the llm acceptance predictor", base_url=base_url, config=config,
                           cache_dir=cache_dir, no_cache=no_cache, concurrency=concurrency,
                           max_errors=max_errors, audit=audit)  # fmt: skip
    papers = _papers(data, proreviewer, venue, limit, train_fraction, seed, keep_text=predictor == "llm")
    try:
        result, preds = _run(run_acceptance(
            papers, predictor=predictor, judge=the_judge, requested_venues=venue, prediction_rows=rows,  # type: ignore[arg-type]
            allow_biased=allow_biased, with_reviews=with_reviews, objective=objective,  # type: ignore[arg-type]
            max_paper_chars=max_paper_chars or None, concurrency=concurrency, split=split))  # type: ignore[arg-type]
    except (AcceptBiasedVenue, ValueError) as exc:
        raise _fail(str(exc)) from exc
    for w in result["warnings"]:
        console.print(f"[bold red]{w}[/]")
    if predictor == "file":
        result["n_prediction_lines_unreadable"] = unreadable
    _write_outputs(out, result, predictions_as_rows(preds))


@task_app.command("scores")
def task_scores(
    level: Annotated[str, typer.Option("--level", help="paper (mean rating) | review")] = "paper",
    predictor: Annotated[str, typer.Option("--predictor", help="train-mean | llm | system")] = "train-mean",
    system: Annotated[str | None, typer.Option("--system", help="system predictor: the system whose ratings to use")] = None,
    data: DataOpt = None, proreviewer: ProOpt = None, venue: VenueOpt = None, limit: LimitOpt = None,
    train_fraction: TrainOpt = 0.5, seed: SeedOpt = 0, split: SplitOpt = "test", judge: JudgeOpt = "offline", out: OutOpt = None,
    max_paper_chars: CharsOpt = 48_000, concurrency: ConcOpt = 4, base_url: BaseUrlOpt = None,
    config: ConfigOpt = None, cache_dir: CacheOpt = None, no_cache: NoCacheOpt = False,
    max_errors: MaxErrOpt = None, audit: AuditOpt = None,
) -> None:  # fmt: skip
    """Predict review ratings; report MAE, RMSE, Pearson, Spearman, Kendall tau, within ±1."""
    from prism_review.tasks.scores import run_scores, targets_as_rows

    if level not in {"paper", "review"} or predictor not in {"train-mean", "llm", "system"}:
        raise _fail("--level is paper|review and --predictor train-mean|llm|system")
    if split not in {"test", "all"}:
        raise _fail("--split is test|all")
    the_judge, ratings = None, None
    if predictor == "llm":
        the_judge = _judge(judge, what="the llm score predictor", base_url=base_url, config=config,
                           cache_dir=cache_dir, no_cache=no_cache, concurrency=concurrency,
                           max_errors=max_errors, audit=audit)  # fmt: skip
    papers = _papers(data, proreviewer, venue, limit, train_fraction, seed, keep_text=predictor == "llm")
    if predictor == "system":
        if not system or proreviewer is not None:
            raise _fail("the system predictor needs --system NAME and a PRISM --data folder")
        ratings = _system_ratings(data, system, papers)
    try:
        result, ts = _run(run_scores(papers, level=level, predictor=predictor, judge=the_judge,  # type: ignore[arg-type]
                                     system_ratings=ratings, max_paper_chars=max_paper_chars or None,
                                     concurrency=concurrency, split=split))  # type: ignore[arg-type]
    except ValueError as exc:
        raise _fail(str(exc)) from exc
    if system:
        result["system"] = system
    _write_outputs(out, result, targets_as_rows(ts))


def _system_ratings(data: Path | None, system: str, papers: list[Any]) -> dict[tuple[str, str], float | None]:
    from prism_review.data.layout import EvalLayout, demo_root, find_data_root
    from prism_review.tasks.scores import system_rating

    layout = EvalLayout(find_data_root(data) if data else demo_root())
    venues = sorted({p.venue for p in papers})
    has = {v: system in layout.systems(v) for v in venues}  # listing also registers BYO folders
    if not any(has.values()):
        raise _fail(f"no reviews of system {system!r} under {layout.root} for {', '.join(venues)}")
    out: dict[tuple[str, str], float | None] = {}
    for p in papers:
        if not has[p.venue]:
            out[(p.venue, p.paper.paper_id)] = None
            continue
        vals = [v for r in layout.load_reviews(p.venue, p.paper.paper_id, system)
                if (v := system_rating(r.raw_scores)) is not None]  # fmt: skip
        out[(p.venue, p.paper.paper_id)] = sum(vals) / len(vals) if vals else None
    return out


@perturbation_app.command("score")
def perturbation_score(
    rows: Annotated[Path, typer.Option("--rows", help="Perturbation rows (.jsonl or .parquet)")],
    comments: Annotated[Path, typer.Option("--comments", help="JSONL {id | arxiv_id+error_type, comments}")],
    method: Annotated[str | None, typer.Option("--method", help="llm (the card's recall; default with a --judge) | location (quote overlap only: location_recall, an upper bound; default without a judge) | fuzzy (fuzzy_recall)")] = None,
    threshold: Annotated[float | None, typer.Option("--threshold", help="llm: pass mark 1-5 (default 4); fuzzy: token-set ratio (default 70)")] = None,
    missing: Annotated[str, typer.Option("--missing", help="Rows without comments: skip | zero")] = "skip",
    judge: JudgeOpt = "offline", out: OutOpt = None, concurrency: ConcOpt = 8, base_url: BaseUrlOpt = None,
    config: ConfigOpt = None, cache_dir: CacheOpt = None, no_cache: NoCacheOpt = False,
    max_errors: MaxErrOpt = None, audit: AuditOpt = None,
) -> None:  # fmt: skip
    """Injected-error detection per row and error category: recall (llm) or location_recall."""
    from prism_review.data.errors import DataError
    from prism_review.data.perturbation import PerturbationReader
    from prism_review.data.skips import SkipLog
    from prism_review.metrics.perturbation import FUZZY_RATIO, JUDGE_THRESHOLD
    from prism_review.tasks.perturbation import load_comments, score_perturbations

    if method is None:
        method = "location" if judge.strip() == "offline" else "llm"
    if method not in {"llm", "location", "fuzzy"} or missing not in {"skip", "zero"}:
        raise _fail("--method is llm|location|fuzzy and --missing skip|zero")
    if method == "location" and threshold is not None:
        raise _fail("--threshold does not apply to --method location (no explanation check)")
    the_judge = None
    if method == "llm":
        the_judge = _judge(judge, what="the llm explanation match", base_url=base_url, config=config,
                           cache_dir=cache_dir, no_cache=no_cache, concurrency=concurrency,
                           max_errors=max_errors, audit=audit)  # fmt: skip
    skipped = SkipLog()
    try:
        reader = PerturbationReader(rows)
        data = list(reader)
        data_counts = dict(reader.counts)
        by_id, merged = load_comments(comments, skipped)
    except DataError as exc:
        raise _fail(str(exc)) from exc
    for skip in [*reader.skips.skips, *skipped.skips]:  # unreadable or repeated lines: say so
        console.print(f"skipped {skip}", style="yellow", markup=False, soft_wrap=True)
    unknown = sorted(set(by_id) - {r.id for r in data})
    result, per_row = _run(score_perturbations(
        data, by_id, method=method, judge=the_judge, missing=missing,  # type: ignore[arg-type]
        judge_threshold=threshold if threshold is not None and method == "llm" else JUDGE_THRESHOLD,
        fuzzy_threshold=threshold if threshold is not None and method == "fuzzy" else FUZZY_RATIO,
        concurrency=concurrency))
    result.update(comments_file=str(comments), n_entries_merged=merged, unknown_comment_ids=unknown[:20],
                  n_comment_lines_unreadable=len(skipped), n_rows_skipped=len(reader.skips))  # fmt: skip
    result.update(n_edits_scored_computed=data_counts.get("scored_computed", 0),
                  n_edits_scored_disagrees_with_window=data_counts.get("scored_disagrees_with_window", 0))
    if result["method"] == "location":
        console.print("method: [bold]location[/] (quote overlap only, no judge): "
                      "[bold]location_recall[/] is an upper bound of the card's recall")
    else:
        console.print(f"method: [bold]{result['method']}[/], threshold {result['threshold']:g} "
                      f"→ [bold]{result['figure']}[/]")
    if result["n_rows_too_few_scored"]:
        console.print(f"[yellow]{result['n_rows_too_few_scored']} row(s) have fewer than "
                      f"{result['min_scored_edits']} scored edits: left out of the benchmark[/]")
    if result["n_edits_scored_disagrees_with_window"]:
        console.print(f"[yellow]{result['n_edits_scored_disagrees_with_window']} edit(s): the data's "
                      "'scored' disagrees with their place in review_input (the data's value is used)[/]")
    if result["n_rows_missing_comments"]:
        console.print(f"[yellow]{result['n_rows_missing_comments']} row(s) have no comments entry "
                      f"({'left out' if missing == 'skip' else 'scored as 0'})[/]")  # fmt: skip
    _write_outputs(out, result, per_row)


def register(app: typer.Typer) -> None:
    """Mount ``review``, ``task`` and ``perturbation`` on the ``prism`` app."""
    app.add_typer(review_app, name="review")
    app.add_typer(task_app, name="task")
    app.add_typer(perturbation_app, name="perturbation")
