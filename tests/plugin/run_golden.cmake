# A golden output: mktrace writes a script's trace, slubtrace reads it, the
# output must equal the .expect file byte for byte.
#   -DMKTRACE= -DSLUBTRACE= -DSCRIPT= -DWORK= -DEXPECT= -DARGS=a|b|c -DRC=n
#   -DUPDATE=1 rewrites the .expect file instead.
foreach(v MKTRACE SLUBTRACE SCRIPT WORK EXPECT ARGS RC)
	if(NOT DEFINED ${v})
		message(FATAL_ERROR "run_golden.cmake: ${v} not set")
	endif()
endforeach()
string(REPLACE "|" ";" args "${ARGS}")
file(REMOVE_RECURSE ${WORK})
execute_process(COMMAND ${MKTRACE} ${SCRIPT} ${WORK}/trace RESULT_VARIABLE rc)
if(rc)
	message(FATAL_ERROR "mktrace ${SCRIPT} failed: ${rc}")
endif()
execute_process(COMMAND ${SLUBTRACE} ${args} ${WORK}/trace
	OUTPUT_FILE ${WORK}/out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL RC)
	message(FATAL_ERROR "slubtrace ${ARGS}: exit ${rc}, expected ${RC}: ${err}")
endif()
if(UPDATE)
	configure_file(${WORK}/out ${EXPECT} COPYONLY)
	return()
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${WORK}/out ${EXPECT}
	RESULT_VARIABLE diff)
if(diff)
	execute_process(COMMAND diff -u ${EXPECT} ${WORK}/out)
	message(FATAL_ERROR "slubtrace ${ARGS}: output differs from ${EXPECT}")
endif()
