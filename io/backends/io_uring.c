/* io_uring.c: the "accelerated I/O" backend: the seeds pinned one DMA buffer once instead of a
 * bounce buffer per call; here a few page-aligned buffers are registered once with io_uring
 * (io_uring_register_buffers) and the file is opened O_DIRECT, so requests neither pin pages per
 * call nor copy into the page cache; queue_depth requests stay in flight (liburing 2.3).
 * Fallback chain (options.fallback): fixed+direct -> unregistered -> pwrite+direct -> buffered. */
#include "io_internal.h"

#include <fcntl.h>
#include <pthread.h>
#include <liburing.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#define URING_ALIGN 4096 /* logical block size that is safe for O_DIRECT everywhere */
#define URING_MAX_QD 64

const char *const io_uring_path_names[4] = {"uring-fixed-direct", "uring-direct", "pwrite-direct",
                                            "pwrite-buffered"};

typedef struct {
  char *buf;
  size_t len;  /* bytes requested (write: padded length) */
  size_t want; /* bytes that must complete (read: up to the end of the file) */
  size_t done; /* bytes completed (short transfers are resubmitted from here) */
  int64_t offset;
  bool busy;
} uring_slot;

/* Ring + registered buffers: set up once per owner (checkpointer or handle, io_resources) and
 * reused by each of its files (registration is the expensive, pinning step the seeds' accelerated
 * I/O does once at start-up). */
typedef struct {
  struct io_uring ring;
  bool have_ring, registered;
  io_uring_path kind; /* best path the resources allow */
  size_t chunk;
  size_t req_chunk; /* as requested (the cache key), before fitting RLIMIT_MEMLOCK */
  int req_qd;
  int qd;       /* requests in flight */
  int nbuf;     /* qd + 1 buffers: qd in flight while the next one is filled */
  char *region; /* nbuf * chunk bytes, page aligned (mmap) */
  char detail[112];
  char reason[96]; /* why a fallback step was taken */
} uring_res;

typedef struct {
  char path[IO_PATH_MAX];
  cc_io_mode mode;
  int fd;
  bool direct;
  io_uring_path kind;
  io_resources *owner; /* where res returns at close (NULL: res is destroyed) */
  uring_res *res;
  struct io_uring *ring;
  size_t chunk;
  int qd, nbuf;
  uring_slot slot[URING_MAX_QD + 1];
  int cur;             /* write: slot being filled; read: slot being consumed */
  size_t fill;         /* write: bytes in the current slot; read: bytes consumed of it */
  int64_t next_offset; /* file offset of the next request */
  int64_t logical;     /* bytes written / file size when reading */
  char reason[96];
} uring_ctx;

/* The owner's cache: its idle ring and the file systems (st_dev) whose first O_DIRECT write
 * already succeeded (probed once per owner; past IO_URING_PROBED devices they are probed again). */
#define IO_URING_PROBED 16
typedef struct {
  uring_res *idle; /* NULL if none */
  dev_t probed_dev[IO_URING_PROBED];
  int n_probed;
} io_uring_cache;

extern const cc_io_backend_ops io_backend_uring; /* this file's: its slot in the owner's resources */
static void res_destroy(uring_res *r);

/* The backend's release entry: the owner's idle ring and its cache. */
static void uring_release(void **slot)
{
  io_uring_cache *cache = *slot;
  if (!cache) return;
  res_destroy(cache->idle);
  cc_free(&cache);
  *slot = NULL;
}

/* The owner's cache, created on first use; call with owner->lock held. NULL without an owner. */
static io_uring_cache *cache_of(io_resources *owner)
{
  void **slot = io_resources_slot(owner, &io_backend_uring);
  if (!slot) return NULL;
  if (!*slot && cc_calloc(1, sizeof(io_uring_cache), slot)) {
    cc_error_clear(); /* no cache: every open sets up its own ring (correct, only slower) */
    return NULL;
  }
  return *slot;
}

static void res_destroy(uring_res *r)
{
  if (!r) return;
  if (r->have_ring) {
    if (r->registered) io_uring_unregister_buffers(&r->ring);
    io_uring_queue_exit(&r->ring);
  }
  if (r->region) munmap(r->region, r->chunk * (size_t)r->nbuf);
  cc_free(&r);
}

/* Registered memory counts against RLIMIT_MEMLOCK: shrink the queue, then the requests, to fit. */
static void fit_memlock(uring_res *r)
{
  r->nbuf = r->qd + 1;
  struct rlimit lim;
  if (getrlimit(RLIMIT_MEMLOCK, &lim) != 0 || lim.rlim_cur == RLIM_INFINITY) {
    snprintf(r->detail, sizeof r->detail,
             "%d x %zu KiB registered buffers, RLIMIT_MEMLOCK unlimited", r->nbuf, r->chunk >> 10);
    return;
  }
  size_t limit = (size_t)lim.rlim_cur, want = (size_t)r->nbuf * r->chunk;
  while ((size_t)r->nbuf * r->chunk > limit && r->qd > 2) r->nbuf = (r->qd /= 2) + 1;
  while ((size_t)r->nbuf * r->chunk > limit && r->chunk > URING_ALIGN) r->chunk /= 2;
  r->chunk = r->chunk / URING_ALIGN * URING_ALIGN;
  snprintf(r->detail, sizeof r->detail,
           "%d x %zu KiB registered buffers%s (RLIMIT_MEMLOCK %zu KiB)", r->nbuf, r->chunk >> 10,
           want > (size_t)r->nbuf * r->chunk ? ", reduced to fit" : "", limit >> 10);
}

static cc_err res_setup(uring_res *r, const cc_io_options *opt)
{
  fit_memlock(r);
  /* mmap: page-aligned as O_DIRECT needs (cc_malloc aligns to 64 bytes only) */
  r->region = mmap(NULL, r->chunk * (size_t)r->nbuf, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
  if (r->region == MAP_FAILED) r->region = NULL;
  CC_CHECK(r->region != NULL, CC_ERR_MEM, "mmap of %d x %zu bytes of I/O buffers failed: %s",
           r->nbuf, r->chunk, strerror(errno));
  /* test seams: io_uring blocked (seccomp) and registration over RLIMIT_MEMLOCK */
  int rc =
      cc_io_inject("uring-eperm") ? -EPERM : io_uring_queue_init((unsigned)r->nbuf, &r->ring, 0);
  if (rc < 0) {
    CC_CHECK(opt->fallback, CC_ERR_URING,
             "io_uring_queue_init(%d) failed: %s%s; use --io-fallback or the posix backend", r->qd,
             strerror(-rc),
             rc == -EPERM ? " (EPERM: io_uring blocked by seccomp, a container policy or "
                            "kernel.io_uring_disabled)"
                          : "");
    snprintf(r->reason, sizeof r->reason, "io_uring_queue_init: %s", strerror(-rc));
    r->kind = PATH_PWRITE_DIRECT;
    return CC_OK;
  }
  r->have_ring = true;
  struct iovec iov[URING_MAX_QD + 1];
  for (int s = 0; s < r->nbuf; s++)
    iov[s] = (struct iovec){r->region + (size_t)s * r->chunk, r->chunk};
  rc = cc_io_inject("register-enomem")
           ? -ENOMEM
           : io_uring_register_buffers(&r->ring, iov, (unsigned)r->nbuf);
  if (rc < 0) {
    struct rlimit lim = {0, 0};
    getrlimit(RLIMIT_MEMLOCK, &lim);
    CC_CHECK(opt->fallback, CC_ERR_URING,
             "io_uring_register_buffers(%d x %zu bytes) failed: %s%s (RLIMIT_MEMLOCK %lld bytes); "
             "use --io-fallback, a smaller --io-buffer or raise ulimit -l",
             r->nbuf, r->chunk, strerror(-rc),
             rc == -ENOMEM ? " (ENOMEM: registered memory over the limit)" : "",
             (long long)lim.rlim_cur);
    snprintf(r->reason, sizeof r->reason, "io_uring_register_buffers: %s", strerror(-rc));
    r->kind = PATH_URING_DIRECT;
    return CC_OK;
  }
  r->registered = true;
  r->kind       = PATH_FIXED_DIRECT;
  return CC_OK;
}

/* Take the cached resources when they match (chunk, queue depth), else set up new ones. */
static cc_err res_acquire(size_t chunk, int qd, const cc_io_options *opt, uring_res **out)
{
  *out            = NULL;
  uring_res *r    = NULL;
  io_resources *o = opt->resources;
  if (o) {
    pthread_mutex_lock(&o->lock);
    io_uring_cache *c = cache_of(o);
    if (c) {
      r       = c->idle;
      c->idle = NULL;
    }
    pthread_mutex_unlock(&o->lock);
  }
  /* a cached set that fell back (no ring) is reused only when fallback is still allowed */
  if (r && r->req_chunk == chunk && r->req_qd == qd &&
      (r->kind == PATH_FIXED_DIRECT || opt->fallback)) {
    *out = r;
    return CC_OK;
  }
  res_destroy(r);
  CC_CALL(cc_calloc(1, sizeof *r, &r));
  r->chunk     = chunk;
  r->qd        = qd;
  r->req_chunk = chunk;
  r->req_qd    = qd;
  cc_err err   = res_setup(r, opt);
  if (err) res_destroy(r);
  CC_CALL(err);
  *out = r;
  return CC_OK;
}

static void res_release(io_resources *owner, uring_res *r, bool healthy)
{
  if (!r) return;
  if (healthy && owner) {
    pthread_mutex_lock(&owner->lock);
    io_uring_cache *c = cache_of(owner);
    if (c && !c->idle) {
      c->idle = r;
      r       = NULL;
    }
    pthread_mutex_unlock(&owner->lock);
  }
  res_destroy(r);
}

static cc_err open_file(uring_ctx *u, bool direct, int *fd)
{
  int flags = (u->mode == CC_IO_WRITE ? O_WRONLY | O_CREAT | O_TRUNC : O_RDONLY) | O_CLOEXEC;
  if (direct && cc_io_inject("odirect-einval")) { /* test seam: a file system refusing O_DIRECT */
    *fd   = -1;
    errno = EINVAL;
    return CC_OK;
  }
  *fd = open(u->path, flags | (direct ? O_DIRECT : 0), 0644);
  return CC_OK;
}

/* Submit slot s (len bytes from done on) through the current path; synchronous paths complete. */
static cc_err submit(uring_ctx *u, int s)
{
  uring_slot *sl = &u->slot[s];
  char *buf      = sl->buf + sl->done;
  size_t len     = sl->len - sl->done;
  int64_t off    = sl->offset + (int64_t)sl->done;
  sl->busy       = true;
  if (u->kind == PATH_FIXED_DIRECT || u->kind == PATH_URING_DIRECT) {
    struct io_uring_sqe *sqe = io_uring_get_sqe(u->ring);
    CC_CHECK(sqe != NULL, CC_ERR_URING, "%s: submission queue full", u->path);
    if (u->mode == CC_IO_WRITE) {
      if (u->kind == PATH_FIXED_DIRECT)
        io_uring_prep_write_fixed(sqe, u->fd, buf, len, off, s);
      else
        io_uring_prep_write(sqe, u->fd, buf, len, off);
    } else {
      if (u->kind == PATH_FIXED_DIRECT)
        io_uring_prep_read_fixed(sqe, u->fd, buf, len, off, s);
      else
        io_uring_prep_read(sqe, u->fd, buf, len, off);
    }
    io_uring_sqe_set_data64(sqe, (uint64_t)s);
    int rc = io_uring_submit(u->ring);
    if (rc < 0) sl->busy = false;
    CC_URING(rc);
    return CC_OK;
  }
  sl->busy = false;
  while (sl->done < sl->want) { /* pwrite / pread paths */
    ssize_t rc =
        u->mode == CC_IO_WRITE ? pwrite(u->fd, buf, len, off) : pread(u->fd, buf, len, off);
    if (rc > 0 && u->mode == CC_IO_WRITE && io_inject_enospc((size_t)rc))
      rc = -1, errno = ENOSPC; /* test seam */
    if (rc < 0 && errno == EINTR) continue;
    CC_CHECK(rc >= 0, CC_ERR_IO, "%s of %zu bytes at offset %lld in %s failed: %s",
             u->mode == CC_IO_WRITE ? "pwrite" : "pread", len, (long long)off, u->path,
             strerror(errno));
    CC_CHECK(rc > 0, CC_ERR_IO, "%s: unexpected end of file at offset %lld", u->path,
             (long long)off);
    sl->done += (size_t)rc;
    buf += rc;
    off += rc;
    len -= (size_t)rc;
  }
  return CC_OK;
}

static cc_err wait_cqe(uring_ctx *u, int *slot, int *res)
{
  struct io_uring_cqe *cqe;
  int rc;
  while ((rc = io_uring_wait_cqe(u->ring, &cqe)) == -EINTR) {
  }
  CC_URING(rc);
  *slot = (int)io_uring_cqe_get_data64(cqe);
  *res  = cqe->res;
  io_uring_cqe_seen(u->ring, cqe);
  CC_CHECK(*slot >= 0 && *slot < u->nbuf, CC_ERR_URING, "%s: completion for unknown request %d",
           u->path, *slot);
  u->slot[*slot].busy = false;
  return CC_OK;
}

/* Reap one completion; a short transfer is resubmitted for the rest, a negative res is an error. */
static cc_err reap(uring_ctx *u)
{
  int s, res;
  CC_CALL(wait_cqe(u, &s, &res));
  uring_slot *sl = &u->slot[s];
  /* test seams: a short transfer (the first half of a fresh request) and a device error */
  if (res > 2 * URING_ALIGN && sl->done == 0 && cc_io_inject("uring-short"))
    res = res / 2 / URING_ALIGN * URING_ALIGN;
  if (res > 0 && cc_io_inject("uring-eio")) res = -EIO;
  if (res > 0 && u->mode == CC_IO_WRITE && io_inject_enospc((size_t)res)) res = -ENOSPC;
  if (res == -EAGAIN || res == -EINTR) return submit(u, s);
  if (res == -EINVAL && u->direct)
    CC_FAIL(CC_ERR_URING,
            "%s: the file system refuses O_DIRECT I/O (EINVAL on a %zu-byte request at offset "
            "%lld); use --io-fallback or the posix backend",
            u->path, sl->len - sl->done, (long long)(sl->offset + (int64_t)sl->done));
  CC_CHECK(res >= 0, CC_ERR_URING, "%s of %zu bytes at offset %lld in %s failed: %s",
           u->mode == CC_IO_WRITE ? "write" : "read", sl->len - sl->done,
           (long long)(sl->offset + (int64_t)sl->done), u->path, strerror(-res));
  CC_CHECK(res > 0 || sl->done >= sl->want, CC_ERR_IO, "%s: no progress at offset %lld (%s)",
           u->path, (long long)(sl->offset + (int64_t)sl->done),
           u->mode == CC_IO_WRITE ? "device full?" : "unexpected end of file");
  sl->done += (size_t)res;
  if (sl->done < sl->want) {
    /* O_DIRECT needs the rest aligned too; kernels end short direct transfers on block edges */
    CC_CHECK(!u->direct || sl->done % 512 == 0, CC_ERR_URING,
             "%s: short O_DIRECT transfer ended unaligned at offset %lld", u->path,
             (long long)(sl->offset + (int64_t)sl->done));
    return submit(u, s);
  }
  return CC_OK;
}

static cc_err wait_slot(uring_ctx *u, int s)
{
  while (u->slot[s].busy) CC_CALL(reap(u));
  return CC_OK;
}

/* After an error: collect the completions still due without reporting them again. */
static bool drain(uring_ctx *u)
{
  for (int s = 0; s < u->nbuf; s++)
    while (u->slot[s].busy) {
      struct io_uring_cqe *cqe;
      if (io_uring_wait_cqe(u->ring, &cqe) < 0) return false;
      int t = (int)io_uring_cqe_get_data64(cqe);
      io_uring_cqe_seen(u->ring, cqe);
      if (t >= 0 && t < u->nbuf) u->slot[t].busy = false;
    }
  return true;
}

/* Probe the first O_DIRECT write (some file systems accept the open but refuse the I/O). */
static cc_err probe_direct_write(uring_ctx *u, bool *refused)
{
  uring_slot *sl = &u->slot[0];
  memset(sl->buf, 0, URING_ALIGN);
  *refused = false;
  if (u->kind == PATH_PWRITE_DIRECT) {
    ssize_t rc = pwrite(u->fd, sl->buf, URING_ALIGN, 0);
    if (rc < 0 && errno == EINVAL)
      *refused = true;
    else
      CC_CHECK(rc == URING_ALIGN, CC_ERR_IO, "first write to %s failed: %s", u->path,
               rc < 0 ? strerror(errno) : "short write");
  } else {
    struct io_uring_sqe *sqe = io_uring_get_sqe(u->ring);
    CC_CHECK(sqe != NULL, CC_ERR_URING, "%s: submission queue full", u->path);
    if (u->kind == PATH_FIXED_DIRECT)
      io_uring_prep_write_fixed(sqe, u->fd, sl->buf, URING_ALIGN, 0, 0);
    else
      io_uring_prep_write(sqe, u->fd, sl->buf, URING_ALIGN, 0);
    io_uring_sqe_set_data64(sqe, 0);
    CC_URING(io_uring_submit(u->ring));
    sl->busy = true;
    int s, res;
    CC_CALL(wait_cqe(u, &s, &res));
    if (res == -EINVAL)
      *refused = true;
    else
      CC_CHECK(res == URING_ALIGN, CC_ERR_URING, "first write to %s failed: %s", u->path,
               res < 0 ? strerror(-res) : "short write");
  }
  if (!*refused) CC_SYS(ftruncate(u->fd, 0));
  return CC_OK;
}

/* File systems (st_dev) whose first O_DIRECT write already succeeded for this owner: probed once.
 */
static bool probe_needed(io_resources *owner, int fd, dev_t *dev)
{
  struct stat st;
  if (fstat(fd, &st) != 0) return true;
  *dev        = st.st_dev;
  bool needed = true;
  if (!owner) return needed;
  pthread_mutex_lock(&owner->lock);
  io_uring_cache *c = cache_of(owner);
  for (int i = 0; c && i < c->n_probed; i++)
    if (c->probed_dev[i] == st.st_dev) needed = false;
  pthread_mutex_unlock(&owner->lock);
  return needed;
}

static void probe_passed(io_resources *owner, dev_t dev)
{
  if (!owner) return;
  pthread_mutex_lock(&owner->lock);
  io_uring_cache *c = cache_of(owner);
  if (c && c->n_probed < IO_URING_PROBED) c->probed_dev[c->n_probed++] = dev;
  pthread_mutex_unlock(&owner->lock);
}

static cc_err uring_open_impl(uring_ctx *u, const cc_io_options *opt)
{
  size_t chunk = opt->buffer_bytes ? opt->buffer_bytes : (size_t)1 << 20;
  chunk        = (chunk + URING_ALIGN - 1) / URING_ALIGN * URING_ALIGN;
  int qd       = opt->queue_depth > 0 ? opt->queue_depth : IO_QUEUE_DEPTH;
  CC_CHECK(qd <= URING_MAX_QD, CC_ERR_ARG, "queue depth %d above %d", qd, URING_MAX_QD);
  u->owner = opt->resources;
  CC_CALL(res_acquire(chunk, qd, opt, &u->res));
  u->chunk = u->res->chunk;
  u->qd    = u->res->qd;
  u->nbuf  = u->res->nbuf;
  u->kind  = u->res->kind;
  u->ring  = &u->res->ring;
  snprintf(u->reason, sizeof u->reason, "%s", u->res->reason);
  for (int s = 0; s < u->nbuf; s++) u->slot[s].buf = u->res->region + (size_t)s * u->chunk;

  CC_CALL(open_file(u, true, &u->fd));
  if (u->fd < 0 && errno == EINVAL) {
    CC_CHECK(opt->fallback, CC_ERR_URING,
             "%s: the file system refuses O_DIRECT (open: EINVAL; overlayfs, FUSE or tmpfs?); use "
             "--io-fallback or the posix backend",
             u->path);
    snprintf(u->reason, sizeof u->reason, "open(O_DIRECT): EINVAL");
    u->kind = PATH_BUFFERED;
    CC_CALL(open_file(u, false, &u->fd));
  }
  CC_CHECK(u->fd >= 0, CC_ERR_IO, "cannot open %s: %s", u->path, strerror(errno));
  u->direct = u->kind != PATH_BUFFERED;
  dev_t dev = 0;
  if (u->mode == CC_IO_WRITE && u->direct && probe_needed(u->owner, u->fd, &dev)) {
    bool refused;
    CC_CALL(probe_direct_write(u, &refused));
    if (!refused) probe_passed(u->owner, dev);
    if (refused) {
      CC_CHECK(opt->fallback, CC_ERR_URING,
               "%s: the file system refuses O_DIRECT writes (EINVAL at the first write); use "
               "--io-fallback or the posix backend",
               u->path);
      snprintf(u->reason, sizeof u->reason, "first O_DIRECT write: EINVAL");
      close(u->fd);
      u->fd     = -1;
      u->kind   = PATH_BUFFERED;
      u->direct = false;
      CC_CALL(open_file(u, false, &u->fd));
      CC_CHECK(u->fd >= 0, CC_ERR_IO, "cannot open %s: %s", u->path, strerror(errno));
    }
  }
  if (u->mode == CC_IO_READ) {
    struct stat st;
    CC_SYS(fstat(u->fd, &st));
    u->logical = st.st_size;
  }
  return CC_OK;
}

static cc_err uring_stream_close(void *ctx);

static cc_err uring_stream_open(const char *path, cc_io_mode mode, const cc_io_options *opt,
                                void **ctx)
{
  uring_ctx *u;
  CC_CALL(cc_calloc(1, sizeof *u, &u));
  snprintf(u->path, sizeof u->path, "%s", path);
  u->mode    = mode;
  u->fd      = -1;
  cc_err err = uring_open_impl(u, opt);
  if (err) {
    (void)uring_stream_close(u);
    CC_CALL(err);
  }
  *ctx = u;
  return CC_OK;
}

static cc_err uring_stream_reserve(void *ctx, int64_t bytes)
{
  uring_ctx *u = ctx;
  if (!u->direct || bytes <= 0) return CC_OK;
  int64_t padded = (bytes + URING_ALIGN - 1) / URING_ALIGN * URING_ALIGN;
  int rc         = fallocate(u->fd, 0, 0, padded);
  /* ENOSPC here fails the checkpoint before any data is written; no support is not an error */
  CC_CHECK(rc == 0 || errno == EOPNOTSUPP || errno == ENOSYS, CC_ERR_IO,
           "fallocate(%s, %lld bytes) failed: %s", u->path, (long long)padded, strerror(errno));
  return CC_OK;
}

static cc_err submit_write(uring_ctx *u, size_t len)
{
  uring_slot *sl = &u->slot[u->cur];
  sl->len = sl->want = len;
  sl->done           = 0;
  sl->offset         = u->next_offset;
  u->next_offset += (int64_t)len;
  CC_CALL(submit(u, u->cur));
  u->cur  = (u->cur + 1) % u->nbuf; /* requests complete in any order; reuse round robin */
  u->fill = 0;
  CC_CALL(wait_slot(u, u->cur));
  return CC_OK;
}

static cc_err uring_stream_write(void *ctx, const void *data, size_t n)
{
  uring_ctx *u  = ctx;
  const char *p = data;
  while (n > 0) {
    size_t take = u->chunk - u->fill < n ? u->chunk - u->fill : n;
    memcpy(u->slot[u->cur].buf + u->fill, p, take);
    u->fill += take;
    u->logical += (int64_t)take;
    p += take;
    n -= take;
    if (u->fill == u->chunk) CC_CALL(submit_write(u, u->chunk));
  }
  return CC_OK;
}

static cc_err uring_stream_finish(void *ctx, bool durable)
{
  uring_ctx *u = ctx;
  CC_CHECK(u->mode == CC_IO_WRITE, CC_ERR_ARG, "%s opened for reading", u->path);
  if (u->fill > 0) {
    size_t len = u->fill;
    if (u->direct) { /* O_DIRECT lengths are whole blocks: pad with zeros, truncate back below */
      len = (u->fill + URING_ALIGN - 1) / URING_ALIGN * URING_ALIGN;
      memset(u->slot[u->cur].buf + u->fill, 0, len - u->fill);
    }
    CC_CALL(submit_write(u, len));
  }
  for (int s = 0; s < u->nbuf; s++) CC_CALL(wait_slot(u, s));
  if (u->next_offset != u->logical) CC_SYS(ftruncate(u->fd, u->logical));
  if (durable)
    CC_CHECK(fsync(u->fd) == 0, CC_ERR_IO, "fsync(%s) failed: %s", u->path, strerror(errno));
  return CC_OK;
}

/* Reads keep qd requests ahead of the consumer, each slot refilled once it has been copied out. */
static cc_err submit_read(uring_ctx *u, int s)
{
  uring_slot *sl = &u->slot[s];
  sl->offset     = u->next_offset;
  sl->len        = u->chunk;
  sl->done       = 0;
  int64_t left   = u->logical - u->next_offset;
  sl->want       = left < (int64_t)u->chunk ? (size_t)(left > 0 ? left : 0) : u->chunk;
  if (sl->want == 0) return CC_OK;
  if (!u->direct) sl->len = sl->want;
  u->next_offset += (int64_t)u->chunk;
  CC_CALL(submit(u, s));
  return CC_OK;
}

static cc_err uring_stream_read(void *ctx, void *data, size_t n)
{
  uring_ctx *u = ctx;
  char *p      = data;
  if (u->next_offset == 0)
    for (int s = 0; s < u->nbuf; s++) CC_CALL(submit_read(u, s)); /* prime the pipeline */
  while (n > 0) {
    uring_slot *sl = &u->slot[u->cur];
    CC_CALL(wait_slot(u, u->cur));
    CC_CHECK(sl->want > u->fill, CC_ERR_IO,
             "%s: unexpected end of file at offset %lld (file has %lld bytes)", u->path,
             (long long)(sl->offset + (int64_t)u->fill), (long long)u->logical);
    size_t take = sl->want - u->fill < n ? sl->want - u->fill : n;
    memcpy(p, sl->buf + u->fill, take);
    u->fill += take;
    p += take;
    n -= take;
    if (u->fill == sl->want) {
      CC_CALL(submit_read(u, u->cur));
      u->cur  = (u->cur + 1) % u->nbuf;
      u->fill = 0;
    }
  }
  return CC_OK;
}

static cc_err uring_stream_close(void *ctx)
{
  uring_ctx *u = ctx;
  if (!u) return CC_OK;
  /* never hand back buffers the kernel may still be filling or reading */
  bool healthy = u->res && (!u->res->have_ring || drain(u));
  int rc = u->fd >= 0 ? close(u->fd) : 0, saved = errno;
  res_release(u->owner, u->res, healthy);
  char path[IO_PATH_MAX];
  snprintf(path, sizeof path, "%s", u->path);
  cc_io_mode mode = u->mode;
  cc_free(&u);
  CC_CHECK(rc == 0 || mode == CC_IO_READ, CC_ERR_SYS, "close(%s): %s", path, strerror(saved));
  return CC_OK;
}

static void uring_stream_describe(void *ctx, char *path_used, size_t n_path, char *detail,
                                  size_t n_detail)
{
  uring_ctx *u = ctx;
  snprintf(path_used, n_path, "%s", io_uring_path_names[u->kind]);
  snprintf(detail, n_detail, "%s, queue depth %d, %zu KiB requests%s%s", u->res->detail, u->qd,
           u->chunk >> 10, u->reason[0] ? "; fallback after " : "", u->reason);
}

const io_stream_ops io_stream_uring = {
    .name      = "uring",
    .extension = "bin",
    .open      = uring_stream_open,
    .write     = uring_stream_write,
    .read      = uring_stream_read,
    .reserve   = uring_stream_reserve,
    .finish    = uring_stream_finish,
    .close     = uring_stream_close,
    .describe  = uring_stream_describe,
};

IO_STREAM_BACKEND(uring, uring_release); /* io_backend_uring: the rank file over io_stream_uring */
