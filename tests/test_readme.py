"""README.md and the documentation pages (docs/) as a test: every ```python block runs as written, and every
module, file and dotted name they point to exists.

Each block runs in a fresh interpreter whose working directory is a temporary folder (PYTHONPATH inherited,
offline, with a time limit). A comment on the line before a block steers it:

- `<!-- readme-test: continues -->`: the block goes on from the one before it (it uses its names), so both run in
  one interpreter, in order, as a reader would type them into one session;
- `<!-- readme-test: postgres -->`: the block runs against the suite's own PostgreSQL (tests/pg.py), every
  `postgresql://` URL in it replaced by a fresh database's;
- `<!-- readme-test: skip (why) -->`: the block needs a service no test can reach (the reason is required).

A failure names the block (its number among the python blocks, its line and its first line of code).
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
PAGES = [README, *sorted((ROOT / "docs").rglob("*.md"))]
"""The README and every page of the documentation site: their blocks run, the names they give exist."""
TIMEOUT_S = 600
"""Per session of blocks: the bundled local model answers a handful of calls in 15 s on an idle 2-core machine."""

MARK = re.compile(r"<!--\s*readme-test:\s*(?P<word>[\w-]+)\s*(?:\((?P<why>[^)]*)\))?\s*-->")

RUNNER = """
import json, sys, traceback
namespace = {"__name__": "__main__"}
for block in json.loads(sys.stdin.read()):
    try:
        exec(compile(block["code"], f"{block['page']} block {block['index']} (line {block['line']})", "exec"), namespace)
    except BaseException:
        traceback.print_exc()
        print(f"readme-test: failed in block {block['index']}", file=sys.stderr)
        sys.exit(3)
"""
"""Runs the blocks of one session in order in one namespace; says on stderr which block raised."""


@dataclass(frozen=True)
class Block:
    """One ```python block of a page: its number (from 1), the line of its fence, its code and its marker."""

    index: int
    """Its number among the README's python blocks, from 1."""
    line: int
    """Line of its opening fence in README.md, from 1."""
    code: str
    """The lines between the fences, ending with a newline."""
    mark: str = ""
    """The readme-test marker on the line before it: '', 'skip' or 'continues'."""
    why: str = ""
    """The reason in the marker's parentheses (a skip must give one)."""
    page: str = "README.md"
    """The page it is on, relative to the repository root."""

    @property
    def title(self) -> str:
        """'block 3 (line 296): from psychoagent.persona import ...' for messages and test ids."""
        first = next((s for s in self.code.splitlines() if s.strip()), "")
        return f"{self.page} block {self.index} (line {self.line}): {first.strip()}"


def python_blocks(text: str, page: str = "README.md") -> list[Block]:
    """Every ```python block of a Markdown text with the readme-test marker of the line before it, if any."""
    lines = text.splitlines()
    blocks: list[Block] = []
    i = 0
    while i < len(lines):
        if lines[i].strip() == "```python":
            end = next(j for j in range(i + 1, len(lines)) if lines[j].strip().startswith("```"))
            before = next((s for s in reversed(lines[:i]) if s.strip()), "")
            found = MARK.search(before)
            mark, why = (found["word"], (found["why"] or "").strip()) if found else ("", "")
            if mark not in ("", "skip", "continues", "postgres"):
                raise ValueError(
                    f"{page} line {i}: unknown readme-test marker {mark!r} (skip, continues or postgres)"
                )
            if mark == "skip" and not why:
                raise ValueError(f"{page} line {i}: a skipped block must say why: skip (reason)")
            blocks.append(
                Block(len(blocks) + 1, i + 1, "\n".join(lines[i + 1 : end]) + "\n", mark, why, page)
            )
            i = end
        i += 1
    return blocks


def sessions(blocks: list[Block]) -> list[list[Block]]:
    """The blocks grouped into what one interpreter runs: a block marked `continues` joins the one before it."""
    out: list[list[Block]] = []
    for block in blocks:
        if block.mark == "continues":
            if not out:
                raise ValueError(f"{block.title}: the first block cannot continue another")
            out[-1].append(block)
        else:
            out.append([block])
    return out


SESSIONS = [
    s
    for page in PAGES
    for s in sessions(python_blocks(page.read_text(encoding="utf-8"), str(page.relative_to(ROOT))))
]


def _environment() -> dict[str, str]:
    """The test's environment, offline, with this interpreter's scripts (the `psychoagent` command) on PATH."""
    env = dict(os.environ)
    env.update(HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", MPLBACKEND="Agg", PYTHONUNBUFFERED="1")
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    return env


@pytest.mark.slow
@pytest.mark.parametrize("session", SESSIONS, ids=[f"{s[0].page}:block{s[0].index}" for s in SESSIONS])
def test_python_block_runs(session: list[Block], tmp_path: Path, request: pytest.FixtureRequest) -> None:
    """The block (and the blocks that continue it) runs to the end in a fresh interpreter."""
    if session[0].mark == "skip":
        pytest.skip(f"{session[0].title}: {session[0].why}")
    codes = [b.code for b in session]
    if session[0].mark == "postgres":
        url = request.getfixturevalue("pg_url")  # starts the suite's server only for these blocks
        codes = [re.sub(r"postgresql://[^\s\"']+", lambda _: url, c) for c in codes]
    payload = json.dumps(
        [
            {"index": b.index, "line": b.line, "page": b.page, "code": c}
            for b, c in zip(session, codes, strict=True)
        ]
    )
    try:
        done = subprocess.run([sys.executable, "-c", RUNNER], input=payload, capture_output=True, text=True,
                              cwd=tmp_path, env=_environment(), timeout=TIMEOUT_S, check=False)  # fmt: skip
    except subprocess.TimeoutExpired:
        pytest.fail(f"{session[0].title}: still running after {TIMEOUT_S} s")
    if done.returncode != 0:
        failed = re.search(r"readme-test: failed in block (\d+)", done.stderr)
        block = next((b for b in session if failed and b.index == int(failed[1])), session[0])
        pytest.fail(f"{block.title} failed (exit {done.returncode}):\n{done.stderr[-4000:]}")


def _resolves(dotted: str) -> bool:
    """Whether a dotted name is a module, or an attribute path inside one."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attr in parts[cut:]:
            if not hasattr(obj, attr):
                return False
            obj = getattr(obj, attr)
        return True
    return False


def test_named_modules_files_and_names_exist() -> None:
    """Every `python -m MODULE` the README shows can be found, every repository path it names exists, and every
    `psychoagent.x.y` name in code quotes resolves (a moved module shows here, not in a reader's terminal)."""
    text = "\n".join(page.read_text(encoding="utf-8") for page in PAGES)
    sys.path.insert(0, str(ROOT))  # the benchmarks package lives at the repository root
    try:
        modules = {m for m in re.findall(r"python -m ([A-Za-z_][\w.]*)", text) if m != "benchmarks.NAME"}
        missing = sorted(m for m in modules if importlib.util.find_spec(m) is None)
    finally:
        sys.path.remove(str(ROOT))
    paths = set(re.findall(r"(?<![\w/.])((?:benchmarks|scripts|docs)/[\w./-]*\w)", text))
    missing += sorted(p for p in paths if not (ROOT / p).exists())
    names = set(re.findall(r"`(psychoagent(?:\.\w+)+)", text))
    missing += sorted(n for n in names if not _resolves(n))
    assert modules and paths and names, "the README names no modules, paths or names: the patterns are stale"
    assert not missing, f"the README or docs name what does not exist: {missing}"


def test_markers_are_read() -> None:
    """The parser sees the README's blocks and markers (a typo in a marker fails in `python_blocks`)."""
    blocks = [b for page in PAGES for b in python_blocks(page.read_text(encoding="utf-8"))]
    assert len(blocks) >= 10 and all(b.code.strip() for b in blocks)
    text = "intro\n\n<!-- readme-test: skip (needs a server) -->\n```python\nx = 1\n```\n<!-- readme-test: continues -->\n```python\nprint(x)\n```\n"  # fmt: skip
    parsed = python_blocks(text)
    assert [(b.mark, b.why, b.line) for b in parsed] == [("skip", "needs a server", 4), ("continues", "", 8)]
    assert [[b.index for b in s] for s in sessions(parsed)] == [[1, 2]]
    with pytest.raises(ValueError, match="unknown readme-test marker"):
        python_blocks("<!-- readme-test: skp (x) -->\n```python\nx = 1\n```\n")


def command_lines(text: str) -> list[str]:
    """Every `psychoagent ...` command in the ```bash blocks of a page (after `&&` or a pipe too)."""
    out: list[str] = []
    for block in re.findall(r"```bash\n(.*?)```", text, re.S):
        for line in block.replace("\\\n", " ").splitlines():
            for part in re.split(r"&&|\|", line):
                words = part.split("#")[0].split()
                if words and words[0].endswith("psychoagent"):
                    out.append(" ".join(words))
    return out


def test_command_lines_name_real_commands_and_options() -> None:
    """Each command a page tells a reader to type exists, with every option it uses."""
    import shlex

    import typer

    from psychoagent.cli import TABLE, app

    group = typer.main.get_command(app)
    lines = [(page, line) for page in PAGES for line in command_lines(page.read_text(encoding="utf-8"))]
    assert len(lines) >= 10
    bad = []
    for page, line in lines:
        words = shlex.split(line)[1:]
        if not words or words[0].startswith("-"):
            continue
        name = words[0]
        command = group.real_command(name) if name in TABLE else group.commands.get(name)  # type: ignore[attr-defined]
        rest = words[1:]
        while command is not None and rest and hasattr(command, "commands") and rest[0] in command.commands:
            command, rest = command.commands[rest[0]], rest[1:]
        if command is None:
            bad.append(f"{page.name}: {line}: no command {name!r}")
            continue
        options = {o for p in command.params for o in (*p.opts, *p.secondary_opts)} | {"--help", "-h"}
        bad += [
            f"{page.name}: {line}: {w}" for w in rest if w.startswith("--") and w.split("=")[0] not in options
        ]
    assert not bad, bad
