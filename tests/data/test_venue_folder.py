"""Per-venue folders and their zips, GROBID parsing, malformed and missing outputs."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest
from data_shapes import TEI, zip_folder

from prism_review.data.grobid import parse_grobid_bib, parse_grobid_metadata, parse_tei
from prism_review.data.venue_folder import VenueFolder
from prism_review.guards.errors import DataError
from prism_review.guards.safepath import unsafe_member
from prism_review.records import DecisionKind


def test_parse_tei_title_abstract_sections_bibliography() -> None:
    doc = parse_tei(TEI, path="x.tei.xml")
    assert doc.title == "NExT-GPT: Any-to-Any Multimodal LLM"
    assert doc.abstract == "We present an end-to-end any-to-any MM-LLM."
    assert doc.authors == ["Shengqiong Wu", "Hao Fei"]
    assert [s.name for s in doc.sections] == ["1 Introduction", "2 Method"]
    assert (
        doc.sections[0].text
        == "Humans perceive the world through many modalities.\n\nSecond paragraph."
    )
    assert len(doc.bibliography) == 2
    b0, b1 = doc.bibliography
    assert (b0.title, b0.authors, b0.year, b0.venue) == (
        "Visual instruction tuning",
        ["Haotian Liu"],
        2023,
        "NeurIPS",
    )
    assert (b1.title, b1.year, b1.venue) == ("A Book Title", 2019, None)


@pytest.mark.parametrize(
    ("data", "match"),
    [
        (TEI[:300], "malformed XML"),
        (b"   ", "empty TEI"),
        (b"<TEI><teiHeader/></TEI>", "not in the TEI namespace"),
        (b"\xff\xfe<junk", "malformed XML"),
    ],
)
def test_parse_tei_malformed(data: bytes, match: str) -> None:
    with pytest.raises(DataError, match=match) as exc:
        parse_tei(data, path="p.grobid.tei.xml")
    assert exc.value.path == "p.grobid.tei.xml"


def test_tei_does_not_expand_external_entities(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP SECRET")
    xml = (
        f'<?xml version="1.0"?><!DOCTYPE TEI [<!ENTITY x SYSTEM "file://{secret}">]>'
        '<TEI xmlns="http://www.tei-c.org/ns/1.0"><teiHeader><fileDesc><titleStmt>'
        "<title>&x;</title></titleStmt></fileDesc></teiHeader></TEI>"
    ).encode()
    assert "TOP SECRET" not in parse_tei(xml, path="e.xml").title


def test_grobid_metadata_and_bib_validation() -> None:
    meta = parse_grobid_metadata(
        {
            "title": "T",
            "authors": [{"first": "A", "last": "B"}, "C D"],
            "keywords": "x; y",
            "date": 2023,
        },
        path="m.json",
    )
    assert meta.authors == ["A B", "C D"] and meta.keywords == ["x", "y"] and meta.date == "2023"
    with pytest.raises(DataError) as exc:
        parse_grobid_metadata({"title": ["not", "text"]}, path="m.json")
    assert exc.value.field == "title"
    bib = parse_grobid_bib(
        [{"title": "T", "authors": ["A"], "year": "in 2021", "venue": "ICML"}], path="b.json"
    )
    assert bib[0].year == 2021 and bib[0].venue == "ICML"
    with pytest.raises(DataError) as exc:
        parse_grobid_bib([{"title": 5}], path="b.json")
    assert exc.value.field == "[0].title"
    with pytest.raises(DataError, match="expected a list"):
        parse_grobid_bib({"title": "T"}, path="b.json")


def _check_folder(vf: VenueFolder) -> None:
    assert vf.venue_name == "ICLR2024"
    assert vf.paper_ids() == ["a1", "a2", "a3"]
    summary = vf.scraping_summary()
    assert summary is not None and (summary.total_processed, summary.total_failed) == (3, 1)
    paper, reviews = vf.paper("a1")
    assert paper.title == "Paper a1"
    assert paper.decision.kind == DecisionKind.ACCEPT_ORAL
    assert paper.meta_review == "The paper introduces an any-to-any multimodal LLM."
    assert [s.name for s in paper.sections] == ["1 Introduction", "2 Method"]
    assert paper.bibliography[0].title == "Visual instruction tuning"
    assert paper.full_text == "## Introduction\nGROBID a1"
    assert [r.reviewer_id for r in reviews] == ["Human_1", "Human_2"]
    assert reviews[1].scores["Rating"] == pytest.approx(7 / 9)
    # a2: malformed TEI → counted skip, bibliography falls back to grobid_bib JSON
    paper2, _ = vf.paper("a2")
    assert paper2.sections == [] and paper2.bibliography[0].year == 2023
    assert vf.skips.by_field() == {"-": 1}
    assert "a2.grobid.tei.xml" in vf.skips.skips[0].path
    # a3: no GROBID output at all → plain txt
    paper3, _ = vf.paper("a3")
    assert paper3.full_text == "Plain text of a3." and paper3.bibliography == []
    report = vf.grobid_report()
    assert report.present == {"metadata": 2, "bib": 2, "tei": 1, "fulltext": 2}
    assert report.malformed == {"tei": ["a2"]}
    assert report.missing == {k: ["a3"] for k in ("metadata", "bib", "tei", "fulltext")}
    assert vf.grobid_bibtex("a1") == "@article{b0, title={Visual}}"
    assert vf.grobid_metadata("a1").title == "NExT-GPT"  # type: ignore[union-attr]


def test_folder(venue_dir: Path) -> None:
    _check_folder(VenueFolder(venue_dir))


def test_zip_read_in_place(venue_dir: Path, tmp_path: Path) -> None:
    zpath = zip_folder(venue_dir, tmp_path / "ICLR_2024.zip")
    with VenueFolder(zpath) as vf:
        _check_folder(vf)
        assert "ICLR_2024.zip!ICLR_2024/json/a1.json" in (vf.paper("a1")[0].source_path or "")
    assert not (tmp_path / "ICLR_2024" / "json").exists()  # nothing was extracted


def test_zip_with_escaping_member_is_ignored_and_counted(venue_dir: Path, tmp_path: Path) -> None:
    zpath = zip_folder(venue_dir, tmp_path / "ICLR_2024.zip", extra={"../evil.json": b"{}"})
    with VenueFolder(zpath) as vf:
        assert vf.paper_ids() == ["a1", "a2", "a3"]
        assert [s.record for s in vf.skips.skips] == ["../evil.json"]


def test_unsafe_member_names() -> None:
    assert unsafe_member("../x") and unsafe_member("a/../../x") and unsafe_member("/etc/passwd")
    assert unsafe_member("C:/x") and unsafe_member("a\\..\\b")
    assert not unsafe_member("ICLR_2024/json/a..b.json")


@pytest.mark.parametrize(
    ("content", "match"),
    [
        (b'{"Decision": "Reject", "reviews": [', "invalid JSON"),
        (b"", "empty JSON"),
        (b'{"Decision": "Reject", "title": "caf\xe9"}', "not valid UTF-8"),
        (b"[1, 2]", "expected an object"),
    ],
)
def test_bad_paper_json_is_a_counted_skip(venue_dir: Path, content: bytes, match: str) -> None:
    (venue_dir / "json" / "a2.json").write_bytes(content)
    vf = VenueFolder(venue_dir)
    got = [p.paper_id for p, _ in vf.iter_papers(with_text=False)]
    assert got == ["a1", "a3"]
    (skip,) = vf.skips.skips
    assert skip.record == "a2" and match in skip.message and skip.path.endswith("json/a2.json")
    with pytest.raises(DataError, match=match):
        VenueFolder(venue_dir, strict=True).paper("a2")


def test_wrong_types_in_paper_json(venue_dir: Path) -> None:
    rec = json.loads((venue_dir / "json" / "a1.json").read_text())
    rec["reviews"][0]["Weaknesses"] = 42  # a number in a text field (lists of strings are joined)
    rec["Meta review"] = 42
    (venue_dir / "json" / "a1.json").write_text(json.dumps(rec))
    vf = VenueFolder(venue_dir)
    paper, reviews = vf.paper("a1", with_text=False)
    assert [r.reviewer_id for r in reviews] == ["Human_2"]  # ids keep their position
    assert paper.meta_review is None
    assert vf.skips.by_field() == {"Meta review": 1, "reviews[0].Weaknesses": 1}


def test_bad_scraping_summary_and_missing_path(venue_dir: Path, tmp_path: Path) -> None:
    (venue_dir / "scraping_summary.json").write_text('{"paper_ids": "a1"}')
    with pytest.raises(DataError) as exc:
        VenueFolder(venue_dir).scraping_summary()
    assert exc.value.field == "paper_ids"
    with pytest.raises(DataError, match="no such folder"):
        VenueFolder(tmp_path / "nope")
    bad = tmp_path / "ICLR_2025.zip"
    bad.write_bytes(b"PK\x03\x04 truncated")
    with pytest.raises(DataError, match="not a readable folder or zip"):
        VenueFolder(bad)


def test_ids_fall_back_to_summary(tmp_path: Path) -> None:
    v = tmp_path / "NeurIPS_2025"
    v.mkdir()
    (v / "scraping_summary.json").write_text(json.dumps({"paper_ids": ["z", "y"]}))
    vf = VenueFolder(v)
    assert vf.venue_name == "NeurIPS2025" and vf.paper_ids() == ["y", "z"]


def test_corrupt_zip_member_is_a_data_error(venue_dir: Path, tmp_path: Path) -> None:
    zpath = zip_folder(venue_dir, tmp_path / "ICLR_2024.zip")
    raw = bytearray(zpath.read_bytes())
    with zipfile.ZipFile(zpath) as zf:
        info = zf.getinfo("ICLR_2024/txt/a3.txt")
    start = info.header_offset + 30 + len(info.filename) + len(info.extra)
    raw[start] ^= 0xFF  # flip a byte of the compressed data
    zpath.write_bytes(bytes(raw))
    with VenueFolder(zpath) as vf:
        paper, _ = vf.paper("a3")
        assert paper.full_text == ""
        assert len(vf.skips) == 1 and "a3.txt" in vf.skips.skips[0].path


def test_nougat_fallback_and_folder_counts(venue_dir: Path) -> None:
    (venue_dir / "txt" / "a3.txt").unlink()
    (venue_dir / "paper_nougat_mmd").mkdir()
    (venue_dir / "paper_nougat_mmd" / "a3.mmd").write_text(
        "# NExT-GPT\n\nMathpix markdown.", encoding="utf-8"
    )
    vf = VenueFolder(venue_dir)
    assert vf.paper("a3")[0].full_text.startswith("# NExT-GPT")
    assert vf.folder_counts() == {"json": 3, "txt": 2, "grobid_metadata": 2, "grobid_bib": 4, "grobid_tei": 2,
                                  "grobid_fulltext": 2, "paper_nougat_mmd": 1}  # fmt: skip
