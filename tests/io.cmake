# Tests of io/ (issue 5): CRC32C, round trips of every backend at 1, 2, 4 ranks, integrity
# (corruption, truncation, rank count, ENOSPC, kill -9, O_DIRECT refused) and retention.
set(CC_IO_TEST_DIR ${CMAKE_CURRENT_BINARY_DIR}/io_tmp)
set(CC_IO_BACKENDS posix uring offload offload-uring hdf5)
if(CUBECG_HAVE_FORTRAN)
  list(APPEND CC_IO_BACKENDS fortran)
endif()

cc_add_unit(test_io_crc32c test_io_crc32c.c)
cc_add_mpi_test(NAME io_crc32c RANKS 1 COMMAND $<TARGET_FILE:test_io_crc32c>)

cc_add_unit(test_io_roundtrip test_io_roundtrip.c)
foreach(backend ${CC_IO_BACKENDS})
  cc_add_mpi_test(NAME io_roundtrip_${backend} RANKS 1 2 4
                  COMMAND $<TARGET_FILE:test_io_roundtrip> ${backend} ${CC_IO_TEST_DIR}/rt_${backend})
endforeach()

# Integrity: corruption, truncation, ENOSPC (RLIMIT_FSIZE), O_DIRECT refused, kill -9.
cc_add_unit(test_io_integrity test_io_integrity.c)
foreach(backend ${CC_IO_BACKENDS})
  foreach(mode corrupt truncate enospc)
    cc_add_mpi_test(NAME io_${mode}_${backend} RANKS 1 2
                    COMMAND $<TARGET_FILE:test_io_integrity> ${mode} ${backend}
                            ${CC_IO_TEST_DIR}/${mode}_${backend})
  endforeach()
  foreach(np 1 2)
    add_test(NAME io_kill_${backend}_np${np}
             COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/io_kill.sh ${MPIEXEC_EXECUTABLE} ${np}
                     $<TARGET_FILE:test_io_integrity> ${backend} ${CC_IO_TEST_DIR}/kill_${backend})
    set_tests_properties(io_kill_${backend}_np${np} PROPERTIES PROCESSORS ${np} TIMEOUT 300
                         ENVIRONMENT "OMP_NUM_THREADS=1")
  endforeach()
  # a different rank count: written at 2 ranks, read at 1 and 4 (hdf5 accepts, the others refuse)
  cc_add_mpi_test(NAME io_ranks_write_${backend} RANKS 2
                  COMMAND $<TARGET_FILE:test_io_integrity> ranks-write ${backend}
                          ${CC_IO_TEST_DIR}/ranks_${backend})
  set_tests_properties(io_ranks_write_${backend}_np2 PROPERTIES FIXTURES_SETUP io_ranks_${backend})
  cc_add_mpi_test(NAME io_ranks_read_${backend} RANKS 1 2 4
                  COMMAND $<TARGET_FILE:test_io_integrity> ranks-read ${backend}
                          ${CC_IO_TEST_DIR}/ranks_${backend})
  foreach(np 1 2 4)
    if(TEST io_ranks_read_${backend}_np${np})
      set_tests_properties(io_ranks_read_${backend}_np${np} PROPERTIES
                           FIXTURES_REQUIRED io_ranks_${backend})
    endif()
  endforeach()
endforeach()
# ENOSPC on every rank, on rank 0 only, on the last rank only (CUBECG_IO_INJECT=enospc-after): the
# checkpoint fails everywhere, never hangs (a collective one rank skips would: TIMEOUT), the previous
# one loads. Then the same on a real full file system (a small tmpfs; skipped where mount is not
# permitted), through the driver, restarting from the previous checkpoint.
foreach(backend ${CC_IO_BACKENDS})
  cc_add_mpi_test(NAME io_enospc_inject_${backend} RANKS 2 4
                  COMMAND $<TARGET_FILE:test_io_integrity> enospc-inject ${backend}
                          ${CC_IO_TEST_DIR}/enospc_inject_${backend})
  foreach(np 2 4)
    if(np GREATER CC_TEST_MAX_PROCS)
      continue()
    endif()
    set_tests_properties(io_enospc_inject_${backend}_np${np} PROPERTIES TIMEOUT 120)
    add_test(NAME io_enospc_tmpfs_${backend}_np${np}
             COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/io_enospc_tmpfs.sh ${MPIEXEC_EXECUTABLE} ${np}
                     $<TARGET_FILE:cubecg> ${backend} ${CC_IO_TEST_DIR}/enospc_tmpfs_${backend}_np${np})
    set_tests_properties(io_enospc_tmpfs_${backend}_np${np} PROPERTIES PROCESSORS ${np} TIMEOUT 300
                         SKIP_RETURN_CODE 77 ENVIRONMENT "OMP_NUM_THREADS=1")
  endforeach()
endforeach()

foreach(backend uring offload-uring)
  cc_add_mpi_test(NAME io_odirect_${backend} RANKS 1 2
                  COMMAND $<TARGET_FILE:test_io_integrity> odirect ${backend}
                          ${CC_IO_TEST_DIR}/odirect_${backend})
endforeach()
cc_add_mpi_test(NAME io_uring_seams RANKS 1 2
                COMMAND $<TARGET_FILE:test_io_integrity> seams uring ${CC_IO_TEST_DIR}/seams)

# Solution export (HDF5 + XDMF) and the hdf5 checkpoint's XDMF view; a different mesh refused.
cc_add_unit(test_io_export test_io_export.c)
cc_add_mpi_test(NAME io_export RANKS 1 2 4
                COMMAND $<TARGET_FILE:test_io_export> ${CC_IO_TEST_DIR}/export)
