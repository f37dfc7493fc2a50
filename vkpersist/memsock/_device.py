"""MemSock, GPU side: the GLSL a kernel's frame writes and `commit()` become, beside the
host side (_core.py) that reserves and reads the same ring. Registered with the GLSL writer
for SocketType parameters (lang/glsl.py `register_channel`); a Program's memsocks are
declared and published by its scheduler (scheduler/_codegen.py), which uses `published`.

A launch's frame slot and sequence number arrive as push constants (`NAME_slot`, -1 when
the ring is full and the frame is dropped; `NAME_seq`). `commit()` ends the kernel: each
workgroup fences its writes and counts itself done; the last one resets the counter and
publishes the header word with release semantics.
"""
from __future__ import annotations

from ..lang import types as T
from ..lang.glsl import glsl_type, register_channel

_BITS = {T.f32: "floatBitsToUint({})", T.i32: "uint({})"}


def frame_type(var) -> str:
    """The GLSL element type of a MemSock's frame buffer: 8- and 16-bit frames are stored
    narrow (uint8_t, float16_t, ...), as arrays are; the stage computes in 32 bits."""
    elem = var.type.elem
    return elem.glsl if elem in T.STORAGE_ONLY else glsl_type(elem)


class SocketGLSL:
    def declare(self, w, var) -> str:
        b, n = var.binding, var.name
        # published at a grid barrier under the Vulkan memory model: nonprivate
        frames = "nonprivate writeonly" if w.vulkan_memory_model else "writeonly"
        return "\n".join([
            f"layout(std430, binding = {b}) {frames} buffer {n}_frames_buffer "
            f"{{ {frame_type(var)} {n}_frames[]; }};   // MemSock frames",
            f"layout(std430, binding = {b + 1}) buffer {n}_header_buffer "
            f"{{ uint {n}_header[]; }};   // published sequence numbers, payload",
            f"layout(std430, binding = {b + 2}) buffer {n}_state_buffer "
            f"{{ uint {n}_done; }};   // workgroups that committed"])

    def socket_slot(self, w, e) -> str:
        return f"{e.args[0].name}_slot"

    def socket_seq(self, w, e) -> str:
        return f"{e.args[0].name}_seq"

    def socket_store(self, w, e) -> str:
        var, index, value = e.args
        linear = w.linear(var, index)
        size = " * ".join(w.extent(var, a) for a in range(len(index)))
        elem = var.type.elem
        stored = f"{elem.glsl}({w.expr(value)})" if elem in T.STORAGE_ONLY else w.expr(value)
        return (f"if ({var.name}_slot >= 0) {var.name}_frames[{var.name}_slot * ({size}) + "
                f"{linear}] = {stored}")

    def socket_payload(self, w, e) -> str:
        var, f, value = e.args
        bits = _BITS.get(f.type, "{}").format(w.expr(value))
        per_slot = len(var.type.payload)
        return (f"if ({var.name}_slot >= 0) {var.name}_header[{f.word} + {var.name}_slot * "
                f"{per_slot}] = {bits}")

    def socket_commit(self, w, e) -> str:
        """The last workgroup to finish publishes the frame (no workgroup ever waits for
        another, so this cannot deadlock whatever the occupancy)."""
        n = e.args[0].name
        value = self.published(w, f"{n}_seq")
        if w.memory_model:
            count = (f"atomicAdd({n}_done, 1u, gl_ScopeDevice, gl_StorageSemanticsBuffer, "
                     "gl_SemanticsAcquireRelease)")
            publish = (f"atomicStore({n}_header[{n}_slot], {value}, gl_ScopeDevice, "
                       "gl_StorageSemanticsBuffer, gl_SemanticsRelease)")
        else:
            count = f"atomicAdd({n}_done, 1u)"
            publish = f"atomicExchange({n}_header[{n}_slot], {value})"
        w.pre += [
            f"// {n}.commit(): the last workgroup to finish publishes frame {n}_seq",
            "memoryBarrierBuffer();",
            "barrier();",
            "if (gl_LocalInvocationIndex == 0u) {",
            "    uint _groups = gl_NumWorkGroups.x * gl_NumWorkGroups.y * gl_NumWorkGroups.z;",
            f"    if ({count} == _groups - 1u) {{",
            f"        {n}_done = 0u;",
            "        memoryBarrierBuffer();",
            f"        if ({n}_slot >= 0) {publish};",
            "    }",
            "}",
        ]
        return ""

    @staticmethod
    def published(w, seq: str) -> str:
        """The header value that publishes frame `seq`: seq + 1; under the loop guard, its
        complement once any invocation has reached the limit, so that the reader refuses a
        frame a cut-short loop may have computed instead of delivering it as good."""
        if not w.loop_guard:
            return f"{seq} + 1u"
        return f"(atomicAdd(_vkp_status[0], 0u) == 0u ? {seq} + 1u : ~({seq} + 1u))"


register_channel(T.SocketType, SocketGLSL())
