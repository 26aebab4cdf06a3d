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
