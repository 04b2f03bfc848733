/* Output files written whole or not at all (outfile.h). */
#define _GNU_SOURCE
#include "outfile.h"
#include "paths.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The file that will really be replaced (PATH, or what its symbolic link points at) into REAL;
 * -1 with ERR when PATH exists as something else than a regular file or its folder is unusable. */
static int resolve(const char *option, const char *path, char *real, size_t len, char *err, size_t errlen)
{
  struct stat sb;
  if (!path || !*path) {
    snprintf(err, errlen, "%s: empty file name; give the path of a file", option);
    return -1;
  }
  snprintf(real, len, "%s", path);
  if (lstat(path, &sb) == 0 && S_ISLNK(sb.st_mode)) {
    char buf[PATH_MAX];
    if (!realpath(path, buf)) {
      snprintf(err, errlen, "%s %s: a symbolic link to a missing file (%s); give the path of a file", option, icsim_path_shown(path),
               strerror(errno));
      return -1;
    }
    snprintf(real, len, "%s", buf);
  }
  if (stat(real, &sb) == 0 && !S_ISREG(sb.st_mode)) {
    snprintf(err, errlen, "%s %s: %s, not a regular file; give the path of a file to create or replace", option,
             icsim_path_shown(path), icsim_path_kind(sb.st_mode));
    return -1;
  }
  if (stat(real, &sb) == 0 && access(real, W_OK) != 0) { /* replacing it would bypass its protection */
    snprintf(err, errlen, "%s %s: the file is read-only (%s); make it writable or choose another name", option,
             icsim_path_shown(path), strerror(errno));
    return -1;
  }
  /* the output must not be one of the inputs read (by inode: its own name, a link to it) */
  if (icsim_output_not_input(option, path, err, errlen))
    return -1;
  char dir[PATH_MAX];
  const char *slash = strrchr(real, '/');
  if (!slash)
    snprintf(dir, sizeof dir, ".");
  else if (slash == real)
    snprintf(dir, sizeof dir, "/");
  else
    snprintf(dir, sizeof dir, "%.*s", (int)(slash - real), real);
  if (stat(dir, &sb) != 0) {
    snprintf(err, errlen, "%s %s: folder %s does not exist (%s); create it first", option, icsim_path_shown(path), icsim_path_shown(dir),
             strerror(errno));
    return -1;
  }
  if (!S_ISDIR(sb.st_mode)) {
    snprintf(err, errlen, "%s %s: %s is %s, not a folder", option, icsim_path_shown(path), icsim_path_shown(dir), icsim_path_kind(sb.st_mode));
    return -1;
  }
  return 0;
}

/* A new temporary file beside REAL (same file system, so the final rename is atomic). */
static int open_temp(const char *option, const char *path, const char *real, char *tmp, size_t len, char *err,
                     size_t errlen)
{
  snprintf(tmp, len, "%s.tmp.XXXXXX", real);
  int fd = mkstemp(tmp);
  if (fd < 0)
    snprintf(err, errlen, "%s %s: cannot create a file there (%s); choose a writable folder", option, icsim_path_shown(path),
             strerror(errno));
  return fd;
}

/* Hold the termination signals (into OLD, to restore): a temporary file made meanwhile is
 * renamed or removed before one acts. */
static void hold_signals(sigset_t *old)
{
  sigset_t hold;
  sigemptyset(&hold);
  int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE};
  for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
    sigaddset(&hold, sigs[i]);
  sigprocmask(SIG_BLOCK, &hold, old);
}

int icsim_output_check(const char *option, const char *path, char *err, size_t errlen)
{
  char real[PATH_MAX], tmp[PATH_MAX + 16];
  if (resolve(option, icsim_path_shown(path), real, sizeof real, err, errlen))
    return -1;
  sigset_t old;
  hold_signals(&old); /* the probe is a real file for a moment */
  int fd = open_temp(option, icsim_path_shown(path), real, tmp, sizeof tmp, err, errlen);
  if (fd >= 0) {
    close(fd);
    unlink(tmp);
  }
  sigprocmask(SIG_SETMASK, &old, NULL);
  return fd < 0 ? -1 : 0;
}

/* The temporary file FD (TMP) holds the output whole unless WERR: give it a plain file's mode and
 * put it in place of REAL, or remove it. Returns 0, or -1 with ERR. */
static int commit(int fd, const char *tmp, const char *real, int werr, const char *option, const char *path,
                  char *err, size_t errlen)
{
  /* the mode a plain fopen would give (mkstemp makes it 0600) */
  mode_t mask = umask(0);
  umask(mask);
  fchmod(fd, 0666 & ~mask);
  /* on disk before the rename: after a machine crash the name holds the old content or the new,
   * whole (sweep results are resumed from what is there) */
  if (!werr && fsync(fd) != 0 && errno != EINVAL && errno != EROFS)
    werr = errno;
  if (close(fd) != 0 && !werr)
    werr = errno; /* a full disk may only show here */
  if (werr) {
    snprintf(err, errlen, "%s %s: cannot write (%s)", option, icsim_path_shown(path), strerror(werr));
    unlink(tmp);
    return -1;
  }
  if (rename(tmp, real) != 0) {
    snprintf(err, errlen, "%s %s: cannot replace it (%s)", option, icsim_path_shown(path), strerror(errno));
    unlink(tmp);
    return -1;
  }
  return 0;
}

static int write_all(int fd, const char *data, size_t len)
{
  size_t done = 0;
  while (done < len) {
    ssize_t n = write(fd, data + done, len - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return errno ? errno : EIO;
    done += (size_t)n;
  }
  return 0;
}

int icsim_output_write(const char *option, const char *path, const char *data, size_t len, char *err,
                       size_t errlen)
{
  char real[PATH_MAX], tmp[PATH_MAX + 16];
  if (resolve(option, icsim_path_shown(path), real, sizeof real, err, errlen))
    return -1;
  sigset_t old;
  hold_signals(&old);
  int rc = -1;
  int fd = open_temp(option, icsim_path_shown(path), real, tmp, sizeof tmp, err, errlen);
  if (fd >= 0)
    rc = commit(fd, tmp, real, write_all(fd, data, len), option, icsim_path_shown(path), err, errlen);
  sigprocmask(SIG_SETMASK, &old, NULL);
  return rc;
}

int icsim_output_copy(const char *option, const char *path, const char *from, char *err, size_t errlen)
{
  char real[PATH_MAX], tmp[PATH_MAX + 16];
  if (resolve(option, icsim_path_shown(path), real, sizeof real, err, errlen))
    return -1;
  if (rename(from, real) == 0) /* the same file system: moved whole at once */
    return 0;
  FILE *in = fopen(from, "rb");
  if (!in) {
    snprintf(err, errlen, "%s %s: nothing was written to copy (%s)", option, icsim_path_shown(path), strerror(errno));
    return -1;
  }
  sigset_t old;
  hold_signals(&old);
  int rc = -1;
  int fd = open_temp(option, icsim_path_shown(path), real, tmp, sizeof tmp, err, errlen);
  if (fd >= 0) {
    static char chunk[1 << 16];
    size_t n;
    int werr = 0;
    while (!werr && (n = fread(chunk, 1, sizeof chunk, in)) > 0)
      werr = write_all(fd, chunk, n);
    if (!werr && ferror(in))
      werr = EIO;
    rc = commit(fd, tmp, real, werr, option, icsim_path_shown(path), err, errlen);
  }
  sigprocmask(SIG_SETMASK, &old, NULL);
  fclose(in);
  return rc;
}
