# Slipstream: one entry point for set-up, build, run, test, lint and benchmarks.
# `make run` and `make test` work on a fresh machine: they install what is missing first.

JOBS ?= $(shell nproc)
BUILD ?= build
CMAKE_FLAGS ?=
PORT ?= 8000
PYTHON := .venv/bin/python
export SLIPSTREAM_TEST_DATA ?= $(abspath ../shared/data)
# ccache hits across clones in other folders (CI builds a fresh clone): paths are hashed relative to here.
export CCACHE_BASEDIR := $(CURDIR)
export CCACHE_NOHASHDIR := true

.PHONY: setup build run test test-unit test-e2e test-asan test-tsan test-all lint format fuzz \
        bench bench-quick bench-compare bench-schema clean

setup:
	@bash scripts/setup.sh

# configure once per build folder; ninja re-runs cmake itself when CMakeLists change
define configure
	@[ -f $(1)/build.ninja ] || cmake -S . -B $(1) -G Ninja $(2) $(CMAKE_FLAGS) >/dev/null
endef

build: setup
	$(call configure,$(BUILD),-DCMAKE_BUILD_TYPE=Release -DSLIPSTREAM_PYTHON=ON -DPython_EXECUTABLE=$(abspath $(PYTHON)))
	@ninja -C $(BUILD) -j$(JOBS)

run: build
	./$(BUILD)/examples/hello --host 127.0.0.1 --port $(PORT)

test: build lint
	@cd $(BUILD) && ctest --output-on-failure -j$(JOBS)
	@$(PYTHON) -m pytest -q tests
	@$(PYTHON) -m pytest -q bench/tests
	@$(PYTHON) -m pytest -q python/tests

test-asan: setup
	$(call configure,build-asan,-DCMAKE_BUILD_TYPE=Debug "-DSLIPSTREAM_SANITIZE=address;undefined" -DSLIPSTREAM_BUILD_BENCH=OFF)
	@ninja -C build-asan -j$(JOBS)
	@cd build-asan && ctest --output-on-failure -j$(JOBS)
	@SLIPSTREAM_BUILD_DIR=build-asan $(PYTHON) -m pytest -q tests

test-tsan: setup
	$(call configure,build-tsan,-DCMAKE_BUILD_TYPE=Debug -DSLIPSTREAM_SANITIZE=thread -DSLIPSTREAM_BUILD_BENCH=OFF)
	@ninja -C build-tsan -j$(JOBS)
	@cd build-tsan && ctest --output-on-failure -j$(JOBS)

test-all: test test-asan

lint: setup
	@$(PYTHON) scripts/check_layers.py
	@bash scripts/check_format.sh

format:
	@git ls-files '*.cpp' '*.h' | xargs clang-format -i

# libFuzzer builds (clang); FUZZ_SECONDS per target
FUZZ_SECONDS ?= 30
fuzz: setup
	$(call configure,build-fuzz,-DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_C_COMPILER=clang -DSLIPSTREAM_FUZZ=ON -DSLIPSTREAM_BUILD_TESTS=OFF -DSLIPSTREAM_BUILD_BENCH=OFF)
	@ninja -C build-fuzz -j$(JOBS)
	@bash scripts/run_fuzzers.sh build-fuzz $(FUZZ_SECONDS)

bench: build
	@bash bench/setup.sh
	@$(PYTHON) bench/run.py --append-ledger

bench-quick: build
	@bash bench/setup.sh
	@$(PYTHON) bench/run.py --quick

# JSON Schema parse+validate against valijson, pydantic v2 and jsonschema (Google Benchmark + Python timers)
bench-schema: build
	@bash bench/setup.sh
	@$(PYTHON) bench/micro/schema_compare.py --append-ledger

bench-compare: setup
	@$(PYTHON) bench/run.py --compare

clean:
	rm -rf build build-asan build-tsan build-fuzz
