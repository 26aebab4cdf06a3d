/* solver_state.c: the end of a CG iteration (operation counts, the test seam, checkpoint, the
 * monitor hook) and the solver state handed to the checkpoint callback and back for a restart
 * (krylov_impl.h). */
#include "krylov_impl.h"

#include "cc_trace.h"

/* ------------------------------------------------------------------------------------------------
 * Checkpoint / restart
 * ---------------------------------------------------------------------------------------------- */
/* Hand the live state to the checkpoint callback as checkpoint `iteration` (collective). */
static cc_err krylov_checkpoint(cc_krylov_ctx *k, int iteration, const cc_state_decl *decl,
                                double *const vectors[], const double scalars[])
{
  const cc_krylov_opts *o = k->opts;
  CC_CHECK(decl->n_vectors <= CC_STATE_MAX_VECTORS && decl->n_scalars <= CC_STATE_MAX_SCALARS,
           CC_ERR_ARG, "%s: state of %d vectors / %d scalars (at most %d / %d)", k->solver,
           decl->n_vectors, decl->n_scalars, CC_STATE_MAX_VECTORS, CC_STATE_MAX_SCALARS);
  cc_solver_state st;
  memset(&st, 0, sizeof st);
  snprintf(st.solver, sizeof st.solver, "%s", k->solver);
  st.iteration     = iteration;
  st.n_local       = k->n;
  st.same_operator = 1; /* for a callback that hands the state straight back */
  st.n_vectors     = decl->n_vectors;
  for (int j = 0; j < decl->n_vectors; j++) {
    snprintf(st.vector_name[j], sizeof st.vector_name[j], "%s", decl->vector_name[j]);
    st.vector[j] = vectors[j];
  }
  st.n_scalars = decl->n_scalars;
  for (int j = 0; j < decl->n_scalars; j++) {
    snprintf(st.scalar_name[j], sizeof st.scalar_name[j], "%s", decl->scalar_name[j]);
    st.scalar[j] = scalars[j];
  }
  cc_timer_token tok = cc_timer_start(k->timers, CC_T_CHECKPOINT);
  cc_err err         = o->checkpoint(o->checkpoint_ctx, &st);
  cc_timer_stop(k->timers, tok);
  CC_CHECK(err == CC_OK, err, "%s: checkpoint at iteration %d", k->solver, iteration);
  return CC_OK;
}

void cc_krylov_poison(cc_krylov_ctx *k, int iteration, double *v)
{
  if (k->inject_it < 1 || iteration < k->inject_it) return;
  k->inject_it = -1; /* once: s-step CG ends its iterations S at a time, past the seam's */
  if (k->comm->rank == 0 && k->n > 0) v[0] = k->inject_value;
}

cc_err cc_krylov_iteration_end(cc_krylov_ctx *k, int iteration, const cc_state_decl *decl,
                               double *const vectors[], const double scalars[])
{
  if (k->first_it < 0) {
    k->first_it = iteration;
    memcpy(k->first_count, k->timers->count, sizeof k->first_count);
  }
  k->last_it = iteration;
  memcpy(k->last_count, k->timers->count, sizeof k->last_count);
  if (k->first_it == iteration) memcpy(k->first_traffic, k->traffic, sizeof k->first_traffic);
  memcpy(k->last_traffic, k->traffic, sizeof k->last_traffic);
  const int64_t red[3] = {k->reducer.blocking, k->reducer.posted, k->reducer.waited_early};
  if (k->first_it == iteration) memcpy(k->first_red, red, sizeof k->first_red);
  memcpy(k->last_red, red, sizeof k->last_red);
  if (k->timers->trace) cc_trace_iteration(k->timers->trace, iteration);
  if (decl->n_vectors > 1 && strcmp(decl->vector_name[1], "r") == 0)
    cc_krylov_poison(k, iteration, vectors[1]); /* test seam: poison r (cc_krylov_opts.inject) */
  const cc_krylov_opts *o = k->opts;
  int due                 = o->checkpoint && iteration % o->checkpoint_every == 0;
  if (due) CC_CALL(krylov_checkpoint(k, iteration, decl, vectors, scalars));
  if (!o->monitor) return CC_OK;
  int stop = 0;
  CC_CALL(o->monitor(o->monitor_ctx, iteration, k->result->rel_residual, &stop));
  if (!stop) return CC_OK;
  /* stopped from outside (a signal): the state of this iteration is the one to restart from */
  if (o->checkpoint && !due) CC_CALL(krylov_checkpoint(k, iteration, decl, vectors, scalars));
  cc_solve_result *res = k->result;
  res->converged       = 0;
  res->interrupted     = 1;
  res->iterations      = iteration;
  snprintf(res->failure, sizeof res->failure, "interrupted after iteration %d (signal)", iteration);
  /* leaves the variant's loop through its CC_CALL; the end of the solve turns it back into CC_OK */
  return CC_ERR_INTERRUPTED;
}

cc_err cc_krylov_restart_exact(cc_krylov_ctx *k, double *x, int *exact)
{
  *exact = 0;
  if (!k->opts->restart) return CC_OK;
  if (k->opts->restart->same_operator) {
    *exact = 1;
    return CC_OK;
  }
  static const char *const x_only[] = {"x"};
  const cc_state_decl decl          = {1, x_only, 0, NULL};
  CC_CALL(cc_krylov_restore(k, &decl, (double *const[]){x}, NULL));
  k->result->restart_rebuilt = 1;
  return CC_OK;
}

cc_err cc_krylov_restore(cc_krylov_ctx *k, const cc_state_decl *decl, double *const vectors[],
                         double scalars[])
{
  const cc_solver_state *st = k->opts->restart;
  cc_err local              = CC_OK, global;
  const char *const *names = decl->vector_name, *const *scalar_names = decl->scalar_name;
  for (int j = 0; j < decl->n_vectors && !local; j++) {
    int found = -1;
    for (int i = 0; i < st->n_vectors; i++)
      if (strcmp(st->vector_name[i], names[j]) == 0) found = i;
    if (found < 0 || !st->vector[found])
      local = cc_error_push(CC_ERR_ARG, __FILE__, __LINE__, __func__,
                            "restart state of '%s' at iteration %d has no vector '%s'", st->solver,
                            st->iteration, names[j]);
    else
      memcpy(vectors[j], st->vector[found], (size_t)k->n * sizeof(double));
  }
  for (int j = 0; j < decl->n_scalars && !local; j++) {
    int found = -1;
    for (int i = 0; i < st->n_scalars; i++)
      if (strcmp(st->scalar_name[i], scalar_names[j]) == 0) found = i;
    if (found < 0)
      local = cc_error_push(CC_ERR_ARG, __FILE__, __LINE__, __func__,
                            "restart state of '%s' at iteration %d has no scalar '%s'", st->solver,
                            st->iteration, scalar_names[j]);
    else
      scalars[j] = st->scalar[found];
  }
  /* collective: a rank whose state is incomplete must not leave the others in a reduction */
  CC_CALL(cc_error_agree(k->comm->comm, local, &global));
  CC_CHECK(global == CC_OK, global, "%s: restart state incomplete", k->solver);
  return CC_OK;
}
