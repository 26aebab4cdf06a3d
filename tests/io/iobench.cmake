# The seeds' rows of cubecg-iobench and the fio twin (the I/O sweep of jobs/iosweep.sh and its
# figures: tests/jobs/iosweep.cmake). Label: iobench.
if(TARGET cubecg-iobench)
  add_test(NAME iobench_rows
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/io/test_iobench_rows.sh ${MPIEXEC_EXECUTABLE}
                   $<TARGET_FILE:cubecg-iobench> ${CMAKE_CURRENT_BINARY_DIR}/iobench_rows)
  set_tests_properties(iobench_rows PROPERTIES PROCESSORS 2 TIMEOUT 600
                       ENVIRONMENT OMP_NUM_THREADS=1)
  set_tests_properties(iobench_rows PROPERTIES LABELS "iobench;jobs")
endif()
# The posix backend starts the writeback every --writeback bytes of a durable write (strace)
if(TARGET cubecg-iobench)
  add_test(NAME iobench_writeback
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/io/test_iobench_writeback.sh ${MPIEXEC_EXECUTABLE}
                   $<TARGET_FILE:cubecg-iobench> ${CMAKE_CURRENT_BINARY_DIR}/iobench_writeback)
  set_tests_properties(iobench_writeback PROPERTIES PROCESSORS 2 TIMEOUT 300 SKIP_RETURN_CODE 77
                       ENVIRONMENT OMP_NUM_THREADS=1 LABELS "iobench;io")
endif()
# The posix backend's write(2)/read(2) calls are shaped by --buffers (strace)
if(TARGET cubecg-iobench)
  add_test(NAME iobench_shape
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/io/test_iobench_shape.sh ${MPIEXEC_EXECUTABLE}
                   $<TARGET_FILE:cubecg-iobench> ${CMAKE_CURRENT_BINARY_DIR}/iobench_shape)
  set_tests_properties(iobench_shape PROPERTIES PROCESSORS 2 TIMEOUT 300 SKIP_RETURN_CODE 77
                       ENVIRONMENT OMP_NUM_THREADS=1 LABELS "iobench;io")
endif()
