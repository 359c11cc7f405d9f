"""What a run is asked to do, and how its folder remembers it: :class:`EvalOptions`, the
config hash that ties a run folder to the settings that change results, the settings a
dimension reads, and the manifest check (a folder of other settings is refused, not mixed).
"""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from prism_review import __version__
from prism_review.dimensions.protocol import PROTOCOL_VERSIONS, SELECTION_DEPENDENT
from prism_review.judge.base import Judge
from prism_review.llm.credentials import mask_urls

__all__ = [
    "EvalOptions",
    "RunSettingsError",
    "config_hash",
    "read_manifest",
    "run_settings",
    "start_manifest",
    "with_run_paths",
]


class RunSettingsError(ValueError):
    """The run's settings are unusable: an unknown or invalid ``--set`` setting, or a run
    folder holding results made with other settings (or a damaged manifest)."""


class EvalOptions(BaseModel):
    """Everything ``prism evaluate`` needs to know."""

    data: Path | None = None  # None → the bundled demo
    out: Path
    venues: list[str] = Field(default_factory=list)  # empty → all present
    systems: list[str] = Field(default_factory=list)  # empty → all present
    dimensions: list[str] = Field(default_factory=list)  # empty → all registered
    judge: str = "offline"
    judge_options: dict[str, Any] = Field(default_factory=dict)
    limit: int | None = None  # papers per venue (of the manifest or sample order)
    sample: Path | None = None  # a `prism data sample` manifest restricting the papers
    compat: bool = False
    #: the judge's call pattern: ``economical`` (default, selection-invariant), ``pooled`` or
    #: ``reference`` (dimensions/protocol.py, docs/fidelity.md)
    protocol: Literal["economical", "pooled", "reference"] = "economical"
    by_venue: bool = False
    concurrency: int = 8  # units in flight
    settings: dict[str, Any] = Field(default_factory=dict)  # dimension settings
    report: bool = True
    #: the judge card to read (``--card``; None: the judge's own, shipped or in the cache folder)
    card: Path | None = None


def with_run_paths(opts: EvalOptions, out: Path) -> EvalOptions:
    """``opts`` whose judge keeps its files in the run folder ``out``: an LLM judge's audit log
    (``audit.jsonl``; none for a dry run, which calls nothing) unless one is given, and the
    batch ids (``batches.json``) when ``--batch`` asks for the Batch API. The one place both
    ``prism evaluate`` and :func:`~prism_review.pipelines.runner.run_evaluation` set them."""
    judge_opts = dict(opts.judge_options)
    if opts.judge != "offline" and not judge_opts.get("dry_run"):
        judge_opts.setdefault("audit_path", out / "audit.jsonl")
    if judge_opts.get("batch") is True:
        judge_opts["batch"] = out / "batches.json"
    return opts.model_copy(update={"judge_options": judge_opts})


def config_hash(opts: EvalOptions, judge: Judge) -> str:
    """Hash of everything that changes a result (not paths, filters, limits, concurrency,
    keys, nor which dimensions run: dimensions can be added to a run folder one by one).

    A protocol whose meaning changed carries its version (``PROTOCOL_VERSIONS``) when the run
    asks an LLM judge outside compat, so a folder made under its old meaning is refused; an
    unchanged protocol (version 1), and an offline or compat run (the same calls, or none,
    under every protocol), hash as before, so their folders still resume."""
    payload: dict[str, Any] = {
        "judge": judge.describe(),
        "compat": opts.compat,
        "protocol": opts.protocol,
        "settings": opts.settings,
    }
    version = PROTOCOL_VERSIONS[opts.protocol]
    if version != 1 and judge.mode != "offline" and not opts.compat:
        payload["protocol_version"] = version
    blob = json.dumps(payload, sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def run_settings(opts: EvalOptions) -> dict[str, Any]:
    """The settings a dimension reads from ``ctx``: the ``--set`` ones, compat and protocol."""
    return {**opts.settings, "compat": opts.compat, "protocol": opts.protocol}


def read_manifest(path: Path) -> dict[str, Any] | None:
    """The run folder's manifest (None when there is none); a damaged one is a
    :class:`RunSettingsError` naming the file, not a raw ``JSONDecodeError``."""
    if not path.exists():
        return None
    try:
        data = json.loads(path.read_bytes())
    except (ValueError, OSError) as exc:
        raise RunSettingsError(
            f"{path} is damaged ({exc}); the folder's settings cannot be checked, so it is not "
            "resumed: move the file aside to start the folder afresh, or choose a new --out folder"
        ) from exc
    if not isinstance(data, dict):
        raise RunSettingsError(f"{path} is not a run manifest (a JSON object); choose a new --out")
    return data


def start_manifest(
    opts: EvalOptions,
    out: Path,
    judge: Judge,
    chash: str,
    previous: dict[str, Any] | None,
    source: Any,
    dims: list[Any],
) -> dict[str, Any]:
    """The manifest a run starts with (judge, settings, dimensions, filters); a folder whose
    ``previous`` manifest has another config hash is a :class:`RunSettingsError`."""
    if previous and previous.get("config_hash") != chash:
        raise RunSettingsError(
            f"{out} holds a run made with other settings (config {previous.get('config_hash')} "
            f"vs {chash}); choose a new --out folder"
        )
    manifest: dict[str, Any] = {
        "tool": "prism-review",
        "version": __version__,
        "started": datetime.now(UTC).isoformat(timespec="seconds"),
        "data": str(source.path),
        "source": source.kind,
        "judge": judge.describe(),
        "judge_spec": mask_urls(opts.judge),
        "compat": opts.compat,
        "protocol": opts.protocol,
        "protocol_version": PROTOCOL_VERSIONS[opts.protocol],
        "selection_invariant": opts.protocol not in SELECTION_DEPENDENT,
        "settings": opts.settings,
        "dimensions": {
            **(previous or {}).get("dimensions", {}),
            **{d.name: d.describe() for d in dims},
        },
        "config_hash": chash,
        "filters": {"venues": opts.venues, "systems": opts.systems, "limit": opts.limit},
    }
    card = opts.card or (previous or {}).get("card_file")  # a resumed folder keeps its card
    if card:
        manifest["card_file"] = str(card)
    if previous:
        manifest["first_started"] = previous.get("first_started", previous.get("started"))
    return manifest
