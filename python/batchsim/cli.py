"""The `batchsim` command line. Subcommands arrive with the subsystems they drive."""

from __future__ import annotations

import argparse
import sys


def _doctor(args: argparse.Namespace) -> int:
    from batchsim.doctor import run_doctor

    return run_doctor(self_test=not args.no_self_test)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="batchsim", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    doctor = commands.add_parser(
        "doctor", help="check Vulkan, CUDA and zero-copy export on this machine"
    )
    doctor.add_argument(
        "--no-self-test", action="store_true", help="only list devices, run no GPU work"
    )
    doctor.set_defaults(handler=_doctor)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return args.handler(args)


if __name__ == "__main__":
    sys.exit(main())
