"""The buffer pool's bookkeeping, without a device: a buffer's finalizer may run put() in
the middle of this thread's own take() (the garbage collector runs finalizers at any
allocation, and the core's lock is re-entrant), when the list being taken from is
momentarily empty; put() must not trip over it (an IndexError in a finalizer, seen in the
suite once dropped Contexts became collectable)."""
import types

from vkpersist.vk.buffer_pool import HEAP_SHARE, BufferPool


def alloc(size, memory_type=0):
    return types.SimpleNamespace(size=size, memory_type=memory_type)


def test_put_during_a_take_that_emptied_its_list():
    pool = BufferPool()
    heap = 64 * HEAP_SHARE                       # the pool keeps at most 64 bytes
    pool.put(alloc(32), heap, True)
    key = next(iter(pool.free))
    pool.free[key].pop()                         # take() between its pop() and its del
    pool.put(alloc(48), heap, True)              # over the limit: evicts from the front
    pool.put(alloc(40, memory_type=1), heap, True)
    assert all(entries for entries in pool.free.values())
    assert pool.bytes <= 64 + 32                 # the taken one is still counted until
                                                 # its take() subtracts it


def test_take_and_put_keep_the_count():
    pool = BufferPool()
    heap = 1024 * HEAP_SHARE
    for size in (16, 16, 32):
        pool.put(alloc(size), heap, True)
    assert pool.bytes == 64
    assert pool.take(0, 16, True).size == 16 and pool.bytes == 48
    assert pool.take(0, 64, True) is None
