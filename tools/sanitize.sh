#!/usr/bin/env bash
# The sanitizer configuration: configures a second build folder with clang and
# -DPTXGEN_SANITIZE=ON (AddressSanitizer + UBSan, -fno-sanitize-recover=all)
# and -DPTXGEN_FUZZ=ON (the libFuzzer targets and their smoke runs), builds
# everything and runs the whole CTest suite there; any sanitizer report fails
# the test that produced it. Not part of CI (.ci/run says why): run it by hand before a stop,
# `--quick` for the selection CI ran until 2026-12-05 (about 11 minutes on 2 cores). The libraries are
# unity builds (several sources per translation unit: less compile time;
# cmake/unity.cmake); PTXGEN_UNITY_BUILD=OFF turns that off. The libraries keep the build
# type's optimisation; the unit tests and the ptxgen command's own code compile at -O0 here
# (CMakeLists.txt, tests/CMakeLists.txt: a third of the compile time, and the tests' run time
# is the libraries'), and only the libraries carry libFuzzer's coverage instrumentation.
#
#   tools/sanitize.sh                 # build-asan/ beside build/, every test
#   tools/sanitize.sh --quick         # -O1 line tables, the selection below (was CI's)
#   ASAN_BUILD_DIR=/tmp/b tools/sanitize.sh -L unit    # extra arguments go to ctest
set -euo pipefail
quick=false
if [ "${1:-}" = --quick ]; then
  quick=true
  shift
fi
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${ASAN_BUILD_DIR:-"$ROOT/build-asan"}

source "$ROOT/tools/packages.sh"
ensure_packages cmake clang-14 libclang-rt-14-dev libboost-program-options-dev doctest-dev libtomlplusplus-dev nlohmann-json3-dev

# With --quick line tables only (-gline-tables-only): the reports keep file:line, the
# compile sheds most of -g's cost; and -O1, which AddressSanitizer's documentation suggests
# for reasonable speed and which compiles faster than -O2.
ci_flags=()
[ "$quick" = true ] && ci_flags+=("-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only -DNDEBUG")
CC=$(command -v clang || command -v clang-14) CXX=$(command -v clang++ || command -v clang++-14) \
  cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPTXGEN_SANITIZE=ON -DPTXGEN_FUZZ=ON \
  -DPTXGEN_WERROR=ON -DPTXGEN_UNITY_BUILD="${PTXGEN_UNITY_BUILD:-ON}" -DPTXGEN_BUILD_BENCH=OFF \
  "${ci_flags[@]}" >/dev/null
cmake --build "$BUILD" -j"$(nproc)"

# Halt on the first report, with a non-zero status CTest sees. detect_leaks stays on.
export ASAN_OPTIONS=${ASAN_OPTIONS:-halt_on_error=1:abort_on_error=0:exitcode=86:detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1:exitcode=87}
cd "$BUILD"
# Left out here, run by tools/test.sh: style (clang-format and the DiagId list: no C++ of
# ptxgen's runs), agreement (ptxgen instr against ptxas over every form: the printing it
# exercises is in the ptx_* unit tests, which run here) and package (CMake install, a
# second emitter-only build and the .deb: packaging, not ptxgen's code under the sanitizers).
# With --quick also the two whole-corpus agreement tests of the reference's two paths (every view of
# every corpus spec: affine form == naive replay; the fast path == the naive path on the
# corpus and on generated specs): they run in tools/test.sh, and both paths run under the
# sanitizers here through unit.reference_naive_view, reference_naive_expr, reference_semantics
# and the corpus, race and invalid-spec runs.
# Also left to tools/test.sh with --quick: the runs whose time under the sanitizers is the whole-range
# proof's reference replays at every value (20 to 60 times slower than at -O2 there):
# golden.check and diagnostics_format.invalid_specs (every corpus and invalid spec again: the
# invalid.* and races.* tests run each here), sim.corpus and the foreign kernels (the
# simulator runs here through the sim.*, foreign.mutant.* and fuzz smoke tests), and
# unit.tile_expr's brute-force interval soundness (arithmetic, 57 s here); and, for the same
# reason (each runs many corpus specs or kernels again: 28 and 26 s of the stage's test time at
# 7dbb1ca), show.pipeline_pictures (the simulator runs here through sim.* and the other show.*
# tests) and lint.kernel.* (the lint engine runs here through lint.mutant.* and lint.case.*).
# And the fuzz campaigns that only vary what fuzz_loop.smoke and fuzz.smoke.* already run here
# (a rule disabled, test values only, shards, an injected fault, merged reports: 98 s of this
# stage's test time at 760c7bb, which put CI at 14 min 32 s), ptxas.ring_sass_loop.* (ptxas's
# SASS loop lengths, not ptxgen's memory: emit runs here through every corpus test) and
# unit.sim_reader_corpus (the reader over every corpus file; fuzz.smoke.sim_parser feeds it
# here). And the 397 assembly tests `ptxas.<dir>.<name>` (tools/assemble_golden.sh: each
# golden through `ptxgen asm` to ptxas for every target; `ptxas.<x>_input.*`: ptxas alone):
# their time is ptxas's, which the sanitizers do not instrument (95 s of this stage's test time
# at 6fecf6c), and `ptxgen asm`'s own code runs here through the asm_cli.* tests and
# ptxas.runner_real.
ci_skip=()
[ "$quick" = true ] && ci_skip+=(-E '^(unit\.(corpus_views|reference_affine|tile_expr|sim_reader_corpus)|golden\.check|diagnostics_format\.invalid_specs|sim\.corpus|foreign\.kernel\..*|show\.pipeline_pictures|lint\.kernel\..*|fuzz_loop\.(disable_bulk_rules|disable_cluster_rules|disable_rule|report_merge|test_values_only|shard|injected_fault)|ptxas\.[A-Za-z0-9_]+\..*)$')
ctest --output-on-failure -j"$(nproc)" -LE '^(style|agreement|package)$' "${ci_skip[@]}" "$@"
