# CubecgMPI.cmake: which MPI library this build uses, and the parallel HDF5 built for that same
# library. One process must never load two MPI libraries: an HDF5 built for MPICH pulls
# libmpich.so.12 into an Intel MPI or Open MPI binary, and nothing at run time would say so.
#
# Sets CUBECG_MPI_IMPL (mpich | openmpi | intel | cray-mpich | mvapich | unknown),
# CUBECG_MPI_VERSION_TEXT, CUBECG_HAVE_HDF5 (ON/OFF) and CUBECG_HDF5_WHY (why it is absent, or the
# HDF5 that was taken). CUBECG_HDF5: AUTO (default: the backend when a parallel HDF5 of the chosen
# MPI is found), ON (required), OFF (never).

set(CUBECG_HDF5 AUTO CACHE STRING "parallel HDF5 checkpoint backend: AUTO, ON or OFF")
set_property(CACHE CUBECG_HDF5 PROPERTY STRINGS AUTO ON OFF)
string(TOUPPER "${CUBECG_HDF5}" CUBECG_HDF5)
if(NOT CUBECG_HDF5 MATCHES "^(AUTO|ON|OFF)$")
  message(FATAL_ERROR "cubecg: CUBECG_HDF5='${CUBECG_HDF5}' (AUTO, ON or OFF)")
endif()

# The implementation from the library's own version string (MPI_Get_library_version, as FindMPI
# read it), else from the wrapper's name.
function(cubecg_mpi_impl_of text out)
  if(text MATCHES "Intel\\(R\\) MPI|Intel MPI")
    set(impl intel)
  elseif(text MATCHES "Open MPI|OpenMPI|openmpi")
    set(impl openmpi)
  elseif(text MATCHES "MVAPICH|mvapich")
    set(impl mvapich)
  elseif(text MATCHES "CRAY MPICH|Cray MPICH")
    set(impl cray-mpich)
  elseif(text MATCHES "MPICH|mpich")
    set(impl mpich)
  else()
    set(impl unknown)
  endif()
  set(${out} ${impl} PARENT_SCOPE)
endfunction()

# The wrapper names its library: "mpicc for MPICH version 4.0.2", "mpigcc for the Intel(R) MPI
# Library 2021.18", Open MPI's --showme:version "Open MPI 4.1.4".
set(CUBECG_MPI_VERSION_TEXT "${MPI_C_LIBRARY_VERSION_STRING}")
if(CUBECG_MPI_VERSION_TEXT STREQUAL "")
  foreach(flag --showme:version -v)
    execute_process(COMMAND "${MPI_C_COMPILER}" ${flag} OUTPUT_VARIABLE out ERROR_VARIABLE err
                    RESULT_VARIABLE rc TIMEOUT 20)
    string(REGEX MATCH "[^\n]*(MPICH|MPI Library|Open MPI|MVAPICH)[^\n]*" line "${out}${err}")
    if(line)
      set(CUBECG_MPI_VERSION_TEXT "${line}")
      break()
    endif()
  endforeach()
endif()
string(REGEX REPLACE "[\n\t ]+" " " CUBECG_MPI_VERSION_TEXT "${CUBECG_MPI_VERSION_TEXT}")
string(SUBSTRING "${CUBECG_MPI_VERSION_TEXT}" 0 100 CUBECG_MPI_VERSION_TEXT)
cubecg_mpi_impl_of("${CUBECG_MPI_VERSION_TEXT}" CUBECG_MPI_IMPL)
if(CUBECG_MPI_IMPL STREQUAL "unknown")
  get_filename_component(cubecg_mpicc_name "${MPI_C_COMPILER}" NAME)
  cubecg_mpi_impl_of("${cubecg_mpicc_name} ${MPI_C_LIBRARIES}" CUBECG_MPI_IMPL)
endif()

# The MPI shared libraries a file needs (ldd), as real paths: what it loads at run time.
function(cubecg_mpi_libs_of file out)
  set(libs "")
  execute_process(COMMAND ldd "${file}" OUTPUT_VARIABLE ldd_out ERROR_QUIET RESULT_VARIABLE rc)
  if(rc EQUAL 0)
    string(REGEX MATCHALL "lib(mpi|mpich|mpi_mpifh|mpl)[a-z_]*\\.so[.0-9]* => [^ \n]+" hits "${ldd_out}")
    foreach(hit ${hits})
      string(REGEX REPLACE ".* => " "" path "${hit}")
      get_filename_component(real "${path}" REALPATH)
      list(APPEND libs "${real}")
    endforeach()
  endif()
  list(REMOVE_DUPLICATES libs)
  set(${out} "${libs}" PARENT_SCOPE)
endfunction()

# The chosen MPI's own libraries (the files FindMPI links), as real paths.
set(cubecg_mpi_real "")
foreach(lib ${MPI_C_LIBRARIES})
  if(lib MATCHES "/lib(mpi|mpich)[^/]*\\.so")
    get_filename_component(real "${lib}" REALPATH)
    list(APPEND cubecg_mpi_real "${real}")
  endif()
endforeach()

# The HDF5 wrapper: the user's, else the one Debian builds for this MPI.
set(cubecg_h5_user OFF)
if(DEFINED HDF5_C_COMPILER_EXECUTABLE OR DEFINED HDF5_ROOT OR DEFINED ENV{HDF5_ROOT})
  set(cubecg_h5_user ON)
elseif(CUBECG_MPI_IMPL MATCHES "^(mpich|openmpi)$")
  find_program(CUBECG_H5PCC_OF_MPI h5pcc.${CUBECG_MPI_IMPL})
  if(CUBECG_H5PCC_OF_MPI)
    set(HDF5_C_COMPILER_EXECUTABLE "${CUBECG_H5PCC_OF_MPI}" CACHE FILEPATH
        "parallel HDF5 wrapper of the chosen MPI")
  endif()
endif()

set(CUBECG_HAVE_HDF5 OFF)
if(CUBECG_HDF5 STREQUAL "OFF")
  set(CUBECG_HDF5_WHY "hdf5 backend turned off at configure time (CUBECG_HDF5=OFF)")
elseif(NOT cubecg_h5_user AND NOT HDF5_C_COMPILER_EXECUTABLE)
  set(CUBECG_HDF5_WHY
      "no parallel HDF5 built for ${CUBECG_MPI_IMPL} was found (give one with -DHDF5_C_COMPILER_EXECUTABLE=<its h5pcc>)")
else()
  set(HDF5_PREFER_PARALLEL TRUE)
  find_package(HDF5 COMPONENTS C)
  if(NOT HDF5_FOUND OR NOT HDF5_IS_PARALLEL)
    set(CUBECG_HDF5_WHY "no parallel HDF5 found through ${HDF5_C_COMPILER_EXECUTABLE}")
  else()
    set(cubecg_h5_lib "")
    foreach(lib ${HDF5_C_LIBRARIES})
      if(lib MATCHES "/libhdf5\\.so")
        set(cubecg_h5_lib "${lib}")
      endif()
    endforeach()
    cubecg_mpi_libs_of("${cubecg_h5_lib}" cubecg_h5_mpi)
    set(cubecg_common "")
    foreach(lib ${cubecg_h5_mpi})
      if(lib IN_LIST cubecg_mpi_real)
        list(APPEND cubecg_common "${lib}")
      endif()
    endforeach()
    if(cubecg_h5_mpi AND NOT cubecg_common)
      list(JOIN cubecg_h5_mpi " " h5_mpi_text)
      list(JOIN cubecg_mpi_real " " mpi_text)
      message(FATAL_ERROR
              "cubecg: HDF5 ${cubecg_h5_lib} is built for another MPI (${h5_mpi_text}) than the chosen ${CUBECG_MPI_IMPL} (${mpi_text}); give that MPI's HDF5 (-DHDF5_C_COMPILER_EXECUTABLE) or turn the backend off (-DCUBECG_HDF5=OFF)")
    endif()
    set(CUBECG_HAVE_HDF5 ON)
    set(CUBECG_HDF5_WHY "HDF5 ${HDF5_VERSION} ${cubecg_h5_lib}")
  endif()
endif()
if(CUBECG_HDF5 STREQUAL "ON" AND NOT CUBECG_HAVE_HDF5)
  message(FATAL_ERROR "cubecg: CUBECG_HDF5=ON but ${CUBECG_HDF5_WHY}")
endif()

# HDF5's variables as an imported target, so modules link it like the others (empty without it).
add_library(cubecg_hdf5 INTERFACE)
if(CUBECG_HAVE_HDF5)
  target_include_directories(cubecg_hdf5 SYSTEM INTERFACE ${HDF5_C_INCLUDE_DIRS} ${HDF5_INCLUDE_DIRS})
  target_compile_definitions(cubecg_hdf5 INTERFACE ${HDF5_C_DEFINITIONS} ${HDF5_DEFINITIONS})
  target_link_libraries(cubecg_hdf5 INTERFACE ${HDF5_C_LIBRARIES} ${HDF5_LIBRARIES})
endif()
add_library(HDF5::cubecg ALIAS cubecg_hdf5)

message(STATUS "cubecg: MPI ${CUBECG_MPI_IMPL}: ${CUBECG_MPI_VERSION_TEXT}")
message(STATUS "cubecg: hdf5 backend ${CUBECG_HAVE_HDF5}: ${CUBECG_HDF5_WHY}")

# The MPI of this build for the job scripts (jobs/lib/cubecg-jobs.sh reads it beside the programs):
# they set this library's knobs and pin ranks its way.
set(cubecg_mpi_env "CUBECG_MPI=${CUBECG_MPI_IMPL}\nCUBECG_MPIEXEC=${MPIEXEC_EXECUTABLE}\nCUBECG_HDF5=${CUBECG_HAVE_HDF5}\n")
if(CUBECG_MPI_IMPL STREQUAL "intel")
  get_filename_component(cubecg_impi_bin "${MPIEXEC_EXECUTABLE}" DIRECTORY)
  get_filename_component(cubecg_impi_root "${cubecg_impi_bin}" DIRECTORY)
  string(APPEND cubecg_mpi_env "I_MPI_ROOT=${cubecg_impi_root}\n")
endif()
file(WRITE "${CMAKE_BINARY_DIR}/cubecg-mpi.env" "${cubecg_mpi_env}")
