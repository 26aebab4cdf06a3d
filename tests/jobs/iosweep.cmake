# The I/O sweep (jobs/iosweep.sh, dry run and a real quick sweep) and its figures (jobs/analyze.py).
# Labels: iobench, jobs.
if(TARGET cubecg-iobench)
  add_test(NAME iosweep_dryrun
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/jobs/test_iosweep.sh ${PROJECT_SOURCE_DIR}
                   ${CMAKE_BINARY_DIR} ${CMAKE_CURRENT_BINARY_DIR}/iosweep_dryrun dry)
  add_test(NAME iosweep_analyze
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/jobs/test_iosweep.sh ${PROJECT_SOURCE_DIR}
                   ${CMAKE_BINARY_DIR} ${CMAKE_CURRENT_BINARY_DIR}/iosweep_analyze real)
  set_tests_properties(iosweep_analyze PROPERTIES PROCESSORS 2 TIMEOUT 600
                       ENVIRONMENT OMP_NUM_THREADS=1)
  set_tests_properties(iosweep_dryrun iosweep_analyze PROPERTIES LABELS "iobench;jobs")
  # the sweep + analyzer test is left out of the sanitizer pass (like jobs_analyze): iobench_rows
  # keeps the benchmark itself under ASan + UBSan
  set_property(TEST iosweep_analyze APPEND PROPERTY LABELS sanitize-skip)
endif()
