/* ckpt_lock.c: one job per checkpoint directory. Rank 0 holds DIR/cubecg.lock for the whole run: an
 * flock(2) on the file (released by the kernel when the process dies, so a killed job leaves no
 * live lock) and, inside it, the holder's host and PID (what a refused job prints). A lock file
 * left by a dead holder is reported and taken over, never silently; one still held is refused; a
 * file under that name that does not hold a lock text (a user's) is refused and left alone. */
#include "ckpt_names.h"
#include "io_internal.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

struct cc_io_dir_lock {
  int fd; /* rank 0: the locked file (-1 elsewhere) */
  char path[IO_PATH_MAX];
};

/* "host <name> pid <n>" of the lock file's text, or "an unreadable holder" */
static void holder_of(int fd, char *holder, size_t n, char *host, size_t n_host, long *pid)
{
  char text[256]          = "";
  ssize_t got             = pread(fd, text, sizeof text - 1, 0);
  text[got > 0 ? got : 0] = '\0';
  host[0]                 = '\0';
  *pid                    = -1;
  char h[128];
  long p;
  if (got > 0 && ckpt_lock_parse(text, (size_t)got, h, sizeof h, &p)) {
    snprintf(host, n_host, "%s", h);
    *pid = p;
    snprintf(holder, n, "host %s, PID %ld", h, p);
  } else
    snprintf(holder, n, "%s", got > 0 ? "a holder the file does not name" : "no holder recorded");
}

/* Rank 0: open, lock and name the lock file (the file locked is the one the path names: a file
 * unlinked by its previous holder between our open and flock is opened again). */
static cc_err lock_take(const char *dir, cc_io_dir_lock *lock)
{
  CC_CALL(io_mkdir_p(dir));
  CC_CHECK(ckpt_join(lock->path, sizeof lock->path, dir, CKPT_LOCK), CC_ERR_ARG,
           "--checkpoint-dir '%s' is too long", dir);
  char host[128] = "", holder[200], old_host[128];
  gethostname(host, sizeof host - 1);
  for (int attempt = 0; attempt < 8; attempt++) {
    /* created here: empty and ours; found: cubecg's only if it holds a lock text (below) */
    int fd       = open(lock->path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    bool created = fd >= 0;
    if (!created && errno == EEXIST) fd = open(lock->path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
    if (!created && errno == ENOENT) continue; /* removed by its holder meanwhile */
    CC_CHECK(fd >= 0, errno == ELOOP ? CC_ERR_ARG : CC_ERR_SYS, "cannot open the lock %s: %s%s",
             lock->path, strerror(errno),
             errno == ELOOP ? " (a symlink cubecg did not make: move it away)" : "");
    long old_pid;
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
      int saved = errno;
      holder_of(fd, holder, sizeof holder, old_host, sizeof old_host, &old_pid);
      close(fd);
      CC_CHECK(saved != EWOULDBLOCK, CC_ERR_ARG,
               "--checkpoint-dir %s is in use by another cubecg job (%s holds %s): one job per "
               "checkpoint directory; use another --checkpoint-dir",
               dir, holder, lock->path);
      CC_FAIL(CC_ERR_SYS, "cannot lock %s: %s (the file system must support flock)", lock->path,
              strerror(saved));
    }
    struct stat mine, named;
    if (fstat(fd, &mine) != 0 || stat(lock->path, &named) != 0 || mine.st_ino != named.st_ino ||
        mine.st_dev != named.st_dev) {
      close(fd); /* unlinked by its holder meanwhile: lock the new one */
      continue;
    }
    holder_of(fd, holder, sizeof holder, old_host, sizeof old_host, &old_pid);
    if (!created && (!S_ISREG(mine.st_mode) || old_pid < 0)) { /* a user's file: left as it is */
      close(fd);
      CC_FAIL(CC_ERR_ARG,
              "%s is not a lock cubecg wrote (%s): refusing to take it over or remove it; move "
              "it away or use another --checkpoint-dir",
              lock->path, S_ISREG(mine.st_mode) ? holder : "not a regular file");
    }
    if (!created) /* its holder ended without removing it (killed): a stale lock */
      fprintf(stderr,
              "cubecg: warning: stale lock %s (%s) is no longer held: its job ended without "
              "releasing it (killed?); taking it over\n",
              lock->path, holder);
    char text[256];
    int len = ckpt_lock_text(text, sizeof text, host, (long)getpid());
    if (ftruncate(fd, 0) != 0 || pwrite(fd, text, (size_t)len, 0) != len) {
      int saved = errno;
      close(fd);
      if (created) unlink(lock->path);
      CC_FAIL(CC_ERR_SYS, "cannot write the lock %s: %s", lock->path, strerror(saved));
    }
    lock->fd = fd;
    return CC_OK;
  }
  CC_FAIL(CC_ERR_SYS, "cannot lock %s: it was replaced 8 times while being locked", lock->path);
}

cc_err cc_io_dir_lock_acquire(const char *dir, MPI_Comm comm, cc_io_dir_lock **out)
{
  *out = NULL;
  int rank;
  CC_MPI(MPI_Comm_rank(comm, &rank));
  cc_io_dir_lock *lock;
  CC_CALL(cc_calloc(1, sizeof *lock, &lock));
  lock->fd     = -1;
  cc_err local = rank == 0 ? lock_take(dir, lock) : CC_OK;
  cc_err err   = cc_agree(comm, local); /* one verdict: every rank ends the same way */
  if (err) {
    if (lock->fd >= 0) close(lock->fd); /* another rank's MPI failed after rank 0 took it */
    cc_free(&lock);
  }
  CC_CALL(err);
  *out = lock;
  return CC_OK;
}

void cc_io_dir_lock_release(cc_io_dir_lock **lockp)
{
  cc_io_dir_lock *lock = *lockp;
  if (!lock) return;
  if (lock->fd >= 0) {
    /* unlinked while still held: a job waiting to take it opens a new file (lock_take); only the
     * file this job locked and wrote, never one put under its name since */
    struct stat mine, named;
    bool ours = fstat(lock->fd, &mine) == 0 && lstat(lock->path, &named) == 0 &&
                mine.st_ino == named.st_ino && mine.st_dev == named.st_dev;
    if (ours && unlink(lock->path) != 0)
      fprintf(stderr, "cubecg: warning: cannot remove the lock %s: %s\n", lock->path,
              strerror(errno));
    close(lock->fd);
  }
  cc_free(lockp);
}
