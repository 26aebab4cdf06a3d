/* io_posix.c: the "normal I/O" backend of the seeds: one file per rank through C stdio
 * (fopen/fwrite/fflush), a buffer of 8 KiB / 512 KiB in the study, and fsync(fileno) when the
 * checkpoint must be durable. Transfer size = buffer size (IOR's and the seeds' convention, fio's
 * --bs): each write(2)/read(2) moves one whole buffer at offset k * buffer.
 * Reading: the stdio buffer set with setvbuf, every fread ending on a buffer boundary.
 * Writing: the stream is unbuffered and this file stages only what does not fill a whole buffer
 * (the header, markers, the ends of vectors); a whole buffer's worth of the caller's data at a
 * buffer boundary goes to fwrite, and so to one write(2), straight from the caller's memory, as
 * fio's psync twin writes from its buffer. A fully buffered stdio stream copied every other buffer
 * into its own (glibc fills free buffer space before it writes directly) and its durable write
 * reached 0.76-0.87 of the twin; see the measurements in docs/half-precision.md. */
#include "io_internal.h"

#include <fcntl.h>
#include <unistd.h>

typedef struct {
  FILE *f;
  char *buffer;
  size_t buffer_bytes;
  cc_io_mode mode;
  int64_t offset;
  size_t staged; /* writing: bytes waiting in buffer (offset % buffer_bytes of them) */
  int64_t hinted;     /* writing: file offset up to which the kernel's writeback was started */
  int64_t hint_every; /* writing: start it every this many bytes (0: never) */
  int hints;          /* sync_file_range calls made */
  char path[IO_PATH_MAX];
} posix_ctx;

static cc_err posix_stream_open(const char *path, cc_io_mode mode, const cc_io_options *opt,
                                void **ctx)
{
  posix_ctx *p;
  CC_CALL(cc_calloc(1, sizeof *p, &p));
  snprintf(p->path, sizeof p->path, "%s", path);
  p->mode         = mode;
  /* for durable writes (the caller sets it): the final fsync waits for less (RocksDB's
   * bytes_per_sync) */
  p->hint_every = mode == CC_IO_WRITE ? (int64_t)opt->writeback_bytes : 0;
  p->buffer_bytes = opt->buffer_bytes ? opt->buffer_bytes : (size_t)512 * 1024;
  cc_err err      = cc_malloc(p->buffer_bytes, 1, &p->buffer);
  if (!err) {
    p->f = fopen(path, mode == CC_IO_WRITE ? "wb" : "rb");
    if (!p->f)
      err = cc_error_push(CC_ERR_IO, __FILE__, __LINE__, __func__, "cannot open %s: %s", path,
                          strerror(errno));
  }
  /* reading through stdio's buffer; writing unbuffered, staged here (see the file's header) */
  if (!err && (mode == CC_IO_WRITE ? setvbuf(p->f, NULL, _IONBF, 0)
                                   : setvbuf(p->f, p->buffer, _IOFBF, p->buffer_bytes)) != 0)
    err = cc_error_push(CC_ERR_IO, __FILE__, __LINE__, __func__, "setvbuf(%s, %zu bytes) failed",
                        path, p->buffer_bytes);
  if (err) {
    if (p->f) fclose(p->f);
    cc_free(&p->buffer);
    cc_free(&p);
    CC_CALL(err);
  }
  *ctx = p;
  return CC_OK;
}

/* Bytes from the current offset to the next buffer boundary, at most n: a transfer that ends
 * where stdio's buffer ends, so stdio flushes (or refills) exactly one buffer per system call. */
static size_t transfer_size(const posix_ctx *p, size_t n)
{
  size_t to_edge = p->buffer_bytes - (size_t)p->offset % p->buffer_bytes;
  return n < to_edge ? n : to_edge;
}

/* One fwrite of t bytes from s (unbuffered: one write(2)) ending at file offset `end` */
static cc_err posix_transfer(posix_ctx *p, const char *s, size_t t, int64_t end)
{
  CC_CHECK(!io_inject_enospc(t), CC_ERR_IO, "fwrite to %s failed at offset %lld: %s (injected)",
           p->path, (long long)(end - (int64_t)t), strerror(ENOSPC));
  size_t w = fwrite(s, 1, t, p->f);
  CC_CHECK(w == t, CC_ERR_IO, "fwrite to %s failed at offset %lld: %s", p->path,
           (long long)(end - (int64_t)t + (int64_t)w), strerror(errno));
  if (p->hint_every > 0 && end - p->hinted >= p->hint_every) {
    /* start writing back what is written so far (not waiting for it): the disk works while the
     * next buffers are copied, and the durable fsync has only the tail left. A hint: a file
     * system that refuses it (EINVAL, ESPIPE) loses only the overlap, never data. */
    if (sync_file_range(fileno(p->f), p->hinted, end - p->hinted, SYNC_FILE_RANGE_WRITE) == 0)
      p->hints++;
    p->hinted = end;
  }
  return CC_OK;
}

static cc_err posix_stream_write(void *ctx, const void *data, size_t n)
{
  posix_ctx *p  = ctx;
  const char *s = data;
  while (n > 0) {
    size_t t = transfer_size(p, n); /* up to the next buffer boundary */
    if (p->staged == 0 && t == p->buffer_bytes) {
      CC_CALL(posix_transfer(p, s, t, p->offset + (int64_t)t)); /* a whole buffer, no copy */
    } else {
      memcpy(p->buffer + p->staged, s, t); /* part of a buffer: staged until it fills */
      p->staged += t;
      if (p->staged == p->buffer_bytes) {
        CC_CALL(posix_transfer(p, p->buffer, p->staged, p->offset + (int64_t)t));
        p->staged = 0;
      }
    }
    p->offset += (int64_t)t;
    s += t;
    n -= t;
  }
  return CC_OK;
}

/* the staged tail of the file, if any */
static cc_err posix_write_staged(posix_ctx *p)
{
  if (p->mode != CC_IO_WRITE || p->staged == 0) return CC_OK;
  cc_err err = posix_transfer(p, p->buffer, p->staged, p->offset);
  p->staged  = 0;
  return err;
}

static cc_err posix_stream_read(void *ctx, void *data, size_t n)
{
  posix_ctx *p = ctx;
  char *d      = data;
  while (n > 0) {
    size_t t = transfer_size(p, n), r = fread(d, 1, t, p->f);
    CC_CHECK(r == t, CC_ERR_IO, "%s: %s at offset %lld (wanted %zu more bytes)", p->path,
             feof(p->f) ? "unexpected end of file" : strerror(errno),
             (long long)(p->offset + (int64_t)r), n - r);
    p->offset += (int64_t)t;
    d += t;
    n -= t;
  }
  return CC_OK;
}

static cc_err posix_stream_finish(void *ctx, bool durable)
{
  posix_ctx *p = ctx;
  CC_CALL(posix_write_staged(p));
  CC_CHECK(fflush(p->f) == 0, CC_ERR_IO, "fflush(%s) failed: %s", p->path, strerror(errno));
  if (durable)
    CC_CHECK(fsync(fileno(p->f)) == 0, CC_ERR_IO, "fsync(%s) failed: %s", p->path, strerror(errno));
  return CC_OK;
}

static cc_err posix_stream_close(void *ctx)
{
  posix_ctx *p = ctx;
  if (!p) return CC_OK;
  cc_err staged_err = posix_write_staged(p); /* closed without finish: the tail, as fclose would */
  int rc = fclose(p->f), saved = errno;      /* write errors deferred by stdio surface here */
  cc_free(&p->buffer);
  char path[IO_PATH_MAX];
  snprintf(path, sizeof path, "%s", p->path);
  cc_io_mode mode = p->mode;
  cc_free(&p);
  CC_CHECK(staged_err == CC_OK, staged_err, "closing %s: its last staged bytes", path);
  CC_CHECK(rc == 0 || mode == CC_IO_READ, CC_ERR_IO, "fclose(%s) failed: %s", path,
           strerror(saved));
  return CC_OK;
}

static void posix_stream_describe(void *ctx, char *path_used, size_t n_path, char *detail,
                                  size_t n_detail)
{
  posix_ctx *p = ctx;
  snprintf(path_used, n_path, "stdio");
  if (p->mode == CC_IO_WRITE && p->hint_every > 0)
    snprintf(detail, n_detail,
             "fwrite in %zu-byte transfers, unbuffered, whole buffers from the caller's memory; "
             "writeback started every %lld KiB (%d times)",
             p->buffer_bytes, (long long)(p->hint_every >> 10), p->hints);
  else if (p->mode == CC_IO_WRITE)
    snprintf(detail, n_detail,
             "fwrite in %zu-byte transfers, unbuffered, whole buffers from the caller's memory; "
             "no early writeback",
             p->buffer_bytes);
  else
    snprintf(detail, n_detail, "fread in %zu-byte transfers, setvbuf %zu bytes", p->buffer_bytes,
             p->buffer_bytes);
}

const io_stream_ops io_stream_posix = {
    .name      = "posix",
    .extension = "bin",
    .open      = posix_stream_open,
    .write     = posix_stream_write,
    .read      = posix_stream_read,
    .finish    = posix_stream_finish,
    .close     = posix_stream_close,
    .describe  = posix_stream_describe,
};

IO_STREAM_BACKEND(posix, NULL); /* io_backend_posix: the rank file over io_stream_posix */
