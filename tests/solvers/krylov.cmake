# Kernels and Krylov solvers (solvers/kernels.c, reduce.c, krylov*.c): SpMV against dense and
# 1-rank references, symmetry, reductions; every CG variant x reduction mode against the analytic
# solution, Table 1 operation counts, attainable accuracy, latency injection, restart, breakdown.
cc_add_unit(test_krylov_kernels solvers/test_krylov_kernels.c)

foreach(size "3;3;3" "4;3;2" "10;10;10")
  list(GET size 0 nx)
  list(GET size 1 ny)
  list(GET size 2 nz)
  foreach(threads 1 2)
    cc_add_mpi_test(NAME krylov_kernels_${nx}x${ny}x${nz} RANKS 1 2 4 THREADS ${threads}
                    COMMAND $<TARGET_FILE:test_krylov_kernels> --nx ${nx} --ny ${ny} --nz ${nz})
  endforeach()
endforeach()
cc_add_mpi_test(NAME krylov_kernels_metis RANKS 2 4 COMMAND $<TARGET_FILE:test_krylov_kernels>
                --nx 9 --ny 5 --nz 7 --partition metis)

# 4 ranks oversubscribe the 2 cores (MPICH busy-waits), so only kernels and variants run at 4.
# The variants on 8x6x7 nodes with the study's preconditioner (ASDD, 2 iterations; --precond
# selects another). --replace 0 asserts Table 1's per-iteration counts; --replace 10 exercises
# residual replacement inside the same checks.
cc_add_unit(test_krylov_solve solvers/test_krylov_solve.c)
set(KRYLOV_SOLVE $<TARGET_FILE:test_krylov_solve> --nx 8 --ny 6 --nz 7 --precond asdd)
cc_add_mpi_test(NAME krylov_variants RANKS 1 2 4 COMMAND ${KRYLOV_SOLVE} --mode variants)
cc_add_mpi_test(NAME krylov_variants RANKS 1 2 THREADS 2 COMMAND ${KRYLOV_SOLVE} --mode variants)
cc_add_mpi_test(NAME krylov_variants_replace RANKS 1 2
                COMMAND ${KRYLOV_SOLVE} --mode variants --replace 10)
cc_add_mpi_test(NAME krylov_variants_metis RANKS 3 COMMAND ${KRYLOV_SOLVE} --mode variants
                --partition metis)
cc_add_mpi_test(NAME krylov_variants_jacobi RANKS 2 COMMAND ${KRYLOV_SOLVE} --mode variants
                --precond jacobi)
# MPICH's asynchronous progress thread (MPI_THREAD_MULTIPLE): same answers
cc_add_mpi_test(NAME krylov_variants_async RANKS 2 COMMAND ${KRYLOV_SOLVE} --mode variants
                ENV MPIR_CVAR_ASYNC_PROGRESS=1)
# attainable accuracy at tol 1e-13: unpreconditioned, where pipecg without replacement drifts
# (true/recursive gap printed) and breaks down; with replacement it must keep true <= 10 x recursive
cc_add_mpi_test(NAME krylov_accuracy RANKS 1 2 COMMAND $<TARGET_FILE:test_krylov_solve> --nx 8
                --ny 6 --nz 7 --precond none --mode accuracy --replace 10)
cc_add_mpi_test(NAME krylov_accuracy_50 RANKS 2 COMMAND $<TARGET_FILE:test_krylov_solve> --nx 8
                --ny 6 --nz 7 --precond none --mode accuracy --replace 50)
cc_add_mpi_test(NAME krylov_latency RANKS 1 2 COMMAND ${KRYLOV_SOLVE} --mode latency --nx 10 --ny 10
                --nz 10 --latency-us 2000)
# it compares times (IAR's least blocked time per iteration < AR's): alone on the cores
foreach(np 1 2)
  set_tests_properties(krylov_latency_np${np} PROPERTIES RUN_SERIAL TRUE)
endforeach()
cc_add_mpi_test(NAME krylov_restart RANKS 1 2 COMMAND ${KRYLOV_SOLVE} --mode restart --replace 10)
cc_add_mpi_test(NAME krylov_errors RANKS 1 2 COMMAND ${KRYLOV_SOLVE} --mode errors)
# two solves with different settings interleaved in one process (B inside A's monitor)
cc_add_mpi_test(NAME krylov_interleave RANKS 1 2 COMMAND ${KRYLOV_SOLVE} --mode interleave)
cc_add_mpi_test(NAME krylov_interleave RANKS 2 THREADS 2 COMMAND ${KRYLOV_SOLVE} --mode interleave)

# Fused vector passes against the unfused reference, every variant x reduction, with
# and without residual replacement: same residual histories (1e-12 relative per iteration), same
# iterations and Table 1 counts, measured vector traffic = the registry's.
cc_add_unit(test_krylov_fused solvers/test_krylov_fused.c)
set(KRYLOV_FUSED $<TARGET_FILE:test_krylov_fused> --nx 8 --ny 6 --nz 7 --precond asdd)
cc_add_mpi_test(NAME krylov_fused RANKS 1 2 4 COMMAND ${KRYLOV_FUSED} --replace 10)
# 2 threads split the loops only past CC_OMP_CHUNK doubles: 18x18x17 nodes on one rank (tol 1e-5:
# few iterations, as OpenMP barriers crawl when other jobs share the 2 cores)
cc_add_mpi_test(NAME krylov_fused_threads RANKS 1 THREADS 2 COMMAND $<TARGET_FILE:test_krylov_fused>
                --nx 18 --ny 18 --nz 17 --replace 5 --tol 1e-5 --only pipecg)
cc_add_mpi_test(NAME krylov_fused_threads_gropp RANKS 1 THREADS 2
                COMMAND $<TARGET_FILE:test_krylov_fused> --nx 18 --ny 18 --nz 17 --replace 5
                --tol 1e-5 --only gropp)
cc_add_mpi_test(NAME krylov_fused_jacobi RANKS 2 COMMAND ${KRYLOV_FUSED} --precond jacobi
                --replace 7)

# p(l)-CG and s-step CG (solvers/krylov_plcg.c, krylov_sstep.c) and the residual-gap guard.
cc_add_unit(test_krylov_deep solvers/test_krylov_deep.c)
set(KRYLOV_DEEP $<TARGET_FILE:test_krylov_deep> --nx 8 --ny 6 --nz 7)
# p(1)-CG's iterates are pipecg's (CG's): x after 10 and 20 iterations, iterations to converge
cc_add_mpi_test(NAME krylov_deep_plcg1_equals_pipecg RANKS 1 2 COMMAND ${KRYLOV_DEEP} --mode pipecg)
# every L = 1..8 and S = 1..10 (Chebyshev, Newton): analytic check, true residual, iterations
cc_add_mpi_test(NAME krylov_deep_every_depth_and_step RANKS 2 COMMAND ${KRYLOV_DEEP} --mode every
                --precond jacobi)
# the same history on 2 / 4 ranks and 2 threads as on one rank (point-block Jacobi)
cc_add_mpi_test(NAME krylov_deep_same_answer_ranks RANKS 2 4 COMMAND ${KRYLOV_DEEP} --mode ranks
                --precond jacobi)
cc_add_mpi_test(NAME krylov_deep_same_answer_ranks RANKS 1 2 THREADS 2 COMMAND ${KRYLOV_DEEP}
                --mode ranks --precond jacobi)
# pipecg at tol 1e-13 unpreconditioned drifts; --replace-every auto replaces and reaches tol
cc_add_mpi_test(NAME krylov_deep_guard_restores_accuracy RANKS 1 2 COMMAND ${KRYLOV_DEEP}
                --mode guard --precond none --nx 12 --ny 12 --nz 12)
cc_add_mpi_test(NAME krylov_deep_checkpoint_restart RANKS 1 2 COMMAND ${KRYLOV_DEEP}
                --mode restart)
cc_add_mpi_test(NAME krylov_deep_refuses_bad_input RANKS 1 COMMAND ${KRYLOV_DEEP} --mode refuse)
# cubecg's p(l)-CG against PETSc's KSPPIPELCG on the exported problem (cubecg's matrix, right-hand
# side and point-block Jacobi inverse, same L and bounds, natural-norm tolerance): the natural-norm
# histories agree to 1e-10 relative over their first 6 entries at L = 1, 2, 3, 5 (the same
# algorithm; rounding differences grow from there, fastest at the deepest pipeline) and the
# iterations are within 5 % at L = 1, 2, 3, 5 (cubecg's Ritz interval); at L = 3, 5, where a
# square-root breakdown, when one falls, is chaotic in rounding on both sides, also the mean
# iterations over 41 bounds 1e-7 apart are within 5 %
# (the counts cluster by restarts, and a median jumps between clusters: docs/deep-pipelines.md). Debian's petsc4py is visible to /usr/bin/python3 only; without it the
# script exits 77 and the test is skipped.
add_test(NAME plcg_petsc_iterations
         COMMAND /usr/bin/python3 ${PROJECT_SOURCE_DIR}/bench/plcg_petsc.py --cubecg
                 $<TARGET_FILE:cubecg> --nx 8 --ny 8 --nz 8 --depths 1,2,3,5 --count-depths 1,2,3,5
                 --pc exported --agree 6 --perturb 40 --median-depths 3,5 --statistic mean
                 --out ${CMAKE_CURRENT_BINARY_DIR}/plcg_petsc)
set_tests_properties(plcg_petsc_iterations PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120
                     ENVIRONMENT OMP_NUM_THREADS=1)
# p(l)-CG with its own Lanczos bounds within 1.1 x Alg.1's iterations at L = 1, 2, 3, 5
add_test(NAME plcg_estimate_iterations
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/solvers/plcg_estimate_iterations.sh
                 ${MPIEXEC_EXECUTABLE} $<TARGET_FILE:cubecg>
                 ${CMAKE_CURRENT_BINARY_DIR}/plcg_estimate_iterations)
set_tests_properties(plcg_estimate_iterations PROPERTIES PROCESSORS 2 TIMEOUT 300
                     ENVIRONMENT OMP_NUM_THREADS=1)
# the reductions each deep variant posts, exact at any load (bench/plcg_latency.py checks the
# blocking and posted counts of pipecg, p(l)-CG, s-step CG and pcg-AR; timings are only printed)
add_test(NAME plcg_latency_reduction_counts
         COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/bench/plcg_latency.py --cubecg
                 $<TARGET_FILE:cubecg> --nx 8 --ny 8 --nz 8 --k 1 --repeat 1 --depths 1,2,3,5
                 --steps 2,4,8 --out ${CMAKE_CURRENT_BINARY_DIR}/plcg_latency)
set_tests_properties(plcg_latency_reduction_counts PROPERTIES TIMEOUT 300
                     ENVIRONMENT OMP_NUM_THREADS=1)
