"""Lists import cycles among vkpersist's modules. It sees what Python runs: relative and
absolute imports (`import vkpersist`, `from vkpersist.lang import ir`), imports inside
functions (a lazy import hides a cycle from Python, not from the reader), and a package's
`__init__` as a module of its own (`from . import X` of a name defined there, or
`import vkpersist`, runs the package). Imports only type checkers see (`if TYPE_CHECKING:`)
do not count. Exit status 1 if any."""
from __future__ import annotations

import ast
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1] / "vkpersist"


def modules(root: pathlib.Path = ROOT) -> dict:
    """Dotted name -> path; a package is named by its `__init__.py`."""
    out = {}
    for p in root.rglob("*.py"):
        parts = p.relative_to(root.parent).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = p
    return out


def imports(name: str, path: pathlib.Path, mods: dict) -> set:
    """The vkpersist modules `name` (at `path`) imports."""
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    tree = ast.parse(path.read_text())
    typing_only = {id(n) for block in ast.walk(tree) if isinstance(block, ast.If)
                   and ast.unparse(block.test) == "TYPE_CHECKING" for n in ast.walk(block)}
    out = set()
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name in mods)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[:len(parts) - node.level + 1]
                                + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            subs = [f"{base}.{a.name}" for a in node.names if f"{base}.{a.name}" in mods]
            out.update(subs)
            if base in mods and len(subs) < len(node.names):   # a name defined in base
                out.add(base)
    out.discard(name)
    return out


def module_graph(root: pathlib.Path = ROOT) -> dict:
    mods = modules(root)
    return {name: imports(name, path, mods) for name, path in mods.items()}


def cycles(graph: dict) -> list:
    """Strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


if __name__ == "__main__":
    found = cycles(module_graph())
    for comp in found:
        print("cycle:", " <-> ".join(comp))
    sys.exit(1 if found else 0)
