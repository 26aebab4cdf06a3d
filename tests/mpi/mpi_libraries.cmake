# The same study under each MPI library (MPICH, Open MPI, Intel MPI: one build each, presets
# release, openmpi, intel-mpi). Label mpi-libraries: the subset ./test.sh runs on Open MPI and
# Intel MPI beside MPICH's whole suite. Every variant x AR/IAR at 1/2/4 ranks against MPICH's
# reference solution, the progress thread on (the library's own knob, verified from the threads
# MPI_Init started), off and poll, a pin's CPU read back, Open MPI's refusal, another library's knob
# named as having no effect, emulated nodes, posix/uring checkpoints and restart, the report schema.
find_package(Python3 COMPONENTS Interpreter)
set(MPILIB_CUBECG $<TARGET_FILE:cubecg>)
set(MPILIB_CHECK ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/common/check_report.py)
set(MPILIB_OUT ${CMAKE_CURRENT_BINARY_DIR}/mpilib)
set(MPILIB_REF ${CMAKE_CURRENT_SOURCE_DIR}/mpi/data/mpich-reference)
file(MAKE_DIRECTORY ${MPILIB_OUT})
set(MPILIB_ARGS --nx 8 --ny 8 --nz 8 --quiet)
set(MPILIB_SKIP 77) # ctest SKIP_RETURN_CODE: what this library cannot do here

# Each library's launch environment, progress knob, pin knob, a knob of another library, and the
# launcher words that start two emulated nodes of one rank each on this host.
set(MPILIB_ENV OMP_NUM_THREADS=1)
set(MPILIB_NODES "")
if(CUBECG_MPI_IMPL STREQUAL "openmpi")
  # more ranks than cores, no binding of 4 ranks to 2 cores, root in CI containers
  list(APPEND MPILIB_ENV OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_hwloc_base_binding_policy=none
       OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1)
  set(MPILIB_KNOB "")
  set(MPILIB_FOREIGN MPIR_CVAR_ASYNC_PROGRESS=1)
elseif(CUBECG_MPI_IMPL STREQUAL "intel")
  get_filename_component(mpilib_bin "${MPIEXEC_EXECUTABLE}" DIRECTORY)
  get_filename_component(mpilib_root "${mpilib_bin}" DIRECTORY)
  list(APPEND MPILIB_ENV I_MPI_ROOT=${mpilib_root})
  set(MPILIB_KNOB I_MPI_ASYNC_PROGRESS=1)
  set(MPILIB_PIN I_MPI_ASYNC_PROGRESS_PIN)
  set(MPILIB_FOREIGN MPIR_CVAR_ASYNC_PROGRESS=1)
  # Intel's Hydra forks proxies only for names of this host: two names, two nodes
  cmake_host_system_information(RESULT mpilib_host QUERY HOSTNAME)
  set(MPILIB_NODES -bootstrap fork -hosts ${mpilib_host},localhost -ppn 1)
else()
  set(MPILIB_KNOB MPIR_CVAR_ASYNC_PROGRESS=1)
  set(MPILIB_PIN MPIR_CVAR_PROGRESS_THREAD_AFFINITY)
  set(MPILIB_FOREIGN I_MPI_ASYNC_PROGRESS=1)
  set(MPILIB_NODES -launcher fork -hosts nodeA:1,nodeB:1)
endif()

# the registry on each library's version text, the rows no machine here runs included (Cray
# MPICH, MVAPICH): detection, version, own knobs, another library's knob named, thread level
cc_add_unit(test_mpi_registry mpi/test_mpi_registry.c ${CC_DRIVER_LIB_SOURCES})
target_include_directories(test_mpi_registry PRIVATE ${PROJECT_SOURCE_DIR}/src)
add_test(NAME mpilib_registry COMMAND ${CMAKE_COMMAND} -E env ${MPILIB_ENV} ${MPIEXEC_EXECUTABLE} -n 1
                                      $<TARGET_FILE:test_mpi_registry>)
set_tests_properties(mpilib_registry PROPERTIES TIMEOUT 60 LABELS mpi-libraries)

# mpilib_run(NAME name NP n [ENV k=v...] [FIXTURE f] ARGS cubecg-args...)
function(mpilib_run)
  cmake_parse_arguments(T "" "NAME;NP;FIXTURE" "ENV;ARGS;LAUNCH" ${ARGN})
  add_test(NAME ${T_NAME}
           COMMAND ${CMAKE_COMMAND} -E env ${MPILIB_ENV} ${T_ENV} ${MPIEXEC_EXECUTABLE} ${T_LAUNCH}
                   -n ${T_NP} ${MPILIB_CUBECG} ${MPILIB_ARGS} ${T_ARGS})
  set_tests_properties(${T_NAME} PROPERTIES PROCESSORS ${T_NP} TIMEOUT 300 LABELS mpi-libraries)
  if(T_FIXTURE)
    set_tests_properties(${T_NAME} PROPERTIES FIXTURES_SETUP ${T_FIXTURE})
  endif()
endfunction()

# mpilib_check(NAME name FIXTURES f... COMMAND check args...)
function(mpilib_check)
  cmake_parse_arguments(T "" "NAME" "FIXTURES;COMMAND" ${ARGN})
  add_test(NAME ${T_NAME} COMMAND ${T_COMMAND})
  set_tests_properties(${T_NAME} PROPERTIES LABELS mpi-libraries FIXTURES_REQUIRED "${T_FIXTURES}")
endfunction()

# every variant x AR/IAR at 1, 2, 4 ranks: MPICH's answer (check_report.py same-answer): iterations
# within 1, the true residuals within their bound (10 tol) and within tol of MPICH's, the analytic
# error within --analytic-tol. Not the residuals' digits below tol: another library's reduction
# order changes them (Intel MPI: sstep's 7.02525587e-10 against MPICH's 7.02528067e-10).
foreach(np 1 2 4)
  mpilib_run(NAME mpilib_variants_np${np} NP ${np} FIXTURE mpilib_variants_np${np}
             ARGS --solver all --reduction all --report ${MPILIB_OUT}/variants_np${np}.json)
  mpilib_check(NAME mpilib_variants_np${np}_as_mpich FIXTURES mpilib_variants_np${np}
               COMMAND ${MPILIB_CHECK} same-answer ${MPILIB_OUT}/variants_np${np}.json
                       ${MPILIB_REF}/variants_np${np}.json --within 1)
  # the summary names the library's wait setting exactly when its busy-polling waits share cores
  # (4 ranks on a 2-core machine: Intel MPI's I_MPI_WAIT_MODE, Open MPI's mpi_yield_when_idle)
  mpilib_check(NAME mpilib_variants_np${np}_wait_setting FIXTURES mpilib_variants_np${np}
               COMMAND ${MPILIB_CHECK} expect ${MPILIB_OUT}/variants_np${np}.json
                       "('busy-polls while it waits' in open('${MPILIB_OUT}/variants_np${np}.summary.txt').read() and '%s is' % r['mpi']['wait_setting'] in open('${MPILIB_OUT}/variants_np${np}.summary.txt').read()) == bool(r['mpi']['wait_setting'] and (r['topology']['oversubscribed'] or r['mpi']['progress_threads']['sharing_compute_cores']))")
  mpilib_check(NAME mpilib_variants_np${np}_library FIXTURES mpilib_variants_np${np}
               COMMAND ${MPILIB_CHECK} expect ${MPILIB_OUT}/variants_np${np}.json
                       "r['mpi']['implementation'] == r['mpi']['built_for'] == '${CUBECG_MPI_IMPL}'"
                       "r['mpi']['version'] != 'unknown'"
                       "r['mpi']['launched_by'] in ('hydra', 'mpirun')"
                       "len(r['mpi']['libraries_mapped'].split()) == 1"
                       "r['checks']['passed'] and len(r['solves']) == sum(len(v['reductions']) for v in r['available']['variants'])")
endforeach()

# --version names the library, its version and the hdf5 backend (why it is absent), as the
# report does (available.hdf5_backend)
if(CUBECG_HAVE_HDF5)
  set(mpilib_h5_version "hdf5 backend built: HDF5 ")
  set(mpilib_h5_report "r['available']['hdf5_backend']['built'] and r['available']['hdf5_backend']['why_absent'] is None")
else()
  set(mpilib_h5_version "hdf5 backend absent: ")
  set(mpilib_h5_report "not r['available']['hdf5_backend']['built'] and r['available']['hdf5_backend']['why_absent']")
endif()
add_test(NAME mpilib_version
         COMMAND ${CMAKE_COMMAND} -E env ${MPILIB_ENV}
                 bash -c "out=$('${MPIEXEC_EXECUTABLE}' -n 1 '${MPILIB_CUBECG}' --version) || exit 1; echo \"$out\"; echo \"$out\" | grep -qE 'MPI ${CUBECG_MPI_IMPL} [0-9]+[.][0-9.]+, built for ${CUBECG_MPI_IMPL}: ' && echo \"$out\" | grep -qF '${mpilib_h5_version}'")
set_tests_properties(mpilib_version PROPERTIES TIMEOUT 60 LABELS mpi-libraries)
mpilib_check(NAME mpilib_variants_np1_hdf5_backend FIXTURES mpilib_variants_np1
             COMMAND ${MPILIB_CHECK} expect ${MPILIB_OUT}/variants_np1.json "${mpilib_h5_report}")

# the progress thread: absent without the knob, verified with it, same iterations as without
mpilib_run(NAME mpilib_progress_off NP 2 FIXTURE mpilib_progress_off
           ARGS --solver pipecg --reduction iar --report ${MPILIB_OUT}/progress_off.json)
mpilib_check(NAME mpilib_progress_off_absent FIXTURES mpilib_progress_off
             COMMAND ${MPILIB_CHECK} expect ${MPILIB_OUT}/progress_off.json
                     "not r['mpi']['async_progress_requested']"
                     "not r['mpi']['async_progress_active']"
                     "r['mpi']['progress_threads']['total'] == 0")
mpilib_run(NAME mpilib_progress_poll NP 2 FIXTURE mpilib_progress_poll
           ARGS --solver pipecg --reduction iar --progress poll
                --report ${MPILIB_OUT}/progress_poll.json)
mpilib_check(NAME mpilib_progress_poll_same_iterations
             FIXTURES "mpilib_progress_off;mpilib_progress_poll"
             COMMAND ${MPILIB_CHECK} same-iterations ${MPILIB_OUT}/progress_poll.json
                     ${MPILIB_OUT}/progress_off.json)
if(MPILIB_KNOB)
  mpilib_run(NAME mpilib_progress_on NP 2 FIXTURE mpilib_progress_on ENV ${MPILIB_KNOB}
             ARGS --solver pipecg --reduction iar --report ${MPILIB_OUT}/progress_on.json)
  mpilib_check(NAME mpilib_progress_on_active FIXTURES mpilib_progress_on
               COMMAND ${MPILIB_CHECK} expect ${MPILIB_OUT}/progress_on.json
                       "r['mpi']['async_progress_requested'] and r['mpi']['async_progress_active']"
                       "r['mpi']['progress_threads']['total'] >= 2"
                       "r['mpi']['threads_after_init'] > r['mpi']['threads_before_init']"
                       "'disagree' not in r['mpi']['async_progress_decided_by']"
                       "r['mpi']['async_progress_knob'].startswith('${MPILIB_KNOB}')")
  mpilib_check(NAME mpilib_progress_on_same_iterations
               FIXTURES "mpilib_progress_off;mpilib_progress_on"
               COMMAND ${MPILIB_CHECK} same-iterations ${MPILIB_OUT}/progress_on.json
                       ${MPILIB_OUT}/progress_off.json)
  # a placement's requested CPU is the CPU read back: rank 0's thread on CPU 1, rank 1's on 0
  mpilib_run(NAME mpilib_progress_pin NP 2 FIXTURE mpilib_progress_pin
             ENV ${MPILIB_KNOB} ${MPILIB_PIN}=1,0
             ARGS --solver pipecg --reduction iar --report ${MPILIB_OUT}/progress_pin.json)
  mpilib_check(NAME mpilib_progress_pin_read_back FIXTURES mpilib_progress_pin
               COMMAND ${MPILIB_CHECK} expect ${MPILIB_OUT}/progress_pin.json
                       "r['mpi']['progress_threads']['pin_knob'] == '${MPILIB_PIN}'"
                       "r['mpi']['progress_threads']['pin_checked'] >= 2"
                       "r['mpi']['progress_threads']['pin_mismatches'] == 0"
                       "all(t['cpus'] == str(t['pin_cpu']) for p in r['mpi']['progress_threads']['per_rank'] for t in p['threads'])"
                       "[p['threads'][0]['pin_cpu'] for p in r['mpi']['progress_threads']['per_rank']] == [1, 0]")
  # another library's knob: named as having no effect, no thread
  mpilib_run(NAME mpilib_foreign_knob NP 2 FIXTURE mpilib_foreign_knob ENV ${MPILIB_FOREIGN}
             ARGS --solver pipecg --reduction iar --report ${MPILIB_OUT}/foreign_knob.json)
  mpilib_check(NAME mpilib_foreign_knob_no_effect FIXTURES mpilib_foreign_knob
               COMMAND ${MPILIB_CHECK} expect ${MPILIB_OUT}/foreign_knob.json
                       "r['mpi']['knobs_without_effect'] == '${MPILIB_FOREIGN}'"
                       "not r['mpi']['async_progress_requested']"
                       "not r['mpi']['async_progress_active']")
  # the summary beside the report says the same: the other library's knob named, and how many
  # progress threads share cores with compute threads
  mpilib_check(NAME mpilib_foreign_knob_summary FIXTURES mpilib_foreign_knob
               COMMAND grep -F "NO EFFECT        ${MPILIB_FOREIGN}: not a knob of ${CUBECG_MPI_IMPL}"
                       ${MPILIB_OUT}/foreign_knob.summary.txt)
  mpilib_check(NAME mpilib_progress_on_sharing_summary FIXTURES mpilib_progress_on
               COMMAND ${MPILIB_CHECK} expect ${MPILIB_OUT}/progress_on.json
                       "'progress threads %d, %d of them share cores with compute threads' % (r['mpi']['progress_threads']['total'], r['mpi']['progress_threads']['sharing_compute_cores']) in open('${MPILIB_OUT}/progress_on.summary.txt').read()")
else()
  # Open MPI has no progress thread: a run asking for one is refused, naming --progress poll
  add_test(NAME mpilib_progress_refused
           COMMAND ${CMAKE_COMMAND} -E env ${MPILIB_ENV} ${MPILIB_FOREIGN} EXPECT_EXIT=2
                   bash ${CMAKE_CURRENT_SOURCE_DIR}/common/expect_error.sh
                   "has no asynchronous progress thread; use --progress poll"
                   ${MPILIB_OUT}/refused.json -- ${MPIEXEC_EXECUTABLE} -n 2 ${MPILIB_CUBECG}
                   ${MPILIB_ARGS} --report ${MPILIB_OUT}/refused.json)
  set_tests_properties(mpilib_progress_refused PROPERTIES PROCESSORS 2 LABELS mpi-libraries)
endif()

# two emulated nodes of one rank each: MPICH's answer at 2 ranks
if(MPILIB_NODES)
  mpilib_run(NAME mpilib_nodes NP 2 FIXTURE mpilib_nodes LAUNCH ${MPILIB_NODES}
             ARGS --solver all --reduction all --report ${MPILIB_OUT}/nodes.json)
  mpilib_check(NAME mpilib_nodes_as_mpich FIXTURES mpilib_nodes
               COMMAND ${MPILIB_CHECK} same-answer ${MPILIB_OUT}/nodes.json
                       ${MPILIB_REF}/variants_np2.json --within 1)
  mpilib_check(NAME mpilib_nodes_two FIXTURES mpilib_nodes
               COMMAND ${MPILIB_CHECK} expect ${MPILIB_OUT}/nodes.json
                       "r['topology']['nodes'] == 2" "r['checks']['passed']")
else()
  add_test(NAME mpilib_nodes COMMAND ${CMAKE_COMMAND} -E echo
           "SKIP: ${CUBECG_MPI_IMPL}'s mpirun cannot start two emulated nodes on one host (no fork launcher)")
  set_tests_properties(mpilib_nodes PROPERTIES LABELS mpi-libraries SKIP_REGULAR_EXPRESSION "SKIP:")
endif()

# posix and uring checkpoints, then a restart from the last one
foreach(backend posix uring)
  set(dir ${MPILIB_OUT}/ckpt_${backend})
  add_test(NAME mpilib_ckpt_${backend}_clean COMMAND ${CMAKE_COMMAND} -E rm -rf ${dir})
  set_tests_properties(mpilib_ckpt_${backend}_clean PROPERTIES LABELS mpi-libraries
                       FIXTURES_SETUP mpilib_ckpt_${backend}_clean)
  mpilib_run(NAME mpilib_ckpt_${backend}_write NP 2 FIXTURE mpilib_ckpt_${backend}
             ARGS --checkpoint ${backend} --checkpoint-dir ${dir} --checkpoint-every 10
                  --report ${MPILIB_OUT}/ckpt_${backend}_full.json)
  set_tests_properties(mpilib_ckpt_${backend}_write PROPERTIES
                       FIXTURES_REQUIRED mpilib_ckpt_${backend}_clean)
  mpilib_run(NAME mpilib_ckpt_${backend}_restart NP 2 FIXTURE mpilib_ckpt_${backend}_restarted
             ARGS --restart ${dir} --report ${MPILIB_OUT}/ckpt_${backend}_restart.json)
  set_tests_properties(mpilib_ckpt_${backend}_restart PROPERTIES
                       FIXTURES_REQUIRED mpilib_ckpt_${backend})
  mpilib_check(NAME mpilib_ckpt_${backend}_continued
               FIXTURES "mpilib_ckpt_${backend};mpilib_ckpt_${backend}_restarted"
               COMMAND ${MPILIB_CHECK} same-iterations ${MPILIB_OUT}/ckpt_${backend}_full.json
                       ${MPILIB_OUT}/ckpt_${backend}_restart.json --within 1)
  mpilib_check(NAME mpilib_ckpt_${backend}_restarted_from
               FIXTURES mpilib_ckpt_${backend}_restarted
               COMMAND ${MPILIB_CHECK} expect ${MPILIB_OUT}/ckpt_${backend}_restart.json
                       "r['solves'][0]['start_iteration'] > 0" "r['checks']['passed']")
endforeach()

# the report schema (docs/report-schema.md) holds under this library: a run and a checkpointed run
set(MPILIB_SCHEMA ${MPILIB_OUT}/schema)
add_test(NAME mpilib_schema
         COMMAND ${CMAKE_COMMAND} -E env ${MPILIB_ENV}
                 bash -c "set -e; rm -rf '${MPILIB_SCHEMA}'; mkdir -p '${MPILIB_SCHEMA}'; cd '${MPILIB_SCHEMA}'
           '${MPIEXEC_EXECUTABLE}' -n 1 '${MPILIB_CUBECG}' --help > help.txt
           '${MPIEXEC_EXECUTABLE}' -n 2 '${MPILIB_CUBECG}' --nx 6 --ny 6 --nz 6 --roofline --report run.json --quiet
           '${MPIEXEC_EXECUTABLE}' -n 1 '${MPILIB_CUBECG}' --nx 6 --ny 6 --nz 6 --checkpoint posix --checkpoint-dir ck --checkpoint-every 5 --report run_ckpt.json --quiet
           '${Python3_EXECUTABLE}' '${CMAKE_CURRENT_SOURCE_DIR}/docs/check_schema.py' '${PROJECT_SOURCE_DIR}/docs/report-schema.md' --help-text help.txt run=run.json run=run_ckpt.json")
set_tests_properties(mpilib_schema PROPERTIES PROCESSORS 2 TIMEOUT 300 LABELS mpi-libraries)

# configure refuses an HDF5 built for another MPI than the chosen one (Open MPI's compiler with
# MPICH's HDF5), in one line naming both, and takes the pair with the backend turned off
find_program(MPILIB_OMPI_CC mpicc.openmpi)
find_program(MPILIB_MPICH_H5 h5pcc.mpich)
set(MPILIB_MIX ${MPILIB_OUT}/mixed-configure)
if(MPILIB_OMPI_CC AND MPILIB_MPICH_H5)
  add_test(NAME mpilib_configure_mixed_hdf5_refused
           COMMAND bash -c "rm -rf '${MPILIB_MIX}'; out=$('${CMAKE_COMMAND}' -S '${PROJECT_SOURCE_DIR}' -B '${MPILIB_MIX}' -DBUILD_TESTING=OFF -DMPI_C_COMPILER='${MPILIB_OMPI_CC}' -DHDF5_C_COMPILER_EXECUTABLE='${MPILIB_MPICH_H5}' 2>&1); code=$?; echo \"$out\" | grep -A4 'CMake Error'; rm -rf '${MPILIB_MIX}'; [ $code -ne 0 ] && echo \"$out\" | tr -s '\\n ' ' ' | grep -q 'is built for another MPI (.*libmpich.*) than the chosen openmpi'")
  add_test(NAME mpilib_configure_mixed_hdf5_off
           COMMAND bash -c "rm -rf '${MPILIB_MIX}-off'; '${CMAKE_COMMAND}' -S '${PROJECT_SOURCE_DIR}' -B '${MPILIB_MIX}-off' -DBUILD_TESTING=OFF -DMPI_C_COMPILER='${MPILIB_OMPI_CC}' -DHDF5_C_COMPILER_EXECUTABLE='${MPILIB_MPICH_H5}' -DCUBECG_HDF5=OFF > '${MPILIB_MIX}-off.log' 2>&1; code=$?; rm -rf '${MPILIB_MIX}-off'; grep 'hdf5 backend OFF' '${MPILIB_MIX}-off.log' && [ $code -eq 0 ]")
  set_tests_properties(mpilib_configure_mixed_hdf5_refused mpilib_configure_mixed_hdf5_off
                       PROPERTIES TIMEOUT 120 RESOURCE_LOCK mpilib_configure LABELS sanitize-skip)
else()
  add_test(NAME mpilib_configure_mixed_hdf5_refused COMMAND ${CMAKE_COMMAND} -E echo
           "SKIP: needs mpicc.openmpi and h5pcc.mpich (./setup.sh --mpi openmpi)")
  set_tests_properties(mpilib_configure_mixed_hdf5_refused PROPERTIES SKIP_REGULAR_EXPRESSION "SKIP:")
endif()
