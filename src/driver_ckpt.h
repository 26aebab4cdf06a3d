/* driver_ckpt.h: the driver's side of checkpoints (driver_ckpt.c): the solver's state to io/'s
 * checkpointer and back for --restart, and --export-solution. */
#ifndef CC_DRIVER_CKPT_H
#define CC_DRIVER_CKPT_H

#include "solve_record.h"

typedef struct cc_driver_ckpt cc_driver_ckpt;
/* start_iteration: the restart's iteration (0 for a fresh solve): newer checkpoints of the same
 * problem in the directory are refused (io/cc_io.h, cc_io_checkpointer_create). */
CC_WUR cc_err cc_driver_ckpt_create(const cc_options *opts, const cc_mesh *mesh,
                                    const cc_ordering *ord, const char *solver, const char *subdir,
                                    int start_iteration, cc_driver_ckpt **out);
/* Collective, with the checkpoint directory's lock held, before the mesh: refuses (CC_ERR_ARG) a
 * --checkpoint-dir that cc_driver_ckpt_create would refuse, for every solve of the run. */
CC_WUR cc_err cc_driver_ckpt_precheck(const cc_options *opts, MPI_Comm comm);
CC_WUR cc_err cc_driver_ckpt_write(void *ctx, const cc_solver_state *state); /* cc_checkpoint_fn */
/* Once per iteration on every rank: moves an offloaded checkpoint's commit on, never blocks. */
CC_WUR cc_err cc_driver_ckpt_poll(cc_driver_ckpt *dc);
CC_WUR cc_err cc_driver_ckpt_finish(cc_driver_ckpt *dc, const cc_options *opts,
                                    cc_solve_record *rec);
void cc_driver_ckpt_destroy(cc_driver_ckpt **dc);
CC_WUR cc_err cc_driver_restart_load(const cc_options *opts, const cc_mesh *mesh,
                                     const cc_ordering *ord, const char *solver,
                                     cc_driver_ckpt **out, const cc_solver_state **state);
const char *cc_driver_restart_path(const cc_driver_ckpt *dc); /* DIR/ckpt.<it> loaded */
CC_WUR cc_err cc_driver_export_solution(const cc_options *opts, const cc_mesh *mesh,
                                        const double *u);

#endif
