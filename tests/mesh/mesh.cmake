# mesh/ tests: element stiffness, parameter validation, A u_exact = b on every partition, matrix
# structure and communication tables, and partition-independent Matrix Market export.
set(MESH_TESTS ${CMAKE_CURRENT_SOURCE_DIR}/mesh)
foreach(prog element params consistency counting export partition)
  cc_add_unit(test_mesh_${prog} ${MESH_TESTS}/test_mesh_${prog}.c)
endforeach()
add_executable(test_mesh_mmcompare ${MESH_TESTS}/test_mesh_mmcompare.c)
target_link_libraries(test_mesh_mmcompare PRIVATE m)

cc_add_mpi_test(NAME mesh_element RANKS 1 COMMAND $<TARGET_FILE:test_mesh_element>)
cc_add_mpi_test(NAME mesh_params RANKS 1 COMMAND $<TARGET_FILE:test_mesh_params>)
cc_add_mpi_test(NAME mesh_consistency_box RANKS 1 2 4
                COMMAND $<TARGET_FILE:test_mesh_consistency> box)
cc_add_mpi_test(NAME mesh_consistency_metis RANKS 1 2 4
                COMMAND $<TARGET_FILE:test_mesh_consistency> metis)
cc_add_mpi_test(NAME mesh_counting RANKS 1 2 4 COMMAND $<TARGET_FILE:test_mesh_counting>)
cc_add_mpi_test(NAME mesh_consistency_threads RANKS 2 THREADS 2
                COMMAND $<TARGET_FILE:test_mesh_consistency> box)

# Export 9x5x7 at np 1 (reference) and np 2, 4 with box and METIS; compare each with the reference.
set(MESH_MTX ${CMAKE_CURRENT_BINARY_DIR}/mesh_mtx)
file(MAKE_DIRECTORY ${MESH_MTX})
cc_add_mpi_test(NAME mesh_export_box RANKS 1 2 4
                COMMAND $<TARGET_FILE:test_mesh_export> 9 5 7 box ${MESH_MTX}/box)
cc_add_mpi_test(NAME mesh_export_metis RANKS 2 4
                COMMAND $<TARGET_FILE:test_mesh_export> 9 5 7 metis ${MESH_MTX}/metis)
set_tests_properties(mesh_export_box_np1 PROPERTIES FIXTURES_SETUP mesh_mtx_ref)
foreach(kind box metis)
  foreach(np 2 4)
    if(NOT TEST mesh_export_${kind}_np${np})
      continue()
    endif()
    set_tests_properties(mesh_export_${kind}_np${np} PROPERTIES FIXTURES_SETUP mesh_mtx_${kind}${np})
    add_test(NAME mesh_mmcompare_${kind}_np${np}
             COMMAND test_mesh_mmcompare ${MESH_MTX}/box_np1.mtx ${MESH_MTX}/${kind}_np${np}.mtx)
    set_tests_properties(mesh_mmcompare_${kind}_np${np} PROPERTIES
                         FIXTURES_REQUIRED "mesh_mtx_ref;mesh_mtx_${kind}${np}" TIMEOUT 60)
  endforeach()
endforeach()

# Assembly in a renumbered order equals the natural assembly permuted.
cc_add_unit(test_mesh_ordered ${MESH_TESTS}/test_mesh_ordered.c)
cc_add_mpi_test(NAME mesh_ordered RANKS 1 2 THREADS 2 COMMAND $<TARGET_FILE:test_mesh_ordered>)

# Partition validity (owned once, halos match, edge cut and imbalance as reported, deterministic)
# at np 1, 2, 4; the solution with METIS's block graph meets the analytic tolerance as box's does.
foreach(kind box metis)
  cc_add_mpi_test(NAME mesh_partition_${kind} RANKS 1 2 4
                  COMMAND $<TARGET_FILE:test_mesh_partition> ${kind})
  cc_add_mpi_test(NAME mesh_partition_solve_${kind} RANKS 1 2 4
                  COMMAND $<TARGET_FILE:cubecg> --nx 16 --ny 10 --nz 12 --partition ${kind}
                          --analytic-tol 1e-6 --quiet)
endforeach()
# METIS leaving a part empty (2x2x2 nodes into 4): exit 2, one line from rank 0 only.
add_test(NAME mesh_partition_metis_empty_rank
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/common/expect_exit.sh 2
                 "^cubecg: error on rank 0: .*METIS left rank [0-9]+ without nodes.*--partition box"
                 -- ${MPIEXEC_EXECUTABLE} -n 4 $<TARGET_FILE:cubecg> --nx 2 --ny 2 --nz 2
                 --partition metis)
set_tests_properties(mesh_partition_metis_empty_rank PROPERTIES PROCESSORS 4
                     ENVIRONMENT OMP_NUM_THREADS=1)

# The memory estimate against the measured peak RSS of each rank (getrusage, in the report) at
# 40^3 on 2 and 4 ranks, box and METIS: within a factor 2 either way (the MPI library's own pages
# are not in the estimate), and the largest rank within 1.25x the median. Release tree only: the
# sanitizers' shadow memory and quarantine are in the RSS, not in the estimate.
if(CUBECG_SANITIZE)
  return()
endif()
find_package(Python3 COMPONENTS Interpreter)
set(MESH_RSS ${CMAKE_CURRENT_BINARY_DIR}/mesh_rss)
file(MAKE_DIRECTORY ${MESH_RSS})
foreach(kind box metis)
  foreach(np 2 4)
    if(np GREATER CC_TEST_MAX_PROCS)
      continue()
    endif()
    set(rss_test mesh_memory_estimate_${kind}_np${np})
    # exit 3: two iterations do not converge (a failed check), but the report is complete
    add_test(NAME ${rss_test}_run
             COMMAND sh -c "${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${np} $<TARGET_FILE:cubecg> --nx 40 --ny 40 --nz 40 --partition ${kind} --maxit 2 --quiet --report ${MESH_RSS}/${kind}_np${np}.json; rc=$?; [ $rc -eq 0 ] || [ $rc -eq 3 ]")
    set_tests_properties(${rss_test}_run PROPERTIES PROCESSORS ${np} ENVIRONMENT OMP_NUM_THREADS=1
                         FIXTURES_SETUP ${rss_test})
    add_test(NAME ${rss_test}
             COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/common/check_report.py expect
                     ${MESH_RSS}/${kind}_np${np}.json
                     "r['in_progress'] == False"
                     "0.5 < r['memory']['peak_rss_bytes_max'] / max(r['memory']['estimate_bytes_rank0'], r['memory']['estimate_bytes_other']) < 2"
                     "0.5 < r['memory']['peak_rss_bytes_min'] / r['memory']['estimate_bytes_other'] < 2"
                     "r['memory']['peak_rss_bytes_max'] <= 1.25 * r['memory']['peak_rss_bytes_median']"
                     "r['problem']['load_imbalance'] < 1.1 and r['problem']['box_edge_cut'] > 0")
    set_tests_properties(${rss_test} PROPERTIES FIXTURES_REQUIRED ${rss_test})
  endforeach()
endforeach()
