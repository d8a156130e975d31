"""The command line the identity scripts share: `dump OUT [options]` records what the code does now, `compare
BEFORE AFTER` tells whether two such records are the same."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence

Command = Callable[[argparse.Namespace], None]


def identity_main(
    doc: str | None,
    dump: Command,
    compare: Command,
    dump_help: str,
    dump_options: Callable[[argparse.ArgumentParser], None] | None = None,
    argv: Sequence[str] | None = None,
) -> None:
    """Parse `dump OUT ...` or `compare BEFORE AFTER` and run `dump` or `compare` with the parsed arguments;
    `dump_options` adds the script's own options to `dump`."""
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    d = sub.add_parser("dump", help=dump_help)
    d.add_argument("out", help="output JSON path")
    if dump_options is not None:
        dump_options(d)
    c = sub.add_parser("compare", help="compare two dumps")
    c.add_argument("before")
    c.add_argument("after")
    args = parser.parse_args(argv)
    (dump if args.command == "dump" else compare)(args)
