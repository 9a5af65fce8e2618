# The project's commands. `make demo` and `make test` install what they need first.
PYTHON ?= python3
BUILD ?= build
JOBS ?= $(shell nproc)
CMAKE_CPP = cmake -S . -G Ninja -DBATCHSIM_BUILD_PYTHON=OFF -DBATCHSIM_BUILD_TESTS=ON
LINT_SOURCES = $(shell git ls-files 'src/*.cpp' 'src/*.hpp' 'tests/cpp/*.cpp' 'tests/cpp/*.hpp')

.PHONY: setup demo demo-train test test-cpp test-python test-asan test-tsan \
        test-asan-python lint format bench clean \
        docs docs-check fuzz-build fuzz-seeds fuzz fuzz-cpp fuzz-py fuzz-smoke \
        fuzz-smoke-cpp fuzz-smoke-py wheel wheels wheel-smoke soak

setup:
	bash scripts/setup.sh

demo: setup
	$(PYTHON) -m batchsim doctor
	$(PYTHON) examples/quickstart.py
	$(PYTHON) examples/navmesh_tour.py build/demo
	$(PYTHON) -m batchsim procgen --out data/procgen --preview
	$(PYTHON) examples/sim_tour.py data/procgen build/demo
	$(PYTHON) examples/render_mosaic.py data/procgen build/demo
	$(MAKE) demo-train

# The main job: PPO on short procedural episodes (~4.5 min on 2 cores), then the policy,
# random and forward-only agents on the same val episodes, a learning curve and a video.
DEMO_DATA = data/procgen-demo
DEMO_RUN = runs/demo
demo-train:
	$(PYTHON) -m batchsim procgen --out $(DEMO_DATA) --num-scenes 8 --triangle-budget 10000 \
	  --max-geodesic 5 --episodes-per-scene 100
	$(PYTHON) -m batchsim train --preset demo log_dir=$(DEMO_RUN)
	$(PYTHON) -m batchsim eval --checkpoint $(DEMO_RUN) --agents policy,random,forward \
	  --json $(DEMO_RUN)/eval.json
	$(PYTHON) -m batchsim.train.curve $(DEMO_RUN)
	$(PYTHON) -m batchsim video --checkpoint $(DEMO_RUN) --episodes 3 --out $(DEMO_RUN)/episodes.gif

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

# The C++ tests of every threaded part (tests/cpp/CMakeLists.txt: BATCHSIM_THREAD_TESTS, down
# to the whole Simulator step) under ThreadSanitizer; only those are built. tests/cpp/tsan.supp
# suppresses what is not our code (the Vulkan validation layer's own threads), saying why.
# Needs `make setup`'s packages but not its package install (CI runs `make test` first).
TSAN_ENV = TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1:$\
suppressions=$(CURDIR)/tests/cpp/tsan.supp
test-tsan:
	$(CMAKE_CPP) -B $(BUILD)/tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBATCHSIM_SANITIZE=thread
	cmake --build $(BUILD)/tsan -j $(JOBS) --target batchsim_thread_tests
	cd $(BUILD)/tsan && BATCHSIM_VALIDATION=1 $(TSAN_ENV) tests/cpp/batchsim_thread_tests

# The Python suite once against a batchsim._core built with AddressSanitizer: slow (~8 min on
# the 2-core VM), not in CI. Python is not instrumented, so libasan comes first through
# LD_PRELOAD, libstdc++ right behind it (Python does not link it, and without it loaded at
# start-up ASan's __cxa_throw interceptor aborts at the first C++ exception); torch's
# libraries, loaded later, must not trip the link-order check. Leak checking is off: Python,
# torch and the driver keep allocations until exit. Reports, subprocesses' too, go to
# $(ASAN_PY)/asan.<pid>, and any such file fails the run. PYTEST_ARGS picks the tests.
# Warnings stay warnings: GCC 12 with ASan warns falsely in pybind11's dispatcher.
ASAN_PY = $(BUILD)/asan-python
PYTEST_ARGS ?= tests/python
# The package (python/batchsim plus the instrumented _core) goes outside the checkout, so the
# suite treats it as an installed batchsim, as it would a wheel: tests tell a checkout by path.
ASAN_PY_SITE = $${TMPDIR:-/tmp}/batchsim-asan-python
ASAN_PY_ENV = BATCHSIM_VALIDATION=1 \
  LD_PRELOAD=$$($(CXX) -print-file-name=libasan.so):$$($(CXX) -print-file-name=libstdc++.so) \
  ASAN_OPTIONS=detect_leaks=0:verify_asan_link_order=0:log_path=$(CURDIR)/$(ASAN_PY)/asan \
  PYTHONPATH=$(ASAN_PY_SITE)
test-asan-python:
	cmake -S . -G Ninja -B $(ASAN_PY) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBATCHSIM_SANITIZE=address \
	  -DBATCHSIM_WERROR=OFF -DBATCHSIM_BUILD_PYTHON=ON -DBATCHSIM_BUILD_TESTS=OFF \
	  -DPython_EXECUTABLE="$$(command -v $(PYTHON))" -Dpybind11_DIR="$$($(PYTHON) -m pybind11 --cmakedir)"
	cmake --build $(ASAN_PY) -j $(JOBS) --target _core
	rm -rf $(ASAN_PY_SITE) $(ASAN_PY)/asan.* && mkdir -p $(ASAN_PY_SITE)
	cp -r python/batchsim $(ASAN_PY_SITE)/ && cp $(ASAN_PY)/src/_core*.so $(ASAN_PY_SITE)/batchsim/
	$(ASAN_PY_ENV) $(PYTHON) -c \
	  "import batchsim._core as c; assert c.__file__.startswith('$(ASAN_PY_SITE)'), c.__file__"
	$(ASAN_PY_ENV) $(PYTHON) -m pytest $(PYTEST_ARGS)
	@if ls $(ASAN_PY)/asan.* >/dev/null 2>&1; then cat $(ASAN_PY)/asan.*; exit 1; fi

# clang-tidy reads the compile commands of a configured (not built) tree with the Python
# module, so that src/bindings is checked too (its .clang-tidy adds a check of its own).
lint:
	cmake -S . -G Ninja -B $(BUILD)/lint -DBATCHSIM_BUILD_PYTHON=ON -DBATCHSIM_BUILD_TESTS=ON \
	  -Dpybind11_DIR="$$($(PYTHON) -m pybind11 --cmakedir)" >/dev/null
	clang-format --dry-run --Werror $(LINT_SOURCES) shaders/shared.h
	clang-tidy --quiet -p $(BUILD)/lint $(filter-out src/bindings/%,$(filter %.cpp,$(LINT_SOURCES)))
	# The bindings on their own: one clang-tidy run applies one header filter to all its files.
	clang-tidy --quiet -p $(BUILD)/lint $(filter src/bindings/%.cpp,$(LINT_SOURCES))
	$(PYTHON) -m ruff check python tests/python tests/typing benchmarks examples scripts
	$(PYTHON) -m ruff format --check python tests/python tests/typing benchmarks examples scripts
	# Each per-environment output named by hand in at most 2 places: its row in
	# src/sim/outputs.hpp and the code that computes it (issue 42).
	$(PYTHON) scripts/count_output_places.py > $(BUILD)/output-places.json \
	  || (cat $(BUILD)/output-places.json; exit 1)
	# The public API's types, as a user's script strictly typed sees them (tests/typing).
	$(PYTHON) -m mypy --strict --cache-dir $(BUILD)/mypy-cache tests/typing/user_script.py

format:
	clang-format -i $(LINT_SOURCES) shaders/shared.h
	$(PYTHON) -m ruff format python tests/python tests/typing benchmarks examples scripts

# API reference (HTML) of the installed package from its docstrings, with the types of
# _core.pyi and _core_options.pyi for batchsim._core; `make setup` installs the package. pdoc
# (the `docs` extra) is installed when missing. docs-check then fails on a broken relative
# link or #anchor in the pages.
DOCS ?= $(BUILD)/docs
docs:
	$(PYTHON) -c "import pdoc" 2>/dev/null \
	  || $(PYTHON) -m pip install --disable-pip-version-check -q "pdoc>=14"
	$(PYTHON) scripts/build_docs.py $(DOCS)

docs-check: docs
	$(PYTHON) scripts/check_doc_links.py $(DOCS)

bench: setup
	mkdir -p benchmarks/results
	$(PYTHON) -m batchsim bench export --out benchmarks/results/export_$(shell hostname).json
	$(PYTHON) -m batchsim bench assets --out benchmarks/results/assets_$(shell hostname).json
	$(PYTHON) -m batchsim bench procgen --out benchmarks/results/procgen_$(shell hostname).json
	$(PYTHON) -m batchsim bench sim --out benchmarks/results/sim_$(shell hostname).json

# A Simulator stepped for SOAK_MINUTES with scene swaps and random resets (lavapipe here;
# `SOAK_DEVICE=cuda:0` on a GPU): resident, heap and GPU memory, file descriptors, Vulkan
# allocations and threads sampled; fails unless all are flat (scripts/soak.py).
SOAK_MINUTES ?= 10
SOAK_DEVICE ?= cpu
SOAK_DATA = $(BUILD)/soak-data
soak: setup
	test -d $(SOAK_DATA) || $(PYTHON) -m batchsim procgen --out $(SOAK_DATA) --num-scenes 8 \
	  --triangle-budget 10000 --episodes-per-scene 50
	$(PYTHON) scripts/soak.py --data $(SOAK_DATA)/pointnav/train --minutes $(SOAK_MINUTES) \
	  --device $(SOAK_DEVICE) --swap-every 200 --out $(BUILD)/soak.json --plot $(BUILD)/soak.png

# ---- fuzzing (libFuzzer, clang-14): one harness per fuzz/fuzz_<name>.cpp (atheris: per
# fuzz/fuzz_<name>.py, below), seeds in fuzz/corpus/<name>/. Runs work on copies under
# $(FUZZ_BUILD); fuzz/corpus stays untouched.
FUZZ_BUILD ?= $(BUILD)/fuzz
FUZZ_SECONDS ?= 600
FUZZ_SMOKE_SECONDS ?= 20
FUZZERS = $(patsubst fuzz/fuzz_%.cpp,%,$(wildcard fuzz/fuzz_*.cpp))
FUZZ_FLAGS = -max_len=65536 -timeout=10 -rss_limit_mb=4096
FUZZ_ENV = ASAN_OPTIONS=abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  LSAN_OPTIONS=suppressions=$(CURDIR)/fuzz/lsan.supp

fuzz-build:
	cmake -S . -G Ninja -B $(FUZZ_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 \
	  -DBATCHSIM_FUZZ=ON -DBATCHSIM_BUILD_PYTHON=OFF -DBATCHSIM_BUILD_TESTS=OFF
	cmake --build $(FUZZ_BUILD) -j $(JOBS)

# Rewrites the checked-in seeds (small valid files) from fuzz/make_seeds.cpp.
fuzz-seeds: fuzz-build
	$(FUZZ_BUILD)/fuzz/make_seeds fuzz/corpus/packed_scene

# Python harnesses (atheris, in the `test` extra): one per fuzz/fuzz_<name>.py, seeds in
# fuzz/corpus/<name>/, the same libFuzzer flags; batchsim must be importable (installed, or
# PYTHONPATH=python with the built core). They check that only batchsim's typed errors escape.
PY_FUZZERS = $(patsubst fuzz/fuzz_%.py,%,$(wildcard fuzz/fuzz_*.py))

# Each harness for FUZZ_SECONDS on $(FUZZ_BUILD)/corpus-<name>: the seeds plus whatever
# earlier runs found. Crashing inputs are saved as $(FUZZ_BUILD)/crash-<name>-*.
fuzz: fuzz-cpp fuzz-py

fuzz-py:
	@set -e; mkdir -p $(FUZZ_BUILD); for f in $(PY_FUZZERS); do \
	  mkdir -p $(FUZZ_BUILD)/corpus-$$f; cp -r fuzz/corpus/$$f/. $(FUZZ_BUILD)/corpus-$$f/; \
	  echo "== fuzz_$$f.py for $(FUZZ_SECONDS) s"; \
	  $(PYTHON) fuzz/fuzz_$$f.py $(FUZZ_FLAGS) -max_total_time=$(FUZZ_SECONDS) \
	    -artifact_prefix=$(FUZZ_BUILD)/crash-$$f- $(FUZZ_BUILD)/corpus-$$f; \
	done

fuzz-cpp: fuzz-build
	@set -e; for f in $(FUZZERS); do \
	  mkdir -p $(FUZZ_BUILD)/corpus-$$f; \
	  if [ -d fuzz/corpus/$$f ]; then cp -r fuzz/corpus/$$f/. $(FUZZ_BUILD)/corpus-$$f/; fi; \
	  echo "== fuzz_$$f for $(FUZZ_SECONDS) s"; \
	  $(FUZZ_ENV) $(FUZZ_BUILD)/fuzz/fuzz_$$f $(FUZZ_FLAGS) -max_total_time=$(FUZZ_SECONDS) \
	    -artifact_prefix=$(FUZZ_BUILD)/crash-$$f- $(FUZZ_BUILD)/corpus-$$f; \
	done

# For CI: every seed once, then FUZZ_SMOKE_SECONDS of fuzzing from a fresh copy of the seeds
# (but FUZZ_SEEDS_ONLY: seeds and regressions only; none today). fuzz_importer fuzzes Assimp
# 5.2.5 itself too: its OBJ loader's heap overflow (assimp#4925) is kept from it by our OBJ
# check (src/assets/obj_checks.hpp), and regression-assimp-obj-line-overflow.obj, which
# corrupts ASan's heap at its first run without that check, stands guard. The smoke runs
# use a fixed seed, so CI explores the same inputs each time (a prefix of them on a slower
# machine) and passes or fails with the code, not by chance; `make fuzz` explores afresh.
FUZZ_SEEDS_ONLY ?=
FUZZ_SMOKE_SEED ?= 1
fuzz-smoke: fuzz-smoke-cpp fuzz-smoke-py

fuzz-smoke-py:
	@set -e; mkdir -p $(FUZZ_BUILD); for f in $(PY_FUZZERS); do \
	  smoke=$(FUZZ_BUILD)/smoke-$$f; rm -rf $$smoke; mkdir -p $$smoke; \
	  cp -r fuzz/corpus/$$f/. $$smoke/; \
	  $(PYTHON) fuzz/fuzz_$$f.py $(FUZZ_FLAGS) fuzz/corpus/$$f/*; \
	  case " $(FUZZ_SEEDS_ONLY) " in *" $$f "*) echo "== fuzz_$$f.py: seeds only"; continue;; esac; \
	  echo "== fuzz_$$f.py for $(FUZZ_SMOKE_SECONDS) s"; \
	  $(PYTHON) fuzz/fuzz_$$f.py $(FUZZ_FLAGS) -max_total_time=$(FUZZ_SMOKE_SECONDS) \
	    -seed=$(FUZZ_SMOKE_SEED) -artifact_prefix=$(FUZZ_BUILD)/crash-$$f- $$smoke; \
	done

fuzz-smoke-cpp: fuzz-build
	@set -e; for f in $(FUZZERS); do \
	  smoke=$(FUZZ_BUILD)/smoke-$$f; rm -rf $$smoke; mkdir -p $$smoke; \
	  if [ -d fuzz/corpus/$$f ]; then \
	    cp -r fuzz/corpus/$$f/. $$smoke/; \
	    $(FUZZ_ENV) $(FUZZ_BUILD)/fuzz/fuzz_$$f $(FUZZ_FLAGS) fuzz/corpus/$$f/*; \
	  fi; \
	  case " $(FUZZ_SEEDS_ONLY) " in *" $$f "*) echo "== fuzz_$$f: seeds only"; continue;; esac; \
	  echo "== fuzz_$$f for $(FUZZ_SMOKE_SECONDS) s"; \
	  $(FUZZ_ENV) $(FUZZ_BUILD)/fuzz/fuzz_$$f $(FUZZ_FLAGS) -max_total_time=$(FUZZ_SMOKE_SECONDS) \
	    -seed=$(FUZZ_SMOKE_SEED) -artifact_prefix=$(FUZZ_BUILD)/crash-$$f- $$smoke; \
	done

# ---- wheels: manylinux wheels that carry every library the core links except the Vulkan
# loader, which comes from the system with its drivers (scripts/build_wheel.sh says why).
WHEEL_DIR ?= dist
PYENV_ROOT ?= $(HOME)/.pyenv
# Every CPython 3.10+ that pyenv has (the package needs 3.10); or WHEEL_PYTHONS="python3.12 ...".
WHEEL_PYTHONS ?= $(wildcard $(PYENV_ROOT)/versions/3.1[0-9].*/bin/python3)

wheel:
	bash scripts/build_wheel.sh $(PYTHON) $(WHEEL_DIR)

# Each wheel built is smoke-tested by the Python it is for, in a venv of its own
# (scripts/wheel_smoke.py: doctor, an import, env steps, the notebook, a training update).
# WHEEL_SMOKE_ARGS=--without-torch where no CPU torch is at hand for every Python (PyPI's
# Linux torch is the CUDA build, gigabytes): then the smoke checks batchsim without torch.
WHEEL_SMOKE_ARGS ?=
wheels:
	@set -e; for py in $(WHEEL_PYTHONS); do \
	  bash scripts/build_wheel.sh $$py $(WHEEL_DIR); \
	  tag=$$($$py -c 'import sys; print(f"cp{sys.version_info[0]}{sys.version_info[1]}")'); \
	  $$py scripts/wheel_smoke.py --wheel-dir $(WHEEL_DIR) --venv /tmp/bs-wheel-venv-$$tag \
	    $(WHEEL_SMOKE_ARGS); \
	done

# For CI: the wheel of this python3, installed in a fresh venv outside the source tree,
# runs doctor, an import, a few env steps and one training update (scripts/wheel_smoke.py).
wheel-smoke: wheel
	$(PYTHON) scripts/wheel_smoke.py --wheel-dir $(WHEEL_DIR)

clean:
	rm -rf $(BUILD)
