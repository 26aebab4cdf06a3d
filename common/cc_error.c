/* cc_error.c: the per-thread error chain behind CC_CALL / CC_CHECK / CC_MPI (PETSc's PetscCall
 * model: each frame adds file, line and function; main prints the chain once). */
#include "cc_error.h"

#include <stdarg.h>
#include <stdlib.h>

#define CC_ERROR_FRAMES 24
#define CC_ERROR_TEXT 512

static _Thread_local struct {
  int n_frames;
  int code;
  int agreed; /* the chain ends in a failure every rank of a communicator agreed on */
  char text[CC_ERROR_FRAMES][CC_ERROR_TEXT];
} error_chain;

const char *cc_error_name(cc_err code)
{
  static const char *names[] = {
      "ok",          "invalid argument", "out of memory", "MPI error",
      "OS error",    "I/O error",        "HDF5 error",    "io_uring error",
      "METIS error", "numerical error",  "check failed",  "unsupported",
      "interrupted"};
  if (code < 0 || code > CC_ERR_INTERRUPTED) return "unknown error";
  return names[code];
}

cc_err cc_error_push(cc_err code, const char *file, int line, const char *func, const char *fmt,
                     ...)
{
  if (error_chain.n_frames == 0) error_chain.code = code;
  if (error_chain.n_frames < CC_ERROR_FRAMES) {
    char *slot = error_chain.text[error_chain.n_frames++];
    int used   = snprintf(slot, CC_ERROR_TEXT, "%s:%d %s(): ", file, line, func);
    va_list args;
    va_start(args, fmt);
    if (used >= 0 && used < CC_ERROR_TEXT) vsnprintf(slot + used, CC_ERROR_TEXT - used, fmt, args);
    va_end(args);
  }
  return code ? code : CC_ERR_CHECK;
}

cc_err cc_error_push_mpi(int mpi_code, const char *file, int line, const char *func,
                         const char *expr)
{
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (MPI_Error_string(mpi_code, text, &length) != MPI_SUCCESS)
    snprintf(text, sizeof text, "code %d", mpi_code);
  return cc_error_push(CC_ERR_MPI, file, line, func, "%s: %s", expr, text);
}

cc_err cc_error_push_errno(int errnum, const char *file, int line, const char *func,
                           const char *expr)
{
  return cc_error_push(CC_ERR_SYS, file, line, func, "%s: %s (errno %d)", expr, strerror(errnum),
                       errnum);
}

const char *cc_error_message(void)
{
  return error_chain.n_frames ? error_chain.text[0] : "";
}

void cc_error_clear(void)
{
  error_chain.n_frames = 0;
  error_chain.code     = 0;
  error_chain.agreed   = 0;
}

int cc_error_agreed(void)
{
  return error_chain.n_frames > 0 && error_chain.agreed;
}

void cc_error_print(FILE *out, int rank)
{
  if (error_chain.n_frames == 0) return;
  /* The innermost frame carries the user-facing message: print it alone on the first line. */
  const char *innermost = strstr(error_chain.text[0], "(): ");
  fprintf(out, "cubecg: error on rank %d: %s: %s\n", rank, cc_error_name(error_chain.code),
          innermost ? innermost + 4 : error_chain.text[0]);
  /* one line for the user; the file:line chain for developers on request */
  const char *trace = getenv("CUBECG_TRACE");
  if (trace && strcmp(trace, "0") != 0 && trace[0])
    for (int i = 0; i < error_chain.n_frames; i++)
      fprintf(out, "  [%d] %s\n", rank, error_chain.text[i]);
  fflush(out);
  cc_error_clear();
}

cc_err cc_error_agree(MPI_Comm comm, cc_err local, cc_err *global)
{
  /* Encode (code, rank) so the lowest failing rank's code wins: MPI_MINLOC on failing ranks. */
  int rank;
  CC_MPI(MPI_Comm_rank(comm, &rank));
  struct {
    int key, rank;
  } in = {local ? 0 : 1, rank}, out;
  CC_MPI(MPI_Allreduce(&in, &out, 1, MPI_2INT, MPI_MINLOC, comm));
  int code = local;
  CC_MPI(MPI_Bcast(&code, 1, MPI_INT, out.rank, comm));
  *global = out.key == 0 ? code : CC_OK;
  if (*global) {
    /* every rank gets the failing rank's message, so rank 0 alone can print it and the job can
     * end with MPI_Finalize instead of MPI_Abort (which may lose output) */
    char message[CC_ERROR_TEXT] = "";
    if (rank == out.rank) {
      const char *inner = strstr(cc_error_message(), "(): ");
      snprintf(message, sizeof message, "%s", inner ? inner + 4 : cc_error_message());
    }
    CC_MPI(MPI_Bcast(message, sizeof message, MPI_CHAR, out.rank, comm));
    if (!local)
      cc_error_push(*global, __FILE__, __LINE__, __func__, "rank %d: %s", out.rank, message);
    int size, world;
    CC_MPI(MPI_Comm_size(comm, &size));
    CC_MPI(MPI_Comm_size(MPI_COMM_WORLD, &world));
    error_chain.agreed = size == world; /* only a job-wide agreement lets the job finalize */
  }
  return CC_OK;
}
