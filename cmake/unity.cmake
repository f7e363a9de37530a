# PTXGEN_UNITY_BUILD=ON compiles the emitter and driver libraries as unity builds (several
# sources per translation unit: their headers are parsed once per batch, not once per file).
# tools/sanitize.sh turns it on for the AddressSanitizer build, where CI's compile time goes.
# The test programs and the command-line front end stay one file per translation unit: their
# files share many file-local helper names (print_help, read_data, ...), and a new file would
# keep shifting the batches into new clashes. A library file whose file-local names
# (anonymous namespace, static) clash with another's in the same batch is compiled on its
# own: when a new file makes a batch fail with "redefinition of ..." or "... is ambiguous",
# add one of the two files here.
option(PTXGEN_UNITY_BUILD "Unity-build the emitter and driver libraries (tools/sanitize.sh)" OFF)
if(NOT PTXGEN_UNITY_BUILD)
  return()
endif()
set_target_properties(ptxgen_emitter PROPERTIES UNITY_BUILD ON)
if(TARGET ptxgen_driver)
  set_target_properties(ptxgen_driver PROPERTIES UNITY_BUILD ON)
  set_source_files_properties(
    driver/reference/reference.cpp # coords_text (driver/reference/expect.cpp)
    PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
endif()
