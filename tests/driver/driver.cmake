# Driver-level tests: the whole pipeline against the analytic solution, cross-checks between rank
# counts, thread counts and variants, MPI environment, and bad input.
find_package(Python3 COMPONENTS Interpreter)
set(CUBECG $<TARGET_FILE:cubecg>)
set(CHECK ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/common/check_report.py)
set(OUT ${CMAKE_CURRENT_BINARY_DIR}/out)
file(MAKE_DIRECTORY ${OUT})

# The discrete solution reproduces the linear uniaxial solution: built-in checks (analytic error
# < 1e-6, true residual <= 10 tol, symmetry of A and M^-1) make cubecg exit non-zero otherwise.
foreach(size "8;8;8" "9;5;7" "6;10;4" "12;7;5")
  list(GET size 0 nx)
  list(GET size 1 ny)
  list(GET size 2 nz)
  cc_add_mpi_test(NAME driver_analytic_${nx}x${ny}x${nz} RANKS 1 2 4
                  COMMAND ${CUBECG} --nx ${nx} --ny ${ny} --nz ${nz} --analytic-tol 1e-6 --quiet)
endforeach()
cc_add_mpi_test(NAME driver_analytic_metis RANKS 2 4
                COMMAND ${CUBECG} --nx 9 --ny 5 --nz 7 --partition metis --analytic-tol 1e-6 --quiet)
cc_add_mpi_test(NAME driver_analytic_threads RANKS 1 2 THREADS 2
                COMMAND ${CUBECG} --nx 9 --ny 5 --nz 7 --analytic-tol 1e-6 --quiet)

# Bad input: one clear line, exit code 2, no report written. name | arguments | stderr pattern
cc_add_cases(PREFIX driver_bad_ FIELDS name args pattern WORDS args
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/common/expect_error.sh "@pattern@" ${OUT}/bad_@name@.json --
          ${MPIEXEC_EXECUTABLE} -n 2 ${CUBECG} @args@ --report ${OUT}/bad_@name@.json
  PROPERTIES PROCESSORS 2 ENVIRONMENT OMP_NUM_THREADS=1
  CASES
    "nx_zero|--nx 0|--nx|nx"
    "nx_negative|--nx -3|-3"
    "nx_text|--nx abc|abc"
    "absurd|--nx 100000 --ny 100000 --nz 100000|GiB|bytes"
    "unknown_option|--frobnicate 3|frobnicate"
    "colors_1|--colors 1|colors"
    "colors_0|--colors 0|colors"
    "asdd_0|--asdd-iters 0|asdd-iters"
    "ordering|--ordering spiral|spiral"
    "pcg_iar|--solver pcg --reduction iar|pcg"
    "tol|--tol -1|tol"
    "box_mismatch|--px 3 --py 1 --pz 1|px|3"
    "pipeline_depth_9|--solver plcg --pipeline-depth 9|pipeline-depth 9"
    "pipeline_depth_0|--pipeline-depth 0|pipeline-depth 0"
    "sstep_11|--solver sstep --sstep 11|sstep 11"
    "sstep_0|--sstep 0|sstep 0"
    "spectrum_bounds_order|--spectrum-bounds 2,1|spectrum-bounds '2,1'"
    "spectrum_bounds_text|--spectrum-bounds abc|spectrum-bounds 'abc'"
    "sstep_basis|--sstep-basis power|power"
    "replace_every_text|--replace-every sometimes|sometimes")

# "Applies to": an option without effect in the chosen configuration is bad input (exit 2), the
# message naming what it needs and where the option came from; with --solver all it applies when
# it applies to one of the variants. name | arguments | stderr pattern
cc_add_cases(PREFIX driver_applies_ FIELDS name args pattern WORDS args
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/common/expect_error.sh "@pattern@" ${OUT}/applies_@name@.json --
          ${MPIEXEC_EXECUTABLE} -n 2 ${CUBECG} --nx 6 --ny 6 --nz 6 @args@
          --report ${OUT}/applies_@name@.json
  PROPERTIES PROCESSORS 2 ENVIRONMENT OMP_NUM_THREADS=1 EXPECT_EXIT=2
  CASES
    "sstep_pcg|--sstep 5|--sstep 5 applies to --solver sstep .got pcg. .command line."
    "depth_pcg|--pipeline-depth 3|--pipeline-depth 3 applies to --solver plcg .got pcg."
    "basis_plcg|--solver plcg --sstep-basis newton|--sstep-basis newton applies to --solver sstep .got plcg."
    "bounds_pcg|--spectrum-bounds 0.1,2|--spectrum-bounds 0.1,2 applies to --solver plcg.sstep .got pcg."
    "replace_sstep|--solver sstep --replace-every 5|--replace-every 5 applies to --solver pcg.cgcg.pipecg.gropp .got sstep."
    "exact_no_ckpt|--solver plcg --checkpoint-exact|--checkpoint-exact has no effect without --checkpoint BACKEND"
    "exact_pcg|--checkpoint posix --checkpoint-exact|--checkpoint-exact 1 applies to --solver plcg.sstep .got pcg."
    "io_buffer|--io-buffer 1M|--io-buffer has no effect without --checkpoint BACKEND or --restart DIR"
    "io_writeback|--io-writeback 1M|--io-writeback has no effect without --checkpoint BACKEND"
    "io_fallback|--io-fallback|--io-fallback has no effect without --checkpoint BACKEND or --restart DIR"
    "precision_reference|--precision-reference|--precision-reference has no effect without --precond-precision single.half"
    "asdd_residual_sgs|--precond sgs --asdd-residual full|--asdd-residual has no effect without --precond asdd"
    "colors_natural|--ordering natural --colors 4|--colors has no effect without --ordering mc.cm-rcm"
    "asdd_iters_sgs|--precond sgs --asdd-iters 3|--asdd-iters has no effect without --precond asdd"
    "chunk_rows_mc|--ordering mc --sweep-chunk-rows 512|--sweep-chunk-rows has no effect without --ordering cm-rcm with --level-order on"
    "replace_negative|--replace-every -1|--replace-every '-1': must be >= 0 .0 = off. or auto")
add_test(NAME driver_applies_solver_all
         COMMAND ${MPIEXEC_EXECUTABLE} -n 2 ${CUBECG} --nx 6 --ny 6 --nz 6 --solver all --sstep 3
                 --pipeline-depth 3 --replace-every 7 --quiet --report ${OUT}/applies_all.json)
set_tests_properties(driver_applies_solver_all PROPERTIES PROCESSORS 2
                     ENVIRONMENT OMP_NUM_THREADS=1 FIXTURES_SETUP applies_all)
add_test(NAME driver_applies_solver_all_report
         COMMAND ${CHECK} expect ${OUT}/applies_all.json "r['checks']['passed']"
                 "[s['sstep'] for s in r['solves'] if s['solver'] == 'sstep'] == [3]"
                 "[s['pipeline_depth'] for s in r['solves'] if s['solver'] == 'plcg'] == [3]")
set_tests_properties(driver_applies_solver_all_report PROPERTIES FIXTURES_REQUIRED applies_all)
# --precision-reference's double solve is built from the same settings as the solve: with
# --sstep 8 it is the S = 8 solve a double run of its own does (48 iterations here; S = 4 takes
# 44), and its time is reported beside its iterations.
foreach(case "single|--precond-precision single --precision-reference" "double|")
  string(REPLACE "|" ";" parts "${case}")
  list(GET parts 0 tag)
  list(LENGTH parts n)
  set(extra "")
  if(n GREATER 1)
    list(GET parts 1 extra)
    separate_arguments(extra)
  endif()
  add_test(NAME driver_reference_sstep8_${tag}
           COMMAND ${MPIEXEC_EXECUTABLE} -n 2 ${CUBECG} --nx 12 --ny 12 --nz 12 --solver sstep
                   --reduction iar --sstep 8 ${extra} --quiet
                   --report ${OUT}/reference_sstep8_${tag}.json)
  set_tests_properties(driver_reference_sstep8_${tag} PROPERTIES PROCESSORS 2
                       ENVIRONMENT OMP_NUM_THREADS=1 FIXTURES_SETUP reference_sstep8)
endforeach()
add_test(NAME driver_reference_sstep8_same
         COMMAND ${Python3_EXECUTABLE} -c
                 "import json,sys; a=json.load(open(sys.argv[1]))['solves'][0]; b=json.load(open(sys.argv[2]))['solves'][0]; p=a['precision_reference']; print(p, b['iterations']); assert p['iterations_double'] == b['iterations'] and p['time_double_s'] > 0 and a['sstep'] == b['sstep'] == 8"
                 ${OUT}/reference_sstep8_single.json ${OUT}/reference_sstep8_double.json)
set_tests_properties(driver_reference_sstep8_same PROPERTIES FIXTURES_REQUIRED reference_sstep8)
# The sources of the options and of the environment: a fifo as --options-file is refused at once,
# an --options-file named by CUBECG_OPTIONS is named so, an option without effect from a file names
# FILE:LINE; an empty OMP_NUM_THREADS is unset; a malformed CUBECG_SIGNAL_CHECK_EVERY or
# CUBECG_IO_INJECT is refused naming the variable.
add_test(NAME driver_options_sources
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/driver/options_sources.sh ${MPIEXEC_EXECUTABLE}
                 ${CUBECG} ${OUT}/options_sources)
set_tests_properties(driver_options_sources PROPERTIES PROCESSORS 2 TIMEOUT 300)

# Every variant x reduction in one run, at 2 ranks; the report says what ran.
add_test(NAME driver_all_variants_np2
         COMMAND ${MPIEXEC_EXECUTABLE} -n 2 ${CUBECG} --nx 10 --ny 8 --nz 9 --solver all
                 --reduction all --report ${OUT}/all_np2.json --quiet)
set_tests_properties(driver_all_variants_np2 PROPERTIES PROCESSORS 2 ENVIRONMENT OMP_NUM_THREADS=1
                     FIXTURES_SETUP all_np2)
add_test(NAME driver_all_variants_report
         COMMAND ${CHECK} expect ${OUT}/all_np2.json
                 "r['cubecg_report_version'] == 2 and r['kind'] == 'run'"
                 "len(r['solves']) == sum(len(v['reductions']) for v in r['available']['variants'])"
                 "all(s['converged'] for s in r['solves'])"
                 "all(s['true_rel_residual'] <= 10 * r['parameters']['tol'] for s in r['solves'])"
                 "r['checks']['passed']"
                 "r['problem']['dof'] == 3 * 10 * 8 * 9 and r['problem']['ranks'] == 2"
                 "r['mpi']['thread_level_provided'] in ('MPI_THREAD_FUNNELED', 'MPI_THREAD_MULTIPLE')")
set_tests_properties(driver_all_variants_report PROPERTIES FIXTURES_REQUIRED all_np2)

# Iteration counts do not depend on the thread count for a fixed ordering.
foreach(t 1 2)
  add_test(NAME driver_threads_t${t}
           COMMAND ${MPIEXEC_EXECUTABLE} -n 1 ${CUBECG} --nx 10 --ny 9 --nz 8 --solver all
                   --reduction all --report ${OUT}/threads_t${t}.json --quiet)
  set_tests_properties(driver_threads_t${t} PROPERTIES PROCESSORS ${t}
                       ENVIRONMENT OMP_NUM_THREADS=${t} FIXTURES_SETUP threads)
endforeach()
add_test(NAME driver_threads_same_iterations
         COMMAND ${CHECK} same-iterations ${OUT}/threads_t1.json ${OUT}/threads_t2.json)
set_tests_properties(driver_threads_same_iterations PROPERTIES FIXTURES_REQUIRED threads)

# MPICH's asynchronous progress thread: MULTIPLE provided, thread reported active, same answer.
foreach(mode plain async)
  set(env OMP_NUM_THREADS=1)
  if(mode STREQUAL "async")
    list(APPEND env MPIR_CVAR_ASYNC_PROGRESS=1)
  endif()
  add_test(NAME driver_progress_${mode}
           COMMAND ${MPIEXEC_EXECUTABLE} -n 2 ${CUBECG} --nx 8 --ny 8 --nz 8 --solver all
                   --reduction all --report ${OUT}/progress_${mode}.json --quiet)
  set_tests_properties(driver_progress_${mode} PROPERTIES PROCESSORS 2 ENVIRONMENT "${env}"
                       FIXTURES_SETUP progress)
endforeach()
add_test(NAME driver_progress_async_report
         COMMAND ${CHECK} expect ${OUT}/progress_async.json
                 "r['mpi']['thread_level_provided'] == 'MPI_THREAD_MULTIPLE'"
                 "r['mpi']['async_progress_requested'] and r['mpi']['async_progress_active']"
                 "r['checks']['passed']")
add_test(NAME driver_progress_same_iterations
         COMMAND ${CHECK} same-iterations ${OUT}/progress_plain.json ${OUT}/progress_async.json)
set_tests_properties(driver_progress_async_report driver_progress_same_iterations
                     PROPERTIES FIXTURES_REQUIRED progress)

# ASDD with 1 and 2 iterations converges to the analytic solution on 1, 2, 4 ranks x 1, 2 threads,
# for every ordering (the permutation round-trips: the solution comes back in the original numbering).
foreach(iters 1 2)
  foreach(threads 1 2)
    cc_add_mpi_test(NAME driver_asdd${iters} RANKS 1 2 4 THREADS ${threads}
                    COMMAND ${CUBECG} --nx 9 --ny 8 --nz 7 --asdd-iters ${iters} --analytic-tol 1e-6 --quiet)
  endforeach()
endforeach()
foreach(ordering natural rcm mc cm-rcm)
  set(colors "") # --colors applies to the multicolor orderings only (refused with the others)
  if(ordering STREQUAL "mc" OR ordering STREQUAL "cm-rcm")
    set(colors --colors 3)
  endif()
  cc_add_mpi_test(NAME driver_ordering_${ordering} RANKS 1 2
                  COMMAND ${CUBECG} --nx 9 --ny 8 --nz 7 --ordering ${ordering} ${colors}
                          --solver all --reduction all --analytic-tol 1e-6 --quiet)
endforeach()
foreach(precond sgs jacobi none)
  cc_add_mpi_test(NAME driver_precond_${precond} RANKS 2
                  COMMAND ${CUBECG} --nx 9 --ny 8 --nz 7 --precond ${precond} --analytic-tol 1e-6 --quiet)
endforeach()

# Checkpoint + restart through the driver: a restarted pcg reaches the uninterrupted iteration count
# within 1 for every backend; hdf5 (global order) restarts on another rank count; per-rank files do
# not; every variant restarts and converges.
foreach(backend posix uring offload hdf5)
  set(dir ${OUT}/ckpt_${backend})
  add_test(NAME driver_ckpt_${backend}_write
           COMMAND ${CMAKE_COMMAND} -E env OMP_NUM_THREADS=1 ${MPIEXEC_EXECUTABLE} -n 2 ${CUBECG}
                   --nx 10 --ny 9 --nz 8 --checkpoint ${backend} --checkpoint-dir ${dir}
                   --checkpoint-every 10 --io-fallback --report ${OUT}/ckpt_${backend}_full.json --quiet
                   --checkpoint-overwrite)
  set_tests_properties(driver_ckpt_${backend}_write PROPERTIES PROCESSORS 2 FIXTURES_SETUP ckpt_${backend})
  add_test(NAME driver_ckpt_${backend}_restart
           COMMAND ${MPIEXEC_EXECUTABLE} -n 2 ${CUBECG} --nx 10 --ny 9 --nz 8 --restart ${dir}
                   --report ${OUT}/ckpt_${backend}_restart.json --quiet)
  add_test(NAME driver_ckpt_${backend}_same_iterations
           COMMAND ${CHECK} same-iterations ${OUT}/ckpt_${backend}_full.json
                   ${OUT}/ckpt_${backend}_restart.json --within 1)
  add_test(NAME driver_ckpt_${backend}_report
           COMMAND ${CHECK} expect ${OUT}/ckpt_${backend}_full.json
                   "r['solves'][0]['checkpoint']['count'] >= 2"
                   "r['solves'][0]['checkpoint']['bytes'] > 0"
                   "r['solves'][0]['checkpoint']['path_used'] != ''")
  add_test(NAME driver_ckpt_${backend}_restarted_from
           COMMAND ${CHECK} expect ${OUT}/ckpt_${backend}_restart.json
                   "r['solves'][0]['start_iteration'] > 0" "r['checks']['passed']")
  set_tests_properties(driver_ckpt_${backend}_restart PROPERTIES PROCESSORS 2 ENVIRONMENT
                       OMP_NUM_THREADS=1 FIXTURES_REQUIRED ckpt_${backend}
                       FIXTURES_SETUP ckpt_${backend}_restarted)
  set_tests_properties(driver_ckpt_${backend}_same_iterations driver_ckpt_${backend}_restarted_from
                       PROPERTIES FIXTURES_REQUIRED "ckpt_${backend};ckpt_${backend}_restarted")
  set_tests_properties(driver_ckpt_${backend}_report PROPERTIES FIXTURES_REQUIRED ckpt_${backend})
endforeach()
foreach(np 1 4)
  add_test(NAME driver_ckpt_hdf5_restart_np${np}
           COMMAND ${MPIEXEC_EXECUTABLE} -n ${np} ${CUBECG} --nx 10 --ny 9 --nz 8 --restart
                   ${OUT}/ckpt_hdf5 --report ${OUT}/ckpt_hdf5_restart_np${np}.json --quiet)
  set_tests_properties(driver_ckpt_hdf5_restart_np${np} PROPERTIES PROCESSORS ${np}
                       ENVIRONMENT OMP_NUM_THREADS=1 FIXTURES_REQUIRED ckpt_hdf5)
endforeach()
add_test(NAME driver_ckpt_posix_other_ranks_refused
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/common/expect_error.sh "ranks" ${OUT}/ckpt_refused.json --
                 ${MPIEXEC_EXECUTABLE} -n 1 ${CUBECG} --nx 10 --ny 9 --nz 8 --restart
                 ${OUT}/ckpt_posix --report ${OUT}/ckpt_refused.json)
set_tests_properties(driver_ckpt_posix_other_ranks_refused PROPERTIES FIXTURES_REQUIRED ckpt_posix)
foreach(solver cgcg pipecg gropp)
  add_test(NAME driver_ckpt_${solver}
           COMMAND ${CMAKE_COMMAND} -E env OMP_NUM_THREADS=1 ${MPIEXEC_EXECUTABLE} -n 2 ${CUBECG}
                   --nx 10 --ny 9 --nz 8 --solver ${solver} --reduction iar --checkpoint posix
                   --checkpoint-dir ${OUT}/ckpt_${solver} --checkpoint-every 10 --quiet
                   --checkpoint-overwrite)
  add_test(NAME driver_ckpt_${solver}_restart
           COMMAND ${MPIEXEC_EXECUTABLE} -n 2 ${CUBECG} --nx 10 --ny 9 --nz 8 --solver ${solver}
                   --reduction iar --restart ${OUT}/ckpt_${solver} --analytic-tol 1e-6 --quiet)
  set_tests_properties(driver_ckpt_${solver} PROPERTIES PROCESSORS 2 FIXTURES_SETUP ckpt_${solver})
  set_tests_properties(driver_ckpt_${solver}_restart PROPERTIES PROCESSORS 2
                       ENVIRONMENT OMP_NUM_THREADS=1 FIXTURES_REQUIRED ckpt_${solver})
endforeach()

# The run's settings (--help's [setting] options), each one: written into a checkpoint, taken by
# --restart DIR alone, refused (exit 2, both values named) when given differently.
add_test(NAME driver_settings_restart
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/driver/settings_restart.sh ${MPIEXEC_EXECUTABLE}
                 ${CUBECG} ${Python3_EXECUTABLE} ${OUT}/settings_restart)
set_tests_properties(driver_settings_restart PROPERTIES PROCESSORS 2 TIMEOUT 1800)

# Partial results: a real signal (SIGTERM to mpiexec, forwarded by Hydra; SIGUSR1 to one rank only,
# so the ranks must agree) stops the solve after an iteration: exit 4, report "interrupted", a last
# checkpoint that a restart resumes from. The iteration monitor prints |r|/|b|, ms/it, time left.
add_test(NAME driver_signal_term
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/driver/signal_stop.sh ${MPIEXEC_EXECUTABLE} ${CUBECG}
                 ${Python3_EXECUTABLE} ${OUT}/signal_term TERM mpiexec 10)
add_test(NAME driver_signal_usr1_one_rank
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/driver/signal_stop.sh ${MPIEXEC_EXECUTABLE} ${CUBECG}
                 ${Python3_EXECUTABLE} ${OUT}/signal_usr1 USR1 one-rank 0)
set_tests_properties(driver_signal_term driver_signal_usr1_one_rank PROPERTIES PROCESSORS 2
                     TIMEOUT 300)
# 20 short runs each, every one stopped by SIGTERM (signal_repeat.sh): to mpiexec (Hydra forwards
# it), to every rank twice 0.2 s apart (a repeat within CC_SIGNAL_REPEAT_WINDOW_S is one request),
# to every rank 0.3 s after they start (the handler comes before MPI_Init and the lock); each must
# leave the INTERRUPTED line, a report marked interrupted and no lock. The same under srun
# (signal_srun.sh): scancel --signal=TERM of the step and SIGTERM to the ranks, on a one-node Slurm
# the test starts and stops itself; skipped (77) with a loud line when slurm-wlm or munge is missing.
foreach(target launcher ranks early)
  add_test(NAME driver_signal_repeat_${target}
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/driver/signal_repeat.sh ${MPIEXEC_EXECUTABLE}
                   ${CUBECG} ${Python3_EXECUTABLE} ${OUT}/signal_repeat_${target} ${target} 20)
endforeach()
foreach(target scancel ranks)
  add_test(NAME driver_signal_repeat_srun_${target}
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/driver/signal_srun.sh ${CUBECG} ${Python3_EXECUTABLE}
                   ${OUT}/signal_repeat_srun_${target} ${target} 20)
  set_tests_properties(driver_signal_repeat_srun_${target} PROPERTIES SKIP_RETURN_CODE 77)
endforeach()
set_tests_properties(driver_signal_repeat_launcher driver_signal_repeat_ranks
                     driver_signal_repeat_early driver_signal_repeat_srun_scancel
                     driver_signal_repeat_srun_ranks PROPERTIES PROCESSORS 2 TIMEOUT 1500
                     LABELS sanitize-skip)
add_test(NAME driver_monitor_lines
         COMMAND ${MPIEXEC_EXECUTABLE} -n 2 ${CUBECG} --nx 12 --ny 12 --nz 12 --monitor 5)
set_tests_properties(driver_monitor_lines PROPERTIES PROCESSORS 2 ENVIRONMENT OMP_NUM_THREADS=1
  PASS_REGULAR_EXPRESSION "mesh \\+ partition.*ordering.*assembly.*setup.*solve 1/1: pcg-ar.*pcg-ar +5  \\|r\\|/\\|b\\| [0-9.e+-]+ +[0-9.]+ ms/it  left \\?.*pcg-ar +10  \\|r\\|/\\|b\\| [0-9.e+-]+ +[0-9.]+ ms/it  left [0-9.]+ s.*verification: PASSED")
add_test(NAME driver_monitor_quiet
         COMMAND ${MPIEXEC_EXECUTABLE} -n 2 ${CUBECG} --nx 12 --ny 12 --nz 12 --quiet)
set_tests_properties(driver_monitor_quiet PROPERTIES PROCESSORS 2 ENVIRONMENT OMP_NUM_THREADS=1
                     FAIL_REGULAR_EXPRESSION "ms/it|mesh \\+ partition|solve 1/1")

# The solution export opens in the viewers: meshio (XDMF Hexahedron grid, HDF5 attributes via h5py)
# and VTK's vtkXdmfReader (ParaView's XDMF reader); skipped with a message when the Python package
# is absent (tests/driver/ensure-viewers.sh installs them).
add_test(NAME driver_export_solution
         COMMAND ${MPIEXEC_EXECUTABLE} -n 2 ${CUBECG} --nx 7 --ny 6 --nz 5 --E 2 --nu 0.25
                 --traction 3 --export-solution ${OUT}/export_sol --export-deformed --quiet)
set_tests_properties(driver_export_solution PROPERTIES PROCESSORS 2 ENVIRONMENT OMP_NUM_THREADS=1
                     FIXTURES_SETUP export_solution)
foreach(viewer meshio vtk)
  add_test(NAME export_viewer_${viewer}
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/driver/check_export_viewers.py ${viewer}
                   ${OUT}/export_sol 7 6 5 2 0.25 3)
  set_tests_properties(export_viewer_${viewer} PROPERTIES FIXTURES_REQUIRED export_solution
                       SKIP_RETURN_CODE 77)
endforeach()

# The report is rewritten after each solve: SIGKILL during the second solve leaves the first.
add_test(NAME driver_partial_report_sigkill
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/driver/report_kept_after_sigkill.sh ${MPIEXEC_EXECUTABLE} ${CUBECG}
                 ${Python3_EXECUTABLE} ${OUT}/partial_report)
set_tests_properties(driver_partial_report_sigkill PROPERTIES PROCESSORS 2 TIMEOUT 300)
# Physical units: the analytic solution at E = 1, 2.1e11 (steel in Pa, traction 1e6)
# and 1e-3 with nu = 0 and 0.49, every variant; the eliminated Dirichlet rows keep their own
# diagonal, so the iteration counts at fixed nu do not depend on E (compared between reports).
foreach(nu 0 0.49)
  foreach(case "E1|1|1" "Esteel|2.1e11|1e6" "Esmall|1e-3|1")
    string(REPLACE "|" ";" parts "${case}")
    list(GET parts 0 tag)
    list(GET parts 1 E)
    list(GET parts 2 traction)
    set(name driver_units_${tag}_nu${nu})
    add_test(NAME ${name}
             COMMAND ${MPIEXEC_EXECUTABLE} -n 2 ${CUBECG} --nx 8 --ny 7 --nz 9 --E ${E} --nu ${nu}
                     --traction ${traction} --solver all --reduction all --analytic-tol 1e-6
                     --report ${OUT}/units_${tag}_nu${nu}.json --quiet)
    set_tests_properties(${name} PROPERTIES PROCESSORS 2 ENVIRONMENT OMP_NUM_THREADS=1
                         FIXTURES_SETUP units_nu${nu})
  endforeach()
  foreach(tag Esteel Esmall)
    add_test(NAME driver_units_${tag}_nu${nu}_same_iterations
             COMMAND ${CHECK} same-iterations ${OUT}/units_E1_nu${nu}.json
                     ${OUT}/units_${tag}_nu${nu}.json)
    set_tests_properties(driver_units_${tag}_nu${nu}_same_iterations PROPERTIES
                         FIXTURES_REQUIRED units_nu${nu})
  endforeach()
endforeach()

# Failures that fail. A zero or underflowing load is bad input: exit 2, one line naming
# the traction, before any allocation. A NaN / Inf in the iteration (test seam
# CUBECG_KRYLOV_INJECT poisons r on rank 0) is a numerical error: exit 1, the message on stderr
# saying NaN or overflow, no report -- for every variant. s-step CG ends its iterations S at a
# time: the seam fires at the first block end past 5. p(l)-CG has no r: its newest basis vector is
# poisoned, and the NaN / Inf reaches the Gram factor (Inf - Inf: NaN), which no restart mends.
cc_add_cases(PREFIX driver_bad_traction_ FIELDS tag value pattern
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/common/expect_error.sh "@pattern@"
          ${OUT}/bad_traction_@tag@.json -- ${MPIEXEC_EXECUTABLE} -n 2 ${CUBECG}
          --traction @value@ --report ${OUT}/bad_traction_@tag@.json
  PROPERTIES PROCESSORS 2 ENVIRONMENT OMP_NUM_THREADS=1 EXPECT_EXIT=2
  CASES "zero|0|--traction 0" "tiny|1e-160|--traction 1e-160.*underflows"
        "tinier|1e-300|--traction 1e-300.*underflows" "huge|1e160|--traction 1e\\+160.*overflows")
foreach(solver pcg cgcg pipecg gropp plcg sstep)
  set(red iar)
  if(solver STREQUAL "pcg")
    set(red ar)
  endif()
  foreach(inject "nan|NaN" "inf|overflow")
    string(REPLACE "|" ";" parts "${inject}")
    list(GET parts 0 kind)
    list(GET parts 1 word)
    if(solver STREQUAL "plcg")
      set(word "Gram factor. = -?nan is NaN")
    endif()
    add_test(NAME driver_breakdown_${solver}_${kind}
             COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/common/expect_error.sh "numerical error: ${solver}.*${word}"
                     ${OUT}/breakdown_${solver}_${kind}.json -- ${MPIEXEC_EXECUTABLE} -n 2 ${CUBECG}
                     --nx 8 --ny 7 --nz 6 --solver ${solver} --reduction ${red}
                     --report ${OUT}/breakdown_${solver}_${kind}.json)
    set_tests_properties(driver_breakdown_${solver}_${kind} PROPERTIES PROCESSORS 2 ENVIRONMENT
                         "OMP_NUM_THREADS=1;EXPECT_EXIT=1;CUBECG_KRYLOV_INJECT=${kind}@5")
  endforeach()
endforeach()
# A malformed CUBECG_KRYLOV_INJECT is bad input: exit 2 and one line naming the value (the driver
# reads the test seams with the options, before any allocation, so no rank aborts the job).
cc_add_cases(PREFIX driver_breakdown_bad_inject_ FIELDS tag value
  COMMAND ${CMAKE_COMMAND} -E env "CUBECG_KRYLOV_INJECT=@value@" OMP_NUM_THREADS=1
          ${CMAKE_CURRENT_SOURCE_DIR}/common/expect_exit.sh 2
          "CUBECG_KRYLOV_INJECT='@value@': expected nan@N or inf@N with N >= 1"
          -- ${MPIEXEC_EXECUTABLE} -n 2 ${CUBECG} --nx 6 --ny 5 --nz 4
  PROPERTIES PROCESSORS 2
  CASES "zero|nan@0" "kind|nul@5" "solver|nan@5:" "text|bogus")

# An hdf5 checkpoint of pipecg / gropp written at 2 ranks restarts on 1, 3 and 4 ranks
# (another partition, so ASDD's M^-1 differs: the solver restarts its recurrences from x, reported
# as restart_rebuilt) and converges to the analytic solution; on the same 2 ranks it stays exact:
# the same iteration count and the same final residuals and error as the uninterrupted run.
foreach(solver pipecg gropp)
  set(dir ${OUT}/ckpt_ranks_${solver})
  set(args --nx 16 --ny 16 --nz 16 --solver ${solver} --reduction iar --maxit 400
           --analytic-tol 1e-6 --quiet)
  add_test(NAME driver_ckpt_ranks_${solver}_clean COMMAND ${CMAKE_COMMAND} -E rm -rf ${dir})
  set_tests_properties(driver_ckpt_ranks_${solver}_clean PROPERTIES
                       FIXTURES_SETUP ckpt_ranks_${solver}_clean)
  add_test(NAME driver_ckpt_ranks_${solver}_write
           COMMAND ${MPIEXEC_EXECUTABLE} -n 2 ${CUBECG} ${args} --checkpoint hdf5 --checkpoint-dir
                   ${dir} --checkpoint-every 20 --checkpoint-keep 10
                   --report ${OUT}/ckpt_ranks_${solver}_full.json)
  set_tests_properties(driver_ckpt_ranks_${solver}_write PROPERTIES PROCESSORS 2
                       ENVIRONMENT OMP_NUM_THREADS=1 FIXTURES_SETUP ckpt_ranks_${solver}
                       FIXTURES_REQUIRED ckpt_ranks_${solver}_clean)
  foreach(np 1 2 3 4)
    set(name driver_ckpt_ranks_${solver}_restart_np${np})
    set(report ${OUT}/ckpt_ranks_${solver}_np${np}.json)
    add_test(NAME ${name} COMMAND ${MPIEXEC_EXECUTABLE} -n ${np} ${CUBECG} ${args} --restart
                                  ${dir}/ckpt.20 --report ${report})
    set_tests_properties(${name} PROPERTIES PROCESSORS ${np} ENVIRONMENT OMP_NUM_THREADS=1
                         FIXTURES_REQUIRED ckpt_ranks_${solver}
                         FIXTURES_SETUP ckpt_ranks_${solver}_np${np})
    if(np EQUAL 2)
      set(rebuilt False)
    else()
      set(rebuilt True)
    endif()
    add_test(NAME ${name}_report
             COMMAND ${CHECK} expect ${report} "r['solves'][0]['start_iteration'] == 20"
                     "r['solves'][0]['restart_rebuilt'] == ${rebuilt}"
                     "r['solves'][0]['converged']" "r['checks']['passed']"
                     "r['solves'][0]['analytic_max_rel_error'] < 1e-6")
    set_tests_properties(${name}_report PROPERTIES FIXTURES_REQUIRED ckpt_ranks_${solver}_np${np})
  endforeach()
  add_test(NAME driver_ckpt_ranks_${solver}_np2_exact
           COMMAND ${CHECK} same-values ${OUT}/ckpt_ranks_${solver}_full.json
                   ${OUT}/ckpt_ranks_${solver}_np2.json iterations converged rel_residual
                   true_rel_residual analytic_max_rel_error)
  set_tests_properties(driver_ckpt_ranks_${solver}_np2_exact PROPERTIES FIXTURES_REQUIRED
                       "ckpt_ranks_${solver};ckpt_ranks_${solver}_np2")
endforeach()
# the same 2 ranks on another box partition (1x1x2 instead of 2x1x1): not the same operator either
add_test(NAME driver_ckpt_ranks_pipecg_other_box
         COMMAND ${MPIEXEC_EXECUTABLE} -n 2 ${CUBECG} --nx 16 --ny 16 --nz 16 --solver pipecg
                 --reduction iar --px 1 --py 1 --pz 2 --analytic-tol 1e-6 --quiet --restart
                 ${OUT}/ckpt_ranks_pipecg/ckpt.20 --report ${OUT}/ckpt_ranks_pipecg_other_box.json)
set_tests_properties(driver_ckpt_ranks_pipecg_other_box PROPERTIES PROCESSORS 2
                     ENVIRONMENT OMP_NUM_THREADS=1 FIXTURES_REQUIRED ckpt_ranks_pipecg
                     FIXTURES_SETUP ckpt_ranks_pipecg_other_box)
add_test(NAME driver_ckpt_ranks_pipecg_other_box_report
         COMMAND ${CHECK} expect ${OUT}/ckpt_ranks_pipecg_other_box.json
                 "r['solves'][0]['restart_rebuilt']" "r['checks']['passed']")
set_tests_properties(driver_ckpt_ranks_pipecg_other_box_report PROPERTIES
                     FIXTURES_REQUIRED ckpt_ranks_pipecg_other_box)

# Registries: every registry name parses, --help and the report's "available" list them;
# a check list past CC_MAX_CHECKS reads FAILED. Linked with the driver's sources (not main.c).
file(GLOB CC_DRIVER_LIB_SOURCES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/*.c)
list(FILTER CC_DRIVER_LIB_SOURCES EXCLUDE REGEX "/main\\.c$")
cc_add_unit(test_driver_registry driver/test_driver_registry.c ${CC_DRIVER_LIB_SOURCES})
target_include_directories(test_driver_registry PRIVATE ${PROJECT_SOURCE_DIR}/src)
if(CUBECG_HAVE_FORTRAN)
  target_compile_definitions(test_driver_registry PRIVATE CUBECG_HAVE_FORTRAN)
endif()
file(MAKE_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/registry)
cc_add_mpi_test(NAME driver_registry RANKS 1
                COMMAND $<TARGET_FILE:test_driver_registry> ${CMAKE_CURRENT_BINARY_DIR}/registry)

# --fused 1|0: the fused vector passes and the one-pass-per-operation reference give
# the same residual histories (--residual-history) and iterations, every variant x reduction with
# residual replacement; the reports carry the measured and the registry's vector traffic.
foreach(np 1 2 4)
  foreach(f 0 1)
    cc_add_mpi_test(NAME driver_fused${f} RANKS ${np}
                    COMMAND ${CUBECG} --nx 8 --ny 7 --nz 6 --solver all --reduction all
                            --replace-every 5 --fused ${f} --residual-history
                            --report ${OUT}/fused${f}_np${np}.json --quiet)
    set_tests_properties(driver_fused${f}_np${np} PROPERTIES FIXTURES_SETUP fused_np${np})
  endforeach()
  add_test(NAME driver_fused_same_history_np${np}
           COMMAND ${CHECK} same-history ${OUT}/fused1_np${np}.json ${OUT}/fused0_np${np}.json
                   --rtol 1e-12)
  add_test(NAME driver_fused_report_np${np}
           COMMAND ${CHECK} expect ${OUT}/fused1_np${np}.json
                   "all(s['fused'] for s in r['solves']) and r['parameters']['fused'] == 1"
                   "all(s['ops_per_iteration']['dot'] == 3 for s in r['solves'] if s['solver'] not in ('plcg', 'sstep'))"
                   "all(s['vector_traffic']['reads'] >= v['vector_traffic']['fused']['reads'] for s in r['solves'] for v in r['available']['variants'] if v['name'] == s['solver'])"
                   "all(v['vector_traffic']['fused']['reads'] + v['vector_traffic']['fused']['writes'] < v['vector_traffic']['unfused']['reads'] + v['vector_traffic']['unfused']['writes'] for v in r['available']['variants'] if v['name'] not in ('plcg', 'sstep'))")
  set_tests_properties(driver_fused_same_history_np${np} driver_fused_report_np${np}
                       PROPERTIES FIXTURES_REQUIRED fused_np${np})
endforeach()

# --report R.json also saves the printed summary as R.summary.txt (same text as stdout, named in
# the report and on stdout; --quiet still saves it; none for --report -; a directory in its way is
# bad input).
add_test(NAME driver_summary_file
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/driver/test_summary_file.sh ${MPIEXEC_EXECUTABLE}
                 $<TARGET_FILE:cubecg> ${Python3_EXECUTABLE}
                 ${CMAKE_CURRENT_BINARY_DIR}/out/summary_file)
set_tests_properties(driver_summary_file PROPERTIES PROCESSORS 2 TIMEOUT 300 LABELS docs)
