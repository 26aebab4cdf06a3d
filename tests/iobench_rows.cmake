# The seeds' rows of cubecg-iobench, the fio twin, the I/O sweep and its
# figures. Label: iobench.
if(TARGET cubecg-iobench)
  add_test(NAME iobench_rows
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/test_iobench_rows.sh ${MPIEXEC_EXECUTABLE}
                   $<TARGET_FILE:cubecg-iobench> ${CMAKE_CURRENT_BINARY_DIR}/iobench_rows)
  add_test(NAME iosweep_dryrun
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/test_iosweep.sh ${PROJECT_SOURCE_DIR}
                   ${CMAKE_BINARY_DIR} ${CMAKE_CURRENT_BINARY_DIR}/iosweep_dryrun dry)
  add_test(NAME iosweep_analyze
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/test_iosweep.sh ${PROJECT_SOURCE_DIR}
                   ${CMAKE_BINARY_DIR} ${CMAKE_CURRENT_BINARY_DIR}/iosweep_analyze real)
  set_tests_properties(iobench_rows iosweep_analyze PROPERTIES PROCESSORS 2 TIMEOUT 600
                       ENVIRONMENT OMP_NUM_THREADS=1)
  set_tests_properties(iobench_rows iosweep_dryrun iosweep_analyze PROPERTIES LABELS "iobench;jobs")
  # the sweep + analyzer test is left out of the sanitizer pass (like jobs_analyze): iobench_rows
  # keeps the benchmark itself under ASan + UBSan
  set_property(TEST iosweep_analyze APPEND PROPERTY LABELS sanitize-skip)
endif()
# The posix backend's write(2)/read(2) calls are shaped by --buffers (strace)
if(TARGET cubecg-iobench)
  add_test(NAME iobench_shape
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/test_iobench_shape.sh ${MPIEXEC_EXECUTABLE}
                   $<TARGET_FILE:cubecg-iobench> ${CMAKE_CURRENT_BINARY_DIR}/iobench_shape)
  set_tests_properties(iobench_shape PROPERTIES PROCESSORS 2 TIMEOUT 300 SKIP_RETURN_CODE 77
                       ENVIRONMENT OMP_NUM_THREADS=1 LABELS "iobench;io")
endif()
