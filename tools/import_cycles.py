"""Lists import cycles among vkpersist's modules, counting imports inside functions too (a
lazy import hides a cycle from Python, not from the reader), not those only type checkers
see (`if TYPE_CHECKING:`). Exit status 1 if any."""
from __future__ import annotations

import ast
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1] / "vkpersist"


def module_graph() -> dict:
    mods = {".".join(p.relative_to(ROOT.parent).with_suffix("").parts): p
            for p in ROOT.rglob("*.py")}
    graph = {name: set() for name in mods}
    for name, path in mods.items():
        package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
        tree = ast.parse(path.read_text())
        typing_only = {id(n) for block in ast.walk(tree) if isinstance(block, ast.If)
                       and ast.unparse(block.test) == "TYPE_CHECKING" for n in ast.walk(block)}
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level and id(node) not in typing_only:
                parts = package.split(".")
                base = ".".join(parts[:len(parts) - node.level + 1] + ([node.module] if node.module else []))
                for target in [base] + [f"{base}.{a.name}" for a in node.names]:
                    if target in mods and target != name:
                        graph[name].add(target)
    return graph


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
