# --precond-precision half: binary16 blocks in the SGS sweeps and ASDD's residual.
# Unit test (test_precond_half.c): the decoder against F16C, A_h bitwise symmetric, the sweeps
# against a reference from the same halves and against double, symmetry of M^-1 to 1e-12, thread
# independence, units, refusal of a matrix whose entries would lose all digits. Driver: every
# variant with both reductions converges in half to the analytic solution with the built-in checks
# passing, and within +10 % of double's iterations (--precision-reference, the same run); a
# restart in another precision is refused (exit 2) naming both.
cc_add_unit(test_precond_half solvers/test_precond_half.c)
foreach(threads 1 2)
  cc_add_mpi_test(NAME precond_half RANKS 1 2 4 THREADS ${threads} ENV OMP_WAIT_POLICY=passive
                  COMMAND $<TARGET_FILE:test_precond_half> --nx 9 --ny 5 --nz 7)
endforeach()
cc_add_mpi_test(NAME precond_half_metis RANKS 2 ENV OMP_WAIT_POLICY=passive
                COMMAND $<TARGET_FILE:test_precond_half> --nx 8 --ny 8 --nz 8 --partition metis)

find_package(Python3 COMPONENTS Interpreter)
set(HALF_OUT ${CMAKE_CURRENT_BINARY_DIR}/out)
file(MAKE_DIRECTORY ${HALF_OUT})
set(HALF_CHECK ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/common/check_report.py)

# all 4 variants x both reductions (box and METIS): converged, checks passed (else exit 3), and each
# solve within +10 % of the same solve with double blocks
foreach(partition box metis)
  set(json ${HALF_OUT}/half_variants_${partition}.json)
  cc_add_mpi_test(NAME half_variants_${partition} RANKS 2
                  COMMAND $<TARGET_FILE:cubecg> --nx 12 --ny 11 --nz 10 --solver all
                          --reduction all --partition ${partition} --precond-precision half
                          --precision-reference --analytic-tol 1e-6 --quiet --report ${json})
  set_tests_properties(half_variants_${partition}_np2 PROPERTIES
                       FIXTURES_SETUP half_variants_${partition})
  add_test(NAME half_variants_report_${partition}
           COMMAND ${HALF_CHECK} expect ${json}
                   "r['preconditioner']['precision'] == 'half'"
                   "r['preconditioner']['precision_reference'] is True"
                   "r['preconditioner']['half_conversion'] in ('avx512', 'f16c', 'portable')"
                   "r['checks']['passed'] and len(r['solves']) == sum(len(v['reductions']) for v in r['available']['variants'])"
                   "all(s['converged'] for s in r['solves'])"
                   "all(s['precision_reference']['within_bound'] for s in r['solves'])"
                   "all(s['iterations'] <= 1.1 * s['precision_reference']['iterations_double'] for s in r['solves'])")
  set_tests_properties(half_variants_report_${partition} PROPERTIES
                       FIXTURES_REQUIRED half_variants_${partition})
endforeach()
# the sequential sweep (RCM, no colors) and plain SGS
cc_add_mpi_test(NAME driver_half_sgs_rcm RANKS 1 2
                COMMAND $<TARGET_FILE:cubecg> --nx 9 --ny 8 --nz 7 --precond sgs --ordering rcm
                        --precond-precision half --analytic-tol 1e-6 --quiet)
# SI units and a nearly incompressible material behave as in double (the same checks pass)
cc_add_mpi_test(NAME driver_half_units RANKS 2
                COMMAND $<TARGET_FILE:cubecg> --nx 10 --ny 9 --nz 8 --E 2.1e11 --nu 0.49
                        --precond-precision half --precision-reference --analytic-tol 1e-6 --quiet)

# preconditioners without a half form refuse the option as bad input (exit 2, no report)
foreach(precond jacobi none)
  add_test(NAME half_refused_${precond}
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/common/expect_error.sh "precond-precision half.*${precond}"
                   ${HALF_OUT}/half_refused.json -- ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 1
                   $<TARGET_FILE:cubecg> --precond ${precond} --precond-precision half
                   --report ${HALF_OUT}/half_refused.json)
  set_tests_properties(half_refused_${precond} PROPERTIES ENVIRONMENT "EXPECT_EXIT=2")
endforeach()

# the manifest records the precision: a half checkpoint refuses a restart in double or single
set(HALF_RUN ${CMAKE_COMMAND} -E env OMP_NUM_THREADS=1 ${MPIEXEC_EXECUTABLE} -n 2
             $<TARGET_FILE:cubecg> --nx 10 --ny 9 --nz 8 --quiet)
set(HALF_CKPT ${HALF_OUT}/half_ckpt)
add_test(NAME half_ckpt_write
         COMMAND sh -c "rm -rf '${HALF_CKPT}' && exec \"$@\"" sh ${HALF_RUN}
                 --precond-precision half --checkpoint posix --checkpoint-dir ${HALF_CKPT}
                 --checkpoint-every 10)
set_tests_properties(half_ckpt_write PROPERTIES PROCESSORS 2 FIXTURES_SETUP half_ckpt)
cc_add_cases(PREFIX half_restart_refuses_ FIELDS name precision message
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/common/expect_stderr_contains.sh 2 "@message@" -- ${HALF_RUN}
          --restart ${HALF_CKPT} --precond-precision @precision@
  PROPERTIES PROCESSORS 2 FIXTURES_REQUIRED half_ckpt
  CASES
    "double|double|--precond-precision double differs from the checkpoint's precond-precision = half"
    "single|single|--precond-precision single differs from the checkpoint's precond-precision = half")
add_test(NAME half_restart_same
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/common/expect_stderr_contains.sh 0 "" -- ${HALF_RUN} --restart
                 ${HALF_CKPT} --precond-precision half)
set_tests_properties(half_restart_same PROPERTIES PROCESSORS 2 FIXTURES_REQUIRED half_ckpt)
