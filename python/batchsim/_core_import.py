"""Why `batchsim._core` failed to load, in words a user can act on.

The wheel bundles every library the core links except the Vulkan loader, which must come
from the system with its drivers. A missing loader shows up as a bare dlopen error naming
libvulkan.so.1; this turns it into what to install."""

from __future__ import annotations

from batchsim.doctor import INSTALL_HINT


def explain(exc: ImportError) -> ImportError:
    """The ImportError to raise in place of `exc`, the failed import of batchsim._core."""
    if "libvulkan" in str(exc):
        return ImportError(
            "batchsim needs the system's Vulkan loader (libvulkan.so.1), which is not "
            f"installed or not on the library path ({exc}).\n{INSTALL_HINT}\n"
            "Then run `batchsim doctor` to check the machine."
        )
    return ImportError(
        f"batchsim's compiled core could not be loaded ({exc}). The Vulkan loader "
        "(Debian: apt-get install libvulkan1 mesa-vulkan-drivers) must be installed; "
        "run `bash scripts/setup.sh` from a checkout to install everything."
    )
