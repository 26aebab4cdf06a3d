# Installable build: cmake --install, find_package(cubecg), pkg-config, jobs/ from the
# prefix; CUBECG_NATIVE gives way to user-given target flags. Release tree only: a consumer of the
# sanitizer tree's libraries would need the sanitizer runtime.
if(CUBECG_SANITIZE)
  return()
endif()
add_test(NAME install_find_package_pkgconfig
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/install/test_install.sh ${CMAKE_SOURCE_DIR}
                 ${CMAKE_BINARY_DIR} ${CMAKE_CURRENT_BINARY_DIR}/install-test)
add_test(NAME install_native_flags_overridden
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/install/test_native_flags.sh ${CMAKE_SOURCE_DIR}
                 ${CMAKE_CURRENT_BINARY_DIR}/native-flags-test)
# the kernels' other compile-time paths (portable C; AVX2 without AVX-512), compiled out here
add_test(NAME portable_kernels
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/install/test_portable_kernels.sh ${CMAKE_SOURCE_DIR}
                 ${CMAKE_CURRENT_BINARY_DIR}/portable-kernels-test ${MPIEXEC_EXECUTABLE})
set_tests_properties(install_find_package_pkgconfig install_native_flags_overridden
                     portable_kernels PROPERTIES LABELS "install" TIMEOUT 300)
