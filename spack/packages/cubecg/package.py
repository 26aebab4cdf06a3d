# Spack package of cubecg: the GeoFEM/Cube linear-elastic mini-app (C17 + MPI + OpenMP), its CG
# variants and checkpoint backends. Install steps and the externals file: docs/install-spack.md.
# Every variant maps to one CMake setting of the project (tests/install/check_spack_variants.py
# checks the two lists agree).

from spack.package import *


class Cubecg(CMakePackage):
    """GeoFEM/Cube linear-elastic benchmark: CG variants (classic, pipelined, s-step), SGS and
    multicolour preconditioners, box and METIS partitions, checkpoint backends (POSIX, io_uring,
    offload, parallel HDF5, Fortran, a global memory store) and one JSON report per run."""

    # Built from a checkout: `spack dev-build -d <checkout> cubecg@develop` or `spack develop`
    # (docs/install-spack.md); the package names no remote.
    version("develop")

    variant("hdf5", default=True, description="Parallel HDF5 checkpoint backend (CUBECG_HDF5)")
    variant("fortran", default=True, description="Fortran READ/WRITE checkpoint backend")
    variant("native", default=True, description="Compile with -march=native (CUBECG_NATIVE)")
    variant("sanitize", default=False, description="AddressSanitizer + UBSan (CUBECG_SANITIZE)")
    variant("otf2", default=False, description="OTF2 event traces, --trace DIR (CUBECG_OTF2)")

    depends_on("cmake@3.25:", type="build")
    depends_on("pkgconfig", type="build")

    depends_on("mpi")
    depends_on("metis@5:")
    depends_on("liburing")
    depends_on("cjson")
    depends_on("hdf5+mpi", when="+hdf5")
    depends_on("otf2", when="+otf2")

    def cmake_args(self):
        args = [
            self.define_from_variant("CUBECG_NATIVE", "native"),
            self.define_from_variant("CUBECG_SANITIZE", "sanitize"),
            self.define("CUBECG_HDF5", "ON" if self.spec.satisfies("+hdf5") else "OFF"),
            # ON or OFF, never the build's AUTO: the spec decides whether --trace exists
            self.define("CUBECG_OTF2", "ON" if self.spec.satisfies("+otf2") else "OFF"),
            self.define("MPI_C_COMPILER", self.spec["mpi"].mpicc),
            self.define("BUILD_TESTING", self.run_tests),
        ]
        if self.spec.satisfies("+hdf5"):
            # the HDF5 of the spec, not a wrapper found on PATH (which may belong to another MPI)
            args.append(self.define("HDF5_ROOT", self.spec["hdf5"].prefix))
        if self.spec.satisfies("~fortran"):
            # check_language(Fortran) looks no further once the variable is set: no Fortran
            args.append(self.define("CMAKE_Fortran_COMPILER", ""))
        return args
