# The reductions' overlap (src/overlap_probe.c, src/overlap_startup.c, bench/overlap_bench.c):
# IMB-NBC's formula and the measurement against an injected latency where the answer is known
# (unit), the start-up probe of a cubecg run (longer and shorter work than the latency, off, not
# run) and cubecg-bench --overlap's rows, at 2 ranks on tiny meshes.
find_package(Python3 COMPONENTS Interpreter)
cc_add_unit(test_overlap_probe driver/test_overlap_probe.c ${PROJECT_SOURCE_DIR}/src/overlap_probe.c)
target_include_directories(test_overlap_probe PRIVATE ${PROJECT_SOURCE_DIR}/src)
cc_add_mpi_test(NAME overlap_probe_formula RANKS 2 COMMAND $<TARGET_FILE:test_overlap_probe>)

# the registry's reduction sizes against what each variant's solve posts (MPI_Iallreduce and
# MPI_Allreduce counted through the profiling interface)
cc_add_unit(test_reduction_sizes driver/test_reduction_sizes.c)
cc_add_mpi_test(NAME overlap_reduction_sizes RANKS 2 COMMAND $<TARGET_FILE:test_reduction_sizes>)

set(OVERLAP_OUT ${CMAKE_CURRENT_BINARY_DIR}/out/overlap)
file(MAKE_DIRECTORY ${OVERLAP_OUT})
set(OVERLAP_CHECK ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/driver/check_overlap_probe.py)
set(OVERLAP_IAR --solver pipecg --reduction iar)
# One checked launch: check_overlap_probe.py MODE on the report of PROGRAM ARGN at np ranks (the
# sizes the probe must have measured), with the environment env.
function(cc_overlap_check name np env mode sizes program)
  set(report ${OVERLAP_OUT}/${name}.json)
  add_test(NAME ${name}
           COMMAND ${OVERLAP_CHECK} ${mode} ${report} --sizes ${sizes} -- ${MPIEXEC_EXECUTABLE} -n
                   ${np} $<TARGET_FILE:${program}> ${ARGN} --report ${report})
  set_tests_properties(${name} PROPERTIES PROCESSORS ${np} TIMEOUT 300 ENVIRONMENT "${env}"
                       LABELS overlap)
endfunction()
# name|ranks|mesh edge|extra options; 40^3's SpMV takes several times 1 ms (about 5 ms on 2 ranks
# of a Xeon), 4^3's well under 1 s (on a loaded machine a halo exchange waits tens of ms for a
# descheduled partner). The latency of "longer" is 1 ms, not tens of us: MPI_Wait's own few us on
# a completed request must stay within the checker's 2 % slack of the latency
set(OVERLAP_RUNS "longer|2|40|--inject-reduction-latency|1000"
                 "shorter|2|4|--inject-reduction-latency|1000000"
                 "off|2|6|--overlap-probe|off"
                 "not-run|1|6|--inject-reduction-latency|0"
                 "not-run|2|6|--reduction|ar")
set(overlap_index 0)
foreach(run ${OVERLAP_RUNS})
  string(REPLACE "|" ";" parts "${run}")
  list(GET parts 0 mode)
  list(GET parts 1 np)
  list(GET parts 2 edge)
  list(SUBLIST parts 3 -1 extra)
  math(EXPR overlap_index "${overlap_index} + 1")
  set(name driver_overlap_probe_${overlap_index}_${mode}_np${np})
  string(REPLACE "-" "_" name ${name})
  cc_overlap_check(${name} ${np} OMP_NUM_THREADS=1 ${mode} 3 cubecg --nx ${edge} --ny ${edge}
                   --nz ${edge} ${OVERLAP_IAR} ${extra}) # pipecg's 3 doubles
endforeach()

# Per reduction size (the registry's reduction_sizes): s-step CG's Gram block, S(S+1)/2 + S^2 + S
# + 1 doubles (31 at S = 4, 10 at S = 2), against the injected latency as above; and the sizes of
# every variant's iar solve in one run, at the defaults (gropp 1 and 2; cgcg, pipecg, plcg 3) and
# at --replace-every auto (the guard's (x,x): gropp 3, cgcg and pipecg 4), depth 8 (plcg 9), S = 10
# (166). name|mode|mesh edge|sizes|options (--reduction iar)
set(OVERLAP_SIZE_RUNS
    "sstep_longer|longer|40|31|--solver|sstep|--inject-reduction-latency|1000"
    "sstep_shorter|shorter|4|10|--solver|sstep|--sstep|2|--sstep-basis|monomial|--inject-reduction-latency|1000000"
    "all|sizes|6|1,2,3,31|--solver|all"
    "all_auto|sizes|6|1,3,4,9,166|--solver|all|--replace-every|auto|--pipeline-depth|8|--sstep|10")
foreach(run ${OVERLAP_SIZE_RUNS})
  string(REPLACE "|" ";" parts "${run}")
  list(GET parts 0 tag)
  list(GET parts 1 mode)
  list(GET parts 2 edge)
  list(GET parts 3 sizes)
  list(SUBLIST parts 4 -1 extra)
  cc_overlap_check(driver_overlap_probe_sizes_${tag}_np2 2 OMP_NUM_THREADS=1 ${mode} ${sizes}
                   cubecg --nx ${edge} --ny ${edge} --nz ${edge} --reduction iar ${extra})
endforeach()

# the bench: every variant's sizes at the defaults; the settings this launch has measured, the
# others recorded as not run (without the thread, and with MPICH's thread started from the
# environment at launch)
cc_overlap_check(bench_overlap_np2 2 OMP_NUM_THREADS=1 bench 1,2,3,31 cubecg-bench --overlap
                 --nx 8 --ny 8 --nz 8 --repeat 3)
if(CUBECG_MPI_IMPL STREQUAL "mpich")
  cc_overlap_check(bench_overlap_thread_np2 2 "OMP_NUM_THREADS=1;MPIR_CVAR_ASYNC_PROGRESS=1" bench
                   1,2,3,31 cubecg-bench --overlap --nx 6 --ny 6 --nz 6 --repeat 2)
endif()

# refusals: one line naming the value, exit 2, no report
foreach(bad "bench_overlap_1rank|1|--overlap on 1 rank: a reduction without a partner|cubecg-bench|--overlap|--nx|6|--ny|6|--nz|6"
            "bench_overlap_with_probe|1|--overlap 1, --read-streams 2.*: each replaces the kernels|cubecg-bench|--overlap|1|--read-streams|2"
            "driver_overlap_probe_bad_value|1|--overlap-probe: unknown value 'maybe'|cubecg|--overlap-probe|maybe")
  string(REPLACE "|" ";" parts "${bad}")
  list(GET parts 0 name)
  list(GET parts 1 np)
  list(GET parts 2 msg)
  list(GET parts 3 program)
  list(SUBLIST parts 4 -1 args)
  add_test(NAME ${name}
           COMMAND ${CMAKE_COMMAND} -E env EXPECT_EXIT=2 OMP_NUM_THREADS=1
                   ${CMAKE_CURRENT_SOURCE_DIR}/common/expect_error.sh "${msg}" ${OVERLAP_OUT}/${name}.json
                   -- ${MPIEXEC_EXECUTABLE} -n ${np} $<TARGET_FILE:${program}> ${args}
                   --report ${OVERLAP_OUT}/${name}.json)
  set_tests_properties(${name} PROPERTIES LABELS overlap TIMEOUT 120)
endforeach()
