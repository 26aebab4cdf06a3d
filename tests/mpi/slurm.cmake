# The batch path against a real Slurm: a one-node cluster of this machine (tests/mpi/slurm_cluster.sh)
# runs submit-study.sh with its afterok analysis, a time limit with --signal, a failed run and a
# requeue from the last checkpoint (tests/mpi/test_slurm_batch.sh). Skipped (exit 77) with the reason
# when slurm-wlm or munge is missing or does not start. About 2-3 min on 2 idle cores: label slurm,
# left out of the sanitizer pass (the runs inside are the driver's, which that pass keeps).
if(CUBECG_MPI_IMPL STREQUAL "mpich")
  add_test(NAME slurm_batch_path
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi/test_slurm_batch.sh ${PROJECT_SOURCE_DIR}
                   ${PROJECT_BINARY_DIR} ${CMAKE_CURRENT_BINARY_DIR}/slurm)
  set_tests_properties(slurm_batch_path PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 1500 PROCESSORS 2
                       RUN_SERIAL TRUE LABELS "slurm;sanitize-skip")
endif()
