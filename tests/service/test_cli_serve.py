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


def _cache_sizes(code: str, env: dict[str, str]) -> str:
    import os
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env={**os.environ, **env}, check=False
    )
    return (out.stdout + out.stderr).strip()


def test_the_server_sizes_the_text_caches_before_they_are_made() -> None:
    """The per-text analysis caches take the server's smaller size (they are sized on import), the environment
    wins over it, and a bad size is refused naming the variable."""
    probe = (
        "from psychoagent.cli.service import _apply_text_cache, SERVER_TEXT_CACHE\n"
        "_apply_text_cache(SERVER_TEXT_CACHE)\n"
        "from psychoagent.memory.conflicts.spans import content_words\n"
        "from psychoagent.memory.conflicts.facts import analyse\n"
        "print(content_words.cache_info().maxsize, analyse.cache_info().maxsize)"
    )
    assert _cache_sizes(probe, {"PSYCHOAGENT_TEXT_CACHE": ""}) == "4096 4096"
    assert _cache_sizes(probe, {"PSYCHOAGENT_TEXT_CACHE": "512"}) == "512 512"
    bad = _cache_sizes("import psychoagent.memory.conflicts.spans", {"PSYCHOAGENT_TEXT_CACHE": "lots"})
    assert (
        bad.splitlines()[-1]
        == "ValueError: PSYCHOAGENT_TEXT_CACHE must be a whole number of at least 64, got 'lots'"
    )


def test_the_server_opens_its_file_with_a_small_page_cache(tmp_path: Path) -> None:
    """A server's SQLite page cache is `--page-cache` MiB (8 by default), not the library's 64 MiB, so its
    resident memory does not follow the file as it grows."""
    from psychoagent.cli.service import SERVER_PAGE_CACHE_MIB, _open_hub
    from psychoagent.memory import Memory

    hub = _open_hub(str(tmp_path / "s.db"), "hash")
    try:
        pages = hub.memory.store._store._conn.execute("PRAGMA cache_size").fetchone()[0]
        assert pages == -SERVER_PAGE_CACHE_MIB * 1024 == -8192
    finally:
        hub.close()
    hub = _open_hub(str(tmp_path / "s.db"), "hash", page_cache_mib=2)
    try:
        assert hub.memory.store._store._conn.execute("PRAGMA cache_size").fetchone()[0] == -2048
    finally:
        hub.close()
    library = Memory(tmp_path / "lib.db", embedder="hash")
    try:
        assert library.store._store._conn.execute("PRAGMA cache_size").fetchone()[0] == -65536
    finally:
        library.close()
    code, err = _run("serve", "--db", str(tmp_path / "s.db"), "--page-cache", "0", "--embedder", "hash")
    assert code == 2 and "--page-cache" in err
