# Tests of io/: CRC32C, round trips of every backend at 1, 2, 4 ranks, integrity
# (corruption, truncation, rank count, ENOSPC, kill -9, O_DIRECT refused) and retention.
set(CC_IO_TEST_DIR ${CMAKE_CURRENT_BINARY_DIR}/io_tmp)
set(CC_IO_BACKENDS posix uring offload offload-uring hdf5)
if(CUBECG_HAVE_FORTRAN)
  list(APPEND CC_IO_BACKENDS fortran)
endif()

cc_add_unit(test_io_crc32c io/test_io_crc32c.c)
cc_add_mpi_test(NAME io_crc32c RANKS 1 COMMAND $<TARGET_FILE:test_io_crc32c>)

cc_add_unit(test_io_roundtrip io/test_io_roundtrip.c)
foreach(backend ${CC_IO_BACKENDS})
  cc_add_mpi_test(NAME io_roundtrip_${backend} RANKS 1 2 4
                  COMMAND $<TARGET_FILE:test_io_roundtrip> ${backend} ${CC_IO_TEST_DIR}/rt_${backend})
endforeach()

# Integrity: corruption, truncation, ENOSPC (RLIMIT_FSIZE), O_DIRECT refused, kill -9.
cc_add_unit(test_io_integrity io/test_io_integrity.c)
foreach(backend ${CC_IO_BACKENDS})
  foreach(mode corrupt truncate enospc)
    cc_add_mpi_test(NAME io_${mode}_${backend} RANKS 1 2
                    COMMAND $<TARGET_FILE:test_io_integrity> ${mode} ${backend}
                            ${CC_IO_TEST_DIR}/${mode}_${backend})
  endforeach()
  foreach(np 1 2)
    add_test(NAME io_kill_${backend}_np${np}
             COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/io/io_kill.sh ${MPIEXEC_EXECUTABLE} ${np}
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
             COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/io/io_enospc_tmpfs.sh ${MPIEXEC_EXECUTABLE} ${np}
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
cc_add_unit(test_io_export io/test_io_export.c)
cc_add_mpi_test(NAME io_export RANKS 1 2 4
                COMMAND $<TARGET_FILE:test_io_export> ${CC_IO_TEST_DIR}/export)

# The checkpoint manifest's reader (cJSON): formatting-independent, unknown keys tolerated, missing
# or mistyped keys refused naming key and file, arbitrary bytes refused without a crash.
cc_add_unit(test_io_manifest io/test_io_manifest.c)
cc_add_mpi_test(NAME io_manifest RANKS 1 COMMAND $<TARGET_FILE:test_io_manifest>
                ${CC_IO_TEST_DIR}/manifest)

# Restarts and checkpoint directories through the driver: the other runs' directories, the
# fallback to an older checkpoint, and refusals.
find_package(Python3 COMPONENTS Interpreter)
set(CC_IO_DRV ${CC_IO_TEST_DIR}/driver)
file(MAKE_DIRECTORY ${CC_IO_DRV})
set(CC_IO_RUN ${CMAKE_COMMAND} -E env OMP_NUM_THREADS=1 ${MPIEXEC_EXECUTABLE} -n 2
              $<TARGET_FILE:cubecg> --nx 10 --ny 9 --nz 8 --quiet)
set(CC_IO_EXPECT sh ${CMAKE_CURRENT_SOURCE_DIR}/common/expect_stderr_contains.sh)
# 4. the manifest records the problem; a restart with another value is refused (exit 2) naming it
add_test(NAME io_problem_write
         COMMAND ${CC_IO_RUN} --checkpoint posix --checkpoint-dir ${CC_IO_DRV}/problem
                 --checkpoint-every 10 --checkpoint-overwrite)
set_tests_properties(io_problem_write PROPERTIES PROCESSORS 2 FIXTURES_SETUP io_problem)
# name | option | stderr message
cc_add_cases(PREFIX io_restart_refuses_ FIELDS name option message WORDS option
  COMMAND ${CC_IO_EXPECT} 2 "@message@" -- ${CC_IO_RUN} --restart ${CC_IO_DRV}/problem @option@
  PROPERTIES PROCESSORS 2 FIXTURES_REQUIRED io_problem
  CASES
    "E|--E 2|--E 2 differs from the checkpoint's E = 1"
    "nu|--nu 0.25|--nu 0.25 differs from the checkpoint's nu = 0.29999999999999999"
    "traction|--traction 1.0000000000000002|--traction 1.0000000000000002 differs from the checkpoint's traction = 1"
    "precond|--precond jacobi|--precond jacobi differs from the checkpoint's precond = asdd"
    "precision|--precond-precision single|--precond-precision single differs from the checkpoint's precond-precision = double"
    "ordering|--ordering rcm|--ordering rcm differs from the checkpoint's ordering = cm-rcm"
    "colors|--colors 5|--colors 5 differs from the checkpoint's colors = 10"
    "asdd_iters|--asdd-iters 3|--asdd-iters 3 differs from the checkpoint's asdd-iters = 2"
    "asdd_residual|--asdd-residual full|--asdd-residual full differs from the checkpoint's asdd-residual = fused")
add_test(NAME io_restart_same_problem
         COMMAND ${CC_IO_EXPECT} 0 "" -- ${CC_IO_RUN} --restart ${CC_IO_DRV}/problem)
add_test(NAME io_restart_old_manifest
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/io/io_restart_old_manifest.sh ${Python3_EXECUTABLE}
                 ${MPIEXEC_EXECUTABLE} $<TARGET_FILE:cubecg> ${CC_IO_DRV}/problem
                 ${CC_IO_DRV}/old_manifest)
set_tests_properties(io_restart_same_problem io_restart_old_manifest PROPERTIES PROCESSORS 2
                     ENVIRONMENT OMP_NUM_THREADS=1 FIXTURES_REQUIRED io_problem)
# 5. the same command twice, another problem refused, --checkpoint-overwrite
add_test(NAME io_checkpoint_dirs
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/io/io_ckpt_dirs.sh ${MPIEXEC_EXECUTABLE}
                 $<TARGET_FILE:cubecg> ${CC_IO_DRV}/dirs)
set_tests_properties(io_checkpoint_dirs PROPERTIES PROCESSORS 2 TIMEOUT 300
                     ENVIRONMENT OMP_NUM_THREADS=1)
# 6. --restart honours --io-fallback: a uring checkpoint written through the fallback chain (O_DIRECT
# refused, CUBECG_IO_INJECT=odirect-einval) restarts with --io-fallback, and without it is refused
# with a message that names the option
set(CC_IO_NODIRECT ${CMAKE_COMMAND} -E env CUBECG_IO_INJECT=odirect-einval OMP_NUM_THREADS=1
                   ${MPIEXEC_EXECUTABLE} -n 2 $<TARGET_FILE:cubecg> --nx 10 --ny 9 --nz 8 --quiet)
add_test(NAME io_fallback_write
         COMMAND ${CC_IO_NODIRECT} --checkpoint uring --io-fallback --checkpoint-every 10
                 --checkpoint-dir ${CC_IO_DRV}/fallback --checkpoint-overwrite)
set_tests_properties(io_fallback_write PROPERTIES PROCESSORS 2 FIXTURES_SETUP io_fallback)
add_test(NAME io_fallback_restart
         COMMAND ${CC_IO_EXPECT} 0 "" -- ${CC_IO_NODIRECT} --restart ${CC_IO_DRV}/fallback
                 --io-fallback)
add_test(NAME io_fallback_restart_refused
         COMMAND ${CC_IO_EXPECT} 1 "use --io-fallback" -- ${CC_IO_NODIRECT} --restart
                 ${CC_IO_DRV}/fallback)
set_tests_properties(io_fallback_restart io_fallback_restart_refused PROPERTIES PROCESSORS 2
                     FIXTURES_REQUIRED io_fallback)

# Checkpoints written by the code before the solver-state format changed (tests/io/data/ckpt_v1_*, 8x8x8) still restart and
# end as the run that wrote them (same iterations; residuals to 1e-6: that commit had other kernels).
foreach(backend posix hdf5 offload)
  add_test(NAME io_restart_v1_fixture_${backend}
           COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/io/io_restart_v1_fixture.sh ${Python3_EXECUTABLE}
                   ${MPIEXEC_EXECUTABLE} $<TARGET_FILE:cubecg>
                   ${CMAKE_CURRENT_SOURCE_DIR}/io/data/ckpt_v1_${backend}
                   ${CC_IO_TEST_DIR}/v1_fixture_${backend})
  set_tests_properties(io_restart_v1_fixture_${backend} PROPERTIES PROCESSORS 2 TIMEOUT 120
                       ENVIRONMENT OMP_NUM_THREADS=1)
endforeach()

# Two checkpointers with different backends in one process, interleaved; one destroyed while the
# other goes on (the offload helper and the uring ring belong to their checkpointer).
cc_add_unit(test_io_two_checkpointers io/test_io_two_checkpointers.c)
foreach(pair "offload;offload-uring" "offload;uring" "offload-uring;offload" "posix;hdf5")
  list(GET pair 0 first)
  list(GET pair 1 second)
  cc_add_mpi_test(NAME io_two_checkpointers_${first}_${second} RANKS 1 2
                  COMMAND $<TARGET_FILE:test_io_two_checkpointers> ${first} ${second}
                          ${CC_IO_TEST_DIR}/two_${first}_${second})
endforeach()

# Retention looks at every directory entry (4200 older checkpoints, once capped at 4096).
cc_add_mpi_test(NAME io_retention_many RANKS 1
                COMMAND $<TARGET_FILE:test_io_integrity> retention-many posix
                        ${CC_IO_TEST_DIR}/retention_many)

# The offload commit runs on the helper threads. A manifest that cannot be written (ENOSPC
# on rank 0's helper) and a kill inside the commit (after the rename, before latest moves) leave the
# previous checkpoint latest and restartable exactly; posix takes the same path synchronously.
foreach(backend offload offload-uring posix)
  cc_add_mpi_test(NAME io_enospc_commit_${backend} RANKS 1 2 4
                  COMMAND $<TARGET_FILE:test_io_integrity> enospc-commit ${backend}
                          ${CC_IO_TEST_DIR}/enospc_commit_${backend})
  foreach(np 1 2)
    add_test(NAME io_kill_commit_${backend}_np${np}
             COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/io/io_kill_commit.sh ${MPIEXEC_EXECUTABLE} ${np}
                     $<TARGET_FILE:test_io_integrity> ${backend}
                     ${CC_IO_TEST_DIR}/kill_commit_${backend}_np${np})
    set_tests_properties(io_kill_commit_${backend}_np${np} PROPERTIES PROCESSORS ${np} TIMEOUT 300
                         ENVIRONMENT "OMP_NUM_THREADS=1")
  endforeach()
endforeach()
# A solve checkpointing every 10 iterations through offload restarts exactly from a middle one.
foreach(backend offload offload-uring)
  foreach(np 1 2 4)
    if(np GREATER CC_TEST_MAX_PROCS)
      continue()
    endif()
    add_test(NAME io_offload_restart_exact_${backend}_np${np}
             COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/io/io_offload_restart.sh ${Python3_EXECUTABLE}
                     ${MPIEXEC_EXECUTABLE} ${np} $<TARGET_FILE:cubecg> ${backend}
                     ${CC_IO_TEST_DIR}/offload_restart_${backend}_np${np})
    set_tests_properties(io_offload_restart_exact_${backend}_np${np} PROPERTIES PROCESSORS ${np}
                         TIMEOUT 300 ENVIRONMENT "OMP_NUM_THREADS=1")
  endforeach()
endforeach()

# A checkpoint directory is the user's data: the same command again refused naming --restart DIR,
# user files named like checkpoints left alone, one job per directory (a second one refused naming
# the holder, the live job's temporary untouched), a requeued job after SIGKILL, SIGKILL at each
# step of the commit protocol (io_ckpt_safety.sh; REPEAT=20 in the environment repeats a case).
foreach(case rerun userfiles ownership concurrent requeue killsteps)
  foreach(np 1 2 4)
    if(np GREATER CC_TEST_MAX_PROCS)
      continue()
    endif()
    add_test(NAME io_ckpt_safety_${case}_np${np}
             COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/io/io_ckpt_safety.sh ${MPIEXEC_EXECUTABLE}
                     $<TARGET_FILE:cubecg> ${Python3_EXECUTABLE} ${np} ${case}
                     ${CC_IO_TEST_DIR}/safety_${case}_np${np})
    set_tests_properties(io_ckpt_safety_${case}_np${np} PROPERTIES PROCESSORS ${np} TIMEOUT 300)
  endforeach()
endforeach()

# Outputs that cannot hang or mislead (io_outputs.sh): a FIFO report target without a reader refused
# at once, a symlink written through, XML escaped in XDMF, --solver all going on past one variant's
# breakdown (exit 1, recorded), --restart taking the problem from the manifest; options without
# effect, a bad OMP_NUM_THREADS and a missing --gas-ssd-dir refused (exit 2).
foreach(case fifo symlink xdmf solverall restart silent)
  foreach(np 1 2)
    add_test(NAME io_outputs_${case}_np${np}
             COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/io/io_outputs.sh ${MPIEXEC_EXECUTABLE}
                     $<TARGET_FILE:cubecg> ${Python3_EXECUTABLE} ${np} ${case}
                     ${CC_IO_TEST_DIR}/outputs_${case}_np${np})
    set_tests_properties(io_outputs_${case}_np${np} PROPERTIES PROCESSORS ${np} TIMEOUT 120)
  endforeach()
endforeach()

# A checkpoint's file-system work per process does not grow with the rank count: unlinks and opens
# per checkpoint and the checkpoint data bytes a restart reads, per rank under strace, at 2, 8 and
# 16 ranks against a baseline (io_ckpt_scaling.sh). Oversubscribed on purpose (tiny mesh): past
# CC_TEST_MAX_PROCS, so RUN_SERIAL keeps a parallel ctest from running anything beside it; label
# "scaling". posix, offload, hdf5 and fortran read through read(2), which strace counts; uring reads
# through its ring and gas from its store, which it does not see. sanitize-skip: what they assert
# is counts, which ASan does not change, and under ASan and strace at 16 ranks they take minutes;
# the sanitizer pass keeps the same checkpoint code through the io_* tests.
set(CC_IO_SCALING_BACKENDS posix offload hdf5)
if(CUBECG_HAVE_FORTRAN)
  list(APPEND CC_IO_SCALING_BACKENDS fortran)
endif()
foreach(backend ${CC_IO_SCALING_BACKENDS})
  foreach(np 2 8 16)
    add_test(NAME io_ckpt_scaling_${backend}_np${np}
             COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/io/io_ckpt_scaling.sh ${MPIEXEC_EXECUTABLE}
                     $<TARGET_FILE:cubecg> ${Python3_EXECUTABLE} ${np} ${backend}
                     ${CC_IO_TEST_DIR}/scaling_${backend}_np${np})
    set_tests_properties(io_ckpt_scaling_${backend}_np${np} PROPERTIES RUN_SERIAL TRUE
                         TIMEOUT 1200 SKIP_RETURN_CODE 77 LABELS "scaling;sanitize-skip")
  endforeach()
endforeach()
