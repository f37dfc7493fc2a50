"""Command line: `python -m vkpersist devices | doctor | demo | emit-glsl FILE[:NAME]`."""
from __future__ import annotations

import argparse
import sys

from ._errors import VkPersistError


def devices() -> int:
    from .vk.devices import device_table
    print(device_table())
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m vkpersist",
                                     description="vkpersist: GPU simulations on any Vulkan device")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("devices", help="list the Vulkan devices")
    doctor = sub.add_parser("doctor", help="check each device end to end")
    doctor.add_argument("--device", default=None,
                        help="index, kind (dgpu, igpu, cpu) or name substring; default: all")
    sub.add_parser("demo", help="run the demo on the default device")
    emit = sub.add_parser("emit-glsl", help="print the GLSL of the kernels and programs "
                          "defined at the top level of a file")
    emit.add_argument("target", metavar="FILE[:NAME]")
    emit.add_argument("--mode", choices=["persistent", "launch"], default="persistent",
                      help="for programs: the megakernel (default) or the fallback's kernels")
    args = parser.parse_args(argv)
    try:
        if args.command == "devices":
            return devices()
        if args.command == "doctor":
            from .vk.doctor import main as doctor_main
            device = int(args.device) if args.device and args.device.isdigit() else args.device
            return doctor_main(device)
        if args.command == "emit-glsl":
            return emit_glsl(args.target, args.mode)
        if args.command == "demo":
            from ._demo import main as demo_main
            return demo_main()
    except VkPersistError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


def emit_glsl(target: str, mode: str = "persistent") -> int:
    """Print the GLSL of the kernels (from their annotations) and programs defined at the top
    level of FILE, or of the one named NAME (FILE:NAME). The file runs as an imported module
    (its `if __name__ == "__main__":` block does not) with sys.argv as if it ran with no
    arguments, so scripts that parse their command line at import still load."""
    import importlib.util
    import os

    from ._kernel import Kernel
    from .scheduler import Program
    path, _, name = target.partition(":") if not os.path.exists(target) else (target, "", "")
    if not os.path.exists(path):
        print(f"error: no such file {path!r}", file=sys.stderr)
        return 2
    spec = importlib.util.spec_from_file_location("_vkpersist_emit", path)
    module = importlib.util.module_from_spec(spec)
    saved_argv, saved_path = sys.argv, list(sys.path)
    sys.argv = [path]
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    try:
        spec.loader.exec_module(module)
    except SystemExit as exc:
        print(f"error: {path} exited while being loaded (SystemExit: {exc.code}); emit-glsl "
              "imports the file, so its top level must not exit", file=sys.stderr)
        return 2
    finally:
        sys.argv, sys.path[:] = saved_argv, saved_path
    found = {k: v for k, v in vars(module).items()
             if isinstance(v, (Kernel, Program)) and not k.startswith("__")}
    if name:
        if name not in found:
            print(f"error: no kernel or program {name!r} at the top level of {path}; there: "
                  f"{', '.join(found) or 'none'}", file=sys.stderr)
            return 2
        found = {name: found[name]}
    if not found:
        print(f"error: {path} defines no @vkp.kernel and no vkp.Program at its top level "
              "(kernels and programs made inside functions are not visible from outside: "
              "print their .glsl() there instead)", file=sys.stderr)
        return 2
    kernels = [k for k, v in found.items() if isinstance(v, Kernel)]
    programs = [k for k, v in found.items() if isinstance(v, Program)]
    print(f"emit-glsl: {path}: {len(kernels)} kernel(s){': ' if kernels else ''}"
          f"{', '.join(kernels)}; {len(programs)} program(s){': ' if programs else ''}"
          f"{', '.join(programs)}", file=sys.stderr)
    status = 0
    for oname, obj in found.items():
        try:
            if isinstance(obj, Kernel):
                text = obj.glsl()
            else:
                text = obj.glsl(mode)
            print(f"// ---- {oname} ----")
            print(text)
        except (TypeError, ValueError, VkPersistError) as exc:
            hint = " (annotate every parameter to emit its GLSL)" if isinstance(obj, Kernel) \
                and isinstance(exc, TypeError) else ""
            print(f"error: {oname}: {exc}{hint}", file=sys.stderr)
            status = 2
    return status
