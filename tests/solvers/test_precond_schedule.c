/* test_precond_schedule.c: CM-RCM's level order changes no bit. The SGS and ASDD
 * preconditioners swept in chunks of levels (sgs_schedule.c; several chunk sizes, double and
 * single precision, 1 and 2 threads) give bitwise the vectors of Nakajima's color-by-color sweep;
 * SpMV with its rows classified in level order gives those of ascending order; and the schedule
 * check refuses a schedule that would read unfinished values (shifts zeroed). */
#include "cc_mesh.h"
#include "cc_precond_impl.h"
#include "cc_test.h"

#include <omp.h>

static long compare(const char *what, int64_t n, const double *x, const double *y)
{
  long bad = 0;
  for (int64_t i = 0; i < n; i++) bad += x[i] != y[i];
  if (bad) fprintf(stderr, "FAIL %s: %ld of %lld values differ\n", what, bad, (long long)n);
  return bad;
}

typedef struct {
  cc_mesh mesh;
  cc_bcrs a;
  cc_ordering ord;
  double *b;
} problem;

static void problem_create(int colors, problem *p)
{
  cc_mesh_params params;
  cc_mesh_params_default(&params);
  params.nx = 14, params.ny = 13, params.nz = 12;
  cc_bcrs pattern;
  TEST_CALL(cc_mesh_create(&params, MPI_COMM_WORLD, &p->mesh));
  TEST_CALL(cc_mesh_pattern(&p->mesh, &pattern));
  TEST_CALL(cc_ordering_create("cm-rcm", colors, &pattern, &p->ord));
  cc_bcrs_free(&pattern);
  cc_ordering_apply_comm(&p->ord, &p->mesh.comm);
  TEST_CALL(cc_mesh_assemble_ordered(&p->mesh, &params, p->ord.new_of_old, p->ord.old_of_new,
                                     p->ord.n_colors, p->ord.color_ptr, 1, &p->a, &p->b));
}

static void problem_free(problem *p)
{
  cc_bcrs_free(&p->a);
  cc_free(&p->b);
  cc_ordering_free(&p->ord);
  cc_mesh_free(&p->mesh);
}

/* z = M^-1 x with the schedule of chunk_rows, on t threads */
static void apply(const problem *p, const char *name, cc_precision prec, int chunk_rows, int t,
                  double *x, double *z, int *n_steps)
{
  cc_precond_params pp = {.name             = name,
                          .asdd_iters       = 2,
                          .ordering         = &p->ord,
                          .precision        = prec,
                          .sweep_chunk_rows = chunk_rows};
  cc_precond *pc;
  TEST_CALL(cc_precond_create(&pp, &p->a, &p->mesh.comm, &pc));
  if (!strcmp(name, "sgs")) *n_steps = ((const cc_sgs *)pc->ctx)->n_steps;
  int saved = omp_get_max_threads();
  omp_set_num_threads(t);
  TEST_CALL(cc_precond_apply(pc, NULL, x, z));
  omp_set_num_threads(saved);
  cc_precond_destroy(&pc);
}

static long check_sweeps(const problem *p, int colors)
{
  long failures   = 0;
  const int64_t n = 3 * (int64_t)p->mesh.n_total, ni = 3 * (int64_t)p->mesh.n_internal;
  double *x, *z0, *z1;
  TEST_CALL(cc_calloc(n, sizeof(double), &x));
  TEST_CALL(cc_calloc(n, sizeof(double), &z0));
  TEST_CALL(cc_calloc(n, sizeof(double), &z1));
  for (int64_t i = 0; i < n; i++) x[i] = 1.0 + 0.37 * (double)((i * 7919) % 101);
  const char *names[] = {"sgs", "asdd"};
  const int chunks[]  = {1, 37, 500, 0};
  for (int prec = 0; prec < CC_PRECISION_COUNT; prec++)
    for (int k = 0; k < 2; k++) {
      int steps_colors = 0, steps = 0;
      apply(p, names[k], (cc_precision)prec, -1, 1, x, z0, &steps_colors);
      for (int c = 0; c < 4; c++)
        for (int t = 1; t <= 2; t++) {
          char what[96];
          snprintf(what, sizeof what, "%s %s K=%d chunk %d, %d thread(s)", names[k],
                   cc_precision_list[prec].name, colors, chunks[c], t);
          apply(p, names[k], (cc_precision)prec, chunks[c], t, x, z1, &steps);
          failures += compare(what, ni, z0, z1);
          /* one-row chunks must really chunk: more steps than colors */
          if (k == 0 && chunks[c] == 1 &&
              !(steps > steps_colors && steps_colors == p->ord.n_colors)) {
            fprintf(stderr, "FAIL %s: %d steps, %d color by color (%d colors)\n", what, steps,
                    steps_colors, p->ord.n_colors);
            failures++;
          }
        }
    }
  cc_free(&x), cc_free(&z0), cc_free(&z1);
  return failures;
}

/* SpMV with the halo split: rows classified in level order == ascending order, bitwise */
static long check_spmv(problem *p)
{
  const int64_t n = 3 * (int64_t)p->mesh.n_total, ni = 3 * (int64_t)p->mesh.n_internal;
  double *x, *y0, *y1;
  TEST_CALL(cc_calloc(n, sizeof(double), &x));
  TEST_CALL(cc_calloc(n, sizeof(double), &y0));
  TEST_CALL(cc_calloc(n, sizeof(double), &y1));
  for (int64_t i = 0; i < ni; i++) x[i] = 0.5 + 0.11 * (double)((i * 104729) % 97);
  TEST_CALL(cc_comm_table_buffers(&p->mesh.comm));
  TEST_CALL(cc_bcrs_classify_rows(&p->a, NULL));
  TEST_CALL(cc_spmv(NULL, &p->a, &p->mesh.comm, x, y0));
  TEST_CALL(cc_bcrs_classify_rows(&p->a, p->ord.level_order));
  TEST_CALL(cc_spmv(NULL, &p->a, &p->mesh.comm, x, y1));
  long failures = compare("spmv level order", ni, y0, y1);
  cc_bcrs_unclassify_rows(&p->a);
  cc_free(&x), cc_free(&y0), cc_free(&y1);
  return failures;
}

/* Shifts zeroed: some lower neighbour lands in a later chunk, and the check must say so. */
static long check_refusal(problem *p)
{
  int max_shift = 0;
  for (int c = 0; c < p->ord.n_colors; c++)
    if (p->ord.level_shift[c] > max_shift) max_shift = p->ord.level_shift[c];
  if (max_shift == 0) {
    fprintf(stderr, "FAIL: K=%d needs no shift on this mesh: the refusal is not tested\n",
            p->ord.n_colors);
    return 1;
  }
  cc_sgs s;
  TEST_CALL(cc_sgs_setup(&p->a, &p->ord, -1, &p->mesh.comm, &s));
  int *saved = p->ord.level_shift, zero[64] = {0};
  p->ord.level_shift = zero;
  cc_err err         = cc_sgs_schedule(&s, &p->ord, 1);
  p->ord.level_shift = saved;
  long failures      = err != CC_ERR_CHECK;
  if (failures) fprintf(stderr, "FAIL: a schedule without shifts was accepted (error %d)\n", err);
  cc_error_clear();
  cc_sgs_free(&s);
  return failures;
}

int main(int argc, char **argv)
{
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &test_rank);
  long failures = 0;
  const int K[] = {4, 10};
  for (int k = 0; k < 2; k++) {
    problem p;
    problem_create(K[k], &p);
    failures += check_sweeps(&p, K[k]);
    failures += check_spmv(&p);
    if (k == 0) failures += check_refusal(&p);
    problem_free(&p);
  }
  MPI_Allreduce(MPI_IN_PLACE, &failures, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (test_rank == 0)
    printf("%s: level-ordered sweeps and SpMV vs color by color, %ld mismatches\n",
           failures ? "FAIL" : "PASS", failures);
  MPI_Finalize();
  return failures != 0;
}
