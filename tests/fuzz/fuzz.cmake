# Fuzz targets: libFuzzer with clang-14 over what reads untrusted bytes: the
# option parser, the options file, the checkpoint manifest and the per-rank file header. Built and
# run by tests/fuzz/fuzz.sh (its own clang build: the project's compiler is mpicc/gcc); skipped with a
# message when clang-14 / libFuzzer are absent. Registered in the release tree only (the sanitizer
# tree would run them twice). CUBECG_FUZZ_SECONDS bounds each run.
set(CUBECG_FUZZ_SECONDS 60 CACHE STRING "seconds of fuzzing per target in the test suite")
if(NOT CUBECG_SANITIZE)
  set(fuzz_out ${CMAKE_CURRENT_BINARY_DIR}/fuzz)
  file(MAKE_DIRECTORY ${fuzz_out})
  set(fuzz_mpi_inc "")
  foreach(d ${MPI_C_INCLUDE_DIRS})
    string(APPEND fuzz_mpi_inc " -I${d}")
  endforeach()
  set(fuzz_hdf5_inc "")
  foreach(d ${HDF5_C_INCLUDE_DIRS} ${HDF5_INCLUDE_DIRS})
    string(APPEND fuzz_hdf5_inc " -I${d}")
  endforeach()
  set(fuzz_libs "")
  set(fuzz_lib_list ${MPI_C_LIBRARIES} ${HDF5_C_LIBRARIES} ${LIBURING_LINK_LIBRARIES} ${METIS_LIBRARY})
  get_target_property(fuzz_cjson cjson LOCATION) # the manifest reader parses with cJSON
  list(APPEND fuzz_lib_list ${fuzz_cjson})
  list(REMOVE_DUPLICATES fuzz_lib_list)
  foreach(l ${fuzz_lib_list})
    string(APPEND fuzz_libs " ${l}")
  endforeach()
  file(WRITE ${fuzz_out}/fuzz.env
       "SRC='${CMAKE_SOURCE_DIR}'\nOUT='${fuzz_out}'\nMPI_INC='${fuzz_mpi_inc}'\n"
       "HDF5_INC='${fuzz_hdf5_inc}'\nLIBS='${fuzz_libs}'\n"
       "BUILD_INFO='${CMAKE_BINARY_DIR}/common/cc_build_info.c'\n")
  foreach(target options options_file manifest rankfile)
    add_test(NAME fuzz_${target}
             COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/fuzz.sh ${fuzz_out}/fuzz.env ${target}
                     ${CUBECG_FUZZ_SECONDS})
    set_tests_properties(fuzz_${target} PROPERTIES LABELS "fuzz" SKIP_RETURN_CODE 77 TIMEOUT 900
                         PROCESSORS 1)
  endforeach()
endif()
