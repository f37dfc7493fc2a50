"""The layering DESIGN.md promises, checked: only vkpersist/vk/ imports the `vulkan` binding,
no import cycles between vkpersist's modules (lazy imports counted), and no module over
~700 lines. No device needed."""
import ast
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

import import_cycles  # noqa: E402

SOURCES = sorted((ROOT / "vkpersist").rglob("*.py"))
MAX_LINES = 700


def test_only_the_runtime_imports_the_vulkan_binding():
    offenders = []
    for path in SOURCES:
        for node in ast.walk(ast.parse(path.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else []
            if any(n == "vulkan" or n.startswith("vulkan.") for n in names) \
                    and "vk" not in path.relative_to(ROOT / "vkpersist").parts[:1]:
                offenders.append(str(path.relative_to(ROOT)))
    assert not offenders, offenders


def test_no_import_cycles():
    assert import_cycles.cycles(import_cycles.module_graph()) == []


def test_modules_stay_small():
    long = {str(p.relative_to(ROOT)): n for p in SOURCES
            if (n := len(p.read_text().splitlines())) > MAX_LINES}
    assert not long, f"split these (over {MAX_LINES} lines): {long}"
