"""A stable LSD radix sort of one row of 32-bit keys (float32, int32, uint32): the path
`np.sort` and `np.argsort` take for 1-d arrays of at least RADIX_MIN elements
(_sorting.py); other shapes and dtypes keep the bitonic network.

The bitonic network sorts 2**24 float32 in 59 ms on an H200 where CuPy (CUB's radix sort)
takes 0.56 ms (docs/measurements-log.md, 2026-12-05): its log2(m)**2 / 2 passes each read and
write the whole array. A radix sort reads and writes it a fixed number of times: the keys
become order-preserving unsigned words (`prepare`), then eight passes of 4 bits, each
four launches:
- `count`: every workgroup counts the digits of its tile of TILE keys;
- `scan_segments` and `scan`: the counts (digit-major: all tiles' counts of digit 0, then
  digit 1...) become exclusive prefix sums, each tile's first position for each digit:
  workgroups scan segments of SEG counts and write their totals, one workgroup scans the
  totals (a single workgroup scanning all the counts took 0.31 ms of a pass's 0.97 at
  2**24 keys on an H100);
- `scatter`: every workgroup reads its tile again into shared memory, ranks its keys
  (invocation t owns the tile's keys t*ITEMS.. in order, so equal digits keep their order:
  the sort is stable), places them in shared memory in digit order, and writes them out
  from there, consecutive places by consecutive invocations, each (key, original index)
  pair at its position. Written straight from the ranking, a warp's 32 keys went to 32
  scattered words, each a 32-byte sector; in digit order they are a few runs.
The first pass takes the indices from the positions (`prepare` writes none); np.sort moves
none when `prepare` flagged nothing (its values then come from the keys alone).
All of it is recorded into one submission (`ctx.batched`). `np.sort`'s values are then the
sorted keys turned back into values (`values`), unless the input holds a NaN or a -0.0,
whose payloads and signs the keys do not keep (`prepare` flags them): then a gather of the
input by the sorted indices, so they are the input's own. The gather's random reads took
3.0 of the 8.7 ms of 2**24 float32 on an H200 (2026-12-05).

NumPy's order: NaNs last (any sign or payload, in their original order), -0.0 and 0.0
equal (original order kept), as the bitonic path and NumPy's stable sort.
Shared memory per workgroup: 8 KB of keys, 16 KB of ranks, 1 KB of sums, 64 bytes of
digit starts (SHARED_BYTES), more than the 16 KB Vulkan promises: a device with less keeps
the bitonic network (lavapipe, NVIDIA, AMD, Intel, Mali, Adreno and Apple offer 32 KB or
more). No subgroup operations.
"""
from __future__ import annotations

import contextlib

import numpy as np

from ..vk.array import Array
from ..vk.glsl_kernel import glsl_kernel

RADIX_MIN = 1 << 14         # rows shorter than this keep the bitonic network
WG, ITEMS, BITS = 256, 8, 4
TILE = WG * ITEMS
RUN = 1 << BITS             # entries an invocation owns in `scan_runs`: the scatter ranks
                            # its [digit][invocation] counts with it, BINS * WG of them
SEG = WG * RUN              # counts one workgroup of `scan_segments` scans
MAX_X = 65535               # workgroups per grid axis

_HEADER = f"""#version 450
layout(local_size_x = {WG}) in;
#define WG {WG}u
#define ITEMS {ITEMS}u
#define TILE {TILE}u
#define BINS {1 << BITS}u
#define SEG {SEG}u
#define RUN {RUN}u
#define DIGIT(k) (((k) >> shift) & (BINS - 1u))
uint tile_index() {{ return gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x; }}
"""

# the sum of `s` over the invocations before this one (Hillis-Steele in shared memory);
# `sums` holds the inclusive sums afterwards (sums[WG - 1]: the workgroup's total)
_BEFORE = """
shared uint sums[WG];
uint sum_before(uint s) {
    uint t = gl_LocalInvocationID.x;
    sums[t] = s;
    barrier();
    for (uint off = 1u; off < WG; off <<= 1u) {
        uint v = t >= off ? sums[t - off] : 0u;
        barrier();
        sums[t] += v;
        barrier();
    }
    return t == 0u ? 0u : sums[t - 1u];
}
"""

# exclusive prefix sums of runs[WG * RUN] in place, invocation t owning entries
# t*RUN .. t*RUN + RUN - 1
_RUNS = _BEFORE + """
shared uint runs[WG * RUN];
void scan_runs() {
    uint t = gl_LocalInvocationID.x;
    uint s = 0u;
    for (uint j = 0u; j < RUN; ++j) {
        s += runs[t * RUN + j];
    }
    uint run = sum_before(s);
    for (uint j = 0u; j < RUN; ++j) {
        uint c = runs[t * RUN + j];
        runs[t * RUN + j] = run;
        run += c;
    }
    barrier();
}
"""

_PREPARE = _HEADER + """
layout(push_constant) uniform P { uint n; uint track; };
layout(std430, binding = 0) readonly buffer Src { SRC_T src[]; };
layout(std430, binding = 1) writeonly buffer Keys { uint keys[]; };
layout(std430, binding = 2) buffer Special { uint special; };   // a NaN or -0.0 seen
void main() {
    uint stride = gl_NumWorkGroups.x * WG;
    bool seen = false;
    for (uint i = gl_GlobalInvocationID.x; i < n; i += stride) {
        uint b = TO_BITS(src[i]);
#if FLOAT_KEYS
        if ((b & 0x7FFFFFFFu) > 0x7F800000u) {
            b = 0xFFFFFFFFu;                    // NaN: after everything, +inf included
            seen = true;
        } else if (b == 0x80000000u) {
            b = 0x80000000u;                    // -0.0: equal to 0.0
            seen = true;
        } else {
            b = (b & 0x80000000u) != 0u ? ~b : (b | 0x80000000u);
        }
#elif SIGNED_KEYS
        b ^= 0x80000000u;
#endif
        keys[i] = b;
    }
    // once an invocation, and not once the word is set: an input of NaNs is no flood
    if (track != 0u && seen && special == 0u) atomicOr(special, 1u);
}
"""

_COUNT = _HEADER + """
layout(push_constant) uniform P { uint n; uint shift; uint tiles; };
layout(std430, binding = 0) readonly buffer Keys { uint keys[]; };
layout(std430, binding = 1) writeonly buffer Counts { uint counts[]; };
shared uint hist[BINS];
void main() {
    uint tile = tile_index();
    if (tile >= tiles) {
        return;                                 // the whole workgroup: no barrier is split
    }
    uint t = gl_LocalInvocationID.x;
    if (t < BINS) {
        hist[t] = 0u;
    }
    barrier();
    uint base = tile * TILE;
    for (uint i = 0u; i < ITEMS; ++i) {
        uint k = base + i * WG + t;             // coalesced: the order does not matter here
        if (k < n) {
            atomicAdd(hist[DIGIT(keys[k])], 1u);
        }
    }
    barrier();
    if (t < BINS) {
        counts[t * tiles + tile] = hist[t];
    }
}
"""

_SCAN_SEGMENTS = _HEADER + _RUNS + """
layout(push_constant) uniform P { uint len; };
layout(std430, binding = 0) buffer Counts { uint counts[]; };
layout(std430, binding = 1) writeonly buffer Totals { uint totals[]; };
void main() {
    // exclusive prefix sums within this workgroup's SEG (= WG * RUN) counts, and their total
    uint t = gl_LocalInvocationID.x;
    uint base = tile_index() * SEG;
    if (base >= len) {
        return;                                 // a 2-d grid's spare workgroups
    }
    for (uint i = 0u; i < RUN; ++i) {
        uint k = i * WG + t;                    // coalesced
        runs[k] = base + k < len ? counts[base + k] : 0u;
    }
    barrier();
    scan_runs();
    for (uint i = 0u; i < RUN; ++i) {
        uint k = i * WG + t;
        if (base + k < len) {
            counts[base + k] = runs[k];
        }
    }
    if (t == WG - 1u) {
        totals[tile_index()] = sums[WG - 1u];
    }
}
"""

_SCAN = _HEADER + _BEFORE + """
layout(push_constant) uniform P { uint len; };
layout(std430, binding = 0) buffer Counts { uint counts[]; };
void main() {
    // exclusive prefix sums of the segments' totals, in one workgroup (a few thousand)
    uint t = gl_LocalInvocationID.x;
    uint chunk = (len + WG - 1u) / WG;
    uint lo = min(t * chunk, len);
    uint hi = min(lo + chunk, len);
    uint s = 0u;
    for (uint i = lo; i < hi; ++i) {
        s += counts[i];
    }
    uint run = sum_before(s);
    for (uint i = lo; i < hi; ++i) {
        uint c = counts[i];
        counts[i] = run;
        run += c;
    }
}
"""

_SCATTER = _HEADER + _RUNS + """
layout(push_constant) uniform P { uint n; uint shift; uint tiles; uint keys_only; };
layout(std430, binding = 0) readonly buffer KeysIn { uint keys_in[]; };
layout(std430, binding = 1) readonly buffer IdxIn { int idx_in[]; };
layout(std430, binding = 2) writeonly buffer KeysOut { uint keys_out[]; };
layout(std430, binding = 3) writeonly buffer IdxOut { int idx_out[]; };
layout(std430, binding = 4) readonly buffer Offsets { uint offsets[]; };
layout(std430, binding = 5) readonly buffer Carries { uint carries[]; };
layout(std430, binding = 6) readonly buffer Special { uint special; };
shared uint tile_keys[TILE];
shared uint starts[BINS];
// runs (BINS * WG = WG * RUN entries): the keys of each [digit][invocation], then their
// exclusive prefix sums in that order, which is each key's place in the tile sorted by its
// digit; then the tile's indices in that order
void main() {
    uint tile = tile_index();
    if (tile >= tiles) {
        return;
    }
    uint t = gl_LocalInvocationID.x;
    uint base = tile * TILE;
    for (uint i = 0u; i < ITEMS; ++i) {
        uint k = i * WG + t;
        tile_keys[k] = base + k < n ? keys_in[base + k] : 0u;
    }
    barrier();
    uint first = t * ITEMS;             // this invocation's keys, in order
    uint own = base + first < n ? min(ITEMS, n - base - first) : 0u;
    uint seen[BINS];
    for (uint d = 0u; d < BINS; ++d) {
        seen[d] = 0u;
    }
    uint mine[ITEMS];
    for (uint i = 0u; i < ITEMS; ++i) {
        mine[i] = tile_keys[first + i];
        if (i < own) {
            seen[DIGIT(mine[i])] += 1u;
        }
    }
    for (uint d = 0u; d < BINS; ++d) {
        runs[d * WG + t] = seen[d];
        seen[d] = 0u;
    }
    barrier();
    scan_runs();
    uint place[ITEMS];
    for (uint i = 0u; i < ITEMS; ++i) {
        uint d = DIGIT(mine[i]);
        place[i] = runs[d * WG + t] + seen[d];
        seen[d] += i < own ? 1u : 0u;
    }
    if (t < BINS) {
        starts[t] = runs[t * WG];           // the tile's keys of smaller digits
    }
    // np.sort of keys that lost nothing needs no indices (the values come from the keys)
    bool indices = keys_only == 0u || special != 0u;
    barrier();                              // runs and tile_keys are read: reuse them
    for (uint i = 0u; i < ITEMS; ++i) {
        if (i < own) {
            tile_keys[place[i]] = mine[i];
            // the first pass's indices are the positions themselves (prepare writes none)
            if (indices) {
                runs[place[i]] = shift == 0u ? base + first + i : uint(idx_in[base + first + i]);
            }
        }
    }
    barrier();
    // the tile in digit order: each digit's keys go to consecutive places, so a warp's
    // writes are a few runs, not one scattered word each
    uint count = min(TILE, n - base);
    for (uint i = t; i < count; i += WG) {
        uint key = tile_keys[i];
        uint d = DIGIT(key);
        uint j = d * tiles + tile;          // scanned within its segment, plus the carry
        uint pos = offsets[j] + carries[j / SEG] + i - starts[d];
        keys_out[pos] = key;
        if (indices) {
            idx_out[pos] = int(runs[i]);
        }
    }
}
"""

# the sorted values: each key turned back into its value (prepare's map inverted), or,
# where prepare met a NaN or a -0.0, the input gathered by the sorted indices
_VALUES = _HEADER + """
layout(push_constant) uniform P { uint n; };
layout(std430, binding = 0) readonly buffer Src { SRC_T src[]; };
layout(std430, binding = 1) readonly buffer Idx { int idx[]; };
layout(std430, binding = 2) readonly buffer Keys { uint keys[]; };
layout(std430, binding = 3) readonly buffer Special { uint special; };
layout(std430, binding = 4) writeonly buffer Dst { SRC_T dst[]; };
void main() {
    uint stride = gl_NumWorkGroups.x * WG;
    bool gather = special != 0u;
    for (uint i = gl_GlobalInvocationID.x; i < n; i += stride) {
        if (gather) {
            dst[i] = src[idx[i]];
            continue;
        }
        uint b = keys[i];
#if FLOAT_KEYS
        b = (b & 0x80000000u) != 0u ? (b & 0x7FFFFFFFu) : ~b;
#elif SIGNED_KEYS
        b ^= 0x80000000u;
#endif
        dst[i] = FROM_BITS(b);
    }
}
"""

# dtype: (GLSL type, its bits as a uint, a value from its bits, float keys, signed keys)
_TYPES = {np.dtype(np.float32): ("float", "floatBitsToUint(src[i])", "uintBitsToFloat", 1, 0),
          np.dtype(np.int32): ("int", "uint(src[i])", "int", 0, 1),
          np.dtype(np.uint32): ("uint", "src[i]", "", 0, 0)}
_KERNELS: dict = {}


SHARED_BYTES = 4 * (TILE + (1 << BITS) * WG + WG + (1 << BITS))   # the scatter's shared memory


def applies(info, dtype: np.dtype, rows: int, n: int) -> bool:
    return rows == 1 and n >= RADIX_MIN and np.dtype(dtype) in _TYPES \
        and info.max_shared_memory >= SHARED_BYTES


def _kernel(which: str, dtype=None):
    key = (which, dtype)
    k = _KERNELS.get(key)
    if k is None:
        source = {"prepare": _PREPARE, "count": _COUNT, "scan_segments": _SCAN_SEGMENTS,
                  "scan": _SCAN, "scatter": _SCATTER, "values": _VALUES}[which]
        name = f"radix_{which}"
        if dtype is not None:
            glsl, bits, from_bits, is_float, is_signed = _TYPES[dtype]
            source = source.replace("SRC_T", glsl).replace("TO_BITS(src[i])", bits) \
                .replace("FROM_BITS", from_bits).replace("FLOAT_KEYS", str(is_float)) \
                .replace("SIGNED_KEYS", str(is_signed))
            name += f"_{dtype}"
        k = _KERNELS[key] = glsl_kernel(source, name=name)
    return k


def _grid(tiles: int) -> tuple[int, int]:
    return (min(tiles, MAX_X), -(-tiles // MAX_X))


def sort_row(src: Array, values: bool, indices: bool = True, after=None):
    """(sorted values or None, int32 indices or None), each of shape (1, n), for the
    contiguous 1-d `src` of a dtype `applies` accepts. Launched as one submission, not
    waited for. `after(name)`, if given, runs after each launch, and the launches are then
    submitted one by one (benchmarks/probes/sort_breakdown.py records a timestamp there)."""
    ctx, n, dtype = src.ctx, src.size, src.dtype
    tiles = -(-n // TILE)
    keys = [Array(ctx, (n,), np.uint32), Array(ctx, (n,), np.uint32)]
    idx = [Array(ctx, (n,), np.int32), Array(ctx, (n,), np.int32)]
    counts = Array(ctx, ((1 << BITS) * tiles,), np.uint32)
    segments = -(-counts.size // SEG)
    carries = Array(ctx, (segments,), np.uint32)
    flat = min(MAX_X, -(-n // WG))
    grid = _grid(tiles)
    out = Array(ctx, (1, n), dtype) if values else None
    special = Array(ctx, (1,), np.uint32)         # written only when `values` asks
    if values:
        special.fill(0)
    done = after or (lambda name: None)
    with contextlib.nullcontext() if after else ctx.batched():
        _kernel("prepare", dtype)[flat, None](src, keys[0], special, n=n, track=int(values))
        done("prepare")
        for p, shift in enumerate(range(0, 32, BITS)):
            a, b = p % 2, 1 - p % 2
            _kernel("count")[grid, None](keys[a], counts, n=n, shift=shift, tiles=tiles)
            done("count")
            _kernel("scan_segments")[_grid(segments), None](counts, carries, len=counts.size)
            done("scan_segments")
            _kernel("scan")[1, None](carries, len=segments)
            done("scan")
            _kernel("scatter")[grid, None](keys[a], idx[a], keys[b], idx[b], counts, carries,
                                           special, n=n, shift=shift, tiles=tiles,
                                           keys_only=int(values and not indices))
            done("scatter")
        # eight passes: the result is back in keys[0], idx[0]
        if values:
            _kernel("values", dtype)[flat, None](src, idx[0], keys[0], special,
                                                 out.reshape(n), n=n)
            done("values")
    return out, (idx[0].reshape(1, n) if indices else None)
