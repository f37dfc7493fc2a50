"""Maintains the golden GLSL snapshots, tests/golden/ (glsl_snapshots/, snapshot_cases.py).

    python tools/glsl_snapshots.py record   # run the language tests, list every kernel
                                            # specialisation they compile in manifest.json
    python tools/glsl_snapshots.py update   # rewrite the snapshots from the current code
    python tools/glsl_snapshots.py diff     # show what the current code changes

`update` is for a deliberate change to the generated code: commit it on its own, with the
diff it shows. A refactor leaves `diff` empty (tests/golden/test_glsl_snapshots.py checks that).
"""
from __future__ import annotations

import argparse
import difflib
import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
TESTS = ROOT / "tests"
# importable by bare name, as tests/conftest.py makes them: snapshot_cases (golden/), the
# programs_lib.py it builds programs from (the top) and the test modules whose kernels the
# manifest names (lang/, kernels/)
sys.path[:0] = [str(TESTS / "golden"), str(TESTS), str(TESTS / "lang"), str(TESTS / "kernels")]
LANGUAGE_TESTS = sorted(str(p) for p in (TESTS / "lang").glob("test_lang_*.py")) + \
    [str(TESTS / "kernels" / "test_kernel_launch.py")]


def record() -> None:
    import pytest

    import vkpersist as vkp
    from vkpersist._kernel import Kernel
    from vkpersist.lang import types as T
    import snapshot_cases as sc

    seen = set()
    original = Kernel._compile

    def recording(self, types, info, *rest):
        compiled = original(self, types, info, *rest)
        module = sys.modules.get(self.pyfunc.__module__)
        if module is not None and getattr(module, self.__name__, None) is self and all(
                isinstance(t, (T.Scalar, T.Vector, T.ArrayType)) for t in types):
            seen.add((self.pyfunc.__module__, self.__name__, tuple(repr(t) for t in types)))
        return compiled

    Kernel._compile = recording
    try:
        code = pytest.main(["-q", "-p", "no:cacheprovider", *LANGUAGE_TESTS])
    finally:
        Kernel._compile = original
    if code != 0:
        sys.exit(f"the language tests failed (exit {code}); fix them before recording")
    entries, counts = [], {}
    for module, kernel, types in sorted(seen):
        for t in types:            # every recorded type must rebuild from its repr
            eval(t, {"vkp": vkp})
        base = f"{module.removeprefix('test_')}.{kernel}"
        counts[base] = counts.get(base, 0) + 1
        entries.append({"name": f"{base}.{counts[base]}", "module": module, "kernel": kernel,
                        "types": list(types)})
    sc.MANIFEST.parent.mkdir(parents=True, exist_ok=True)
    sc.MANIFEST.write_text(json.dumps(entries, indent=1) + "\n")
    print(f"{len(entries)} kernel specialisations in {sc.MANIFEST.relative_to(ROOT)}")


def _current():
    import vkpersist as vkp
    import snapshot_cases as sc
    with vkp.Context(timeout=60) as ctx:
        return sc, sc.generate(ctx)


def update() -> None:
    sc, files = _current()
    sc.write(files)
    print(f"{len(files)} snapshots written under {sc.ROOT.relative_to(ROOT)}")


def diff() -> int:
    sc, files = _current()
    changed = 0
    stored = {str(p.relative_to(sc.ROOT)): p for p in sc.ROOT.glob("*/*/*.glsl")}
    for rel in sorted(set(files) | set(stored)):
        old = stored[rel].read_text() if rel in stored else ""
        new = files.get(rel, "")
        if old != new:
            changed += 1
            sys.stdout.writelines(difflib.unified_diff(
                old.splitlines(True), new.splitlines(True), f"a/{rel}", f"b/{rel}"))
    print(f"{changed} of {len(files)} snapshots differ", file=sys.stderr)
    return 1 if changed else 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("action", choices=["record", "update", "diff"])
    action = parser.parse_args().action
    if action == "record":
        record()
    elif action == "update":
        update()
    else:
        sys.exit(diff())
