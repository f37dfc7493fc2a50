#!/usr/bin/env bash
# Installs what `make demo` and `make test` need, idempotently: a second run installs nothing.
#   system (Debian/Ubuntu): libvulkan1 (the Vulkan loader) and mesa-vulkan-drivers (lavapipe,
#                           the CPU device used when there is no GPU), python3-venv if missing
#   Python:                 .venv with vkpersist installed editable, with its test extras
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}

"$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))' || {
  echo "setup: vkpersist needs Python 3.11 or newer; $PYTHON is $("$PYTHON" --version 2>&1)." \
       "Set PYTHON=python3.11 (or newer) and run again." >&2
  exit 1
}

missing=()
if command -v dpkg >/dev/null 2>&1; then
  for pkg in libvulkan1 mesa-vulkan-drivers; do
    dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
  done
  "$PYTHON" -c "import ensurepip, venv" >/dev/null 2>&1 || missing+=(python3-venv)
  if ((${#missing[@]})); then
    sudo=""
    [ "$(id -u)" = 0 ] || sudo=sudo
    echo "setup: installing system packages: ${missing[*]}"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
elif ! ldconfig -p 2>/dev/null | grep -q 'libvulkan\.so\.1'; then
  echo "setup: warning: no Vulkan loader (libvulkan.so.1) found; install your platform's Vulkan loader" >&2
fi

stamp=.venv/.vkpersist-installed
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
  [ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
  echo "setup: installing Python packages into .venv"
  .venv/bin/python -m pip install -q --disable-pip-version-check -e '.[test,examples]'
  touch "$stamp"
fi
