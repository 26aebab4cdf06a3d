/* gas_geometry.c: the global memory store's geometry: which rank owns a page (its partner, on
 * another node when there is one), the node map of the communicator (cached on it), where an owned
 * page sits in the owner's page file, the parameters' defaults and checks, and the capacity and
 * O_DIRECT probes of an SSD directory made before a run. */
#include "ckpt_names.h"
#include "gas_internal.h"

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
cc_err gas_map_nodes(MPI_Comm comm, int rank, int size, int *node, int *partner, int *n_nodes)
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
  cc_err err = gas_layout_from_leaders(size, lead, node, partner, n_nodes, NULL);
  cc_free(&lead);
  CC_CALL(err);
  return CC_OK;
}

/* Node index of every rank: leaders in rank order are nodes 0, 1, ...; a rank's leader is below
 * it, so its node is known when the rank is reached (one pass, no search). */
static int number_nodes(int size, const int *lead, int *node, int64_t *steps)
{
  int n = 0;
  for (int r = 0; r < size; r++) node[r] = lead[r] == r ? n++ : node[lead[r]];
  *steps += size;
  return n;
}

/* Each rank's position on its node (local[r]: ranks of its node below it), the ranks of each node
 * in rank order (members[start[k] .. start[k+1]) are node k's: a counting sort by node) and so
 * the node sizes start[k+1] - start[k]. count must hold n zeros. */
static void group_by_node(int size, int n, const int *node, int *count, int *start, int *members,
                          int *local, int64_t *steps)
{
  for (int r = 0; r < size; r++) local[r] = count[node[r]]++;
  start[0] = 0;
  for (int k = 0; k < n; k++) start[k + 1] = start[k] + count[k]; /* start[k] = sum count[<k] */
  for (int r = 0; r < size; r++) members[start[node[r]] + local[r]] = r;
  *steps += 2 * (int64_t)size + n;
}

cc_err gas_layout_from_leaders(int size, const int *lead, int *node, int *partner, int *n_nodes,
                               int64_t *steps)
{
  int64_t own_steps = 0;
  if (!steps) steps = &own_steps;
  for (int r = 0; r < size; r++) /* a leader is the lowest rank of its node and leads itself */
    CC_CHECK(lead[r] >= 0 && lead[r] <= r && lead[lead[r]] == lead[r], CC_ERR_ARG,
             "node leader %d of rank %d is not the lowest rank of a node", lead[r], r);
  *steps += size;
  int n    = number_nodes(size, lead, node, steps);
  *n_nodes = n;
  if (n == 1) { /* one node: the next rank holds a home's pages */
    for (int r = 0; r < size; r++) partner[r] = (r + 1) % size;
    *steps += size;
    return CC_OK;
  }
  int *count, *start, *members, *local;
  CC_CALL(cc_calloc((size_t)n, sizeof *count, &count));
  cc_err err = cc_malloc((size_t)n + 1, sizeof *start, &start);
  if (!err) err = cc_malloc((size_t)size, sizeof *members, &members);
  if (!err) err = cc_malloc((size_t)size, sizeof *local, &local);
  if (!err) {
    group_by_node(size, n, node, count, start, members, local, steps);
    /* the partner of rank r: the (local[r] mod size of the next node)-th rank of the next node */
    for (int r = 0; r < size; r++) {
      int t      = (node[r] + 1) % n;
      partner[r] = members[start[t] + local[r] % count[t]];
    }
    *steps += size;
  }
  cc_free(&count);
  cc_free(&start);
  cc_free(&members);
  cc_free(&local);
  CC_CALL(err);
  return CC_OK;
}

cc_err gas_home_index(int size, const int *partner, int *home_index, int64_t *steps)
{
  int *seen; /* homes of each owner met so far */
  CC_CALL(cc_calloc((size_t)size, sizeof *seen, &seen));
  for (int r = 0; r < size; r++) home_index[r] = seen[partner[r]]++;
  cc_free(&seen);
  if (steps) *steps += size;
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
  snprintf(name, n, CKPT_GAS_PAGES, owner);
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
  int *node, *partner, n_nodes = 0;
  CC_CALL(cc_malloc((size_t)size, sizeof(int), &node));
  CC_CALL(cc_malloc((size_t)size, sizeof(int), &partner));
  cc_err err = gas_map_nodes(comm, rank, size, node, partner, &n_nodes);
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
