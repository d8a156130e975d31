"""Commands loaded when they run: `psychoagent --help` lists every command from a table, without importing the
economy, the memory or the services behind them, so the top-level command answers at once.

A `LazyCommand` stands in the group for each table entry; `resolve_command` swaps in the real Typer command the first
time it is named on the command line (its own `--help` included). Every loaded command gets plain type labels and the
examples of `cli/examples.py` in its help.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any, ClassVar

import typer
from typer.core import TyperGroup

from psychoagent.cli.errors import ErrorGroup
from psychoagent.cli.examples import EXAMPLES


@dataclass(frozen=True)
class Entry:
    """One command of the table: where its Typer app or `register` function lives, and its one-line help."""

    module: str
    attr: str
    short_help: str


class LazyCommand(typer.core.TyperCommand):
    """A stand-in that only knows its name and one-line help; the group loads the real command before it runs."""


_PLAIN = {"int": "INTEGER", "int range": "INTEGER", "float": "NUMBER", "float range": "NUMBER", "str": "TEXT",
          "path": "PATH", "file": "PATH", "directory": "PATH", "bool": "BOOLEAN", "datetime": "DATETIME"}  # fmt: skip
"""Typer's `<int range>`-style labels as the plain words of Click's own help."""


def plain_label(label: str | None, is_flag: bool) -> str | None:
    """The plain label for a Typer label: INTEGER, NUMBER, TEXT, PATH, a|b for choices, and none for flags."""
    if is_flag or label is None:
        return None
    bare = label.strip("<>")
    if bare.startswith("list[") and bare.endswith("]"):
        inner = plain_label(bare[5:-1], False)
        return f"{inner} ..." if inner else None
    return _PLAIN.get(bare, bare if "|" in bare else bare.upper())


def polish(command: Any, path: str) -> Any:
    """Give a command (and its subcommands) plain type labels, `-h` and the examples of `path` in their help."""
    original = command.get_params

    def get_params(ctx: Any) -> list[Any]:
        params = original(ctx)
        for param in params:
            if hasattr(param, "display_type_rich") and not getattr(param, "_plain", False):
                typer_label, flag = param.display_type_rich, bool(getattr(param, "is_flag", False))
                param.display_type_rich = lambda ctx, f=typer_label, flag=flag: plain_label(f(ctx), flag)
                param._plain = True
        return params

    command.get_params = get_params
    if path in EXAMPLES:
        lines = "\n\n".join(f"[bold]$[/bold] {line}" for line in EXAMPLES[path])
        command.epilog = f"[bold]Examples[/bold]\n\n{lines}"
        command.rich_markup_mode = "rich"
    for name, sub in getattr(command, "commands", {}).items():
        polish(sub, f"{path} {name}".strip())
    return command


def load(name: str, entry: Entry) -> Any:
    """Import the module of `entry` and return its click command named `name`."""
    target = getattr(importlib.import_module(entry.module), entry.attr)
    if isinstance(target, typer.Typer):
        command = typer.main.get_command(target)
        command.name = name
    else:
        holder = typer.Typer()
        target(holder)
        command = typer.main.get_group(holder).commands[name]
    return polish(command, name)


class LazyGroup(ErrorGroup):
    """The top-level group: commands of `TABLE` stand in as `LazyCommand`s until one is invoked."""

    table: ClassVar[dict[str, Entry]] = {}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for name, entry in self.table.items():
            self.commands.setdefault(
                name, LazyCommand(name=name, short_help=entry.short_help, help=entry.short_help)
            )
        polish(self, "")

    def real_command(self, name: str) -> Any:
        """The loaded command `name` (loading it the first time)."""
        command = self.commands.get(name)
        if isinstance(command, LazyCommand):
            command = load(name, self.table[name])
            self.commands[name] = command
        return command

    def resolve_command(self, ctx: Any, args: list[str]) -> tuple[str | None, Any, list[str]]:
        """Resolve as Typer does, then swap a stand-in for the real command."""
        name, command, rest = super().resolve_command(ctx, args)
        if name is not None and isinstance(command, LazyCommand):
            command = self.real_command(name)
        return name, command, rest


def lazy_group(table: dict[str, Entry]) -> type[TyperGroup]:
    """A LazyGroup class bound to `table` (Typer takes the group class, not an instance)."""
    return type("PsychoAgentGroup", (LazyGroup,), {"table": table})
