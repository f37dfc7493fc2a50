"""The generated GLSL is pinned: every kernel specialisation of the language tests and every
program of programs_lib.py, for a lavapipe and a GPU target (snapshot_cases.py), must match
tests/golden/glsl_snapshots byte for byte. A refactor keeps them; a deliberate change to the
generated code updates them (`python tools/glsl_snapshots.py update`) in a commit of its
own that shows the diff."""
import difflib

import pytest

import snapshot_cases as sc


@pytest.fixture(scope="module")
def generated(device_info, ctx):
    if device_info.index != 0:
        pytest.skip("the snapshots do not depend on the device: checked once")
    return sc.generate(ctx)


def test_every_snapshot_is_generated(generated):
    stored = {str(p.relative_to(sc.ROOT)) for p in sc.ROOT.glob("*/*/*.glsl")}
    assert stored == set(generated), (
        f"missing snapshots: {sorted(set(generated) - stored)}; stale: "
        f"{sorted(stored - set(generated))} (python tools/glsl_snapshots.py update)")


def test_generated_glsl_matches_the_snapshots(generated):
    differ = []
    for rel, text in sorted(generated.items()):
        path = sc.ROOT / rel
        if path.exists() and path.read_text() != text:
            differ.append("".join(difflib.unified_diff(
                path.read_text().splitlines(True), text.splitlines(True), f"a/{rel}",
                f"b/{rel}", n=2))[:3000])
    assert not differ, f"{len(differ)} snapshot(s) differ; the first:\n{differ[0]}"


def test_the_derived_names_table_covers_the_generated_code(generated):
    """Program._check_name refuses declarations named like another's generated names from
    a table of suffixes (scheduler/_program.py: _DERIVED) that the code generator spells
    inline: every `{declaration}_{suffix}` name in every snapshot program's GLSL, on both
    targets and in both modes, must be in that table, or a new suffix went unrefused."""
    import re
    from vkpersist.lang.source import glsl_name
    from vkpersist.scheduler._program import _DERIVED
    unlisted = set()
    assert sc.DECLARATIONS
    for path, kinds in sc.DECLARATIONS.items():
        bases = {glsl_name(d) for d in kinds}
        for decl, kind in kinds.items():
            base = glsl_name(decl)
            for suffix in re.findall(rf"\b{re.escape(base)}_(\w+)", generated[path]):
                # a name another declaration owns (an array pair's A_next, A_next_buffer
                # beside A) is checked as that declaration's
                full = f"{base}_{suffix}"
                if max((b for b in bases if full == b or full.startswith(b + "_")),
                       key=len, default=base) != base:
                    continue
                if suffix not in _DERIVED[kind]:
                    unlisted.add((path, decl, suffix))
    assert not unlisted, f"generated names missing from _DERIVED: {sorted(unlisted)}"
