#!/usr/bin/env bash
# Installs everything batchsim needs to build and test, then the package itself with its
# test, lint and integrations (SB3, TorchRL) extras. Idempotent: installs only what is
# missing, so re-running is cheap.
#   bash scripts/setup.sh            (as root: installs Debian packages with apt-get)
# Not root: prints the exact apt-get command for what is missing, and stops.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}

# Debian packages: compiler, Vulkan (loader, headers, Mesa drivers incl. lavapipe, glslc,
# validation layers), the C++ libraries batchsim links, DLPack and Catch2 headers, linters,
# and real test models nobody here wrote.
APT_PACKAGES=(
  g++ make pkg-config
  libvulkan1 libvulkan-dev mesa-vulkan-drivers glslc spirv-tools vulkan-validationlayers
  vulkan-tools libglm-dev libassimp-dev librecast-dev libmeshoptimizer-dev libstb-dev
  libsquish-dev zlib1g-dev libdlpack-dev catch2 clang-format clang-tidy clang-14 libclang-rt-14-dev
  assimp-testmodels
)

missing_packages() {
  local pkg
  for pkg in "${APT_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" \
      || echo "$pkg"
  done
}

mapfile -t missing < <(missing_packages)
if ((${#missing[@]})); then
  if [[ $(id -u) -eq 0 ]]; then
    echo "setup: installing Debian packages: ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
  else
    echo "setup: missing Debian packages. Run:"
    echo "  sudo apt-get update && sudo apt-get install -y --no-install-recommends ${missing[*]}"
    exit 1
  fi
fi

pip_install() { "$PYTHON" -m pip install --disable-pip-version-check -q "$@"; }

# PyTorch first, pinned where none is installed: 2.13.0 resolves to a CPU build quickly on
# Debian CI machines, whereas an unpinned install pulls gigabytes of CUDA wheels. Set
# BATCHSIM_TORCH to choose another build (the package itself only needs torch>=2.1).
"$PYTHON" -c "import torch" 2>/dev/null || pip_install "${BATCHSIM_TORCH:-torch==2.13.0}"
# Build tools, so the package builds without isolation (offline-friendly, incremental).
"$PYTHON" -c "import scikit_build_core, pybind11, cmake, ninja" 2>/dev/null \
  || pip_install "scikit-build-core>=0.9" "pybind11>=2.12" cmake ninja
# The installed torch stays: torchrl (the integrations extra) is built against one torch
# release, and resolving it must not swap torch for another (CUDA) build.
torch_pin="torch==$("$PYTHON" -c 'import torch; print(torch.__version__)')"
pip_install --no-build-isolation ".[test,lint,integrations]" --constraint /dev/stdin <<<"$torch_pin"
echo "setup: done ($("$PYTHON" -c 'import batchsim; print("batchsim", batchsim.__version__)'))"
