/* io_fortran.c: the "fortran" backend: the seeds compared Fortran READ/WRITE with C I/O; here each
 * per-rank file is written with unformatted sequential WRITE (io_fortran.f90), one record for the
 * header and one per vector (split below 1 GiB), fsync'd from C when durable. Built only with a
 * Fortran compiler (CUBECG_HAVE_FORTRAN). */
#include "io_internal.h"

#ifdef CUBECG_HAVE_FORTRAN
#include <fcntl.h>
#include <unistd.h>

#define FORTRAN_MSG 256
void cc_fortran_open(const char *path, int path_len, int for_write, int *unit, int *ierr, char *msg,
                     int msg_len);
/* one record WRITE (for_write) or READ; data is only read when writing */
void cc_fortran_record(int unit, void *data, int64_t nbytes, int for_write, int *ierr, char *msg,
                       int msg_len);
void cc_fortran_end(int unit, int close_it, int *ierr, char *msg, int msg_len); /* FLUSH or CLOSE */

typedef struct {
  int unit;
  cc_io_mode mode;
  int64_t records;
  char path[IO_PATH_MAX];
} fortran_ctx;

static cc_err fortran_stream_open(const char *path, cc_io_mode mode, const cc_io_options *opt,
                                  void **ctx)
{
  (void)opt; /* gfortran sizes its buffer from GFORTRAN_UNFORMATTED_BUFFER_SIZE at start-up */
  fortran_ctx *f;
  CC_CALL(cc_calloc(1, sizeof *f, &f));
  snprintf(f->path, sizeof f->path, "%s", path);
  f->mode = mode;
  int ierr;
  char msg[FORTRAN_MSG];
  cc_fortran_open(path, (int)strlen(path), mode == CC_IO_WRITE, &f->unit, &ierr, msg, FORTRAN_MSG);
  if (ierr) cc_free(&f);
  CC_CHECK(ierr == 0, CC_ERR_IO, "Fortran OPEN of %s failed (iostat %d): %s", path, ierr, msg);
  *ctx = f;
  return CC_OK;
}

/* The next record of n bytes written from data (write) or read into it. */
static cc_err fortran_record(fortran_ctx *f, void *data, size_t n, bool write)
{
  int ierr;
  char msg[FORTRAN_MSG];
  cc_fortran_record(f->unit, data, (int64_t)n, write, &ierr, msg, FORTRAN_MSG);
  CC_CHECK(ierr == 0, CC_ERR_IO,
           "Fortran %s of record %lld (%zu bytes) %s %s failed (iostat %d): %s",
           write ? "WRITE" : "READ", (long long)f->records + 1, n, write ? "to" : "from", f->path,
           ierr, msg);
  f->records++;
  return CC_OK;
}

static cc_err fortran_stream_write(void *ctx, const void *data, size_t n)
{
  fortran_ctx *f = ctx;
  CC_CHECK(!io_inject_enospc(n), CC_ERR_IO,
           "Fortran WRITE of record %lld (%zu bytes) to %s failed: %s (injected)",
           (long long)f->records + 1, n, f->path, strerror(ENOSPC));
  CC_CALL(fortran_record(f, (void *)data, n, true)); /* WRITE only reads the record */
  return CC_OK;
}

static cc_err fortran_stream_read(void *ctx, void *data, size_t n)
{
  CC_CALL(fortran_record(ctx, data, n, false));
  return CC_OK;
}

static cc_err fortran_stream_finish(void *ctx, bool durable)
{
  fortran_ctx *f = ctx;
  int ierr;
  char msg[FORTRAN_MSG];
  cc_fortran_end(f->unit, 0, &ierr, msg, FORTRAN_MSG);
  CC_CHECK(ierr == 0, CC_ERR_IO, "Fortran FLUSH of %s failed (iostat %d): %s", f->path, ierr, msg);
  if (durable) CC_CALL(io_fsync_path(f->path)); /* Fortran has no fsync: any descriptor will do */
  return CC_OK;
}

static cc_err fortran_stream_close(void *ctx)
{
  fortran_ctx *f = ctx;
  if (!f) return CC_OK;
  int ierr;
  char msg[FORTRAN_MSG], path[IO_PATH_MAX];
  cc_fortran_end(f->unit, 1, &ierr, msg, FORTRAN_MSG);
  snprintf(path, sizeof path, "%s", f->path);
  cc_free(&f);
  CC_CHECK(ierr == 0, CC_ERR_IO, "Fortran CLOSE of %s failed (iostat %d): %s", path, ierr, msg);
  return CC_OK;
}

static void fortran_stream_describe(void *ctx, char *path_used, size_t n_path, char *detail,
                                    size_t n_detail)
{
  fortran_ctx *f = ctx;
  snprintf(path_used, n_path, "fortran-sequential");
  snprintf(detail, n_detail, "unformatted sequential, %lld records", (long long)f->records);
}

const io_stream_ops io_stream_fortran = {
    .name          = "fortran",
    .extension     = "fbin",
    .record_marker = 4,
    .max_record    = (size_t)1 << 30,
    .open          = fortran_stream_open,
    .write         = fortran_stream_write,
    .read          = fortran_stream_read,
    .finish        = fortran_stream_finish,
    .close         = fortran_stream_close,
    .describe      = fortran_stream_describe,
};

IO_STREAM_BACKEND(fortran, NULL); /* io_backend_fortran: the rank file over io_stream_fortran */
#endif
