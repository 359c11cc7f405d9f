"""Download the hub datasets prism-review reads, with resume, progress and safe extraction.

``prism data download NAME`` fetches a dataset's files from the Hugging Face hub's plain
``/resolve/`` URLs with :mod:`httpx` (no ``huggingface_hub`` needed):

- the endpoint is ``https://huggingface.co`` unless ``PRISM_HF_ENDPOINT`` / ``HF_ENDPOINT`` or
  the ``endpoint`` argument say otherwise (tests point it at a loopback server);
- ``HF_TOKEN`` (or ``token=``) is sent as a bearer token (httpx drops it on cross-host redirects);
- bytes go to ``<file>.part``; an interrupted transfer resumes with a ``Range`` request, both on
  automatic retry and when the command is run again;
- zips are extracted only after every member has been checked to stay inside the target folder;
- an unreachable host gives :class:`OfflineError` with what to do instead.
"""

from __future__ import annotations

import os
import stat
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from fnmatch import fnmatch
from pathlib import Path
from urllib.parse import quote

import httpx

from prism_review.data.errors import DataError
from prism_review.data.safepath import unsafe_member

DEFAULT_ENDPOINT = "https://huggingface.co"


@dataclass(frozen=True)
class DatasetSpec:
    """A downloadable dataset: its hub repo and which files to fetch."""

    repo: str
    description: str
    files: tuple[str, ...] = ()  # fixed files; empty → list the repo and keep ``patterns``
    patterns: tuple[str, ...] = ()
    extract: bool = False


DATASETS: dict[str, DatasetSpec] = {
    "prism-corpus": DatasetSpec(
        "anoyresearcher/prism_paper_data", "PRISM corpus table (1.8 GB)", files=("papers.parquet",)
    ),
    "prism-demo": DatasetSpec(
        "anoyresearcher/prism_paper_data",
        "PRISM 1,000-paper evaluation layout with LLM reviews",
        files=("demo_data.zip",),
        extract=True,
    ),
    "proreviewer": DatasetSpec(
        "UKPLab/ProReviewer-Dataset",
        "ProReviewer (MIT): ICLR with initial ratings",
        patterns=("*.parquet",),
    ),
    "perturbation": DatasetSpec(
        "ChicagoHAI/openaireview-perturbation",
        "OpenAIReview perturbation benchmark",
        patterns=("*.parquet", "*.jsonl"),
    ),
}


class DownloadError(RuntimeError):
    """A download failed; the message says why and what to try."""


class OfflineError(DownloadError):
    """The hub could not be reached at all."""


class UnsafeArchiveError(DataError):
    """A zip member would land outside the extraction folder (``../``, absolute, symlink)."""


def endpoint_url(endpoint: str | None = None) -> str:
    """The hub base URL: argument, then ``PRISM_HF_ENDPOINT``, ``HF_ENDPOINT``, the default."""
    url = endpoint or os.environ.get("PRISM_HF_ENDPOINT") or os.environ.get("HF_ENDPOINT")
    return (url or DEFAULT_ENDPOINT).rstrip("/")


def resolve_url(endpoint: str, repo: str, filename: str, revision: str = "main") -> str:
    """``<endpoint>/datasets/<repo>/resolve/<revision>/<file>``."""
    return f"{endpoint}/datasets/{repo}/resolve/{quote(revision, safe='')}/{quote(filename)}"


def _offline(url: str, exc: Exception) -> OfflineError:
    host = httpx.URL(url).host
    return OfflineError(
        f"cannot reach {host} ({type(exc).__name__}: {exc}); you appear to be offline; "
        "download on a connected machine and pass --data"
    )


def _status_error(url: str, status: int) -> DownloadError:
    if status in (401, 403):
        return DownloadError(
            f"{url}: access denied (HTTP {status}); set HF_TOKEN if the dataset is gated"
        )
    if status == 404:
        return DownloadError(f"{url}: not found (HTTP 404)")
    return DownloadError(f"{url}: HTTP {status}")


def list_repo_files(
    client: httpx.Client, endpoint: str, repo: str, revision: str = "main"
) -> list[str]:
    """Every file path in a dataset repo, from the hub's tree API (following ``Link: next`` pages)."""
    url: str | None = (
        f"{endpoint}/api/datasets/{repo}/tree/{quote(revision, safe='')}?recursive=true"
    )
    paths: list[str] = []
    while url:
        try:
            resp = client.get(url)
        except (httpx.ConnectError, httpx.ConnectTimeout) as exc:
            raise _offline(url, exc) from exc
        if resp.status_code != 200:
            raise _status_error(url, resp.status_code)
        try:
            items = resp.json()
        except ValueError as exc:
            raise DownloadError(f"{url}: the file listing is not JSON") from exc
        if not isinstance(items, list):
            raise DownloadError(f"{url}: the file listing is not a list")
        paths += [
            i["path"]
            for i in items
            if isinstance(i, dict) and i.get("type") == "file" and "path" in i
        ]
        nxt = resp.links.get("next", {}).get("url")
        url = str(resp.url.join(nxt)) if nxt else None
    return paths


ProgressFn = Callable[[int, int | None], None]  # (bytes so far, total or None)


def download_file(
    client: httpx.Client,
    url: str,
    dest: Path,
    *,
    retries: int = 3,
    progress: ProgressFn | None = None,
) -> Path:
    """Fetch ``url`` into ``dest`` through ``dest.part``, resuming after interruptions."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    part = dest.with_name(dest.name + ".part")
    last: Exception | None = None
    for _ in range(retries + 1):
        try:
            if _fetch(client, url, part, progress):
                part.replace(dest)
                return dest
        except (httpx.ConnectError, httpx.ConnectTimeout) as exc:
            if not part.exists() or part.stat().st_size == 0:
                raise _offline(url, exc) from exc
            last = exc
        except (httpx.ReadError, httpx.RemoteProtocolError, httpx.ReadTimeout) as exc:
            last = exc
    have = part.stat().st_size if part.exists() else 0
    raise DownloadError(
        f"{url}: transfer interrupted after {have} bytes ({last}); run the same command again to resume"
    )


def _fetch(client: httpx.Client, url: str, part: Path, progress: ProgressFn | None) -> bool:
    """One attempt; True when ``part`` now holds the whole file."""
    have = part.stat().st_size if part.exists() else 0
    # identity encoding: byte offsets of the stored file and of the transfer must agree
    headers = {"Accept-Encoding": "identity"}
    if have:
        headers["Range"] = f"bytes={have}-"
    with client.stream("GET", url, headers=headers) as resp:
        if resp.status_code == 416:  # asked for bytes past the end: the part is complete or stale
            total = resp.headers.get("content-range", "").rpartition("/")[2]
            if total.isdigit() and int(total) == have:
                return True
            part.unlink()
            return False
        if resp.status_code == 206:
            mode = "ab"
        elif resp.status_code == 200:
            mode, have = "wb", 0
        else:
            raise _status_error(url, resp.status_code)
        length = resp.headers.get("content-length")
        total = have + int(length) if length and length.isdigit() else None
        got = have
        with open(part, mode) as fh:
            for chunk in resp.iter_raw():  # written as it arrives, so a cut keeps it
                fh.write(chunk)
                got += len(chunk)
                if progress:
                    progress(got, total)
    if total is not None and got != total:
        raise httpx.ReadError(f"got {got} of {total} bytes")
    return True


def safe_extract(archive: Path, target: Path) -> list[Path]:
    """Extract ``archive`` into ``target`` after checking every member; return the files written.

    Raises :class:`UnsafeArchiveError` (nothing written) when any member is absolute, climbs out
    with ``..``, is a symlink, or otherwise resolves outside ``target``.
    """
    target.mkdir(parents=True, exist_ok=True)
    root = target.resolve()
    try:
        zf = zipfile.ZipFile(archive)
    except (OSError, zipfile.BadZipFile) as exc:
        raise DataError(archive, f"not a readable zip: {exc}") from exc
    with zf:
        for info in zf.infolist():
            dest = (root / info.filename).resolve()
            mode = info.external_attr >> 16
            if (
                unsafe_member(info.filename)
                or stat.S_ISLNK(mode)
                or (dest != root and root not in dest.parents)
            ):
                raise UnsafeArchiveError(
                    archive,
                    f"refusing to extract: member {info.filename!r} would be written outside {target}",
                    field=info.filename,
                )
        written = []
        for info in zf.infolist():
            zf.extract(info, root)
            if not info.is_dir():
                written.append(root / info.filename)
    return written


def download_dataset(
    name: str,
    dest: Path,
    *,
    endpoint: str | None = None,
    token: str | None = None,
    revision: str = "main",
    extract: bool = True,
    keep_zip: bool = False,
    timeout: float = 60.0,
    progress: Callable[[str], ProgressFn] | None = None,
) -> list[Path]:
    """Download dataset ``name`` (a key of :data:`DATASETS`) into ``dest``; return its paths.

    ``progress(filename)`` may return a callback fed with (bytes so far, total).
    """
    if name not in DATASETS:
        raise KeyError(f"unknown dataset {name!r}; known: {', '.join(DATASETS)}")
    spec = DATASETS[name]
    base = endpoint_url(endpoint)
    token = token if token is not None else os.environ.get("HF_TOKEN")
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    out: list[Path] = []
    with httpx.Client(headers=headers, follow_redirects=True, timeout=timeout) as client:
        files = list(spec.files)
        if not files:
            listed = list_repo_files(client, base, spec.repo, revision)
            files = [
                f for f in listed if any(fnmatch(f.rsplit("/", 1)[-1], p) for p in spec.patterns)
            ]
            if not files:
                raise DownloadError(f"{spec.repo}: no files match {', '.join(spec.patterns)}")
        for filename in files:
            target = dest / filename
            if unsafe_member(filename):
                raise DownloadError(f"{spec.repo}: refusing file name {filename!r}")
            if not target.exists():
                url = resolve_url(base, spec.repo, filename, revision)
                download_file(
                    client, url, target, progress=progress(filename) if progress else None
                )
            if spec.extract and extract and target.suffix == ".zip":
                out.extend(safe_extract(target, dest))
                if not keep_zip:
                    target.unlink()
            else:
                out.append(target)
    return out
