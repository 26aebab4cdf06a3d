/* gas_store.c: the global memory store (vGASNet over MPI): pages owned by a partner rank, a DRAM
 * page cache per rank in an MPI window (passive target: one MPI_Win_lock_all epoch; on one node a
 * shared window read and written by load/store, across nodes pages sent as messages and copies
 * read by MPI_Get + MPI_Win_flush), LRU eviction to the owner's SSD page file (gas_ssd.c), a
 * per-owner page directory and cooperative caching. Owners service requests from polling (see
 * cc_gas.h for why). This file: the geometry (who owns which page, nodes, partners), creation,
 * reuse and destruction, statistics and the capacity checks; the owner's side is gas_owner.c, the
 * requester's gas_requester.c. */
#include "gas_store_internal.h"

#include <sched.h>
#include <stdlib.h>
#include <sys/statvfs.h>
#include <unistd.h>

/* ---- geometry ------------------------------------------------------------------------------ */
void cc_gas_params_default(cc_gas_params *p)
{
  memset(p, 0, sizeof *p);
  p->page_bytes  = (size_t)4 << 20;
  p->dram_bytes  = (size_t)64 << 20;
  p->queue_depth = CC_IO_QUEUE_DEPTH;
  p->durable     = true;
  snprintf(p->ssd_dir, sizeof p->ssd_dir, ".");
}

cc_err cc_gas_params_check(const cc_gas_params *p)
{
  CC_CHECK(p->page_bytes >= CC_GAS_MIN_PAGE && (p->page_bytes & (p->page_bytes - 1)) == 0,
           CC_ERR_ARG, "--gas-page %zu must be a power of two >= 4096 bytes (e.g. 64k, 1M, 4M)",
           p->page_bytes);
  CC_CHECK(p->page_bytes <= ((size_t)1 << 30), CC_ERR_ARG, "--gas-page %zu above 1 GiB",
           p->page_bytes);
  CC_CHECK(p->dram_bytes >= p->page_bytes, CC_ERR_ARG,
           "--gas-dram %zu is below one page (--gas-page %zu)", p->dram_bytes, p->page_bytes);
  CC_CHECK(p->ssd_bytes >= 0, CC_ERR_ARG, "--gas-ssd-bytes %lld must be >= 0",
           (long long)p->ssd_bytes);
  CC_CHECK(p->ssd_dir[0] != '\0', CC_ERR_ARG, "--gas-ssd-dir is empty");
  return CC_OK;
}

/* The node map is cached on the communicator (MPI attribute caching): MPI_Comm_split_type costs
 * tenths of a second on a loaded machine, and a checkpoint creates a store every time. */
static int node_keyval = MPI_KEYVAL_INVALID;

static int node_cache_delete(MPI_Comm comm, int keyval, void *value, void *extra)
{
  (void)comm, (void)keyval, (void)extra;
  free(value);
  return MPI_SUCCESS;
}

static cc_err map_nodes_uncached(MPI_Comm comm, int rank, int size, int *node, int *partner,
                                 int *n_nodes);

/* Node index of every rank (nodes numbered by their lowest rank) and each home's partner. */
static cc_err map_nodes(MPI_Comm comm, int rank, int size, int *node, int *partner, int *n_nodes)
{
  if (node_keyval == MPI_KEYVAL_INVALID)
    CC_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, node_cache_delete, &node_keyval, NULL));
  int *cached = NULL, found = 0;
  CC_MPI(MPI_Comm_get_attr(comm, node_keyval, &cached, &found));
  if (found && cached[0] == size) {
    *n_nodes = cached[1];
    memcpy(node, cached + 2, (size_t)size * sizeof *node);
    memcpy(partner, cached + 2 + size, (size_t)size * sizeof *partner);
    return CC_OK;
  }
  CC_CALL(map_nodes_uncached(comm, rank, size, node, partner, n_nodes));
  cached = malloc((2 + 2 * (size_t)size) * sizeof *cached);
  CC_CHECK(cached != NULL, CC_ERR_MEM, "out of memory caching the node map");
  cached[0] = size, cached[1] = *n_nodes;
  memcpy(cached + 2, node, (size_t)size * sizeof *node);
  memcpy(cached + 2 + size, partner, (size_t)size * sizeof *partner);
  int rc = MPI_Comm_set_attr(comm, node_keyval, cached);
  if (rc != MPI_SUCCESS) free(cached);
  CC_MPI(rc);
  return CC_OK;
}

static cc_err map_nodes_uncached(MPI_Comm comm, int rank, int size, int *node, int *partner,
                                 int *n_nodes)
{
  MPI_Comm shm;
  CC_MPI(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &shm));
  int leader = rank;
  int rc     = MPI_Allreduce(MPI_IN_PLACE, &leader, 1, MPI_INT, MPI_MIN, shm);
  MPI_Comm_free(&shm);
  CC_MPI(rc);
  int *lead;
  CC_CALL(cc_malloc((size_t)size, sizeof *lead, &lead));
  rc = MPI_Allgather(&leader, 1, MPI_INT, lead, 1, MPI_INT, comm);
  if (rc != MPI_SUCCESS) cc_free(&lead);
  CC_MPI(rc);
  int n = 0;
  for (int r = 0; r < size; r++) {
    if (lead[r] == r) n++;
    int idx = 0; /* node index = number of leaders below this rank's leader */
    for (int q = 0; q < lead[r]; q++)
      if (lead[q] == q) idx++;
    node[r] = idx;
  }
  for (int r = 0; r < size; r++) {
    if (n == 1) {
      partner[r] = (r + 1) % size;
      continue;
    }
    int local = 0, target = (node[r] + 1) % n, count = 0;
    for (int q = 0; q < r; q++)
      if (node[q] == node[r]) local++;
    for (int q = 0; q < size; q++)
      if (node[q] == target) count++;
    int want = local % count;
    for (int q = 0; q < size; q++)
      if (node[q] == target && want-- == 0) partner[r] = q;
  }
  cc_free(&lead);
  *n_nodes = n;
  return CC_OK;
}

int cc_gas_owner(const cc_gas *gas, int64_t page)
{
  return gas->partner[page / gas->pages_per_rank];
}
int cc_gas_partner(const cc_gas *gas, int rank)
{
  return gas->partner[rank];
}
int cc_gas_node(const cc_gas *gas, int rank)
{
  return gas->node[rank];
}
int cc_gas_n_nodes(const cc_gas *gas)
{
  return gas->n_nodes;
}
const char *cc_gas_data_path(const cc_gas *gas)
{
  return gas->peer_slots ? "shared-memory" : "messages";
}
size_t cc_gas_page_bytes(const cc_gas *gas)
{
  return gas->p.page_bytes;
}
int64_t cc_gas_pages_per_rank(const cc_gas *gas)
{
  return gas->pages_per_rank;
}

/* where an owned page sits in the owner's page file */
int64_t cc_gas_ssd_offset(const cc_gas *gas, int64_t page)
{
  return gas_owned_index(gas, page) * (int64_t)gas->p.page_bytes;
}

void cc_gas_file_name(int owner, char *name, size_t n)
{
  snprintf(name, n, "gas.%d.pages", owner);
}

cc_err cc_gas_check_capacity(MPI_Comm comm, const cc_gas_params *p, int64_t home_bytes)
{
  CC_CALL(cc_gas_params_check(p));
  int64_t pages = (home_bytes + (int64_t)p->page_bytes - 1) / (int64_t)p->page_bytes;
  int64_t max_pages;
  CC_MPI(MPI_Allreduce(&pages, &max_pages, 1, MPI_INT64_T, MPI_MAX, comm));
  int rank, size;
  CC_MPI(MPI_Comm_rank(comm, &rank));
  CC_MPI(MPI_Comm_size(comm, &size));
  /* every owner holds at most ceil(size / n_nodes) homes; 1 is the common case, take the bound */
  int *node, *partner, n_nodes;
  CC_CALL(cc_malloc((size_t)size, sizeof(int), &node));
  CC_CALL(cc_malloc((size_t)size, sizeof(int), &partner));
  cc_err err = map_nodes(comm, rank, size, node, partner, &n_nodes);
  int homes  = 0;
  for (int r = 0; !err && r < size; r++)
    if (partner[r] == rank) homes++;
  cc_free(&node);
  cc_free(&partner);
  CC_CALL(err);
  int64_t ssd = p->ssd_bytes;
  if (ssd == 0) { /* the free space where the files will be: the nearest existing directory */
    struct statvfs vfs;
    char dir[CC_IO_DIR_MAX];
    snprintf(dir, sizeof dir, "%s", p->ssd_dir);
    while (statvfs(dir, &vfs) != 0 && errno == ENOENT && strcmp(dir, ".") && strcmp(dir, "/"))
      cc_path_to_parent(dir, sizeof dir);
    CC_CHECK(statvfs(dir, &vfs) == 0, CC_ERR_ARG, "--gas-ssd-dir %s: %s", dir, strerror(errno));
    ssd = (int64_t)vfs.f_bavail * (int64_t)vfs.f_frsize;
  }
  int64_t need = homes * max_pages * (int64_t)p->page_bytes;
  int64_t have = (int64_t)p->dram_bytes + ssd;
  int bad      = need > have, any_bad;
  CC_MPI(MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, comm));
  int64_t worst[2] = {bad ? need : 0, bad ? have : 0}, w[2];
  CC_MPI(MPI_Allreduce(worst, w, 2, MPI_INT64_T, MPI_MAX, comm));
  CC_CHECK(!any_bad, CC_ERR_ARG,
           "the state needs %lld bytes of global memory per owner (%lld pages of %zu bytes), more "
           "than --gas-dram %zu + SSD capacity %lld: raise --gas-dram / --gas-ssd-bytes",
           (long long)w[0], (long long)(w[0] / (int64_t)p->page_bytes), p->page_bytes,
           p->dram_bytes, (long long)(w[1] - (int64_t)p->dram_bytes));
  return CC_OK;
}

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
  if (!local) local = map_nodes(comm, gas->rank, gas->size, gas->node, gas->partner, &gas->n_nodes);
  if (!local) {
    for (int r = 0; r < gas->size; r++) {
      gas->home_index[r] = 0;
      for (int q = 0; q < r; q++)
        if (gas->partner[q] == gas->partner[r]) gas->home_index[r]++;
    }
    local = create_local(gas);
  }
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

cc_err cc_gas_probe_dir(const char *dir, bool fallback)
{
  char path[CC_IO_PATH_MAX];
  snprintf(path, sizeof path, "%s/.gas-probe.%ld", dir, (long)getpid());
  CC_CALL(io_mkdir_p(dir));
  gas_ssd *ssd;
  cc_err err = gas_ssd_open(path, CC_IO_WRITE, 2, fallback, &ssd);
  if (!err) {
    char *block = NULL;
    err         = cc_calloc(4096, 1, &block);
    if (!err) err = gas_ssd_write(ssd, 0, block, 4096);
    cc_free(&block);
    cc_err cerr = gas_ssd_close(&ssd);
    if (!err) err = cerr;
  }
  unlink(path);
  CC_CALL(err);
  return CC_OK;
}
