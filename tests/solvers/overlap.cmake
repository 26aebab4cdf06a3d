# The halo exchange hidden behind the interior rows (solvers/kernels.c, ASDD's
# residual in precond_asdd.c, --halo-overlap). The split SpMV / residual equal the plain ones bit
# for bit and the reference to 1e-14; ASDD and a solve give the same bits with and without the row
# classes, for box and METIS partitions under natural, rcm and cm-rcm orderings.
cc_add_unit(test_krylov_overlap solvers/test_krylov_overlap.c)
foreach(size "9;8;7" "4;3;2")
  list(GET size 0 nx)
  list(GET size 1 ny)
  list(GET size 2 nz)
  cc_add_mpi_test(NAME overlap_kernels_${nx}x${ny}x${nz} RANKS 1 2 4
                  COMMAND $<TARGET_FILE:test_krylov_overlap> --nx ${nx} --ny ${ny} --nz ${nz})
endforeach()
# 2 threads: the classes split over the threads, the main thread polls
cc_add_mpi_test(NAME overlap_kernels_threads RANKS 1 2 THREADS 2
                COMMAND $<TARGET_FILE:test_krylov_overlap> --nx 16 --ny 12 --nz 10)
cc_add_mpi_test(NAME overlap_kernels_metis RANKS 2 4
                COMMAND $<TARGET_FILE:test_krylov_overlap> --nx 9 --ny 5 --nz 7 --partition metis)

# The driver: --halo-overlap on and off give the same iterations and the same residuals and error
# (as written, 9 digits) for every variant x reduction; the report shows the waits apart.
find_package(Python3 COMPONENTS Interpreter)
set(OVERLAP_CHECK ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/common/check_report.py)
set(OVERLAP_OUT ${CMAKE_CURRENT_BINARY_DIR}/out)
file(MAKE_DIRECTORY ${OVERLAP_OUT})
# Both precisions of the preconditioner: the float residual of ASDD takes the same row classes.
foreach(prec double single)
foreach(part box metis)
  foreach(np 2 4)
    set(tag ${part}_np${np})
    if(prec STREQUAL "single")
      set(tag ${part}_np${np}_single)
    endif()
    foreach(mode on off)
      add_test(NAME overlap_driver_${tag}_${mode}
               COMMAND ${MPIEXEC_EXECUTABLE} -n ${np} $<TARGET_FILE:cubecg> --nx 10 --ny 9 --nz 8
                       --partition ${part} --solver all --reduction all --halo-overlap ${mode}
                       --precond-precision ${prec}
                       --report ${OVERLAP_OUT}/overlap_${tag}_${mode}.json --quiet)
      set_tests_properties(overlap_driver_${tag}_${mode} PROPERTIES PROCESSORS ${np}
                           ENVIRONMENT OMP_NUM_THREADS=1 FIXTURES_SETUP overlap_${tag})
    endforeach()
    add_test(NAME overlap_driver_${tag}_same
             COMMAND ${OVERLAP_CHECK} same-values ${OVERLAP_OUT}/overlap_${tag}_on.json
                     ${OVERLAP_OUT}/overlap_${tag}_off.json iterations rel_residual
                     true_rel_residual analytic_max_rel_error)
    add_test(NAME overlap_driver_${tag}_report
             COMMAND ${OVERLAP_CHECK} expect ${OVERLAP_OUT}/overlap_${tag}_on.json
                     "r['parameters']['halo-overlap'] == 'on' and r['checks']['passed']"
                     "0 < r['problem']['boundary_rows_fraction'] < 1"
                     "all(s[b][k] >= 0 for s in r['solves'] for b in ('breakdown', 'breakdown_mean', 'breakdown_min') for k in ('halo', 'halo_wait', 'precond_halo', 'precond_halo_wait'))"
                     "all(s['breakdown_min'][k] <= s['breakdown_mean'][k] + 1e-12 * e and s['breakdown_mean'][k] <= s['breakdown'][k] + 1e-12 * e for s in r['solves'] for k in s['breakdown'] for e in [max(abs(s['breakdown_min'][k]), abs(s['breakdown'][k]))])")
    set_tests_properties(overlap_driver_${tag}_same overlap_driver_${tag}_report PROPERTIES
                         FIXTURES_REQUIRED overlap_${tag})
  endforeach()
endforeach()
endforeach()

# --level-order: on (chunks of 64 rows: many chunks per sweep), on with --halo-overlap
# off (every row after the halo, level by level) and off give the same residual histories, bit for
# bit, for every variant x reduction at 2 ranks x 2 threads.
# (--sweep-chunk-rows only with --level-order on: it is refused where it has no effect)
set(LEVEL_RUNS "on|on|64" "on_nooverlap|off|0" "off|on|")
foreach(run ${LEVEL_RUNS})
  string(REPLACE "|" ";" fields "${run}")
  list(GET fields 0 tag)
  list(GET fields 1 overlap)
  list(GET fields 2 rows)
  set(chunk "")
  if(NOT rows STREQUAL "")
    set(chunk --sweep-chunk-rows ${rows})
  endif()
  string(REGEX REPLACE "_.*" "" mode "${tag}")
  add_test(NAME level_order_driver_${tag}
           COMMAND ${MPIEXEC_EXECUTABLE} -n 2 $<TARGET_FILE:cubecg> --nx 14 --ny 12 --nz 10
                   --solver all --reduction all --residual-history --level-order ${mode}
                   --halo-overlap ${overlap} ${chunk}
                   --report ${OVERLAP_OUT}/level_${tag}.json --quiet)
  set_tests_properties(level_order_driver_${tag} PROPERTIES PROCESSORS 4
                       ENVIRONMENT OMP_NUM_THREADS=2 FIXTURES_SETUP level_order)
endforeach()
foreach(tag on on_nooverlap)
  add_test(NAME level_order_driver_${tag}_same
           COMMAND ${OVERLAP_CHECK} same-values ${OVERLAP_OUT}/level_${tag}.json
                   ${OVERLAP_OUT}/level_off.json iterations residual_history true_rel_residual
                   analytic_max_rel_error)
  set_tests_properties(level_order_driver_${tag}_same PROPERTIES FIXTURES_REQUIRED level_order)
endforeach()
