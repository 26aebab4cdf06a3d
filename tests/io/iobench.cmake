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
# Under strace: the posix backend starts the writeback every --writeback bytes of a durable write
# (iobench_writeback), and its write(2)/read(2) calls are shaped by --buffers (iobench_shape)
if(TARGET cubecg-iobench)
  foreach(what writeback shape)
    add_test(NAME iobench_${what}
             COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/io/test_iobench_${what}.sh ${MPIEXEC_EXECUTABLE}
                     $<TARGET_FILE:cubecg-iobench> ${CMAKE_CURRENT_BINARY_DIR}/iobench_${what})
    set_tests_properties(iobench_${what} PROPERTIES PROCESSORS 2 TIMEOUT 300 SKIP_RETURN_CODE 77
                         ENVIRONMENT OMP_NUM_THREADS=1 LABELS "iobench;io")
  endforeach()
endif()
