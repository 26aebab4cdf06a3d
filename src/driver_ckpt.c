/* driver_ckpt.c: wires the solvers' state (cc_state, one type for solvers/ and io/) to io/'s
 * checkpointer and restart. The io layout lists the global node id of each internal node in the
 * solver's (permuted) order, so vectors go to the backends without a copy here, and a restart reads
 * them straight back. */
#include "driver_ckpt.h"
#include "cc_io.h"
#include "options_gas.h"
#include "pipeline.h"

#include <stdlib.h>

struct cc_driver_ckpt {
  cc_io_layout layout;
  int64_t *global_ids; /* [n_internal] in the solver's ordering */
  cc_io_checkpointer *ckpt;
  cc_io_state restart_state; /* = cc_solver_state: given to the solver as it is */
  cc_gas_params gas;         /* --checkpoint gas: the store's geometry (params.gas points here) */
  char dir[CC_CKPT_DIR_MAX]; /* where checkpoints go / the checkpoint a restart loaded */
  char backend[CC_NAME_MAX];
  int verbose; /* rank 0 without --quiet: one line per checkpoint */
};

/* global ids in the solver's ordering: new node n was old node old_of_new[n] */
static cc_err layout_create(const cc_mesh *mesh, const cc_ordering *ord, cc_driver_ckpt *dc)
{
  CC_CALL(cc_malloc((size_t)mesh->n_internal, sizeof(int64_t), &dc->global_ids));
  for (int n = 0; n < mesh->n_internal; n++)
    dc->global_ids[n] = mesh->global_id[ord->old_of_new ? ord->old_of_new[n] : n];
  dc->layout = (cc_io_layout){.comm            = mesh->comm.comm,
                              .n_local_nodes   = mesh->n_internal,
                              .global_node_id  = dc->global_ids,
                              .n_global_nodes  = mesh->n_global_nodes,
                              .values_per_node = 3};
  return CC_OK;
}

/* The problem as the options define it (the partition is the mesh's: metadata_fill); opts: the
 * solve's options (cc_options_for_solve), whose settings the manifest records. */
static cc_err metadata_of_options(const cc_options *opts, const char *solver, cc_io_metadata *meta)
{
  memset(meta, 0, sizeof *meta);
  meta->nx = opts->mesh.nx;
  meta->ny = opts->mesh.ny;
  meta->nz = opts->mesh.nz;
  snprintf(meta->solver, sizeof meta->solver, "%s", solver ? solver : "");
  snprintf(meta->ordering, sizeof meta->ordering, "%s", cc_ordering_list[opts->ordering].name);
  /* the parameters that define the system: a restart or a reused --checkpoint-dir must match */
  meta->has_problem = true;
  meta->E           = opts->mesh.E;
  meta->nu          = opts->mesh.nu;
  meta->traction    = opts->mesh.traction;
  /* a float preconditioner is another operator: "asdd+single" (double keeps the bare name, so the
   * manifests written before --precond-precision read as double) */
  snprintf(meta->precond, sizeof meta->precond, "%.8s%s", cc_precond_list[opts->precond].name,
           opts->precond_precision == CC_PRECISION_SINGLE ? "+single"
           : opts->precond_precision == CC_PRECISION_HALF ? "+half"
                                                          : "");
  meta->colors     = opts->colors;
  meta->asdd_iters = opts->asdd_iters;
  snprintf(meta->asdd_residual, sizeof meta->asdd_residual, "%s", cc_options_asdd_residual(opts));
  /* the run's settings, which a restart takes or compares (src/options_settings.c) */
  CC_CALL(cc_options_settings_text(opts, meta->settings, sizeof meta->settings));
  return CC_OK;
}

static cc_err metadata_fill(const cc_options *opts, const cc_mesh *mesh, const cc_ordering *ord,
                            const char *solver, cc_io_metadata *meta)
{
  CC_CALL(metadata_of_options(opts, solver, meta));
  meta->nx = mesh->nx;
  meta->ny = mesh->ny;
  meta->nz = mesh->nz;
  snprintf(meta->ordering, sizeof meta->ordering, "%s", ord->kind);
  if (mesh->partition == CC_PARTITION_METIS)
    snprintf(meta->partition, sizeof meta->partition, "metis");
  else
    snprintf(meta->partition, sizeof meta->partition, "box %dx%dx%d", mesh->px, mesh->py, mesh->pz);
  return CC_OK;
}

/* The checkpointer's parameters of one solve (subdir: of several solves in one run). */
static cc_err params_fill(const cc_options *opts, const char *subdir, int start_iteration,
                          cc_io_checkpoint_params *params)
{
  cc_io_checkpoint_params_default(params);
  snprintf(params->backend, sizeof params->backend, "%.23s", cc_options_checkpoint(opts));
  int n = subdir ? snprintf(params->dir, sizeof params->dir, "%s/%s", opts->checkpoint_dir, subdir)
                 : snprintf(params->dir, sizeof params->dir, "%s", opts->checkpoint_dir);
  CC_CHECK(n > 0 && (size_t)n < sizeof params->dir, CC_ERR_ARG, "--checkpoint-dir '%s' is too long",
           opts->checkpoint_dir);
  params->every              = opts->checkpoint_every;
  params->keep               = opts->checkpoint_keep;
  params->durable            = opts->durable != 0;
  params->io_buffer_bytes    = (size_t)opts->io_buffer;
  params->io_writeback_bytes = (size_t)opts->io_writeback;
  params->fallback           = opts->io_fallback != 0;
  params->n_vectors_hint     = CC_STATE_MAX_VECTORS;
  params->overwrite          = opts->checkpoint_overwrite != 0;
  params->start_iteration    = start_iteration;
  return CC_OK;
}

/* One solve's directory refused or cleared before the mesh (opts: that solve's options). */
static cc_err precheck_solve(const cc_options *opts, const cc_solve_plan *plan, int n_plan,
                             int start, MPI_Comm comm)
{
  char subdir[CC_SUBDIR_MAX]; /* the subdirectory as run_solves names it */
  snprintf(subdir, sizeof subdir, "%s-%s", plan->variant->name,
           cc_reduction_list[plan->reduction].name);
  cc_io_checkpoint_params params;
  CC_CALL(params_fill(opts, n_plan > 1 ? subdir : NULL, start, &params));
  cc_io_metadata meta;
  CC_CALL(metadata_of_options(opts, plan->variant->name, &meta));
  CC_CALL(cc_io_checkpoint_dir_check(&params, &meta, comm));
  return CC_OK;
}

cc_err cc_driver_ckpt_precheck(const cc_options *opts, MPI_Comm comm)
{
  if (!cc_options_checkpoint(opts)) return CC_OK;
  int start = 0; /* a restart continues from its checkpoint's iteration */
  if (opts->restart[0]) CC_CALL(cc_io_checkpoint_iteration(opts->restart, comm, &start));
  cc_solve_plan plan[CC_MAX_SOLVES];
  int n_plan;
  CC_CALL(cc_plan_solves(opts, plan, &n_plan));
  cc_options *solve = NULL; /* each solve's own options, as run_solves builds them */
  CC_CALL(cc_calloc(1, sizeof *solve, &solve));
  cc_err err = CC_OK;
  for (int s = 0; s < n_plan && !err; s++) {
    cc_options_for_solve(opts, plan[s].variant, plan[s].reduction, solve);
    err = precheck_solve(solve, &plan[s], n_plan, start, comm);
  }
  cc_free(&solve);
  CC_CALL(err);
  return CC_OK;
}

cc_err cc_driver_ckpt_create(const cc_options *opts, const cc_mesh *mesh, const cc_ordering *ord,
                             const char *solver, const char *subdir, int start_iteration,
                             cc_driver_ckpt **out)
{
  cc_driver_ckpt *dc;
  CC_CALL(cc_calloc(1, sizeof *dc, &dc));
  /* on an error: free what was built (the driver ends with MPI_Finalize on agreed errors, and the
   * sanitizer suite's leak check sees that exit) */
#define DC_CALL(expr)                                                                              \
  do {                                                                                             \
    cc_err dc_err_ = (expr);                                                                       \
    if (dc_err_) {                                                                                 \
      cc_driver_ckpt_destroy(&dc);                                                                 \
      return cc_error_push(dc_err_, __FILE__, __LINE__, __func__, "%s", #expr);                    \
    }                                                                                              \
  } while (0)
  DC_CALL(layout_create(mesh, ord, dc));
  cc_io_checkpoint_params params;
  DC_CALL(params_fill(opts, subdir, start_iteration, &params));
  cc_io_metadata meta;
  DC_CALL(metadata_fill(opts, mesh, ord, solver, &meta));
  cc_options_gas_params(opts, &dc->gas); /* owned by dc: the checkpointer reads it while it lives */
  params.gas = &dc->gas;
  DC_CALL(cc_io_checkpointer_create(&params, &dc->layout, &meta, &dc->ckpt));
  if (cc_options_checkpoint(opts) &&
      !strcmp(cc_options_checkpoint(opts),
              "gas")) { /* the store's geometry; the exact state, refused now */
    cc_gas_params cap = dc->gas;
    snprintf(cap.ssd_dir, sizeof cap.ssd_dir, "%s",
             dc->gas.ssd_dir[0] ? dc->gas.ssd_dir : params.dir);
    DC_CALL(
        cc_gas_check_capacity(mesh->comm.comm, &cap, cc_options_gas_state_bytes(mesh->n_internal)));
  }
  snprintf(dc->dir, sizeof dc->dir, "%s", params.dir);
  snprintf(dc->backend, sizeof dc->backend, "%s", cc_options_checkpoint(opts));
  dc->verbose = !opts->quiet && mesh->comm.rank == 0;
  *out        = dc;
  return CC_OK;
#undef DC_CALL
}

/* cc_checkpoint_fn: the solver's state, as named vectors, to the checkpointer (collective). */
cc_err cc_driver_ckpt_write(void *ctx, const cc_solver_state *st)
{
  cc_driver_ckpt *dc = ctx;
  cc_io_checkpoint_stats before, after;
  cc_io_checkpointer_stats(dc->ckpt, &before);
  double started = MPI_Wtime();
  CC_CALL(cc_io_checkpointer_write(dc->ckpt, st)); /* one state type: handed on as it is */
  if (dc->verbose) {
    /* offload: this one is only staged (its commit runs behind the solver, polled each iteration)
     */
    cc_io_checkpointer_stats(dc->ckpt, &after);
    int staged      = after.last_iteration != st->iteration;
    char latest[32] = "none", name[32];
    if (after.last_iteration >= 0)
      cc_io_checkpoint_name(after.last_iteration, latest, sizeof latest);
    cc_io_checkpoint_name(st->iteration, name, sizeof name);
    if (staged) /* its commit goes on behind the solver; the bytes are known once it is agreed */
      printf("  checkpoint %d -> %s/%s (%s, staged in %.3f s; latest committed: %s)\n",
             st->iteration, dc->dir, name, dc->backend, MPI_Wtime() - started, latest);
    else
      printf("  checkpoint %d -> %s/%s (%s, %.1f MB, %.3f s)\n", st->iteration, dc->dir, name,
             dc->backend, (after.bytes_all_ranks - before.bytes_all_ranks) / 1e6,
             MPI_Wtime() - started);
    fflush(stdout);
  }
  return CC_OK;
}

cc_err cc_driver_ckpt_poll(cc_driver_ckpt *dc)
{
  if (dc && dc->ckpt) CC_CALL(cc_io_checkpointer_poll(dc->ckpt));
  return CC_OK;
}

/* The per-checkpoint list of the report: times max over ranks (rank 0's commit), committed on all.
 * Collective; every rank holds the same number of records. */
static cc_err records_reduce(cc_driver_ckpt *dc, cc_solve_record *rec)
{
  const cc_io_checkpoint_record *r;
  int n;
  cc_io_checkpointer_records(dc->ckpt, &r, &n);
  int listed                = n < CC_MAX_CKPT_RECORDS ? n : CC_MAX_CKPT_RECORDS;
  rec->ckpt_n_records       = listed;
  rec->ckpt_records_dropped = n - listed;
  double t[4 * CC_MAX_CKPT_RECORDS];
  int committed[CC_MAX_CKPT_RECORDS];
  for (int i = 0; i < listed; i++) {
    t[4 * i]     = r[i].stall_s;
    t[4 * i + 1] = r[i].wait_s;
    t[4 * i + 2] = r[i].write_s;
    t[4 * i + 3] = r[i].commit_s;
    committed[i] = r[i].committed;
  }
  if (listed) {
    CC_MPI(MPI_Allreduce(MPI_IN_PLACE, t, 4 * listed, MPI_DOUBLE, MPI_MAX, dc->layout.comm));
    CC_MPI(MPI_Allreduce(MPI_IN_PLACE, committed, listed, MPI_INT, MPI_MIN, dc->layout.comm));
  }
  for (int i = 0; i < listed; i++) {
    rec->ckpt_records[i].iteration = r[i].iteration;
    rec->ckpt_records[i].committed = committed[i];
    rec->ckpt_records[i].stall_s   = t[4 * i];
    rec->ckpt_records[i].wait_s    = t[4 * i + 1];
    rec->ckpt_records[i].write_s   = t[4 * i + 2];
    rec->ckpt_records[i].commit_s  = t[4 * i + 3];
  }
  return CC_OK;
}

/* Wait for an offloaded checkpoint, then copy the statistics into the solve's record. */
cc_err cc_driver_ckpt_finish(cc_driver_ckpt *dc, const cc_options *opts, cc_solve_record *rec)
{
  double started = MPI_Wtime();
  CC_CALL(cc_io_checkpointer_finish(dc->ckpt));
  double finish_s = MPI_Wtime() - started;
  cc_io_checkpoint_stats stats;
  cc_io_checkpointer_stats(dc->ckpt, &stats);
  cc_stat stall, write;
  CC_CALL(cc_stat_reduce(dc->layout.comm, stats.stall_s, &stall));
  CC_CALL(cc_stat_reduce(dc->layout.comm, stats.write_s, &write));
  rec->ckpt_enabled = 1;
  snprintf(rec->ckpt_backend, sizeof rec->ckpt_backend, "%s", cc_options_checkpoint(opts));
  snprintf(rec->ckpt_path_used, sizeof rec->ckpt_path_used, "%s", stats.path_used);
  rec->ckpt_count    = stats.count;
  rec->ckpt_bytes    = stats.bytes_all_ranks;
  rec->ckpt_stall_s  = stall.max;
  rec->ckpt_write_s  = write.max;
  rec->ckpt_finish_s = finish_s;
  if (stats.last_iteration >= 0) {
    char name[32];
    snprintf(rec->ckpt_last, sizeof rec->ckpt_last, "%s/%s", dc->dir,
             cc_io_checkpoint_name(stats.last_iteration, name, sizeof name));
  }
  CC_CALL(records_reduce(dc, rec));
  return CC_OK;
}

void cc_driver_ckpt_destroy(cc_driver_ckpt **dcp)
{
  cc_driver_ckpt *dc = *dcp;
  if (!dc) return;
  if (dc->ckpt) cc_io_checkpointer_destroy(&dc->ckpt);
  cc_io_state_free(&dc->restart_state);
  cc_free(&dc->global_ids);
  cc_free(dcp);
}

/* --restart DIR: the newest complete checkpoint, verified (sizes, CRC32C, mesh, ranks) by io/,
 * as a solver state in the solver's ordering. The handle owns the vectors. */
static cc_err restart_load(const cc_options *opts, const cc_mesh *mesh, const cc_ordering *ord,
                           const char *solver, cc_driver_ckpt *dc, cc_driver_ckpt **out,
                           const cc_solver_state **state);

cc_err cc_driver_restart_load(const cc_options *opts, const cc_mesh *mesh, const cc_ordering *ord,
                              const char *solver, cc_driver_ckpt **out,
                              const cc_solver_state **state)
{
  cc_driver_ckpt *dc;
  CC_CALL(cc_calloc(1, sizeof *dc, &dc));
  cc_err err = restart_load(opts, mesh, ord, solver, dc, out, state);
  if (err) cc_driver_ckpt_destroy(&dc); /* a refused restart holds no checkpointer: memory only */
  CC_CALL(err);
  return CC_OK;
}

static cc_err restart_load(const cc_options *opts, const cc_mesh *mesh, const cc_ordering *ord,
                           const char *solver, cc_driver_ckpt *dc, cc_driver_ckpt **out,
                           const cc_solver_state **state)
{
  CC_CALL(layout_create(mesh, ord, dc));
  cc_io_metadata expect;
  CC_CALL(metadata_fill(opts, mesh, ord, NULL, &expect));
  char partition[sizeof expect.partition]; /* this run's, for the same-operator test below */
  snprintf(partition, sizeof partition, "%s", expect.partition);
  expect.partition[0] = '\0'; /* hdf5 checkpoints may come from another partition */
  /* the reader honours the I/O options of this run (--io-fallback, --io-buffer): the backend
   * itself is the manifest's */
  cc_io_checkpoint_params params;
  cc_io_checkpoint_params_default(&params);
  params.io_buffer_bytes = (size_t)opts->io_buffer;
  params.fallback        = opts->io_fallback != 0;
  cc_options_gas_params(opts, &dc->gas); /* a gas checkpoint's pages (--gas-ssd-dir) */
  params.gas  = &dc->gas;
  params.keep = opts->checkpoint_keep;
  cc_io_restart_info info;
  CC_CALL(cc_io_checkpoint_read(opts->restart, &params, &dc->layout, &expect, &dc->restart_state,
                                &info));
  cc_io_state *in = &dc->restart_state;
  /* every rank read the same solver name: agreed, so the job ends with MPI_Finalize (exit 2) */
  cc_err same = strcmp(in->solver, solver) == 0
                    ? CC_OK
                    : cc_error_push(CC_ERR_ARG, __FILE__, __LINE__, __func__,
                                    "--restart %s holds a '%s' checkpoint, but --solver is '%s'",
                                    opts->restart, in->solver, solver);
  CC_CALL(cc_agree(mesh->comm.comm, same));
  cc_solver_state *st = in; /* one state type: the vectors io/ read are the solver's */
  st->n_local         = 3 * (int64_t)mesh->n_internal;
  snprintf(dc->dir, sizeof dc->dir, "%s", info.checkpoint_dir);
  /* exact continuation only on the decomposition it was written on: otherwise (hdf5 on another
   * rank count or partition) ASDD's M^-1 differs and the solver rebuilds from x */
  int ranks;
  CC_MPI(MPI_Comm_size(mesh->comm.comm, &ranks));
  st->same_operator = info.ranks_written == ranks && strcmp(info.partition, partition) == 0;

  *state = st;
  *out   = dc;
  return CC_OK;
}

const char *cc_driver_restart_path(const cc_driver_ckpt *dc)
{
  return dc ? dc->dir : "";
}

/* --export-solution FILE: the displacements (original local numbering) to HDF5 + XDMF. */
cc_err cc_driver_export_solution(const cc_options *opts, const cc_mesh *mesh, const double *u)
{
  cc_io_layout layout = {.comm            = mesh->comm.comm,
                         .n_local_nodes   = mesh->n_internal,
                         .global_node_id  = mesh->global_id,
                         .n_global_nodes  = mesh->n_global_nodes,
                         .values_per_node = 3};
  /* recorded as attributes of the HDF5 file */
  cc_io_export_params params = {.nx       = mesh->nx,
                                .ny       = mesh->ny,
                                .nz       = mesh->nz,
                                .E        = opts->mesh.E,
                                .nu       = opts->mesh.nu,
                                .traction = opts->mesh.traction,
                                .deformed = opts->export_deformed != 0};
  CC_CALL(cc_io_export_solution(&layout, &params, u, opts->export_solution));
  return CC_OK;
}
