"""Hub downloads through huggingface_hub against a loopback hub (HF_ENDPOINT-style endpoint):
cache, resume, auth, listing, offline mode, zip safety."""

from __future__ import annotations

import io
import socket
import zipfile
from pathlib import Path

import pytest
from data_shapes import Hub

from prism_review.data.download import (
    DownloadError,
    OfflineError,
    UnsafeArchiveError,
    download_dataset,
    safe_extract,
)

PAYLOAD = bytes(range(256)) * 400  # 102,400 bytes


def make_zip(members: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return buf.getvalue()


def test_download_with_token_into_the_shared_cache(hub: tuple[Hub, str], tmp_path: Path) -> None:
    state, url = hub
    state.files["anoyresearcher/prism_paper_data/papers.parquet"] = PAYLOAD
    state.require_token = "sekrit"
    paths = download_dataset("prism-corpus", tmp_path / "d", endpoint=url, token="sekrit")
    assert paths == [tmp_path / "d" / "papers.parquet"] and paths[0].read_bytes() == PAYLOAD
    assert all(r["auth"] == "Bearer sekrit" for r in state.requests)
    cached = list((tmp_path / "hf-cache").rglob("papers.parquet"))
    assert cached and cached[0].read_bytes() == PAYLOAD  # in the HF cache other tools share
    # a second download (another folder) is served from the cache: metadata only, no bytes
    n_get = sum(r["method"] == "GET" for r in state.requests)
    download_dataset("prism-corpus", tmp_path / "e", endpoint=url, token="sekrit")
    assert (tmp_path / "e" / "papers.parquet").read_bytes() == PAYLOAD
    assert sum(r["method"] == "GET" for r in state.requests) == n_get


def test_missing_token_is_access_denied(hub: tuple[Hub, str], tmp_path: Path) -> None:
    state, url = hub
    state.files["anoyresearcher/prism_paper_data/papers.parquet"] = PAYLOAD
    state.require_token = "sekrit"
    with pytest.raises(DownloadError, match="access denied.*HF_TOKEN"):
        download_dataset("prism-corpus", tmp_path, endpoint=url, token="")


def test_interrupted_transfer_resumes_with_a_range_request(hub: tuple[Hub, str], tmp_path: Path) -> None:
    state, url = hub
    big = bytes(range(256)) * 100_000  # 25.6 MB: more than one of the library's 10 MB chunks
    state.files["anoyresearcher/prism_paper_data/papers.parquet"] = big
    state.cut_after = 12_000_000  # the first transfer is cut after one chunk was written
    paths = download_dataset("prism-corpus", tmp_path / "d", endpoint=url)
    assert paths[0].read_bytes() == big
    gets = [r["range"] for r in state.requests if r["method"] == "GET"]
    assert gets[0] is None and len(gets) == 2
    offset = int(gets[1].removeprefix("bytes=").rstrip("-"))
    assert 0 < offset <= 12_000_000  # resumed where the written bytes end, not from zero


def test_listing_based_dataset_and_404(hub: tuple[Hub, str], tmp_path: Path) -> None:
    state, url = hub
    state.files["UKPLab/ProReviewer-Dataset/data/train-00000-of-00001.parquet"] = b"train"
    state.files["UKPLab/ProReviewer-Dataset/data/test-00000-of-00001.parquet"] = b"test"
    state.files["UKPLab/ProReviewer-Dataset/README.md"] = b"card"
    state.page_size = 1  # the test file is only on the second page
    paths = download_dataset("proreviewer", tmp_path / "d", endpoint=url)
    assert sorted(p.relative_to(tmp_path / "d").as_posix() for p in paths) == [
        "data/test-00000-of-00001.parquet",
        "data/train-00000-of-00001.parquet",
    ]
    assert sum("cursor=p2" in r["path"] for r in state.requests) == 1
    with pytest.raises(DownloadError, match="not found"):
        download_dataset("prism-corpus", tmp_path / "c", endpoint=url)
    with pytest.raises(KeyError, match=r"known \(closest first\): .*prism-corpus"):
        download_dataset("nope", tmp_path, endpoint=url)


def test_demo_zip_is_extracted_and_kept_only_in_the_cache(hub: tuple[Hub, str], tmp_path: Path) -> None:
    state, url = hub
    zdata = make_zip(
        {"input/ICLR2024/papers/a.txt": b"paper", "input/ICLR2024/sea/a.txt": b"review"}
    )
    state.files["anoyresearcher/prism_paper_data/demo_data.zip"] = zdata
    dest = tmp_path / "d"
    paths = download_dataset("prism-demo", dest, endpoint=url)
    assert sorted(p.relative_to(dest).as_posix() for p in paths) == [
        "input/ICLR2024/papers/a.txt",
        "input/ICLR2024/sea/a.txt",
    ]
    assert not (dest / "demo_data.zip").exists()
    download_dataset("prism-demo", tmp_path / "k", endpoint=url, keep_zip=True)
    assert (tmp_path / "k" / "demo_data.zip").read_bytes() == zdata


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


def _closed_port() -> int:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()  # nothing listens here now
    return int(port)


def test_offline_message(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{_closed_port()}"
    with pytest.raises(OfflineError, match="you appear to be offline.*pass --data"):
        download_dataset("prism-corpus", tmp_path, endpoint=url)
    with pytest.raises(OfflineError, match="cannot reach http://127.0.0.1"):
        download_dataset("perturbation", tmp_path, endpoint=url)


def test_offline_mode_serves_the_cache(
    hub: tuple[Hub, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    state, url = hub
    state.files["anoyresearcher/prism_paper_data/papers.parquet"] = PAYLOAD
    download_dataset("prism-corpus", tmp_path / "d", endpoint=url)
    n = len(state.requests)
    import huggingface_hub.constants as hc

    monkeypatch.setattr(hc, "HF_HUB_OFFLINE", True)  # what HF_HUB_OFFLINE=1 sets at import
    download_dataset("prism-corpus", tmp_path / "e", endpoint=url)
    assert (tmp_path / "e" / "papers.parquet").read_bytes() == PAYLOAD
    assert len(state.requests) == n  # no request at all
    with pytest.raises(OfflineError, match="not in the Hugging Face cache"):
        download_dataset("prism-demo", tmp_path / "f", endpoint=url)


def test_endpoint_and_token_from_environment(
    hub: tuple[Hub, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    state, url = hub
    state.files["anoyresearcher/prism_paper_data/papers.parquet"] = b"x"
    monkeypatch.setenv("PRISM_HF_ENDPOINT", url + "/")
    monkeypatch.setenv("HF_TOKEN", "envtok")
    download_dataset("prism-corpus", tmp_path)
    assert state.requests[0]["auth"] == "Bearer envtok"
