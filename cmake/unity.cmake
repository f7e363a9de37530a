# PTXGEN_UNITY_BUILD=ON compiles the emitter and driver libraries, the command and the unit tests as
# unity builds (several sources per translation unit: their headers are parsed, and the
# inline code they share is compiled, once per batch, not once per file: 8 test files take
# 19 s as one unit against 31 s apart under ASan, 16 take 19 s against 52 s with gcc at -O2).
# tools/sanitize.sh turns it on for the AddressSanitizer build, tools/setup.sh for CI's build
# (CI=true).
# Each unit-test file keeps its file-local names in a namespace of its own (unit_<file>), so
# that batches may shift as files come and go. A library or command file whose file-local
# names (anonymous namespace, static) clash with another's in the same batch is compiled on its
# own: when a new file makes a batch fail with "redefinition of ..." or "... is ambiguous", add
# one of the two files here.
option(PTXGEN_UNITY_BUILD "Unity-build the libraries, the command and the unit tests (CI)" OFF)
if(NOT PTXGEN_UNITY_BUILD)
  return()
endif()
# Batches of 16 sources (CMake's default is 8): fewer, larger translation units parse the
# shared headers fewer times, and 2 cores still get several batches to run side by side.
set_target_properties(ptxgen_emitter PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 16)
if(TARGET ptxgen_driver)
  set_target_properties(ptxgen_driver PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 16)
  set_source_files_properties(
    driver/reference/reference.cpp # coords_text (driver/reference/expect.cpp)
    PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
endif()
if(TARGET ptxgen)
  # The command's files share file-local helper names: print_help (cache.cpp, fuzz.cpp, run.cpp,
  # show.cpp), synopsis (fuzz.cpp), a Target (instr.cpp) and option names sweep_options.cpp's
  # parameters shadow; the other eleven are one unit (16 s with gcc at -O2 against 38 s apart).
  set_target_properties(ptxgen PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 16)
  set_source_files_properties(
    driver/cli/cmd_fuzz.cpp driver/cli/cmd_instr.cpp driver/cli/cmd_run.cpp driver/cli/cmd_show.cpp
    driver/cli/sweep_options.cpp PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
endif()
if(TARGET ptxgen_unit)
  set_target_properties(ptxgen_unit PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 16)
  # doctest's implementation is compiled where DOCTEST_CONFIG_IMPLEMENT precedes its header.
  set_source_files_properties(${PROJECT_SOURCE_DIR}/tests/unit/main.cpp TARGET_DIRECTORY ptxgen_unit
                              PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
endif()
