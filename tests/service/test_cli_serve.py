"""`psychoagent serve`: refusals before anything is opened or bound."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from psychoagent.cli import app

runner = CliRunner()


def _run(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stderr


def test_serve_refuses_a_public_host_without_keys_and_bad_key_files(tmp_path: Path) -> None:
    code, err = _run("serve", "--db", str(tmp_path / "s.db"), "--host", "0.0.0.0", "--embedder", "hash")
    assert code == 2 and "--host 0.0.0.0" in err and "--keys" in err
    keys = tmp_path / "keys.toml"
    keys.write_text('[[keys]]\nkey = "short"\nnamespaces = ["a"]\n')
    code, err = _run("serve", "--db", str(tmp_path / "s.db"), "--keys", str(keys), "--embedder", "hash")
    assert code == 2 and "keys.0.key" in err
    assert not (tmp_path / "s.db").exists()
