"""Stratified sampling: hand-computed allocations, reproducibility, both metadata sources."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from data_shapes import zip_folder

from prism_review.data.sampling import (
    MANIFEST_NAME,
    PaperMeta,
    allocate,
    decision_class,
    draw_sample,
    metadata_from,
    rank_key,
    write_manifest,
)
from prism_review.data.skips import SkipLog
from prism_review.records import Decision


def test_allocate_proportional_by_hand() -> None:
    # 20 of 200: exact quotas 1, 3, 6, 10
    assert allocate({"oral": 10, "spotlight": 30, "poster": 60, "reject": 100}, 20) == {
        "oral": 1, "spotlight": 3, "poster": 6, "reject": 10,
    }  # fmt: skip
    # 10 of 7+13+29+51=100: quotas 0.7, 1.3, 2.9, 5.1 → floors 0,1,2,5 (8), remainders .9,.7 win
    assert allocate({"oral": 7, "spotlight": 13, "poster": 29, "reject": 51}, 10) == {
        "oral": 1, "spotlight": 1, "poster": 3, "reject": 5,
    }  # fmt: skip
    # equal remainders: earlier classes first
    assert allocate({"a": 1, "b": 1, "c": 1}, 2) == {"a": 1, "b": 1, "c": 0}
    # asking for more than there is: everything
    assert allocate({"a": 2, "b": 0}, 5) == {"a": 2, "b": 0}


def test_allocate_equal_water_filling() -> None:
    # 50 over 2 classes = 25 each, but oral has only 2 → reject gets 48
    assert allocate({"oral": 2, "reject": 100}, 50, "equal") == {"oral": 2, "reject": 48}
    # 10 over 3: 3,3,3 + 1 remainder to the first class in order
    assert allocate({"a": 50, "b": 50, "c": 50}, 10, "equal") == {"a": 4, "b": 3, "c": 3}
    # a: 1 → left 9 over b, c; b has 3 → c gets 6
    assert allocate({"a": 1, "b": 3, "c": 50}, 10, "equal") == {"a": 1, "b": 3, "c": 6}
    with pytest.raises(ValueError, match="unknown allocation"):
        allocate({"a": 5}, 2, "random")


def test_rank_key_is_plain_sha256() -> None:
    assert rank_key(7, "ICLR2024", "abc") == hashlib.sha256(b"7\x1fICLR2024\x1fabc").hexdigest()
    assert rank_key(7, "ICLR2024", "abc").startswith("ff7c5443")  # pinned: same on every machine


def _papers() -> list[PaperMeta]:
    out = []
    for venue, counts in {"ICLR2024": {"oral": 4, "poster": 16, "reject": 20, "pending": 9},
                          "NeurIPS2025": {"poster": 30, "reject": 2}}.items():  # fmt: skip
        for cls, n in counts.items():
            out += [PaperMeta(f"{venue[:2]}{cls}{i:02d}", venue, cls) for i in range(n)]
    return out


def test_draw_sample_is_stratified_and_reproducible(tmp_path: Path) -> None:
    m1 = draw_sample(_papers(), seed=3, default_size=10, source="papers.parquet")
    iclr = m1.venues["ICLR2024"]
    assert iclr.population == {
        "oral": 4,
        "spotlight": 0,
        "poster": 16,
        "conditional": 0,
        "reject": 20,
    }
    assert iclr.allocated == {"oral": 1, "spotlight": 0, "poster": 4, "conditional": 0, "reject": 5}
    assert len(iclr.paper_ids) == 10 and not any("pending" in p for p in iclr.paper_ids)
    assert sum("oral" in p for p in iclr.paper_ids) == 1
    assert iclr.paper_ids == sorted(iclr.paper_ids, key=lambda p: rank_key(3, "ICLR2024", p))
    # the ids chosen inside a class are its lowest sha256 keys
    orals = sorted((f"ICoral{i:02d}" for i in range(4)), key=lambda p: rank_key(3, "ICLR2024", p))
    assert orals[0] in iclr.paper_ids
    # input order does not matter; the seed does
    m2 = draw_sample(list(reversed(_papers())), seed=3, default_size=10, source="papers.parquet")
    write_manifest(m1, tmp_path / "a")
    write_manifest(m2, tmp_path / "b")
    for name in (MANIFEST_NAME, "paper_ids_10_iclr2024.txt", "paper_ids_10_neurips2025.txt"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    m3 = draw_sample(_papers(), seed=4, default_size=10)
    assert m3.venues["ICLR2024"].paper_ids != iclr.paper_ids


def test_sizes_classes_and_shortfall() -> None:
    m = draw_sample(_papers(), sizes={"neurips-2025": 40}, default_size=5, classes=["poster", "reject", "pending"],
                    venues=["NeurIPS2025"])  # fmt: skip
    assert list(m.venues) == ["NeurIPS2025"]
    ns = m.venues["NeurIPS2025"]
    assert (ns.requested, len(ns.paper_ids), ns.shortfall) == (40, 32, 8)
    m = draw_sample(_papers(), default_size=9, classes=["pending"])
    assert m.venues["ICLR2024"].allocated == {"pending": 9}
    with pytest.raises(ValueError, match="unknown decision class"):
        draw_sample(_papers(), classes=["accepted"])


def test_decision_class() -> None:
    assert [decision_class(Decision.parse(d)) for d in ("Accept (oral)", "Reject", "TBD", None)] == [
        "oral", "reject", "pending", "unknown",
    ]  # fmt: skip


def test_sources_parquet_folder_and_zip(
    corpus_parquet: Path, venue_dir: Path, tmp_path: Path
) -> None:
    skips = SkipLog()
    metas = list(metadata_from(corpus_parquet, skips))
    assert {(m.paper_id, m.venue, m.decision_class) for m in metas} >= {("p1", "ICLR2024", "oral"),
                                                                       ("p3", "ICLR2024", "pending")}  # fmt: skip
    assert len(metas) == 7
    from_dir = {(m.paper_id, m.decision_class) for m in metadata_from(venue_dir, skips)}
    assert from_dir == {("a1", "oral"), ("a2", "reject"), ("a3", "poster")}
    z = zip_folder(venue_dir, tmp_path / "zips" / "ICLR_2024.zip")
    (venue_dir / "json" / "a3.json").write_text('{"Decision": ')  # truncated → counted skip
    from_parent = [m.paper_id for m in metadata_from(venue_dir.parent, skips)]
    assert from_parent == ["a1", "a2"] and skips.skips[-1].record == "a3"
    assert [m.paper_id for m in metadata_from(z.parent, skips)] == ["a1", "a2", "a3"]
    manifest = draw_sample(metadata_from(z, SkipLog()), seed=1, default_size=2, source=z.name)
    doc = json.loads(manifest.model_dump_json())
    assert (
        doc["venues"]["ICLR2024"]["requested"] == 2
        and len(doc["venues"]["ICLR2024"]["paper_ids"]) == 2
    )


def test_a_layout_sample_shows_what_its_reader_skipped(tmp_path: Path) -> None:
    """A bad metadata row or a numeric decision makes the paper's class ``unknown``: the skip
    that says why is in the sample's log, as ``evaluate`` shows it (it was dropped unsaid)."""
    from prism_review.testing.layout_samples import write_layout

    root = write_layout(tmp_path / "data", {"ICLR2024": ["p1", "p2"]})
    vdir = root / "ICLR2024"
    (vdir / "human_reviews" / "p1.json").unlink()
    meta = vdir / "paper_metadata.jsonl"
    meta.write_text(json.dumps({"paper_id": "p1", "title": ["x"], "decision": "Accept"}) + "\n")
    human = vdir / "human_reviews" / "p2.json"
    data = json.loads(human.read_text())
    data["Decision"] = 1
    human.write_text(json.dumps(data))
    skips = SkipLog()
    got = list(metadata_from(root, skips))
    assert [(m.paper_id, m.decision_class) for m in got] == [("p1", "unknown"), ("p2", "unknown")]
    said = [str(s) for s in skips.skips]
    assert f"{meta} (field 'line 1: title'): expected text, got list; row skipped" in said, said
    assert f"{human}: Decision: expected text, got int 1 (not used)" in said, said


def test_a_folder_sample_reads_a_non_text_decision_as_evaluate_does(tmp_path: Path) -> None:
    """``Decision: ["Accept"]`` is no decision for ``VenueFolder.paper`` (a counted skip); the
    sample drew the paper as a poster from the same record, unsaid."""
    from prism_review.data.venue_folder import VenueFolder

    folder = tmp_path / "ICLR_2024"
    (folder / "json").mkdir(parents=True)
    (folder / "txt").mkdir()
    (folder / "json" / "a.json").write_text(json.dumps(
        {"title": "T", "Decision": ["Accept"], "reviews": [{"summary": "A review."}]}))
    (folder / "txt" / "a.txt").write_text("Paper text.")
    skips = SkipLog()
    assert [(m.paper_id, m.decision_class) for m in metadata_from(folder, skips)] == [
        ("a", "unknown")]
    assert [str(s) for s in skips.skips] == [
        f"{folder}/json/a.json (field 'Decision'): expected text, got list (not used)"]
    with VenueFolder(folder) as vf:
        assert vf.paper("a")[0].decision.kind.value == "unknown"
