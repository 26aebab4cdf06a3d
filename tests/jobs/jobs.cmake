# jobs/: Slurm and local job scripts and the analysis package jobs/cubecg_analysis (the analyzer
# and the model). The scripts run `python3` from PATH (as users do), so these tests do too.
# Label: jobs.
set(JOBS_SRC ${PROJECT_SOURCE_DIR})
set(JOBS_OUT ${CMAKE_CURRENT_BINARY_DIR}/jobs)
set(JOBS_FIXTURES ${JOBS_OUT}/fixtures)

# the benchmark programs may be missing while bench/ is written: test against their paths then
if(TARGET cubecg-bench)
  set(JOBS_BENCH $<TARGET_FILE:cubecg-bench>)
else()
  set(JOBS_BENCH ${CMAKE_BINARY_DIR}/bench/cubecg-bench)
endif()
if(TARGET cubecg-iobench)
  set(JOBS_IOBENCH $<TARGET_FILE:cubecg-iobench>)
else()
  set(JOBS_IOBENCH ${CMAKE_BINARY_DIR}/bench/cubecg-iobench)
endif()

# (a) every script parses (bash -n, Python AST) and the entry points are executable
add_test(NAME jobs_syntax COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/jobs/test_jobs_syntax.sh ${JOBS_SRC})

# (b) dry-run: the Slurm scripts, the submit helper and the local runner print their launch lines
add_test(NAME jobs_dryrun
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/jobs/test_jobs_dryrun.sh ${JOBS_SRC} ${JOBS_OUT}/dryrun)

# (c) a real quick run (8^3, 1-2 ranks, seconds) makes the reports the analyzer tests read
add_test(NAME jobs_fixtures
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/jobs/test_jobs_quick_sweep_reports.sh ${MPIEXEC_EXECUTABLE}
                 $<TARGET_FILE:cubecg> ${JOBS_IOBENCH} ${JOBS_BENCH} ${JOBS_FIXTURES})
set_tests_properties(jobs_fixtures PROPERTIES FIXTURES_SETUP jobs_reports PROCESSORS 2 TIMEOUT 300)

# every figure, tables.md, model.md; no silent overwrite
add_test(NAME jobs_analyze
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/jobs/test_jobs_analyze.sh ${JOBS_SRC} ${JOBS_FIXTURES}
                 ${JOBS_OUT}/analyze)
# (d) malformed / mixed-version / empty input: exit 2 naming the file
add_test(NAME jobs_malformed
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/jobs/test_jobs_malformed.sh ${JOBS_SRC} ${JOBS_FIXTURES}
                 ${JOBS_OUT}/malformed)
# 600 s leaves room for a busier machine than the one they were timed on (docs/performance.md)
set_tests_properties(jobs_analyze jobs_malformed PROPERTIES FIXTURES_REQUIRED jobs_reports
                     TIMEOUT 600)
# (e) a batch job whose cubecg run fails exits non-zero with a summary line
add_test(NAME jobs_batchfail
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/jobs/test_jobs_batchfail.sh ${JOBS_SRC} $<TARGET_FILE:cubecg>
                 ${JOBS_OUT}/batchfail)
set_tests_properties(jobs_batchfail PROPERTIES PROCESSORS 2 TIMEOUT 300)
set_tests_properties(jobs_syntax jobs_dryrun jobs_fixtures jobs_analyze jobs_malformed jobs_batchfail
                     PROPERTIES LABELS jobs)

# cubecg-model --preset oakforest-pacs models the published Table 7 (AR / IAR, thread on in both)
# from Table 4, leave-one-out; jobs_model_local: the same ratio from the local reports
add_test(NAME jobs_model
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/jobs/test_jobs_model.sh ${JOBS_SRC} ${JOBS_OUT}/model)
add_test(NAME jobs_model_local
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/jobs/test_jobs_model.sh ${JOBS_SRC}
                 ${JOBS_OUT}/model_local ${JOBS_FIXTURES})
set_tests_properties(jobs_model_local PROPERTIES FIXTURES_REQUIRED jobs_reports TIMEOUT 300)
set_tests_properties(jobs_model jobs_model_local PROPERTIES LABELS jobs)

# the analysis package's pytest tests on fixture reports (tests/jobs: series grouping, medians of
# repeats, noise verdicts, table values, published values from the data file, the model's fit, the
# command lines) and its shape (no file over 500 lines, no function
# over 80, no import circle, no sys.path edit: well under a second). pytest comes from
# jobs/ensure-python.sh (setup.sh); a missing pytest fails the test, it is not skipped.
add_test(NAME jobs_pytest COMMAND python3 -m pytest -q ${CMAKE_CURRENT_SOURCE_DIR}/jobs)
add_test(NAME jobs_package_limits
         COMMAND python3 ${CMAKE_CURRENT_SOURCE_DIR}/jobs/check_package.py
                 ${PROJECT_SOURCE_DIR}/jobs/cubecg_analysis)
set_tests_properties(jobs_pytest jobs_package_limits PROPERTIES LABELS jobs TIMEOUT 300)
# the job scripts validate their options as strictly as the driver: the named bad cases refused
# (exit 2, one line), then a seeded fuzz of option words and bad values (dry runs, seconds)
add_test(NAME jobs_options_fuzz
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/jobs/test_jobs_options_fuzz.sh ${JOBS_SRC}
                 ${JOBS_OUT}/options_fuzz)
set_tests_properties(jobs_options_fuzz PROPERTIES LABELS jobs)
# submit-study.sh's list: placements and variant lists, its --help, CUBECG_MPI against the build's
# MPI, and the Table 6 recipes of docs/study.md (dry runs, seconds)
add_test(NAME jobs_tools
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/jobs/test_jobs_tools.sh ${JOBS_SRC} ${JOBS_OUT}/tools)
set_tests_properties(jobs_tools PROPERTIES LABELS jobs TIMEOUT 300)
# `pip install ./jobs` into a fresh venv installs the package and writes nothing into jobs/
add_test(NAME jobs_pip_install_clean
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/jobs/test_pip_install_clean.sh ${JOBS_SRC}
                 ${JOBS_OUT}/pip_install)
set_tests_properties(jobs_pip_install_clean PROPERTIES LABELS jobs TIMEOUT 300)

# jobs/ read the variants from the report's "available": the built-in copy equals cubecg's registry.
find_package(Python3 COMPONENTS Interpreter)
file(MAKE_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/registry)
if(Python3_FOUND)
  add_test(NAME jobs_variants_match
           COMMAND sh -c "cd '${CMAKE_CURRENT_BINARY_DIR}/registry' && OMP_NUM_THREADS=1 '${MPIEXEC_EXECUTABLE}' -n 1 '$<TARGET_FILE:cubecg>' --nx 4 --ny 4 --nz 4 --quiet --report variants.json > /dev/null && '${Python3_EXECUTABLE}' '${CMAKE_CURRENT_SOURCE_DIR}/jobs/check_variants.py' '${PROJECT_SOURCE_DIR}/jobs' variants.json")
  # jobs/ab.py: one pair of tiny runs (a --maxit run exits 3 and counts), the summary's ratio is
  # the two reports' time-per-iteration ratio, and a failing run (bad option) stops it
  add_test(NAME jobs_ab
           COMMAND sh -c "out='${CMAKE_CURRENT_BINARY_DIR}/ab' && rm -rf \"$out\" && '${Python3_EXECUTABLE}' '${PROJECT_SOURCE_DIR}/jobs/ab.py' --pairs 2 --launch '${MPIEXEC_EXECUTABLE} -n 2' --cubecg '$<TARGET_FILE:cubecg>' --out \"$out\" --a '--precond-precision double' --b '--precond-precision single' -- --nx 6 --ny 5 --nz 4 --maxit 5 && '${Python3_EXECUTABLE}' -c \"import json,sys; s=json.load(open(sys.argv[1]+'/ab.json')); a=[json.load(open(sys.argv[1]+'/a.%d.json'%k))['solves'][0]['time_per_iter_s'] for k in (0,1)]; b=[json.load(open(sys.argv[1]+'/b.%d.json'%k))['solves'][0]['time_per_iter_s'] for k in (0,1)]; r=[x/y for x,y in zip(a,b)]; assert all(abs(x-y)<=1e-12*x for x,y in zip(r,s['ratio_a_over_b'])), (r,s); assert [x['iterations'] for x in s['a']['runs']]==[5,5]; print('ab.json ok')\" \"$out\" && ! '${Python3_EXECUTABLE}' '${PROJECT_SOURCE_DIR}/jobs/ab.py' --pairs 1 --cubecg '$<TARGET_FILE:cubecg>' --out \"$out/bad\" --a '--solver bogus' --b '' -- --nx 4 2>/dev/null")
endif()
