# Tests of the global memory store and the "gas" checkpoint backend (issue 14): the store at 1, 2
# and 4 ranks and on emulated nodes (hydra's fork launcher with two host names: MPICH then sees two
# nodes, MPI_COMM_TYPE_SHARED splits them and owners sit on the other node).
set(CC_GAS_TEST_DIR ${CMAKE_CURRENT_BINARY_DIR}/gas_tmp)

cc_add_unit(test_gas_store test_gas_store.c)
foreach(mode basic coop corrupt errors)
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

foreach(mode basic coop corrupt)
  cc_add_gas_nodes_test(NAME gas_store_${mode}_nodes2 HOSTS nodeA:1,nodeB:1 NP 2
                        COMMAND $<TARGET_FILE:test_gas_store> ${mode} ${CC_GAS_TEST_DIR}/n2_${mode})
  cc_add_gas_nodes_test(NAME gas_store_${mode}_nodes2x2 HOSTS nodeA:2,nodeB:2 NP 4
                        COMMAND $<TARGET_FILE:test_gas_store> ${mode} ${CC_GAS_TEST_DIR}/n4_${mode})
endforeach()
