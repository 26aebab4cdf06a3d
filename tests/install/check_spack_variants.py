#!/usr/bin/env python3
"""check_spack_variants.py REPO: the Spack package (spack/packages/cubecg/package.py) and the CMake
build agree. Read without Spack (ast of package.py, regular expressions over CMakeLists.txt and
cmake/*.cmake):
  - every CUBECG_<X> option() or CACHE setting of the build has a variant <x> and cmake_args sets
    CUBECG_<X>; every variant is read by cmake_args (define_from_variant or satisfies("+v"/"~v"))
  - an optional language (check_language(Fortran)) has a variant of that name
  - every package the build requires (find_package(... REQUIRED), pkg_check_modules(... REQUIRED))
    is a dependency, and an optional one (HDF5 behind CUBECG_HDF5) is one under its variant
  - every CMake variable cmake_args sets is the project's, or a CMake / find-module input named
    below
Exit 0 when they agree, 1 with one line per disagreement."""
import ast
import glob
import os
import re
import sys

# CMake inputs that are not the project's options (CMake's own, or read by a find module)
CMAKE_INPUTS = {"MPI_C_COMPILER", "BUILD_TESTING", "HDF5_ROOT", "CMAKE_Fortran_COMPILER"}
# find_package / pkg-config names of the build -> Spack package names
SPACK_NAME = {"MPI": "mpi", "METIS": "metis", "LIBURING": "liburing", "cJSON": "cjson",
              "HDF5": "hdf5", "OpenMP": None, "Threads": None, "PkgConfig": "pkgconfig"}


def cmake_text(repo):
    files = [os.path.join(repo, "CMakeLists.txt")] + sorted(glob.glob(os.path.join(repo, "cmake", "*.cmake")))
    return "\n".join(re.sub(r"#[^\n]*", "", open(f).read()) for f in files)


def package_facts(path):
    """variants, CMake names set by cmake_args, variants read there, dependencies (name, when)"""
    tree = ast.parse(open(path).read())
    variants, defines, read, deps = set(), set(), set(), []

    def const(node):
        return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None

    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        args = [const(a) for a in node.args]
        kw = {k.arg: const(k.value) for k in node.keywords}
        if name == "variant" and args and args[0]:
            variants.add(args[0])
        elif name == "define_from_variant" and len(args) >= 2:
            defines.add(args[0])
            read.add(args[1])
        elif name == "define" and args and args[0]:
            defines.add(args[0])
        elif name == "satisfies" and args and args[0]:
            read.update(re.findall(r"[+~]([A-Za-z0-9_]+)", args[0]))
        elif name == "depends_on" and args and args[0]:
            deps.append((re.split(r"[@+~ ]", args[0])[0], kw.get("when")))
    return variants, defines, read, deps


def main():
    repo = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
    pkg = os.path.join(repo, "spack", "packages", "cubecg", "package.py")
    text = cmake_text(repo)
    variants, defines, read, deps = package_facts(pkg)
    bad = []
    options = set(re.findall(r"\boption\(\s*(CUBECG_\w+)", text))
    options |= set(re.findall(r"\bset\(\s*(CUBECG_\w+)[^)]*\bCACHE\b", text))
    for opt in sorted(options):
        v = opt[len("CUBECG_"):].lower()
        if v not in variants:
            bad.append(f"CMake option {opt} has no variant '{v}' in package.py")
        if opt not in defines:
            bad.append(f"CMake option {opt} is not set by cmake_args")
    for lang in re.findall(r"\bcheck_language\(\s*(\w+)", text):
        if lang.lower() not in variants:
            bad.append(f"optional language {lang} (check_language) has no variant '{lang.lower()}'")
    for v in sorted(variants - read):
        bad.append(f"variant '{v}' is never read by cmake_args")
    for name in sorted(defines - options - CMAKE_INPUTS):
        bad.append(f"cmake_args sets {name}: neither a CMake option of the build nor a known input")
    required = re.findall(r"\bfind_package\(\s*(\w+)[^)]*\bREQUIRED\b", text)
    required += re.findall(r"\bpkg_check_modules\(\s*(\w+)\s+REQUIRED", text)
    dep_names = {d for d, _ in deps}
    for pkgname in required:
        spack = SPACK_NAME.get(pkgname, pkgname.lower())
        if spack and spack not in dep_names:
            bad.append(f"the build requires {pkgname}: package.py has no depends_on('{spack}')")
        if spack and any(d == spack and when for d, when in deps):
            bad.append(f"the build requires {pkgname}: package.py depends on it only conditionally")
    if "CUBECG_HDF5" in options and ("hdf5", "+hdf5") not in deps:
        bad.append("CUBECG_HDF5: package.py has no depends_on('hdf5+mpi', when='+hdf5')")
    for line in bad:
        print(f"check_spack_variants: {line}")
    print(f"check_spack_variants: {len(options)} CMake options, {len(variants)} variants, "
          f"{len(required)} required packages: {'agree' if not bad else 'DISAGREE'}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
