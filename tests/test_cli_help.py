"""The command line's help: a fast top level that imports no subsystem, -h, plain labels, examples that parse."""

from __future__ import annotations

import shlex
import subprocess
import sys

import pytest
import typer
from typer.testing import CliRunner

from psychoagent.cli import TABLE, app
from psychoagent.cli.examples import EXAMPLES
from psychoagent.cli.lazy import LazyCommand, plain_label

runner = CliRunner()


def _group() -> typer.core.TyperGroup:
    return typer.main.get_command(app)  # type: ignore[return-value]


def _command(path: str):  # type: ignore[no-untyped-def]
    group = _group()
    names = path.split()
    command = group.real_command(names[0])  # type: ignore[attr-defined]
    for name in names[1:]:
        command = command.commands[name]
    return command


def test_top_level_help_imports_no_subsystem() -> None:
    code = (
        "import sys; from typer.testing import CliRunner; from psychoagent.cli import app;"
        "r = CliRunner().invoke(app, ['--help']); assert r.exit_code == 0, r.output;"
        "heavy = [m for m in ('psychoagent.econ.model', 'psychoagent.memory.api', 'psychoagent.types', 'numpy',"
        " 'pandas', 'mesa') if m in sys.modules]; print(heavy)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_help_lists_every_command_with_its_own_first_line() -> None:
    result = runner.invoke(app, ["-h"])
    assert result.exit_code == 0
    for name, entry in TABLE.items():
        assert name in result.output
        real = _command(name)
        first = (real.short_help or real.help or "").strip().split("\n\n")[0].replace("\n", " ")
        assert first == entry.short_help, name


@pytest.mark.parametrize("path", sorted(p for p in EXAMPLES if p))
def test_every_command_help_shows_examples_and_plain_labels(path: str) -> None:
    result = runner.invoke(app, [*path.split(), "-h"], terminal_width=200)
    assert result.exit_code == 0, result.output
    assert "Examples" in result.output
    assert "<bool>" not in result.output and "<int" not in result.output and "<str>" not in result.output


def test_every_command_has_examples() -> None:
    paths = {""}
    for name in TABLE:
        command = _command(name)
        paths.add(name)
        paths.update(f"{name} {sub}" for sub in getattr(command, "commands", {}))
    paths.add("demo")
    assert paths == set(EXAMPLES)


@pytest.mark.parametrize("line", [line for lines in EXAMPLES.values() for line in lines])
def test_examples_name_real_commands_and_options(line: str) -> None:
    words = shlex.split(line.split("|")[-1])
    assert words[0] == "psychoagent"
    group, rest = _group(), words[1:]
    command = group.real_command(rest[0]) if rest[0] in TABLE else group.commands[rest[0]]  # type: ignore[attr-defined]
    rest = rest[1:]
    while rest and hasattr(command, "commands") and rest[0] in command.commands:
        command, rest = command.commands[rest[0]], rest[1:]
    assert not isinstance(command, LazyCommand)
    options = {opt for p in command.params for opt in (*p.opts, *p.secondary_opts)}
    for word in rest:
        if word.startswith("-") and word != "-":
            assert word in options, f"{line}: {word}"


def test_plain_labels() -> None:
    assert plain_label("<int range>", False) == "INTEGER"
    assert plain_label("<bool>", True) is None
    assert plain_label("<list[str]>", False) == "TEXT ..."
    assert plain_label("<resolved|unresolved>", False) == "resolved|unresolved"
    assert plain_label("<path>", False) == "PATH"


def test_version_short_and_long() -> None:
    for flag in ("--version", "-V"):
        result = runner.invoke(app, [flag])
        assert result.exit_code == 0 and result.output.startswith("psychoagent ")
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; sys.argv=['psychoagent','-V']; from psychoagent.cli import main; main()",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert out.startswith("psychoagent ")
