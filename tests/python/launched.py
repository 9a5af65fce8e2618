"""Running torchrun-style launchers in tests without leaving ranks behind: a launcher starts
each rank in a session of its own, so killing the launcher alone orphans them (a failed
rendezvous once left a rank running for an hour). Stop it with SIGTERM instead, which it
forwards to its ranks and follows with SIGKILL after its shutdown timeout."""

from __future__ import annotations

import subprocess

GRACE_S = 90  # longer than torchrun's default shutdown timeout (30 s)


def stop(process: subprocess.Popen) -> None:
    """SIGTERM, then SIGKILL if the launcher is still there after GRACE_S."""
    if process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=GRACE_S)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def run(command: list[str], env: dict, timeout: float) -> subprocess.CompletedProcess:
    """subprocess.run(capture_output=True, text=True) for a launcher: on a timeout, or any
    other way out, the launcher is stopped with its ranks before this returns or raises."""
    process = subprocess.Popen(
        command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        out, err = process.communicate(timeout=timeout)
    finally:
        stop(process)
    return subprocess.CompletedProcess(command, process.returncode, out, err)
