"""The writer's control-flow statements: if/elif chains, while and range loops (each
iteration counted by lavapipe's loop guard where the target needs it), break, continue and
return (several values through out parameters)."""
from __future__ import annotations

from . import ir
from .glsl_literals import bare as _bare, glsl_type, literal as _literal
from ..vk.target import LOOP_GUARD_LIMIT


class ControlFlow:
    """Mixed into glsl.Writer: one method per control-flow statement of the IR."""

    def stmt_If(self, s):
        pre, cond = self.expr_with_pre(s.cond)
        self._emit_pre(pre)
        self.emit(f"if ({_bare(cond)}) {{")
        self.indent += 1
        self.block(s.body)
        self.indent -= 1
        orelse = s.orelse
        while len(orelse) == 1 and isinstance(orelse[0], ir.If):
            pre, cond = self.expr_with_pre(orelse[0].cond)
            if pre:           # the condition needs statements: nest instead of chaining
                break
            self.emit(f"}} else if ({_bare(cond)}) {{")
            self.indent += 1
            self.block(orelse[0].body)
            self.indent -= 1
            orelse = orelse[0].orelse
        if orelse:
            self.emit("} else {")
            self.indent += 1
            self.block(orelse)
            self.indent -= 1
        self.emit("}")

    def guard_line(self) -> str:
        """Counts one loop-header evaluation towards lavapipe's limit; reports the kernel at
        it. lavapipe counts every evaluation of a loop's header, so a loop run n times
        costs n + 1, also when n = 0 (measured: an outer loop around an inner `for` that
        runs 0 times is cut at 32,768 iterations, around one that runs once at 21,845;
        docs/driver_notes.md). A guard before each loop and one in its body count the same,
        never less."""
        return (f"if (++_vkp_iterations == {LOOP_GUARD_LIMIT}u) "
                f"atomicCompSwap(_vkp_status[0], 0u, {self.kernel_id}u);")

    def _guard(self) -> None:
        if self.loop_guard:
            self.emit(self.guard_line())

    def stmt_While(self, s):
        pre, cond = self.expr_with_pre(s.cond)
        self._guard()            # the test that ends the loop counts too (guard_line)
        if pre:
            self.emit("while (true) {")
            self.indent += 1
            self._guard()
            self._emit_pre(pre)
            self.emit(f"if (!({cond})) break;")
        else:
            self.emit(f"while ({_bare(cond)}) {{")
            self.indent += 1
            self._guard()
        self.block(s.body)
        self.indent -= 1
        self.emit("}")

    def stmt_ForRange(self, s):
        t = glsl_type(s.var.type)
        pre, start = self.expr_with_pre(s.start)
        pre2, stop = self.expr_with_pre(s.stop)
        pre3, step = self.expr_with_pre(s.step)
        self._emit_pre(pre + pre2 + pre3)
        c = self.name(s.counter)
        if not isinstance(s.stop, ir.Const):
            stop_var = self._tmp("stop")
            self.emit(f"{t} {stop_var} = {stop};")
            stop = stop_var
        if isinstance(s.step, ir.Const):
            cmp = f"{c} < {stop}" if s.step.value > 0 else f"{c} > {stop}"
        else:
            step_var = self._tmp("step")
            self.emit(f"{t} {step_var} = {step};")
            step = step_var
            cmp = f"({step} > {_literal(0, s.step.type)}) ? ({c} < {stop}) : ({c} > {stop})"
        self._guard()            # the test that ends the loop counts too (guard_line)
        self.emit(f"for ({c} = {start}; {cmp}; {c} += {step}) {{")
        self.indent += 1
        self._guard()
        self.emit(f"{self.name(s.var)} = {c};")
        self.block(s.body)
        self.indent -= 1
        self.emit("}")

    def stmt_Break(self, s):
        self.emit("break;")

    def stmt_Continue(self, s):
        self.emit("continue;")

    def stmt_Return(self, s):
        if not s.values:
            self.emit("return;")
            return
        pre, values = [], []
        for v in s.values:
            p, text = self.expr_with_pre(v)
            pre += p
            values.append(text)
        self._emit_pre(pre)
        if len(values) == 1:
            self.emit(f"return {_bare(values[0])};")
        else:
            for i, v in enumerate(values):
                self.emit(f"_out{i} = {v};")
            self.emit("return;")
