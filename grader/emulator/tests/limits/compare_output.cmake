# ctest emulator.launch_limits: runs PROGRAM and compares its standard output with the
# file EXPECTED, line for line; on a difference prints both.
#   cmake -DPROGRAM=... -DEXPECTED=... -P compare_output.cmake
execute_process(COMMAND "${PROGRAM}" OUTPUT_VARIABLE got ERROR_VARIABLE err RESULT_VARIABLE rc)
file(READ "${EXPECTED}" want)
if(NOT rc EQUAL 0 OR NOT got STREQUAL want)
  message(FATAL_ERROR "exit status ${rc}\n--- expected\n${want}--- got\n${got}--- stderr\n${err}")
endif()
