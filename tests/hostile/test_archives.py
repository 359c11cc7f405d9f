"""Archives (issue 26, kind 6): extraction is bounded in total, member size and ratio, never
overwrites a file the user has, and is all or nothing; zip members read in place are streamed
under the file cap; a member named twice is said, and the first copy is the one read. Small
crafted zips on disk, no network."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from prism_review.data import extract
from prism_review.data.download import _place
from prism_review.data.extract import UnsafeArchiveError, safe_extract
from prism_review.data.venue_folder import VenueFolder
from prism_review.guards import limits
from prism_review.guards.errors import DataError


def _zip(path: Path, members: list[tuple[str, bytes]]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members:
            zf.writestr(name, data)
    return path


def _files(folder: Path) -> list[str]:
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*"))


def test_a_zip_bomb_is_refused_before_writing(tmp_path: Path) -> None:
    archive = _zip(tmp_path / "bomb.zip", [("a.txt", b"fine"), ("zeros.bin", bytes(30 << 20))])
    assert archive.stat().st_size < 100_000
    with pytest.raises(UnsafeArchiveError, match=r"member 'zeros.bin' expands [\d,]+ times .* "
                       r"over the 200x limit \(a zip bomb\?\)"):
        safe_extract(archive, tmp_path / "out")
    assert _files(tmp_path / "out") == []


def test_member_and_total_sizes_are_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    archive = _zip(tmp_path / "a.zip", [("a.txt", b"x" * 80), ("b.txt", b"y" * 80)])
    monkeypatch.setattr(extract, "MAX_TOTAL_BYTES", 100)
    with pytest.raises(UnsafeArchiveError, match="member 'b.txt' takes the archive past the "
                       "100-byte total limit"):
        safe_extract(archive, tmp_path / "out")
    monkeypatch.setattr(extract, "MAX_MEMBER_BYTES", 50)
    with pytest.raises(UnsafeArchiveError, match="member 'a.txt' is 80 bytes, over the 50-byte "
                       "member limit"):
        safe_extract(archive, tmp_path / "out")
    assert _files(tmp_path / "out") == []


def test_an_existing_file_is_never_overwritten(tmp_path: Path) -> None:
    archive = _zip(tmp_path / "a.zip", [("a.txt", b"new a"), ("d/b.txt", b"new b")])
    out = tmp_path / "out"
    (out / "d").mkdir(parents=True)
    (out / "d" / "b.txt").write_bytes(b"mine")
    with pytest.raises(UnsafeArchiveError, match=f"member 'd/b.txt' would overwrite {out}/d/b.txt"):
        safe_extract(archive, out)
    assert (out / "d" / "b.txt").read_bytes() == b"mine" and not (out / "a.txt").exists()
    (out / "d" / "b.txt").write_bytes(b"new b")  # the same bytes: kept, the run goes on
    assert safe_extract(archive, out) == [out / "a.txt", out / "d" / "b.txt"]
    assert (out / "a.txt").read_bytes() == b"new a"


def test_a_member_named_twice_is_refused(tmp_path: Path) -> None:
    archive = tmp_path / "twice.zip"
    with pytest.warns(UserWarning, match="Duplicate name"):
        _zip(archive, [("a.txt", b"one"), ("a.txt", b"two")])
    with pytest.raises(UnsafeArchiveError, match="member 'a.txt' is named twice"):
        safe_extract(archive, tmp_path / "out")


def test_a_damaged_member_leaves_nothing_behind(tmp_path: Path) -> None:
    archive = _zip(tmp_path / "a.zip", [("a.txt", b"A" * 5000), ("b.txt", b"B" * 5000)])
    raw = bytearray(archive.read_bytes())
    with zipfile.ZipFile(archive) as zf:
        info = zf.getinfo("b.txt")
        start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
    raw[start + 2] ^= 0xFF  # b.txt's compressed bytes
    archive.write_bytes(bytes(raw))
    out = tmp_path / "out"
    with pytest.raises(DataError, match=f"cannot extract into {out}: .*the files written were removed"):
        safe_extract(archive, out)
    assert _files(out) == []  # neither a.txt nor the temporary folder


def test_download_never_replaces_a_different_file(tmp_path: Path) -> None:
    cached = tmp_path / "cache" / "papers.parquet"
    cached.parent.mkdir()
    cached.write_bytes(b"downloaded")
    dest = tmp_path / "dest" / "papers.parquet"
    dest.parent.mkdir()
    dest.write_bytes(b"the user's own file")
    with pytest.raises(DataError, match="already exists and differs from the downloaded file"):
        _place(cached, dest)
    assert dest.read_bytes() == b"the user's own file"
    dest.write_bytes(b"downloaded")
    assert _place(cached, dest) == dest


def _venue_zip(path: Path, members: list[tuple[str, bytes]]) -> Path:
    rec = {"title": "T", "reviews": [{"summary": "s"}]}
    base = [("ICLR_2024/scraping_summary.json", b"{}")]
    return _zip(path, base + [(n, d or json.dumps(rec).encode()) for n, d in members])


def test_a_venue_zip_member_over_the_cap_is_refused_by_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    archive = _venue_zip(tmp_path / "ICLR_2024.zip", [("ICLR_2024/json/a.json", b""),
                                                     ("ICLR_2024/txt/a.txt", b"x" * 5000)])
    monkeypatch.setattr(limits, "MAX_FILE_BYTES", 1000)
    with VenueFolder(archive) as vf, pytest.raises(
            DataError, match=r"ICLR_2024.zip!ICLR_2024/txt/a.txt: member is over the 1,000-byte limit"):
        vf.text("a")


def test_a_venue_zip_member_named_twice_reads_the_first_and_says_so(tmp_path: Path) -> None:
    first = json.dumps({"title": "First"}).encode()
    with pytest.warns(UserWarning, match="Duplicate name"):
        archive = _venue_zip(tmp_path / "ICLR_2024.zip", [("ICLR_2024/json/a.json", first),
                                                         ("ICLR_2024/json/a.json", b'{"title": "Second"}')])
    with VenueFolder(archive) as vf:
        assert vf.paper_ids() == ["a"]
        assert vf.record("a")["title"] == "First"  # ZipFile.read by name gave the last copy
        assert [str(s) for s in vf.skips.skips] == [
            f"{archive} [ICLR_2024/json/a.json]: member named twice: the first copy is read, this "
            "one ignored"]


def test_what_opening_a_venue_zip_finds_is_in_the_sources_problems(tmp_path: Path) -> None:
    """The source gave each VenueFolder its log after opening it: the repeated and the unsafe
    member, found while opening, were in a log nobody read (evaluate said nothing)."""
    from prism_review.data.sources import open_source

    with pytest.warns(UserWarning, match="Duplicate name"):
        archive = _venue_zip(tmp_path / "ICLR_2024.zip", [
            ("ICLR_2024/json/a.json", b""), ("ICLR_2024/json/a.json", b'{"title": "Second"}'),
            ("ICLR_2024/txt/a.txt", b"Paper text."), ("../evil.txt", b"x")])
    source = open_source(archive)
    assert [i.paper.title for i in source.items() if i.paper is not None] == ["T"]
    assert [str(p) for p in source.problems()] == [
        f"{archive} [ICLR_2024/json/a.json]: member named twice: the first copy is read, this "
        "one ignored",
        f"{archive} [../evil.txt]: unsafe member name ignored"]
