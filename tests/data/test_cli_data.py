"""``prism data`` commands end to end (CliRunner; downloads against a loopback server)."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest
from data_shapes import Hub, zip_folder
from typer.testing import CliRunner

from prism_review.cli import app

runner = CliRunner()


def test_validate_prints_every_problem_and_exits_1(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import prism_review.data.layout_check as layout

    seen: dict[str, object] = {}

    def fake(root: Path, *, venues: list[str] | None = None, **kw: object) -> list[SimpleNamespace]:
        seen.update(root=root, venues=venues, **kw)
        return [
            SimpleNamespace(path="ICLR2024/sea", field=None, message="missing paper a1"),
            SimpleNamespace(
                path="ICLR2024/tree/a2_review.json", field="full_review", message="empty string"
            ),
        ]

    monkeypatch.setattr(layout, "validate_layout", fake)
    res = runner.invoke(app, ["data", "validate", str(tmp_path), "--venue", "ICLR2024"])
    assert res.exit_code == 1
    assert "ICLR2024/sea: missing paper a1" in res.stdout
    assert "ICLR2024/tree/a2_review.json [full_review]: empty string" in res.stdout
    assert seen.pop("skips") == []  # the counted-skips channel (nothing skipped here)
    assert seen == {"root": tmp_path, "venues": ["ICLR2024"], "require_all_systems": False}
    monkeypatch.setattr(layout, "validate_layout", lambda root, **kw: [])
    res = runner.invoke(app, ["data", "validate", str(tmp_path)])
    assert res.exit_code == 0


def test_validate_with_the_real_checker_on_an_empty_folder(tmp_path: Path) -> None:
    res = runner.invoke(app, ["data", "validate", str(tmp_path)])
    assert res.exit_code == 1 and res.stdout.strip()


def test_sample_writes_manifest_deterministically(corpus_parquet: Path, tmp_path: Path) -> None:
    args = [
        "data",
        "sample",
        str(corpus_parquet),
        "--seed",
        "5",
        "--size",
        "2",
        "--venue-size",
        "ICLR2025=1",
    ]
    r1 = runner.invoke(app, [*args, "--out", str(tmp_path / "a")])
    r2 = runner.invoke(app, [*args, "--out", str(tmp_path / "b")])
    assert r1.exit_code == 0 and r2.exit_code == 0, r1.output
    assert sorted(p.name for p in (tmp_path / "a").iterdir()) == [
        "paper_ids_1_iclr2025.txt", "paper_ids_1_icml2025.txt", "paper_ids_1_neurips2025.txt",
        "paper_ids_2_iclr2024.txt", "sample_manifest.json",
    ]  # fmt: skip
    for p in (tmp_path / "a").iterdir():
        assert p.read_bytes() == (tmp_path / "b" / p.name).read_bytes()
    doc = json.loads((tmp_path / "a" / "sample_manifest.json").read_text())
    assert doc["seed"] == 5 and doc["source"] == "papers.parquet"
    assert (
        doc["venues"]["ICLR2024"]["allocated"]["oral"] == 1
    )  # oral 1, reject 1 (pending excluded)
    assert doc["venues"]["ICML2025"]["shortfall"] == 1
    bad = runner.invoke(
        app, ["data", "sample", str(corpus_parquet), "--out", str(tmp_path), "--venue-size", "x"]
    )
    assert bad.exit_code != 0


def test_info_on_each_kind(corpus_parquet: Path, venue_dir: Path, tmp_path: Path) -> None:
    res = runner.invoke(app, ["data", "info", str(corpus_parquet)])
    facts = json.loads(res.stdout)
    assert facts["kind"] == "prism-corpus" and facts["rows"] == 7 and facts["columns"] == 31
    assert facts["by_venue_decision"]["ICLR2024 pending"] == 1
    z = zip_folder(venue_dir, tmp_path / "ICLR_2024.zip")
    facts = json.loads(runner.invoke(app, ["data", "info", str(z)]).stdout)
    assert facts["kind"] == "venue-folder" and facts["papers"] == 3
    assert "tei: 1 ok, 1 missing, 1 malformed" in facts["grobid"]
    jl = tmp_path / "dev.jsonl"
    jl.write_text(json.dumps({"id": "a__surface", "arxiv_id": "a", "error_type": "surface",
                              "error_category": "Surface", "perturbed_paper": "", "perturbations": []}) + "\n")  # fmt: skip
    facts = json.loads(runner.invoke(app, ["data", "info", str(jl)]).stdout)
    assert facts["kind"] == "perturbation" and facts["text_withheld"] == 1
    res = runner.invoke(app, ["data", "info", str(tmp_path / "nothing")])
    assert res.exit_code == 1


def test_download_offline_message(tmp_path: Path) -> None:
    import socket

    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    res = runner.invoke(app, ["data", "download", "prism-corpus", "--dest", str(tmp_path),
                              "--endpoint", f"http://127.0.0.1:{port}"])  # fmt: skip
    assert res.exit_code == 1
    assert "offline" in " ".join(res.output.split())
    res = runner.invoke(app, ["data", "download", "nope", "--dest", str(tmp_path)])
    assert res.exit_code == 2


def test_download_command_extracts_and_refuses_malicious_zip(
    hub: tuple[Hub, str], tmp_path: Path
) -> None:
    import io
    import zipfile

    state, url = hub

    def zip_bytes(members: dict[str, bytes]) -> bytes:
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w") as zf:
            for name, data in members.items():
                zf.writestr(name, data)
        return buf.getvalue()

    key = "anoyresearcher/prism_paper_data/demo_data.zip"
    state.files[key] = zip_bytes({"input/ICLR2024/papers/a.txt": b"paper"})
    res = runner.invoke(
        app, ["data", "download", "prism-demo", "--dest", str(tmp_path / "ok"), "--endpoint", url]
    )
    assert res.exit_code == 0, res.output
    assert (tmp_path / "ok" / "input" / "ICLR2024" / "papers" / "a.txt").read_bytes() == b"paper"
    state.files[key] = zip_bytes({"input/a.txt": b"x", "../../escape.txt": b"pwned"})
    res = runner.invoke(
        app, ["data", "download", "prism-demo", "--dest", str(tmp_path / "bad"), "--endpoint", url]
    )
    assert res.exit_code == 1
    assert (
        "refusing to extract" in " ".join(res.output.split()) and "../../escape.txt" in res.output
    )
    assert not (tmp_path / "escape.txt").exists() and not (tmp_path / "bad" / "input").exists()


def test_info_on_a_layout_counts_reviews_not_files() -> None:
    from prism_review.data.layout import demo_root

    res = runner.invoke(app, ["data", "info", str(demo_root())])
    assert res.exit_code == 0, res.output
    venue = json.loads(res.stdout)["venues"]["ICLR2024"]
    assert venue["papers"] == 21
    # one reviews.jsonl file per LLM system, 20 reviews in each; NExT-GPT has 4 human reviews
    assert venue["systems"]["gpt4"] == {"reviews": 20, "papers": 20}
    assert venue["systems"]["human"] == {"reviews": 4 + 20, "papers": 21}
    assert venue["unreadable_review_files"] == 0
