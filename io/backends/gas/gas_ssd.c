/* gas_ssd.c: the SSD tier of the global memory store: one page file per owner, random access at
 * page offsets, O_DIRECT through io_uring with a few bounce buffers registered once
 * (write_fixed / read_fixed), queue_depth requests in flight -- the uring backend's path
 * (io_uring.c), with its explicit fallback chain fixed+direct -> uring-direct -> pwrite-direct ->
 * buffered only when allowed, and its test seams. */
#include "gas_internal.h"

#include <fcntl.h>
#include <liburing.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#define SSD_ALIGN 4096
#define SSD_MAX_QD 16

typedef struct {
  char *buf; /* the registered bounce buffer */
  char *mem; /* where this request's bytes are: buf, or the caller's memory (in place) */
  bool busy;
  size_t len, done; /* request length and bytes completed (short transfers resubmitted) */
  int64_t offset;
  char *dest; /* read: where the bytes go */
  size_t copy;
  size_t end; /* where this request's bytes end in the caller's data; 0 once reported */
} ssd_slot;

struct gas_ssd {
  char path[CC_IO_PATH_MAX];
  cc_io_mode mode;
  int fd;
  io_uring_path kind;
  struct io_uring ring;
  bool have_ring, registered;
  size_t chunk;
  int nbuf;
  char *region;
  ssd_slot slot[SSD_MAX_QD];
  char detail[128];
  char reason[96];
};

static cc_err ssd_submit(gas_ssd *s, int i)
{
  ssd_slot *sl = &s->slot[i];
  char *buf    = sl->mem + sl->done;
  size_t len   = sl->len - sl->done;
  int64_t off  = sl->offset + (int64_t)sl->done;
  if (s->kind == PATH_FIXED_DIRECT || s->kind == PATH_URING_DIRECT) {
    struct io_uring_sqe *sqe = io_uring_get_sqe(&s->ring);
    CC_CHECK(sqe != NULL, CC_ERR_URING, "%s: submission queue full", s->path);
    bool w = s->mode == CC_IO_WRITE;
    if (s->kind == PATH_FIXED_DIRECT && sl->mem == sl->buf) {
      if (w)
        io_uring_prep_write_fixed(sqe, s->fd, buf, len, off, i);
      else
        io_uring_prep_read_fixed(sqe, s->fd, buf, len, off, i);
    } else if (w)
      io_uring_prep_write(sqe, s->fd, buf, len, off);
    else
      io_uring_prep_read(sqe, s->fd, buf, len, off);
    io_uring_sqe_set_data64(sqe, (uint64_t)i);
    CC_URING(io_uring_submit(&s->ring));
    sl->busy = true;
    return CC_OK;
  }
  while (sl->done < sl->len) { /* pwrite / pread paths complete synchronously */
    ssize_t rc =
        s->mode == CC_IO_WRITE ? pwrite(s->fd, buf, len, off) : pread(s->fd, buf, len, off);
    if (rc < 0 && errno == EINTR) continue;
    CC_CHECK(rc >= 0, CC_ERR_IO, "%s of %zu bytes at offset %lld in %s failed: %s",
             s->mode == CC_IO_WRITE ? "pwrite" : "pread", len, (long long)off, s->path,
             strerror(errno));
    CC_CHECK(rc > 0, CC_ERR_IO, "%s: unexpected end of file at offset %lld", s->path,
             (long long)off);
    sl->done += (size_t)rc, buf += rc, off += rc, len -= (size_t)rc;
  }
  if (sl->dest) memcpy(sl->dest, sl->buf, sl->copy);
  return CC_OK;
}

/* Reap one completion; a short transfer is resubmitted, a read is copied out when complete. */
static cc_err ssd_reap(gas_ssd *s)
{
  struct io_uring_cqe *cqe;
  int rc;
  while ((rc = io_uring_wait_cqe(&s->ring, &cqe)) == -EINTR) {
  }
  CC_URING(rc);
  int i   = (int)io_uring_cqe_get_data64(cqe);
  int res = cqe->res;
  io_uring_cqe_seen(&s->ring, cqe);
  CC_CHECK(i >= 0 && i < s->nbuf, CC_ERR_URING, "%s: completion for unknown request %d", s->path,
           i);
  ssd_slot *sl = &s->slot[i];
  sl->busy     = false;
  if (res == -EAGAIN || res == -EINTR) return ssd_submit(s, i);
  CC_CHECK(!(res == -EINVAL && s->kind != PATH_BUFFERED), CC_ERR_URING,
           "%s: the file system refuses O_DIRECT I/O (EINVAL); use --io-fallback or another "
           "--gas-ssd-dir",
           s->path);
  CC_CHECK(res >= 0, CC_ERR_URING, "%s of %zu bytes at offset %lld in %s failed: %s",
           s->mode == CC_IO_WRITE ? "write" : "read", sl->len - sl->done,
           (long long)(sl->offset + (int64_t)sl->done), s->path, strerror(-res));
  CC_CHECK(res > 0, CC_ERR_IO, "%s: no progress at offset %lld (%s)", s->path,
           (long long)(sl->offset + (int64_t)sl->done),
           s->mode == CC_IO_WRITE ? "device full?" : "unexpected end of file");
  sl->done += (size_t)res;
  if (sl->done < sl->len) return ssd_submit(s, i);
  if (sl->dest) memcpy(sl->dest, sl->buf, sl->copy);
  return CC_OK;
}

static cc_err ssd_wait_slot(gas_ssd *s, int i)
{
  while (s->slot[i].busy) CC_CALL(ssd_reap(s));
  return CC_OK;
}

static cc_err ssd_wait_all(gas_ssd *s)
{
  for (int i = 0; i < s->nbuf; i++) CC_CALL(ssd_wait_slot(s, i));
  return CC_OK;
}

/* Wait for slot i; slots are waited for in submission order, so once its request is complete the
 * caller's data is complete up to the request's end: tell ready (if any). */
static cc_err ssd_wait_ordered(gas_ssd *s, int i, gas_ssd_ready ready, void *ctx)
{
  CC_CALL(ssd_wait_slot(s, i));
  size_t end     = s->slot[i].end;
  s->slot[i].end = 0;
  if (ready && end > 0) CC_CALL(ready(ctx, end));
  return CC_OK;
}

/* One pass over [offset, offset + n): chunk by chunk, nbuf in flight. Through the bounce buffers,
 * or, when data and n are multiples of 4096 (whole pages in the store's page-aligned slots), in
 * place: O_DIRECT straight between the slot and the disk (unregistered requests: the kernel pins
 * the slot's pages per request, cheaper than a bounce copy of every page). */
static cc_err ssd_transfer(gas_ssd *s, int64_t offset, char *data, size_t n, gas_ssd_ready ready,
                           void *ctx)
{
  CC_CHECK(offset % SSD_ALIGN == 0, CC_ERR_ARG, "%s: offset %lld not a multiple of %d", s->path,
           (long long)offset, SSD_ALIGN);
  size_t padded = (n + SSD_ALIGN - 1) / SSD_ALIGN * SSD_ALIGN;
  bool in_place = (uintptr_t)data % SSD_ALIGN == 0 && n % SSD_ALIGN == 0;
  int next      = 0;
  CC_CALL(ssd_wait_all(s)); /* a failed transfer may have left requests: none reported below */
  for (int i = 0; i < s->nbuf; i++) s->slot[i].end = 0;
  for (size_t pos = 0; pos < padded; pos += s->chunk) {
    int i = next;
    next  = (next + 1) % s->nbuf;
    CC_CALL(ssd_wait_ordered(s, i, ready, ctx));
    ssd_slot *sl = &s->slot[i];
    size_t len   = padded - pos < s->chunk ? padded - pos : s->chunk;
    size_t valid = n - pos < len ? n - pos : len;
    sl->end      = pos + valid;
    sl->len      = len;
    sl->done     = 0;
    sl->offset   = offset + (int64_t)pos;
    sl->mem      = in_place ? data + pos : sl->buf;
    if (in_place)
      sl->dest = NULL;
    else if (s->mode == CC_IO_WRITE) {
      memcpy(sl->buf, data + pos, valid);
      if (valid < len) memset(sl->buf + valid, 0, len - valid);
      sl->dest = NULL;
    } else {
      sl->dest = data + pos;
      sl->copy = valid;
    }
    CC_CALL(ssd_submit(s, i));
  }
  for (int k = 0; k < s->nbuf; k++) /* the oldest request first */
    CC_CALL(ssd_wait_ordered(s, (next + k) % s->nbuf, ready, ctx));
  return CC_OK;
}

cc_err gas_ssd_write(gas_ssd *s, int64_t offset, const void *data, size_t n)
{
  CC_CHECK(s->mode == CC_IO_WRITE, CC_ERR_ARG, "%s opened for reading", s->path);
  CC_CALL(ssd_transfer(s, offset, (char *)data, n, NULL, NULL));
  return CC_OK;
}

cc_err gas_ssd_read(gas_ssd *s, int64_t offset, void *data, size_t n)
{
  CC_CALL(gas_ssd_read_stream(s, offset, data, n, NULL, NULL));
  return CC_OK;
}

cc_err gas_ssd_read_stream(gas_ssd *s, int64_t offset, void *data, size_t n, gas_ssd_ready ready,
                           void *ctx)
{
  /* a file opened for writing reads back through the same descriptor (O_RDWR) */
  cc_io_mode mode = s->mode;
  s->mode         = CC_IO_READ;
  cc_err err      = ssd_transfer(s, offset, data, n, ready, ctx);
  s->mode         = mode;
  CC_CALL(err);
  return CC_OK;
}

cc_err gas_ssd_sync(gas_ssd *s)
{
  CC_CHECK(fsync(s->fd) == 0, CC_ERR_IO, "fsync(%s) failed: %s", s->path, strerror(errno));
  return CC_OK;
}

static cc_err ssd_setup_ring(gas_ssd *s, int qd, bool fallback)
{
  s->chunk = (size_t)1 << 20;
  s->nbuf  = qd;
  struct rlimit lim;
  bool limited = getrlimit(RLIMIT_MEMLOCK, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY;
  /* registered memory counts against RLIMIT_MEMLOCK: keep to half of it (the uring backend's
   * buffers may be registered in the same process) */
  while (limited && (size_t)s->nbuf * s->chunk > lim.rlim_cur / 2 && s->nbuf > 2) s->nbuf /= 2;
  while (limited && (size_t)s->nbuf * s->chunk > lim.rlim_cur / 2 && s->chunk > SSD_ALIGN)
    s->chunk /= 2;
  snprintf(s->detail, sizeof s->detail, "%d x %zu KiB registered buffers", s->nbuf, s->chunk >> 10);
  s->region = mmap(NULL, s->chunk * (size_t)s->nbuf, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
  if (s->region == MAP_FAILED) s->region = NULL;
  CC_CHECK(s->region != NULL, CC_ERR_MEM, "mmap of %d x %zu bytes of SSD buffers failed: %s",
           s->nbuf, s->chunk, strerror(errno));
  for (int i = 0; i < s->nbuf; i++) s->slot[i].buf = s->region + (size_t)i * s->chunk;
  int rc =
      cc_io_inject("uring-eperm") ? -EPERM : io_uring_queue_init((unsigned)s->nbuf, &s->ring, 0);
  if (rc < 0) {
    CC_CHECK(fallback, CC_ERR_URING,
             "io_uring_queue_init(%d) failed for the SSD tier: %s%s; use --io-fallback", s->nbuf,
             strerror(-rc), rc == -EPERM ? " (EPERM: io_uring blocked)" : "");
    snprintf(s->reason, sizeof s->reason, "io_uring_queue_init: %s", strerror(-rc));
    s->kind = PATH_PWRITE_DIRECT;
    return CC_OK;
  }
  s->have_ring = true;
  struct iovec iov[SSD_MAX_QD];
  for (int i = 0; i < s->nbuf; i++) iov[i] = (struct iovec){s->slot[i].buf, s->chunk};
  rc = cc_io_inject("register-enomem")
           ? -ENOMEM
           : io_uring_register_buffers(&s->ring, iov, (unsigned)s->nbuf);
  if (rc < 0) {
    CC_CHECK(
        fallback, CC_ERR_URING,
        "io_uring_register_buffers(%d x %zu bytes) failed for the SSD tier: %s (RLIMIT_MEMLOCK "
        "%lld bytes); use --io-fallback or raise ulimit -l",
        s->nbuf, s->chunk, strerror(-rc), limited ? (long long)lim.rlim_cur : -1LL);
    snprintf(s->reason, sizeof s->reason, "io_uring_register_buffers: %s", strerror(-rc));
    s->kind = PATH_URING_DIRECT;
    return CC_OK;
  }
  s->registered = true;
  s->kind       = PATH_FIXED_DIRECT;
  return CC_OK;
}

static cc_err ssd_open_file(gas_ssd *s, bool direct)
{
  int flags = (s->mode == CC_IO_WRITE ? O_RDWR | O_CREAT | O_TRUNC : O_RDONLY) | O_CLOEXEC;
  if (direct && cc_io_inject("odirect-einval")) {
    s->fd = -1;
    errno = EINVAL;
    return CC_OK;
  }
  s->fd = open(s->path, flags | (direct ? O_DIRECT : 0), 0644);
  return CC_OK;
}

/* The file part of an open: O_DIRECT unless an earlier file already fell back to buffered. */
static cc_err ssd_open_path(gas_ssd *s, bool fallback)
{
  if (s->kind == PATH_BUFFERED) {
    CC_CALL(ssd_open_file(s, false));
    CC_CHECK(s->fd >= 0, CC_ERR_IO, "cannot open %s: %s", s->path, strerror(errno));
    return CC_OK;
  }
  CC_CALL(ssd_open_file(s, true));
  if (s->fd < 0 && errno == EINVAL) {
    CC_CHECK(fallback, CC_ERR_URING,
             "%s: the file system refuses O_DIRECT (open: EINVAL; overlayfs, FUSE or tmpfs?); use "
             "--io-fallback or another --gas-ssd-dir",
             s->path);
    snprintf(s->reason, sizeof s->reason, "open(O_DIRECT): EINVAL");
    s->kind = PATH_BUFFERED;
    CC_CALL(ssd_open_file(s, false));
  }
  CC_CHECK(s->fd >= 0, CC_ERR_IO, "cannot open %s: %s", s->path, strerror(errno));
  if (s->mode == CC_IO_WRITE && s->kind != PATH_BUFFERED) {
    /* some file systems accept the open but refuse the I/O: probe one block */
    ssize_t rc = pwrite(s->fd, s->slot[0].buf, SSD_ALIGN, 0);
    if (rc < 0 && errno == EINVAL) {
      CC_CHECK(fallback, CC_ERR_URING,
               "%s: the file system refuses O_DIRECT writes (EINVAL at the first write); use "
               "--io-fallback or another --gas-ssd-dir",
               s->path);
      snprintf(s->reason, sizeof s->reason, "first O_DIRECT write: EINVAL");
      close(s->fd);
      s->kind = PATH_BUFFERED;
      CC_CALL(ssd_open_file(s, false));
      CC_CHECK(s->fd >= 0, CC_ERR_IO, "cannot open %s: %s", s->path, strerror(errno));
    } else {
      CC_CHECK(rc == SSD_ALIGN, CC_ERR_IO, "first write to %s failed: %s", s->path,
               rc < 0 ? strerror(errno) : "short write");
      CC_SYS(ftruncate(s->fd, 0));
    }
  }
  return CC_OK;
}

static cc_err ssd_open_impl(gas_ssd *s, int qd, bool fallback)
{
  CC_CALL(ssd_setup_ring(s, qd, fallback));
  CC_CALL(ssd_open_path(s, fallback));
  return CC_OK;
}

cc_err gas_ssd_reopen(gas_ssd *s, const char *path, bool fallback)
{
  CC_CALL(ssd_wait_all(s));
  int rc = s->fd >= 0 ? close(s->fd) : 0;
  s->fd  = -1;
  CC_CHECK(rc == 0 || s->mode != CC_IO_WRITE, CC_ERR_SYS, "close(%s): %s", s->path,
           strerror(errno));
  int n = snprintf(s->path, sizeof s->path, "%s", path);
  CC_CHECK(n > 0 && (size_t)n < sizeof s->path, CC_ERR_ARG, "page file path too long: %s", path);
  CC_CALL(ssd_open_path(s, fallback));
  return CC_OK;
}

cc_err gas_ssd_open(const char *path, cc_io_mode mode, int queue_depth, bool fallback,
                    gas_ssd **out)
{
  *out = NULL;
  gas_ssd *s;
  CC_CALL(cc_calloc(1, sizeof *s, &s));
  int n      = snprintf(s->path, sizeof s->path, "%s", path);
  s->mode    = mode;
  s->fd      = -1;
  int qd     = queue_depth > 0 ? queue_depth : 4;
  qd         = qd > SSD_MAX_QD ? SSD_MAX_QD : qd;
  cc_err err = n > 0 && (size_t)n < sizeof s->path ? CC_OK : CC_ERR_ARG;
  if (err)
    err = cc_error_push(CC_ERR_ARG, __FILE__, __LINE__, __func__, "page file path too long: %s",
                        path);
  if (!err) err = ssd_open_impl(s, qd, fallback);
  if (err) {
    gas_ssd *t     = s;
    cc_err ignored = gas_ssd_close(&t); /* the open's error is the one that matters */
    (void)ignored;
    CC_CALL(err);
  }
  *out = s;
  return CC_OK;
}

cc_err gas_ssd_close(gas_ssd **sp)
{
  gas_ssd *s = *sp;
  if (!s) return CC_OK;
  if (s->have_ring) {
    for (int i = 0; i < s->nbuf; i++) /* never unmap buffers the kernel may still use */
      while (s->slot[i].busy) {
        struct io_uring_cqe *cqe;
        if (io_uring_wait_cqe(&s->ring, &cqe) < 0) break;
        int t = (int)io_uring_cqe_get_data64(cqe);
        io_uring_cqe_seen(&s->ring, cqe);
        if (t >= 0 && t < s->nbuf) s->slot[t].busy = false;
      }
    if (s->registered) io_uring_unregister_buffers(&s->ring);
    io_uring_queue_exit(&s->ring);
  }
  if (s->region) munmap(s->region, s->chunk * (size_t)s->nbuf);
  int rc = s->fd >= 0 ? close(s->fd) : 0, saved = errno;
  char path[CC_IO_PATH_MAX];
  snprintf(path, sizeof path, "%s", s->path);
  bool writing = s->mode == CC_IO_WRITE;
  cc_free(sp);
  CC_CHECK(rc == 0 || !writing, CC_ERR_SYS, "close(%s): %s", path, strerror(saved));
  return CC_OK;
}

void gas_ssd_describe(const gas_ssd *s, char *path_used, size_t n_path, char *detail,
                      size_t n_detail)
{
  snprintf(path_used, n_path, "%s", io_uring_path_names[s->kind]);
  snprintf(detail, n_detail, "%s%s%s", s->detail, s->reason[0] ? "; fallback after " : "",
           s->reason);
}
