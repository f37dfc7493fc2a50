#!/usr/bin/env bash
# Packs this machine's lavapipe (Debian 12's mesa-vulkan-drivers, libvulkan_lvp.so) with the
# shared libraries it needs beyond glibc and libstdc++ into .lvp/lvp_noicu.tar.xz (~32 MiB),
# so that a machine without lavapipe (the lent H200 machine) can see it beside its own GPU,
# unpacked into a private folder, never over /. ICU is left out (the carried tree must stay
# under 64 MiB): the H200 image has its own libxml2/ICU, and the device-side lines below
# drop the carried libxml2 when the system has one. Device side (from the repository root):
#   mkdir -p /tmp/lvp && tar -C /tmp/lvp -xJf .lvp/lvp_noicu.tar.xz; L=/tmp/lvp/lvpbundle
#   ldconfig -p | grep -q libxml2.so.2 && rm -f $L/lib/libxml2.so.2
#   sed "s#LVPDIR#$L#" $L/lvp_icd.json > $L/icd.json
#   NV=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
#   export LD_LIBRARY_PATH=$L/lib VK_DRIVER_FILES=$NV:$L/icd.json
# Used for benchmarks/pipeline.py --producer dgpu --consumer llvmpipe (docs/measurements-log.md).
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
lvp=/usr/lib/x86_64-linux-gnu/libvulkan_lvp.so
[ -f "$lvp" ] || { echo "no $lvp: apt-get install mesa-vulkan-drivers first" >&2; exit 1; }
work=$(mktemp -d); mkdir -p "$work/lvpbundle/lib" .lvp
grep -qx "/.lvp/" .git/info/exclude 2>/dev/null || echo "/.lvp/" >> .git/info/exclude
ldd "$lvp" | awk '{print $3}' \
  | grep -v -E 'libc\.so|libm\.so|libpthread|libdl|librt|ld-linux|libstdc|libgcc_s|libicu|^$' \
  | while read -r lib; do cp -L "$lib" "$work/lvpbundle/lib/"; done
cp -L "$lvp" "$work/lvpbundle/lib/"
printf '{"ICD": {"api_version": "1.1.230", "library_path": "LVPDIR/lib/libvulkan_lvp.so"}, "file_format_version": "1.0.0"}\n' \
  > "$work/lvpbundle/lvp_icd.json"
tar -C "$work" -cf - lvpbundle | xz -6 -T0 > .lvp/lvp_noicu.tar.xz
rm -rf "$work"
ls -la .lvp/lvp_noicu.tar.xz
