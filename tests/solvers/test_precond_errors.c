/* test_precond_errors.c: bad input to orderings and preconditioners fails with CC_ERR_ARG (or
 * CC_ERR_NUMERIC for a singular diagonal block) and a message naming the bad value.
 */
#include "test_precond_util.h"

/* expr must fail with `code` and cc_error_message() must contain `needle` */
#define EXPECT_ERROR(expr, code, needle)                                                           \
  do {                                                                                             \
    cc_error_clear();                                                                              \
    cc_err e_ = (expr);                                                                            \
    TEST_EXPECT(e_ == (code), "%s returned %s, expected %s", #expr, cc_error_name(e_),             \
                cc_error_name(code));                                                              \
    TEST_EXPECT(strstr(cc_error_message(), (needle)) != NULL, "%s: message '%s' lacks '%s'",       \
                #expr, cc_error_message(), (needle));                                              \
    if (test_rank == 0) printf("ok: %s -> %s\n", #expr, cc_error_message());                       \
    cc_error_clear();                                                                              \
  } while (0)

int main(int argc, char **argv)
{
  tp_init(&argc, &argv);
  tp_problem p;
  tp_problem_create(argc, argv, &p);
  cc_ordering ord;
  EXPECT_ERROR(cc_ordering_create("mc", 1, &p.a, &ord), CC_ERR_ARG, "colors = 1");
  EXPECT_ERROR(cc_ordering_create("cm-rcm", 0, &p.a, &ord), CC_ERR_ARG, "colors = 0");
  EXPECT_ERROR(cc_ordering_create("cm-rcm", -4, &p.a, &ord), CC_ERR_ARG, "colors = -4");
  EXPECT_ERROR(cc_ordering_create("zigzag", 10, &p.a, &ord), CC_ERR_ARG, "'zigzag'");

  cc_precond *pc       = NULL;
  cc_precond_params pp = {.name = "asdd", .asdd_iters = 0, .ordering = NULL};
  EXPECT_ERROR(cc_precond_create(&pp, &p.a, &p.mesh.comm, &pc), CC_ERR_ARG, "asdd_iters = 0");
  TEST_EXPECT(pc == NULL, "failed create left a preconditioner");
  pp = (cc_precond_params){.name = "ilu0", .asdd_iters = 2, .ordering = NULL};
  EXPECT_ERROR(cc_precond_create(&pp, &p.a, &p.mesh.comm, &pc), CC_ERR_ARG, "'ilu0'");

  /* in-place application */
  {
    double *v = tp_vector(&p, 3);
    pp        = (cc_precond_params){.name = "sgs", .asdd_iters = 2, .ordering = NULL};
    TEST_CALL(cc_precond_create(&pp, &p.a, &p.mesh.comm, &pc));
    EXPECT_ERROR(cc_precond_apply(pc, NULL, v, v), CC_ERR_ARG, "in place");
    cc_precond_destroy(&pc);
    cc_free(&v);
  }

  /* an ordering of another matrix size */
  TEST_CALL(cc_ordering_create("cm-rcm", 10, &p.a, &ord));
  ord.n_nodes++;
  pp = (cc_precond_params){.name = "sgs", .asdd_iters = 2, .ordering = &ord};
  char needle[64];
  snprintf(needle, sizeof needle, "%d nodes", ord.n_nodes);
  EXPECT_ERROR(cc_precond_create(&pp, &p.a, &p.mesh.comm, &pc), CC_ERR_ARG, needle);
  ord.n_nodes--;

  /* a singular diagonal block, named by its local node */
  int node  = p.a.n_rows / 2;
  double *d = p.a.val + 9 * p.a.diag_pos[node], saved[9];
  memcpy(saved, d, sizeof saved);
  memset(d, 0, sizeof saved);
  snprintf(needle, sizeof needle, "local node %d", node);
  const char *names[] = {"jacobi", "sgs", "asdd"};
  for (int k = 0; k < 3; k++) {
    pp = (cc_precond_params){.name = names[k], .asdd_iters = 2, .ordering = NULL};
    EXPECT_ERROR(cc_precond_create(&pp, &p.a, &p.mesh.comm, &pc), CC_ERR_NUMERIC, needle);
    TEST_EXPECT(pc == NULL, "failed create left a preconditioner");
  }
  memcpy(d, saved, sizeof saved);
  cc_ordering_free(&ord);
  tp_problem_free(&p);
  return test_finish("test_precond_errors");
}
