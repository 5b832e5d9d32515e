# The analysis under AddressSanitizer: a nested build of slubtrace, the
# plugin and the plugin tests with -DSLUB_SANITIZE=address, then the
# in-process tests and the bad-input cases run in it.
#   -DSRC= -DBIN= -DGENERATOR= -DCC=
foreach(v SRC BIN GENERATOR CC)
	if(NOT DEFINED ${v})
		message(FATAL_ERROR "run_asan.cmake: ${v} not set")
	endif()
endforeach()
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SRC} -B ${BIN} -G ${GENERATOR}
		-DCMAKE_C_COMPILER=${CC} -DSLUB_NESTED=ON -DSLUB_BUILD_BENCH=OFF
		-DSLUB_SANITIZE=address -DCMAKE_BUILD_TYPE=RelWithDebInfo
	RESULT_VARIABLE rc)
if(rc)
	message(FATAL_ERROR "nested configure failed: ${rc}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${BIN} --parallel 2 --target slubtrace
		babeltrace-plugin-slub mktrace test_plugin_decode test_plugin_sinks
	RESULT_VARIABLE rc)
if(rc)
	message(FATAL_ERROR "nested build failed: ${rc}")
endif()
# Babeltrace's libraries are not instrumented; full stacks let the
# suppressions name the graph call a leak of theirs comes from.
set(ENV{ASAN_OPTIONS} "halt_on_error=1:detect_leaks=1:fast_unwind_on_malloc=0")
set(ENV{LSAN_OPTIONS} "suppressions=${SRC}/tests/plugin/lsan.supp:print_suppressions=0")
foreach(cmd "${BIN}/tests/plugin/test_plugin_decode"
	    "${BIN}/tests/plugin/test_plugin_sinks;${BIN}/analysis/plugin"
	    "${SRC}/tests/plugin/badinput.sh;${BIN}")
	execute_process(COMMAND ${cmd} RESULT_VARIABLE rc)
	if(rc)
		message(FATAL_ERROR "${cmd} failed under ASan: ${rc}")
	endif()
endforeach()
