/* cc_error.h: errors travel up (PETSc style). Library functions return cc_err (0 = success);
 * CC_CALL wraps a call and appends file:line:function to a per-thread error chain; CC_CHECK tests a
 * condition with a formatted message; CC_MPI, CC_SYS, CC_URING and CC_H5 turn library codes into
 * text; cc_error_agree makes one decision of all ranks. main() prints the chain once
 * (cc_error_print) and exits non-zero. Implemented in cc_error.c; cc_common.h includes it. */
#ifndef CC_ERROR_H
#define CC_ERROR_H

#include <errno.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef int cc_err;
enum {
  CC_OK = 0,
  CC_ERR_ARG,     /* bad user input (options, sizes) */
  CC_ERR_MEM,     /* allocation failed or would exceed the memory estimate */
  CC_ERR_MPI,     /* an MPI call failed */
  CC_ERR_SYS,     /* an OS call failed (errno) */
  CC_ERR_IO,      /* file format, checksum, truncated file... */
  CC_ERR_H5,      /* an HDF5 call failed */
  CC_ERR_URING,   /* an io_uring call failed (negative errno) */
  CC_ERR_METIS,   /* METIS returned an error */
  CC_ERR_NUMERIC, /* breakdown, NaN, singular block */
  CC_ERR_CHECK,   /* a built-in verification failed */
  CC_ERR_UNSUPPORTED,
  CC_ERR_INTERRUPTED /* a signal asked the run to stop (the solver's loop is left with it) */
};

#define CC_WUR __attribute__((warn_unused_result))
#define CC_PRINTF(a, b) __attribute__((format(printf, a, b)))

/* Append a frame to this thread's error chain; returns code so callers can `return
 * cc_error_push(..)`. */
cc_err cc_error_push(cc_err code, const char *file, int line, const char *func, const char *fmt,
                     ...) CC_PRINTF(5, 6);
/* Print the innermost message on one line (and the file:line chain when CUBECG_TRACE=1), prefixed
 * with the rank; flush; clear the chain. */
void cc_error_print(FILE *out, int rank);
/* First message of the chain (the innermost, most specific); "" if none. */
const char *cc_error_message(void);
void cc_error_clear(void);
/* 1 when the current chain holds a failure agreed on by cc_error_agree (every rank of that
 * communicator fails with it): the driver may then end with MPI_Finalize rather than MPI_Abort. */
int cc_error_agreed(void);
const char *cc_error_name(cc_err code);

#define CC_CALL(expr)                                                                              \
  do {                                                                                             \
    cc_err cc_call_err_ = (expr);                                                                  \
    if (cc_call_err_)                                                                              \
      return cc_error_push(cc_call_err_, __FILE__, __LINE__, __func__, "%s", #expr);               \
  } while (0)

#define CC_CHECK(cond, code, ...)                                                                  \
  do {                                                                                             \
    if (!(cond)) return cc_error_push((code), __FILE__, __LINE__, __func__, __VA_ARGS__);          \
  } while (0)

#define CC_FAIL(code, ...) return cc_error_push((code), __FILE__, __LINE__, __func__, __VA_ARGS__)

/* MPI calls: needs MPI_ERRORS_RETURN on the communicator (set by the driver). */
cc_err cc_error_push_mpi(int mpi_code, const char *file, int line, const char *func,
                         const char *expr);
#define CC_MPI(expr)                                                                               \
  do {                                                                                             \
    int cc_mpi_rc_ = (expr);                                                                       \
    if (cc_mpi_rc_ != MPI_SUCCESS)                                                                 \
      return cc_error_push_mpi(cc_mpi_rc_, __FILE__, __LINE__, __func__, #expr);                   \
  } while (0)

/* OS calls returning -1 and setting errno. */
cc_err cc_error_push_errno(int errnum, const char *file, int line, const char *func,
                           const char *expr);
#define CC_SYS(expr)                                                                               \
  do {                                                                                             \
    if ((expr) == -1) return cc_error_push_errno(errno, __FILE__, __LINE__, __func__, #expr);      \
  } while (0)

/* io_uring calls returning a negative errno. */
#define CC_URING(expr)                                                                             \
  do {                                                                                             \
    int cc_uring_rc_ = (expr);                                                                     \
    if (cc_uring_rc_ < 0)                                                                          \
      return cc_error_push((CC_ERR_URING), __FILE__, __LINE__, __func__, "%s: %s", #expr,          \
                           strerror(-cc_uring_rc_));                                               \
  } while (0)

/* HDF5 calls returning a negative herr_t/hid_t. */
#define CC_H5(expr)                                                                                \
  do {                                                                                             \
    if ((int64_t)(expr) < 0)                                                                       \
      return cc_error_push(CC_ERR_H5, __FILE__, __LINE__, __func__, "HDF5 call failed: %s",        \
                           #expr);                                                                 \
  } while (0)

/* A collective decision: every rank passes its local error code; all ranks return CC_ERR_* of the
 * lowest-ranked failing process (or CC_OK). Used where ranks may disagree (e.g. a checkpoint). */
CC_WUR cc_err cc_error_agree(MPI_Comm comm, cc_err local, cc_err *global);
/* The same agreement as an expression: err = cc_agree(comm, err). A rank that failed returns its
 * own code (its chain says what went wrong); the others return the lowest failing rank's code, with
 * that rank's message in their chain (cc_error_agree); CC_OK when no rank failed. */
CC_WUR static inline cc_err cc_agree(MPI_Comm comm, cc_err local)
{
  cc_err global = CC_OK, err = cc_error_agree(comm, local, &global);
  return err ? err : local ? local : global;
}

#endif
