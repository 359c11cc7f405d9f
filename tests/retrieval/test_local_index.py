import json

from typer.testing import CliRunner

from prism_review.cli import app
from prism_review.retrieval.bibparse import entry_title, parse_reference_list
from prism_review.retrieval.candidates import title_id
from prism_review.retrieval.local_index import LocalIndex, build_index, merge_docs
from prism_review.retrieval.pool import build_pool

PAPERS = [
    {"id": "lf", "title": "Longformer: The Long-Document Transformer", "abstract": "An attention mechanism that scales linearly with sequence length for long documents.", "year": 2020, "venue": "arXiv"},
    {"id": "bb", "title": "Big Bird: Transformers for Longer Sequences", "abstract": "A sparse attention mechanism reducing the quadratic dependency to linear.", "year": 2020, "venue": "NeurIPS"},
    {"id": "gan", "title": "Generative Adversarial Networks", "abstract": "A generator and a discriminator trained adversarially to produce images.", "year": 2014, "venue": "NeurIPS"},
]

REFS = """Body text here.

## References

* Beltagy et al. (2020) Iz Beltagy, Matthew E. Peters, and Arman Cohan. Longformer: The long-document transformer. _arXiv preprint arXiv:2004.05150_, 2020.
* Child et al. (2019) Rewon Child, Scott Gray, Alec Radford, and Ilya Sutskever. Generating long sequences with sparse transformers. _CoRR_, abs/1904.10509, 2019.
* Vaswani, A., Shazeer, N., & Parmar, N. (2017). Attention is all you need. In NeurIPS.

## Appendix A

We used three seeds. Results are averaged. Table 9 shows more.
"""


def test_reference_list_parsing():
    bib = parse_reference_list(REFS)
    assert [(b.title, b.year) for b in bib] == [
        ("Longformer: The long-document transformer", 2020),
        ("Generating long sequences with sparse transformers", 2019),
        ("Attention is all you need", 2017),
    ]
    assert entry_title("We used three seeds. Results are averaged over 2019 runs.") == ""


def test_merge_prefers_richer_record():
    docs = merge_docs([
        {"id": title_id("Longformer: The long-document transformer"), "title": "Longformer: The long-document transformer", "kind": "bib", "year": 2020},
        {**PAPERS[0], "kind": "paper"},
    ])
    assert len(docs) == 1 and docs[0]["id"] == "lf" and docs[0]["abstract"]


async def test_index_answers_queries_in_s2_shape(tmp_path):
    m = build_index(tmp_path / "idx", [*PAPERS, *({"id": None, "title": b.title, "year": b.year, "kind": "bib"} for b in parse_reference_list(REFS))])
    assert m["documents"] == 5 and m["papers"] == 3 and m["bibliography_titles"] == 2
    idx = LocalIndex(tmp_path / "idx")
    hits = await idx.search("long document transformer sparse attention", 10)
    assert hits[0]["paperId"] in {"lf", "bb"}
    assert set(hits[0]) >= {"paperId", "title", "abstract", "year", "venue", "externalIds"}
    assert all(h["paperId"] != "gan" for h in hits)
    assert await idx.search("!!! ???", 10) == []
    rec = await build_pool({"core_task": "long documents", "contributions": [{"name": "sparse attention"}]}, idx, 2019)
    ids = [c["cand_id"] for c in rec["candidate_pool_top30"]]
    assert "bb" not in ids and "lf" not in ids  # 2020 > 2019: year filter
    assert rec["backend"] == "local"


def test_cli_build(tmp_path):
    src = tmp_path / "papers.jsonl"
    src.write_text("\n".join(json.dumps(p) for p in PAPERS) + "\n", encoding="utf-8")
    out = tmp_path / "idx"
    res = CliRunner().invoke(app, ["index", "build", "--out", str(out), "--jsonl", str(src)])
    assert res.exit_code == 0, res.output
    assert "indexed 3 documents" in res.output
    res = CliRunner().invoke(app, ["index", "build", "--out", str(out)])
    assert res.exit_code == 2
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "x.txt").write_text("keep me")
    res = CliRunner().invoke(app, ["index", "build", "--out", str(tmp_path / "other"), "--jsonl", str(src)])
    assert res.exit_code == 2 and (tmp_path / "other" / "x.txt").exists()


def test_venue_dir_and_layout_sources(tmp_path):
    from prism_review.retrieval.sources import docs_from_layout, docs_from_venue_dir

    v = tmp_path / "ICLR_2024"
    (v / "json").mkdir(parents=True)
    (v / "grobid_bib").mkdir()
    (v / "txt").mkdir()
    (v / "json" / "p1.json").write_text(json.dumps({"title": "Sparse kernels for long documents", "reviews": []}))
    (v / "json" / "p2.json").write_text(json.dumps({"title": "Memory tokens", "reviews": []}))
    (v / "grobid_bib" / "p1.grobid.json").write_text(json.dumps([{"title": "Longformer: the long-document transformer", "year": 2020}]))
    (v / "txt" / "p2.txt").write_text(REFS)
    docs = list(docs_from_venue_dir(v))
    titles = [(d["kind"], d["title"]) for d in docs]
    assert ("paper", "Sparse kernels for long documents") in titles
    assert ("bib", "Longformer: the long-document transformer") in titles
    assert ("bib", "Attention is all you need") in titles  # parsed from p2's reference list
    assert all(d["year"] == 2024 for d in docs if d["kind"] == "paper")

    root = tmp_path / "root"
    (root / "ICLR2024" / "papers").mkdir(parents=True)
    (root / "ICLR2024" / "papers" / "x1.txt").write_text("# A Paper About Sparse Attention\n\nAbstract\nWe do things.\n" + REFS)
    docs = list(docs_from_layout(root))
    assert docs[0]["id"] == "x1" and docs[0]["kind"] == "paper" and docs[0]["venue"] == "ICLR2024"
    assert sum(d["kind"] == "bib" for d in docs) == 3


def test_corpus_source(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    from prism_review.retrieval.sources import docs_from_corpus

    table = pa.table({
        "paper_id": ["a1", "a2"], "venue": ["ICLR2025", "ICML2025"], "decision": ["Accept (poster)", "Reject"],
        "review_title": ["Sparse kernels", ""], "grobid_title": ["", "GROBID title of a2"],
        "review_abstract": ["abs one", ""], "grobid_abstract": ["", "abs two"],
        "bibliography_json": [json.dumps([{"title": "Longformer: the long-document transformer", "year": 2020}]), None],
    })
    pq.write_table(table, tmp_path / "papers.parquet")
    docs = list(docs_from_corpus(tmp_path / "papers.parquet"))
    assert [(d["kind"], d["title"], d["year"]) for d in docs] == [
        ("paper", "Sparse kernels", 2025), ("bib", "Longformer: the long-document transformer", 2020),
        ("paper", "GROBID title of a2", 2025)]
    assert [d["title"] for d in docs_from_corpus(tmp_path / "papers.parquet", venues=["ICML2025"])] == ["GROBID title of a2"]


def test_corpus_source_counts_unreadable_bibliographies(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq
    from typer.testing import CliRunner

    from prism_review.cli import app
    from prism_review.data.skips import SkipLog
    from prism_review.retrieval.sources import docs_from_corpus

    table = pa.table({
        "paper_id": ["a1", "a2", "a3"], "venue": ["ICLR2025"] * 3, "decision": ["Reject"] * 3,
        "review_title": ["Sparse kernels", "Dense kernels", "Other kernels"], "grobid_title": ["", "", ""],
        "review_abstract": ["", "", ""], "grobid_abstract": ["", "", ""],
        "bibliography_json": ["[{not json", json.dumps([{"title": 3}]),
                              json.dumps([{"title": "Longformer", "year": 2020}])],
    })
    pq.write_table(table, tmp_path / "papers.parquet")
    skips = SkipLog()
    docs = list(docs_from_corpus(tmp_path / "papers.parquet", skips=skips))
    # the good rows are all indexed; the two bad bibliographies are counted, not silently dropped
    assert [d["title"] for d in docs] == ["Sparse kernels", "Dense kernels", "Other kernels", "Longformer"]
    assert [(s.record, s.field) for s in skips.skips] == [("a1", "bibliography_json"), ("a2", "bibliography_json[0].title")]
    assert "invalid JSON" in skips.skips[0].message and "expected text" in skips.skips[1].message

    res = CliRunner().invoke(app, ["index", "build", "--out", str(tmp_path / "idx"),
                                   "--corpus", str(tmp_path / "papers.parquet")])
    assert res.exit_code == 0, res.output
    assert "left out: 2 problem(s)" in res.stderr and "[a1] (field 'bibliography_json')" in res.stderr


def test_docs_from_jsonl_streams_rows_and_names_a_bad_line(tmp_path):
    import pytest

    from prism_review.retrieval.sources import docs_from_jsonl

    src = tmp_path / "lit.jsonl"
    src.write_bytes(b'{"paper_id": "a", "title": "One\xe2\x80\xa8title", "year": "2021-05"}\n\n'
                    b'{"id": "b", "title": "Two", "kind": "bib"}\n[1]\n')
    docs = docs_from_jsonl(src)
    assert next(docs) == {"id": "a", "title": "One\u2028title", "abstract": None, "year": 2021,
                          "venue": None, "kind": "paper"}
    assert next(docs)["kind"] == "bib"
    with pytest.raises(ValueError, match=r"lit\.jsonl \[line 4\].*expected an object"):
        next(docs)
    src.write_bytes(b'{"title": "\xff"}\n')
    with pytest.raises(ValueError, match=r"\[line 1\].*not valid UTF-8"):
        list(docs_from_jsonl(src))


def test_failed_rebuild_keeps_the_existing_index(tmp_path):
    src = tmp_path / "papers.jsonl"
    src.write_text("\n".join(json.dumps(p) for p in PAPERS) + "\n", encoding="utf-8")
    out = tmp_path / "idx"
    assert CliRunner().invoke(app, ["index", "build", "--out", str(out), "--jsonl", str(src)]).exit_code == 0
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(PAPERS[0]) + "\nnot json\n", encoding="utf-8")
    res = CliRunner().invoke(app, ["index", "build", "--out", str(out), "--jsonl", str(bad)])
    assert res.exit_code == 2 and "line 2" in res.output
    assert LocalIndex(out).manifest["documents"] == 3  # the bad input did not wipe the old index
