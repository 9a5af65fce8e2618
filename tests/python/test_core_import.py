"""A missing Vulkan loader gives an ImportError that says what to install, simulated by a
fake batchsim._core that fails the way the real one does (the loader stays installed)."""

import subprocess
import sys
import textwrap

from batchsim._core_import import explain

# What the dynamic linker reports when libvulkan.so.1 is absent.
DLOPEN_ERROR = "libvulkan.so.1: cannot open shared object file: No such file or directory"


def import_batchsim_with_failing_core(message: str) -> subprocess.CompletedProcess:
    # A meta path finder that answers for batchsim._core before the real extension.
    script = textwrap.dedent(f"""
        import sys

        class FailingCore:
            def find_spec(self, name, path=None, target=None):
                if name == "batchsim._core":
                    raise ImportError({message!r})
                return None

        sys.meta_path.insert(0, FailingCore())
        import batchsim
    """)
    return subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )


def test_missing_vulkan_loader_says_what_to_install():
    result = import_batchsim_with_failing_core(DLOPEN_ERROR)
    assert result.returncode != 0
    last = result.stderr.strip().splitlines()
    assert any("ImportError: batchsim needs the system's Vulkan loader" in x for x in last)
    assert "apt-get install libvulkan1 mesa-vulkan-drivers" in result.stderr
    assert "batchsim doctor" in result.stderr
    assert "direct cause" not in result.stderr  # one clear message, not a chain of traces


def test_other_import_failures_keep_their_cause():
    result = import_batchsim_with_failing_core("undefined symbol: _ZN5squish")
    assert result.returncode != 0
    assert "compiled core could not be loaded (undefined symbol: _ZN5squish)" in result.stderr
    assert "Vulkan loader (libvulkan.so.1), which" not in result.stderr


def test_explain_names_the_original_error():
    err = explain(ImportError(DLOPEN_ERROR))
    assert isinstance(err, ImportError)
    assert DLOPEN_ERROR in str(err)
