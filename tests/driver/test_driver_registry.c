/* test_driver_registry.c: the driver's names come from the registries and its
 * fixed capacities never truncate silently: every registry name parses to its index and
 * appears in --help, the report's "available" lists them with Table 1, and a check list that
 * overflows CC_MAX_CHECKS gives the verdict FAILED (report and summary), never PASSED. */
#include "pipeline.h"
#include "report.h"
#include "summary.h"
#include "cc_io.h"
#include "cc_test.h"

#include <stdlib.h>

static int parse(cc_options *opts, int argc, char **argv)
{
  cc_err err = cc_options_parse(argc, argv, opts);
  if (err) cc_error_clear();
  return err == CC_OK;
}

static char *read_all(const char *path)
{
  FILE *f = fopen(path, "r");
  if (!f) return NULL;
  static char text[1 << 20];
  size_t n = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  text[n] = '\0';
  return text;
}

static void test_names(const char *dir)
{
  cc_options opts;
  char *argv[3] = {"cubecg", NULL, NULL};
  char arg[96];
  argv[1] = arg;
  for (int i = 0; cc_krylov_list[i]; i++) {
    snprintf(arg, sizeof arg, "--solver=%s", cc_krylov_list[i]->name);
    TEST_EXPECT(parse(&opts, 2, argv) && opts.solver == i &&
                    cc_options_variant(&opts) == cc_krylov_list[i],
                "--solver %s", cc_krylov_list[i]->name);
  }
  snprintf(arg, sizeof arg, "--solver=all");
  TEST_EXPECT(parse(&opts, 2, argv) && opts.solver == CC_CHOICE_ALL && !cc_options_variant(&opts),
              "--solver all");
  for (int i = 0; cc_precond_list[i].name; i++) {
    snprintf(arg, sizeof arg, "--precond=%s", cc_precond_list[i].name);
    TEST_EXPECT(parse(&opts, 2, argv) && opts.precond == i, "--precond %s",
                cc_precond_list[i].name);
  }
  for (int i = 0; cc_ordering_list[i].name; i++) {
    snprintf(arg, sizeof arg, "--ordering=%s", cc_ordering_list[i].name);
    TEST_EXPECT(parse(&opts, 2, argv) && opts.ordering == i, "--ordering %s",
                cc_ordering_list[i].name);
  }
  for (int r = 0; r < CC_REDUCTION_COUNT; r++) {
    snprintf(arg, sizeof arg, "--reduction=%s", cc_reduction_list[r].name);
    TEST_EXPECT(parse(&opts, 2, argv) && opts.reduction == r, "--reduction %s",
                cc_reduction_list[r].name);
  }
  int n_backends = 0;
  for (int i = 0; cc_io_backend_name(i); i++, n_backends++) {
    snprintf(arg, sizeof arg, "--checkpoint=%s", cc_io_backend_name(i));
    TEST_EXPECT(parse(&opts, 2, argv) && opts.checkpoint == i &&
                    strcmp(cc_options_checkpoint(&opts), cc_io_backend_name(i)) == 0,
                "--checkpoint %s", cc_io_backend_name(i));
  }
  TEST_EXPECT(n_backends >= 5, "only %d checkpoint backends registered", n_backends);
  TEST_EXPECT(parse(&opts, 1, argv) && opts.checkpoint == CC_CHOICE_NONE &&
                  !cc_options_checkpoint(&opts),
              "checkpoints must be off by default");
  snprintf(arg, sizeof arg, "--precond=frobnicate");
  TEST_EXPECT(!parse(&opts, 2, argv), "--precond frobnicate accepted");
  snprintf(arg, sizeof arg, "--solver=");
  TEST_EXPECT(!parse(&opts, 2, argv), "--solver '' accepted");
#ifndef CUBECG_HAVE_FORTRAN
  snprintf(arg, sizeof arg, "--checkpoint=fortran");
  TEST_EXPECT(!parse(&opts, 2, argv), "--checkpoint fortran offered but not built");
#endif

  /* --help names every registry entry and its description */
  char path[CC_PATH_MAX];
  snprintf(path, sizeof path, "%s/help.txt", dir);
  FILE *f = fopen(path, "w");
  TEST_EXPECT(f != NULL, "cannot write %s", path);
  if (!f) return;
  cc_options_help(f);
  fclose(f);
  const char *help = read_all(path);
  for (int i = 0; cc_krylov_list[i]; i++)
    TEST_EXPECT(strstr(help, cc_krylov_list[i]->description) != NULL, "--help lacks %s",
                cc_krylov_list[i]->description);
  for (int i = 0; cc_precond_list[i].name; i++)
    TEST_EXPECT(strstr(help, cc_precond_list[i].description) != NULL, "--help lacks %s",
                cc_precond_list[i].description);
  char names[256] = "{";
  for (int i = 0; cc_io_backend_name(i); i++)
    snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? "|" : "",
             cc_io_backend_name(i));
  TEST_EXPECT(strstr(help, names) != NULL, "--help lacks the built backends %s}", names);
}

static void test_check_overflow(const char *dir)
{
  static cc_run run; /* large; zeroed */
  char *argv[1] = {"cubecg"};
  TEST_EXPECT(parse(&run.opts, 1, argv), "default options");
  for (int i = 0; i < CC_MAX_CHECKS; i++) cc_run_add_check(&run, "fine", 0.0, 1.0);
  TEST_EXPECT(cc_run_checks_passed(&run), "%d passing checks must pass", CC_MAX_CHECKS);
  cc_run_add_check(&run, "one_too_many_and_failing", 2.0, 1.0); /* past the limit */
  TEST_EXPECT(!cc_run_checks_passed(&run),
              "a check past CC_MAX_CHECKS = %d was dropped and the "
              "verdict still reads PASSED",
              CC_MAX_CHECKS);
  char path[CC_PATH_MAX];
  snprintf(path, sizeof path, "%s/run.json", dir);
  TEST_CALL(cc_report_write(&run, path));
  const char *report = read_all(path);
  TEST_EXPECT(report && strstr(report, "\"passed\": false") && strstr(report, "CC_MAX_CHECKS"),
              "the report must say FAILED and name the limit");
  TEST_EXPECT(report && strstr(report, "\"available\"") && strstr(report, "\"table1\"") &&
                  strstr(report, "\"checkpoint_backends\""),
              "the report lacks \"available\"");
  snprintf(path, sizeof path, "%s/summary.txt", dir);
  FILE *f = fopen(path, "w");
  TEST_EXPECT(f != NULL, "cannot write %s", path);
  if (!f) return;
  cc_summary_print(&run, f);
  fclose(f);
  const char *summary = read_all(path);
  TEST_EXPECT(strstr(summary, "verification: FAILED") && strstr(summary, "CC_MAX_CHECKS = 48"),
              "the summary must say FAILED and name the limit:\n%s", summary);
}

/* The solves planned from the registry: every variant with each reduction it has, pcg-ar first. */
static void test_plan(void)
{
  cc_options opts;
  char *argv[3] = {"cubecg", "--solver=all", "--reduction=all"};
  TEST_EXPECT(parse(&opts, 3, argv), "--solver all --reduction all");
  cc_solve_plan plan[CC_MAX_SOLVES];
  int n = 0, expected = 0;
  TEST_CALL(cc_plan_solves(&opts, plan, &n));
  for (int i = 0; cc_krylov_list[i]; i++) expected += cc_krylov_list[i]->supports_iar ? 2 : 1;
  TEST_EXPECT(n == expected && plan[0].variant == cc_krylov_list[0] &&
                  plan[0].reduction == CC_REDUCTION_AR,
              "all x all planned %d solves, expected %d starting with %s-ar", n, expected,
              cc_krylov_list[0]->name);
  argv[1] = "--solver=all";
  argv[2] = "--reduction=iar"; /* ar-only variants still run, with ar */
  TEST_EXPECT(parse(&opts, 3, argv), "--reduction iar");
  TEST_CALL(cc_plan_solves(&opts, plan, &n));
  for (int s = 0; s < n; s++)
    TEST_EXPECT(plan[s].reduction ==
                    (plan[s].variant->supports_iar ? CC_REDUCTION_IAR : CC_REDUCTION_AR),
                "solve %d: %s with reduction %d", s, plan[s].variant->name, (int)plan[s].reduction);
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &test_rank);
  const char *dir = argc > 1 ? argv[1] : ".";
  test_names(dir);
  test_check_overflow(dir);
  test_plan();
  return test_finish("test_driver_registry");
}
