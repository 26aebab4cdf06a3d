/* options_gas.c: --checkpoint gas: the global store's parameters from the options, and their check
 * against the disk (O_DIRECT, capacity) before any allocation, so that bad input writes nothing. */
#include "options_gas.h"

#include <sys/stat.h>

void cc_options_gas_params(const cc_options *opts, cc_gas_params *gp)
{
  cc_gas_params_default(gp);
  gp->page_bytes = (size_t)opts->gas_page;
  gp->dram_bytes = (size_t)opts->gas_dram;
  gp->ssd_bytes  = opts->gas_ssd_bytes;
  gp->fallback   = opts->io_fallback != 0;
  gp->durable    = opts->durable != 0;
  snprintf(gp->ssd_dir, sizeof gp->ssd_dir, "%s", opts->gas_ssd_dir); /* "" = in the checkpoint */
}

int64_t cc_options_gas_state_bytes(int64_t n_nodes)
{
  return 4096 + (int64_t)CC_STATE_MAX_VECTORS * n_nodes * 3 * (int64_t)sizeof(double);
}

cc_err cc_options_gas_validate(const cc_options *opts, MPI_Comm comm)
{
  cc_gas_params gp;
  cc_options_gas_params(opts, &gp);
  CC_CHECK(opts->gas_page > 0 && opts->gas_dram > 0, CC_ERR_ARG,
           "--gas-page %lld / --gas-dram %lld must be > 0", (long long)opts->gas_page,
           (long long)opts->gas_dram);
  /* the disk: probe O_DIRECT in the SSD (default: checkpoint) directory or its nearest existing
   * parent, so that bad input writes nothing */
  char dir[CC_PATH_MAX];
  snprintf(dir, sizeof dir, "%s", opts->gas_ssd_dir[0] ? opts->gas_ssd_dir : opts->checkpoint_dir);
  snprintf(gp.ssd_dir, sizeof gp.ssd_dir, "%s", dir);
  CC_CALL(cc_gas_params_check(&gp));
  struct stat st;
  while (stat(dir, &st) != 0) cc_path_to_parent(dir, sizeof dir); /* "." and "/" exist */
  cc_err local = cc_gas_probe_dir(dir, gp.fallback), global;
  CC_CALL(cc_error_agree(comm, local, &global));
  if (global && !local) /* the failing rank has the reason on its chain */
    CC_FAIL(CC_ERR_ARG, "--checkpoint gas: %s cannot hold the store's page files on another rank",
            dir);
  if (global) CC_FAIL(CC_ERR_ARG, "--checkpoint gas: %s cannot hold the store's page files", dir);
  /* capacity against the largest rank's share of the mesh (the exact check follows the mesh) */
  int ranks;
  CC_MPI(MPI_Comm_size(comm, &ranks));
  int64_t nodes = (int64_t)opts->mesh.nx * opts->mesh.ny * opts->mesh.nz;
  snprintf(gp.ssd_dir, sizeof gp.ssd_dir, "%s", dir);
  int64_t bytes = cc_options_gas_state_bytes((nodes + ranks - 1) / ranks);
  CC_CALL(cc_gas_check_capacity(comm, &gp, bytes));
  return CC_OK;
}
