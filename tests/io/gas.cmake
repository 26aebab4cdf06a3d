# Tests of the global memory store and the "gas" checkpoint backend: the store at 1, 2
# and 4 ranks and on emulated nodes (hydra's fork launcher with two host names: MPICH then sees two
# nodes, MPI_COMM_TYPE_SHARED splits them and owners sit on the other node).
set(CC_GAS_TEST_DIR ${CMAKE_CURRENT_BINARY_DIR}/gas_tmp)

cc_add_unit(test_gas_store io/test_gas_store.c)
# The geometry (node index, partner, home index) as a pure function of the node leaders, without
# MPI: equal to the O(P^2) definition up to P = 4096, and O(P) loop steps at P = 1k .. 256k.
cc_add_unit(test_gas_geometry io/test_gas_geometry.c)
target_include_directories(test_gas_geometry PRIVATE ${PROJECT_SOURCE_DIR}/io/backends/gas ${PROJECT_SOURCE_DIR}/io)
foreach(mode compare growth)
  add_test(NAME gas_geometry_${mode} COMMAND $<TARGET_FILE:test_gas_geometry> ${mode})
  set_tests_properties(gas_geometry_${mode} PROPERTIES TIMEOUT 300)
endforeach()
foreach(mode basic coop race corrupt exact errors)
  cc_add_mpi_test(NAME gas_store_${mode} RANKS 1 2 4
                  COMMAND $<TARGET_FILE:test_gas_store> ${mode} ${CC_GAS_TEST_DIR}/${mode})
endforeach()

# cc_add_gas_nodes_test(NAME name HOSTS nodeA:1,nodeB:1 NP 2 COMMAND ...): emulated nodes
function(cc_add_gas_nodes_test)
  cmake_parse_arguments(T "" "NAME;HOSTS;NP" "COMMAND" ${ARGN})
  if(T_NP GREATER CC_TEST_MAX_PROCS)
    return()
  endif()
  add_test(NAME ${T_NAME}
           COMMAND ${MPIEXEC_EXECUTABLE} -launcher fork -hosts ${T_HOSTS} -n ${T_NP} ${T_COMMAND})
  set_tests_properties(${T_NAME} PROPERTIES PROCESSORS ${T_NP} TIMEOUT 300
                       ENVIRONMENT "OMP_NUM_THREADS=1")
endfunction()

foreach(mode basic coop race corrupt exact)
  cc_add_gas_nodes_test(NAME gas_store_${mode}_nodes2 HOSTS nodeA:1,nodeB:1 NP 2
                        COMMAND $<TARGET_FILE:test_gas_store> ${mode} ${CC_GAS_TEST_DIR}/n2_${mode})
  cc_add_gas_nodes_test(NAME gas_store_${mode}_nodes2x2 HOSTS nodeA:2,nodeB:2 NP 4
                        COMMAND $<TARGET_FILE:test_gas_store> ${mode} ${CC_GAS_TEST_DIR}/n4_${mode})
endforeach()

# --checkpoint gas through the driver: write, restart from the local copies, delete one rank's local
# copy and restart from its partner's pages (identical results), both copies gone -> clear error.
set(CUBECG $<TARGET_FILE:cubecg>)
set(GAS_RESTART ${CMAKE_CURRENT_SOURCE_DIR}/io/test_gas_restart.sh)
foreach(np 1 2 4)
  if(np GREATER CC_TEST_MAX_PROCS)
    continue()
  endif()
  add_test(NAME gas_ckpt_restart_np${np}
           COMMAND ${GAS_RESTART} ${MPIEXEC_EXECUTABLE} "-n ${np}" ${CUBECG}
                   ${CC_GAS_TEST_DIR}/ckpt_np${np})
  set_tests_properties(gas_ckpt_restart_np${np} PROPERTIES PROCESSORS ${np} TIMEOUT 600)
endforeach()
add_test(NAME gas_ckpt_restart_nodes2
         COMMAND ${GAS_RESTART} ${MPIEXEC_EXECUTABLE} "-launcher fork -hosts nodeA:1,nodeB:1 -n 2"
                 ${CUBECG} ${CC_GAS_TEST_DIR}/ckpt_nodes2)
add_test(NAME gas_ckpt_restart_all_nodes2
         COMMAND ${GAS_RESTART} ${MPIEXEC_EXECUTABLE} "-launcher fork -hosts nodeA:1,nodeB:1 -n 2"
                 ${CUBECG} ${CC_GAS_TEST_DIR}/ckpt_all_nodes2 all)
add_test(NAME gas_ckpt_restart_all_np4
         COMMAND ${GAS_RESTART} ${MPIEXEC_EXECUTABLE} "-n 4" ${CUBECG}
                 ${CC_GAS_TEST_DIR}/ckpt_all_np4 all)
# --gas-ssd-dir: page files outside the checkpoint (node-local disks), retention follows the
# checkpointer's; 2 emulated nodes x 2 ranks
add_test(NAME gas_ckpt_restart_ssd_nodes2x2
         COMMAND ${GAS_RESTART} ${MPIEXEC_EXECUTABLE} "-launcher fork -hosts nodeA:2,nodeB:2 -n 4"
                 ${CUBECG} ${CC_GAS_TEST_DIR}/ckpt_ssd_nodes4 pcg ar ssd)
set_tests_properties(gas_ckpt_restart_ssd_nodes2x2 PROPERTIES PROCESSORS 4 TIMEOUT 600)
set_tests_properties(gas_ckpt_restart_nodes2 gas_ckpt_restart_all_nodes2 PROPERTIES PROCESSORS 2
                     TIMEOUT 600)
set_tests_properties(gas_ckpt_restart_all_np4 PROPERTIES PROCESSORS 4 TIMEOUT 900)

# Bad input: one line naming the value, before the solve, nothing written.
set(GAS_BAD_OUT ${CC_GAS_TEST_DIR}/bad)
file(MAKE_DIRECTORY ${GAS_BAD_OUT})
# name | stderr pattern | arguments
cc_add_cases(PREFIX gas_bad_ FIELDS name pattern args WORDS args
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/common/expect_error.sh "@pattern@" ${GAS_BAD_OUT}/@name@.json --
          ${MPIEXEC_EXECUTABLE} -n 2 ${CUBECG} --nx 10 --ny 9 --nz 8 --checkpoint gas
          --checkpoint-dir ${GAS_BAD_OUT}/ck_@name@ @args@ --report ${GAS_BAD_OUT}/@name@.json
  PROPERTIES PROCESSORS 2 ENVIRONMENT OMP_NUM_THREADS=1
  CASES
    "page_not_pow2|--gas-page 5000 must be a power of two|--gas-page 5000"
    "page_small|--gas-page 2048 must be a power of two|--gas-page 2k"
    "dram_below_page|--gas-dram 16384 is below one page|--gas-page 64k --gas-dram 16k"
    "capacity|more than --gas-dram 4096 \\+ SSD capacity 4096|--gas-page 4k --gas-dram 4k --gas-ssd-bytes 4k")
add_test(NAME gas_bad_odirect
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/common/expect_error.sh "refuses O_DIRECT" ${GAS_BAD_OUT}/odirect.json --
                 ${MPIEXEC_EXECUTABLE} -n 2 ${CUBECG} --nx 10 --ny 9 --nz 8 --checkpoint gas
                 --checkpoint-dir ${GAS_BAD_OUT}/ck_odirect --report ${GAS_BAD_OUT}/odirect.json)
set_tests_properties(gas_bad_odirect PROPERTIES PROCESSORS 2
                     ENVIRONMENT "OMP_NUM_THREADS=1;CUBECG_IO_INJECT=odirect-einval")
# with --io-fallback the same directory is accepted and the report names the buffered path
add_test(NAME gas_odirect_fallback
         COMMAND ${CMAKE_COMMAND} -E env CUBECG_IO_INJECT=odirect-einval OMP_NUM_THREADS=1
                 ${MPIEXEC_EXECUTABLE} -n 2 ${CUBECG} --nx 10 --ny 9 --nz 8 --checkpoint gas
                 --checkpoint-dir ${GAS_BAD_OUT}/ck_fallback --checkpoint-every 10 --io-fallback
                 --checkpoint-overwrite
                 --report ${GAS_BAD_OUT}/fallback.json --quiet)
set_tests_properties(gas_odirect_fallback PROPERTIES PROCESSORS 2 FIXTURES_SETUP gas_fallback)
add_test(NAME gas_odirect_fallback_report
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/common/check_report.py expect ${GAS_BAD_OUT}/fallback.json
                 "r['solves'][0]['checkpoint']['path_used'] == 'gas+pwrite-buffered'"
                 "r['solves'][0]['checkpoint']['count'] >= 2")
set_tests_properties(gas_odirect_fallback_report PROPERTIES FIXTURES_REQUIRED gas_fallback)

# cubecg-gasbench: a small run at 3 ranks; every row's case is the way its gets were served, the
# report has the three ratios (or says why not) and the weak-scaling rows with and without coop.
add_test(NAME gas_bench_smoke
         COMMAND ${CMAKE_COMMAND} -E env OMP_NUM_THREADS=1 ${MPIEXEC_EXECUTABLE} -n 3
                 $<TARGET_FILE:cubecg-gasbench> --sizes 64k,4M --page 1M,4M --dram 16M --repeat 2
                 --weak-pages 8 --weak-dram 4M --ssd-dir ${CC_GAS_TEST_DIR}/bench
                 --report ${CC_GAS_TEST_DIR}/gasbench.json)
set_tests_properties(gas_bench_smoke PROPERTIES PROCESSORS 3 TIMEOUT 600 FIXTURES_SETUP gas_bench)
add_test(NAME gas_bench_report
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/common/check_report.py expect ${CC_GAS_TEST_DIR}/gasbench.json
                 "r['kind'] == 'gasbench' and r['ranks'] == 3"
                 "{x['case'] for x in r['results']} == {'dram-hit', 'ssd-miss', 'ssd-stream', 'coop-hit', 'send-recv'}"
                 "all(x['served']['dram'] > 0 and x['served']['ssd'] == 0 and x['served']['coop'] == 0 for x in r['results'] if x['case'] == 'dram-hit' and x['op'] == 'get')"
                 "all(x['served']['ssd'] > 0 and x['served']['dram'] == 0 and x['served']['coop'] == 0 for x in r['results'] if x['case'] in ('ssd-miss', 'ssd-stream'))"
                 "all(x['served']['coop'] > 0 and x['served']['ssd'] == 0 for x in r['results'] if x['case'] == 'coop-hit')"
                 "all(x['bytes_per_s']['median'] > 0 for x in r['results'])"
                 "set(r['ratios']) == {'dram_get_vs_send_recv', 'dram_put_vs_send_recv', 'ssd_get_vs_fio', 'coop_vs_ssd', 'ssd_stream_get_vs_fio'}"
                 "r['ratios']['dram_get_vs_send_recv']['value'] > 0 and r['ratios']['coop_vs_ssd']['value'] > 0"
                 "all(r['ratios'][k]['value'] is None and 'fio' in r['ratios'][k]['why_missing'] for k in ('ssd_get_vs_fio', 'ssd_stream_get_vs_fio'))"
                 "sorted((w['ranks'], w['coop']) for w in r['weak_scaling']) == [(1, False), (1, True), (2, False), (2, True), (3, False), (3, True)]"
                 "any(w['coop_hits'] > 0 for w in r['weak_scaling'] if w['coop'])"
                 "all(w['coop_hits'] == 0 for w in r['weak_scaling'] if not w['coop'])")
set_tests_properties(gas_bench_report PROPERTIES FIXTURES_REQUIRED gas_bench)
add_test(NAME gas_bench_bad_page
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/common/expect_error.sh "--page 3000 must be a power of two"
                 ${CC_GAS_TEST_DIR}/nothing.json -- ${MPIEXEC_EXECUTABLE} -n 1
                 $<TARGET_FILE:cubecg-gasbench> --page 3000)
# jobs/analyze_gas.py (python3 from PATH with matplotlib, as tests/jobs/jobs.cmake): the figures and
# summary from the smoke report; a run report is refused
add_test(NAME gas_analyze_figures
         COMMAND python3 ${PROJECT_SOURCE_DIR}/jobs/analyze_gas.py ${CC_GAS_TEST_DIR}/gasbench.json
                 --out ${CC_GAS_TEST_DIR}/figures --force)
set_tests_properties(gas_analyze_figures PROPERTIES FIXTURES_REQUIRED gas_bench
                     FIXTURES_SETUP gas_figures)
add_test(NAME gas_analyze_outputs
         COMMAND python3 -c "import os,sys; d=sys.argv[1]; [os.path.getsize(os.path.join(d,f)) > 200 or sys.exit(f + ' empty') for f in ('gas_fig1_bandwidth.png','gas_fig2_weak.png','gas_summary.md')]"
                 ${CC_GAS_TEST_DIR}/figures)
set_tests_properties(gas_analyze_outputs PROPERTIES FIXTURES_REQUIRED gas_figures)
add_test(NAME gas_analyze_refuses_other_kinds
         COMMAND python3 ${PROJECT_SOURCE_DIR}/jobs/analyze_gas.py ${CC_GAS_TEST_DIR}/bad/fallback.json)
set_tests_properties(gas_analyze_refuses_other_kinds PROPERTIES WILL_FAIL TRUE
                     FIXTURES_REQUIRED gas_fallback)
