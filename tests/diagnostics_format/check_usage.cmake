# Run by tests/diagnostics_format.cmake: -DPTXGEN=<ptxgen> -DSPEC=<an invalid spec>.
# Every command that reports diagnostics takes --diagnostics-format and rejects an
# unknown value as a usage error (2); `emit` and `golden` give JSON lines too.

foreach(command check emit golden asm run)
  execute_process(COMMAND "${PTXGEN}" ${command} "${SPEC}" --diagnostics-format=xml
                  RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 2 OR NOT err MATCHES "--diagnostics-format")
    message(FATAL_ERROR "${command} --diagnostics-format=xml: ${rc}\n${err}")
  endif()
endforeach()
execute_process(COMMAND "${PTXGEN}" instr cp.async.cg.shared.global --chunk-bytes 16
                        --diagnostics-format=xml RESULT_VARIABLE rc)
if(NOT rc EQUAL 2)
  message(FATAL_ERROR "instr --diagnostics-format=xml: ${rc}")
endif()

get_filename_component(root "${SPEC}" DIRECTORY)
foreach(command emit golden)
  set(extra)
  if(command STREQUAL "golden")
    set(extra --spec-root "${root}")
  endif()
  execute_process(COMMAND "${PTXGEN}" ${command} "${SPEC}" ${extra} --diagnostics-format=json
                  RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE json)
  string(REGEX REPLACE "\n.*" "" first "${json}")
  string(JSON id ERROR_VARIABLE bad GET "${first}" id)
  if(NOT rc EQUAL 1 OR bad OR NOT id STREQUAL "spec_unknown_dtype")
    message(FATAL_ERROR "${command} --diagnostics-format=json: ${rc} ${bad}\n${json}")
  endif()
endforeach()

# instr: an opcode error as JSON, file "opcode".
execute_process(COMMAND "${PTXGEN}" instr cp.async.xx.shared.global --chunk-bytes 16
                        --diagnostics-format=json RESULT_VARIABLE rc ERROR_VARIABLE json)
string(REGEX REPLACE "\n.*" "" first "${json}")
string(JSON file ERROR_VARIABLE bad GET "${first}" file)
if(NOT rc EQUAL 1 OR bad OR NOT file STREQUAL "opcode")
  message(FATAL_ERROR "instr --diagnostics-format=json: ${rc} ${bad}\n${json}")
endif()
