import sys, time, numpy as np
sys.path.insert(0, "tests")
import vkpersist as vkp
import test_shared_pages as T
a = vkp.Context(); b = vkp.Context()
# warm up similar allocation history as the test module
pages, sock, out, seen, relay = T.pipeline(a, b, "block", 400, spin_at=200)
orig = T.take
try:
    relay.run(lambda i: T.emit[1, T.F](sock, i), 400)
except Exception as e:
    print(type(e).__name__, str(e)[:100])
print("seen", len(seen["seq"]), "pool reused a,b:", a._core.buffer_pool.reused, b._core.buffer_pool.reused)
