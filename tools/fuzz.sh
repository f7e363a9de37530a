#!/usr/bin/env bash
# Builds the libFuzzer targets (libfuzzer/) with clang and runs them, one at a time.
#
#   tools/fuzz.sh                      # every target, 600 s each
#   tools/fuzz.sh --time 60 expr_parser view_parser
#   tools/fuzz.sh --build-only
#
# Installs clang-14 and libclang-rt-14-dev (libFuzzer, ASan, UBSan runtimes)
# when missing. Builds into $FUZZ_BUILD_DIR (default build-fuzz/); seeds come
# from specs/ and golden/ (fuzz/make_corpus.sh) into $FUZZ_BUILD_DIR/seeds/<target>;
# what the fuzzer finds interesting accumulates in $FUZZ_BUILD_DIR/corpus/<target>;
# logs go to $FUZZ_BUILD_DIR/logs/<target>.log and crashing inputs to
# $FUZZ_BUILD_DIR/artifacts/<target>/. Exit status 1 when a target found something.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${FUZZ_BUILD_DIR:-"$ROOT/build-fuzz"}
TIME=600
BUILD_ONLY=0
TARGETS=()
ALL=(opcode_parser rearrange_pattern expr_parser view_parser spec_to_ptx sim_parser)

while [ $# -gt 0 ]; do
  case "$1" in
    --time) TIME=$2; shift 2 ;;
    --build-only) BUILD_ONLY=1; shift ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    *) TARGETS+=("$1"); shift ;;
  esac
done
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=("${ALL[@]}")

source "$ROOT/tools/packages.sh"
ensure_packages cmake clang-14 libclang-rt-14-dev libboost-program-options-dev doctest-dev libtomlplusplus-dev nlohmann-json3-dev
CC_BIN=$(command -v clang || command -v clang-14)
CXX_BIN=$(command -v clang++ || command -v clang++-14)

CC=$CC_BIN CXX=$CXX_BIN cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DPTXGEN_FUZZ=ON >/dev/null
cmake --build "$BUILD" -j"${FUZZ_JOBS:-2}" --target "${TARGETS[@]/#/fuzz_}"
[ "$BUILD_ONLY" -eq 0 ] || exit 0

"$ROOT/libfuzzer/make_corpus.sh" "$ROOT" "$BUILD/seeds"
mkdir -p "$BUILD/logs"
status=0
for t in "${TARGETS[@]}"; do
  mkdir -p "$BUILD/artifacts/$t" "$BUILD/corpus/$t"
  echo "fuzzing $t for ${TIME}s (log: $BUILD/logs/$t.log)" >&2
  # -rss_limit_mb / -timeout: a slow or memory-hungry input is a finding too.
  if ! "$BUILD/libfuzzer/fuzz_$t" "$BUILD/corpus/$t" "$BUILD/seeds/$t" -max_total_time="$TIME" -rss_limit_mb=2048 \
      -timeout=10 -max_len=8192 -print_final_stats=1 \
      -artifact_prefix="$BUILD/artifacts/$t/" >"$BUILD/logs/$t.log" 2>&1; then
    echo "FINDING in $t: see $BUILD/logs/$t.log and $BUILD/artifacts/$t/" >&2
    status=1
  fi
  grep -E '^#[0-9]+' "$BUILD/logs/$t.log" | tail -1 >&2 || true
done
exit $status
