set -x
timeout 60 python3 scratch/submit_probe.py 2>&1 | tail -9
timeout 60 python3 scratch/alloc_probe.py 2>&1
timeout 60 python3 scratch/numpy_prof.py 2>&1 | head -50
timeout 120 python3 scratch/steer_dbg.py 2>&1 | tail -12
timeout 100 python3 -m pytest -q -x --tb=long -p no:cacheprovider tests/test_array_complex.py::test_exact_operations "tests/test_array_math.py::test_dropped_results_lend_their_buffers_and_kept_ones_stay_intact" 2>&1 | grep -E "^E|^>|passed|failed" | head -30
timeout 100 python3 benchmarks/fdtd.py --sizes 256 --seconds 1 --monitors hot --hot-threshold 1e9 2>&1 | tail -5
timeout 100 python3 benchmarks/fdtd.py --sizes 256 --seconds 1 --monitors hot 2>&1 | tail -5
timeout 60 python3 benchmarks/launch_overhead.py 2>&1 | tail -10
