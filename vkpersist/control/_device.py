"""ControlBuffer, GPU side: the GLSL a kernel's control operations become, beside the host
side (_host.py) that lays out the same words. Registered with the GLSL writer for
ControlsType parameters (lang/glsl.py `register_channel`).

Every word is read and written with device-scope atomics (acquire loads, release stores;
`atomicAdd(x, 0)` / `atomicExchange` where the target has no usable memory model), because
the host writes them while kernels run. `ctrl.apply(step)` drains the command ring in
order and acknowledges like a seqlock: the sequence word goes busy, then the step, then the
new sequence number; the host reads sequence, step, sequence and retries on a change.
"""
from __future__ import annotations

from ..lang import types as T
from ..lang.glsl import register_channel

_BITS = {T.f32: "floatBitsToUint({})", T.i32: "uint({})"}
_FROM_BITS = {T.f32: "uintBitsToFloat({})", T.i32: "int({})"}


class ControlsGLSL:
    def declare(self, w, var) -> str:
        coherent = "coherent " if var.coherent else ""
        return (f"layout(std430, binding = {var.binding}) {coherent}buffer {var.name}_buffer "
                f"{{ uint {var.name}[]; }};   // control words")

    @staticmethod
    def word(w, var, f, index) -> str:
        if index is None:
            return f"{var.name}[{f.word}]  /* {f.name} */"
        return f"{var.name}[{f.word} + {w.expr(index)}]  /* {f.name} */"

    def control_load(self, w, e) -> str:
        var, f, index = e.args
        raw = w.atomic_load(self.word(w, var, f, index))
        return _FROM_BITS.get(f.type, "{}").format(raw)

    def control_store(self, w, e) -> str:
        var, f, index, value = e.args
        bits = _BITS.get(f.type, "{}").format(w.expr(value))
        return w.atomic_store(self.word(w, var, f, index), bits)

    def control_apply(self, w, e) -> str:
        self.apply_commands(w, e.args[0], w.expr(e.args[1]))
        return ""

    def apply_commands(self, w, var, step: str) -> None:
        """Statements (into w.pre) that apply the queued host commands in order, then
        acknowledge them with `step`."""
        n, t = var.name, var.type
        head, ring, tail = (t.field(x).word for x in ("_cmd_head", "_cmd_ring", "_cmd_tail"))
        ack_seq, ack_step = t.field("_ack_seq").word, t.field("_ack_step").word
        cap = t.field("_cmd_ring").count // 2
        load, store = w.atomic_load, w.atomic_store
        guard = ["    " + w.guard_line()] if w.loop_guard else []
        w.pre += [
            f"// {n}.apply({step}): queued host commands, in order, then the acknowledgement",
            "{",
            f"    uint _head = {load(f'{n}[{head}]')};",
            f"    uint _tail = {n}[{tail}];",
            *guard,
            "    while (_tail != _head) {",
            *["    " + g for g in guard],
            f"        uint _e = {ring}u + (_tail % {cap}u) * 2u;",
            f"        uint _word = {load(f'{n}[_e]')};",
            f"        {store(f'{n}[_word]', load(f'{n}[_e + 1u]'))};",
            "        _tail += 1u;",
            "    }",
            f"    {n}[{tail}] = _tail;",
            f"    {store(f'{n}[{ack_seq}]', '0xFFFFFFFFu')};   // busy: the host retries",
            f"    {store(f'{n}[{ack_step}]', step)};",
            f"    {store(f'{n}[{ack_seq}]', '_tail')};",
            "}",
        ]


register_channel(T.ControlsType, ControlsGLSL())
