"""Everyday mistakes at the command line end in one line `error: ...` and exit code 2, never a traceback.

`ErrorGroup` is the Typer group class of the `psychoagent` command: it turns usage errors (a bad option value)
and the errors bad input raises deep in the library (pydantic validation, SQLite, undecodable text, missing
files, missing optional dependencies) into that one line. Checks that must run before anything is written stay
in the commands; this is the boundary that keeps what slips through readable.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any, NoReturn

import typer
from pydantic import ValidationError
from typer.core import TyperGroup

USAGE_EXIT = 2
"""Exit code of a usage or input error (the POSIX and Click convention); 1 is left for failed runs."""

_USAGE_ERROR: type[Exception] = next(c for c in typer.BadParameter.__mro__ if c.__name__ == "UsageError")


def fail(message: str) -> NoReturn:
    """Print `error: message` on stderr and exit with code 2."""
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(USAGE_EXIT)


def check_input(path: Path) -> None:
    """Exit 2 unless --input is '-' (stdin) or an existing path that is not a folder: devices and pipes such as
    /dev/null or a shell's <(...) are streams too."""
    if str(path) == "-" or (path.exists() and not path.is_dir()):
        return
    what = "is a folder" if path.is_dir() else "does not exist"
    fail(f"--input {path} {what}; give a JSONL file or '-' for stdin")


def validation_message(exc: ValidationError, origin: str = "") -> str:
    """The first error of a pydantic ValidationError as 'origin: field 'a.b': message (n more)'."""
    errors = exc.errors()
    first = errors[0] if errors else {"loc": (), "msg": str(exc)}
    field = ".".join(str(p) for p in first.get("loc", ())) or "(value)"
    more = f" ({len(errors) - 1} more)" if len(errors) > 1 else ""
    head = f"{origin}: " if origin else ""
    return f"{head}field {field!r}: {first.get('msg', '')}{more}"


def translate(exc: BaseException) -> str | None:
    """The one-line message for an exception caused by bad input, or None for anything else (a bug)."""
    if isinstance(exc, ValidationError):
        return validation_message(exc, exc.title)
    if isinstance(exc, UnicodeDecodeError):
        return f"input is not valid UTF-8 text ({exc.reason} at byte {exc.start}); save it as UTF-8"
    if isinstance(exc, sqlite3.DatabaseError):
        return f"SQLite: {exc}"
    if isinstance(exc, FileNotFoundError | IsADirectoryError | NotADirectoryError | FileExistsError):
        return f"{exc.strerror}: {exc.filename}"
    if isinstance(exc, PermissionError):
        return f"permission denied: {exc.filename}"
    if isinstance(exc, ImportError):
        return f"a needed package is missing: {exc}"
    if isinstance(exc, ValueError):
        return str(exc)
    return None


def _usage_line(exc: Any) -> str:
    ctx = getattr(exc, "ctx", None)
    where = f"{ctx.command_path}: " if ctx is not None else ""
    return f"{where}{exc.format_message()} (see --help)"


class ErrorGroup(TyperGroup):
    """A Typer group whose commands report bad input in one line with exit code 2 instead of a traceback."""

    def invoke(self, ctx: Any) -> Any:
        """Run the command; translate usage errors and bad-input exceptions into `error: ...` + exit 2."""
        try:
            return super().invoke(ctx)
        except (typer.Exit, typer.Abort, KeyboardInterrupt, SystemExit):
            raise
        except _USAGE_ERROR as exc:
            if type(exc).__name__ == "NoArgsIsHelpError":
                raise
            fail(_usage_line(exc))
        except Exception as exc:
            message = translate(exc)
            if message is None:
                raise
            fail(message)
