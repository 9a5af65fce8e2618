"""Builds the HTML API reference of the importable batchsim package with pdoc.

    python3 scripts/build_docs.py build/docs

Every public module is listed explicitly: pdoc on its own follows only the submodules a
package names in __all__. Types of batchsim._core come from its stubs, _core.pyi and the
_core_options.pyi it imports. Nothing here opens a Vulkan device, so it runs on machines
without a GPU.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.machinery
import importlib.util
import pkgutil
import shutil
import sys
import warnings
from pathlib import Path

import pdoc


def public_modules(package: str) -> list[str]:
    """`package`, its compiled core and every submodule without a leading underscore in its
    dotted name. The core has a page of its own: pdoc applies _core.pyi's types there only."""
    root = importlib.import_module(package)
    names = [package, f"{package}._core"]
    for info in pkgutil.walk_packages(root.__path__, prefix=f"{package}."):
        parts = info.name.split(".")
        if not any(part.startswith("_") for part in parts):
            names.append(info.name)
    return sorted(names)


def resolve_lazy_names(module_name: str) -> None:
    """pdoc reads a module's __dict__, so names served by a module __getattr__ (batchsim's
    BatchNavEnv, imported on first use) are looked up once and stored there."""
    module = importlib.import_module(module_name)
    for name in getattr(module, "__all__", []):
        if name not in vars(module):
            setattr(module, name, getattr(module, name))


def load_stub_modules(package: str) -> None:
    """pdoc executes _core.pyi, which assigns the option types of _core_options.pyi, a stub
    with no module behind it: each such stub is loaded first, as the module its name says."""
    root = Path(importlib.import_module(package).__file__).parent
    for stub in sorted(root.glob("*.pyi")):
        name = f"{package}.{stub.stem}"
        if importlib.util.find_spec(name) is not None:
            continue  # a real module: pdoc applies its stub itself
        loader = importlib.machinery.SourceFileLoader(name, str(stub))
        module = importlib.util.module_from_spec(importlib.util.spec_from_loader(name, loader))
        loader.exec_module(module)
        sys.modules[name] = module


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="output folder (replaced)")
    parser.add_argument("--package", default="batchsim")
    args = parser.parse_args(argv)
    modules = public_modules(args.package)
    resolve_lazy_names(args.package)
    load_stub_modules(args.package)
    shutil.rmtree(args.out, ignore_errors=True)
    # A package's spec also adds the submodules it lists; listing them again is harmless.
    warnings.filterwarnings("ignore", message=r"The module specification .* already been added")
    pdoc.render.configure(footer_text=f"{args.package} API reference")
    pdoc.pdoc(*modules, output_directory=args.out)
    pages = sum(1 for _ in args.out.rglob("*.html"))
    print(f"build_docs: {len(modules)} modules, {pages} pages in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
