"""The layering DESIGN.md promises, checked: only vkpersist/vk/ imports the `vulkan` binding,
the kernel language (lang/) imports none of the layers above it, no import cycles between
vkpersist's modules (lazy imports counted), and no module over ~700 lines. No device
needed."""
import ast
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
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


def _imported_modules(path):
    """The vkpersist modules (dotted) that `path` imports, relative imports resolved."""
    package = list(path.relative_to(ROOT).parts[:-1])      # a module's or an __init__'s
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = package[:len(package) - node.level + 1] + (node.module or "").split(".")
            base = [b for b in base if b]
            yield ".".join(base)
            yield from (".".join(base + [a.name]) for a in node.names)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module]
            yield from (n for n in names if n.startswith("vkpersist."))


def test_the_language_imports_no_layer_above_it():
    """lang/ is below the per-launch kernels, the channels and the scheduler: those register
    their front ends and GPU sides with it (lang/channels.py, lang/glsl.py), it never
    imports them."""
    above = ("vkpersist._kernel", "vkpersist.control", "vkpersist.memsock", "vkpersist.scheduler")
    offenders = {f"{p.relative_to(ROOT)} imports {m}"
                 for p in (ROOT / "vkpersist" / "lang").glob("*.py")
                 for m in _imported_modules(p) if m.startswith(above)}
    assert not offenders, sorted(offenders)


def test_no_import_cycles():
    assert import_cycles.cycles(import_cycles.module_graph()) == []


def test_modules_stay_small():
    long = {str(p.relative_to(ROOT)): n for p in SOURCES
            if (n := len(p.read_text().splitlines())) > MAX_LINES}
    assert not long, f"split these (over {MAX_LINES} lines): {long}"
