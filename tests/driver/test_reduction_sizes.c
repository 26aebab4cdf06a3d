/* test_reduction_sizes.c: each variant's registry entry (reduction_sizes, what the overlap probe
 * measures) against the reductions its solve really posts. MPI_Iallreduce and MPI_Allreduce are
 * interposed here (the MPI profiling interface) and count the doubles of every call; after a
 * solve of the Cube problem, every size the entry gives must have been posted about once per
 * iteration (once per block of S for s-step CG), and the posts of other sizes (set-up: |b|, the
 * first residual, s-step's first block, p(l)-CG's first L columns) must stay few (for iar, the
 * non-blocking ones: blocking set-up such as the spectrum estimate is not a post). pcg runs with
 * ar (it has no iar), the others with iar; at the defaults, at --replace-every auto (the guard's
 * (x,x) rides in a reduction), at depth 4 and at S = 2 and 6.
 * Options: --nx --ny --nz (8 6 7) */
#include "../solvers/test_krylov_util.h"

/* calls by count of doubles: [CC_REDUCTION_IAR] MPI_Iallreduce, [CC_REDUCTION_AR] MPI_Allreduce
 * (an iar solve's blocking ones, e.g. the spectrum estimate's PCG steps, are not its posts) */
static int64_t calls[CC_REDUCTION_COUNT][CC_REDUCE_MAX + 1];

int MPI_Iallreduce(const void *send, void *recv, int count, MPI_Datatype type, MPI_Op op,
                   MPI_Comm comm, MPI_Request *request)
{
  if (count >= 0 && count <= CC_REDUCE_MAX) calls[CC_REDUCTION_IAR][count]++;
  return PMPI_Iallreduce(send, recv, count, type, op, comm, request);
}

int MPI_Allreduce(const void *send, void *recv, int count, MPI_Datatype type, MPI_Op op,
                  MPI_Comm comm)
{
  if (count >= 0 && count <= CC_REDUCE_MAX) calls[CC_REDUCTION_AR][count]++;
  return PMPI_Allreduce(send, recv, count, type, op, comm);
}

/* set-up posts of sizes the loop does not post: at most p(l)-CG's first columns and a few more */
#define OTHER_POSTS_MAX (CC_PLCG_MAX_DEPTH + 4)

static void check_variant(const tk_problem *p, cc_precond *pc, double *x, const char *name,
                          const cc_krylov_opts *o)
{
  const cc_krylov *v = cc_krylov_find(name);
  int sizes[CC_KRYLOV_SIZES_MAX], n = v->reduction_sizes(o, sizes);
  memset(x, 0, 3 * (size_t)p->mesh.n_total * sizeof(double));
  cc_solve_result r;
  memset(calls, 0, sizeof calls);
  const int64_t *posted = calls[o->reduction];
  TEST_CALL(cc_krylov_solve(v, &p->a, &p->mesh.comm, pc, p->b, x, o, &r));
  TEST_EXPECT(r.converged, "%s: did not converge (%s)", name, r.failure);
  /* s-step: one reduction per block of S iterations */
  const int blocks =
      !strcmp(name, "sstep") ? r.iterations / (o->sstep ? o->sstep : 4) : r.iterations;
  int64_t loop = 0, total = 0;
  for (int c = 0; c <= CC_REDUCE_MAX; c++) total += posted[c];
  for (int i = 0; i < n; i++) {
    TEST_EXPECT(i == 0 || sizes[i] > sizes[i - 1], "%s: sizes not ascending", name);
    TEST_EXPECT(posted[sizes[i]] >= blocks - 2, "%s: %d doubles posted %lld times in %d %s", name,
                sizes[i], (long long)posted[sizes[i]], blocks,
                blocks == r.iterations ? "iterations" : "blocks");
    loop += posted[sizes[i]];
  }
  TEST_EXPECT(total - loop <= OTHER_POSTS_MAX,
              "%s: %lld posts of sizes its registry entry does not give (max %d)", name,
              (long long)(total - loop), OTHER_POSTS_MAX);
  if (test_rank == 0) {
    printf("%-6s depth %d S %d replace %2d: %d iterations, sizes", name, o->pipeline_depth,
           o->sstep, o->replace_every, r.iterations);
    for (int i = 0; i < n; i++) printf(" %d (%lld posts)", sizes[i], (long long)posted[sizes[i]]);
    printf(", %lld other posts\n", (long long)(total - loop));
  }
}

int main(int argc, char **argv)
{
  tk_init(&argc, &argv);
  tk_problem p;
  tk_problem_create_on(atoi(tk_arg(argc, argv, "--nx", "8")), atoi(tk_arg(argc, argv, "--ny", "6")),
                       atoi(tk_arg(argc, argv, "--nz", "7")), MPI_COMM_WORLD, &p);
  cc_precond *pc;
  cc_precond_params pp = {.name = "asdd", .asdd_iters = 2, .ordering = NULL};
  TEST_CALL(cc_precond_create(&pp, &p.a, &p.mesh.comm, &pc));
  double *x = NULL;
  TEST_CALL(cc_calloc(3 * (size_t)p.mesh.n_total, sizeof(double), &x));
  for (int i = 0; cc_krylov_list[i]; i++) {
    const cc_krylov *v   = cc_krylov_list[i];
    cc_krylov_opts o     = {.tol = 1e-8, .maxit = 3000, .replace_every = 0};
    o.reduction          = v->supports_iar ? CC_REDUCTION_IAR : CC_REDUCTION_AR;
    const int deep_plcg  = !strcmp(v->name, "plcg");
    const int deep_sstep = !strcmp(v->name, "sstep");
    check_variant(&p, pc, x, v->name, &o); /* the defaults */
    if (deep_plcg) o.pipeline_depth = 4;
    if (deep_sstep) o.sstep = 2;
    if (!v->deep) o.replace_every = CC_REPLACE_AUTO; /* the guard is the CG variants' */
    check_variant(&p, pc, x, v->name, &o);
    if (deep_sstep) {
      o.sstep = 6;
      check_variant(&p, pc, x, v->name, &o);
    }
  }
  cc_free(&x);
  cc_precond_destroy(&pc);
  tk_problem_free(&p);
  return test_finish("reduction_sizes");
}
