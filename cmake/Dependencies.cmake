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
