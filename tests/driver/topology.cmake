# Topology and provenance in every report, and multi-node runs on one
# machine: MPICH's Hydra with `-launcher fork -hosts nodeA:R,nodeB:R` starts the
# ranks as two nodes (MPI_COMM_TYPE_SHARED splits them, traffic leaves shared memory) on this host.
# Label: topology (the 2 x 2 runs also: oversubscribed).
find_package(Python3 COMPONENTS Interpreter)
set(TOPO_CUBECG $<TARGET_FILE:cubecg>)
set(TOPO_CHECK ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/common/check_report.py)
set(TOPO_OUT ${CMAKE_CURRENT_BINARY_DIR}/topology)
file(MAKE_DIRECTORY ${TOPO_OUT})
set(TOPO_ARGS --nx 8 --ny 8 --nz 8 --solver all --reduction all --quiet)

# one node: 2 and 4 ranks (the reference solutions); two emulated nodes: 2 x 1 and 2 x 2 ranks
set(TOPO_RUNS "1node_np2|-n|2" "1node_np4|-n|4" "2nodes_1rank|-launcher|fork|-hosts|nodeA:1,nodeB:1|-n|2"
              "2nodes_2ranks|-launcher|fork|-hosts|nodeA:2,nodeB:2|-n|4")
foreach(run ${TOPO_RUNS})
  string(REPLACE "|" ";" parts "${run}")
  list(GET parts 0 name)
  list(SUBLIST parts 1 -1 launch)
  list(GET parts -1 np)
  add_test(NAME topology_run_${name}
           COMMAND ${MPIEXEC_EXECUTABLE} ${launch} ${TOPO_CUBECG} ${TOPO_ARGS} --placement emu-${name}
                   --report ${TOPO_OUT}/${name}.json)
  set_tests_properties(topology_run_${name} PROPERTIES PROCESSORS ${np} TIMEOUT 300
                       ENVIRONMENT OMP_NUM_THREADS=1 FIXTURES_SETUP topo_${name} LABELS topology)
endforeach()
set_tests_properties(topology_run_2nodes_2ranks PROPERTIES LABELS "topology;oversubscribed")

set(TOPO_COMMON "r['cubecg_report_version'] == 2"
                "r['topology']['hosts'] == 1 and len(r['topology']['hostnames']) == 1"
                "r['topology']['cores_per_node'] == r['platform']['cores_online']"
                "len(r['topology']['affinity']) == r['topology']['ranks'] == r['problem']['ranks']"
                "all(len(a['threads']) == 1 and a['cpus'] != '' for a in r['topology']['affinity'])"
                "r['topology']['threads_chosen_by'] == 'OMP_NUM_THREADS=1'"
                "r['build']['launcher'] != '' and len(r['build']['git_commit']) in (40, 7)"
                "r['checks']['passed']")
add_test(NAME topology_report_1node_np2
         COMMAND ${TOPO_CHECK} expect ${TOPO_OUT}/1node_np2.json ${TOPO_COMMON}
                 "r['topology']['nodes'] == 1"
                 "r['topology']['ranks_per_node_min'] == r['topology']['ranks_per_node_max'] == 2"
                 "r['topology']['oversubscribed'] == (2 > r['platform']['cores_online'])"
                 "r['topology']['placement'] == 'emu-1node_np2'"
                 "r['topology']['placement_source'] == '--placement'")
add_test(NAME topology_report_2nodes_1rank
         COMMAND ${TOPO_CHECK} expect ${TOPO_OUT}/2nodes_1rank.json ${TOPO_COMMON}
                 "r['topology']['nodes'] == 2"
                 "r['topology']['ranks_per_node_min'] == r['topology']['ranks_per_node_max'] == 1"
                 "sorted(a['node'] for a in r['topology']['affinity']) == [0, 1]"
                 "r['topology']['oversubscribed'] == (2 > r['platform']['cores_online'])")
add_test(NAME topology_report_2nodes_2ranks
         COMMAND ${TOPO_CHECK} expect ${TOPO_OUT}/2nodes_2ranks.json ${TOPO_COMMON}
                 "r['topology']['nodes'] == 2"
                 "r['topology']['ranks_per_node_min'] == r['topology']['ranks_per_node_max'] == 2"
                 "sorted(a['node'] for a in r['topology']['affinity']) == [0, 0, 1, 1]"
                 "r['topology']['oversubscribed'] == (4 > r['platform']['cores_online'])")
set_tests_properties(topology_report_1node_np2 PROPERTIES FIXTURES_REQUIRED topo_1node_np2)
set_tests_properties(topology_report_2nodes_1rank PROPERTIES FIXTURES_REQUIRED topo_2nodes_1rank)
set_tests_properties(topology_report_2nodes_2ranks PROPERTIES FIXTURES_REQUIRED topo_2nodes_2ranks)
# the solution does not depend on where the ranks run: 2 ranks reduce two values (commutative, so
# bitwise equal); 4 ranks may sum in another order across nodes (iterations within 1)
add_test(NAME topology_same_solution_2nodes_1rank
         COMMAND ${TOPO_CHECK} same-solution ${TOPO_OUT}/1node_np2.json ${TOPO_OUT}/2nodes_1rank.json
                 --rtol 1e-12)
set_tests_properties(topology_same_solution_2nodes_1rank PROPERTIES
                     FIXTURES_REQUIRED "topo_1node_np2;topo_2nodes_1rank")
add_test(NAME topology_same_solution_2nodes_2ranks
         COMMAND ${TOPO_CHECK} same-solution ${TOPO_OUT}/1node_np4.json ${TOPO_OUT}/2nodes_2ranks.json
                 --within 1 --rtol 1e-6)
set_tests_properties(topology_same_solution_2nodes_2ranks PROPERTIES
                     FIXTURES_REQUIRED "topo_1node_np4;topo_2nodes_2ranks")

# OMP_NUM_THREADS unset: threads = CPUs of the host / ranks on it (min 1, at most the rank's mask);
# the run says so. CUBECG_PLACEMENT names the placement when --placement is not given.
add_test(NAME topology_run_default_threads
         COMMAND ${CMAKE_COMMAND} -E env --unset=OMP_NUM_THREADS CUBECG_PLACEMENT=env-name
                 ${MPIEXEC_EXECUTABLE} -n 2 ${TOPO_CUBECG} --nx 8 --ny 8 --nz 8
                 --report ${TOPO_OUT}/default_threads.json --quiet)
set_tests_properties(topology_run_default_threads PROPERTIES PROCESSORS 2 TIMEOUT 300
                     FIXTURES_SETUP topo_default_threads LABELS topology)
add_test(NAME topology_report_default_threads
         COMMAND ${TOPO_CHECK} expect ${TOPO_OUT}/default_threads.json
                 "r['topology']['threads'] == r['problem']['threads'] == max(1, min(r['platform']['cores_online'] // 2, ncpus(r['topology']['affinity'][0]['cpus'])))"
                 "r['topology']['threads_chosen_by'].startswith('OMP_NUM_THREADS unset')"
                 "not r['topology']['oversubscribed'] or r['platform']['cores_online'] < 2"
                 "r['topology']['placement'] == 'env-name' and r['topology']['placement_source'] == 'CUBECG_PLACEMENT'"
                 "r['checks']['passed']")
set_tests_properties(topology_report_default_threads PROPERTIES FIXTURES_REQUIRED topo_default_threads)
# the summary prints one warning line when a run oversubscribes (and says how threads were chosen)
add_test(NAME topology_summary_oversubscribed
         COMMAND ${MPIEXEC_EXECUTABLE} -launcher fork -hosts nodeA:2,nodeB:2 -n 4 ${TOPO_CUBECG}
                 --nx 6 --ny 6 --nz 6)
set_tests_properties(topology_summary_oversubscribed PROPERTIES PROCESSORS 4 TIMEOUT 300
                     ENVIRONMENT OMP_NUM_THREADS=1 LABELS "topology;oversubscribed"
                     PASS_REGULAR_EXPRESSION "WARNING +oversubscribed: host [^\n]*: 4 threads")

# bad placement names: one line naming the value, exit 2, no report
add_test(NAME topology_bad_placement
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/common/expect_error.sh "placement.*bad name" ${TOPO_OUT}/bad.json --
                 ${MPIEXEC_EXECUTABLE} -n 1 ${TOPO_CUBECG} --nx 4 --ny 4 --nz 4 --placement "bad name"
                 --report ${TOPO_OUT}/bad.json)
add_test(NAME topology_bad_placement_env
         COMMAND ${CMAKE_COMMAND} -E env "CUBECG_PLACEMENT=a/b" ${CMAKE_CURRENT_SOURCE_DIR}/common/expect_error.sh
                 "CUBECG_PLACEMENT.*a/b" ${TOPO_OUT}/bad_env.json -- ${MPIEXEC_EXECUTABLE} -n 1
                 ${TOPO_CUBECG} --nx 4 --ny 4 --nz 4 --report ${TOPO_OUT}/bad_env.json)
set_tests_properties(topology_bad_placement topology_bad_placement_env PROPERTIES
                     ENVIRONMENT OMP_NUM_THREADS=1 LABELS topology)

# docs/report-schema.md against real reports of every kind (run with and without a checkpoint,
# an iar run with its overlap probe, kernels, iobench with an offload backend, triad_placement,
# overlap): no undocumented key, no documented key that never
# appears, parameters == the options of cubecg --help
set(SCHEMA_OUT ${TOPO_OUT}/schema)
add_test(NAME schema_reports
         COMMAND bash -c "set -e; rm -rf '${SCHEMA_OUT}'; mkdir -p '${SCHEMA_OUT}'; cd '${SCHEMA_OUT}'
           '${MPIEXEC_EXECUTABLE}' -n 1 '${TOPO_CUBECG}' --help > help.txt
           '${MPIEXEC_EXECUTABLE}' -n 2 '${TOPO_CUBECG}' --nx 6 --ny 6 --nz 6 --roofline --report run.json --quiet
           '${MPIEXEC_EXECUTABLE}' -n 1 '${TOPO_CUBECG}' --nx 6 --ny 6 --nz 6 --checkpoint posix --checkpoint-dir ck --checkpoint-every 5 --report run_ckpt.json --quiet
           '${MPIEXEC_EXECUTABLE}' -n 1 '${TOPO_CUBECG}' --nx 6 --ny 6 --nz 6 --solver plcg --report run_plcg.json --quiet
           '${MPIEXEC_EXECUTABLE}' -n 1 '${TOPO_CUBECG}' --nx 6 --ny 6 --nz 6 --solver sstep --report run_sstep.json --quiet
           '${MPIEXEC_EXECUTABLE}' -n 1 '$<TARGET_FILE:cubecg-bench>' --nx 8 --ny 8 --nz 8 --repeat 2 --stream-mb 4 --allow-cached --report kernels.json > kernels.out
           '${MPIEXEC_EXECUTABLE}' -n 1 '$<TARGET_FILE:cubecg-iobench>' --dir io --sizes 64k --backends posix,offload --buffers 8k --repeat 1 --report iobench.json > iobench.out
           '${MPIEXEC_EXECUTABLE}' -n 2 '$<TARGET_FILE:cubecg-bench>' --triad-placement 2 --repeat 2 --stream-mb 4 --report placement.json > placement.out
           '${MPIEXEC_EXECUTABLE}' -n 2 '${TOPO_CUBECG}' --nx 6 --ny 6 --nz 6 --solver pipecg --reduction iar --report run_iar.json --quiet
           '${MPIEXEC_EXECUTABLE}' -n 2 '$<TARGET_FILE:cubecg-bench>' --overlap --nx 6 --ny 6 --nz 6 --repeat 2 --report overlap.json > overlap.out
           '${Python3_EXECUTABLE}' '${CMAKE_CURRENT_SOURCE_DIR}/docs/check_schema.py' '${PROJECT_SOURCE_DIR}/docs/report-schema.md' --help-text help.txt run=run.json run=run_ckpt.json run=run_plcg.json run=run_sstep.json run=run_iar.json kernels=kernels.json iobench=iobench.json triad_placement=placement.json overlap=overlap.json")
set_tests_properties(schema_reports PROPERTIES PROCESSORS 2 TIMEOUT 300
                     ENVIRONMENT OMP_NUM_THREADS=1 LABELS topology)

# jobs/run-local.sh --emulate-nodes N: the launch lines (dry-run) and refusal of a bad N
add_test(NAME topology_run_local_emulate_nodes
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/driver/test_emulate_nodes.sh ${PROJECT_SOURCE_DIR}
                 ${TOPO_OUT}/emulate)
set_tests_properties(topology_run_local_emulate_nodes PROPERTIES LABELS "topology;jobs")

# progress_thread_affinity: with MPIR_CVAR_PROGRESS_THREAD_AFFINITY=0,0 MPICH pins the progress
# thread of node-local rank i to entry i; without it the thread inherits the rank's mask; with no
# progress thread there is nothing to report
add_test(NAME topology_run_progress_affinity
         COMMAND ${MPIEXEC_EXECUTABLE} -n 2 ${TOPO_CUBECG} --nx 6 --ny 6 --nz 6
                 --report ${TOPO_OUT}/progress_affinity.json --quiet)
set_tests_properties(topology_run_progress_affinity PROPERTIES PROCESSORS 2 TIMEOUT 300
                     ENVIRONMENT "OMP_NUM_THREADS=1;MPIR_CVAR_ASYNC_PROGRESS=1;MPIR_CVAR_PROGRESS_THREAD_AFFINITY=0,0"
                     FIXTURES_SETUP topo_progress_affinity LABELS topology)
add_test(NAME topology_report_progress_affinity
         COMMAND ${TOPO_CHECK} expect ${TOPO_OUT}/progress_affinity.json
                 "r['topology']['progress_thread_affinity']['active']"
                 "r['topology']['progress_thread_affinity']['setting'] == '0,0'"
                 "'MPIR_CVAR_PROGRESS_THREAD_AFFINITY' in r['topology']['progress_thread_affinity']['decided_by']"
                 "[a['progress_thread_cpus'] for a in r['topology']['affinity']] == ['0', '0']")
set_tests_properties(topology_report_progress_affinity PROPERTIES FIXTURES_REQUIRED topo_progress_affinity)
add_test(NAME topology_report_progress_inherits
         COMMAND ${TOPO_CHECK} expect ${OUT}/progress_async.json
                 "r['topology']['progress_thread_affinity']['active']"
                 "r['topology']['progress_thread_affinity']['setting'] is None"
                 "all(a['progress_thread_cpus'] == a['cpus'] for a in r['topology']['affinity'])")
add_test(NAME topology_report_progress_off
         COMMAND ${TOPO_CHECK} expect ${OUT}/progress_plain.json
                 "not r['topology']['progress_thread_affinity']['active']"
                 "all(a['progress_thread_cpus'] is None for a in r['topology']['affinity'])")
set_tests_properties(topology_report_progress_inherits topology_report_progress_off PROPERTIES
                     FIXTURES_REQUIRED progress LABELS topology)

# hybrid: one affinity entry per OpenMP thread (driver_threads_t2 runs 1 rank x 2 threads)
add_test(NAME topology_report_threads_t2
         COMMAND ${TOPO_CHECK} expect ${OUT}/threads_t2.json
                 "r['topology']['threads'] == 2 and r['topology']['threads_chosen_by'] == 'OMP_NUM_THREADS=2'"
                 "[t['thread'] for t in r['topology']['affinity'][0]['threads']] == [0, 1]"
                 "all(t['cpu'] >= 0 and t['cpus'] != '' for t in r['topology']['affinity'][0]['threads'])"
                 "r['topology']['oversubscribed'] == (2 > r['platform']['cores_online'])")
set_tests_properties(topology_report_threads_t2 PROPERTIES FIXTURES_REQUIRED threads LABELS topology)
# the default thread count is collective: OMP_NUM_THREADS set on one rank only is refused (exit 2)
add_test(NAME topology_bad_mixed_omp_env
         COMMAND ${CMAKE_COMMAND} -E env --unset=OMP_NUM_THREADS ${CMAKE_CURRENT_SOURCE_DIR}/common/expect_error.sh
                 "OMP_NUM_THREADS is set on some ranks" ${TOPO_OUT}/bad_mixed.json -- ${MPIEXEC_EXECUTABLE}
                 -n 1 -env OMP_NUM_THREADS 1 ${TOPO_CUBECG} --nx 4 --ny 4 --nz 4 --report ${TOPO_OUT}/bad_mixed.json
                 : -n 1 ${TOPO_CUBECG} --nx 4 --ny 4 --nz 4 --report ${TOPO_OUT}/bad_mixed.json)
set_tests_properties(topology_bad_mixed_omp_env PROPERTIES PROCESSORS 2 LABELS topology)
