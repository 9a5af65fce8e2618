"""`batchsim doctor`: Vulkan devices, CUDA and zero-copy export on this machine (batchsim.doctor
does the checking)."""

from __future__ import annotations

import argparse


def add_command(commands: argparse._SubParsersAction) -> None:
    cmd = commands.add_parser(
        "doctor", help="check Vulkan, CUDA and zero-copy export on this machine"
    )
    cmd.add_argument(
        "--no-self-test", action="store_true", help="only list devices, run no GPU work"
    )
    cmd.set_defaults(handler=_doctor)


def _doctor(args: argparse.Namespace) -> int:
    from batchsim.doctor import run_doctor

    return run_doctor(self_test=not args.no_self_test)
