#!/usr/bin/env bash
# Checks that ptxgen installs and is usable from outside, three ways:
#
#   tools/package_check.sh emitter-only  # configure + build with PTXGEN_BUILD_DRIVER=OFF and
#                                        # Boost, toml++, CUDA and doctest hidden from CMake;
#                                        # install; build examples/ against it and run it
#   tools/package_check.sh install BUILD # `cmake --install` the built tree BUILD into a temp
#                                        # prefix; build examples/ against it and run it;
#                                        # import its Python module with PYTHONPATH set
#   tools/package_check.sh deb BUILD [--install]
#                                        # `cpack -G DEB` in BUILD; inspect the .deb with
#                                        # dpkg-deb (libraries and CMake package under
#                                        # /usr/lib/<multiarch>, no debug sections, under
#                                        # 15 MB), unpack it into a temp folder, run its
#                                        # ptxgen and build examples/ against it; with --install, as root with CI=true and
#                                        # apt-get: install it with apt-get, run `ptxgen --help`
#                                        # and `ptxgen emit`, build examples/ against /usr,
#                                        # `import ptxgen` with no PYTHONPATH, then remove it
#                                        # again (elsewhere --install only says so)
#
# The example's PTX must equal golden/seed/copy_async.ptx (produced by `ptxgen golden`
# from specs/seed/copy_async.toml) apart from // comment lines. Exit 0 pass, 1 fail,
# 77 skipped (a tool the check needs is missing). CTest runs the three (tests/package.cmake);
# tools/test.sh runs `deb BUILD --install` in CI (as root), after CTest.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
GOLDEN="$ROOT/golden/seed/copy_async.ptx"
CXX_FOR_EXAMPLES=${CXX:-c++}

TMP=$(mktemp -d "${TMPDIR:-/tmp}/ptxgen-package.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

fail() { echo "package_check: FAIL: $*" >&2; exit 1; }
note() { echo "package_check: $*" >&2; }
strip_comments() { grep -v '^//' "$1"; }
max_deb_mb=15 # the .deb's size limit (stripped: no debug sections in its binary and libraries)
# The multiarch tuple the libraries are installed under (lib/<tuple>, GNUInstallDirs): dpkg's
# (package dpkg-dev), else that of the compiler build tree $1 was configured with.
multiarch() {
  dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null ||
    "$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' "$1/CMakeCache.txt")" -print-multiarch
}

# The Python interpreter build tree $1 built its module for (python/CMakeLists.txt), when it
# built one: empty otherwise.
module_python() {
  compgen -G "$1/python/ptxgen.cpython-*.so" >/dev/null || return 0
  local python
  python=$(sed -n 's/^PTXGEN_PYTHON_EXECUTABLE:[A-Z]*=//p' "$1/CMakeCache.txt")
  [ -n "$python" ] || fail "$1 built the Python module but its cache names no PTXGEN_PYTHON_EXECUTABLE"
  echo "$python"
}
# Imports the module with interpreter $1 from a folder without one, with PYTHONPATH=$2 (empty:
# none, as a user of the installed package has), and prints its version.
import_module() {
  local python=$1 path=$2 version
  version=$(cd "$TMP" && env -u PYTHONPATH ${path:+PYTHONPATH="$path"} "$python" -c \
    'import ptxgen; print(ptxgen.__version__)') || fail "import ptxgen${path:+ with PYTHONPATH=$path}"
  note "import ptxgen${path:+ with PYTHONPATH=$path}: version $version"
}

# Builds examples/ against prefix $1 with the compiler $2 and runs it; $3 = "driver" when
# ptxgen::driver must be there (and then ptxas, where one is installed, must assemble).
build_and_run_examples() {
  local prefix=$1 cxx=$2 want=$3 ex="$TMP/examples-build"
  rm -rf "$ex"
  cmake -S "$ROOT/examples" -B "$ex" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_CXX_COMPILER="$cxx" \
    -DCMAKE_BUILD_TYPE=Plain >"$TMP/examples-configure.log" 2>&1 ||
    { cat "$TMP/examples-configure.log" >&2; fail "examples/ does not configure against $prefix"; }
  cmake --build "$ex" -j2 >"$TMP/examples-build.log" 2>&1 ||
    { cat "$TMP/examples-build.log" >&2; fail "examples/ does not build against $prefix"; }
  local rc=0
  "$ex/seed_kernel" >"$TMP/seed.ptx" 2>"$TMP/seed.err" || rc=$?
  [ "$rc" -eq 0 ] || { cat "$TMP/seed.err" >&2; fail "the example exited $rc"; }
  cat "$TMP/seed.err" >&2
  diff <(strip_comments "$GOLDEN") <(strip_comments "$TMP/seed.ptx") >&2 ||
    fail "the example's PTX differs from $GOLDEN"
  if [ "$want" = driver ]; then
    grep -q 'EXAMPLE_WITH_DRIVER' "$ex/CMakeFiles/seed_kernel.dir/flags.make" ||
      fail "the example did not find ptxgen::driver in $prefix"
    if command -v ptxas >/dev/null || [ -x /usr/local/cuda/bin/ptxas ] || [ -n "${PTXGEN_PTXAS:-}" ]; then
      grep -q '^seed_kernel: assembled by ' "$TMP/seed.err" || fail "ptxas is installed but the example did not assemble"
    fi
  fi
  if [ -x "$ex/race_kernel" ]; then # built where ptxgen::driver is installed
    rc=0
    "$ex/race_kernel" >"$TMP/race.out" 2>"$TMP/race.err" || rc=$?
    case $rc in
    0) note "$(cat "$TMP/race.out")" ;;
    77) note "race_kernel: $(tail -1 "$TMP/race.err")" ;;
    *) cat "$TMP/race.out" "$TMP/race.err" >&2; fail "race_kernel against $prefix exited $rc" ;;
    esac
  fi
  note "examples/ built against $prefix and its PTX matches the golden"
}

emitter_only() {
  local b="$TMP/build" prefix="$TMP/prefix"
  # Hiding the driver's dependencies proves the emitter needs none of them. A unity build
  # without optimisation keeps this cheap: the library is compiled, not benchmarked.
  cmake -S "$ROOT" -B "$b" -DPTXGEN_BUILD_DRIVER=OFF -DCMAKE_BUILD_TYPE=Plain \
    -DPTXGEN_UNITY_BUILD=ON -DCMAKE_INSTALL_PREFIX="$prefix" \
    -DCMAKE_DISABLE_FIND_PACKAGE_Boost=ON -DCMAKE_DISABLE_FIND_PACKAGE_tomlplusplus=ON \
    -DCMAKE_DISABLE_FIND_PACKAGE_CUDAToolkit=ON -DCMAKE_DISABLE_FIND_PACKAGE_doctest=ON \
    -DCMAKE_DISABLE_FIND_PACKAGE_Threads=ON >"$TMP/configure.log" 2>&1 ||
    { cat "$TMP/configure.log" >&2; fail "PTXGEN_BUILD_DRIVER=OFF does not configure without Boost, toml++, CUDA"; }
  cmake --build "$b" -j2 >"$TMP/build.log" 2>&1 || { cat "$TMP/build.log" >&2; fail "the emitter-only tree does not build"; }
  [ -f "$b/libptxgen_emitter.a" ] || fail "no libptxgen_emitter.a"
  [ ! -e "$b/ptxgen" ] && [ ! -e "$b/libptxgen_driver.a" ] || fail "the emitter-only tree built the driver"
  cmake --install "$b" >/dev/null || fail "cmake --install of the emitter-only tree"
  [ -f "$prefix/include/ptxgen/emitter/lower/lower.hpp" ] || fail "the emitter's headers are not installed"
  [ ! -e "$prefix/include/ptxgen/driver" ] || fail "driver headers installed without the driver"
  build_and_run_examples "$prefix" "$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' "$b/CMakeCache.txt")" emitter
}

install_tree() {
  local build=$1 prefix="$TMP/prefix"
  cmake --install "$build" --prefix "$prefix" >/dev/null || fail "cmake --install $build"
  local f
  for f in bin/ptxgen include/ptxgen/emitter/lower/lower.hpp include/ptxgen/driver/ptxas/ptxas.hpp \
    include/ptxgen/emitter/support/diagnostic_ids.def; do
    [ -e "$prefix/$f" ] || fail "$f is not installed"
  done
  [ ! -e "$prefix/include/ptxgen/driver/cli" ] || fail "the CLI's private headers are installed"
  compgen -G "$prefix/lib*/cmake/ptxgen/ptxgenConfigVersion.cmake" >/dev/null ||
    compgen -G "$prefix/lib/*/cmake/ptxgen/ptxgenConfigVersion.cmake" >/dev/null ||
    fail "no ptxgenConfigVersion.cmake"
  "$prefix/bin/ptxgen" --help >/dev/null || fail "the installed ptxgen --help"
  build_and_run_examples "$prefix" "$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' "$build/CMakeCache.txt")" driver
  local python
  python=$(module_python "$build")
  [ -z "$python" ] || import_module "$python" "$prefix/lib/python3/dist-packages"
}

deb() {
  local build=$1 install=$2
  command -v cpack >/dev/null && command -v dpkg-deb >/dev/null || { note "no cpack or dpkg-deb: skipped"; exit 77; }
  (cd "$build" && cpack -G DEB -B "$TMP/deb" >"$TMP/cpack.log" 2>&1) || { cat "$TMP/cpack.log" >&2; fail "cpack -G DEB"; }
  local debs=("$TMP"/deb/ptxgen_*_*.deb)
  [ ${#debs[@]} -eq 1 ] && [ -f "${debs[0]}" ] || fail "cpack wrote no ptxgen_<version>_<arch>.deb: $(ls "$TMP/deb")"
  local pkg=${debs[0]} depends contents
  note "built $(basename "$pkg")"
  [ "$(basename "$pkg")" = "ptxgen_$(dpkg-deb -f "$pkg" Version)_$(dpkg-deb -f "$pkg" Architecture).deb" ] ||
    fail "file name $(basename "$pkg") is not ptxgen_<version>_<arch>.deb"
  depends=$(dpkg-deb -f "$pkg" Depends)
  note "Depends: $depends"
  grep -q 'libboost-program-options' <<<"$depends" || fail "Depends lacks libboost-program-options"
  local python
  python=$(module_python "$build")
  if [ -n "$python" ]; then
    grep -q 'python3-numpy' <<<"$depends" || fail "the module is built but Depends lacks python3-numpy"
    grep -q 'python3 (<< ' <<<"$depends" || fail "Depends does not bound python3 to the module's ABI"
  fi
  if ldd "$build/ptxgen" | grep -q libtomlplusplus; then
    grep -q 'libtomlplusplus' <<<"$depends" || fail "ptxgen links libtomlplusplus but Depends lacks it"
  fi
  contents=$(dpkg-deb -c "$pkg")
  local f libdir
  libdir=./usr/lib/$(multiarch "$build")
  for f in ./usr/bin/ptxgen ./usr/include/ptxgen/emitter/lower/lower.hpp \
    "$libdir/cmake/ptxgen/ptxgenConfig.cmake" "$libdir/cmake/ptxgen/ptxgenConfigVersion.cmake" \
    "$libdir/libptxgen_emitter.a" "$libdir/libptxgen_driver.a"; do
    grep -q -- " $f\$" <<<"$contents" || fail "the .deb lacks $f"
  done
  local pymod=""
  if [ -n "$python" ]; then
    pymod=$(sed -n 's|.* \./usr/lib/python3/dist-packages/\(ptxgen\.cpython-[^ ]*\.so\)$|\1|p' <<<"$contents")
    [ -n "$pymod" ] || fail "the .deb lacks the Python module in /usr/lib/python3/dist-packages"
    grep -q -- " ./usr/lib/python3/dist-packages/ptxgen.pyi\$" <<<"$contents" || fail "the .deb lacks ptxgen.pyi"
  fi
  local bytes
  bytes=$(stat -c %s "$pkg")
  note "$(basename "$pkg"): $bytes bytes"
  [ "$bytes" -lt $((max_deb_mb * 1000 * 1000)) ] || fail "the .deb is $bytes bytes, over $max_deb_mb MB"
  # What the package holds works as laid out there, before anything is installed: the
  # command runs, and examples/ builds against its CMake package.
  dpkg-deb -x "$pkg" "$TMP/root" || fail "dpkg-deb -x"
  for f in "$TMP/root/usr/bin/ptxgen" "$TMP/root/${libdir#./}"/libptxgen_*.a \
    ${pymod:+"$TMP/root/usr/lib/python3/dist-packages/$pymod"}; do
    ! readelf -S -W "$f" 2>/dev/null | grep -q '\.debug_' || fail "$(basename "$f") in the .deb has debug sections"
  done
  "$TMP/root/usr/bin/ptxgen" --help >/dev/null || fail "the packaged ptxgen --help"
  build_and_run_examples "$TMP/root/usr" "$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' "$build/CMakeCache.txt")" driver
  [ -z "$python" ] || import_module "$python" "$TMP/root/usr/lib/python3/dist-packages"
  if command -v apt-get >/dev/null; then # apt resolves its Depends here (a simulation)
    apt-get install -s "$pkg" >"$TMP/apt-sim.log" 2>&1 || { cat "$TMP/apt-sim.log" >&2; fail "apt-get install -s $pkg"; }
  fi
  [ "$install" = --install ] || return 0
  if [ "${CI:-}" != true ] || [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null; then
    note "not root in CI: the .deb is built and inspected, not installed"
    return 0
  fi
  dpkg -s ptxgen >/dev/null 2>&1 && fail "a ptxgen package is installed already; not replacing it"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$pkg" >"$TMP/apt.log" 2>&1 ||
    { cat "$TMP/apt.log" >&2; fail "apt-get install $pkg"; }
  local rc=0
  (
    /usr/bin/ptxgen --help >/dev/null || fail "the installed ptxgen --help"
    /usr/bin/ptxgen emit "$ROOT/specs/seed/copy_async.toml" -o "$TMP/emitted.ptx" || fail "the installed ptxgen emit"
    diff <(strip_comments "$GOLDEN") <(strip_comments "$TMP/emitted.ptx") >&2 || fail "the installed ptxgen emits other PTX"
    build_and_run_examples /usr "$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' "$build/CMakeCache.txt")" driver
    # The python3 the package depends on (not another first on PATH, a pyenv's) finds
    # /usr/lib/python3/dist-packages by itself.
    [ -z "$python" ] || import_module /usr/bin/python3 ""
  ) || rc=$?
  DEBIAN_FRONTEND=noninteractive apt-get remove -y -qq ptxgen >/dev/null 2>&1 || note "apt-get remove ptxgen failed"
  [ "$rc" -eq 0 ] || exit "$rc"
  note "the .deb installed with apt-get; ptxgen --help, emit, find_package(ptxgen) and import ptxgen work from /usr"
}

case "${1:-}" in
emitter-only) emitter_only ;;
install) [ $# -eq 2 ] || fail "usage: $0 install BUILD"; install_tree "$2" ;;
deb) [ $# -eq 2 ] || { [ $# -eq 3 ] && [ "$3" = --install ]; } || fail "usage: $0 deb BUILD [--install]"
  deb "$2" "${3:-}" ;;
*) echo "usage: $0 emitter-only | install BUILD | deb BUILD [--install]" >&2; exit 2 ;;
esac
