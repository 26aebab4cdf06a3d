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
