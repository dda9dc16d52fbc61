# hcp-plan: two set-up commands on a fresh Debian machine.
#   make run   installs what is missing, configures, builds only hcp-plan (and its libraries: no
#              tests, benchmarks, fuzz replays or CUDA kernels), and plans the default recipe
#   make test  installs what is missing, configures, builds everything, and runs every test
#   make test-sanitize  the same with ASan + UBSan in build-asan (no CUDA, no benchmarks), built
#                       with clang, plus a short smoke run of every fuzz harness (CTest label fuzz)
#   make package  builds the Debian package(s) in $(BUILD) with cpack -G DEB
#   make fuzz  builds the libFuzzer harnesses (tests/fuzz) with clang in build-fuzz
#   make fuzz-smoke  runs each harness FUZZ_SMOKE_SECONDS (CI; fails on any finding)
#   make fuzz-long  runs each harness FUZZ_SECONDS
#   make lint  checks the format of every tracked C++ file (clang-format) and runs clang-tidy
#              (.clang-tidy) on the C++ sources changed against the merge base (make tidy-all:
#              every source)
# No "Entering/Leaving directory" lines from the make that cmake --build runs.
MAKEFLAGS += --no-print-directory
BUILD ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_ARGS ?=
ASAN_BUILD ?= build-asan
SANITIZE_ARGS := -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHCP_SANITIZE=ON -DHCP_CUDA=OFF \
  -DHCP_BUILD_BENCHMARKS=OFF
# libFuzzer harnesses: the library instrumented with clang (-fsanitize=fuzzer-no-link,address,
# undefined) in its own build dir. Debian's clang package carries libFuzzer (libclang-rt-*-dev).
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 600
FUZZ_SMOKE_SECONDS ?= 15
FUZZ_ARGS := -DCMAKE_BUILD_TYPE=Release -DHCP_FUZZ=ON -DHCP_CUDA=OFF -DHCP_BUILD_TESTS=OFF \
  -DHCP_BUILD_BENCHMARKS=OFF
FUZZ_TARGETS = $(patsubst tests/fuzz/%_fuzz.cpp,fuzz_%,$(wildcard tests/fuzz/*_fuzz.cpp))

DEBIAN_PACKAGES := cmake g++ make pkg-config git libcli11-dev libyaml-cpp-dev nlohmann-json3-dev \
  libhwloc-dev hwloc libgtest-dev libgmock-dev libbenchmark-dev libpugixml-dev \
  libopenmpi-dev openmpi-bin zlib1g-dev
# `cpack -G DEB` (make package, and the package test) needs dpkg-dev (dpkg-shlibdeps) and file.
# Only `make test` installs Debian's chromium, for the HTML report test. It is optional: where apt
# has none for this architecture (or cannot install it) the browser test reports itself skipped.
# pre-commit (optional as well) runs the repository's hook in the pre-commit test.
PACKAGE_TOOLS := dpkg-dev file
# make lint: clang-format and clang-tidy (Debian 12: version 14 of both).
LINT_PACKAGES := clang-format clang-tidy
TEST_OPTIONAL_PACKAGES := chromium pre-commit
# The Python package's pytest suite (pip installs ./python offline: no package index) and the
# GitHub Action's test (python3-yaml reads action.yml) run in `make test`.
TEST_PACKAGES := python3-pip python3-pytest python3-yaml

.PHONY: all deps test-deps package-deps configure build build-cli run test package test-sanitize clean format \
  fuzz-deps fuzz fuzz-smoke fuzz-long lint-deps lint format-check tidy tidy-all

all: build

deps:
	@scripts/install-deps.sh $(DEBIAN_PACKAGES)

test-deps: deps
	@scripts/install-deps.sh $(PACKAGE_TOOLS) $(TEST_PACKAGES) --optional $(TEST_OPTIONAL_PACKAGES)

package-deps: deps
	@scripts/install-deps.sh $(PACKAGE_TOOLS)

configure: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(CMAKE_ARGS) > $(BUILD).configure.log 2>&1 \
	  || { cat $(BUILD).configure.log; exit 1; }

build: configure
	cmake --build $(BUILD) -j $(JOBS)

# Only the CLI: a fresh clone plans in minutes, not a quarter hour (make test builds the rest).
build-cli: configure
	cmake --build $(BUILD) -j $(JOBS) --target hcp-plan

run: build-cli
	./$(BUILD)/hcp-plan plan recipes/llama3_8b_128k.yaml --nodes 4 --gpus-per-node 8 --cluster dgx-h100

# A unit-test executable runs as a few CTest shards; the GoogleTest cases that skipped are listed
# after the run (scripts/ctest_skipped.sh).
test: build test-deps
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS); rc=$$?; \
	  $(CURDIR)/scripts/ctest_skipped.sh .; exit $$rc

# Debian packages in $(BUILD): hcp-plan_<version>_<arch>.deb (and hcp-plan-gpu-bench_... with CUDA).
package: build package-deps
	cd $(BUILD) && cpack -G DEB

# Every test under AddressSanitizer + UndefinedBehaviorSanitizer; any report fails the test.
# With clang (fuzz-deps installs it) the same build is also instrumented for libFuzzer
# (-DHCP_FUZZ=ON): the harnesses link against the library the tests use, and each runs as the
# CTest fuzz_smoke.NAME (label fuzz: its seeds and past findings, then FUZZ_CI_SECONDS of
# fuzzing at nice 19). With SANITIZE_CXX=g++ the tests run alone, as before.
FUZZ_CI_SECONDS ?= 10
# HCP_FUZZ brings ASan + UBSan itself (-O1, line tables, assertions on: about half GCC's
# RelWithDebInfo compile time); the library is compiled exactly as `make fuzz` compiles it.
SANITIZE_FUZZ_ARGS = -DCMAKE_BUILD_TYPE=Release -DHCP_FUZZ=ON -DHCP_CUDA=OFF \
  -DHCP_BUILD_BENCHMARKS=OFF -DHCP_FUZZ_SMOKE_SECONDS=$(FUZZ_CI_SECONDS)
# The compiler is chosen when the recipe runs (after fuzz-deps has installed clang);
# SANITIZE_CXX=g++ forces GCC. A build dir configured with the other compiler starts over
# (cmake would drop the -D options when the compiler changes).
test-sanitize: fuzz-deps
	@cxx=$${SANITIZE_CXX:-$$(command -v clang++ >/dev/null 2>&1 && echo clang++ || echo g++)}; \
	  cached=$$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' $(ASAN_BUILD)/CMakeCache.txt 2>/dev/null); \
	  was=$$(case "$$cached" in *clang*) echo clang++;; "") ;; *) echo g++;; esac); \
	  if [ -n "$$was" ] && [ "$$was" != "$$cxx" ]; then \
	    rm -rf $(ASAN_BUILD)/CMakeCache.txt $(ASAN_BUILD)/CMakeFiles; fi; \
	  if [ "$$cxx" = clang++ ]; then cc=clang; args="$(SANITIZE_FUZZ_ARGS)"; \
	  else cc=gcc; args="$(SANITIZE_ARGS)"; fi; \
	  CC=$$cc CXX=$$cxx cmake -S . -B $(ASAN_BUILD) $$args $(CMAKE_ARGS) \
	    > $(ASAN_BUILD).configure.log 2>&1 || { cat $(ASAN_BUILD).configure.log; exit 1; }
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	  LSAN_OPTIONS=suppressions=$(CURDIR)/tests/fuzz/lsan.supp \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ctest --output-on-failure -j $(JOBS); \
	  rc=$$?; $(CURDIR)/scripts/ctest_skipped.sh .; exit $$rc

# clang, and the compiler-rt package of its version that holds libFuzzer (only a Recommends of
# clang's, which install-deps.sh does not follow): libclang-rt-14-dev on Debian 12.
fuzz-deps: deps
	@scripts/install-deps.sh clang
	@v=$$(clang -dumpversion | cut -d. -f1); \
	  if apt-cache show libclang-rt-$$v-dev >/dev/null 2>&1; then \
	    scripts/install-deps.sh libclang-rt-$$v-dev; fi

fuzz: fuzz-deps
	@CC=clang CXX=clang++ cmake -S . -B $(FUZZ_BUILD) $(FUZZ_ARGS) $(CMAKE_ARGS) \
	  > $(FUZZ_BUILD).configure.log 2>&1 || { cat $(FUZZ_BUILD).configure.log; exit 1; }
	cmake --build $(FUZZ_BUILD) -j $(JOBS) --target $(FUZZ_TARGETS)

# Each harness for FUZZ_SMOKE_SECONDS; any crash, sanitizer report, hang or broken property fails.
fuzz-smoke: fuzz
	tests/fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_SMOKE_SECONDS)

fuzz-long: fuzz
	tests/fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_SECONDS)

CXX_FILES = git ls-files '*.cpp' '*.h' '*.cu' '*.cuh'

format:
	@$(CXX_FILES) | xargs clang-format -i

lint-deps: deps
	@scripts/install-deps.sh $(LINT_PACKAGES)

# Fails on any file clang-format would change (make format fixes them).
format-check: lint-deps
	@$(CXX_FILES) | xargs clang-format --dry-run -Werror

tidy: lint-deps
	@JOBS=$(JOBS) scripts/tidy.sh

tidy-all: lint-deps
	@JOBS=$(JOBS) scripts/tidy.sh --all

lint: format-check tidy

clean:
	rm -rf $(BUILD) $(BUILD).configure.log $(ASAN_BUILD) $(ASAN_BUILD).configure.log \
	  $(FUZZ_BUILD) $(FUZZ_BUILD).configure.log build-tidy build-tidy.configure.log
