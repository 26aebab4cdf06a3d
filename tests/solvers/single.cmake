# --precond-precision single: float blocks in the SGS sweeps and ASDD's residual.
# Unit test: float vs double to float rounding, symmetry to double rounding, thread and storage
# independence, units beyond float's range. Driver: every variant converges to the analytic
# solution with the built-in checks passing (exit 0), box and METIS, 1/2/4 ranks; iterations within
# +5 % of double; jacobi/none refuse the option.
cc_add_unit(test_precond_single solvers/test_precond_single.c)
foreach(threads 1 2)
  cc_add_mpi_test(NAME precond_single RANKS 1 2 4 THREADS ${threads} ENV OMP_WAIT_POLICY=passive
                  COMMAND $<TARGET_FILE:test_precond_single> --nx 9 --ny 5 --nz 7)
endforeach()
cc_add_mpi_test(NAME precond_single_metis RANKS 2 4 ENV OMP_WAIT_POLICY=passive
                COMMAND $<TARGET_FILE:test_precond_single> --nx 8 --ny 8 --nz 8 --partition metis)

find_package(Python3 COMPONENTS Interpreter)
set(SINGLE_OUT ${CMAKE_CURRENT_BINARY_DIR}/out)
file(MAKE_DIRECTORY ${SINGLE_OUT})
set(SINGLE_CHECK ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/common/check_report.py)

# all 4 variants x both reductions, CM-RCM (box) and METIS: the built-in checks (analytic error,
# true residual, symmetry and positivity of M^-1) pass, else cubecg exits 3
foreach(solver pcg cgcg pipecg gropp)
  cc_add_mpi_test(NAME driver_single_${solver} RANKS 1 2 4
                  COMMAND $<TARGET_FILE:cubecg> --nx 10 --ny 9 --nz 8 --solver ${solver}
                          --reduction all --precond-precision single --analytic-tol 1e-6 --quiet)
  cc_add_mpi_test(NAME driver_single_${solver}_metis RANKS 2 4
                  COMMAND $<TARGET_FILE:cubecg> --nx 10 --ny 9 --nz 8 --solver ${solver}
                          --reduction all --partition metis --precond-precision single
                          --analytic-tol 1e-6 --quiet)
endforeach()
cc_add_mpi_test(NAME driver_single_sgs_rcm RANKS 1 2
                COMMAND $<TARGET_FILE:cubecg> --nx 9 --ny 8 --nz 7 --precond sgs --ordering rcm
                        --precond-precision single --analytic-tol 1e-6 --quiet)

# iterations within +5 % of double on 20^3 (every variant and reduction), and the report's keys
foreach(np 2 4)
  if(np GREATER CC_TEST_MAX_PROCS)
    continue()
  endif()
  foreach(precision double single)
    set(json ${SINGLE_OUT}/single_iters_${precision}_${np}.json)
    cc_add_mpi_test(NAME single_iters_${precision}_${np} RANKS ${np}
                    COMMAND $<TARGET_FILE:cubecg> --nx 20 --ny 20 --nz 20 --solver all --reduction all
                            --precond-precision ${precision} --quiet --report ${json})
    set_tests_properties(single_iters_${precision}_${np}_np${np} PROPERTIES
                         FIXTURES_SETUP single_iters_${np})
  endforeach()
  add_test(NAME single_iters_compare_${np}
           COMMAND ${SINGLE_CHECK} iterations-within ${SINGLE_OUT}/single_iters_single_${np}.json
                   ${SINGLE_OUT}/single_iters_double_${np}.json 0.05)
  add_test(NAME single_iters_report_${np}
           COMMAND ${SINGLE_CHECK} expect ${SINGLE_OUT}/single_iters_single_${np}.json
                   "r['preconditioner']['precision'] == 'single'"
                   "r['parameters']['precond-precision'] == 'single'"
                   "r['parameter_sources']['precond-precision'] == 'cmdline'"
                   "r['preconditioner']['extra_bytes_per_dof'] > 100"
                   "r['preconditioner']['double_matrix_kept'] is True"
                   "r['checks']['passed'] and len(r['solves']) == sum(len(v['reductions']) for v in r['available']['variants'])")
  set_tests_properties(single_iters_compare_${np} single_iters_report_${np} PROPERTIES
                       FIXTURES_REQUIRED single_iters_${np})
endforeach()

# preconditioners without a float form refuse the option as bad input (exit 2, no report)
foreach(precond jacobi none)
  add_test(NAME single_refused_${precond}
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/common/expect_error.sh "precond-precision single.*${precond}"
                   ${SINGLE_OUT}/single_refused.json -- ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 1
                   $<TARGET_FILE:cubecg> --precond ${precond} --precond-precision single
                   --report ${SINGLE_OUT}/single_refused.json)
  set_tests_properties(single_refused_${precond} PROPERTIES ENVIRONMENT "EXPECT_EXIT=2")
endforeach()
