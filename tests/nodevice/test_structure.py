"""The layering DESIGN.md promises, checked: only vkpersist/vk/ imports the `vulkan` binding,
the kernel language (lang/) imports none of the layers above it, no import cycles between
vkpersist's modules (lazy imports counted), and modules and functions of a readable size.
No device needed."""
import ast
import pathlib
import sys
import warnings

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

import import_cycles  # noqa: E402

SOURCES = sorted((ROOT / "vkpersist").rglob("*.py"))
# a module past LOOK_AT lines is a signal to look for a seam (a warning listing them); past
# MAX_LINES, or a function past MAX_FUNCTION, it has one: split it there
LOOK_AT, MAX_LINES, MAX_FUNCTION = 700, 1000, 210


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


def test_modules_and_functions_stay_readable():
    sizes = {str(p.relative_to(ROOT)): len(p.read_text().splitlines()) for p in SOURCES}
    look = {p: n for p, n in sizes.items() if n > LOOK_AT}
    if look:
        warnings.warn(f"modules over {LOOK_AT} lines (look for a seam): {look}")
    assert not {p: n for p, n in sizes.items() if n > MAX_LINES}, f"split at a seam (over {MAX_LINES} lines)"
    long = {}
    for p in SOURCES:
        for node in ast.walk(ast.parse(p.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) \
                    and node.end_lineno - node.lineno + 1 > MAX_FUNCTION:
                long[f"{p.relative_to(ROOT)}:{node.name}"] = node.end_lineno - node.lineno + 1
    assert not long, f"functions over {MAX_FUNCTION} lines: {long}"
