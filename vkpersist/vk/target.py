"""A device target: what code generation and the scheduler decide from a device, in one small
object built in one place (`Target.for_device`), the only code outside the runtime's own
probes that asks which driver a device runs. Tests and benchmarks that want another shape
construct one (`dataclasses.replace(ctx.target, steps_ahead=2)`) rather than patching
constants. Pure data: importing it loads no Vulkan binding.

Each choice, its reason and one measurement (VULKAN_FACTS.md; their history, dated, is
docs/measurements-log.md, "Device target knobs (from vk/target.py)";
benchmarks/probes/target_ab.py runs any knob changed against the default):

- memory_model: control words and the megakernel's barriers use the Vulkan memory model's
  scoped atomics and availability/visibility where the device has it, except on lavapipe
  (Mesa 22.3): there an acquire atomicLoad in a loop that only some invocations of a
  multi-vector workgroup run ends that workgroup's code silently (docs/driver_notes.md).
- loop_guard: lavapipe ends every loop silently once an invocation has run ~65,535 loop
  iterations in all (§5); guarded shaders count them and report a kernel that reaches
  LOOP_GUARD_LIMIT instead of returning truncated results.
- steps_ahead: the megakernel prepares the boundary of step t + 2 while step t runs on GPUs
  (H200 step floor 2.11 -> 1.59 µs); under the loop guard one step ahead, because the
  iteration budget must be checked on what the steps before used.
- dedicated_planner_from: from 16 participants on, participant 0 only prepares steps (the
  32³ stencil lost a worker without the extra group: 170k vs 203k steps/s on the H200);
  never on lavapipe, which runs 2 workgroups at once on 2 cores.
- workgroups_at_once: lavapipe runs one workgroup per pool thread at a time (§6,
  LP_NUM_THREADS or the CPU count, at most 32), so the megakernel launches that many; None
  on GPUs, where occupancy discovery finds the co-resident workgroups.
- float_preserve: the float widths whose signed zeros, infinities and NaNs every shader asks
  the driver to keep (SignedZeroInfNanPreserve, vk/spirv.py), where the device offers it.
- exact_division: whether the device's float32 `/` and sqrt are correctly rounded, as
  Python, NumPy and CUDA's defaults are; where not, the kernel language corrects them by
  the exact residual (lang/_mathglsl.py: div_rn, sqrt_rn). Vulkan allows 2.5 ulp: on the
  H200 (580.159.04) 30 % of random float32 quotients are off by an ulp
  (benchmarks/probes/float_semantics.py). lavapipe's (LLVM's) are correctly rounded, and
  its `precise` fma is not fused, which the correction needs; other drivers get it.
- grid_barrier: how the megakernel's grid barriers order memory under the Vulkan memory
  model. "fence": every invocation's workgroup barrier makes the arrays' writes available
  at device scope, invocation 0 arrives with a relaxed add; "release": the workgroup
  barrier makes them available to the workgroup only, and invocation 0's arrival is a
  release add at device scope (CUDA's __syncthreads + red.release.gpu). The polls end in
  an acquire fence in both. "release" on every device: on the H200 the stencil made 268k
  steps/s at 32³ against 234k with "fence" (benchmarks/programs.py --barriers),
  bit-identical. (lavapipe has no usable memory model: neither applies there.)
- spin_unroll: polls per spin-loop iteration: 1 on GPUs (8 gained nothing on an H100); 16
  under the loop guard, which counts iterations, not time (a poll costs ~23 ns on
  lavapipe, so 16 make an iteration of ~0.4 µs; every grid barrier keeps the loop budget,
  so a waiter's iterations only end epochs sooner under load). No more, because each poll
  of every inlined barrier costs the driver's compiler: on 2 cores the `combo` test
  program's megakernel took 13.2 s to build with 64 polls, 3.4 s with 16 (2026-12-07).
- loop_budget: under the loop guard, the loop iterations an invocation of the megakernel
  may reach before its epoch ends (scheduler/_budget.py: every grid barrier keeps to it,
  waits included): LOOP_BUDGET, 1,000 below the guard's report and 1,535 below lavapipe's
  cut, for the loop passes the guard cannot see (a resumed step's skipped stages). Tests
  shrink it to make epochs end at barriers often.
- readonly_alias: the megakernel loads an array it also writes through a second block
  declared `readonly` on the same binding, where no store to that array can have happened
  since the last grid barrier (scheduler/_plan.py: place_cached_reads). On NVIDIA a
  written buffer's loads skip the L1 cache whatever its qualifiers, and a readonly
  block's are cached: the megakernel's stencil went from 41.9k to 72.1k steps/s at 128³
  (H100, 2026-12-06, benchmarks/programs.py), bit-identical. The cached path does not see
  the invocation's own earlier stores (tests/programs/test_cached_loads.py), hence the rule.
  NVIDIA's driver only (driver_id 4): elsewhere not measured. The two blocks are declared
  Aliased (vk/spirv.py `annotate`): SPIR-V lets a driver assume that two variables never
  alias unless they say so, and without it NVIDIA's (580.159, H100) loaded the readonly
  block's value from before the invocation's own store through the other, across a
  barrier (tests/lang/test_spirv_opt.py).
- float_as_written: every float operation of the code the language generates is
  decorated NoContraction (GLSL's `precise`): evaluated as written, never fused into an
  fma or reassociated. Vulkan lets a driver do both where the decoration is missing, and
  NVIDIA's did: with spirv-opt's inlining it folded (x * 3) * 5 into x * 15, every
  element an ulp off NumPy's and off the fallback's (H100, 580.159, 2026-12-07). So a
  kernel computes Python's and NumPy's arithmetic, and the persistent and launch modes
  stay bit-identical by the specification, not by luck. `vkp.fma` still fuses where a
  kernel asks. GLSL written by hand (`glsl_kernel`) keeps GLSL's rules.
- fft_rows_in_shared: the FFT's shared-memory kernels (vkpersist/fft/_kernels.py): rows
  of up to 16 KB transformed whole by one workgroup (one read and one write of the row
  instead of one each per radix-2 pass: 11 for the rows of 2048 that Bluestein's n = 1000
  takes), longer rows in passes of radix up to 256, and Bluestein lengths whose padded
  rows fit as one kernel. Not on lavapipe, where the radix-2 passes spread over both
  cores and the shared kernels' barriers cost more (2**20 complex64 on 2 cores,
  2026-12-06: 312 ms in radix-2 passes against 530 in the shared kernels).
- ordered_from: a domain stage of at least this many indices, the step's only one, takes
  its indices in chunks of a workgroup, in order, from an atomic counter, instead of a
  fixed grid stride (scheduler/_plan.py, `place_ordered`); 0: never. Over the hundreds of
  indices each invocation takes a step on a large grid, a grid-stride loop lets workgroups
  drift apart, and the window of planes a stencil stage reads spreads out of L2; handed
  out in order, they sweep the grid together, as a launch's workgroups do: the fused FDTD
  update went from 30,737 to 48,007 Mcells/s at 512³ (H200, 2026-12-06), bit-identical.
  NVIDIA only, from 24 million indices (~288³, where the strided megakernel began to fall
  behind), and only where the step has one stage that large (the two-stage stencil lost
  in order: the workgroup barriers around each grab); on small grids the counter's round
  trip per workgroup of indices costs more than the order gains.
- spirv_opt: the spirv-opt passes (SPIRV_OPT_PASSES) the megakernel's SPIR-V goes through
  before the driver: "inline-cse" inlines every function, promotes variables to SSA,
  propagates constants and eliminates common subexpressions. Not simplify-instructions
  (nor -O, which runs it): it rewrites float arithmetic ((x * 3) * 5 -> x * 15), and the
  states must stay bit-identical to the fallback's. With it the fused FDTD update made
  7,994 Mcells/s at 32³ against 7,389 without (1.05x the CUDA graph, from 0.97x; H100,
  2026-12-07). On every device, lavapipe included, so that CI runs the path: spirv-opt
  takes ~0.1 s a megakernel there.
- solve_group_max: np.linalg.solve/inv/det factor and solve matrices up to this size with
  one workgroup each, barriers instead of ~6 launches a column: a 256 x 256 solve takes
  6.6 ms with it, 31.6 without (H100, CuPy 0.65; benchmarks/numpy_functions.py). 0 on
  lavapipe, where one workgroup is one CPU thread and its barriers are dear (252 against
  170 ms at 256, 2026-12-05).
"""
from __future__ import annotations

import os
from dataclasses import dataclass

DRIVER_ID_LLVMPIPE = 13          # VK_DRIVER_ID_MESA_LLVMPIPE
DRIVER_ID_NVIDIA = 4             # VK_DRIVER_ID_NVIDIA_PROPRIETARY
LOOP_GUARD_LIMIT = 65000         # lavapipe stops every loop at ~65,535 iterations per invocation
LOOP_BUDGET = LOOP_GUARD_LIMIT - 1000   # Target.loop_budget on lavapipe
ORDERED_FROM = 24_000_000        # NVIDIA: stages of this many indices take them in order
# Target.spirv_opt: the spirv-opt options each name runs the megakernel's SPIR-V through.
# What keeps "inline-cse" sound for the megakernel (checked with glslang 13.1.1 and
# SPIRV-Tools 2025.5, 2026-12-07): redundancy-elimination merges only loads it takes for
# read-only, and glslang marks a `readonly` block's members NonWritable, never the block
# variable, so the readonly aliases' loads are not merged across a grid barrier (with the
# variable decorated they would be); aggressive dead-code elimination deletes an empty spin
# loop on a plain load, even a volatile one, and every poll of the megakernel is an
# atomicLoad, which it keeps. No pass rewrites float arithmetic (-O's simplify-instructions
# would: (x * 3) * 5 -> x * 15; tests/lang/test_spirv_opt.py). Scalar replacement stops at 100
# elements, as in -O, so that a large local array is not split into as many variables.
_INLINE_CSE = ("eliminate-dead-branches", "merge-return", "inline-entry-points-exhaustive",
               "eliminate-dead-functions", "eliminate-dead-code-aggressive", "private-to-local",
               "eliminate-local-single-block", "eliminate-local-single-store",
               "scalar-replacement=100", "convert-local-access-chains", "ssa-rewrite",
               "eliminate-dead-code-aggressive", "ccp", "redundancy-elimination",
               "combine-access-chains", "eliminate-dead-code-aggressive")
SPIRV_OPT_PASSES = {
    "none": (),
    "inline-cse": tuple(f"--{p}" for p in _INLINE_CSE),
}


@dataclass(frozen=True)
class Target:
    name: str                    # the device's name, for messages
    memory_model: bool
    loop_guard: bool
    steps_ahead: int
    dedicated_planner_from: int | None
    spin_unroll: int
    workgroups_at_once: int | None
    int64: bool
    float64: bool
    atomic_int64: bool
    atomic_float: bool
    subgroup_ops: frozenset = frozenset()     # DeviceInfo.subgroup_ops: warp functions
    float_preserve: frozenset = frozenset()   # DeviceInfo.float_preserve
    exact_division: bool = True
    grid_barrier: str = "release"
    atomic_int64_shared: bool = False         # DeviceInfo.atomic_int64_shared
    fft_rows_in_shared: bool = True
    readonly_alias: bool = False
    solve_group_max: int = 256
    loop_budget: int = 0                      # under the loop guard: see the module docs
    ordered_from: int = 0
    spirv_opt: str = "inline-cse"
    float_as_written: bool = True

    def __post_init__(self):
        if self.spirv_opt not in SPIRV_OPT_PASSES:
            raise ValueError(f"Target(spirv_opt={self.spirv_opt!r}): the choices are "
                             f"{', '.join(map(repr, SPIRV_OPT_PASSES))}")

    @classmethod
    def for_device(cls, info) -> "Target":
        """The target of a device, from its DeviceInfo."""
        lavapipe = info.driver_id == DRIVER_ID_LLVMPIPE
        return cls(name=info.name, memory_model=info.memory_model and not lavapipe,
                   loop_guard=lavapipe, steps_ahead=1 if lavapipe else 2,
                   dedicated_planner_from=None if lavapipe else 16,
                   spin_unroll=16 if lavapipe else 1,
                   workgroups_at_once=_pool_threads() if lavapipe else None,
                   int64=info.int64, float64=info.float64,
                   atomic_int64=info.atomic_int64, atomic_float=info.atomic_float,
                   subgroup_ops=info.subgroup_ops, float_preserve=info.float_preserve,
                   exact_division=lavapipe, atomic_int64_shared=info.atomic_int64_shared,
                   fft_rows_in_shared=not lavapipe,
                   solve_group_max=0 if lavapipe else 256,
                   loop_budget=LOOP_BUDGET if lavapipe else 0,
                   readonly_alias=info.driver_id == DRIVER_ID_NVIDIA and info.memory_model,
                   ordered_from=ORDERED_FROM if info.driver_id == DRIVER_ID_NVIDIA else 0)

    @classmethod
    def any_device(cls) -> "Target":
        """For GLSL made without a device (`kernel.glsl()`): every feature, the memory model,
        no loop guard."""
        return cls(name="any device", memory_model=True, loop_guard=False, steps_ahead=2,
                   dedicated_planner_from=16, spin_unroll=1, workgroups_at_once=None,
                   int64=True, float64=True,
                   atomic_int64=True, atomic_float=True,
                   subgroup_ops=frozenset(("basic", "vote", "arithmetic", "ballot", "shuffle",
                                           "shuffle_relative", "clustered", "quad",
                                           "extended_types")),
                   float_preserve=frozenset((16, 32, 64)), exact_division=False,
                   atomic_int64_shared=True)


def _pool_threads() -> int:
    return max(1, min(32, int(os.environ.get("LP_NUM_THREADS") or os.cpu_count() or 1)))


def target_of(device) -> Target:
    """A Target from a Target, a Context (its target), a DeviceInfo, or None (any device)."""
    if device is None:
        return Target.any_device()
    if isinstance(device, Target):
        return device
    target = getattr(device, "target", None)
    if isinstance(target, Target):
        return target
    return Target.for_device(device)
