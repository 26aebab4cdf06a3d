/* io_gas.c: the "gas" checkpoint backend: SCR's partner level on the global memory store
 * (cc_gas.h). Each rank writes its per-rank file locally (the uring backend's file, O_DIRECT +
 * registered buffers) and puts the same bytes into the store, into pages owned by its partner on
 * another node; the pages are drained to the owner's page file before the checkpoint commits, so
 * a later job restarts from either copy. A small receipt per rank (rank.<r>.gas, listed in the
 * manifest with its CRC32C) records where both copies are and every page's CRC32C.
 * Restart reads the local copy; when it is missing or corrupt, it reads the partner's pages
 * (O_DIRECT), checks each page's CRC32C and the whole stream's. */
#include "ckpt_names.h"
#include "gas_internal.h"

#include <dirent.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define RECEIPT_MAGIC "CCGAS001"
#define CC_GAS_RECEIPT_PATH 1024 /* owner_file in the receipt (part of the on-disk format) */

typedef struct {
  char magic[8];
  uint32_t version, n_pages;
  int32_t rank, n_ranks, owner, owner_node_differs;
  int64_t page_bytes, pages_per_rank, stream_bytes;
  uint32_t stream_crc, pad;
  char owner_file[CC_GAS_RECEIPT_PATH]; /* on disk: relative to the checkpoint directory, or
                                           absolute */
  char path_used[32];
  uint32_t header_crc; /* CRC32C of every byte before it */
} receipt_header;

typedef struct {
  int64_t offset; /* in the owner's page file */
  uint64_t len;
  uint32_t crc, pad;
} receipt_page;

/* the checkpointer's retention, for the page files outside DIR: after checkpoint now commits, DIR
 * holds now and the keep-1 newest committed checkpoints before it */
static bool kept_after(const char *parent, int now, int j, int keep)
{
  if (j == now) return true;
  if (j > now) return false;
  char path[CC_IO_PATH_MAX + IO_NAME_MAX]; /* parent/ckpt.<j> */
  if (!ckpt_path(path, sizeof path, parent, j, false)) return true;
  struct stat st;
  if (stat(path, &st) != 0) return false; /* not committed (retired or interrupted) */
  int newer = 0;                          /* committed checkpoints between j and now */
  DIR *d    = opendir(parent);
  if (!d) return true;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    int i;
    bool tmp;
    if (ckpt_name_parse(e->d_name, &i, &tmp) && !tmp && i > j && i < now) newer++;
  }
  closedir(d);
  return newer < (keep >= 1 ? keep : 1) - 1;
}

/* ---- an in-memory byte stream, so the per-rank file format is produced / parsed once -------- */
typedef struct {
  char *data;
  size_t n, cap, pos;
  bool owned;
} mem_stream;
static _Thread_local mem_stream *mem_next; /* handed to mem_open (the stream API takes a path) */

static cc_err mem_open(const char *path, cc_io_mode mode, const cc_io_options *opt, void **ctx)
{
  (void)path, (void)mode, (void)opt;
  CC_CHECK(mem_next != NULL, CC_ERR_ARG, "memory stream opened without a buffer");
  *ctx     = mem_next;
  mem_next = NULL;
  return CC_OK;
}

static cc_err mem_write(void *ctx, const void *data, size_t n)
{
  mem_stream *m = ctx;
  if (m->n + n > m->cap) {
    size_t cap = m->cap ? m->cap : (size_t)1 << 20;
    while (cap < m->n + n) cap *= 2;
    char *p = realloc(m->data, cap);
    CC_CHECK(p != NULL, CC_ERR_MEM, "out of memory staging %zu checkpoint bytes", cap);
    m->data = p, m->cap = cap;
  }
  memcpy(m->data + m->n, data, n);
  m->n += n;
  return CC_OK;
}

static cc_err mem_read(void *ctx, void *data, size_t n)
{
  mem_stream *m = ctx;
  CC_CHECK(m->pos + n <= m->n, CC_ERR_IO, "partner copy ends after %zu bytes, %zu more wanted",
           m->n, m->pos + n - m->n);
  memcpy(data, m->data + m->pos, n);
  m->pos += n;
  return CC_OK;
}

static cc_err mem_finish(void *ctx, bool durable)
{
  (void)ctx, (void)durable;
  return CC_OK;
}

static cc_err mem_close(void *ctx)
{
  (void)ctx; /* the buffer belongs to the backend */
  return CC_OK;
}

static void mem_describe(void *ctx, char *path_used, size_t n_path, char *detail, size_t n_detail)
{
  (void)ctx;
  snprintf(path_used, n_path, "memory");
  snprintf(detail, n_detail, "staging");
}

static const io_stream_ops mem_stream_ops = {.name      = "memory",
                                             .extension = "mem",
                                             .open      = mem_open,
                                             .write     = mem_write,
                                             .read      = mem_read,
                                             .finish    = mem_finish,
                                             .close     = mem_close,
                                             .describe  = mem_describe};

/* ---- backend context ------------------------------------------------------------------------- */
typedef struct {
  cc_io_options opt;
  cc_io_layout layout;
  cc_io_mode mode;
  char dir[CC_IO_PATH_MAX];
  int rank, size;
  uint32_t gid_crc;
  void *local;      /* write: the local per-rank file (uring) */
  mem_stream stage; /* the same bytes, for the store */
  receipt_header rh;
  receipt_page *pages;
  cc_io_file_info local_info;
  char receipt_path[CC_IO_PATH_MAX];
  double seconds;
  cc_gas_stats gstats;
} gas_ctx;

/* The store's geometry the checkpointer was given (cc_io_options.gas), else the defaults. */
static void checkpoint_params(const gas_ctx *g, cc_gas_params *p)
{
  if (g->opt.gas)
    *p = *g->opt.gas;
  else {
    cc_gas_params_default(p);
    p->ssd_dir[0] = '\0'; /* inside the checkpoint */
  }
}

static double now_s(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static void ctx_free(gas_ctx *g)
{
  free(g->stage.data);
  cc_free(&g->pages);
  cc_free(&g);
}

static cc_err gas_open(const cc_io_options *opt, const cc_io_layout *layout, const char *dir,
                       cc_io_mode mode, void **ctx)
{
  *ctx = NULL;
  gas_ctx *g;
  CC_CALL(cc_calloc(1, sizeof *g, &g));
  g->opt    = *opt;
  g->layout = *layout;
  g->mode   = mode;
  snprintf(g->dir, sizeof g->dir, "%s", dir);
  cc_err err = CC_OK;
  int rc     = MPI_Comm_rank(layout->comm, &g->rank);
  if (rc == MPI_SUCCESS) rc = MPI_Comm_size(layout->comm, &g->size);
  if (rc != MPI_SUCCESS) err = cc_error_push_mpi(rc, __FILE__, __LINE__, __func__, "MPI_Comm_rank");
  g->gid_crc = io_global_id_crc(layout);
  snprintf(g->receipt_path, sizeof g->receipt_path, "%s/" CKPT_RANK_FILE, dir, g->rank, "gas");
  if (!err && mode == CC_IO_WRITE) /* the local copy: the uring backend's file */
    err = io_rankfile_open(&io_stream_uring, opt, layout, dir, mode, &g->local);
  if (err) ctx_free(g);
  CC_CALL(err);
  *ctx = g;
  return CC_OK;
}

/* Where the owners' page files of this checkpoint go. By default inside the checkpoint directory
 * (DIR/ckpt.<it>.tmp, renamed with it: commit, manifest and retention cover them); with an SSD
 * directory configured (--gas-ssd-dir), in SSD/<basename of DIR>/ckpt.<it>/, cleaned by
 * ssd_retention. */
static cc_err ssd_dir_of(const gas_ctx *g, const cc_gas_params *p, char *out, size_t n,
                         bool *separate)
{
  *separate = p->ssd_dir[0] != '\0';
  if (!*separate) {
    CC_CHECK(strlen(g->dir) < n, CC_ERR_ARG, "checkpoint directory too long: %s", g->dir);
    snprintf(out, n, "%s", g->dir);
    return CC_OK;
  }
  /* g->dir = DIR/ckpt.<it>.tmp */
  char parent[CC_IO_PATH_MAX];
  snprintf(parent, sizeof parent, "%s", g->dir);
  char *slash = strrchr(parent, '/');
  int it      = -1;
  bool tmp    = false;
  CC_CHECK(slash && ckpt_name_parse(slash + 1, &it, &tmp) && tmp, CC_ERR_ARG,
           "gas: %s is not a checkpoint's temporary directory", g->dir);
  *slash           = '\0';
  const char *base = strrchr(parent, '/') ? strrchr(parent, '/') + 1 : parent;
  char area[CC_IO_PATH_MAX];
  int k = snprintf(area, sizeof area, "%s/%s", p->ssd_dir, base);
  CC_CHECK(k > 0 && (size_t)k < sizeof area && ckpt_path(out, n, area, it, false), CC_ERR_ARG,
           "--gas-ssd-dir %s: path too long", p->ssd_dir);
  return CC_OK;
}

/* Each owner removes its page files SSD/<base>/ckpt.<j>/gas.<owner>.pages of checkpoints the
 * checkpointer's retention will not keep once this one commits (kept_after), and of interrupted
 * runs. If this checkpoint then fails to commit, the oldest kept checkpoint has lost its partner
 * copy (its local copies remain); latest is unaffected. */
static cc_err ssd_retention(const gas_ctx *g)
{
  cc_gas_params root; /* the configured SSD directory, not this checkpoint's subdirectory */
  checkpoint_params(g, &root);
  const cc_gas_params *p = &root;
  char parent[CC_IO_PATH_MAX], area[2 * CC_IO_PATH_MAX];
  snprintf(parent, sizeof parent, "%s", g->dir);
  char *slash = strrchr(parent, '/');
  int now     = -1;
  bool tmp    = false;
  if (!slash || !ckpt_name_parse(slash + 1, &now, &tmp) || !tmp) return CC_OK;
  *slash           = '\0';
  const char *base = strrchr(parent, '/') ? strrchr(parent, '/') + 1 : parent;
  snprintf(area, sizeof area, "%s/%s", p->ssd_dir, base);
  DIR *d = opendir(area);
  CC_CHECK(d != NULL, CC_ERR_SYS, "cannot open %s: %s", area, strerror(errno));
  struct dirent *e;
  char name[IO_NAME_MAX], path[3 * CC_IO_PATH_MAX];
  cc_gas_file_name(g->rank, name, sizeof name);
  while ((e = readdir(d)) != NULL) {
    int j;
    bool temporary;
    if (!ckpt_name_parse(e->d_name, &j, &temporary) || temporary ||
        kept_after(parent, now, j, g->opt.keep))
      continue;
    snprintf(path, sizeof path, "%s/%s/%s", area, e->d_name, name);
    if (unlink(path) != 0 && errno != ENOENT) {
      closedir(d);
      CC_FAIL(CC_ERR_SYS, "cannot remove %s: %s", path, strerror(errno));
    }
    snprintf(path, sizeof path, "%s/%s", area, e->d_name);
    (void)rmdir(path); /* the last owner's removal empties it; others see ENOTEMPTY */
  }
  closedir(d);
  return CC_OK;
}

/* The store of this checkpoint: the checkpointer's, kept from its previous checkpoint when the
 * geometry is the same, else a new one (kept for the next checkpoint when the owner allows it). */
extern const cc_io_backend_ops io_backend_gas; /* this file's: its slot in the owner's resources */

static cc_err store_for(gas_ctx *g, const cc_gas_params *p, int64_t P, cc_gas **gas)
{
  io_resources *res = g->opt.resources;
  void **kept       = res && res->collective_owner ? io_resources_slot(res, &io_backend_gas) : NULL;
  if (kept && *kept) {
    bool reused = false;
    cc_err err  = cc_gas_reuse(*kept, p, P, &reused);
    if (!err && reused) {
      *gas = *kept;
      return CC_OK;
    }
    cc_gas *old = *kept;
    *kept       = NULL;
    cc_err derr = cc_gas_destroy(&old); /* another geometry, or the reuse failed (agreed) */
    CC_CALL(err);
    CC_CALL(derr);
  }
  CC_CALL(cc_gas_create(g->layout.comm, p, P, gas));
  if (kept) *kept = *gas;
  return CC_OK;
}

/* The backend's release entries: the owner's kept store, collectively (the checkpointer's finish),
 * or abandoned when it is still kept (no finish, an error path): its local memory and file are
 * freed, its window and communicator are left to MPI_Finalize (freeing them would need every
 * rank). */
static cc_err gas_release_collective(void **slot)
{
  cc_gas *gas = *slot;
  *slot       = NULL;
  if (gas) CC_CALL(cc_gas_destroy(&gas));
  return CC_OK;
}

static void gas_release(void **slot)
{
  cc_gas *gas = *slot;
  *slot       = NULL;
  if (gas) cc_gas_abandon(&gas);
}

/* The collective part: the staged bytes into the partner's pages, drained to its page file. */
static cc_err put_partner_copy(gas_ctx *g, cc_err local)
{
  MPI_Comm comm = g->layout.comm;
  CC_CALL(cc_agree(comm, local));
  cc_gas_params p;
  checkpoint_params(g, &p);
  char ssd_dir[CC_IO_DIR_MAX];
  bool separate = false;
  CC_CALL(ssd_dir_of(g, &p, ssd_dir, sizeof ssd_dir, &separate));
  snprintf(p.ssd_dir, sizeof p.ssd_dir, "%s", ssd_dir);
  p.keep_files  = true;
  p.durable     = g->opt.durable;
  p.fallback    = g->opt.fallback;
  p.coop        = false;
  int64_t bytes = (int64_t)g->stage.n, max_bytes;
  CC_MPI(MPI_Allreduce(&bytes, &max_bytes, 1, MPI_INT64_T, MPI_MAX, comm));
  cc_err room = cc_gas_check_capacity(comm, &p, max_bytes);
  if (room == CC_ERR_ARG) { /* checked against the options before the run: the disk filled since */
    char message[IO_MESSAGE_MAX];
    const char *inner = strstr(cc_error_message(), "(): ");
    snprintf(message, sizeof message, "%s", inner ? inner + 4 : cc_error_message());
    cc_error_clear();
    CC_FAIL(CC_ERR_IO,
            "no room left for this checkpoint in %s (the disk filled during the run): %s", ssd_dir,
            message);
  }
  CC_CALL(room);
  int64_t P = (max_bytes + (int64_t)p.page_bytes - 1) / (int64_t)p.page_bytes;
  P         = P > 0 ? P : 1;
  cc_gas *gas;
  CC_CALL(store_for(g, &p, P, &gas));
  int64_t home = (int64_t)g->rank * P * (int64_t)p.page_bytes;
  cc_err err   = CC_OK;
  if (bytes > 0) err = cc_gas_put(gas, home, g->stage.data, (size_t)bytes);
  cc_err berr = cc_gas_barrier(gas); /* keep serving the others even after a local failure */
  if (!err) err = berr;
  err = cc_agree(comm, err);
  if (!err) err = cc_gas_drain(gas);
  void **slot = io_resources_find(g->opt.resources, &io_backend_gas);
  bool kept   = slot && *slot == gas;
  if (err && kept) { /* agreed (cc_agree, drain): every rank frees it, the next one starts anew */
    *slot = NULL;
    kept  = false;
  }
  if (!err) { /* the receipt: where the partner copy is, page by page */
    int owner         = cc_gas_partner(gas, g->rank);
    receipt_header *r = &g->rh;
    memcpy(r->magic, RECEIPT_MAGIC, 8);
    r->version            = 1;
    r->rank               = g->rank;
    r->n_ranks            = g->size;
    r->owner              = owner;
    r->owner_node_differs = cc_gas_node(gas, owner) != cc_gas_node(gas, g->rank);
    r->page_bytes         = (int64_t)p.page_bytes;
    r->pages_per_rank     = P;
    r->stream_bytes       = bytes;
    r->stream_crc         = cc_io_crc32c(0, g->stage.data, (size_t)bytes);
    r->n_pages            = (uint32_t)((bytes + r->page_bytes - 1) / r->page_bytes);
    cc_gas_file_name(owner, r->owner_file, sizeof r->owner_file);
    if (separate) { /* outside the checkpoint: an absolute path in the receipt */
      char name[64], *abs = realpath(ssd_dir, NULL);
      snprintf(name, sizeof name, "%.63s", r->owner_file);
      if (abs) snprintf(r->owner_file, sizeof r->owner_file, "%.900s/%s", abs, name);
      free(abs);
      if (!abs)
        err = cc_error_push(CC_ERR_SYS, __FILE__, __LINE__, __func__, "realpath(%s): %s", ssd_dir,
                            strerror(errno));
    }
    err = cc_calloc(r->n_pages ? r->n_pages : 1, sizeof *g->pages, &g->pages);
    for (uint32_t i = 0; !err && i < r->n_pages; i++) {
      int64_t at  = (int64_t)i * r->page_bytes;
      size_t len  = (size_t)(bytes - at < r->page_bytes ? bytes - at : r->page_bytes);
      g->pages[i] = (receipt_page){cc_gas_ssd_offset(gas, home / r->page_bytes + i), len,
                                   cc_io_crc32c(0, g->stage.data + at, len), 0};
    }
    cc_gas_get_stats(gas, &g->gstats);
    snprintf(r->path_used, sizeof r->path_used, "%s", g->gstats.ssd_path_used);
  }
  cc_err derr = kept ? CC_OK : cc_gas_destroy(&gas); /* kept: freed at the checkpointer's finish */
  if (!err) err = derr;
  if (!err && separate) err = ssd_retention(g);
  CC_CALL(err);
  return CC_OK;
}

static cc_err gas_write_vectors(void *ctx, const cc_io_state *state)
{
  gas_ctx *g = ctx;
  CC_CHECK(g->mode == CC_IO_WRITE, CC_ERR_ARG, "%s was opened for reading", g->dir);
  double t0 = now_s();
  /* local: the per-rank file on this rank's disk, and the same bytes staged in memory */
  void *mem    = NULL;
  g->stage.n   = 0;
  mem_next     = &g->stage;
  cc_err local = io_rankfile_write(g->local, state);
  if (!local) local = io_rankfile_commit(g->local, &g->local_info);
  if (!local)
    local = io_rankfile_open_as(&mem_stream_ops, &g->opt, g->rank, g->size, g->layout.n_local_nodes,
                                g->layout.n_global_nodes, g->layout.values_per_node, g->gid_crc,
                                g->dir, CC_IO_WRITE, &mem);
  if (!local) local = io_rankfile_write(mem, state);
  if (mem) {
    cc_err cerr = io_rankfile_close(mem);
    if (!local) local = cerr;
  }
  mem_next = NULL;
  if (!local && g->stage.n != (size_t)g->local_info.bytes)
    local = cc_error_push(CC_ERR_IO, __FILE__, __LINE__, __func__,
                          "staged %zu bytes but wrote %lld to %s", g->stage.n,
                          (long long)g->local_info.bytes, g->local_info.file);
  /* every rank reaches the collective part, whatever happened locally */
  CC_CALL(put_partner_copy(g, local));
  g->seconds += now_s() - t0;
  return CC_OK;
}

static cc_err write_receipt(gas_ctx *g, cc_io_file_info *info)
{
  g->rh.header_crc = cc_io_crc32c(0, &g->rh, offsetof(receipt_header, header_crc));
  FILE *f          = fopen(g->receipt_path, "wb");
  CC_CHECK(f != NULL, CC_ERR_IO, "cannot create %s: %s", g->receipt_path, strerror(errno));
  size_t n_pages = g->rh.n_pages;
  bool failed    = fwrite(&g->rh, sizeof g->rh, 1, f) != 1 ||
                (n_pages && fwrite(g->pages, sizeof *g->pages, n_pages, f) != n_pages) ||
                fflush(f) != 0;
  if (!failed && g->opt.durable) failed = fsync(fileno(f)) != 0;
  failed |= fclose(f) != 0;
  CC_CHECK(!failed, CC_ERR_IO, "writing %s failed: %s", g->receipt_path, strerror(errno));
  uint32_t crc = cc_io_crc32c(0, &g->rh, sizeof g->rh);
  crc          = cc_io_crc32c(crc, g->pages, n_pages * sizeof *g->pages);
  memset(info, 0, sizeof *info);
  snprintf(info->file, sizeof info->file, "%s", g->receipt_path);
  /* the manifest lists the receipt (name inside the checkpoint directory); "gas" reads it back */
  const char *base = strrchr(g->receipt_path, '/');
  info->n_files    = 1;
  snprintf(info->name[0], sizeof info->name[0], "%.*s", (int)sizeof info->name[0] - 1,
           base ? base + 1 : g->receipt_path);
  snprintf(info->written_as, sizeof info->written_as, "gas");
  info->bytes   = (int64_t)(sizeof g->rh + n_pages * sizeof *g->pages);
  info->crc32c  = crc;
  info->has_crc = true;
  snprintf(info->path_used, sizeof info->path_used, "gas+%.40s", g->local_info.path_used);
  snprintf(info->detail, sizeof info->detail,
           "partner copy on rank %d (%s node), %u pages of %lld KiB, owner file %s", g->rh.owner,
           g->rh.owner_node_differs ? "another" : "the same", g->rh.n_pages,
           (long long)(g->rh.page_bytes >> 10), g->rh.path_used);
  return CC_OK;
}

static cc_err gas_commit(void *ctx, cc_io_file_info *info)
{
  gas_ctx *g = ctx;
  double t0  = now_s();
  CC_CHECK(g->rh.magic[0] != '\0', CC_ERR_ARG, "%s: commit before write", g->dir);
  CC_CALL(write_receipt(g, info));
  g->seconds += now_s() - t0;
  info->write_s = g->seconds;
  return CC_OK;
}

/* An error chain's innermost message without its "file:line func(): " prefix. */
static const char *reason(const char *message)
{
  const char *inner = strstr(message, "(): ");
  return inner ? inner + 4 : message;
}

/* ---- restart --------------------------------------------------------------------------------- */
static cc_err read_receipt(gas_ctx *g, uint32_t *crc, int64_t *bytes)
{
  FILE *f = fopen(g->receipt_path, "rb");
  CC_CHECK(f != NULL, CC_ERR_IO, "cannot open %s: %s", g->receipt_path, strerror(errno));
  bool ok         = fread(&g->rh, sizeof g->rh, 1, f) == 1;
  const char *bad = NULL;
  if (!ok)
    bad = "truncated receipt";
  else if (memcmp(g->rh.magic, RECEIPT_MAGIC, 8))
    bad = "not a gas receipt (magic)";
  else if (g->rh.header_crc != cc_io_crc32c(0, &g->rh, offsetof(receipt_header, header_crc)))
    bad = "receipt checksum mismatch";
  else if (g->rh.rank != g->rank || g->rh.n_ranks != g->size)
    bad = "receipt of another rank or rank count";
  else if (g->rh.page_bytes < CC_GAS_MIN_PAGE || g->rh.n_pages > (1u << 30))
    bad = "receipt geometry";
  cc_err err = CC_OK;
  if (!bad) err = cc_calloc(g->rh.n_pages ? g->rh.n_pages : 1, sizeof *g->pages, &g->pages);
  if (!bad && !err && g->rh.n_pages &&
      fread(g->pages, sizeof *g->pages, g->rh.n_pages, f) != g->rh.n_pages)
    bad = "truncated page table";
  fclose(f);
  CC_CALL(err);
  CC_CHECK(bad == NULL, CC_ERR_IO, "%s: %s", g->receipt_path, bad);
  *crc   = cc_io_crc32c(cc_io_crc32c(0, &g->rh, sizeof g->rh), g->pages,
                        g->rh.n_pages * sizeof *g->pages);
  *bytes = (int64_t)(sizeof g->rh + g->rh.n_pages * sizeof *g->pages);
  return CC_OK;
}

/* The partner copy: every page from the owner's page file (O_DIRECT), CRC32C checked. */
static cc_err read_partner(gas_ctx *g)
{
  char path[2 * CC_IO_PATH_MAX];
  if (g->rh.owner_file[0] == '/')
    snprintf(path, sizeof path, "%s", g->rh.owner_file);
  else
    snprintf(path, sizeof path, "%s/%s", g->dir, g->rh.owner_file);
  free(g->stage.data);
  g->stage      = (mem_stream){0};
  size_t n      = (size_t)g->rh.stream_bytes;
  g->stage.data = malloc(n ? n : 1);
  CC_CHECK(g->stage.data != NULL, CC_ERR_MEM, "out of memory for %zu bytes", n);
  g->stage.n = g->stage.cap = n;
  gas_ssd *ssd;
  CC_CALL(gas_ssd_open(path, CC_IO_READ, g->opt.queue_depth, g->opt.fallback, &ssd));
  cc_err err = CC_OK;
  size_t at  = 0;
  for (uint32_t i = 0; !err && i < g->rh.n_pages; i++) {
    receipt_page *pg = &g->pages[i];
    if (pg->len > n - at) {
      err = cc_error_push(CC_ERR_IO, __FILE__, __LINE__, __func__,
                          "%s: page table longer than the stream", g->receipt_path);
      break;
    }
    err = gas_ssd_read(ssd, pg->offset, g->stage.data + at, pg->len);
    if (!err) {
      uint32_t crc = cc_io_crc32c(0, g->stage.data + at, pg->len);
      if (crc != pg->crc)
        err = cc_error_push(CC_ERR_IO, __FILE__, __LINE__, __func__,
                            "page %u of rank %d's partner copy (owner rank %d, %s at offset %lld) "
                            "is corrupt: CRC32C %08x, the receipt says %08x",
                            i, g->rank, g->rh.owner, path, (long long)pg->offset, crc, pg->crc);
    }
    at += pg->len;
  }
  cc_err cerr = gas_ssd_close(&ssd);
  CC_CALL(err);
  CC_CALL(cerr);
  uint32_t crc = cc_io_crc32c(0, g->stage.data, n);
  CC_CHECK(at == n && crc == g->rh.stream_crc, CC_ERR_IO,
           "rank %d's partner copy in %s: %zu of %zu bytes, CRC32C %08x, the receipt says %08x",
           g->rank, path, at, n, crc, g->rh.stream_crc);
  return CC_OK;
}

static cc_err read_local(gas_ctx *g, cc_io_state *state)
{
  void *rf;
  cc_io_file_info info;
  CC_CALL(io_rankfile_open(&io_stream_uring, &g->opt, &g->layout, g->dir, CC_IO_READ, &rf));
  cc_err err  = io_rankfile_read(rf, state, &info);
  cc_err cerr = io_rankfile_close(rf);
  CC_CALL(err);
  CC_CALL(cerr);
  if (info.crc32c != g->rh.stream_crc || info.bytes != g->rh.stream_bytes) {
    if (!g->opt.read_into) cc_io_state_free(state);
    CC_FAIL(CC_ERR_IO, "%s: %lld bytes with CRC32C %08x, the receipt says %lld bytes, %08x",
            info.file, (long long)info.bytes, info.crc32c, (long long)g->rh.stream_bytes,
            g->rh.stream_crc);
  }
  return CC_OK;
}

static cc_err gas_read_vectors(void *ctx, cc_io_state *state, cc_io_file_info *info)
{
  gas_ctx *g            = ctx;
  double t0             = now_s();
  uint32_t receipt_crc  = 0;
  int64_t receipt_bytes = 0;
  CC_CALL(read_receipt(g, &receipt_crc, &receipt_bytes));
  const char *used = "gas-local";
  char why[200]    = "";
  cc_err err       = read_local(g, state);
  if (err) { /* the local copy is gone or bad: the partner's */
    snprintf(why, sizeof why, "%s", reason(cc_error_message()));
    cc_error_clear();
    used = "gas-partner";
    err  = read_partner(g);
    if (!err) {
      void *mem = NULL;
      mem_next  = &g->stage;
      err = io_rankfile_open_as(&mem_stream_ops, &g->opt, g->rank, g->size, g->layout.n_local_nodes,
                                g->layout.n_global_nodes, g->layout.values_per_node, g->gid_crc,
                                g->dir, CC_IO_READ, &mem);
      mem_next = NULL;
      cc_io_file_info ignored;
      if (!err) err = io_rankfile_read(mem, state, &ignored);
      if (mem) {
        cc_err cerr = io_rankfile_close(mem);
        if (!err) err = cerr;
      }
    }
    if (err) { /* one message with both reasons: io_agree passes only the innermost on */
      char partner_why[300];
      snprintf(partner_why, sizeof partner_why, "%s", reason(cc_error_message()));
      cc_error_clear();
      /* the partner's reason first: an error message has a bounded length */
      CC_FAIL(err, "rank %d: neither copy is usable: partner on rank %d (%s); local (%s)", g->rank,
              g->rh.owner, partner_why, why);
    }
  }
  memset(info, 0, sizeof *info);
  snprintf(info->file, sizeof info->file, "%s", g->receipt_path);
  info->bytes   = receipt_bytes;
  info->crc32c  = receipt_crc; /* what the manifest lists */
  info->has_crc = true;
  snprintf(info->path_used, sizeof info->path_used, "%s", used);
  snprintf(info->detail, sizeof info->detail, "%s%.130s", why[0] ? "local copy refused: " : "",
           why);
  info->write_s = now_s() - t0;
  if (why[0]) /* not an error, but an operator wants to know a node's copy was lost */
    fprintf(stderr, "cubecg: rank %d restored from the partner copy on rank %d (%s)\n", g->rank,
            g->rh.owner, why);
  return CC_OK;
}

static cc_err gas_close(void *ctx)
{
  gas_ctx *g = ctx;
  if (!g) return CC_OK;
  cc_err err = g->local ? io_rankfile_close(g->local) : CC_OK;
  ctx_free(g);
  CC_CALL(err);
  return CC_OK;
}

const cc_io_backend_ops io_backend_gas = {
    .name               = "gas",
    .open               = gas_open,
    .write_vectors      = gas_write_vectors,
    .commit             = gas_commit,
    .read_vectors       = gas_read_vectors,
    .close              = gas_close,
    .release            = gas_release,
    .release_collective = gas_release_collective,
};
