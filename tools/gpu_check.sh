#!/usr/bin/env bash
# The GPU gate (DEVELOPERS.md) on the lent GPU machine: unpacks the Vulkan loader and the
# wheels that ../shared/device/prepare.sh put in .gl/ and .whl/ (carry both), then runs
# tools/gpu_check.py, writing performance.md and gate.log into $OUT (the folder that comes
# back) and comparing with docs/performance.md. Arguments go to gpu_check.py.
#     device run: bash tools/gpu_check.sh          (carry: .gl .whl)
set -u
cd "$(dirname "$0")/.."
if [ -d .gl ]; then
    for f in .gl/*.deb; do dpkg -x "$f" /; done
    ldconfig
fi
if [ -d .whl ]; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
        --target /tmp/site .whl/*.whl || exit 1
    export PYTHONPATH=/tmp/site:$PWD PATH=/tmp/site/bin:$PATH
fi
export PYTHONUNBUFFERED=1
icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
has_gpu='import sys, vkpersist as v; sys.exit(not any(d.kind == "dgpu" for d in v.list_devices()))'
if [ -e "$icd" ] && ! python3 -c "$has_gpu" 2>/dev/null; then
    export VK_DRIVER_FILES=$icd
fi
compare=()
[ -e docs/performance.md ] && compare=(--compare docs/performance.md)
exec python3 tools/gpu_check.py --out "${OUT:-gpu-check-out}" "${compare[@]}" "$@"
