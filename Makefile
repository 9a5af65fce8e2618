# The project's commands. `make demo` and `make test` install what they need first.
PYTHON ?= python3
BUILD ?= build
JOBS ?= $(shell nproc)
CMAKE_CPP = cmake -S . -G Ninja -DBATCHSIM_BUILD_PYTHON=OFF -DBATCHSIM_BUILD_TESTS=ON
LINT_SOURCES = $(shell git ls-files 'src/*.cpp' 'src/*.hpp' 'tests/cpp/*.cpp' 'tests/cpp/*.hpp')

.PHONY: setup demo test test-cpp test-python test-asan lint format bench clean

setup:
	bash scripts/setup.sh

demo: setup
	$(PYTHON) -m batchsim doctor
	$(PYTHON) examples/quickstart.py

test: setup
	$(MAKE) test-cpp
	$(MAKE) test-python

test-cpp:
	$(CMAKE_CPP) -B $(BUILD)/cpp -DCMAKE_BUILD_TYPE=RelWithDebInfo
	cmake --build $(BUILD)/cpp -j $(JOBS)
	cd $(BUILD)/cpp && BATCHSIM_VALIDATION=1 ctest --output-on-failure

test-python:
	BATCHSIM_VALIDATION=1 $(PYTHON) -m pytest tests/python

# C++ tests under AddressSanitizer and UndefinedBehaviorSanitizer. Leak checking is off:
# the Vulkan loader unloads the driver at vkDestroyInstance, so the driver's process-lifetime
# allocations show up as leaks from an unknown module that no suppression can name.
test-asan: setup
	$(CMAKE_CPP) -B $(BUILD)/asan -DCMAKE_BUILD_TYPE=Debug -DBATCHSIM_SANITIZE=address,undefined
	cmake --build $(BUILD)/asan -j $(JOBS)
	cd $(BUILD)/asan && BATCHSIM_VALIDATION=1 ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ctest --output-on-failure

lint:
	$(CMAKE_CPP) -B $(BUILD)/cpp >/dev/null
	clang-format --dry-run --Werror $(LINT_SOURCES) shaders/shared.h
	clang-tidy --quiet -p $(BUILD)/cpp $(filter-out src/bindings/%,$(filter %.cpp,$(LINT_SOURCES)))
	$(PYTHON) -m ruff check python tests/python benchmarks examples
	$(PYTHON) -m ruff format --check python tests/python benchmarks examples

format:
	clang-format -i $(LINT_SOURCES) shaders/shared.h
	$(PYTHON) -m ruff format python tests/python benchmarks examples

bench: setup
	mkdir -p benchmarks/results
	$(PYTHON) benchmarks/bench_export.py --out benchmarks/results/export_$(shell hostname).json

clean:
	rm -rf $(BUILD)
