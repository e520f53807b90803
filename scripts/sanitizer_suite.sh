#!/usr/bin/env bash
# The whole test suite, every example included, built with AddressSanitizer and UBSan
# (test/fuzz/build.sh) and run with SimGrid's thread contexts, which the sanitizers can follow
# (its default raw contexts switch stacks behind AddressSanitizer's back). A report fails the test
# it happened in. Leaks reported inside third-party libraries are suppressed, each with its reason,
# in test/sanitizer/lsan.supp.
#   scripts/sanitizer_suite.sh [ctest arguments, e.g. -R run_test]
set -euo pipefail
cd "$(dirname "$0")/.."
test/fuzz/build.sh
b=${ECHO_FUZZ_BUILD:-build-fuzz}
export ECHO_DES_CONTEXT_FACTORY=thread
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:detect_stack_use_after_return=0
export LSAN_OPTIONS=suppressions=$PWD/test/sanitizer/lsan.supp:print_suppressions=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# The sweep across MPI ranks runs echo-des under mpirun: Open MPI's components leak what they
# allocate at start-up and are unloaded before exit, so their leaks have no module name to suppress
# them by. That test runs with leak detection off; AddressSanitizer and UBSan still watch it.
mpi_test="across two MPI ranks|sweep_test: every case"
# The random generated jobs (scripts/random_jobs.py) take 6-7 minutes under the sanitizers and
# thread contexts, with single jobs past their 300 s limit: they run in the plain suite only. The
# random traces, which drive the engine rather than the generator, run here too (40 s).
slow_test="random generated jobs"
ctest --test-dir "$b" --output-on-failure -j2 --timeout 900 -E "$mpi_test|$slow_test" "$@"
ASAN_OPTIONS=${ASAN_OPTIONS/detect_leaks=1/detect_leaks=0} ctest --test-dir "$b" --output-on-failure --timeout 900 -R "$mpi_test"
