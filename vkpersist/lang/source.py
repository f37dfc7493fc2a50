"""Where kernel code comes from: reading a function's Python source (from its file, or from
the line cache, where IPython and Jupyter keep their cells and `compile_source` keeps its
text), positioning errors in it, and naming its identifiers in GLSL."""
from __future__ import annotations

import ast
import inspect
import itertools
import linecache
import textwrap
from dataclasses import dataclass

from .._errors import CompileError
from . import ir

_GLSL_RESERVED = set("""attribute const uniform varying buffer shared coherent volatile restrict
readonly writeonly atomic_uint layout centroid flat smooth noperspective patch sample break
continue do for while switch case default if else subroutine in out inout float double int
void bool true false invariant precise discard return mat2 mat3 mat4 dmat2 dmat3 dmat4 vec2
vec3 vec4 ivec2 ivec3 ivec4 bvec2 bvec3 bvec4 dvec2 dvec3 dvec4 uint uvec2 uvec3 uvec4 lowp
mediump highp precision sampler1D sampler2D sampler3D struct common partition active asm class
union enum typedef template this resource goto inline noinline public static extern external
interface long short half fixed unsigned superp input output filter sizeof cast namespace
using main dot cross length normalize distance min max abs sign floor ceil fract mod clamp mix
step sqrt exp log pow sin cos tan asin acos atan sinh cosh tanh exp2 log2 inversesqrt fma
isnan isinf round trunc barrier texture sampler image""".split())


def glsl_name(name: str) -> str:
    """The GLSL name of a Python identifier: itself unless GLSL reserves it."""
    if name in _GLSL_RESERVED or name.startswith("gl_") or "__" in name or name.startswith("_vkp"):
        return f"{name.strip('_')}_py" if name.strip("_") else "v_py"
    return name


@dataclass
class PySource:
    file: str
    first_line: int
    lines: list[str]             # the dedented source lines
    indent: int

    def loc(self, node) -> ir.Loc:
        return ir.Loc(self.file, self.first_line + node.lineno - 1, node.col_offset + self.indent)

    def error(self, node, message: str) -> CompileError:
        """A CompileError at `node`: file:line:col, the line, and carets under the node's
        span (to the end of the line for a node spanning several)."""
        lineno = getattr(node, "lineno", 1)
        col = getattr(node, "col_offset", 0)
        line = self.lines[lineno - 1] if 0 < lineno <= len(self.lines) else ""
        real_line = self.first_line + lineno - 1
        text = " " * self.indent + line
        end = getattr(node, "end_col_offset", None)
        if end is None or getattr(node, "end_lineno", lineno) != lineno:
            end = len(line.rstrip())
        caret = " " * (col + self.indent) + "^" * max(1, end - col)
        err = CompileError(f"{self.file}:{real_line}:{col + self.indent + 1}: {message}\n"
                           f"    {text}\n    {caret}")
        err.lineno, err.col, err.filename = real_line, col + self.indent + 1, self.file
        return err


def parse_function(pyfunc) -> tuple[ast.FunctionDef, PySource]:
    try:
        lines, first = inspect.getsourcelines(pyfunc)
        file = inspect.getsourcefile(pyfunc) or pyfunc.__code__.co_filename
    except (OSError, TypeError):
        raise CompileError(
            f"cannot read the source of {pyfunc.__qualname__!r} (from "
            f"{getattr(getattr(pyfunc, '__code__', None), 'co_filename', '?')}): kernels are "
            "compiled from their Python source, which Python keeps for files, IPython and "
            "Jupyter cells, but not for code typed at the plain interpreter prompt or run with "
            "exec(); put it in a file, or define it with vkp.compile_source(text)") from None
    raw = "".join(lines)
    dedented = textwrap.dedent(raw)
    indent = len(lines[0]) - len(lines[0].lstrip()) if lines else 0
    tree = ast.parse(dedented)
    node = tree.body[0]
    if not isinstance(node, (ast.FunctionDef,)):
        raise CompileError(f"{file}:{first}: {pyfunc.__name__} is not a plain function")
    return node, PySource(file, first, dedented.splitlines(), indent)


def describe_stmt(node) -> str:
    names = {"Try": "try/except", "With": "with", "ClassDef": "a class definition",
             "FunctionDef": "a nested function", "AsyncFunctionDef": "an async function",
             "Import": "import", "ImportFrom": "import", "Global": "global", "Nonlocal": "nonlocal",
             "Delete": "del", "Raise": "raise", "Assert": "assert", "Match": "match"}
    n = type(node).__name__
    return names.get(n, f"the statement {n}")


def describe_expr(node) -> str:
    names = {"List": "a list", "Dict": "a dict", "Set": "a set", "ListComp": "a list comprehension",
             "GeneratorExp": "a generator", "DictComp": "a dict comprehension", "Lambda": "lambda",
             "JoinedStr": "an f-string", "Starred": "*unpacking", "Yield": "yield",
             "Await": "await", "NamedExpr": "the walrus operator", "Slice": "a slice"}
    n = type(node).__name__
    return names.get(n, f"the expression {n}")




_sources = itertools.count(1)


def compile_source(source: str, name: str, namespace: dict) -> dict:
    """Run Python source text that defines kernels, device functions or programs in
    `namespace` (its globals), and return the namespace. The text is kept in the line cache
    under `<vkpersist:NAME:N>` (as IPython keeps its cells), so kernels compile from it and
    errors point at its lines. `vkp.compile_source` is this with `vkp` and `np` as the
    default namespace."""
    if not isinstance(source, str):
        raise TypeError(f"compile_source() takes the source text as a str, got "
                        f"{type(source).__name__}")
    filename = f"<vkpersist:{name}:{next(_sources)}>"
    text = textwrap.dedent(source)
    if not text.endswith("\n"):
        text += "\n"
    # (size, mtime, lines, name): mtime None keeps the entry through linecache.checkcache
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    namespace.setdefault("__name__", f"vkpersist_source_{name}")
    code = compile(text, filename, "exec")      # a SyntaxError names the line, as usual
    exec(code, namespace)
    return namespace
