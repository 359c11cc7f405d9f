"""Hub downloads against a loopback HTTP server: resume, auth, listing, offline, zip safety."""

from __future__ import annotations

import io
import socket
import zipfile
from pathlib import Path

import httpx
import pytest
from data_shapes import Hub

from prism_review.data.download import (
    DownloadError,
    OfflineError,
    UnsafeArchiveError,
    download_dataset,
    download_file,
    resolve_url,
    safe_extract,
)

PAYLOAD = bytes(range(256)) * 400  # 102,400 bytes


def make_zip(members: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return buf.getvalue()


def test_download_whole_file_with_token_and_progress(hub: tuple[Hub, str], tmp_path: Path) -> None:
    state, url = hub
    state.files["anoyresearcher/prism_paper_data/papers.parquet"] = PAYLOAD
    state.require_token = "sekrit"
    seen: list[tuple[int, int | None]] = []
    paths = download_dataset(
        "prism-corpus",
        tmp_path,
        endpoint=url,
        token="sekrit",
        progress=lambda name: lambda g, t: seen.append((g, t)),
    )
    assert paths == [tmp_path / "papers.parquet"]
    assert paths[0].read_bytes() == PAYLOAD and not (tmp_path / "papers.parquet.part").exists()
    assert seen[-1] == (len(PAYLOAD), len(PAYLOAD))
    assert state.requests[0]["auth"] == "Bearer sekrit"


def test_missing_token_is_access_denied(hub: tuple[Hub, str], tmp_path: Path) -> None:
    state, url = hub
    state.files["anoyresearcher/prism_paper_data/papers.parquet"] = PAYLOAD
    state.require_token = "sekrit"
    with pytest.raises(DownloadError, match="access denied.*HF_TOKEN"):
        download_dataset("prism-corpus", tmp_path, endpoint=url, token="")


def test_resume_after_interrupted_transfer(hub: tuple[Hub, str], tmp_path: Path) -> None:
    state, url = hub
    state.files["r/x.bin"] = PAYLOAD
    state.cut_after = 30_000
    dest = tmp_path / "x.bin"
    with httpx.Client() as client:
        download_file(client, resolve_url(url, "r", "x.bin"), dest)
    assert dest.read_bytes() == PAYLOAD
    assert [r["range"] for r in state.requests] == [None, "bytes=30000-"]


def test_resume_from_existing_part_file_and_give_up_message(
    hub: tuple[Hub, str], tmp_path: Path
) -> None:
    state, url = hub
    state.files["r/x.bin"] = PAYLOAD
    dest = tmp_path / "x.bin"
    (tmp_path / "x.bin.part").write_bytes(PAYLOAD[:50_000])
    with httpx.Client() as client:
        download_file(client, resolve_url(url, "r", "x.bin"), dest)
        assert dest.read_bytes() == PAYLOAD
        assert state.requests[-1]["range"] == "bytes=50000-"
        # a part that is already complete: the server answers 416 and the part is kept
        (tmp_path / "y.bin.part").write_bytes(PAYLOAD)
        state.files["r/y.bin"] = PAYLOAD
        download_file(client, resolve_url(url, "r", "y.bin"), tmp_path / "y.bin")
        assert (tmp_path / "y.bin").read_bytes() == PAYLOAD
        # a server that ignores Range restarts from zero instead of appending twice
        state.ignore_range = True
        (tmp_path / "z.bin.part").write_bytes(b"stale")
        state.files["r/z.bin"] = PAYLOAD
        download_file(client, resolve_url(url, "r", "z.bin"), tmp_path / "z.bin")
        assert (tmp_path / "z.bin").read_bytes() == PAYLOAD
        state.ignore_range = False
        # interrupted on every attempt: a clear message, the part kept for next time
        state.files["r/w.bin"] = PAYLOAD
        state.cut_after = 10_000
        with pytest.raises(DownloadError, match="run the same command again to resume"):
            download_file(client, resolve_url(url, "r", "w.bin"), tmp_path / "w.bin", retries=0)
        assert (tmp_path / "w.bin.part").stat().st_size == 10_000


def test_listing_based_dataset_and_404(hub: tuple[Hub, str], tmp_path: Path) -> None:
    state, url = hub
    state.files["UKPLab/ProReviewer-Dataset/data/train-00000-of-00001.parquet"] = b"train"
    state.files["UKPLab/ProReviewer-Dataset/data/test-00000-of-00001.parquet"] = b"test"
    state.files["UKPLab/ProReviewer-Dataset/README.md"] = b"card"
    state.page_size = 1  # the test file is only on the second page
    paths = download_dataset("proreviewer", tmp_path, endpoint=url)
    assert sorted(p.relative_to(tmp_path).as_posix() for p in paths) == [
        "data/test-00000-of-00001.parquet",
        "data/train-00000-of-00001.parquet",
    ]
    assert sum("cursor=p2" in r["path"] for r in state.requests) == 1
    with pytest.raises(DownloadError, match="not found"):
        download_dataset("prism-corpus", tmp_path / "c", endpoint=url)
    with pytest.raises(KeyError, match="known: prism-corpus"):
        download_dataset("nope", tmp_path, endpoint=url)


def test_demo_zip_is_extracted_and_removed(hub: tuple[Hub, str], tmp_path: Path) -> None:
    state, url = hub
    zdata = make_zip(
        {"input/ICLR2024/papers/a.txt": b"paper", "input/ICLR2024/sea/a.txt": b"review"}
    )
    state.files["anoyresearcher/prism_paper_data/demo_data.zip"] = zdata
    paths = download_dataset("prism-demo", tmp_path, endpoint=url)
    assert sorted(p.relative_to(tmp_path).as_posix() for p in paths) == [
        "input/ICLR2024/papers/a.txt",
        "input/ICLR2024/sea/a.txt",
    ]
    assert not (tmp_path / "demo_data.zip").exists()


@pytest.mark.parametrize("bad", ["../evil.txt", "ok/../../evil.txt", "/abs/evil.txt"])
def test_malicious_zip_is_refused_before_writing(tmp_path: Path, bad: str) -> None:
    archive = tmp_path / "demo_data.zip"
    archive.write_bytes(make_zip({"input/a.txt": b"fine", bad: b"pwned"}))
    target = tmp_path / "out" / "inner"
    with pytest.raises(UnsafeArchiveError, match="refusing to extract") as exc:
        safe_extract(archive, target)
    assert exc.value.field == bad
    assert not (target / "input" / "a.txt").exists()  # nothing was written
    assert not (tmp_path / "out" / "evil.txt").exists() and not (tmp_path / "evil.txt").exists()


def test_symlink_member_is_refused(tmp_path: Path) -> None:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        info = zipfile.ZipInfo("link")
        info.external_attr = 0o120777 << 16
        zf.writestr(info, "/etc/passwd")
    archive = tmp_path / "s.zip"
    archive.write_bytes(buf.getvalue())
    with pytest.raises(UnsafeArchiveError):
        safe_extract(archive, tmp_path / "out")


def test_offline_message(tmp_path: Path) -> None:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()  # nothing listens here now
    with pytest.raises(
        OfflineError,
        match="you appear to be offline; download on a connected machine and pass --data",
    ):
        download_dataset("prism-corpus", tmp_path, endpoint=f"http://127.0.0.1:{port}")
    with pytest.raises(OfflineError, match="cannot reach 127.0.0.1"):
        download_dataset("perturbation", tmp_path, endpoint=f"http://127.0.0.1:{port}")


def test_endpoint_from_environment(
    hub: tuple[Hub, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    state, url = hub
    state.files["anoyresearcher/prism_paper_data/papers.parquet"] = b"x"
    monkeypatch.setenv("PRISM_HF_ENDPOINT", url + "/")
    monkeypatch.setenv("HF_TOKEN", "envtok")
    download_dataset("prism-corpus", tmp_path)
    assert state.requests[0]["auth"] == "Bearer envtok"
