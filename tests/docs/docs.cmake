# Documentation against the programs and the repository (cheap: a few --help runs and file reads).
find_package(Python3 COMPONENTS Interpreter)

# Every option and environment variable that `--help` of cubecg, cubecg-bench, cubecg-iobench and
# cubecg-gasbench prints is described in docs/user-guide.md.
add_test(NAME docs_help_options_in_user_guide
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/docs/check_docs.py options
                 ${PROJECT_SOURCE_DIR}/docs/user-guide.md $<TARGET_FILE:cubecg>
                 $<TARGET_FILE:cubecg-bench> $<TARGET_FILE:cubecg-iobench>
                 $<TARGET_FILE:cubecg-gasbench>)
set_tests_properties(docs_help_options_in_user_guide PROPERTIES LABELS docs TIMEOUT 120)

# Every relative link in README.md and docs/*.md names a file of the repository; none points out.
add_test(NAME docs_links_resolve
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/docs/check_docs.py links
                 ${PROJECT_SOURCE_DIR} ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/docs)
set_tests_properties(docs_links_resolve PROPERTIES LABELS docs TIMEOUT 60)

# The README stays a user's document: at most 25 KB (details go to docs/).
add_test(NAME docs_readme_size
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/docs/check_docs.py size
                 ${PROJECT_SOURCE_DIR}/README.md 25600)
set_tests_properties(docs_readme_size PROPERTIES LABELS docs TIMEOUT 60)

# Every study.csv column is described in docs/study.md: the analyzer writes study.csv from the
# fixture reports of tests/jobs/fixtures (into the build tree), the check reads its header.
add_test(NAME docs_study_columns
         COMMAND sh -c "PYTHONPATH='${PROJECT_SOURCE_DIR}/jobs' '${Python3_EXECUTABLE}' -m cubecg_analysis.cli --force --figdir '${CMAKE_CURRENT_BINARY_DIR}/docs_columns' '${CMAKE_CURRENT_SOURCE_DIR}/jobs/fixtures' > /dev/null && '${Python3_EXECUTABLE}' '${CMAKE_CURRENT_SOURCE_DIR}/docs/check_docs.py' columns '${PROJECT_SOURCE_DIR}/docs/study.md' '${CMAKE_CURRENT_BINARY_DIR}/docs_columns/study.csv' study.csv")
set_tests_properties(docs_study_columns PROPERTIES LABELS docs TIMEOUT 300)

# Every exit code of the README's table is asserted by a test through tests/common/expect_exit.sh
# (the ones below, the driver's and the checkpoints' own).
add_test(NAME docs_readme_exit_codes_tested
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/docs/check_docs.py exits
                 ${PROJECT_SOURCE_DIR}/README.md ${CMAKE_BINARY_DIR})
set_tests_properties(docs_readme_exit_codes_tested PROPERTIES LABELS docs TIMEOUT 120)
# one run per README code, as a user meets it: 0 a passing run (nothing on stderr); 1 a run-time
# error (a NaN put into r by the solver test seam: one line naming it); 2 bad input (one line);
# 3 a check that failed (--maxit cuts the solve short: not converged); 4 SIGTERM after the solve
# started (8 s; a run that needs 10^6 iterations, killed after 60 s more if it ignores the signal)
set(DOCS_EXPECT ${CMAKE_CURRENT_SOURCE_DIR}/common/expect_exit.sh)
set(DOCS_RUN env OMP_NUM_THREADS=1 ${MPIEXEC_EXECUTABLE} -n 1 $<TARGET_FILE:cubecg> --nx 4 --ny 4
             --nz 4 --quiet)
add_test(NAME docs_exit_0 COMMAND ${DOCS_EXPECT} 0 "" 0 -- ${DOCS_RUN})
add_test(NAME docs_exit_1 COMMAND ${DOCS_EXPECT} 1 "numerical error: pcg ar: breakdown at iteration"
                                  -- env CUBECG_KRYLOV_INJECT=nan@2 ${DOCS_RUN})
add_test(NAME docs_exit_2 COMMAND ${DOCS_EXPECT} 2 "--nx 1: every direction needs at least 2 nodes"
                                  -- ${DOCS_RUN} --nx 1)
add_test(NAME docs_exit_3 COMMAND ${DOCS_EXPECT} 3 "" any -- ${DOCS_RUN} --maxit 2)
add_test(NAME docs_exit_4
         COMMAND ${DOCS_EXPECT} 4 "" any -- env OMP_NUM_THREADS=1 timeout --preserve-status -k 60
                 -s TERM 8 $<TARGET_FILE:cubecg> --nx 40 --ny 40 --nz 40 --precond none --tol 1e-15
                 --maxit 1000000 --quiet)
set_tests_properties(docs_exit_0 docs_exit_1 docs_exit_2 docs_exit_3 docs_exit_4
                     PROPERTIES LABELS docs TIMEOUT 120)

# The README's sample summary has the format cubecg prints today (the same lines and words,
# numbers free): a 6^3 default job, cut as tests/docs/readme_sample.py make cuts the 32^3 one.
add_test(NAME docs_readme_sample_format
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/docs/readme_sample.py check
                 ${PROJECT_SOURCE_DIR}/README.md ${MPIEXEC_EXECUTABLE} $<TARGET_FILE:cubecg>)
set_tests_properties(docs_readme_sample_format PROPERTIES LABELS docs PROCESSORS 2 TIMEOUT 300)
