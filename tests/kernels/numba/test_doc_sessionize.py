"""numba-cuda's doc_examples/test_sessionize.py: session labels with a grid-wide sync
(refused here: the xfail says why)."""
import numpy as np

from vkpersist import cuda

from numba_common import GRID_SYNC, xfail


@xfail(GRID_SYNC)
def test_doc_sessionize():
    session_timeout = np.int64(np.timedelta64("3600", "s"))
    ids = cuda.to_device(np.array([1, 1, 1, 2, 2, 3, 3, 3]))
    sec = cuda.to_device(np.array([1, 2, 5000, 1, 2, 1, 10000, 10001], dtype=np.int64))
    results = cuda.to_device(np.zeros(len(ids)))

    @cuda.jit
    def sessionize(user_id, timestamp, results):
        gid = cuda.grid(1)
        size = len(user_id)

        if gid >= size:
            return

        # Determine session boundaries
        is_first_datapoint = gid == 0
        if not is_first_datapoint:
            new_user = user_id[gid] != user_id[gid - 1]
            timed_out = (
                timestamp[gid] - timestamp[gid - 1] > session_timeout
            )
            is_sess_boundary = new_user or timed_out
        else:
            is_sess_boundary = True

        # Determine session labels
        if is_sess_boundary:
            # This thread marks the start of a session
            results[gid] = gid

            # Make sure all session boundaries are written
            # before populating the session id
            grid = cuda.cg.this_grid()
            grid.sync()

            look_ahead = 1
            # Check elements 'forward' of this one
            # until a new session boundary is found
            while results[gid + look_ahead] == 0:
                results[gid + look_ahead] = gid
                look_ahead += 1
                # Avoid out-of-bounds accesses by the last thread
                if gid + look_ahead == size - 1:
                    results[gid + look_ahead] = gid
                    break

    sessionize.forall(len(ids))(ids, sec, results)
    np.testing.assert_equal(results.copy_to_host(), [0, 0, 2, 3, 3, 5, 6, 6])
