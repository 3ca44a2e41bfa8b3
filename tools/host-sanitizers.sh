#!/usr/bin/env bash
# Builds the host-only library, CLI and test suites with AddressSanitizer and UndefinedBehaviorSanitizer
# (in build-sanitize/) and runs every test but those labelled address_limit: they limit the address space
# (ulimit -v), under which the sanitizer cannot reserve its shadow memory. UBSan's null check is left off:
# it fires inside Thrust's own OpenMP reduce. Any report stops its test (no recovery). Extra arguments go
# to ctest (e.g. -R dpp). Needs what tools/test.sh installs.
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/env.sh

flags="-fsanitize=address,undefined -fno-sanitize=null -fno-sanitize-recover=undefined"
cmake -S . -B build-sanitize -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DWARPDEX_ENABLE_CUDA=OFF \
  -DWARPDEX_BUILD_PYTHON=OFF -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="$flags" \
  -DCMAKE_SHARED_LINKER_FLAGS="$flags"
cmake --build build-sanitize -j "$build_jobs"
# allocator_may_return_null: the tests of exhausted memory expect std::bad_alloc, not the sanitizer's abort.
ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 UBSAN_OPTIONS=print_stacktrace=1 OMP_WAIT_POLICY=passive \
  ctest --test-dir build-sanitize --output-on-failure -j "$build_jobs" -LE address_limit "$@"
