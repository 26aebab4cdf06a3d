# Orderings and preconditioners: colors, permutations, SGS / ASDD symmetry, thread
# independence, bad input, and a smoke run of the kernel benchmark.
cc_add_unit(test_precond_ordering solvers/test_precond_ordering.c)
cc_add_unit(test_precond_sgs solvers/test_precond_sgs.c)
cc_add_unit(test_precond_errors solvers/test_precond_errors.c)
cc_add_unit(test_precond_block3 solvers/test_precond_block3.c)

# colors valid and permutations consistent for every ordering, K = 2, 3, 10, 50
foreach(size "8;8;8" "9;5;7")
  list(GET size 0 nx)
  list(GET size 1 ny)
  list(GET size 2 nz)
  cc_add_mpi_test(NAME precond_ordering_${nx}x${ny}x${nz} RANKS 1 2 4
                  COMMAND $<TARGET_FILE:test_precond_ordering> --nx ${nx} --ny ${ny} --nz ${nz})
endforeach()
cc_add_mpi_test(NAME precond_ordering_metis RANKS 2 4
                COMMAND $<TARGET_FILE:test_precond_ordering> --nx 9 --ny 5 --nz 7 --partition metis)

# SGS / ASDD: M^-1 symmetric positive, thread-count independent, equal to the reference sweep.
# The program also runs 1 and 2 threads itself; passive OpenMP waiting keeps oversubscribed runs
# (ranks x threads > cores) from spinning at the per-color barriers.
foreach(threads 1 2)
  cc_add_mpi_test(NAME precond_sgs RANKS 1 2 4 THREADS ${threads} ENV OMP_WAIT_POLICY=passive
                  COMMAND $<TARGET_FILE:test_precond_sgs> --nx 9 --ny 5 --nz 7)
endforeach()
cc_add_mpi_test(NAME precond_sgs_metis RANKS 2 THREADS 2 ENV OMP_WAIT_POLICY=passive
                COMMAND $<TARGET_FILE:test_precond_sgs> --nx 8 --ny 8 --nz 8 --partition metis)

# bad input: clear errors naming the bad value
cc_add_mpi_test(NAME precond_errors RANKS 1 COMMAND $<TARGET_FILE:test_precond_errors>)
cc_add_mpi_test(NAME precond_block3 RANKS 1 COMMAND $<TARGET_FILE:test_precond_block3>)

# kernel benchmark smoke test (tiny mesh, small STREAM arrays, --allow-cached: the default refuses a
# cached matrix), then its JSON report's contents
find_package(Python3 COMPONENTS Interpreter)
if(TARGET cubecg-bench)
  foreach(np 1 2)
    set(json ${CMAKE_CURRENT_BINARY_DIR}/precond_bench_smoke_${np}.json)
    cc_add_mpi_test(NAME precond_bench_smoke_${np} RANKS ${np}
                    COMMAND $<TARGET_FILE:cubecg-bench> --nx 12 --ny 12 --nz 12 --stream-mb 8
                            --repeat 2 --ordering cm-rcm --colors 10 --allow-cached --report ${json})
    add_test(NAME precond_bench_report_${np}
             COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/common/check_report.py expect ${json}
                     "r['kind'] == 'kernels' and r['ranks'] == ${np} and r['nx'] == 12"
                     "[k['name'] for k in r['kernels']] == ['spmv', 'sgs', 'asdd', 'asdd-single', 'asdd-half', 'dot', 'axpy']"
                     "r['asdd_double_over_single'] > 0"
                     "r['asdd_double_over_half'] > 0"
                     "all(k['bytes'] > 0 and k['seconds'] > 0 and k['bytes_per_s'] > 0 for k in r['kernels'])"
                     "r['stream_triad_bytes_per_s'] > 0 and r['colors_used_min'] >= 10"
                     "r['matrix_fits_cache'] is True")
    set_tests_properties(precond_bench_smoke_${np}_np${np} PROPERTIES FIXTURES_SETUP precond_bench_${np})
    set_tests_properties(precond_bench_report_${np} PROPERTIES FIXTURES_REQUIRED precond_bench_${np})
  endforeach()
  # --anatomy: SpMV's variants run and are reported; the bench itself exits 1 unless its copy of
  # the row loop gives cc_spmv's bits (1 rank x 2 threads, 2 ranks with a halo). A build without
  # AVX2 + FMA refuses --anatomy (exit 2, named): skipped (77).
  foreach(np 1 2)
    set(json ${CMAKE_CURRENT_BINARY_DIR}/bench_anatomy_${np}.json)
    add_test(NAME bench_anatomy_${np}
             COMMAND bash -c "rc=0; '${MPIEXEC_EXECUTABLE}' -n ${np} '$<TARGET_FILE:cubecg-bench>' --nx 12 --ny 12 --nz 12 --stream-mb 8 --repeat 2 --allow-cached --anatomy --report '${json}' > '${json}.out' 2>&1 || rc=$?
               if [ $rc = 2 ] && grep -q 'no AVX2 + FMA' '${json}.out'; then exit 77; fi
               cat '${json}.out'; [ $rc = 0 ] || exit 1
               grep -q 'copy = cc_spmv bit for bit: yes' '${json}.out' || exit 1
               '${Python3_EXECUTABLE}' '${CMAKE_CURRENT_SOURCE_DIR}/common/check_report.py' expect '${json}' \"r['spmv_anatomy']['copy_equals_spmv'] is True\" \"[v['name'] for v in r['spmv_anatomy']['variants']] == ['spmv', 'copy', 'x-in-l1', 'no-gather', 'stream', 'read']\" \"all(v['seconds'] > 0 and v['fraction_of_stream'] > 0 for v in r['spmv_anatomy']['variants'])\"")
    set_tests_properties(bench_anatomy_${np} PROPERTIES PROCESSORS 2 TIMEOUT 300 LABELS roofline
                         SKIP_RETURN_CODE 77 ENVIRONMENT OMP_NUM_THREADS=$<IF:$<EQUAL:${np},1>,2,1>)
  endforeach()
  # --model-stream: every kernel's stream touches exactly its modelled bytes (the bench exits 1
  # otherwise), and those bytes are cubecg's traffic block of the same mesh in each precision
  # (SpMV, ASDD, vector passes, the iteration), compared exactly; 2 ranks (a halo)
  set(ms ${CMAKE_CURRENT_BINARY_DIR}/bench_model_stream)
  add_test(NAME bench_model_stream
           COMMAND bash -c "set -e; for p in double single half; do '${MPIEXEC_EXECUTABLE}' -n 2 '$<TARGET_FILE:cubecg>' --nx 12 --ny 12 --nz 12 --solver pcg --maxit 1000 --precond-precision $p --quiet --report '${ms}_'$p.json > /dev/null; done
             '${MPIEXEC_EXECUTABLE}' -n 2 '$<TARGET_FILE:cubecg-bench>' --nx 12 --ny 12 --nz 12 --stream-mb 8 --repeat 2 --allow-cached --model-stream --report '${ms}.json'
             '${Python3_EXECUTABLE}' '${CMAKE_CURRENT_SOURCE_DIR}/solvers/check_model_stream.py' '${ms}.json' '${ms}_double.json' '${ms}_single.json' '${ms}_half.json'")
  set_tests_properties(bench_model_stream PROPERTIES PROCESSORS 2 TIMEOUT 300 LABELS roofline
                       ENVIRONMENT OMP_NUM_THREADS=1)
  add_test(NAME bench_model_stream_sequential
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/common/expect_error.sh "--model-stream with --ordering rcm"
                   ${CMAKE_CURRENT_BINARY_DIR}/bench_model_stream_bad.json -- ${MPIEXEC_EXECUTABLE} -n 1
                   $<TARGET_FILE:cubecg-bench> --model-stream --ordering rcm --nx 8 --ny 8 --nz 8)
  set_tests_properties(bench_model_stream_sequential PROPERTIES LABELS roofline ENVIRONMENT
                       "OMP_NUM_THREADS=1;EXPECT_EXIT=2")
  add_test(NAME bench_anatomy_bad_value
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/common/expect_error.sh "--anatomy 2: expected 0 or 1"
                   ${CMAKE_CURRENT_BINARY_DIR}/bench_anatomy_bad.json -- ${MPIEXEC_EXECUTABLE} -n 1
                   $<TARGET_FILE:cubecg-bench> --anatomy=2 --nx 8 --ny 8 --nz 8)
  set_tests_properties(bench_anatomy_bad_value PROPERTIES LABELS roofline ENVIRONMENT
                       "OMP_NUM_THREADS=1;EXPECT_EXIT=2")
endif()

# Split storage (lower blocks apart, as cubecg assembles) gives bitwise the same SpMV / SGS / ASDD.
cc_add_unit(test_precond_split solvers/test_precond_split.c)
cc_add_mpi_test(NAME precond_split RANKS 1 2 THREADS 2 ENV OMP_WAIT_POLICY=passive
                COMMAND $<TARGET_FILE:test_precond_split>)

# CM-RCM's level order: sweeps in chunks of levels and SpMV rows by level give bitwise
# the vectors of the color-by-color sweep and ascending rows; a schedule without shifts is refused.
cc_add_unit(test_precond_schedule solvers/test_precond_schedule.c)
cc_add_mpi_test(NAME precond_schedule RANKS 1 2 4 THREADS 2 ENV OMP_WAIT_POLICY=passive
                COMMAND $<TARGET_FILE:test_precond_schedule>)
