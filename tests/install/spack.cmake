# The Spack package (spack/packages/cubecg/package.py) against the CMake build: a variant for every
# CUBECG_* option and optional language, a dependency for every required package, no CMake name
# set that the build does not read (tests/install/check_spack_variants.py; no Spack needed).
add_test(NAME spack_package_variants
         COMMAND python3 ${CMAKE_CURRENT_SOURCE_DIR}/install/check_spack_variants.py ${PROJECT_SOURCE_DIR})
