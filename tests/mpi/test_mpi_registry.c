/* test_mpi_registry.c: the registry of MPI libraries (src/mpi_library.c) on the version texts the
 * libraries print, including the two rows no machine here can run (Cray MPICH, MVAPICH): each
 * library is found from its MPI_Get_library_version text and its version number read; requested
 * means that library's own knob is on (Cray's only with MPICH_MAX_THREAD_SAFETY=multiple); a knob
 * of another library is named as having no effect; the thread level follows the library's need;
 * Open MPI has no progress thread, so any knob there is one cubecg refuses. */
#include "mpi_library.h"
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

/* One case: the library (index into libraries[]), the environment ("NAME=value" ..., NULL-ended),
 * whether the library's own knob counts as requested, and the knobs named as having no effect. */
static const struct {
  int lib;
  const char *env[3];
  int requested;
  const char *ignored;
  const char *why;
} cases[] = {
    {3, {"MPICH_ASYNC_PROGRESS=1"}, 0, "", "cray-mpich: not without MPICH_MAX_THREAD_SAFETY"},
    {3, {"MPICH_ASYNC_PROGRESS=1", "MPICH_MAX_THREAD_SAFETY=multiple"}, 1, "", "cray-mpich: both"},
    {3, {"MPIR_CVAR_ASYNC_PROGRESS=1", "MPICH_MAX_THREAD_SAFETY=multiple"}, 1, "",
     "cray-mpich: MPICH's cvar spelling (it reads MPICH's control variables)"},
    {3, {"I_MPI_ASYNC_PROGRESS=1"}, 0, "I_MPI_ASYNC_PROGRESS=1", "cray-mpich: Intel's knob"},
    {4, {"MV2_ASYNC_PROGRESS=1"}, 1, "", "mvapich: its documented MV2_ASYNC_PROGRESS"},
    {5, {"MPIR_CVAR_ASYNC_PROGRESS=1"}, 1, "", "mvapich 3: MPICH's cvar"},
    {0, {"MV2_ASYNC_PROGRESS=1"}, 0, "MV2_ASYNC_PROGRESS=1", "mpich: MVAPICH's knob"},
    {0, {"I_MPI_ASYNC_PROGRESS=on"}, 0, "I_MPI_ASYNC_PROGRESS=on", "mpich: Intel's knob"},
    {0, {"MPICH_ASYNC_PROGRESS=0"}, 0, "", "mpich: a knob set to 0 is off"},
    {1, {"I_MPI_ASYNC_PROGRESS=enable"}, 1, "", "intel: its own knob (enable)"},
    {1, {"MPIR_CVAR_ASYNC_PROGRESS=1"}, 0, "MPIR_CVAR_ASYNC_PROGRESS=1", "intel: MPICH's knob"},
    /* Open MPI: no progress thread; every knob is one cubecg refuses (cc_mpi_start) */
    {2, {"MPIR_CVAR_ASYNC_PROGRESS=1"}, 0, "MPIR_CVAR_ASYNC_PROGRESS=1", "openmpi: MPICH's knob"},
};

static void test_knobs(void)
{
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    clear_knobs();
    for (int i = 0; cases[c].env[i]; i++) putenv((char *)cases[c].env[i]);
    cc_mpi_info info;
    memset(&info, 0, sizeof info);
    cc_mpi_knobs_read(cc_mpi_library_of(libraries[cases[c].lib].text), &info);
    TEST_EXPECT(info.async_requested == cases[c].requested &&
                    strcmp(info.ignored_knobs, cases[c].ignored) == 0,
                "%s: requested %d (knob '%s'), no effect '%s'", cases[c].why, info.async_requested,
                info.knob, info.ignored_knobs);
  }
  clear_knobs();
  /* Cray's knob text names the missing condition */
  putenv((char *)"MPICH_ASYNC_PROGRESS=1");
  cc_mpi_info info;
  memset(&info, 0, sizeof info);
  cc_mpi_knobs_read(cc_mpi_library_of(libraries[3].text), &info);
  TEST_EXPECT(strstr(info.knob, "MPICH_MAX_THREAD_SAFETY=(unset)"), "cray-mpich: knob '%s'",
              info.knob);
  clear_knobs();
  /* the thread level follows the library's need; Open MPI has no knob and no thread */
  static const int levels[] = {MPI_THREAD_MULTIPLE, MPI_THREAD_FUNNELED, MPI_THREAD_FUNNELED,
                               MPI_THREAD_MULTIPLE, MPI_THREAD_MULTIPLE};
  for (int l = 0; l < 5; l++)
    TEST_EXPECT(cc_mpi_library_of(libraries[l].text)->thread_level == levels[l],
                "%s: thread level", libraries[l].name);
  const cc_mpi_impl *ompi = cc_mpi_library_of(libraries[2].text);
  TEST_EXPECT(!ompi->has_progress_thread && !ompi->knobs[0], "openmpi: no knob, no thread");
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
