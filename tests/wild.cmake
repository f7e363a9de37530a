# wild: real public PTX kernels (tests/wild/MANIFEST.toml, docs/lint.md "The wild corpus").
# tools/wild_lint.py lints every entry whose file is present with `ptxgen lint` and fails
# when a verdict differs from the manifest's `expected` (re-record with --write-expected
# after a change that moves a verdict). The public kernels themselves are kept out of the
# repository (tests/wild/README.md): where they are absent, the project's own
# reproductions (tests/wild/own/) are what this checks.
find_package(Python3 3.11 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  add_test(NAME wild.lint
           COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tools/wild_lint.py
                   --ptxgen $<TARGET_FILE:ptxgen> --check --present-only)
  set_tests_properties(wild.lint PROPERTIES LABELS "sim;lint" TIMEOUT 300)
endif()
# wild.device_manifest: every kernel says how the H200 run compares with the simulator's
# (`gpu`: bytes, TYPE ulp N, or skip: why) and with what inputs (`fill`); tools/wild_device.sh
# (docs/lint.md "The wild corpus") reads them through tools/wild_device_prepare.py.
if(Python3_Interpreter_FOUND)
  add_test(NAME wild.device_manifest
           COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tools/wild_device_prepare.py --check)
  set_tests_properties(wild.device_manifest PROPERTIES LABELS "lint" TIMEOUT 30)
endif()
# wild.save_run: `lint --fill f16 --save-run DIR` on the project's own GEMM writes a plan of the
# run that finished (three regions, six parameters, the link of each pointer) and every
# region's bytes before and after it, the output changed by the run and the inputs not;
# --fill takes only a floating-point type, --save-run one kernel.
add_test(NAME wild.save_run
         COMMAND bash -c [=[set -u; ptxgen=$0 root=$1 dir=$2; rm -rf "$dir"
  gemm="$root/tests/wild/own/gemm_128x128.sm80.ptx"
  args="--grid 1 --arg 0=f16[128,256] --arg 1=f16[128,256] --arg 2=f32[128,128] --arg 3=128 --arg 4=128 --arg 5=256"
  "$ptxgen" lint "$gemm" $args --fill f16 --save-run "$dir" > /dev/null || exit 1
  p="$dir/plan.txt"
  grep -qx 'sim ok' "$p" && grep -qx 'entry gemm_128x128' "$p" && grep -qx 'block 256 1 1' "$p" || exit 1
  [ "$(grep -c '^region ' "$p")" = 3 ] && [ "$(grep -c '^param ' "$p")" = 6 ] || exit 1
  for k in 0 1 2; do grep -qx "link param $k 0 region $k" "$p" || exit 1; done
  grep -qx 'param 5 4 00010000' "$p" || exit 1
  cmp -s "$dir/in.0.bin" "$dir/sim.0.bin" && cmp -s "$dir/in.1.bin" "$dir/sim.1.bin" || exit 1
  ! cmp -s "$dir/in.2.bin" "$dir/sim.2.bin" || exit 1
  "$ptxgen" lint "$gemm" $args --fill u8 > /dev/null 2>&1; [ $? = 2 ] || exit 1
  "$ptxgen" lint "$root/tests/wild/own/ring_ahead.sm80.ptx" --grid 1 --arg 2=8 --save-run "$dir.2" > /dev/null 2>&1
  [ $? = 2 ] && [ ! -e "$dir.2" ]]=]
                 $<TARGET_FILE:ptxgen> ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/wild_save_run)
set_tests_properties(wild.save_run PROPERTIES LABELS "sim;lint" TIMEOUT 30)
# wild.device_fake: tools/wild_device/run.cu's host side against a fake Driver API
# (tools/wild_device/fake_driver.cpp, no GPU): on a plan with a map pointed to, a map held by
# a parameter and a pointer region, the runner gives every region its input bytes and puts each
# device address and map where the plan's links say (the fake's launch checks them), and its
# comparison agrees with a GPU that did what the simulator did, finds a changed byte under
# `bytes`, lets one low mantissa bit pass under `f32 ulp 1` but not an exponent bit, and
# leaves the bytes of a region holding a map uncompared.
if(CUDAToolkit_FOUND)
  add_executable(wild_device_fake ${PROJECT_SOURCE_DIR}/tools/wild_device/fake_run.cpp
                                  ${PROJECT_SOURCE_DIR}/tools/wild_device/fake_driver.cpp)
  target_include_directories(wild_device_fake PRIVATE ${CUDAToolkit_INCLUDE_DIRS})
  add_test(NAME wild.device_fake
           COMMAND bash -c [=[set -u; ptxgen=$0 fake=$1 root=$2 dir=$3; rm -rf "$dir"
  maps="$root/tests/data/wild_device/maps.ptx"
  "$ptxgen" lint "$maps" --grid 1 --arg 0=@f32[64]:box[64] --arg 1=f32[64]:box[64] --arg k_n=7 \
    --fill f32 --save-run "$dir" > /dev/null || exit 1
  export WILD_FAKE_DIR="$dir"
  run() { WILD_FAKE_XOR="$1" "$fake" "$maps" "$dir" "$2"; echo "exit $?"; }
  run "" bytes | tee /dev/stderr | grep -q '^wild-run agree regions=3 ' || exit 1
  run "3 70000 1" bytes | grep -qx 'exit 1' || exit 1
  run "3 70000 1" "f32 ulp 1" | grep -qx 'exit 0' || exit 1
  run "3 70003 64" "f32 ulp 1" | grep -qx 'exit 1' || exit 1
  run "1 20 1" bytes | grep -qx 'exit 0']=]
                   $<TARGET_FILE:ptxgen> $<TARGET_FILE:wild_device_fake> ${PROJECT_SOURCE_DIR}
                   ${CMAKE_CURRENT_BINARY_DIR}/wild_device_fake_work)
  set_tests_properties(wild.device_fake PROPERTIES LABELS "lint" TIMEOUT 30)
endif()
