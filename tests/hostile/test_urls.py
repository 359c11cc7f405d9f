"""URL credentials (issue 26, kind 3): a password in ``--base-url`` or in the judge string is
never written (lock file, messages) and never sent as Basic auth in place of the API key; a
query string is refused instead of being pasted into the request path."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from prism_review.cli import app
from prism_review.llm.credentials import check_server_url, redact_argv
from prism_review.pipelines.runlock import RunFolderBusy, RunLock
from prism_review.testing.layout_samples import write_layout

runner = CliRunner()
PW = "S3cretPW"


def _files_hold(folder: Path, secret: str) -> list[Path]:
    return [p for p in folder.rglob("*") if p.is_file() and secret.encode() in p.read_bytes()]


@pytest.mark.parametrize(("args", "said"), [
    (["--judge", f"openai-compatible/m@http://u:{PW}@127.0.0.1:9/v1"], "holds a user name or password"),
    (["--judge", "openai-compatible/m", "--base-url", f"http://u:{PW}@127.0.0.1:9/v1"],
     "holds a user name or password"),
    (["--judge", "openai-compatible/m", "--base-url", f"http://127.0.0.1:9/v1?api_key={PW}"],
     "holds a query string or fragment"),
    (["--judge", "openai-compatible/m", "--base-url", "ftp://127.0.0.1:9/v1"], "must be http(s)://host"),
])
def test_a_server_url_with_credentials_or_a_query_is_refused_unsaid(args: list[str], said: str, tmp_path: Path) -> None:
    data = write_layout(tmp_path / "data", {"ICLR2024": ["p1"]})
    out = tmp_path / "run"
    res = runner.invoke(app, ["evaluate", "--data", str(data), "--out", str(out), "--dimension",
                              "constructiveness", "--limit", "1", "--quiet", *args])
    assert res.exit_code == 2, res.output
    assert said in " ".join(res.output.split())
    assert PW not in res.output
    assert not out.exists() or _files_hold(out, PW) == []


def test_check_server_url_keeps_a_plain_url() -> None:
    assert check_server_url("http://127.0.0.1:8000/v1") == "http://127.0.0.1:8000/v1"
    with pytest.raises(ValueError, match=r"'http://\*\*\*@h/v1'"):
        check_server_url(f"http://u:{PW}@h/v1")


def test_lock_file_and_busy_message_hold_no_secret(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    argv = ["prism", "evaluate", "--judge", f"openai-compatible/m@http://u:{PW}@h/v1", "--api-key", PW,
            f"--api-key={PW}"]
    monkeypatch.setattr(sys, "argv", argv)
    with RunLock(tmp_path):
        held = (tmp_path / ".lock").read_text()
        assert PW not in held
        assert json.loads(held)["command"] == (
            "prism evaluate --judge openai-compatible/m@http://***@h/v1 --api-key *** --api-key=***")
        with pytest.raises(RunFolderBusy) as busy:
            RunLock(tmp_path).acquire()
        assert PW not in str(busy.value) and "--api-key ***" in str(busy.value)


def test_a_lock_written_by_an_older_run_is_masked_when_shown(tmp_path: Path) -> None:
    import fcntl
    import os

    (tmp_path / ".lock").write_text(json.dumps({"pid": 1, "host": "h", "started": "t",
                                                "command": f"prism evaluate --base-url http://u:{PW}@h/v1"}))
    fd = os.open(tmp_path / ".lock", os.O_RDWR)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        with pytest.raises(RunFolderBusy) as busy:
            RunLock(tmp_path).acquire()
    finally:
        os.close(fd)
    assert PW not in str(busy.value) and "http://***@h/v1" in str(busy.value)


def test_redact_argv() -> None:
    assert redact_argv(["--api-key"]) == ["--api-key"]
    assert redact_argv(["x", "http://a:b@h/?token=t&q=1"]) == ["x", "http://***@h/?token=***&q=1"]
