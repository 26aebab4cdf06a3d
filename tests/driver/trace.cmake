# --trace DIR: the OTF2 archive read back with otf2-print against the report (pipecg + IAR at 2
# ranks), the --trace-iterations bound, the refusals; a build without OTF2 refuses --trace.
find_program(CUBECG_OTF2_PRINT otf2-print)
if(CUBECG_HAVE_OTF2 AND CUBECG_OTF2_PRINT)
  set(cc_trace_modes counts bound refuse)
elseif(CUBECG_HAVE_OTF2)
  message(STATUS "cubecg: otf2-print not found (otf2-tools): driver_trace_counts, _bound not registered")
  set(cc_trace_modes refuse)
else()
  set(cc_trace_modes absent)
endif()
foreach(mode ${cc_trace_modes})
  add_test(NAME driver_trace_${mode}
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/driver/test_trace.sh ${mode}
                   ${CMAKE_CURRENT_BINARY_DIR}/out/trace_${mode} ${MPIEXEC_EXECUTABLE}
                   $<TARGET_FILE:cubecg>)
  set_tests_properties(driver_trace_${mode} PROPERTIES PROCESSORS 2 ENVIRONMENT OMP_NUM_THREADS=1)
endforeach()
