# --roofline and the kernel bench's cache refusal (the traffic model's hand counts: tests/solvers/
# traffic.cmake). Correctness only (never timings): --roofline reports its keys with sane values;
# cubecg-bench refuses a mesh whose matrix fits the last-level cache unless --allow-cached.
# Label: roofline.
find_package(Python3 COMPONENTS Interpreter)

set(RL_OUT ${CMAKE_CURRENT_BINARY_DIR}/roofline)
file(MAKE_DIRECTORY ${RL_OUT})
set(RL_CHECK ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/common/check_report.py)
# every solve: the model's parts add up, per-rank min <= max, the sum over ranks >= one rank's; with
# --roofline the triad is positive and the fraction is (bytes / triad) / time per iteration, for the
# triad's own arrays and for the triads over the matrix's pages
set(RL_EXPECT
    "all(abs(s['modelled_bytes_per_iteration']['total'] - s['modelled_bytes_per_iteration']['spmv'] - s['modelled_bytes_per_iteration']['precond'] - s['modelled_bytes_per_iteration']['vectors']) <= 1e-9 * s['modelled_bytes_per_iteration']['total'] for s in r['solves'])"
    "all(0 < s['modelled_bytes_per_iteration']['per_rank_min'] <= s['modelled_bytes_per_iteration']['per_rank_max'] <= s['modelled_bytes_per_iteration']['total'] for s in r['solves'])"
    "all(s['triad_bytes_per_s'] > 0 and s['roofline']['triad_bytes_per_s_before'] > 0 and s['roofline']['triad_bytes_per_s_after'] > 0 for s in r['solves'])"
    "all(s['roofline']['fraction_bracket'] > 0 and abs(s['roofline']['fraction_bracket'] - s['modelled_bytes_per_iteration']['total'] / (0.5 * s['roofline']['triad_bytes_per_s_before'] + 0.5 * s['roofline']['triad_bytes_per_s_after']) / s['time_per_iter_s']) <= 1e-6 * s['roofline']['fraction_bracket'] for s in r['solves'])"
    "all(s['roofline_fraction'] > 0 and (s['roofline']['window_fraction_min'] <= s['roofline_fraction'] <= s['roofline']['window_fraction_max'] if s['roofline']['windows'] else s['roofline_fraction'] == s['roofline']['fraction_bracket']) for s in r['solves'])"
    "all(s['roofline']['triad_matrix_pages_bytes_per_s_before'] > 0 and s['roofline']['triad_matrix_pages_bytes_per_s_after'] > 0 and s['roofline']['triad_matrix_pages_elements_per_rank_min'] > 0 for s in r['solves'])"
    "all(abs(s['roofline']['fraction_bracket_matrix_pages'] - s['modelled_bytes_per_iteration']['total'] / (0.5 * s['roofline']['triad_matrix_pages_bytes_per_s_before'] + 0.5 * s['roofline']['triad_matrix_pages_bytes_per_s_after']) / s['time_per_iter_s']) <= 1e-6 * s['roofline']['fraction_bracket_matrix_pages'] for s in r['solves'])"
    "all(s['roofline']['fraction_triad_arrays'] > 0 and s['roofline']['fraction_matrix_pages'] > 0 and s['roofline']['triad_arrays_bytes_per_s'] > 0 and s['roofline']['triad_matrix_pages_bytes_per_s'] > 0 for s in r['solves'])"
    "all(s['roofline_fraction'] == s['roofline']['fraction_' + s['roofline']['triad_source']] and s['triad_bytes_per_s'] == s['roofline'][{'triad_arrays': 'triad_arrays_bytes_per_s', 'matrix_pages': 'triad_matrix_pages_bytes_per_s'}[s['roofline']['triad_source']]] for s in r['solves'])"
    "r['roofline']['llc_bytes'] == r['topology']['llc_bytes'] > 0 and (r['roofline']['triad_node_bytes'] == 4 * r['topology']['llc_bytes'] if r['roofline']['triad_node_bytes_from'] == '4 x llc_bytes' else r['roofline']['triad_node_bytes_from'] == 'CUBECG_ROOFLINE_TRIAD_MB')"
    "r['checks']['passed']")
foreach(np 1 2 4)
  if(np GREATER CC_TEST_MAX_PROCS)
    continue()
  endif()
  add_test(NAME roofline_run_np${np}
           COMMAND ${MPIEXEC_EXECUTABLE} -n ${np} $<TARGET_FILE:cubecg> --nx 8 --ny 8 --nz 8
                   --solver all --reduction ar --roofline --quiet --report ${RL_OUT}/run_np${np}.json)
  # np 2, 4: windows of 5 iterations (a triad before each, their time out of the solve's); np 1:
  # windows sized by the program (the tiny solve may end before the first one)
  set(env OMP_NUM_THREADS=1)
  set(windows "True")
  if(np GREATER 1)
    set(env "OMP_NUM_THREADS=1;CUBECG_ROOFLINE_EVERY=5")
    # s-step CG reaches the per-iteration hook once per block of S iterations: its windows end on
    # block boundaries, so fewer of them fit in the same solve
    set(windows "all(s['roofline']['windows'] >= (2 if s.get('sstep') else 4) and s['roofline']['window_iterations'] == 5 and s['roofline']['triads_removed_s'] > 0 for s in r['solves'])")
  endif()
  set_tests_properties(roofline_run_np${np} PROPERTIES PROCESSORS ${np} TIMEOUT 300 LABELS roofline
                       ENVIRONMENT "${env}" FIXTURES_SETUP roofline_np${np})
  # an 8^3 matrix is shorter than the triad's arrays (4x the LLC): the headline is the own arrays'
  add_test(NAME roofline_report_np${np}
           COMMAND ${RL_CHECK} expect ${RL_OUT}/run_np${np}.json ${RL_EXPECT}
                   "r['problem']['ranks'] == ${np} and len(r['solves']) == len(r['available']['variants'])" "${windows}"
                   "all(s['roofline']['triad_source'] == 'triad_arrays' and s['roofline']['triad_matrix_pages_elements_per_rank_min'] < r['roofline']['triad_rank_elements'] for s in r['solves'])")
  set_tests_properties(roofline_report_np${np} PROPERTIES LABELS roofline
                       FIXTURES_REQUIRED roofline_np${np})
endforeach()
# without --roofline: the model is still in every solve, the triad keys are not
add_test(NAME roofline_model_always
         COMMAND bash -c "set -e; '${MPIEXEC_EXECUTABLE}' -n 2 '$<TARGET_FILE:cubecg>' --nx 6 --ny 6 --nz 6 --quiet --report '${RL_OUT}/plain.json'
           ${RL_CHECK} expect '${RL_OUT}/plain.json' \"r['roofline'] is None\" \"all(s['modelled_bytes_per_iteration']['total'] > 0 and 'roofline_fraction' not in s for s in r['solves'])\"")
set_tests_properties(roofline_model_always PROPERTIES PROCESSORS 2 TIMEOUT 300 LABELS roofline
                     ENVIRONMENT OMP_NUM_THREADS=1)
# --roofline divides by the time per iteration: --timing off is bad input
add_test(NAME roofline_bad_timing_off
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/common/expect_error.sh "--roofline needs --timing on"
                 ${RL_OUT}/bad.json -- ${MPIEXEC_EXECUTABLE} -n 1 $<TARGET_FILE:cubecg> --nx 4
                 --ny 4 --nz 4 --roofline --timing off --report ${RL_OUT}/bad.json)
set_tests_properties(roofline_bad_timing_off PROPERTIES LABELS roofline ENVIRONMENT
                     "OMP_NUM_THREADS=1;EXPECT_EXIT=2")
# a bad CUBECG_ROOFLINE_EVERY (iterations per window) or CUBECG_ROOFLINE_TRIAD_MB (the triad
# arrays' MiB per node) is bad input: exit 2, named, before any allocation
foreach(var EVERY TRIAD_MB)
  string(TOLOWER ${var} name)
  add_test(NAME roofline_bad_${name}
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/common/expect_error.sh "CUBECG_ROOFLINE_${var}=0: expected"
                   ${RL_OUT}/bad_${name}.json -- ${MPIEXEC_EXECUTABLE} -n 1 $<TARGET_FILE:cubecg>
                   --nx 4 --ny 4 --nz 4 --roofline --report ${RL_OUT}/bad_${name}.json)
  set_tests_properties(roofline_bad_${name} PROPERTIES LABELS roofline ENVIRONMENT
                       "OMP_NUM_THREADS=1;EXPECT_EXIT=2;CUBECG_ROOFLINE_${var}=0")
endforeach()

# CUBECG_ROOFLINE_TRIAD_MB=1: triad arrays of 1 MiB per node, which a 12^3 matrix covers on every
# rank, so the windows' headline triad reads the matrix's pages; both fractions are reported, each
# window's pair of triads taken just before it
foreach(np 2 4)
  if(np GREATER CC_TEST_MAX_PROCS)
    continue()
  endif()
  add_test(NAME roofline_matrix_pages_np${np}
           COMMAND ${MPIEXEC_EXECUTABLE} -n ${np} $<TARGET_FILE:cubecg> --nx 12 --ny 12 --nz 12
                   --solver all --reduction ar --roofline --quiet --report
                   ${RL_OUT}/matrix_np${np}.json)
  set_tests_properties(roofline_matrix_pages_np${np} PROPERTIES PROCESSORS ${np} TIMEOUT 300
                       LABELS roofline FIXTURES_SETUP roofline_matrix_np${np} ENVIRONMENT
                       "OMP_NUM_THREADS=1;CUBECG_ROOFLINE_EVERY=5;CUBECG_ROOFLINE_TRIAD_MB=1")
  add_test(NAME roofline_matrix_pages_report_np${np}
           COMMAND ${RL_CHECK} expect ${RL_OUT}/matrix_np${np}.json ${RL_EXPECT}
                   "r['roofline']['triad_node_bytes'] == 1048576 and r['roofline']['triad_node_bytes_from'] == 'CUBECG_ROOFLINE_TRIAD_MB'"
                   "all(s['roofline']['triad_source'] == 'matrix_pages' and s['roofline']['triad_matrix_pages_elements_per_rank_min'] == r['roofline']['triad_rank_elements'] for s in r['solves'])"
                   "all(s['roofline']['windows'] >= 4 for s in r['solves'])")
  set_tests_properties(roofline_matrix_pages_report_np${np} PROPERTIES LABELS roofline
                       FIXTURES_REQUIRED roofline_matrix_np${np})
endforeach()

# cubecg-bench: a mesh whose matrix is below 4x the LLC is refused (exit 2, one line naming the
# sizes and --allow-cached); with --allow-cached it runs, says so loudly and in the report
if(TARGET cubecg-bench)
  add_test(NAME roofline_bench_refuses_cached
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/common/expect_error.sh
                   "8x8x8 nodes: the matrix .* below 4x the last-level cache.*--allow-cached"
                   ${RL_OUT}/cached.json -- ${MPIEXEC_EXECUTABLE} -n 1 $<TARGET_FILE:cubecg-bench>
                   --nx 8 --ny 8 --nz 8 --repeat 1 --report ${RL_OUT}/cached.json)
  set_tests_properties(roofline_bench_refuses_cached PROPERTIES LABELS roofline ENVIRONMENT
                       "OMP_NUM_THREADS=1;EXPECT_EXIT=2")
  add_test(NAME roofline_bench_allow_cached
           COMMAND bash -c "set -e; '${MPIEXEC_EXECUTABLE}' -n 2 '$<TARGET_FILE:cubecg-bench>' --nx 8 --ny 8 --nz 8 --repeat 3 --stream-mb 6 --allow-cached --report '${RL_OUT}/allowed.json' > '${RL_OUT}/allowed.out'
             grep -q 'WARNING: --allow-cached' '${RL_OUT}/allowed.out'
             ${RL_CHECK} expect '${RL_OUT}/allowed.json' \"r['matrix_fits_cache'] is True\" \"r['repeat'] == 3\" \"all(k['fraction_of_stream'] > 0 and k['seconds'] > 0 for k in r['kernels'])\"")
  set_tests_properties(roofline_bench_allow_cached PROPERTIES PROCESSORS 2 TIMEOUT 300
                       LABELS roofline ENVIRONMENT OMP_NUM_THREADS=1)
endif()

# cubecg-bench --read-streams N: the triad's first array read as 1..N interleaved streams per core
# against the triad: every k in the report in order, each read covered every element once (the
# array holds ones: the sum is the count), bandwidths and fractions positive, the bytes those of the
# ranks' arrays. A count outside 2..8, or with --triad-placement, is refused (exit 2, one line; the
# refusals are registered with --triad-placement's below).
if(TARGET cubecg-bench)
  add_test(NAME roofline_bench_read_streams
           COMMAND bash -c "set -e; '${MPIEXEC_EXECUTABLE}' -n 2 '$<TARGET_FILE:cubecg-bench>' --read-streams 3 --repeat 3 --stream-mb 12 --report '${RL_OUT}/streams.json' > '${RL_OUT}/streams.out'
             grep -q 'read / triad = median over rounds' '${RL_OUT}/streams.out'
             ! grep -q 'ERROR' '${RL_OUT}/streams.out'
             ${RL_CHECK} expect '${RL_OUT}/streams.json' \"r['kind'] == 'read_streams'\" \"r['rounds'] == 3\" \"[s['streams'] for s in r['streams']] == [1, 2, 3]\" \"r['each_element_read_once'] is True\" \"all(s['median_bytes_per_s'] > 0 and s['fraction_of_triad'] > 0 for s in r['streams'])\" \"r['triad_median_bytes_per_s'] > 0\" \"abs(r['read_bytes'] - 2 * r['read_array_bytes_per_rank']) <= 16\"")
  set_tests_properties(roofline_bench_read_streams PROPERTIES PROCESSORS 2 TIMEOUT 300
                       LABELS roofline ENVIRONMENT OMP_NUM_THREADS=1)
endif()

# cubecg-bench --block-ceilings: each precision's sweep kernel on a core's blocks held in L1 against
# the triad: the three precisions in order with their bytes per block (values + column index), every
# core's row sums equal to the exact ones (dyadic entries: exact in binary16 and in any order of
# double sums), rates positive and the bytes/s their product. Refusals with --triad-placement's below.
if(TARGET cubecg-bench)
  add_test(NAME roofline_bench_block_ceilings
           COMMAND bash -c "set -e; '${MPIEXEC_EXECUTABLE}' -n 2 '$<TARGET_FILE:cubecg-bench>' --block-ceilings --repeat 2 --stream-mb 12 --report '${RL_OUT}/ceilings.json' > '${RL_OUT}/ceilings.out'
             grep -q 'below 1, the kernel is bound by its instructions' '${RL_OUT}/ceilings.out'
             ! grep -q 'ERROR' '${RL_OUT}/ceilings.out'
             ${RL_CHECK} expect '${RL_OUT}/ceilings.json' \"r['kind'] == 'block_ceilings'\" \"r['rounds'] == 2\" \"r['ranks_x_threads'] == 2\" \"r['row_sums_exact'] is True\" \"[k['precision'] for k in r['kernels']] == ['double', 'single', 'half']\" \"[k['bytes_per_block'] for k in r['kernels']] == [76, 40, 22]\" \"all(k['blocks_per_s'] > 0 and k['fraction_of_triad'] > 0 for k in r['kernels'])\" \"all(abs(k['bytes_per_s'] - k['blocks_per_s'] * k['bytes_per_block']) <= 1e-6 * k['bytes_per_s'] for k in r['kernels'])\" \"r['triad_median_bytes_per_s'] > 0\" \"r['half_conversion'] in ('avx512', 'f16c', 'portable')\"")
  set_tests_properties(roofline_bench_block_ceilings PROPERTIES PROCESSORS 2 TIMEOUT 300
                       LABELS roofline ENVIRONMENT OMP_NUM_THREADS=1)
endif()

# cubecg-bench --triad-placement N: the triad alone on N sets of arrays allocated one after another;
# the report holds every set in allocation order, each min <= median <= max, and the spread is the
# fastest median over the slowest (to the JSON's 9 digits). Bad set counts and sets larger than the memory are refused
# (exit 2, one line) before any allocation.
if(TARGET cubecg-bench)
  add_test(NAME roofline_bench_triad_placement
           COMMAND bash -c "set -e; '${MPIEXEC_EXECUTABLE}' -n 2 '$<TARGET_FILE:cubecg-bench>' --triad-placement 3 --repeat 3 --stream-mb 12 --report '${RL_OUT}/placement.json' > '${RL_OUT}/placement.out'
             grep -q 'spread (fastest median / slowest median)' '${RL_OUT}/placement.out'
             ${RL_CHECK} expect '${RL_OUT}/placement.json' \"r['kind'] == 'triad_placement'\" \"r['rounds'] == 3\" \"[s['allocated'] for s in r['sets']] == [1, 2, 3]\" \"all(0 < s['min_bytes_per_s'] <= s['median_bytes_per_s'] <= s['max_bytes_per_s'] for s in r['sets'])\" \"abs(r['spread'] - max(s['median_bytes_per_s'] for s in r['sets']) / min(s['median_bytes_per_s'] for s in r['sets'])) <= 1e-6 * r['spread']\" \"r['spread_warning'] == (r['spread'] > r['spread_warning_above'])\"")
  set_tests_properties(roofline_bench_triad_placement PROPERTIES PROCESSORS 2 TIMEOUT 300
                       LABELS roofline ENVIRONMENT OMP_NUM_THREADS=1)
  # refusals of the probes' options: "option;its arguments;the message"
  foreach(bad "triad-placement;1;--triad-placement 1: expected an integer >= 2"
              "triad-placement;17;--triad-placement 17: expected 2 to 16 sets"
              "read-streams;1;--read-streams 1: expected an integer >= 2"
              "read-streams;9;--read-streams 9: expected 2 to 8 streams"
              "read-streams;3 --triad-placement 2;--read-streams 3, --triad-placement 2, --block-ceilings 0: each replaces the kernels"
              "read-streams;4 --block-ceilings;--read-streams 4, --triad-placement 0, --block-ceilings 1: each replaces the kernels"
              "block-ceilings;2;unexpected argument '2'"
              "block-ceilings;1 --stream-mb 100000000;--block-ceilings: the triad's arrays need .* MiB per node, more than 80% of MemAvailable")
    list(GET bad 0 opt)
    list(GET bad 1 args)
    list(GET bad 2 msg)
    string(REPLACE " " ";" args "${args}")
    list(GET args 0 n)
    string(REPLACE "-" "_" name "${opt}")
    add_test(NAME roofline_bench_${name}_bad_${n}
             COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/common/expect_error.sh "${msg}"
                     ${RL_OUT}/${name}_bad.json -- ${MPIEXEC_EXECUTABLE} -n 1
                     $<TARGET_FILE:cubecg-bench> --${opt} ${args} --report ${RL_OUT}/${name}_bad.json)
    set_tests_properties(roofline_bench_${name}_bad_${n} PROPERTIES LABELS roofline
                         ENVIRONMENT "OMP_NUM_THREADS=1;EXPECT_EXIT=2")
  endforeach()
  add_test(NAME roofline_bench_triad_placement_too_big
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/common/expect_error.sh
                   "--triad-placement 16: 16 sets of .* MiB per node need .* more than 80% of MemAvailable"
                   ${RL_OUT}/placement_big.json -- ${MPIEXEC_EXECUTABLE} -n 2
                   $<TARGET_FILE:cubecg-bench> --triad-placement 16 --stream-mb 100000000
                   --report ${RL_OUT}/placement_big.json)
  set_tests_properties(roofline_bench_triad_placement_too_big PROPERTIES PROCESSORS 2 LABELS
                       roofline ENVIRONMENT "OMP_NUM_THREADS=1;EXPECT_EXIT=2")
endif()
