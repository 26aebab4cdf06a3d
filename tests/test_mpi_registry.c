/* test_mpi_registry.c: the registry of MPI libraries (src/mpi_library.c) on the version texts the
 * libraries print, including the two rows no machine here can run (Cray MPICH, MVAPICH): each
 * library is found from its MPI_Get_library_version text and its version number read; requested
 * means that library's own knob is on (Cray's only with MPICH_MAX_THREAD_SAFETY=multiple); a knob
 * of another library is named as having no effect; the thread level follows the library's need;
 * Open MPI has no progress thread, so any knob there is one cubecg refuses. */
#include "cc_driver.h"
#include "cc_test.h"

#include <stdlib.h>

/* every knob of every row, cleared before each case */
static const char *const all_knobs[] = {
    "MPIR_CVAR_ASYNC_PROGRESS", "MPICH_ASYNC_PROGRESS", "I_MPI_ASYNC_PROGRESS",
    "MV2_ASYNC_PROGRESS",       "MPICH_MAX_THREAD_SAFETY"};

static void clear_knobs(void)
{
  for (size_t i = 0; i < sizeof all_knobs / sizeof all_knobs[0]; i++) unsetenv(all_knobs[i]);
}

/* the version texts as the libraries print them (newlines and tabs made spaces, as cc_mpi_start
 * does) */
static const struct {
  const char *text, *name, *version;
} libraries[] = {
    {"MPICH Version: 4.0.2 MPICH Release date: Thu Mar 31 2022 MPICH ABI: 14:2:2", "mpich",
     "4.0.2"},
    {"Intel(R) MPI Library 2021.18 for Linux* OS", "intel", "2021.18"},
    {"Open MPI v4.1.4, package: Debian OpenMPI, ident: 4.1.4, repo rev: v4.1.4, May 26, 2022",
     "openmpi", "4.1.4"},
    {"MPI VERSION    : CRAY MPICH version 8.1.26.4 (ANL base 3.4a2) MPI BUILD INFO : Sun Feb 26 "
     "2023",
     "cray-mpich", "8.1.26.4"},
    {"MVAPICH2 Version      : 2.3.7 MVAPICH2 Release date : Wed March 02 22:00:00 EST 2022",
     "mvapich", "2.3.7"},
    {"MVAPICH Version : 3.0 MVAPICH Release date : Mon Feb 26 2024", "mvapich", "3.0"},
    {"Some Other MPI 1.2.3", "unknown", "1.2.3"},
};

static void test_detection(void)
{
  for (size_t i = 0; i < sizeof libraries / sizeof libraries[0]; i++) {
    const cc_mpi_impl *lib = cc_mpi_library_of(libraries[i].text);
    TEST_EXPECT(strcmp(lib->name, libraries[i].name) == 0, "'%s' found as %s, not %s",
                libraries[i].text, lib->name, libraries[i].name);
    char version[32];
    cc_mpi_version_number(libraries[i].text, lib->name, version, sizeof version);
    TEST_EXPECT(strcmp(version, libraries[i].version) == 0, "%s: version %s, not %s", lib->name,
                version, libraries[i].version);
  }
}

/* read the knobs of the library of TEXT with the environment set as given ("NAME=value" ...,
 * NULL-ended) */
static void knobs(const char *text, cc_mpi_info *info, const char *const *env)
{
  clear_knobs();
  for (int i = 0; env[i]; i++) putenv((char *)env[i]);
  memset(info, 0, sizeof *info);
  cc_mpi_knobs_read(cc_mpi_library_of(text), info);
}

static void test_knobs(void)
{
  const char *cray = libraries[3].text, *mv2 = libraries[4].text, *mpich = libraries[0].text;
  const char *intel = libraries[1].text, *ompi = libraries[2].text;
  cc_mpi_info info;

  /* Cray MPICH: MPICH_ASYNC_PROGRESS alone does not start the thread */
  knobs(cray, &info, (const char *const[]){"MPICH_ASYNC_PROGRESS=1", NULL});
  TEST_EXPECT(!info.async_requested, "cray-mpich: requested without MPICH_MAX_THREAD_SAFETY");
  TEST_EXPECT(strstr(info.knob, "MPICH_MAX_THREAD_SAFETY=(unset)"), "cray-mpich: knob '%s'",
              info.knob);
  knobs(cray, &info,
        (const char *const[]){"MPICH_ASYNC_PROGRESS=1", "MPICH_MAX_THREAD_SAFETY=multiple", NULL});
  TEST_EXPECT(info.async_requested && !info.ignored_knobs[0],
              "cray-mpich: not requested with both ('%s', ignored '%s')", info.knob,
              info.ignored_knobs);
  /* MPICH's cvar spelling is Cray MPICH's too (it reads MPICH's control variables) */
  knobs(cray, &info,
        (const char *const[]){"MPIR_CVAR_ASYNC_PROGRESS=1", "MPICH_MAX_THREAD_SAFETY=multiple",
                              NULL});
  TEST_EXPECT(info.async_requested && !info.ignored_knobs[0], "cray-mpich: MPIR_CVAR_ form");
  TEST_EXPECT(cc_mpi_library_of(cray)->thread_level == MPI_THREAD_MULTIPLE,
              "cray-mpich: MPI_THREAD_MULTIPLE asked");
  knobs(cray, &info, (const char *const[]){"I_MPI_ASYNC_PROGRESS=1", NULL});
  TEST_EXPECT(!info.async_requested && strcmp(info.ignored_knobs, "I_MPI_ASYNC_PROGRESS=1") == 0,
              "cray-mpich: Intel's knob named as having no effect ('%s')", info.ignored_knobs);

  /* MVAPICH: its documented MV2_ASYNC_PROGRESS; under MPICH it has no effect */
  knobs(mv2, &info, (const char *const[]){"MV2_ASYNC_PROGRESS=1", NULL});
  TEST_EXPECT(info.async_requested && strcmp(info.knob, "MV2_ASYNC_PROGRESS=1") == 0,
              "mvapich: MV2_ASYNC_PROGRESS=1 not requested ('%s')", info.knob);
  TEST_EXPECT(cc_mpi_library_of(mv2)->thread_level == MPI_THREAD_MULTIPLE,
              "mvapich: MPI_THREAD_MULTIPLE asked");
  knobs(mpich, &info, (const char *const[]){"MV2_ASYNC_PROGRESS=1", NULL});
  TEST_EXPECT(!info.async_requested && strcmp(info.ignored_knobs, "MV2_ASYNC_PROGRESS=1") == 0,
              "mpich: MVAPICH's knob named as having no effect ('%s')", info.ignored_knobs);

  /* MPICH and Intel MPI: each other's knob has no effect */
  knobs(mpich, &info, (const char *const[]){"I_MPI_ASYNC_PROGRESS=on", NULL});
  TEST_EXPECT(!info.async_requested && strcmp(info.ignored_knobs, "I_MPI_ASYNC_PROGRESS=on") == 0,
              "mpich: Intel's knob ('%s')", info.ignored_knobs);
  knobs(intel, &info, (const char *const[]){"I_MPI_ASYNC_PROGRESS=enable", NULL});
  TEST_EXPECT(info.async_requested && !info.ignored_knobs[0], "intel: its own knob (enable)");
  TEST_EXPECT(cc_mpi_library_of(intel)->thread_level == MPI_THREAD_FUNNELED,
              "intel: FUNNELED asked (its thread starts at any level)");
  knobs(intel, &info, (const char *const[]){"MPIR_CVAR_ASYNC_PROGRESS=1", NULL});
  TEST_EXPECT(!info.async_requested && strcmp(info.ignored_knobs, "MPIR_CVAR_ASYNC_PROGRESS=1") == 0,
              "intel: MPICH's knob ('%s')", info.ignored_knobs);
  knobs(mpich, &info, (const char *const[]){"MPICH_ASYNC_PROGRESS=0", NULL});
  TEST_EXPECT(!info.async_requested && !info.ignored_knobs[0], "mpich: a knob set to 0 is off");

  /* Open MPI: no progress thread; every knob is one cubecg refuses (cc_mpi_start) */
  const cc_mpi_impl *ompi_lib = cc_mpi_library_of(ompi);
  TEST_EXPECT(!ompi_lib->has_progress_thread && !ompi_lib->knobs[0], "openmpi: no knob");
  knobs(ompi, &info, (const char *const[]){"MPIR_CVAR_ASYNC_PROGRESS=1", NULL});
  TEST_EXPECT(!info.async_requested && strcmp(info.ignored_knobs, "MPIR_CVAR_ASYNC_PROGRESS=1") == 0,
              "openmpi: MPICH's knob ('%s')", info.ignored_knobs);
  clear_knobs();
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &test_rank);
  test_detection();
  test_knobs();
  int failures = 0;
  MPI_Allreduce(&test_failures, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (test_rank == 0) printf("%s: %d failure(s)\n", failures ? "FAIL" : "PASS", failures);
  MPI_Finalize();
  return failures != 0;
}
