"""Secrets never reach disk, keys go only to their own endpoint, redirects are not followed."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from typer.testing import CliRunner

from prism_review.cli import app
from prism_review.llm import make_judge
from prism_review.llm.credentials import key_variable, mask_url, mask_urls
from prism_review.testing.layout_samples import write_layout

runner = CliRunner()


@pytest.mark.parametrize("url,masked", [
    ("http://user:pw@127.0.0.1:8000/v1", "http://***@127.0.0.1:8000/v1"),
    ("https://tok@host/v1?api_key=sk-1&x=2", "https://***@host/v1?api_key=***&x=2"),
    ("http://localhost:8000/v1", "http://localhost:8000/v1"),
])
def test_mask_url(url: str, masked: str) -> None:
    assert mask_url(url) == masked
    assert mask_urls(f"openai-compatible/m@{url}") == f"openai-compatible/m@{masked}"


@pytest.mark.parametrize("where", ["spec", "--base-url"])
def test_credentials_in_the_base_url_never_reach_disk(where: str, tmp_path: Path, llm_server) -> None:  # type: ignore[no-untyped-def]
    data = write_layout(tmp_path / "data", {"ICLR2024": ["p1"]})
    url = llm_server.base_url.replace("http://", "http://alice:s3cretpw@")
    out = tmp_path / "run"
    judge = ([f"openai-compatible/test-model@{url}"] if where == "spec"
             else ["openai/test-model", "--base-url", url])
    res = runner.invoke(app, ["evaluate", "--data", str(data), "--out", str(out), "--judge",
                              *judge, "--dimension", "constructiveness",
                              "--venue", "ICLR2024", "--system", "sea", "--limit", "1", "--quiet",
                              "--cache-dir", str(tmp_path / "cache")])
    assert res.exception is None or isinstance(res.exception, SystemExit), repr(res.exception)
    # refused up front (issue 26): httpx sent user:password@ as Basic auth in place of the key
    assert res.exit_code == 2 and "holds a user name or password" in " ".join(res.output.split())
    assert not llm_server.requests, res.output
    assert "s3cretpw" not in res.output and "***@127.0.0.1" in res.output
    for p in out.rglob("*"):
        if p.is_file():
            assert b"s3cretpw" not in p.read_bytes(), p


def _config(tmp_path: Path, step_model: str) -> Path:
    path = tmp_path / "judge.toml"
    path.write_text(f'[llm.steps."depth.segment"]\nmodel = "{step_model}"\n')
    return path


def test_step_model_on_another_host_does_not_get_the_main_key(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("OPENAI_API_KEY", "sk-main-key")
    other = "http://127.0.0.1:9/v1"
    judge = make_judge("openai/gpt-4o-mini", config_path=_config(tmp_path, f"openai-compatible/m@{other}"),
                       no_cache=True)
    keys = {api.base_url: api._api_key for api in judge._apis.values()}
    assert keys["https://api.openai.com/v1"] == "sk-main-key"
    assert keys[other] != "sk-main-key"
    monkeypatch.setenv(key_variable(other), "sk-its-own")
    judge = make_judge("openai/gpt-4o-mini", config_path=_config(tmp_path, f"openai-compatible/m@{other}"),
                       no_cache=True)
    assert {api.base_url: api._api_key for api in judge._apis.values()}[other] == "sk-its-own"
    assert key_variable(other) == "PRISM_API_KEY_127_0_0_1_9"


def test_step_model_on_the_main_host_shares_the_main_key(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("OPENAI_API_KEY", "sk-main-key")
    judge = make_judge("openai/gpt-4o-mini", config_path=_config(tmp_path, "openai/gpt-4.1-mini"), no_cache=True)
    assert all(api._api_key == "sk-main-key" for api in judge._apis.values())


class _Redirector(BaseHTTPRequestHandler):
    target = ""
    hits = 0

    def do_POST(self) -> None:  # noqa: N802
        type(self).hits += 1
        self.send_response(307)
        self.send_header("Location", self.target + self.path)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args) -> None:  # type: ignore[no-untyped-def]
        pass


def test_redirect_to_another_host_is_not_followed(tmp_path: Path, llm_server) -> None:  # type: ignore[no-untyped-def]
    _Redirector.target = llm_server.base_url.rstrip("/").rsplit("/v1", 1)[0]
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Redirector)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        data = write_layout(tmp_path / "data", {"ICLR2024": ["p1"]})
        url = f"http://127.0.0.1:{server.server_address[1]}/v1"
        res = runner.invoke(app, ["evaluate", "--data", str(data), "--out", str(tmp_path / "run"), "--judge",
                                  f"openai-compatible/test-model@{url}", "--dimension", "constructiveness",
                                  "--venue", "ICLR2024", "--system", "sea", "--limit", "1", "--quiet",
                                  "--cache-dir", str(tmp_path / "cache")])
    finally:
        server.shutdown()
    assert _Redirector.hits >= 1
    assert llm_server.requests == []  # no prompt reached the redirect target
    assert res.exit_code != 0 and "redirect" in res.output, res.output
