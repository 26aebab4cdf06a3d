/* gas_store.c: the global memory store (vGASNet over MPI): pages owned by a partner rank, a DRAM
 * page cache per rank in an MPI window (passive target: one MPI_Win_lock_all epoch; on one node a
 * shared window read and written by load/store, across nodes pages sent as messages and copies
 * read by MPI_Get + MPI_Win_flush), LRU eviction to the owner's SSD page file (gas_ssd.c), a
 * per-owner page directory and cooperative caching. Owners service requests from polling (see
 * cc_gas.h for why). This file: creation, reuse and destruction of a store, and its statistics;
 * the geometry is gas_geometry.c, the owner's side gas_owner.c, the requester's gas_requester.c. */
#include "gas_internal.h"

#include <sched.h>
#include <stdlib.h>
#include <sys/statvfs.h>
#include <unistd.h>
/* ---- creation -------------------------------------------------------------------------------- */
static cc_err create_local(cc_gas *gas)
{
  int homes = 0;
  for (int r = 0; r < gas->size; r++)
    if (gas->partner[r] == gas->rank) homes++;
  gas->n_owned = homes * gas->pages_per_rank;
  if (gas->n_owned) CC_CALL(cc_calloc((size_t)gas->n_owned, sizeof *gas->dir, &gas->dir));
  for (int64_t i = 0; i < gas->n_owned; i++) gas->dir[i].slot = -1;
  CC_CALL(cc_calloc((size_t)gas->n_slots, sizeof *gas->slot, &gas->slot));
  for (int s = 0; s < gas->n_slots; s++) gas->slot[s].page = -1;
  CC_CALL(cc_malloc(gas->p.page_bytes, 1, &gas->scratch));
  if (gas->n_owned) {
    char name[64];
    cc_gas_file_name(gas->rank, name, sizeof name);
    snprintf(gas->ssd_path, sizeof gas->ssd_path, "%s/%s", gas->p.ssd_dir, name);
    CC_CALL(io_mkdir_p(gas->p.ssd_dir));
    CC_CALL(
        gas_ssd_open(gas->ssd_path, CC_IO_WRITE, gas->p.queue_depth, gas->p.fallback, &gas->ssd));
    gas_ssd_describe(gas->ssd, gas->stats.ssd_path_used, sizeof gas->stats.ssd_path_used,
                     gas->stats.ssd_detail, sizeof gas->stats.ssd_detail);
  }
  return CC_OK;
}

static void free_local(cc_gas *gas)
{
  if (gas->ssd && gas_ssd_close(&gas->ssd)) cc_error_clear();
  cc_free(&gas->dir);
  cc_free(&gas->slot);
  cc_free(&gas->scratch);
  cc_free(&gas->node);
  cc_free(&gas->partner);
  cc_free(&gas->home_index);
  cc_free(&gas->slot_disp);
  cc_free(&gas->peer_slots);
}

cc_err cc_gas_create(MPI_Comm comm, const cc_gas_params *p, int64_t pages_per_rank, cc_gas **out)
{
  *out = NULL;
  CC_CALL(cc_gas_params_check(p));
  CC_CHECK(pages_per_rank >= 1, CC_ERR_ARG, "global segment of %lld pages per rank",
           (long long)pages_per_rank);
  cc_gas *gas;
  CC_CALL(cc_calloc(1, sizeof *gas, &gas));
  gas->p              = *p;
  gas->pages_per_rank = pages_per_rank;
  gas->n_slots        = (int)(p->dram_bytes / p->page_bytes);
  gas->wire_parts     = p->page_bytes >= GAS_WIRE_PARTS * GAS_WIRE_MIN_PART ? GAS_WIRE_PARTS : 1;
  gas->wire_part      = p->page_bytes / (size_t)gas->wire_parts;
  gas->next_tag       = 0;
  gas->win            = MPI_WIN_NULL;
  gas->comm           = MPI_COMM_NULL;
  int rc              = MPI_Comm_dup(comm, &gas->comm);
  if (rc != MPI_SUCCESS) cc_free(&gas);
  CC_MPI(rc);
  cc_err local = CC_OK;
  rc           = MPI_Comm_set_errhandler(gas->comm, MPI_ERRORS_RETURN);
  if (rc == MPI_SUCCESS) rc = MPI_Comm_rank(gas->comm, &gas->rank);
  if (rc == MPI_SUCCESS) rc = MPI_Comm_size(gas->comm, &gas->size);
  if (rc != MPI_SUCCESS) {
    MPI_Comm_free(&gas->comm);
    cc_free(&gas);
    CC_MPI(rc);
  }
  local = cc_malloc((size_t)gas->size, sizeof(int), &gas->node);
  if (!local) local = cc_malloc((size_t)gas->size, sizeof(int), &gas->partner);
  if (!local) local = cc_malloc((size_t)gas->size, sizeof(int), &gas->home_index);
  if (!local) local = cc_malloc((size_t)gas->size, sizeof(MPI_Aint), &gas->slot_disp);
  if (!local)
    local = gas_map_nodes(comm, gas->rank, gas->size, gas->node, gas->partner, &gas->n_nodes);
  if (!local) local = gas_home_index(gas->size, gas->partner, gas->home_index, NULL);
  if (!local) local = create_local(gas);
  /* without cooperative caching a rank's slots only ever hold pages it owns: no larger window */
  if (!local && !p->coop && gas->n_owned < gas->n_slots)
    gas->n_slots = gas->n_owned > 0 ? (int)gas->n_owned : 1;
  cc_err err = cc_agree(gas->comm, local);
  if (!err) {
    /* the window: one page of slack so the slot area starts page-aligned (O_DIRECT, memcpy).
     * On one node it is a shared-memory window: a transfer is then one load/store pass that also
     * computes the CRC32C (io_crc32c_copy), as GASNet's PSHM does within a node, instead of an
     * MPI_Get/MPI_Put copy followed by a second pass for the CRC. */
    char *base     = NULL;
    MPI_Aint bytes = (MPI_Aint)gas->n_slots * (MPI_Aint)p->page_bytes + 4096;
    bool shared    = gas->n_nodes == 1 && gas->size > 1;
    if (shared) {
      MPI_Info info = MPI_INFO_NULL;
      rc            = MPI_Info_create(&info);
      if (rc == MPI_SUCCESS) rc = MPI_Info_set(info, "alloc_shared_noncontig", "true");
      if (rc == MPI_SUCCESS)
        rc = MPI_Win_allocate_shared(bytes, 1, info, gas->comm, &base, &gas->win);
      if (info != MPI_INFO_NULL) MPI_Info_free(&info);
      if (rc == MPI_SUCCESS) {
        err = cc_calloc((size_t)gas->size, sizeof *gas->peer_slots, &gas->peer_slots);
        for (int r = 0; !err && rc == MPI_SUCCESS && r < gas->size; r++) {
          MPI_Aint peer_bytes;
          int unit;
          rc = MPI_Win_shared_query(gas->win, r, &peer_bytes, &unit, &gas->peer_slots[r]);
        }
      }
    } else
      rc = MPI_Win_allocate(bytes, 1, MPI_INFO_NULL, gas->comm, &base, &gas->win);
    if (rc != MPI_SUCCESS)
      err = cc_error_push_mpi(rc, __FILE__, __LINE__, __func__,
                              shared ? "MPI_Win_allocate_shared" : "MPI_Win_allocate");
    else {
      MPI_Win_set_errhandler(gas->win, MPI_ERRORS_RETURN);
      /* one passive-target epoch for the store's lifetime: a transfer is MPI_Put/Get + flush,
       * with no lock round trip (ch4:ucx moves the bytes without the target's CPU) */
      rc = MPI_Win_lock_all(MPI_MODE_NOCHECK, gas->win);
      if (rc != MPI_SUCCESS)
        err = cc_error_push_mpi(rc, __FILE__, __LINE__, __func__, "MPI_Win_lock_all");
      uintptr_t a   = ((uintptr_t)base + 4095) & ~(uintptr_t)4095;
      gas->slots    = (char *)a;
      MPI_Aint mine = (MPI_Aint)(a - (uintptr_t)base);
      if (!err) rc = MPI_Allgather(&mine, 1, MPI_AINT, gas->slot_disp, 1, MPI_AINT, gas->comm);
      if (!err && rc != MPI_SUCCESS)
        err = cc_error_push_mpi(rc, __FILE__, __LINE__, __func__, "MPI_Allgather");
      for (int r = 0; !err && gas->peer_slots && r < gas->size; r++)
        gas->peer_slots[r] += gas->slot_disp[r];
    }
    err = cc_agree(gas->comm, err);
  }
  if (err) {
    if (gas->win != MPI_WIN_NULL) MPI_Win_free(&gas->win);
    free_local(gas);
    if (gas->ssd_path[0]) unlink(gas->ssd_path);
    MPI_Comm_free(&gas->comm);
    cc_free(&gas);
    CC_CALL(err);
  }
  *out = gas;
  return CC_OK;
}

cc_err cc_gas_destroy(cc_gas **gp)
{
  cc_gas *gas = *gp;
  if (!gas) return CC_OK;
  cc_err err = cc_gas_barrier(gas); /* nobody still reads a slot */
  int rc     = MPI_Win_unlock_all(gas->win);
  if (!err && rc != MPI_SUCCESS)
    err = cc_error_push_mpi(rc, __FILE__, __LINE__, __func__, "MPI_Win_unlock_all");
  rc = MPI_Win_free(&gas->win);
  if (!err && rc != MPI_SUCCESS)
    err = cc_error_push_mpi(rc, __FILE__, __LINE__, __func__, "MPI_Win_free");
  cc_err cerr = gas->ssd ? gas_ssd_close(&gas->ssd) : CC_OK;
  if (!err) err = cerr;
  if (!gas->p.keep_files && gas->ssd_path[0]) unlink(gas->ssd_path);
  free_local(gas);
  MPI_Comm_free(&gas->comm);
  cc_free(gp);
  CC_CALL(err);
  return CC_OK;
}

void cc_gas_abandon(cc_gas **gp)
{
  cc_gas *gas = *gp;
  if (!gas) return;
  free_local(gas); /* the window's memory and the communicator belong to MPI until it finalizes */
  cc_free(gp);
}

cc_err cc_gas_reuse(cc_gas *gas, const cc_gas_params *p, int64_t pages_per_rank, bool *reused)
{
  const cc_gas_params *q = &gas->p;
  *reused                = q->page_bytes == p->page_bytes && q->dram_bytes == p->dram_bytes &&
            q->coop == p->coop && q->fallback == p->fallback && q->queue_depth == p->queue_depth &&
            gas->pages_per_rank == pages_per_rank;
  if (!*reused) return CC_OK;   /* the same on every rank: the inputs are */
  CC_CALL(cc_gas_barrier(gas)); /* no transfer in flight, every done message handled */
  cc_err err = CC_OK;
  for (int s = 0; s < gas->n_slots && !err; s++) {
    if (gas->slot[s].pins > 0)
      err = cc_error_push(CC_ERR_IO, __FILE__, __LINE__, __func__,
                          "slot %d of rank %d still pinned at reuse", s, gas->rank);
    gas->slot[s] = (gas_slot){.page = -1};
  }
  for (int64_t i = 0; i < gas->n_owned; i++) gas->dir[i] = (gas_dir){.slot = -1};
  if (!err && gas->ssd) {
    if (!gas->p.keep_files) unlink(gas->ssd_path);
    char name[64], path[CC_IO_PATH_MAX];
    cc_gas_file_name(gas->rank, name, sizeof name);
    int n = snprintf(path, sizeof path, "%s/%s", p->ssd_dir, name);
    if (n <= 0 || (size_t)n >= sizeof path)
      err = cc_error_push(CC_ERR_ARG, __FILE__, __LINE__, __func__, "--gas-ssd-dir too long: %s",
                          p->ssd_dir);
    if (!err) err = io_mkdir_p(p->ssd_dir);
    if (!err) err = gas_ssd_reopen(gas->ssd, path, p->fallback);
    if (!err) snprintf(gas->ssd_path, sizeof gas->ssd_path, "%s", path);
    if (!err)
      gas_ssd_describe(gas->ssd, gas->stats.ssd_path_used, sizeof gas->stats.ssd_path_used,
                       gas->stats.ssd_detail, sizeof gas->stats.ssd_detail);
  }
  snprintf(gas->p.ssd_dir, sizeof gas->p.ssd_dir, "%s", p->ssd_dir);
  gas->p.durable    = p->durable;
  gas->p.keep_files = p->keep_files;
  CC_CALL(cc_agree(gas->comm, err));
  return CC_OK;
}

void cc_gas_get_stats(const cc_gas *gas, cc_gas_stats *stats)
{
  *stats = gas->stats;
}

void cc_gas_reset_stats(cc_gas *gas)
{
  cc_gas_stats keep = gas->stats;
  memset(&gas->stats, 0, sizeof gas->stats);
  memcpy(gas->stats.ssd_path_used, keep.ssd_path_used, sizeof keep.ssd_path_used);
  memcpy(gas->stats.ssd_detail, keep.ssd_detail, sizeof keep.ssd_detail);
}
