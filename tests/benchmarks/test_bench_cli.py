"""The command-line start-up benchmark runs every case and reports a ratio to the interpreter's own start."""

from __future__ import annotations

import sys

import pytest

from benchmarks import bench_cli


def test_bench_cli_times_every_case(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "argv", ["bench_cli", "--runs", "1", "--no-write"])
    bench_cli.main()
    out = capsys.readouterr().out
    for name in bench_cli.CASES:
        assert f"`{name}`" in out
    assert "| `python -c pass` |" in out and "| 1.0 |" in out
