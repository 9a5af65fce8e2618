"""python/batchsim/_core.pyi (with the stub modules it imports from, _core_options.pyi)
against batchsim._core: the stub names every public class,
method, property, attribute and function of the module and nothing it lacks, with the
parameter names of pybind11's signatures. A binding added or renamed without its stub fails
here, naming what is missing or extra."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import batchsim._core as core

STUB = Path(__file__).resolve().parents[2] / "python" / "batchsim" / "_core.pyi"
OPTIONS_STUB = STUB.with_name("_core_options.pyi")
# pybind11 names unnamed parameters arg0, arg1, ...: the stub may name them positional-only.
UNNAMED = re.compile(r"arg\d+$")


class Stub:
    """What the stub declares: a kind ('function', 'class', 'property', 'attribute',
    'staticmethod', 'method') and, for callables, parameter lists (one per overload)."""

    def __init__(self, kind: str, node: ast.AST | None = None) -> None:
        self.kind = kind
        self.signatures: list[list[tuple[str, bool]]] = []
        self.members: dict[str, Stub] = {}
        if isinstance(node, ast.FunctionDef):
            self.add(node)

    def add(self, node: ast.FunctionDef) -> None:
        a = node.args
        params = [(p.arg, True) for p in a.posonlyargs] + [(p.arg, False) for p in a.args]
        if self.kind == "method":
            params = params[1:]  # self
        params += [(p.arg, False) for p in a.kwonlyargs]
        params += [("**" + a.kwarg.arg, False)] if a.kwarg else []
        self.signatures.append(params)


def decorators(node: ast.FunctionDef) -> set[str]:
    return {ast.unparse(d) for d in node.decorator_list}


def parse_class(node: ast.ClassDef) -> Stub:
    out = Stub("class")
    for item in node.body:
        if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
            out.members[item.target.id] = Stub("attribute")
        elif isinstance(item, ast.FunctionDef):
            marks = decorators(item)
            if any(m.endswith(".setter") for m in marks):
                out.members[item.name].kind = "attribute"  # a property with a setter
            elif "property" in marks:
                out.members[item.name] = Stub("property")
            elif item.name in out.members:  # the next @overload
                out.members[item.name].add(item)
            else:
                kind = "staticmethod" if "staticmethod" in marks else "method"
                out.members[item.name] = Stub(kind, item)
    return out


def stub_nodes() -> list[ast.stmt]:
    """The stub's top-level statements, where each class it takes from _core_options.pyi
    (`SimConfig = _core_options.SimConfig`) stands as that stub declares it."""
    options = {
        node.name: node
        for node in ast.parse(OPTIONS_STUB.read_text()).body
        if isinstance(node, ast.ClassDef)
    }
    nodes: list[ast.stmt] = []
    for node in ast.parse(STUB.read_text()).body:
        value = ast.unparse(node.value) if isinstance(node, ast.Assign) else ""
        nodes.append(options[value.split(".")[1]] if value.startswith("_core_options.") else node)
    return nodes


def parse_stub() -> dict[str, Stub]:
    out: dict[str, Stub] = {}
    for node in stub_nodes():
        if isinstance(node, ast.ClassDef):
            out[node.name] = parse_class(node)
        elif isinstance(node, ast.FunctionDef):
            if node.name in out:
                out[node.name].add(node)
            else:
                out[node.name] = Stub("function", node)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            out[node.target.id] = Stub("attribute")
    return out  # private aliases (plain `_X = ...`) are the stub's own, not the module's


def split_top_level(text: str) -> list[str]:
    """Splits a parameter list at the commas outside brackets and quotes (the argument
    guard's own splitter, which reads the same pybind11 signatures)."""
    from batchsim._arguments import _split_top_level

    return _split_top_level(text, ",")


def doc_signature_names(line: str) -> list[str]:
    """Parameter names of one pybind11 signature line `name(a: T, *, b: U = 1) -> R`."""
    inner = line[line.index("(") + 1 : line.rindex(")")]
    names = []
    for part in split_top_level(inner):
        name = re.split(r"[:=]", part, maxsplit=1)[0].strip()
        if name == "**kwargs" or name not in ("*", "/", "self"):
            names.append(name)
    return names


def runtime_signatures(obj: object, name: str) -> list[list[str]] | None:
    """Each overload's parameter names from pybind11's docstring; None when it has none."""
    doc = (getattr(obj, "__doc__", None) or "").strip()
    lines = [line for line in doc.splitlines() if line.startswith(f"{name}(")]
    if not lines:
        lines = re.findall(rf"^\d+\. ({re.escape(name)}\(.*)$", doc, re.MULTILINE)
    lines = [line for line in lines if "*args, **kwargs" not in line]
    return [doc_signature_names(line) for line in lines] or None


def matches(stub: list[tuple[str, bool]], runtime: list[str]) -> bool:
    if len(stub) != len(runtime):
        return False
    return all(
        s == r or (UNNAMED.match(r) is not None and positional)
        for (s, positional), r in zip(stub, runtime, strict=True)
    )


def public(names) -> set[str]:
    return {n for n in names if not n.startswith("_")}


def runtime_kind(owner: type, name: str) -> str:
    raw = vars(owner)[name]
    if isinstance(raw, property):
        return "property" if raw.fset is None else "attribute"
    if isinstance(raw, staticmethod):
        return "staticmethod"
    return "method" if callable(raw) else "attribute"


def compare_signatures(where: str, obj: object, name: str, stub: Stub, errors: list[str]) -> None:
    runtime = runtime_signatures(obj, name)
    if runtime is None:
        return
    for want in runtime:
        if not any(matches(s, want) for s in stub.signatures):
            got = [[p for p, _ in s] for s in stub.signatures]
            errors.append(f"{where}: parameters {got} in the stub, {want} in the module")


def compare_class(name: str, cls: type, stub: Stub, errors: list[str]) -> None:
    own = [n for n in vars(cls) if n not in ("__init__", "__doc__", "__module__")]
    missing = sorted(public(own) - set(stub.members))
    errors += [f"missing from the stub: {name}.{m}" for m in missing]
    for member, declared in stub.members.items():
        where = f"{name}.{member}"
        if not hasattr(cls, member):
            errors.append(f"in the stub but not the module: {where}")
            continue
        if member in vars(cls) and runtime_kind(cls, member) != declared.kind:
            kind = runtime_kind(cls, member)
            errors.append(f"{where}: {declared.kind} in the stub, {kind} in the module")
        if declared.signatures:
            compare_signatures(where, getattr(cls, member), member, declared, errors)


def stub_errors() -> list[str]:
    stub = parse_stub()
    errors = [f"missing from the stub: {n}" for n in sorted(public(dir(core)) - set(stub))]
    for name, declared in stub.items():
        if name.startswith("_"):  # the stub's own typing helpers (the fields' TypedDicts)
            continue
        if not hasattr(core, name):
            errors.append(f"in the stub but not the module: {name}")
        elif declared.kind == "class":
            compare_class(name, getattr(core, name), declared, errors)
        elif declared.kind == "function":
            compare_signatures(name, getattr(core, name), name, declared, errors)
    return errors


def test_stub_matches_module() -> None:
    errors = stub_errors()
    assert not errors, "_core.pyi and batchsim._core differ:\n  " + "\n  ".join(errors)


def test_signature_parser() -> None:
    line = "f(self: X, a: dict[str, int] = {}, *, b: str = 'x,y', **kwargs) -> None"
    assert doc_signature_names(line) == ["a", "b", "**kwargs"]


@pytest.mark.parametrize("name", ["NavMesh", "import_scene"])
def test_removing_a_name_is_caught(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The comparison is not vacuous: a stub without `name` fails it."""
    stub = parse_stub()
    del stub[name]
    monkeypatch.setattr(f"{__name__}.parse_stub", lambda: stub)
    assert f"missing from the stub: {name}" in stub_errors()
