/* test_krylov_fused.c: the fused vector passes of the CG variants (Alg.1-4) against the unfused
 * reference (cc_krylov_opts.unfused: one pass per AXPY-type update and per dot product).
 * For every variant x reduction, with residual replacement (--replace N, default 10) and without:
 *   - the recursive residual histories agree per iteration to --rtol (default 1e-12; the kernels
 *     compute the same values element by element and the dots with the same OpenMP reductions,
 *     so they are equal in practice: the largest difference seen is printed), the iteration
 *     counts are equal, and so are the solutions (to --rtol of max |x|);
 *   - Table 1's counts are the same in both modes (per iteration and in total);
 *   - the measured vector traffic per iteration is the registry's (vector_fused / vector_unfused)
 *     exactly without replacement, and not below it with replacement (amortised extra work);
 *   - fused traffic <= unfused for every variant, and Alg.3's at most 2/3 of it.
 * Options: --nx --ny --nz (8 6 7) --precond NAME (asdd) --replace N (10) --rtol (1e-12)
 *          --only NAME (one variant) --tol (1e-8)
 */
#include "test_krylov_util.h"

static double max_rel_diff(int n, const double *a, const double *b)
{
  double worst = 0.0;
  for (int i = 0; i < n; i++) {
    double scale = fmax(fabs(a[i]), fabs(b[i]));
    double d     = scale > 0.0 ? fabs(a[i] - b[i]) / scale : 0.0;
    if (!(d <= worst)) worst = d; /* NaN propagates as a failure */
  }
  return worst;
}

static double fz_tol = 1e-8;

typedef struct {
  cc_solve_result res;
  double *history;
  double *x;
} fz_run;

static void fz_solve(const tk_problem *p, cc_precond *pc, const cc_krylov *kv,
                     cc_reduction_mode mode, int replace, int unfused, fz_run *out)
{
  const int maxit = 2000;
  cc_krylov_opts o;
  memset(&o, 0, sizeof o);
  o.tol           = fz_tol;
  o.maxit         = maxit;
  o.reduction     = mode;
  o.replace_every = replace;
  o.unfused       = unfused;
  o.history_cap   = maxit + 1;
  TEST_CALL(cc_calloc((size_t)maxit + 1, sizeof(double), &out->history));
  TEST_CALL(cc_calloc(3 * (size_t)p->mesh.n_total, sizeof(double), &out->x));
  o.history = out->history;
  TEST_CALL(cc_krylov_solve(kv, &p->a, &p->mesh.comm, pc, p->b, out->x, &o, &out->res));
}

static void fz_free(fz_run *r)
{
  cc_free(&r->history);
  cc_free(&r->x);
}

/* measured traffic of a result against a registry entry: equal (exact) or not below (amortised) */
static void check_traffic(const char *what, const cc_solve_result *r, cc_krylov_traffic t,
                          int exact)
{
  const double got[3] = {r->vector_passes_per_iteration, r->vector_reads_per_iteration,
                         r->vector_writes_per_iteration};
  const int want[3]   = {t.passes, t.reads, t.writes};
  const char *name[3] = {"passes", "reads", "writes"};
  for (int j = 0; j < 3; j++)
    TEST_EXPECT(exact ? got[j] == want[j] : got[j] >= want[j], "%s: %s per iteration %g, %s %d",
                what, name[j], got[j], exact ? "registry" : "registry at least", want[j]);
}

int main(int argc, char **argv)
{
  tk_init(&argc, &argv);
  const char *precond = tk_arg(argc, argv, "--precond", "asdd");
  const int replace   = atoi(tk_arg(argc, argv, "--replace", "10"));
  const double rtol   = atof(tk_arg(argc, argv, "--rtol", "1e-12"));
  const char *only    = tk_arg(argc, argv, "--only", NULL); /* one variant (large meshes) */
  fz_tol              = atof(tk_arg(argc, argv, "--tol", "1e-8"));
  tk_problem p;
  tk_problem_create_on(atoi(tk_arg(argc, argv, "--nx", "8")), atoi(tk_arg(argc, argv, "--ny", "6")),
                       atoi(tk_arg(argc, argv, "--nz", "7")), MPI_COMM_WORLD, &p);
  cc_precond *pc;
  cc_precond_params pp = {.name = precond, .asdd_iters = 2, .ordering = NULL};
  TEST_CALL(cc_precond_create(&pp, &p.a, &p.mesh.comm, &pc));
  const int n = 3 * p.a.n_rows;
  if (test_rank == 0)
    printf("fused vs unfused: %dx%dx%d, %d ranks, precond %s, replace %d and 0, rtol %g\n",
           p.params.nx, p.params.ny, p.params.nz, tk_size, precond, replace, rtol);

  for (int v = 0; cc_krylov_list[v]; v++) {
    const cc_krylov *kv = cc_krylov_list[v];
    if (only && strcmp(only, kv->name)) continue;
    if (kv->deep) continue; /* one path (fused = unfused): test_krylov_deep.c */
    cc_krylov_traffic tf = kv->vector_fused, tu = kv->vector_unfused;
    TEST_EXPECT(tf.reads + tf.writes <= tu.reads + tu.writes && tf.passes <= tu.passes,
                "%s: fused traffic %d+%d in %d passes above unfused %d+%d in %d", kv->name,
                tf.reads, tf.writes, tf.passes, tu.reads, tu.writes, tu.passes);
    if (!strcmp(kv->name, "pipecg"))
      TEST_EXPECT(3 * (tf.reads + tf.writes) <= 2 * (tu.reads + tu.writes),
                  "pipecg: fused %d doubles/DOF not cut by a third from unfused %d",
                  tf.reads + tf.writes, tu.reads + tu.writes);
    for (int mode = CC_REDUCTION_AR; mode <= CC_REDUCTION_IAR; mode++) {
      if (mode == CC_REDUCTION_IAR && !kv->supports_iar) continue;
      for (int rep = 0; rep < 2; rep++) {
        const int every = rep ? 0 : replace;
        char what[64];
        snprintf(what, sizeof what, "%s-%s replace %d", kv->name, cc_reduction_list[mode].name,
                 every);
        fz_run f, u;
        fz_solve(&p, pc, kv, (cc_reduction_mode)mode, every, 0, &f);
        fz_solve(&p, pc, kv, (cc_reduction_mode)mode, every, 1, &u);
        TEST_EXPECT(f.res.converged && u.res.converged, "%s: converged fused %d unfused %d (%s%s)",
                    what, f.res.converged, u.res.converged, f.res.failure, u.res.failure);
        TEST_EXPECT(f.res.iterations == u.res.iterations && f.res.iterations > 3,
                    "%s: %d iterations fused, %d unfused", what, f.res.iterations,
                    u.res.iterations);
        TEST_EXPECT(f.res.history_len == u.res.history_len &&
                        f.res.history_len == f.res.iterations + 1,
                    "%s: history of %d (fused) / %d (unfused) values for %d iterations", what,
                    f.res.history_len, u.res.history_len, f.res.iterations);
        int len   = f.res.history_len < u.res.history_len ? f.res.history_len : u.res.history_len;
        double dh = max_rel_diff(len, f.history, u.history);
        double dx = 0.0, xmax = 0.0;
        for (int i = 0; i < n; i++) {
          dx   = fmax(dx, fabs(f.x[i] - u.x[i]));
          xmax = fmax(xmax, fabs(u.x[i]));
        }
        MPI_Allreduce(MPI_IN_PLACE, &dx, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        MPI_Allreduce(MPI_IN_PLACE, &xmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        TEST_EXPECT(dh <= rtol, "%s: residual histories differ by %.3g relative (> %g)", what, dh,
                    rtol);
        TEST_EXPECT(dx <= rtol * xmax, "%s: solutions differ by %.3g (max |x| %.3g)", what, dx,
                    xmax);
        /* Table 1 is what the algorithm does, fused or not */
        const cc_timer_id ops[] = {CC_T_SPMV, CC_T_PRECOND, CC_T_DOT, CC_T_AXPY, CC_T_REDUCTION};
        for (int j = 0; j < 5; j++) {
          TEST_EXPECT(f.res.ops_per_iteration[ops[j]] == u.res.ops_per_iteration[ops[j]] &&
                          f.res.count[ops[j]] == u.res.count[ops[j]],
                      "%s: %s %g per iteration (%lld in all) fused, %g (%lld) unfused", what,
                      cc_timer_name(ops[j]), f.res.ops_per_iteration[ops[j]],
                      (long long)f.res.count[ops[j]], u.res.ops_per_iteration[ops[j]],
                      (long long)u.res.count[ops[j]]);
        }
        check_traffic(what, &f.res, tf, every == 0);
        check_traffic(what, &u.res, tu, every == 0);
        if (test_rank == 0)
          printf("%-26s %4d it  history max rel diff %.1e  x diff %.1e  traffic/it fused "
                 "%.2f+%.2f (%.2f passes) unfused %.2f+%.2f (%.2f passes)\n",
                 what, f.res.iterations, dh, dx, f.res.vector_reads_per_iteration,
                 f.res.vector_writes_per_iteration, f.res.vector_passes_per_iteration,
                 u.res.vector_reads_per_iteration, u.res.vector_writes_per_iteration,
                 u.res.vector_passes_per_iteration);
        fz_free(&f);
        fz_free(&u);
      }
    }
  }
  cc_precond_destroy(&pc);
  tk_problem_free(&p);
  return test_finish("krylov_fused");
}
