"""The builtin registry (lang/builtins.py): every builtin kernel code can call is one entry
with its typing and its GLSL, and the scheduler's access analysis reads it too."""
import math

import vkpersist as vkp
from vkpersist.lang import builtins as B


def test_every_exported_builtin_has_one_entry():
    exported = [getattr(vkp, n) for n in vkp.__all__ if isinstance(getattr(vkp, n), B.Builtin)]
    exported += [vkp.abs, vkp.min, vkp.max, vkp.pow, *vars(vkp.atomic).values(),
                 vkp.shared.array, vkp.local.array]
    assert len(exported) > 50
    for obj in exported:
        entry, python_math = B.lookup(obj)
        assert not python_math and entry.lower is not None, obj
        assert entry is B.REGISTRY[entry.name]
        assert entry.emit is not None or entry.name in ("select", "shared.array", "local.array")


def test_python_spellings_share_the_entries():
    assert B.lookup(math.sqrt) == (B.lookup(vkp.sqrt)[0], True)
    assert B.lookup(abs)[0] is B.lookup(vkp.abs)[0]
    assert B.lookup(math.floor)[0].name == "floor"
    assert B.lookup(print) is None and B.lookup(len) is None


def test_channel_operations_declare_what_they_access():
    assert B.REGISTRY["control_load"].accesses == "read"
    for name in ("control_store", "queue_push", "socket_store", "socket_payload",
                 "atomic_add", "atomic_compare_exchange"):
        assert B.REGISTRY[name].accesses == "write", name
    assert B.REGISTRY["sqrt"].accesses is None


def test_every_channel_registers_its_halves_on_import():
    """The channels live above lang/ and register their front end (lang/channels.py) and
    GPU side (lang/glsl.py) when their packages are imported: `import vkpersist` has done
    that before anything can compile."""
    from vkpersist.lang import channels, glsl
    from vkpersist.lang import types as T
    fronts = {t: channels.channel_frontend(t(*args)) for t, args in [
        (T.ControlsType, ((),)), (T.SocketType, (T.f32,)), (T.QueueType, (T.i32, 4))]}
    assert all(isinstance(f, channels.ChannelFrontend) for f in fronts.values()), fronts
    assert type(fronts[T.QueueType]).__module__ == "vkpersist.scheduler._declare"
    assert {T.ControlsType, T.SocketType} <= set(glsl._CHANNELS)
    assert channels.channel_frontend(T.f32) is None
