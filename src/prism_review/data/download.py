"""Download the hub datasets prism-review reads, through ``huggingface_hub``, with safe extraction.

``prism data download NAME`` fetches a dataset's files with ``huggingface_hub.hf_hub_download``
(and ``HfApi.list_repo_files`` for datasets given as file patterns), so it gets what that
library does for every tool: the shared Hugging Face cache (``HF_HUB_CACHE`` / ``HF_HOME``;
a file already there is not fetched again), resumed transfers, ``HF_TOKEN`` authentication,
offline mode (``HF_HUB_OFFLINE=1`` serves files from the cache only) and its own retries.

- the endpoint is ``https://huggingface.co`` unless ``PRISM_HF_ENDPOINT`` / ``HF_ENDPOINT`` or
  the ``endpoint`` argument say otherwise (tests point it at a loopback hub);
- each file is then placed in ``dest`` (a hard link to the cached file where the file system
  allows, else a copy);
- zips are extracted by :func:`~prism_review.data.extract.safe_extract`: bounded (total, member,
  ratio), never over a file the user has, all or nothing;
- an unreachable hub with nothing cached gives :class:`OfflineError` with what to do instead,
  at once: the hub's host is tried once (a TCP connection, :data:`PROBE_TIMEOUT`) before any
  request, and when it cannot be reached, or ``HF_HUB_OFFLINE`` is set, files are served from
  the cache only (``local_files_only``), without the library's retries (which took 20-45 s).
  Behind a proxy (``HTTPS_PROXY`` and the like) the probe is skipped and the library decides.
"""

from __future__ import annotations

import os
import shutil
import socket
from dataclasses import dataclass
from fnmatch import fnmatch
from pathlib import Path
from urllib.parse import urlsplit

from prism_review.data.extract import UnsafeArchiveError as UnsafeArchiveError  # re-exported
from prism_review.data.extract import safe_extract
from prism_review.guards.errors import DataError
from prism_review.guards.safepath import unsafe_member

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


def endpoint_url(endpoint: str | None = None) -> str:
    """The hub base URL: argument, then ``PRISM_HF_ENDPOINT``, ``HF_ENDPOINT``, the default."""
    url = endpoint or os.environ.get("PRISM_HF_ENDPOINT") or os.environ.get("HF_ENDPOINT")
    return (url or DEFAULT_ENDPOINT).rstrip("/")


def _cache_dir() -> str | None:
    """The shared cache the hub library uses, read now (the library reads it at import)."""
    if os.environ.get("HF_HUB_CACHE"):
        return os.environ["HF_HUB_CACHE"]
    if os.environ.get("HF_HOME"):
        return str(Path(os.environ["HF_HOME"]) / "hub")
    return None


def _error(exc: Exception, what: str, endpoint: str) -> DownloadError:
    """The hub library's exception as a message that says what to do."""
    from huggingface_hub.errors import (
        EntryNotFoundError,
        GatedRepoError,
        HfHubHTTPError,
        LocalEntryNotFoundError,
        OfflineModeIsEnabled,
        RepositoryNotFoundError,
        RevisionNotFoundError,
    )

    if isinstance(exc, OfflineModeIsEnabled | LocalEntryNotFoundError):
        return OfflineError(
            f"cannot reach {endpoint} and {what} is not in the Hugging Face cache; you appear to "
            "be offline (or HF_HUB_OFFLINE=1): download on a connected machine and pass --data"
        )
    if isinstance(exc, EntryNotFoundError | RevisionNotFoundError):
        return DownloadError(f"{what}: not found (HTTP 404)")
    status = getattr(getattr(exc, "response", None), "status_code", None)
    if isinstance(exc, GatedRepoError | RepositoryNotFoundError) or status in (401, 403):
        return DownloadError(f"{what}: access denied (HTTP {status}); set HF_TOKEN if the dataset is gated")
    if isinstance(exc, HfHubHTTPError):
        return DownloadError(f"{what}: HTTP {status}")
    return DownloadError(f"{what}: {type(exc).__name__}: {exc}")


#: seconds the one reachability probe of the hub may take
PROBE_TIMEOUT = 3.0
_PROXY_VARS = ("https_proxy", "http_proxy", "all_proxy")


def hub_offline() -> bool:
    """True when the user asked for offline mode (``HF_HUB_OFFLINE``, read now or at import)."""
    from huggingface_hub import constants

    flag = os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in {"1", "true", "yes", "on"}
    return flag or bool(constants.HF_HUB_OFFLINE)


def reachable(base: str, timeout: float = PROBE_TIMEOUT) -> bool:
    """Can a TCP connection to the hub's host be opened? True behind a proxy (not probed)."""
    if any(os.environ.get(v) or os.environ.get(v.upper()) for v in _PROXY_VARS):
        return True
    url = urlsplit(base)
    if not url.hostname:
        return True
    port = url.port or (443 if url.scheme == "https" else 80)
    try:
        socket.create_connection((url.hostname, port), timeout=timeout).close()
    except OSError:
        return False
    return True


def _connection_error(exc: BaseException) -> bool:
    return type(exc).__name__ in {"ConnectError", "ConnectTimeout"} or isinstance(exc, ConnectionError)


def _place(cached: Path, target: Path) -> Path:
    """Put the cached file at ``target``: a hard link when possible, else a copy (written beside
    it, then renamed: a full disk leaves no partial file). A file already at ``target`` is kept
    when it holds the same bytes and refused otherwise: the user's file is never overwritten."""
    import filecmp

    blob = cached.resolve()  # the cache's snapshot entry is a symlink to the blob
    target.parent.mkdir(parents=True, exist_ok=True)
    if target.exists() or target.is_symlink():
        if target.is_file() and (os.path.samefile(blob, target) or filecmp.cmp(blob, target, False)):
            return target
        raise DataError(target, "already exists and differs from the downloaded file (not "
                        "overwritten; move it aside or choose another --dest)")
    try:
        os.link(blob, target)
        return target
    except OSError:
        pass
    part = target.with_name(f".{target.name}.part-{os.getpid()}")
    try:
        shutil.copyfile(blob, part)
        os.replace(part, target)
    except OSError as exc:
        part.unlink(missing_ok=True)
        raise DataError(target, f"cannot write the file ({exc.strerror or exc}; nothing "
                        "left behind)") from exc
    return target


def download_dataset(
    name: str,
    dest: Path,
    *,
    endpoint: str | None = None,
    token: str | None = None,
    revision: str = "main",
    extract: bool = True,
    keep_zip: bool = False,
    cache_dir: str | Path | None = None,
) -> list[Path]:
    """Download dataset ``name`` (a key of :data:`DATASETS`) into ``dest``; return its paths.

    Files go through the shared Hugging Face cache (``cache_dir``, default ``HF_HUB_CACHE``).
    """
    from huggingface_hub import HfApi, hf_hub_download

    if name not in DATASETS:
        from prism_review.names import closest_first

        raise KeyError(f"unknown dataset {name!r}; known (closest first): "
                       f"{', '.join(closest_first(name, DATASETS))}")
    spec = DATASETS[name]
    base = endpoint_url(endpoint)
    token = token if token is not None else os.environ.get("HF_TOKEN")
    auth: str | bool = token or False  # never a token file the user did not mean to send
    cache = str(cache_dir) if cache_dir is not None else _cache_dir()
    files = list(spec.files)
    offline = hub_offline()
    cache_only = offline or not reachable(base)
    if not files:
        if cache_only:  # a file list needs the hub
            raise OfflineError(
                f"cannot reach {base}{' (HF_HUB_OFFLINE is set)' if offline else ''}; you appear "
                f"to be offline; download on a connected machine and pass --data"
            )
        try:
            listed = HfApi(endpoint=base, token=auth).list_repo_files(
                spec.repo, repo_type="dataset", revision=revision
            )
        except Exception as exc:  # noqa: BLE001 - translated into a message
            if _connection_error(exc) or _connection_error(exc.__cause__ or exc):
                raise OfflineError(
                    f"cannot reach {base} ({type(exc).__name__}); you appear to be offline; "
                    "download on a connected machine and pass --data"
                ) from exc
            raise _error(exc, f"{spec.repo} file list", base) from exc
        files = [f for f in listed if any(fnmatch(f.rsplit("/", 1)[-1], p) for p in spec.patterns)]
        if not files:
            raise DownloadError(f"{spec.repo}: no files match {', '.join(spec.patterns)}")
    out: list[Path] = []
    for filename in files:
        if unsafe_member(filename):
            raise DownloadError(f"{spec.repo}: refusing file name {filename!r}")
        try:
            cached = Path(
                hf_hub_download(
                    spec.repo, filename, repo_type="dataset", revision=revision,
                    endpoint=base, token=auth, cache_dir=cache, local_files_only=cache_only,
                )  # fmt: skip
            )
        except Exception as exc:  # noqa: BLE001 - translated into a message
            raise _error(exc, f"{spec.repo}/{filename}", base) from exc
        if spec.extract and extract and filename.endswith(".zip"):
            out.extend(safe_extract(cached, dest))
            if keep_zip:
                _place(cached, dest / filename)
        else:
            out.append(_place(cached, dest / filename))
    return out
