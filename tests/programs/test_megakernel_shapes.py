"""The megakernel's GPU shape on lavapipe too: CI has no GPU, so the program tests that
matter most run once more on CPU devices with the structure GPUs get, steps prepared two
ahead of the one running (a GPU target's steps_ahead) and participant 0 only planning from
two participants on (lavapipe normally has it plan one step ahead between its own stage
work).
On GPUs, test_programs.py runs this shape already."""
import dataclasses
import functools

import pytest

import test_plan
import test_programs as tp
from vkpersist.vk.target import Target

CASES = {
    "bit-identical, 2 groups": functools.partial(tp.test_persistent_and_launch_are_bit_identical,
                                                 groups=2),
    "two participants": tp.test_persistent_with_two_participants_agrees,
    "every and step counter": functools.partial(tp.test_every_and_step_counter,
                                                mode="persistent"),
    "commands, pause, resume, stop": functools.partial(
        tp.test_session_commands_pause_resume_stop, mode="persistent"),
    "commands at a step": tp.test_commands_at_a_step_match_the_fallback_bit_for_bit,
    "queue BFS, 2 groups": functools.partial(tp.test_queue_bfs_matches_cpu, mode="persistent",
                                             groups=2),
    "memsock block policy": functools.partial(tp.test_memsock_block_policy_loses_nothing,
                                              mode="persistent"),
    "when conditions": functools.partial(tp.test_when_condition_on_device_data,
                                         mode="persistent"),
    "everything together": tp.test_everything_together_is_identical_in_both_modes,
    "elided barriers, 2 groups": functools.partial(
        test_plan.test_elided_barriers_keep_both_modes_bit_identical, groups=2),
}


@pytest.fixture
def gpu_shape(ctx, monkeypatch):
    if not ctx.info.is_lavapipe:
        pytest.skip("GPUs run this shape in test_programs.py")
    monkeypatch.setattr(ctx, "target", dataclasses.replace(ctx.target, steps_ahead=2,
                                                           dedicated_planner_from=2))


def test_the_gpu_shape_is_what_is_generated(ctx, gpu_shape):
    prog, _, _ = tp.jacobi(ctx, 8)
    src = prog.glsl()
    assert "uint w0 = (_vkp_nparts >= 2u ? 1u : 0u);" in src
    assert "_vkp_boundary(1u);" in src and "_vkp_boundary((s + 2u) % 3u);" in src
    prog.free()


@pytest.mark.parametrize("case", list(CASES))
def test_program_in_the_gpu_shape(ctx, gpu_shape, case):
    CASES[case](ctx)


def test_the_memory_model_shape_is_what_is_generated(ctx, monkeypatch):
    """GPUs with the Vulkan memory model get a megakernel whose written arrays are
    `nonprivate` (their loads may use L1) and whose grid barriers make those writes
    available and visible; lavapipe (no usable memory model) keeps `coherent` arrays. The
    text is checked here and compiled by glslang; the H200 runs it (docs/measurements-log.md)."""
    gpu = dataclasses.replace(ctx.info, driver_id=4, memory_model=True)  # NVIDIA's id
    monkeypatch.setattr(ctx, "target", dataclasses.replace(Target.for_device(gpu),
                                                           grid_barrier="fence"))
    prog, _, _ = tp.jacobi(ctx, 8)
    src = prog.glsl()
    assert src.startswith("#version 450\n#pragma use_vulkan_memory_model\n")
    assert "nonprivate buffer A_buffer" in src and "nonprivate buffer B_buffer" in src
    assert "coherent buffer _vkp_sched_buffer" in src    # polled words stay coherent
    barrier = ("controlBarrier(gl_ScopeWorkgroup, gl_ScopeDevice, gl_StorageSemanticsBuffer | "
               "gl_StorageSemanticsShared, gl_SemanticsAcquireRelease | gl_SemanticsMakeAvailable | "
               "gl_SemanticsMakeVisible);")
    for fn in ("_vkp_grid_sync", "_vkp_end_sync"):
        body = src[src.index(f"void {fn}("):]
        body = body[:body.index("\n}\n")]
        assert body.count(barrier) == 2 and "gl_SemanticsMakeVisible);   // acquire" in body
    assert "use_vulkan_memory_model" not in prog.glsl("launch")
    prog.free()
    monkeypatch.undo()
    prog, _, _ = tp.jacobi(ctx, 8)
    src = prog.glsl()
    if ctx.info.is_lavapipe:
        assert "use_vulkan_memory_model" not in src and "coherent buffer A_buffer" in src
    prog.free()


def test_release_ordered_grid_barriers_are_what_is_generated(ctx, monkeypatch):
    """Target.grid_barrier "release" (the default): workgroup-scope barriers around a device-scope
    release arrival, as CUDA's __syncthreads + red.release.gpu. Checked as text and by
    spirv-val here (lavapipe has no usable memory model to run it); the H200 measures and
    runs it (benchmarks/programs.py --barriers)."""
    from vkpersist.vk import spirv_val
    from vkpersist.vk.glslang import compile_glsl
    gpu = dataclasses.replace(ctx.info, driver_id=4, memory_model=True)  # NVIDIA's id
    monkeypatch.setattr(ctx, "target", Target.for_device(gpu))      # the default
    prog, _, _ = tp.jacobi(ctx, 8)
    src = prog.glsl()
    group = ("controlBarrier(gl_ScopeWorkgroup, gl_ScopeWorkgroup, gl_StorageSemanticsBuffer | "
             "gl_StorageSemanticsShared, gl_SemanticsAcquireRelease | gl_SemanticsMakeAvailable | "
             "gl_SemanticsMakeVisible);")
    for fn, word in (("_vkp_grid_sync", "ARRIVED"), ("_vkp_end_sync", "ENDS")):
        body = src[src.index(f"void {fn}("):]
        body = body[:body.index("\n}\n")]
        assert body.count(group) == 2 and "gl_ScopeDevice, gl_StorageSemanticsBuffer, " \
            "gl_SemanticsAcquireRelease" not in body
        assert (f"atomicAdd(_vkp_sched[_vkp_{word}], 1u, gl_ScopeDevice, "
                "gl_StorageSemanticsBuffer, gl_SemanticsRelease | "
                "gl_SemanticsMakeAvailable);") in body
        assert "gl_SemanticsAcquire | gl_SemanticsMakeVisible);   // acquire" in body
    if spirv_val.enabled():
        spirv_val.validate(compile_glsl(src, target_env="vulkan1.2"), "vulkan1.2", "jacobi")
    prog.free()


def test_large_programs_fill_the_gpu_with_workgroups_of_1024(ctx, monkeypatch):
    """fill_launch (the default launch shape on GPUs, scheduler/_runner.py): a megakernel
    whose largest stage has more than 256 x 512 indices runs in workgroups of 1,024, as many
    as fill every SM (132 of 2,048 invocations here: 264, the planner among them) or give
    each invocation one index, plus the planner; only where the driver reports at most 32
    registers an invocation, the device its SMs, and 1,024 divides what an SM holds."""
    import types
    from vkpersist.scheduler._runner import fill_launch
    from vkpersist._errors import UnsupportedError
    h100 = dataclasses.replace(ctx.info, compute_units=132, invocations_per_unit=2048,
                               max_workgroup_invocations=1024, max_workgroup_size=(1024, 1024, 64))
    monkeypatch.setattr(ctx, "info", h100)
    monkeypatch.setattr(ctx, "target", dataclasses.replace(
        ctx.target, workgroups_at_once=None, dedicated_planner_from=16, readonly_alias=True))

    def build(registers):
        def report(shader, local):
            assert shader == "mega" and local == 1024
            if registers is None:
                raise UnsupportedError("no statistics here")
            return types.SimpleNamespace(registers=registers)
        return types.SimpleNamespace(mega="mega", statistics=report)

    old = (99, 512)
    for n, registers, want in [(64, 32, (257, 1024)), (128, 32, (264, 1024)),
                               (128, 24, (264, 1024)), (128, 33, old), (128, None, old),
                               (32, 32, old), (50, 32, old)]:        # 50³ = 125,000 <= 131,072
        prog, _, _ = tp.jacobi(ctx, n)
        assert fill_launch(prog, build(registers), old) == want, (n, registers)
        prog.free()
    prog, _, _ = tp.jacobi(ctx, 128)
    for info, target in [(dataclasses.replace(h100, invocations_per_unit=1536), ctx.target),
                         (dataclasses.replace(h100, compute_units=0), ctx.target),
                         (h100, dataclasses.replace(ctx.target, readonly_alias=False))]:
        monkeypatch.setattr(ctx, "info", info)
        monkeypatch.setattr(ctx, "target", target)
        assert fill_launch(prog, build(32), old) == old
    prog.free()
