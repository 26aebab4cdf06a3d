/* gas_store.c: the global memory store (vGASNet over MPI): pages owned by a partner rank, a DRAM
 * page cache per rank in an MPI window (passive target: one MPI_Win_lock_all epoch; on one node a
 * shared window read and written by load/store, across nodes pages sent as messages and copies
 * read by MPI_Get + MPI_Win_flush), LRU eviction to the owner's SSD page file (gas_ssd.c), a
 * per-owner page directory and cooperative caching. Owners service requests from polling (see
 * cc_gas.h for why). */
#include "gas_internal.h"

#include <sched.h>
#include <stdlib.h>
#include <sys/statvfs.h>
#include <unistd.h>

#define TAG_REQ 1
#define GAS_OUT_MAX 256
#define TAG_REPLY_FIRST 16
#define TAG_REPLY_COUNT 10000
/* two-sided pages: a tag range each way, apart from the replies (a pair of ranks may be each
 * other's owner, so a reply, a page served and a page put can share a requester's tag number);
 * the highest, 16 + 3 x 10000, stays below the MPI_TAG_UB every MPI library gives (32767) */
#define TAG_GET_DATA(tag) ((tag) + TAG_REPLY_COUNT)
#define TAG_PUT_DATA(tag) ((tag) + 2 * TAG_REPLY_COUNT)
/* a page served as messages goes in GAS_WIRE_PARTS equal parts, one tag: MPI matches them in
 * order with the requester's receives. Parts let the owner send the first ones while it still
 * reads the others from its SSD (in 1 MiB requests), so only pages of 4 x GAS_WIRE_MIN_PART and
 * more are cut: at 4 MB 4 parts cost the same as one message (probe: 0.34 ms either way across 2
 * emulated nodes), at 64 KiB 4 parts of 16 KiB lost 15-30% of a DRAM hit's bandwidth */
#define GAS_WIRE_PARTS 4
#define GAS_WIRE_MIN_PART ((size_t)512 << 10)

enum { M_PUT_REQ = 1, M_PUT_DONE, M_GET_REQ, M_GET_DONE, M_DROP };
enum { GR_OK = 0, GR_BUSY, GR_UNWRITTEN };
enum { FROM_DRAM = 1, FROM_SSD, FROM_COOP, FROM_LOCAL };
enum { SLOT_FREE = 0, SLOT_OWNED, SLOT_COPY };

typedef struct { /* request, done and reply messages (MPI_BYTE) */
  int32_t type, reply_tag, slot, flags;
  int64_t page;
  uint64_t len;
  uint32_t crc;
  int32_t status, source, from;
  uint32_t sent_crc; /* reply to a get whose page was sent as a message: the owner's verdict, the
                        CRC32C of the slot it sent (crc is the directory's) */
} gas_msg;

typedef struct {
  int64_t page; /* owned page or copied page; -1 when free */
  int kind, pins;
  bool dirty, orphan; /* orphan: replaced by a newer version while pinned; freed at unpin */
  bool receiving;     /* two-sided put: rreq receives the page from the requester */
  MPI_Request rreq;
  uint64_t lru;
  size_t len;
  uint32_t crc;
} gas_slot;

typedef struct {
  int slot; /* DRAM slot or -1 */
  bool valid, on_ssd, pending;
  size_t len;
  uint32_t crc;
  int n_sharers;
  int sharer[GAS_MAX_SHARERS], sharer_slot[GAS_MAX_SHARERS];
} gas_dir;

struct cc_gas {
  MPI_Comm comm;
  int rank, size, n_nodes;
  int *node, *partner, *home_index; /* [size] */
  cc_gas_params p;
  int64_t pages_per_rank, n_owned;
  MPI_Win win;
  char *slots;         /* page-aligned start of the slot area inside the window */
  MPI_Aint *slot_disp; /* [size]: where each rank's slot area starts in its window */
  char **peer_slots;   /* [size]: every rank's slot area mapped here (one node: shared window,
                          load/store), or NULL (MPI_Put / MPI_Get) */
  int n_slots;
  int wire_parts;   /* messages a served page goes in (GAS_WIRE_PARTS or 1) */
  size_t wire_part; /* page_bytes / wire_parts */
  gas_slot *slot;
  gas_dir *dir; /* [n_owned] */
  gas_ssd *ssd;
  char ssd_path[CC_IO_PATH_MAX];
  uint64_t clock;
  int next_tag;
  char *scratch; /* one page: partial-page gets */
  cc_gas_stats stats;
  /* done / drop messages in flight: MPI_Issend, so that once they complete the owner has received
   * (and handled) them; cc_gas_barrier waits for all of them first, so a barrier never overtakes a
   * done message and leaves a page pinned */
  struct gas_out {
    gas_msg m;
    MPI_Request req;
    bool busy;
  } out[GAS_OUT_MAX];
  int n_out;
  /* pages served as messages: MPI_Isend from a slot, which stays pinned until the send completes
   * (the requester's done message may overtake the completion of the send) */
  struct gas_page_out {
    MPI_Request req;
    int slot;
    bool busy;
  } page_out[GAS_OUT_MAX];
  int n_page_out;
};

#define GAS_IN_FLIGHT 32 /* page requests a handle keeps outstanding */

struct cc_gas_handle {
  int n_ops, n_done, n_started;
  struct gas_op *op;
};

typedef struct gas_op {
  bool put, done, coop_ok, waiting;
  bool data_posted; /* two-sided get: dreq receive the owner's page in parts (or empty messages) */
  int64_t page;
  char *buf;
  char *tmp; /* two-sided get of a partial page: the whole page lands here */
  size_t len;
  uint32_t crc;
  int owner, tag;
  MPI_Request rreq, dreq[GAS_WIRE_PARTS];
  gas_msg reply;
} gas_op;

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

/* index of an owned page in the owner's directory and page file */
static int64_t owned_index(const cc_gas *gas, int64_t page)
{
  int64_t home = page / gas->pages_per_rank;
  return gas->home_index[home] * gas->pages_per_rank + page % gas->pages_per_rank;
}

int64_t cc_gas_ssd_offset(const cc_gas *gas, int64_t page)
{
  return owned_index(gas, page) * (int64_t)gas->p.page_bytes;
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

/* ---- slots ----------------------------------------------------------------------------------- */
static char *slot_ptr(cc_gas *gas, int s)
{
  return gas->slots + (size_t)s * gas->p.page_bytes;
}

/* Whether a page moves between this rank and rank r as a message (MPI_Send to a receive posted in
 * advance) rather than by load/store: across nodes. Why not MPI_Get/MPI_Put there: when the MPI
 * library emulates RMA with active messages (ch4:ucx without a zero-copy transport, e.g. in a
 * container that blocks process_vm_readv), every fragment waits for the target's progress, and a
 * 4 MB MPI_Get took 10x a 4 MB MPI_Send; the owner is in the store's polling loop anyway.
 * Cooperative copies are still read with MPI_Get (the holder is not told). */
static bool two_sided(const cc_gas *gas, int r)
{
  return r != gas->rank && gas->peer_slots == NULL;
}

/* Slot s of rank r as a local address: always for this rank, for the others on one node (shared
 * window); NULL otherwise (MPI_Put / MPI_Get). */
static char *peer_page(cc_gas *gas, int r, int s)
{
  if (r == gas->rank) return slot_ptr(gas, s);
  return gas->peer_slots ? gas->peer_slots[r] + (size_t)s * gas->p.page_bytes : NULL;
}

static cc_err send_msg(cc_gas *gas, int dest, gas_msg *m, int tag);
static cc_err send_async(cc_gas *gas, int dest, const gas_msg *m);
static cc_err handle(cc_gas *gas, const gas_msg *m, int from, gas_msg *reply);

static void remove_sharer(gas_dir *d, int rank, int slot)
{
  for (int k = 0; k < d->n_sharers; k++)
    if (d->sharer[k] == rank && (slot < 0 || d->sharer_slot[k] == slot)) {
      d->sharer[k]      = d->sharer[d->n_sharers - 1];
      d->sharer_slot[k] = d->sharer_slot[d->n_sharers - 1];
      d->n_sharers--;
      k--;
    }
}

/* Free slot s: an owned dirty page goes to the SSD first; a copy is dropped, its owner told. */
static cc_err evict(cc_gas *gas, int s)
{
  gas_slot *sl = &gas->slot[s];
  if (sl->kind == SLOT_OWNED) {
    gas_dir *d = &gas->dir[owned_index(gas, sl->page)];
    if (sl->dirty && !sl->orphan) {
      CC_CALL(gas_ssd_write(gas->ssd, cc_gas_ssd_offset(gas, sl->page), slot_ptr(gas, s), sl->len));
      gas->stats.ssd_bytes_written += (int64_t)sl->len;
      d->on_ssd = true;
    }
    if (!sl->orphan) d->slot = -1;
    gas->stats.evictions++;
  } /* a copy is just dropped: a reader racing with its reuse fails the CRC and asks the owner */
  sl->page  = -1;
  sl->kind  = SLOT_FREE;
  sl->dirty = sl->orphan = false;
  return CC_OK;
}

/* A free slot (evicting the least recently used unpinned one); -1 if all are pinned. */
static cc_err alloc_slot(cc_gas *gas, int *out)
{
  int best = -1;
  for (int s = 0; s < gas->n_slots; s++) {
    gas_slot *sl = &gas->slot[s];
    if (sl->kind == SLOT_FREE) {
      *out = s;
      return CC_OK;
    }
    if (sl->pins == 0 && (best < 0 || sl->lru < gas->slot[best].lru)) best = s;
  }
  *out = best;
  if (best < 0) return CC_OK;
  gas_slot *sl = &gas->slot[best];
  int64_t page = sl->page;
  bool copy    = sl->kind == SLOT_COPY;
  CC_CALL(evict(gas, best));
  if (copy) { /* tell the owner this rank no longer holds the copy */
    gas_msg m = {.type = M_DROP, .slot = best, .page = page};
    int owner = cc_gas_owner(gas, page);
    if (owner == gas->rank)
      remove_sharer(&gas->dir[owned_index(gas, page)], gas->rank, best);
    else
      CC_CALL(send_async(gas, owner, &m));
  }
  return CC_OK;
}

static void unpin(cc_gas *gas, int s)
{
  if (s < 0 || s >= gas->n_slots) return;
  gas_slot *sl = &gas->slot[s];
  if (sl->pins > 0) sl->pins--;
  if (sl->pins == 0 && sl->orphan) {
    sl->page = -1, sl->kind = SLOT_FREE, sl->orphan = sl->dirty = false;
  }
}

/* ---- owner: the request handler -------------------------------------------------------------- */
/* Complete the sends that have been matched: done / drop messages, and pages served (unpinned). */
static cc_err reap_sends(cc_gas *gas)
{
  for (int i = 0; gas->n_out > 0 && i < GAS_OUT_MAX; i++)
    if (gas->out[i].busy) {
      int flag;
      CC_MPI(MPI_Test(&gas->out[i].req, &flag, MPI_STATUS_IGNORE));
      if (flag) gas->out[i].busy = false, gas->n_out--;
    }
  for (int i = 0; gas->n_page_out > 0 && i < GAS_OUT_MAX; i++)
    if (gas->page_out[i].busy) {
      int flag;
      CC_MPI(MPI_Test(&gas->page_out[i].req, &flag, MPI_STATUS_IGNORE));
      if (flag) gas->page_out[i].busy = false, gas->n_page_out--, unpin(gas, gas->page_out[i].slot);
    }
  return CC_OK;
}

/* Slot s stays pinned until its send req completes; with every entry in use, wait for one (each
 * requester posted its receive in advance: the sends complete as the requesters poll). */
static cc_err track_page_send(cc_gas *gas, MPI_Request req, int s)
{
  while (gas->n_page_out == GAS_OUT_MAX) {
    CC_CALL(reap_sends(gas));
    if (gas->n_page_out == GAS_OUT_MAX) sched_yield();
  }
  for (int i = 0; i < GAS_OUT_MAX; i++)
    if (!gas->page_out[i].busy) {
      gas->page_out[i] = (struct gas_page_out){.req = req, .slot = s, .busy = true};
      gas->slot[s].pins++;
      gas->n_page_out++;
      return CC_OK;
    }
  CC_FAIL(CC_ERR_IO, "no free page send slot although %d of %d are in flight", gas->n_page_out,
          GAS_OUT_MAX);
}

/* A get's page going out as messages (serve_page): the parts sent so far and their CRC32C. */
typedef struct {
  cc_gas *gas;
  int dest, tag, slot;
  size_t len;   /* bytes of the page */
  int sent;     /* parts sent */
  uint32_t crc; /* CRC32C of the bytes of the parts sent */
  bool seam;    /* "gas-corrupt" still to apply: the page is being read from the SSD */
} gas_serve;

/* Part k of the page is [part_begin(k), part_begin(k + 1)), empty past its length. */
static size_t part_begin(const gas_serve *sv, int k)
{
  size_t b = (size_t)k * sv->gas->wire_part;
  return b < sv->len ? b : sv->len;
}

/* [0, bytes) of the page is in the slot: send every part it completes (all that are left once
 * bytes == len), then extend the CRC32C over them while the requester pulls them (MPI-3 allows
 * reading a pending send's buffer). */
static cc_err serve_ready(void *ctx, size_t bytes)
{
  gas_serve *sv = ctx;
  cc_gas *gas   = sv->gas;
  char *page    = slot_ptr(gas, sv->slot);
  if (sv->seam && bytes > sv->len / 2) { /* test seam: a bit flip in DRAM, before it is sent */
    page[sv->len / 2] ^= 0x5a;
    sv->seam = false;
  }
  size_t from = part_begin(sv, sv->sent);
  for (; sv->sent < gas->wire_parts && part_begin(sv, sv->sent + 1) <= bytes; sv->sent++) {
    size_t begin = part_begin(sv, sv->sent), end = part_begin(sv, sv->sent + 1);
    MPI_Request req;
    CC_MPI(MPI_Isend(page + begin, (int)(end - begin), MPI_BYTE, sv->dest, TAG_GET_DATA(sv->tag),
                     gas->comm, &req));
    CC_CALL(track_page_send(gas, req, sv->slot));
  }
  size_t upto = part_begin(sv, sv->sent);
  sv->crc     = cc_io_crc32c(sv->crc, page + from, upto - from);
  return CC_OK;
}

/* Messages path: a get's page leaves as soon as the request is handled, in wire_parts MPI_Isends
 * into the receives the requester posted in advance (empty messages when the page is not the
 * owner's to send). While the requester's core pulls them (ch4:ucx rendezvous: the receiver
 * copies), this core checks the slot against the directory's CRC32C, and the answer, sent next,
 * carries the verdict: copy and CRC32C overlap instead of following one another on the requester.
 * A page not in DRAM is read from the SSD here, each part sent as soon as the read has passed it,
 * so that most of the copy overlaps the read. The CRC guards the page at rest (DRAM, SSD); the
 * wire is MPI's. */
static cc_err serve_page(cc_gas *gas, int dest, int tag, gas_msg *reply)
{
  bool ours = reply->status == GR_OK && (reply->from == FROM_DRAM || reply->from == FROM_SSD);
  if (!ours) {
    for (int k = 0; k < gas->wire_parts; k++)
      CC_MPI(MPI_Send(NULL, 0, MPI_BYTE, dest, TAG_GET_DATA(tag), gas->comm));
    return CC_OK;
  }
  gas_serve sv = {.gas = gas, .dest = dest, .tag = tag, .slot = reply->slot, .len = reply->len};
  if (reply->from == FROM_SSD) {
    sv.seam = cc_io_inject("gas-corrupt") && sv.len > 0;
    CC_CALL(gas_ssd_read_stream(gas->ssd, cc_gas_ssd_offset(gas, reply->page),
                                slot_ptr(gas, sv.slot), sv.len, serve_ready, &sv));
    gas->stats.ssd_bytes_read += (int64_t)sv.len;
  }
  CC_CALL(serve_ready(&sv, sv.len)); /* a DRAM hit: every part; after a read: none left */
  reply->sent_crc = sv.crc;
  return CC_OK;
}

cc_err cc_gas_progress(cc_gas *gas);

static cc_err send_async(cc_gas *gas, int dest, const gas_msg *m)
{
  while (gas->n_out == GAS_OUT_MAX) { /* all in flight: serve until one is matched */
    CC_CALL(cc_gas_progress(gas));
    if (gas->n_out == GAS_OUT_MAX) sched_yield();
  }
  for (int i = 0; i < GAS_OUT_MAX; i++)
    if (!gas->out[i].busy) {
      gas->out[i].m = *m;
      CC_MPI(MPI_Issend(&gas->out[i].m, (int)sizeof *m, MPI_BYTE, dest, TAG_REQ, gas->comm,
                        &gas->out[i].req));
      gas->out[i].busy = true;
      gas->n_out++;
      return CC_OK;
    }
  CC_FAIL(CC_ERR_IO, "no free send slot although %d of %d are in flight", gas->n_out, GAS_OUT_MAX);
}

static cc_err send_msg(cc_gas *gas, int dest, gas_msg *m, int tag)
{
  CC_MPI(MPI_Send(m, (int)sizeof *m, MPI_BYTE, dest, tag, gas->comm));
  return CC_OK;
}

/* Handle m from rank from; requests fill *reply (status, where the page is). */
static cc_err handle(cc_gas *gas, const gas_msg *m, int from, gas_msg *reply)
{
  memset(reply, 0, sizeof *reply);
  reply->page = m->page;
  CC_CHECK(m->page >= 0 && m->page < gas->size * gas->pages_per_rank &&
               cc_gas_owner(gas, m->page) == gas->rank,
           CC_ERR_IO, "rank %d sent a request for page %lld, which rank %d does not own", from,
           (long long)m->page, gas->rank);
  gas_dir *d = &gas->dir[owned_index(gas, m->page)];
  switch (m->type) {
  case M_PUT_REQ: {
    if (d->pending) {
      reply->status = GR_BUSY;
      return CC_OK;
    }
    int s = d->slot;
    if (s >= 0 && gas->slot[s].pins > 0) { /* readers hold the old version: new slot */
      gas->slot[s].orphan = true;
      d->slot = s = -1;
    }
    if (s < 0) {
      CC_CALL(alloc_slot(gas, &s));
      if (s < 0) {
        reply->status = GR_BUSY;
        return CC_OK;
      }
    }
    gas_slot *sl = &gas->slot[s];
    if (two_sided(gas, from)) { /* the page arrives as a message into the slot */
      CC_MPI(MPI_Irecv(slot_ptr(gas, s), (int)gas->p.page_bytes, MPI_BYTE, from,
                       TAG_PUT_DATA(m->reply_tag), gas->comm, &sl->rreq));
      sl->receiving = true;
    }
    sl->page = m->page, sl->kind = SLOT_OWNED, sl->pins++, sl->lru = ++gas->clock;
    d->slot = s, d->pending = true, d->n_sharers = 0; /* cached copies are stale now */
    reply->slot = s, reply->source = gas->rank, reply->from = FROM_DRAM;
    return CC_OK;
  }
  case M_PUT_DONE: {
    gas_slot *sl = &gas->slot[m->slot];
    if (sl->receiving) { /* sent before the done message: arrived or arriving */
      sl->receiving = false;
      CC_MPI(MPI_Wait(&sl->rreq, MPI_STATUS_IGNORE));
    } else
      CC_MPI(MPI_Win_sync(gas->win)); /* the requester's stores visible to our loads */
    sl->dirty = true, sl->len = m->len, sl->crc = m->crc;
    d->valid = true, d->on_ssd = false, d->pending = false, d->len = m->len, d->crc = m->crc;
    unpin(gas, m->slot);
    return CC_OK;
  }
  case M_GET_REQ: {
    if (!d->valid) {
      reply->status = d->pending ? GR_BUSY : GR_UNWRITTEN;
      return CC_OK;
    }
    if (d->pending) {
      reply->status = GR_BUSY;
      return CC_OK;
    }
    reply->len = d->len, reply->crc = d->crc;
    for (int k = 0; k < d->n_sharers; k++) /* the requester's own copy */
      if (d->sharer[k] == from && m->flags) {
        reply->source = from, reply->slot = d->sharer_slot[k], reply->from = FROM_LOCAL;
        return CC_OK;
      }
    int s = d->slot;
    if (s < 0 && m->flags && d->n_sharers > 0) { /* cooperative: another rank's DRAM copy */
      int k         = (int)(gas->clock++ % (uint64_t)d->n_sharers);
      reply->source = d->sharer[k], reply->slot = d->sharer_slot[k], reply->from = FROM_COOP;
      return CC_OK;
    }
    reply->from = FROM_DRAM;
    if (s < 0) { /* from the SSD into a slot */
      CC_CALL(alloc_slot(gas, &s));
      if (s < 0) {
        reply->status = GR_BUSY;
        return CC_OK;
      }
      CC_CHECK(d->on_ssd, CC_ERR_IO, "page %lld of owner %d is neither in DRAM nor on the SSD",
               (long long)m->page, gas->rank);
      if (!two_sided(gas, from)) { /* across nodes serve_page reads it, sending parts meanwhile */
        CC_CALL(gas_ssd_read(gas->ssd, cc_gas_ssd_offset(gas, m->page), slot_ptr(gas, s), d->len));
        gas->stats.ssd_bytes_read += (int64_t)d->len;
        CC_MPI(MPI_Win_sync(gas->win)); /* before the requester's load/store or MPI_Get */
      }
      gas_slot *sl = &gas->slot[s];
      sl->page = m->page, sl->kind = SLOT_OWNED, sl->dirty = false, sl->len = d->len;
      sl->crc     = d->crc;
      d->slot     = s;
      reply->from = FROM_SSD;
    }
    gas_slot *sl = &gas->slot[s];
    sl->pins++, sl->lru = ++gas->clock;
    bool unread = reply->from == FROM_SSD && two_sided(gas, from); /* seam: in serve_ready */
    if (cc_io_inject("gas-corrupt") && d->len > 0 && !unread) { /* test seam: a bit flip in DRAM */
      slot_ptr(gas, s)[d->len / 2] ^= 0x5a;
      CC_MPI(MPI_Win_sync(gas->win));
    }
    reply->source = gas->rank, reply->slot = s;
    return CC_OK;
  }
  case M_GET_DONE:
    if (m->from == FROM_DRAM || m->from == FROM_SSD) unpin(gas, m->slot);
    if (m->status == 1 && m->source >= 0) /* requester now holds a copy in slot m->source */
      remove_sharer(d, from, -1);         /* one entry per rank: its newest copy */
    if (m->status == 1 && m->source >= 0)
      if (d->n_sharers < GAS_MAX_SHARERS && !d->pending) {
        d->sharer[d->n_sharers]        = from;
        d->sharer_slot[d->n_sharers++] = m->source;
      }
    if (m->status == 2) remove_sharer(d, m->source, m->slot); /* a copy failed its check */
    return CC_OK;
  case M_DROP:
    remove_sharer(d, from, m->slot);
    return CC_OK;
  }
  CC_FAIL(CC_ERR_IO, "unknown store message %d from rank %d", m->type, from);
}

cc_err cc_gas_progress(cc_gas *gas)
{
  if (gas->n_out || gas->n_page_out) CC_CALL(reap_sends(gas));
  for (;;) {
    int flag;
    MPI_Status st;
    CC_MPI(MPI_Iprobe(MPI_ANY_SOURCE, TAG_REQ, gas->comm, &flag, &st));
    if (!flag) return CC_OK;
    gas_msg m, reply;
    CC_MPI(MPI_Recv(&m, (int)sizeof m, MPI_BYTE, st.MPI_SOURCE, TAG_REQ, gas->comm,
                    MPI_STATUS_IGNORE));
    CC_CALL(handle(gas, &m, st.MPI_SOURCE, &reply));
    if (m.type == M_GET_REQ && two_sided(gas, st.MPI_SOURCE))
      CC_CALL(serve_page(gas, st.MPI_SOURCE, m.reply_tag, &reply));
    if (m.type == M_PUT_REQ || m.type == M_GET_REQ)
      CC_CALL(send_msg(gas, st.MPI_SOURCE, &reply, m.reply_tag));
  }
}

cc_err cc_gas_barrier(cc_gas *gas)
{
  /* our done messages received (and handled) and the pages we served sent before the barrier:
   * no slot stays pinned past it */
  while (gas->n_out > 0 || gas->n_page_out > 0) {
    CC_CALL(cc_gas_progress(gas));
    if (gas->n_out > 0 || gas->n_page_out > 0) sched_yield();
  }
  MPI_Request req;
  CC_MPI(MPI_Ibarrier(gas->comm, &req));
  for (int done = 0; !done;) {
    CC_CALL(cc_gas_progress(gas));
    CC_MPI(MPI_Test(&req, &done, MPI_STATUS_IGNORE));
    if (!done) sched_yield(); /* oversubscribed: let the rank we wait for run */
  }
  return CC_OK;
}

/* ---- requester ------------------------------------------------------------------------------- */
static cc_err op_request(cc_gas *gas, gas_op *op)
{
  gas_msg m = {.type = op->put ? M_PUT_REQ : M_GET_REQ, .page = op->page, .len = op->len};
  m.flags   = op->coop_ok;
  if (op->owner == gas->rank) { /* own page: the handler runs here, no message */
    CC_CALL(handle(gas, &m, gas->rank, &op->reply));
    op->waiting = false;
    return CC_OK;
  }
  op->tag       = TAG_REPLY_FIRST + gas->next_tag;
  gas->next_tag = (gas->next_tag + 1) % TAG_REPLY_COUNT;
  m.reply_tag   = op->tag;
  CC_MPI(MPI_Irecv(&op->reply, (int)sizeof op->reply, MPI_BYTE, op->owner, op->tag, gas->comm,
                   &op->rreq));
  if (!op->put && two_sided(gas, op->owner)) { /* the page follows the reply */
    if (op->len < gas->p.page_bytes && !op->tmp) CC_CALL(cc_malloc(gas->p.page_bytes, 1, &op->tmp));
    char *land      = op->tmp ? op->tmp : op->buf;
    op->data_posted = true;
    for (int k = 0; k < GAS_WIRE_PARTS; k++) op->dreq[k] = MPI_REQUEST_NULL;
    for (int k = 0; k < gas->wire_parts; k++) /* one tag: matched in order, part k at k x part */
      CC_MPI(MPI_Irecv(land + (size_t)k * gas->wire_part, (int)gas->wire_part, MPI_BYTE, op->owner,
                       TAG_GET_DATA(op->tag), gas->comm, &op->dreq[k]));
  }
  CC_CALL(send_msg(gas, op->owner, &m, TAG_REQ));
  op->waiting = true;
  return CC_OK;
}

static cc_err send_done(cc_gas *gas, int owner, gas_msg *m)
{
  if (owner == gas->rank) {
    gas_msg ignored;
    CC_CALL(handle(gas, m, gas->rank, &ignored));
  } else
    CC_CALL(send_async(gas, owner, m));
  return CC_OK;
}

/* Keep a copy of a page just fetched (cooperative caching); returns the slot or -1. */
static cc_err cache_copy(cc_gas *gas, const gas_op *op, const char *data, int *slot)
{
  *slot = -1;
  if (!gas->p.coop || op->owner == gas->rank) return CC_OK;
  int s;
  CC_CALL(alloc_slot(gas, &s));
  if (s < 0) return CC_OK;
  memcpy(slot_ptr(gas, s), data, op->reply.len);
  CC_MPI(MPI_Win_sync(gas->win)); /* local stores before remote readers (unified model) */
  gas_slot *sl = &gas->slot[s];
  sl->page = op->page, sl->kind = SLOT_COPY, sl->len = op->reply.len, sl->crc = op->reply.crc;
  sl->lru = ++gas->clock;
  *slot   = s;
  return CC_OK;
}

/* Messages path of a put: the page goes to the receive the owner posted into its slot, and this
 * core computes the CRC32C of the buffer while the owner's core pulls it (ch4:ucx rendezvous; MPI-3
 * allows reading a pending send's buffer): max(copy, CRC32C) instead of their sum. */
static cc_err put_message(cc_gas *gas, gas_op *op, int owner)
{
  MPI_Request req;
  CC_MPI(MPI_Isend(op->buf, (int)op->len, MPI_BYTE, owner, TAG_PUT_DATA(op->tag), gas->comm, &req));
  op->crc = cc_io_crc32c(0, op->buf, op->len);
  CC_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE)); /* the caller's buffer is free when the op is done */
  return CC_OK;
}

/* Messages path of a get: the parts of the page (or empty messages) have arrived; bytes in all. */
static cc_err wait_parts(cc_gas *gas, gas_op *op, size_t *bytes)
{
  MPI_Status st[GAS_WIRE_PARTS];
  CC_MPI(MPI_Waitall(gas->wire_parts, op->dreq, st));
  *bytes = 0;
  for (int k = 0; k < gas->wire_parts; k++) {
    int count;
    CC_MPI(MPI_Get_count(&st[k], MPI_BYTE, &count));
    *bytes += (size_t)count;
  }
  return CC_OK;
}

/* The reply arrived: move the data, tell the owner. */
static cc_err op_complete(cc_gas *gas, gas_op *op)
{
  gas_msg *r    = &op->reply;
  bool received = false; /* two-sided: the page is in op->tmp or op->buf */
  if (op->data_posted) { /* sent before the reply (maybe empty) */
    op->data_posted = false;
    size_t bytes    = 0;
    CC_CALL(wait_parts(gas, op, &bytes));
    received = bytes > 0;
    CC_CHECK(!received || bytes == r->len, CC_ERR_IO,
             "page %lld from owner %d arrived with %zu of its %llu bytes", (long long)op->page,
             op->owner, bytes, (unsigned long long)r->len);
  }
  if (r->status == GR_BUSY) { /* all slots pinned or a put in flight: ask again */
    gas->stats.busy_retries++;
    CC_CALL(cc_gas_progress(gas));
    CC_CALL(op_request(gas, op));
    return CC_OK;
  }
  CC_CHECK(r->status != GR_UNWRITTEN, CC_ERR_IO, "page %lld (owner %d) was never written",
           (long long)op->page, op->owner);
  MPI_Aint disp = gas->slot_disp[r->source] + (MPI_Aint)r->slot * (MPI_Aint)gas->p.page_bytes;
  char *mapped  = peer_page(gas, r->source, r->slot); /* NULL: only through MPI RMA */
  if (op->put) {
    if (mapped) { /* slot <- buf and its CRC32C in one pass, then visible to the owner */
      op->crc = io_crc32c_copy(0, mapped, op->buf, op->len);
      CC_MPI(MPI_Win_sync(gas->win));
    } else if (two_sided(gas, r->source)) {
      CC_CALL(put_message(gas, op, r->source));
    } else { /* complete at the target before the owner hears it is done */
      op->crc = cc_io_crc32c(0, op->buf, op->len); /* while the request was out: not before */
      CC_MPI(MPI_Put(op->buf, (int)op->len, MPI_BYTE, r->source, disp, (int)op->len, MPI_BYTE,
                     gas->win));
      CC_MPI(MPI_Win_flush(r->source, gas->win));
    }
    gas_msg done = {.type = M_PUT_DONE, .page = op->page, .slot = r->slot, .len = op->len};
    done.crc     = op->crc;
    CC_CALL(send_done(gas, op->owner, &done));
    gas->stats.puts++;
    op->done = true;
    return CC_OK;
  }
  /* get: the whole page is read (its CRC covers it); a shorter request goes through scratch */
  gas_msg done = {.type = M_GET_DONE, .page = op->page, .slot = r->slot, .from = r->from};
  done.source  = -1;
  if (r->len < op->len) {
    CC_CALL(send_done(gas, op->owner, &done)); /* unpin before failing */
    op->done = true;
    CC_FAIL(CC_ERR_IO, "page %lld (owner %d) holds %llu bytes, %zu requested", (long long)op->page,
            op->owner, (unsigned long long)r->len, op->len);
  }
  char *dest            = r->len == op->len || mapped ? op->buf : gas->scratch;
  const char *page_data = dest; /* the whole page, for a cooperative copy */
  uint32_t crc;
  if (received) { /* the owner sent it and checked its slot while it was copied: its verdict */
    dest      = op->tmp ? op->tmp : op->buf;
    page_data = dest;
    crc       = r->sent_crc;
  } else if (mapped) { /* buf <- slot and the CRC32C in one pass (the rest of a longer page: CRC
                          only) */
    CC_MPI(MPI_Win_sync(gas->win)); /* the owner's (or remote puts') stores visible here */
    crc       = io_crc32c_copy(0, dest, mapped, op->len);
    crc       = cc_io_crc32c(crc, mapped + op->len, r->len - op->len);
    page_data = mapped;
  } else {
    CC_MPI(MPI_Get(dest, (int)r->len, MPI_BYTE, r->source, disp, (int)r->len, MPI_BYTE, gas->win));
    CC_MPI(MPI_Win_flush(r->source, gas->win));
    crc = cc_io_crc32c(0, dest, r->len);
  }
  if (crc != r->crc) {
    if (r->from == FROM_COOP || r->from == FROM_LOCAL) {
      /* the copy was replaced under us: drop it from the directory, ask the owner itself */
      done.status = 2, done.source = r->source;
      CC_CALL(send_done(gas, op->owner, &done));
      gas->stats.coop_rejected++;
      op->coop_ok = false;
      CC_CALL(op_request(gas, op));
      return CC_OK;
    }
    CC_CALL(send_done(gas, op->owner, &done));
    op->done = true;
    CC_FAIL(CC_ERR_IO,
            "page %lld from owner %d is corrupt (%s): CRC32C %08x, the directory says %08x; "
            "refusing it",
            (long long)op->page, op->owner, r->from == FROM_SSD ? "read from its SSD" : "in DRAM",
            crc, r->crc);
  }
  if (dest != op->buf) memcpy(op->buf, dest, op->len);
  if (r->from == FROM_DRAM || r->from == FROM_SSD) {
    int s;
    CC_CALL(cache_copy(gas, op, page_data, &s));
    if (s >= 0) done.status = 1, done.source = s;
  }
  CC_CALL(send_done(gas, op->owner, &done));
  gas->stats.gets++;
  if (r->from == FROM_DRAM) gas->stats.dram_hits++;
  if (r->from == FROM_SSD) gas->stats.ssd_misses++;
  if (r->from == FROM_COOP) gas->stats.coop_hits++;
  if (r->from == FROM_LOCAL) gas->stats.local_hits++;
  op->done = true;
  return CC_OK;
}

/* Start requests up to GAS_IN_FLIGHT outstanding; own pages complete at once. */
static cc_err launch(cc_gas *gas, cc_gas_handle *h)
{
  while (h->n_started < h->n_ops && h->n_started - h->n_done < GAS_IN_FLIGHT) {
    gas_op *op = &h->op[h->n_started++];
    CC_CALL(op_request(gas, op));
    while (!op->done && !op->waiting) CC_CALL(op_complete(gas, op));
    if (op->done) h->n_done++;
  }
  return CC_OK;
}

static cc_err start(cc_gas *gas, bool put, int64_t offset, const void *buf, size_t n,
                    cc_gas_handle **out)
{
  *out            = NULL;
  size_t page     = gas->p.page_bytes;
  int64_t segment = (int64_t)gas->size * gas->pages_per_rank * (int64_t)page;
  CC_CHECK(offset >= 0 && offset % (int64_t)page == 0 && n > 0 && offset + (int64_t)n <= segment,
           CC_ERR_ARG,
           "store transfer of %zu bytes at offset %lld: must start on a page (%zu bytes) inside "
           "the %lld-byte segment",
           n, (long long)offset, page, (long long)segment);
  cc_gas_handle *h;
  CC_CALL(cc_calloc(1, sizeof *h, &h));
  h->n_ops   = (int)((n + page - 1) / page);
  cc_err err = cc_calloc((size_t)h->n_ops, sizeof *h->op, &h->op);
  for (int i = 0; !err && i < h->n_ops; i++) {
    gas_op *op  = &h->op[i];
    op->put     = put;
    op->page    = offset / (int64_t)page + i;
    op->buf     = (char *)buf + (size_t)i * page;
    op->len     = n - (size_t)i * page < page ? n - (size_t)i * page : page;
    op->owner   = cc_gas_owner(gas, op->page);
    op->coop_ok = gas->p.coop;
  }
  if (!err) err = launch(gas, h);
  *out = h;
  CC_CALL(err);
  return CC_OK;
}

cc_err cc_gas_put_nb(cc_gas *gas, int64_t offset, const void *buf, size_t n, cc_gas_handle **h)
{
  CC_CALL(start(gas, true, offset, buf, n, h));
  return CC_OK;
}

cc_err cc_gas_get_nb(cc_gas *gas, int64_t offset, void *buf, size_t n, cc_gas_handle **h)
{
  CC_CALL(start(gas, false, offset, buf, n, h));
  return CC_OK;
}

static void handle_free(cc_gas_handle **hp)
{
  cc_gas_handle *h = *hp;
  if (!h) return;
  for (int i = 0; h->op && i < h->n_ops; i++) {
    if (h->op[i].waiting) { /* an error left a reply outstanding: it never comes back to us */
      MPI_Cancel(&h->op[i].rreq);
      MPI_Request_free(&h->op[i].rreq);
    }
    for (int k = 0; h->op[i].data_posted && k < GAS_WIRE_PARTS; k++)
      if (h->op[i].dreq[k] != MPI_REQUEST_NULL) {
        MPI_Cancel(&h->op[i].dreq[k]);
        MPI_Request_free(&h->op[i].dreq[k]);
      }
    cc_free(&h->op[i].tmp);
  }
  cc_free(&h->op);
  cc_free(hp);
}

static cc_err wait_impl(cc_gas *gas, cc_gas_handle *h)
{
  while (h->n_done < h->n_ops) {
    CC_CALL(cc_gas_progress(gas));
    CC_CALL(launch(gas, h));
    int before = h->n_done;
    for (int i = 0; i < h->n_started; i++) {
      gas_op *op = &h->op[i];
      if (op->done || !op->waiting) continue;
      int flag;
      CC_MPI(MPI_Test(&op->rreq, &flag, MPI_STATUS_IGNORE));
      if (!flag) continue;
      op->waiting = false;
      CC_CALL(op_complete(gas, op));
      while (!op->done && !op->waiting) CC_CALL(op_complete(gas, op)); /* own page, busy */
      if (op->done) h->n_done++;
    }
    if (h->n_done == before) sched_yield(); /* nothing arrived: let the owner run */
  }
  return CC_OK;
}

cc_err cc_gas_wait(cc_gas *gas, cc_gas_handle **hp)
{
  if (!*hp) return CC_OK;
  cc_err err = wait_impl(gas, *hp);
  handle_free(hp);
  CC_CALL(err);
  return CC_OK;
}

/* The blocking calls: a non-blocking one and its wait. */
static cc_err blocking(cc_gas *gas, bool put, int64_t offset, const void *buf, size_t n)
{
  cc_gas_handle *h;
  cc_err err = start(gas, put, offset, buf, n, &h);
  if (!err) err = wait_impl(gas, h);
  handle_free(&h);
  CC_CALL(err);
  return CC_OK;
}

cc_err cc_gas_put(cc_gas *gas, int64_t offset, const void *buf, size_t n)
{
  return blocking(gas, true, offset, buf, n);
}

cc_err cc_gas_get(cc_gas *gas, int64_t offset, void *buf, size_t n)
{
  return blocking(gas, false, offset, buf, n);
}

bool cc_gas_page_crc(const cc_gas *gas, int64_t page, uint32_t *crc, size_t *len)
{
  if (page < 0 || page >= gas->size * gas->pages_per_rank || cc_gas_owner(gas, page) != gas->rank)
    return false;
  const gas_dir *d = &gas->dir[owned_index(gas, page)];
  if (!d->valid) return false;
  *crc = d->crc;
  *len = d->len;
  return true;
}

/* ---- drain, eviction, statistics ------------------------------------------------------------- */
static cc_err drain_local(cc_gas *gas, bool empty, bool owned_only)
{
  for (int s = 0; s < gas->n_slots; s++) {
    gas_slot *sl = &gas->slot[s];
    if (sl->kind == SLOT_OWNED && sl->dirty && !sl->orphan) {
      uint32_t crc = cc_io_crc32c(0, slot_ptr(gas, s), sl->len);
      CC_CHECK(crc == sl->crc, CC_ERR_IO,
               "page %lld of owner %d is corrupt in DRAM: CRC32C %08x, the directory says %08x; "
               "not written to %s",
               (long long)sl->page, gas->rank, crc, sl->crc, gas->ssd_path);
      CC_CALL(gas_ssd_write(gas->ssd, cc_gas_ssd_offset(gas, sl->page), slot_ptr(gas, s), sl->len));
      gas->stats.ssd_bytes_written += (int64_t)sl->len;
      gas->dir[owned_index(gas, sl->page)].on_ssd = true;
      sl->dirty                                   = false;
    }
    if (empty && sl->kind != SLOT_FREE && (sl->kind == SLOT_OWNED || !owned_only)) {
      CC_CHECK(sl->pins == 0, CC_ERR_IO, "slot %d of rank %d still pinned at eviction", s,
               gas->rank);
      if (sl->kind == SLOT_OWNED) gas->dir[owned_index(gas, sl->page)].slot = -1;
      if (sl->kind == SLOT_COPY) { /* directories are cleared below by each owner */
      }
      sl->page = -1, sl->kind = SLOT_FREE;
    }
  }
  if (empty && !owned_only)
    for (int64_t i = 0; i < gas->n_owned; i++) gas->dir[i].n_sharers = 0;
  if (gas->ssd && gas->p.durable) CC_CALL(gas_ssd_sync(gas->ssd));
  return CC_OK;
}

cc_err cc_gas_drain(cc_gas *gas)
{
  CC_CALL(cc_gas_barrier(gas));
  CC_CALL(cc_agree(gas->comm, drain_local(gas, false, false)));
  return CC_OK;
}

cc_err cc_gas_evict_all(cc_gas *gas, bool owned_only)
{
  CC_CALL(cc_gas_barrier(gas));
  CC_CALL(cc_agree(gas->comm, drain_local(gas, true, owned_only)));
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
