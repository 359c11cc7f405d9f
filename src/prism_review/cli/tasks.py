"""``prism task …`` and ``prism perturbation …``: prediction tasks and the perturbation benchmark.

* ``prism task acceptance`` / ``prism task scores`` — prediction tasks with their metrics;
* ``prism perturbation score`` — injected-error recall of quote-anchored comments.

Generation (``prism review …``) is in :mod:`prism_review.cli.review`.
"""

from __future__ import annotations

import json
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
    OutOpt,
    ProOpt,
    VenueOpt,
    console,
    fail,
    llm_judge,
    run_llm,
)

task_app = typer.Typer(help="Prediction tasks: acceptance and review scores.", no_args_is_help=True)
perturbation_app = typer.Typer(help="OpenAIReview perturbation benchmark: injected-error recall.",
                               no_args_is_help=True)  # fmt: skip


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
    from prism_review.data.layout import demo_root
    from prism_review.guards.errors import DataError
    from prism_review.tasks.sources import load_papers

    if data is None and proreviewer is None:
        data = demo_root()
    if data is not None and proreviewer is not None:
        raise fail("give --data or --proreviewer, not both")
    problems: list[str] = []
    try:
        papers = load_papers(data=data, proreviewer=proreviewer, venues=venue, limit=limit,
                             train_fraction=train_fraction, seed=seed, keep_text=keep_text,
                             problems=problems)  # fmt: skip
    except DataError as exc:  # the source itself is unreadable
        raise fail(str(exc)) from exc
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
    from prism_review.names import UnknownNameError
    from prism_review.tasks.acceptance import AcceptBiasedVenue, predictions_as_rows, run_acceptance

    if predictor not in {"rating", "majority", "llm", "file"}:
        raise fail(str(UnknownNameError("predictor", predictor, ["rating", "majority", "llm", "file"])))
    rows = None
    unreadable = 0
    if predictor == "file":
        from prism_review.data.jsonl import iter_jsonl
        from prism_review.data.skips import SkipLog

        if predictions is None or not predictions.is_file():
            raise fail("the file predictor needs --predictions FILE (JSONL)")
        skipped = SkipLog()
        numbered = list(iter_jsonl(predictions, skipped))
        rows = [row for _, row in numbered]
        for skip in skipped.skips:  # those papers get no prediction: say why
            console.print(f"skipped {skip}", style="yellow", markup=False, soft_wrap=True)
        unreadable = len(skipped)
    if objective not in {"balanced_accuracy", "accuracy"}:
        raise fail(str(UnknownNameError("objective", objective, ["balanced_accuracy", "accuracy"])))
    if split not in {"test", "all"}:
        raise fail("--split is test|all")
    the_judge = None
    if predictor == "llm":
        the_judge = llm_judge(judge, what="the llm acceptance predictor", base_url=base_url, config=config,
                           cache_dir=cache_dir, no_cache=no_cache, concurrency=concurrency,
                           max_errors=max_errors, audit=audit)  # fmt: skip
    papers = _papers(data, proreviewer, venue, limit, train_fraction, seed, keep_text=predictor == "llm")
    unused: list[str] = []
    if predictor == "file":
        rows, unused = _usable_prediction_rows(predictions, numbered, papers)  # type: ignore[arg-type]
        for msg in unused:
            console.print(f"skipped {msg}", style="yellow", markup=False, soft_wrap=True)
    try:
        result, preds = run_llm(run_acceptance(
            papers, predictor=predictor, judge=the_judge, requested_venues=venue, prediction_rows=rows,  # type: ignore[arg-type]
            allow_biased=allow_biased, with_reviews=with_reviews, objective=objective,  # type: ignore[arg-type]
            max_paper_chars=max_paper_chars or None, concurrency=concurrency, split=split))  # type: ignore[arg-type]
    except (AcceptBiasedVenue, ValueError) as exc:
        raise fail(str(exc)) from exc
    for w in result["warnings"]:
        console.print(f"[bold red]{w}[/]")
    if predictor == "file":
        result["n_prediction_lines_unreadable"] = unreadable
        result["n_prediction_lines_unused"] = len(unused)
    _write_outputs(out, result, predictions_as_rows(preds))
    if not result["overall"]["n"]:  # every metric is null: say so, and do not exit 0
        console.print(f"nothing measured: no test paper has both a decision and a prediction "
                      f"({result.get('n_unscored', 0)} unscored of {result['n_test']})",
                      style="yellow", markup=False)
        raise typer.Exit(1)


def _usable_prediction_rows(path: Path, numbered: list[tuple[int, dict[str, Any]]],
                            papers: list[Any]) -> tuple[list[dict[str, Any]], list[str]]:
    """The prediction rows that can predict a paper of the data, and a line naming each other
    row (no paper id, an unknown venue, a paper the data does not hold, no accept/reject)."""
    from prism_review.records import Decision
    from prism_review.venues import get_venue

    ids = {p.paper.paper_id for p in papers}
    keyed = {(p.venue, p.paper.paper_id) for p in papers}
    keep: list[dict[str, Any]] = []
    unused: list[str] = []
    for lineno, row in numbered:
        where = f"{path} [line {lineno}]"
        pid, vname = row.get("paper_id"), row.get("venue")
        try:
            vid = get_venue(str(vname)).id if vname else None
        except KeyError:
            unused.append(f"{where} (field 'venue'): unknown venue {vname!r}")
            continue
        if pid is None:
            unused.append(f"{where} (field 'paper_id'): missing")
        elif (vid is None and str(pid) not in ids) or (vid is not None and (vid, str(pid)) not in keyed):
            unused.append(f"{where} (field 'paper_id'): no paper {pid!r} in the data")
        elif Decision.parse(row.get("recommendation", row.get("decision"))).accepted is None:
            got = row.get("recommendation", row.get("decision"))
            unused.append(f"{where} (field 'recommendation'): not an accept/reject decision: {got!r}")
        else:
            keep.append(row)
    return keep, unused


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
        raise fail("--level is paper|review and --predictor train-mean|llm|system")
    if split not in {"test", "all"}:
        raise fail("--split is test|all")
    the_judge, ratings = None, None
    if predictor == "llm":
        the_judge = llm_judge(judge, what="the llm score predictor", base_url=base_url, config=config,
                           cache_dir=cache_dir, no_cache=no_cache, concurrency=concurrency,
                           max_errors=max_errors, audit=audit)  # fmt: skip
    papers = _papers(data, proreviewer, venue, limit, train_fraction, seed, keep_text=predictor == "llm")
    if predictor == "system":
        if not system or proreviewer is not None:
            raise fail("the system predictor needs --system NAME and a PRISM --data folder")
        ratings = _system_ratings(data, system, papers)
    try:
        result, ts = run_llm(run_scores(papers, level=level, predictor=predictor, judge=the_judge,  # type: ignore[arg-type]
                                     system_ratings=ratings, max_paper_chars=max_paper_chars or None,
                                     concurrency=concurrency, split=split))  # type: ignore[arg-type]
    except ValueError as exc:
        raise fail(str(exc)) from exc
    if system:
        result["system"] = system
    _write_outputs(out, result, targets_as_rows(ts))
    if not result["normalised"]["n"]:  # every metric is null: say so, and do not exit 0
        console.print(f"nothing measured: no test item has both a rating and a prediction "
                      f"({result.get('n_unscored', 0)} unscored of {result['n_test']})",
                      style="yellow", markup=False)
        raise typer.Exit(1)


def _system_ratings(data: Path | None, system: str, papers: list[Any]) -> dict[tuple[str, str], float | None]:
    from prism_review.data.layout import EvalLayout, demo_root, find_data_root
    from prism_review.tasks.scores import system_rating

    layout = EvalLayout(find_data_root(data) if data else demo_root())
    venues = sorted({p.venue for p in papers})
    has = {v: system in layout.systems(v) for v in venues}  # listing also registers BYO folders
    if not any(has.values()):
        raise fail(f"no reviews of system {system!r} under {layout.root} for {', '.join(venues)}")
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
    from prism_review.data.perturbation import PerturbationReader
    from prism_review.data.skips import SkipLog
    from prism_review.guards.errors import DataError
    from prism_review.metrics.perturbation import FUZZY_RATIO, JUDGE_THRESHOLD
    from prism_review.tasks.perturbation import load_comments, score_perturbations

    if method is None:
        method = "location" if judge.strip() == "offline" else "llm"
    if method not in {"llm", "location", "fuzzy"} or missing not in {"skip", "zero"}:
        raise fail("--method is llm|location|fuzzy and --missing skip|zero")
    if method == "location" and threshold is not None:
        raise fail("--threshold does not apply to --method location (no explanation check)")
    the_judge = None
    if method == "llm":
        the_judge = llm_judge(judge, what="the llm explanation match", base_url=base_url, config=config,
                           cache_dir=cache_dir, no_cache=no_cache, concurrency=concurrency,
                           max_errors=max_errors, audit=audit)  # fmt: skip
    skipped = SkipLog()
    try:
        reader = PerturbationReader(rows)
        data = list(reader)
        data_counts = dict(reader.counts)
        by_id, merged = load_comments(comments, skipped)
    except DataError as exc:
        raise fail(str(exc)) from exc
    for skip in [*reader.skips.skips, *skipped.skips]:  # unreadable or repeated lines: say so
        console.print(f"skipped {skip}", style="yellow", markup=False, soft_wrap=True)
    unknown = sorted(set(by_id) - {r.id for r in data})
    result, per_row = run_llm(score_perturbations(
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
    if result["overall"].get(result["figure"]) is None:  # no row scored: say so, do not exit 0
        console.print(f"nothing measured: no row of {rows} has scored edits and comments "
                      f"({result['n_rows']} row(s) read)", style="yellow", markup=False)
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    """Mount ``task`` and ``perturbation`` on the ``prism`` app."""
    app.add_typer(task_app, name="task")
    app.add_typer(perturbation_app, name="perturbation")
