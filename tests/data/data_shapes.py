"""Builders of small real-shaped corpus files (shapes from spec/datasets.md §1)."""

from __future__ import annotations

import hashlib
import json
import socket
import zipfile
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from prism_review.data.corpus import CORPUS_COLUMNS

ICLR24_REVIEW = {
    "Summary": "This paper proposes an any-to-any multimodal LLM.",
    "Strengths": "* Extending multimodal LLMs to arbitrary outputs.",
    "Weaknesses": "* The alignment learning technique is a bit naive.",
    "Questions": "Will the pretrained model be released?",
    "Soundness": "3 good",
    "Presentation": "4 excellent",
    "Contribution": "3 good",
    "Confidence": "4: You are confident in your assessment, but not absolutely certain.",
    "Rating": "6: marginally above the acceptance threshold",
}

TEI = b"""<?xml version="1.0" encoding="UTF-8"?>
<TEI xmlns="http://www.tei-c.org/ns/1.0" xmlns:xlink="http://www.w3.org/1999/xlink">
  <teiHeader>
    <fileDesc>
      <titleStmt><title level="a" type="main">NExT-GPT: Any-to-Any Multimodal LLM</title></titleStmt>
      <sourceDesc><biblStruct><analytic>
        <author><persName><forename type="first">Shengqiong</forename><surname>Wu</surname></persName></author>
        <author><persName><forename type="first">Hao</forename><surname>Fei</surname></persName></author>
      </analytic></biblStruct></sourceDesc>
    </fileDesc>
    <profileDesc><abstract><div><p>We present an end-to-end
      any-to-any MM-LLM.</p></div></abstract></profileDesc>
  </teiHeader>
  <text>
    <body>
      <div><head n="1">Introduction</head><p>Humans perceive the world through many modalities.</p><p>Second paragraph.</p></div>
      <div><head n="2">Method</head><p>We connect an LLM with diffusion decoders.</p></div>
    </body>
    <back><div type="references"><listBibl>
      <biblStruct xml:id="b0"><analytic><title level="a" type="main">Visual instruction tuning</title>
        <author><persName><forename>Haotian</forename><surname>Liu</surname></persName></author></analytic>
        <monogr><title level="m">NeurIPS</title><imprint><date type="published" when="2023"/></imprint></monogr></biblStruct>
      <biblStruct xml:id="b1"><monogr><title level="m">A Book Title</title>
        <imprint><date type="published" when="2019-05"/></imprint></monogr></biblStruct>
    </listBibl></div></back>
  </text>
</TEI>
"""


def corpus_row(pid: str, venue: str, decision: str, **over: Any) -> dict[str, Any]:
    """One papers.parquet row with every one of the 31 columns."""
    reviews = [ICLR24_REVIEW, {**ICLR24_REVIEW, "Rating": "3: reject, not good enough"}]
    row: dict[str, Any] = {c: None for c in CORPUS_COLUMNS}
    row.update(
        paper_id=pid,
        venue=venue,
        decision=decision,
        meta_review="The reviewers raised concerns." if decision != "Pending" else "TBD",
        num_reviews=2,
        rating_avg=4.5,
        rating_min=3.0,
        rating_max=6.0,
        confidence_avg=4.0,
        soundness_avg=3.0,
        presentation_avg=4.0,
        contribution_avg=3.0,
        reviews_json=json.dumps(reviews),
        keywords=json.dumps(["multimodal", "LLM"]),
        primary_area="generative models",
        subject_areas="[]",
        review_title=f"Title of {pid}",
        review_abstract=f"Abstract of {pid}.",
        grobid_title=f"Title of {pid}",
        grobid_abstract="",
        grobid_authors='["A. Author"]',
        grobid_keywords="[]",
        grobid_date="2023",
        full_text=f"Full text of {pid}. " * 20,
        grobid_fulltext=f"## Introduction\nGROBID text of {pid}.",
        bibliography_json=json.dumps(
            [
                {
                    "title": "Visual instruction tuning",
                    "authors": ["H. Liu"],
                    "year": 2023,
                    "venue": "NeurIPS",
                }
            ]
        ),
        bibliography_bib="",
        pdf_path=f"pdfs/{pid}.pdf",
        stat_num_reviews=2,
        stat_has_meta_review=True,
        stat_has_decision=decision != "Pending",
    )
    row.update(over)
    return row


def write_corpus(path: Path, rows: list[dict[str, Any]], *, row_group_size: int = 3) -> Path:
    """Write rows as a zstd parquet with several row groups."""
    schema = pa.schema(
        [
            (c, pa.int64() if c in {"num_reviews", "stat_num_reviews"}
             else pa.bool_() if c.startswith("stat_has")
             else pa.float64() if c.endswith("_avg") or c in {"rating_min", "rating_max"}
             else pa.string())
            for c in CORPUS_COLUMNS
        ]
    )  # fmt: skip
    table = pa.Table.from_pylist(rows, schema=schema)
    pq.write_table(table, path, compression="zstd", row_group_size=row_group_size)
    return path


def paper_json(pid: str, decision: str = "Reject") -> dict[str, Any]:
    """The shape of ``json/<id>.json`` in a per-venue folder."""
    return {
        "paper_id": pid,
        "Decision": decision,
        "Meta review": {
            "Metareview": "The paper introduces an any-to-any multimodal LLM.",
            "Justification For Why Not Higher Score": "Limited novelty.",
            "Justification For Why Not Lower Score": "N/A",
        },
        "reviews": [ICLR24_REVIEW, {**ICLR24_REVIEW, "Rating": "8: accept, good paper"}],
        "keywords": ["multimodal"],
        "primary_area": "generative models",
        "subject_areas": [],
        "title": f"Paper {pid}",
        "abstract": f"Abstract {pid}.",
        "statistics": {"num_reviews": 2, "has_meta_review": True, "has_decision": True},
    }


def build_venue_folder(root: Path) -> Path:
    """An ICLR_2024 folder: three papers, one with a malformed TEI and one without GROBID."""
    v = root / "ICLR_2024"
    for sub in ("json", "txt", "grobid_metadata", "grobid_bib", "grobid_tei", "grobid_fulltext"):
        (v / sub).mkdir(parents=True)
    decisions = {"a1": "Accept (oral)", "a2": "Reject", "a3": "Accept (poster)"}
    for pid, dec in decisions.items():
        (v / "json" / f"{pid}.json").write_text(json.dumps(paper_json(pid, dec)), encoding="utf-8")
        (v / "txt" / f"{pid}.txt").write_text(f"Plain text of {pid}.", encoding="utf-8")
    (v / "grobid_tei" / "a1.grobid.tei.xml").write_bytes(TEI)
    (v / "grobid_tei" / "a2.grobid.tei.xml").write_bytes(TEI[:400])  # truncated XML
    for pid in ("a1", "a2"):
        meta = {
            "title": "NExT-GPT",
            "authors": ["Shengqiong Wu"],
            "abstract": "x",
            "keywords": [],
            "date": "2023",
        }
        (v / "grobid_metadata" / f"{pid}.grobid.json").write_text(
            json.dumps(meta), encoding="utf-8"
        )
        bib = [
            {
                "title": "Visual instruction tuning",
                "authors": ["Haotian Liu"],
                "year": "2023",
                "venue": "NeurIPS",
            }
        ]
        (v / "grobid_bib" / f"{pid}.grobid.json").write_text(json.dumps(bib), encoding="utf-8")
        (v / "grobid_bib" / f"{pid}.grobid.bib").write_text(
            "@article{b0, title={Visual}}", encoding="utf-8"
        )
        (v / "grobid_fulltext" / f"{pid}.grobid.txt").write_text(
            f"## Introduction\nGROBID {pid}", encoding="utf-8"
        )
    summary = {"total_processed": 3, "total_failed": 1, "paper_ids": sorted(decisions)}
    (v / "scraping_summary.json").write_text(json.dumps(summary), encoding="utf-8")
    return v


def zip_folder(folder: Path, dest: Path, *, extra: dict[str, bytes] | None = None) -> Path:
    """Zip ``folder`` under its own name as top-level prefix (like the hub's venue zips)."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(dest, "w", zipfile.ZIP_DEFLATED) as zf:
        for p in sorted(folder.rglob("*")):
            if p.is_file():
                zf.write(p, f"{folder.name}/{p.relative_to(folder).as_posix()}")
        for name, data in (extra or {}).items():
            zf.writestr(name, data)
    return dest


class Hub:
    """A fake dataset hub for loopback download tests: files, request log, fault injection."""

    def __init__(self) -> None:
        self.files: dict[str, bytes] = {}
        self.requests: list[dict[str, Any]] = []
        self.cut_after: int | None = None  # drop the connection after this many bytes, once
        self.require_token: str | None = None
        self.ignore_range = False
        self.page_size = 0  # >0: split the file listing into two pages


def hub_handler(hub: Hub) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:
            pass

        def do_HEAD(self) -> None:  # noqa: N802
            """File metadata as huggingface_hub reads it: commit, ETag and size headers."""
            hub.requests.append({"method": "HEAD", "path": self.path, "range": None,
                                 "auth": self.headers.get("Authorization")})  # fmt: skip
            if (
                hub.require_token
                and self.headers.get("Authorization") != f"Bearer {hub.require_token}"
            ):
                return self._head(401, {"X-Error-Code": "GatedRepo"})
            key = self.path.split("?")[0].replace("/datasets/", "", 1).replace("/resolve/main/", "/")
            if key not in hub.files:
                return self._head(404, {"X-Error-Code": "EntryNotFound"})
            digest = hashlib.sha256(hub.files[key]).hexdigest()
            return self._head(200, {"X-Repo-Commit": hashlib.sha1(hub.files[key]).hexdigest(),
                                    "ETag": f'"{digest}"', "Content-Length": str(len(hub.files[key]))})  # fmt: skip

        def _head(self, code: int, headers: dict[str, str]) -> None:
            self.send_response(code)
            for k, v in headers.items():
                self.send_header(k, v)
            if "Content-Length" not in headers:
                self.send_header("Content-Length", "0")
            self.end_headers()

        def do_GET(self) -> None:  # noqa: N802
            hub.requests.append({"method": "GET", "path": self.path, "range": self.headers.get("Range"),
                                 "auth": self.headers.get("Authorization")})  # fmt: skip
            if (
                hub.require_token
                and self.headers.get("Authorization") != f"Bearer {hub.require_token}"
            ):
                return self._send(401, b"")
            path = self.path.split("?")[0]
            if "/api/datasets/" in path:
                repo = path.split("/api/datasets/")[1].split("/tree/")[0]
                listing = [
                    {"type": "file", "path": k.split(f"{repo}/", 1)[1], "size": len(hub.files[k]),
                     "oid": hashlib.sha1(hub.files[k]).hexdigest()}
                    for k in hub.files
                    if k.startswith(repo)
                ]
                listing.append({"type": "directory", "path": "data", "oid": "0" * 40})
                if (
                    hub.page_size and "cursor=" not in self.path
                ):  # first page, then a Link to the rest
                    host = self.headers.get("Host")
                    link = f'<http://{host}{path}?recursive=true&cursor=p2>; rel="next"'
                    return self._send(
                        200, json.dumps(listing[: hub.page_size]).encode(), {"Link": link}
                    )
                if hub.page_size:
                    listing = listing[hub.page_size :]
                return self._send(200, json.dumps(listing).encode())
            key = path.replace("/datasets/", "", 1).replace("/resolve/main/", "/")
            if key not in hub.files:
                return self._send(404, b"")
            data = hub.files[key]
            start = 0
            rng = self.headers.get("Range")
            if rng and not hub.ignore_range:
                start = int(rng.split("=")[1].rstrip("-"))
                if start >= len(data):
                    self.send_response(416)
                    self.send_header("Content-Range", f"bytes */{len(data)}")
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return None
            body = data[start:]
            self.send_response(206 if start else 200)
            if start:
                self.send_header("Content-Range", f"bytes {start}-{len(data) - 1}/{len(data)}")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if hub.cut_after is not None:
                self.wfile.write(body[: hub.cut_after])
                self.wfile.flush()
                hub.cut_after = None
                self.close_connection = True
                self.connection.shutdown(socket.SHUT_RDWR)
                return None
            self.wfile.write(body)
            return None

        def _send(self, code: int, body: bytes, headers: dict[str, str] | None = None) -> None:
            self.send_response(code)
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    return Handler
