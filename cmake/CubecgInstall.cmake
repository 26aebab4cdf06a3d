# CubecgInstall.cmake: `cmake --install` rules: the programs, the libraries with their headers as
# an exported CMake package (find_package(cubecg) -> cubecg::cc_common, cubecg::cc_mesh,
# cubecg::cc_solvers, cubecg::cc_io), a pkg-config file (cubecg.pc), the jobs/ scripts and the docs.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(CUBECG_LIBRARIES cc_common cc_mesh cc_solvers cc_io)
set(CUBECG_INSTALL_INCLUDEDIR ${CMAKE_INSTALL_INCLUDEDIR}/cubecg)
set(CUBECG_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/cubecg)
# Build-tree include directories become the install tree's include/cubecg.
foreach(lib ${CUBECG_LIBRARIES})
  get_target_property(src ${lib} SOURCE_DIR)
  set_property(TARGET ${lib} PROPERTY INTERFACE_INCLUDE_DIRECTORIES
               "$<BUILD_INTERFACE:${src}>" "$<INSTALL_INTERFACE:${CUBECG_INSTALL_INCLUDEDIR}>")
endforeach()
if(CUBECG_HAVE_FORTRAN)
  # cc_io holds Fortran objects: a C-only consumer links the Fortran runtime explicitly.
  target_link_libraries(cc_io PRIVATE $<INSTALL_INTERFACE:gfortran>)
endif()

install(TARGETS cubecg cubecg-bench cubecg-iobench RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS ${CUBECG_LIBRARIES} cubecg_hdf5 EXPORT cubecgTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CUBECG_INSTALL_INCLUDEDIR})
install(FILES common/cc_common.h common/cc_error.h mesh/cc_mesh.h solvers/cc_solvers.h io/cc_io.h
        DESTINATION ${CUBECG_INSTALL_INCLUDEDIR})
install(EXPORT cubecgTargets NAMESPACE cubecg:: DESTINATION ${CUBECG_INSTALL_CMAKEDIR})
configure_package_config_file(cmake/cubecgConfig.cmake.in
                              ${CMAKE_CURRENT_BINARY_DIR}/cubecgConfig.cmake
                              INSTALL_DESTINATION ${CUBECG_INSTALL_CMAKEDIR})
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/cubecgConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/cubecgConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/cubecgConfigVersion.cmake cmake/FindMETIS.cmake
        DESTINATION ${CUBECG_INSTALL_CMAKEDIR})

# pkg-config: static libraries, so their dependencies go in Libs.private / Requires.private.
set(CUBECG_PC_PRIVATE "-lmetis")
set(CUBECG_PC_HDF5 ${HDF5_C_LIBRARIES} ${HDF5_LIBRARIES})
list(REMOVE_DUPLICATES CUBECG_PC_HDF5)
foreach(l ${CUBECG_PC_HDF5})
  string(APPEND CUBECG_PC_PRIVATE " ${l}")
endforeach()
if(CUBECG_HAVE_OTF2)
  string(APPEND CUBECG_PC_PRIVATE " -lopen-trace-format2")
endif()
if(CUBECG_HAVE_FORTRAN)
  string(APPEND CUBECG_PC_PRIVATE " -lgfortran")
endif()
string(APPEND CUBECG_PC_PRIVATE " ${OpenMP_C_FLAGS} -lpthread -lm")
configure_file(cmake/cubecg.pc.in ${CMAKE_CURRENT_BINARY_DIR}/cubecg.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/cubecg.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# The study scripts and the documentation (jobs/lib finds bin/ of the prefix when installed).
# jobs/cubecg_analysis is the analysis package (its data/published.json with it); what a
# `pip install ./jobs` left in the source tree is not shipped
install(DIRECTORY jobs DESTINATION ${CMAKE_INSTALL_DATADIR}/cubecg USE_SOURCE_PERMISSIONS
        PATTERN "__pycache__" EXCLUDE PATTERN "*.egg-info" EXCLUDE REGEX "/jobs/build$" EXCLUDE)
install(FILES README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
# docs/ keeps its name so that the README's links (docs/...) resolve in the installed tree too
install(DIRECTORY docs DESTINATION ${CMAKE_INSTALL_DOCDIR})
