# Runs one example the way the README does and diffs its text summary with expected.txt.
#   cmake -DECHO=<echo-des> -DEXAMPLE=<name> -DSOURCE=<source dir> -DOUT=<scratch dir> -P golden_example.cmake
execute_process(
  COMMAND ${ECHO} run examples/${EXAMPLE}/job.yaml -q --force --out ${OUT}
  WORKING_DIRECTORY ${SOURCE}
  OUTPUT_VARIABLE actual ERROR_VARIABLE errors RESULT_VARIABLE code)
if(NOT code EQUAL 0)
  message(FATAL_ERROR "echo-des failed (${code}): ${errors}")
endif()
file(READ ${SOURCE}/examples/${EXAMPLE}/expected.txt expected)
if(NOT actual STREQUAL expected)
  file(WRITE ${OUT}/actual.txt "${actual}")
  message(FATAL_ERROR "examples/${EXAMPLE}: output differs from expected.txt\n--- expected\n${expected}--- actual\n${actual}"
                      "If the change is intended: cp ${OUT}/actual.txt ${SOURCE}/examples/${EXAMPLE}/expected.txt")
endif()
