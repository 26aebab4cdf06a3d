# Driver conventions and hardening: exit codes and one-line messages for bad input,
# limits that are limits, output paths checked before the work, --version/-h, options file and
# CUBECG_OPTIONS with their provenance in the report, agreed failures that never lose their message.
find_package(Python3 COMPONENTS Interpreter)
set(CUBECG $<TARGET_FILE:cubecg>)
set(IOBENCH $<TARGET_FILE:cubecg-iobench>)
set(EXPECT ${CMAKE_CURRENT_SOURCE_DIR}/common/expect_exit.sh)
set(COUT ${CMAKE_CURRENT_BINARY_DIR}/out/conventions)
file(MAKE_DIRECTORY ${COUT})
file(WRITE ${COUT}/a_file "not a directory\n")
file(WRITE ${COUT}/opts_bad.txt "# an options file with a typo on line 3\n--nx 6\n--frobnicate 2\n")
file(WRITE ${COUT}/opts_nested.txt "--options-file other.txt\n")
file(WRITE ${COUT}/opts_good.txt "# mesh from the file\n--nx 6   # x\n--ny 9\n--nz 9\n--tol=1e-9\n")

# name | exit code | stderr pattern | arguments (2 ranks, one stderr line)
cc_add_cases(PREFIX conv_bad_ FIELDS name code pattern args WORDS args
  COMMAND ${EXPECT} @code@ "@pattern@" -- ${MPIEXEC_EXECUTABLE} -n 2 ${CUBECG} @args@
  PROPERTIES PROCESSORS 2 ENVIRONMENT OMP_NUM_THREADS=1
  CASES
    "durable_2|2|--durable: '2' must be 0 or 1|--durable 2"
    "io_buffer_fraction|2|--io-buffer: '600.7'|--io-buffer 600.7"
    "io_buffer_hex|2|--io-buffer: '0x1000'|--io-buffer 0x1000"
    "io_buffer_overflow|2|--io-buffer: '99999999999999999999k'|--io-buffer 99999999999999999999k"
    "io_writeback_small|2|--io-writeback 1024 must be 0 \\(off\\) or between 4 KiB|--io-writeback 1k"
    "io_writeback_word|2|--io-writeback: 'soon'|--io-writeback soon"
    "memory_fraction_tiny|2|--memory-fraction 1e-300|--memory-fraction 1e-300"
    "memory_fraction_zero|2|--memory-fraction 0|--memory-fraction 0"
    "memory_refused|2|GiB per rank.*--memory-fraction 0.001|--nx 300 --ny 300 --nz 300 --memory-fraction 0.001"
    "report_no_dir|2|--report ${COUT}/nodir/r.json: directory|--report ${COUT}/nodir/r.json"
    "report_is_dir|2|is a directory|--report ${COUT}"
    "export_no_dir|2|--export-solution ${COUT}/sub/dir/out: directory|--export-solution ${COUT}/sub/dir/out"
    "export_stdout|2|--export-solution -: this output cannot go to stdout|--export-solution -"
    "checkpoint_dir_under_file|2|a_file/ck: .*[Nn]ot a directory|--checkpoint posix --checkpoint-dir ${COUT}/a_file/ck"
    "restart_missing|2|--restart ${COUT}/none: not a directory|--restart ${COUT}/none"
    "options_file_missing|2|--options-file ${COUT}/none.txt: No such file|--options-file ${COUT}/none.txt"
    "options_file_unknown|2|opts_bad.txt:3: unknown option '--frobnicate'|--options-file ${COUT}/opts_bad.txt"
    "options_file_nested|2|opts_nested.txt:1: --options-file inside an options file|--options-file ${COUT}/opts_nested.txt"
    "short_unknown|2|unexpected argument '-x'|-x")

# The environment variable is named in its errors; CUBECG_TRACE=1 adds the file:line trace.
add_test(NAME conv_bad_env_option
         COMMAND ${CMAKE_COMMAND} -E env "CUBECG_OPTIONS=--nx 6 --durable 7" OMP_NUM_THREADS=1
                 ${EXPECT} 2 "CUBECG_OPTIONS: --durable: '7'" -- ${MPIEXEC_EXECUTABLE} -n 1 ${CUBECG})
add_test(NAME conv_trace_on_request
         COMMAND ${CMAKE_COMMAND} -E env CUBECG_TRACE=1 OMP_NUM_THREADS=1
                 ${EXPECT} 2 "--durable: '2'" any -- ${MPIEXEC_EXECUTABLE} -n 1 ${CUBECG} --durable 2)
add_test(NAME conv_trace_lines
         COMMAND sh -c "CUBECG_TRACE=1 OMP_NUM_THREADS=1 ${MPIEXEC_EXECUTABLE} -n 1 $<TARGET_FILE:cubecg> --durable 2 2>&1 | grep -q 'options.c:[0-9]'")

# cubecg-iobench: bad input is exit 2 (not 1) with one line.
cc_add_cases(PREFIX conv_iobench_bad_ FIELDS name args WORDS args
  COMMAND ${EXPECT} 2 "invalid argument" -- ${MPIEXEC_EXECUTABLE} -n 1 ${IOBENCH} @args@
          --dir ${COUT}/iobench
  ENVIRONMENT OMP_NUM_THREADS=1
  CASES "repeat|--repeat 3x" "buffer_fraction|--buffers 600.7" "size_hex|--sizes 0x1000"
        "unknown|--frobnicate=1")

# --version / -V / -h: exit 0, on stdout.
add_test(NAME conv_version
         COMMAND sh -c "${MPIEXEC_EXECUTABLE} -n 1 $<TARGET_FILE:cubecg> --version | grep -q '^cubecg ${PROJECT_VERSION} (.* build, flags -'")
add_test(NAME conv_version_short
         COMMAND sh -c "${MPIEXEC_EXECUTABLE} -n 2 $<TARGET_FILE:cubecg> -V | grep -c '^cubecg ' | grep -qx 1")
add_test(NAME conv_help_short
         COMMAND sh -c "${MPIEXEC_EXECUTABLE} -n 1 $<TARGET_FILE:cubecg> -h | grep -q -- '--options-file'")
set_tests_properties(conv_version conv_version_short conv_help_short PROPERTIES ENVIRONMENT
                     OMP_NUM_THREADS=1)

# Options file < CUBECG_OPTIONS < command line; the report says where each value came from.
add_test(NAME conv_options_sources
         COMMAND ${CMAKE_COMMAND} -E env "CUBECG_OPTIONS=--ny 5 --nz 7 --options-file ${COUT}/opts_good.txt"
                 OMP_NUM_THREADS=1 ${MPIEXEC_EXECUTABLE} -n 2 ${CUBECG} --nz 4 --quiet
                 --report ${COUT}/sources.json)
set_tests_properties(conv_options_sources PROPERTIES PROCESSORS 2 FIXTURES_SETUP conv_sources)
add_test(NAME conv_options_sources_report
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/common/check_report.py expect
                 ${COUT}/sources.json
                 "r['parameters']['nx'] == 6 and r['parameter_sources']['nx'] == 'file'"
                 "r['parameters']['ny'] == 5 and r['parameter_sources']['ny'] == 'env'"
                 "r['parameters']['nz'] == 4 and r['parameter_sources']['nz'] == 'cmdline'"
                 "r['parameters']['tol'] == 1e-9 and r['parameter_sources']['tol'] == 'file'"
                 "r['parameter_sources']['maxit'] == 'default'"
                 "r['parameter_sources']['options-file'] == 'env'"
                 "r['build']['flags'].strip() != ''")
set_tests_properties(conv_options_sources_report PROPERTIES FIXTURES_REQUIRED conv_sources)

# --report - and a fifo target; 20 agreed failures in a row, each with its message.
add_test(NAME conv_report_targets
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/driver/test_report_targets.sh ${MPIEXEC_EXECUTABLE} ${CUBECG}
                 ${COUT}/targets)
add_test(NAME conv_error_output_20_runs
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/driver/error_output_20_runs.sh ${MPIEXEC_EXECUTABLE}
                 ${CUBECG} ${COUT}/ranks_mismatch)
set_tests_properties(conv_error_output_20_runs PROPERTIES PROCESSORS 3 TIMEOUT 300)
