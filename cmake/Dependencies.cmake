# Every dependency comes from the system (Debian packages) or PyPI; nothing is vendored.
find_package(Threads REQUIRED)
find_package(Vulkan REQUIRED COMPONENTS glslc)

find_path(DLPACK_INCLUDE_DIR dlpack/dlpack.h)
if(NOT DLPACK_INCLUDE_DIR)
  message(FATAL_ERROR "dlpack/dlpack.h not found: install the Debian package libdlpack-dev "
                      "(scripts/setup.sh does this)")
endif()
add_library(batchsim_dlpack INTERFACE)
target_include_directories(batchsim_dlpack SYSTEM INTERFACE "${DLPACK_INCLUDE_DIR}")

if(BATCHSIM_BUILD_PYTHON)
  find_package(Python 3.10 REQUIRED COMPONENTS Interpreter Development.Module)
  find_package(pybind11 CONFIG REQUIRED)
endif()

if(BATCHSIM_BUILD_TESTS)
  find_package(Catch2 REQUIRED)
endif()

# Scene assets and navigation: Assimp (model import), Recast/Detour (navmesh bake and
# queries), meshoptimizer, stb (texture decoding and resizing), libsquish (BC1 texture
# encoding), zlib (crc32 checksums).
find_package(assimp CONFIG REQUIRED)
find_package(meshoptimizer CONFIG REQUIRED)
find_package(ZLIB REQUIRED)

# Debian's librecast-dev ships no CMake or pkg-config files: find headers and libraries.
find_path(RECAST_INCLUDE_DIR recastnavigation/Recast.h)
find_library(RECAST_LIBRARY Recast)
find_library(DETOUR_LIBRARY Detour)
if(NOT RECAST_INCLUDE_DIR OR NOT RECAST_LIBRARY OR NOT DETOUR_LIBRARY)
  message(FATAL_ERROR "Recast/Detour not found: install the Debian package librecast-dev "
                      "(scripts/setup.sh does this)")
endif()
add_library(batchsim_recast INTERFACE)
target_include_directories(batchsim_recast SYSTEM INTERFACE "${RECAST_INCLUDE_DIR}/recastnavigation")
target_link_libraries(batchsim_recast INTERFACE "${DETOUR_LIBRARY}" "${RECAST_LIBRARY}")

find_path(STB_INCLUDE_DIR stb/stb_image.h)
find_library(STB_LIBRARY stb)
if(NOT STB_INCLUDE_DIR OR NOT STB_LIBRARY)
  message(FATAL_ERROR "stb not found: install the Debian package libstb-dev "
                      "(scripts/setup.sh does this)")
endif()
add_library(batchsim_stb INTERFACE)
target_include_directories(batchsim_stb SYSTEM INTERFACE "${STB_INCLUDE_DIR}")
target_link_libraries(batchsim_stb INTERFACE "${STB_LIBRARY}")

# Debian's libsquish-dev ships a pkg-config file but no CMake one: find header and library.
find_path(SQUISH_INCLUDE_DIR squish.h)
find_library(SQUISH_LIBRARY squish)
if(NOT SQUISH_INCLUDE_DIR OR NOT SQUISH_LIBRARY)
  message(FATAL_ERROR "libsquish not found: install the Debian package libsquish-dev "
                      "(scripts/setup.sh does this)")
endif()
add_library(batchsim_squish INTERFACE)
target_include_directories(batchsim_squish SYSTEM INTERFACE "${SQUISH_INCLUDE_DIR}")
target_link_libraries(batchsim_squish INTERFACE "${SQUISH_LIBRARY}")
