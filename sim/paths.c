/* The gate for the paths icsim reads and writes (paths.h). */
#define _GNU_SOURCE
#include "paths.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *icsim_path_short(const char *path, char *buf, size_t len)
{
  if (!path)
    path = "(none)";
  size_t n = strlen(path);
  size_t keep = len > 0 ? len - 1 : 0;
  if (keep > ICSIM_PATH_SHOWN)
    keep = ICSIM_PATH_SHOWN;
  if (n <= keep) {
    snprintf(buf, len, "%s", path);
    return buf;
  }
  /* the head says where (which tree), the tail which file: keep a third and the rest */
  size_t head = (keep - 3) / 3, tail = keep - 3 - head;
  snprintf(buf, len, "%.*s...%s", (int)head, path, path + n - tail);
  return buf;
}

const char *icsim_path_shown(const char *path)
{
  static char slot[8][ICSIM_PATH_SHOWN + 1];
  static unsigned next;
  char *buf = slot[next++ % 8];
  return icsim_path_short(path, buf, sizeof slot[0]);
}

const char *icsim_path_kind(mode_t m)
{
  if (S_ISDIR(m))
    return "a folder";
  if (S_ISCHR(m))
    return "a character device";
  if (S_ISBLK(m))
    return "a block device";
  if (S_ISFIFO(m))
    return "a pipe (FIFO)";
  if (S_ISSOCK(m))
    return "a socket";
  if (S_ISREG(m))
    return "a regular file";
  return "not a regular file";
}

/* ---- the inputs read so far, by device and inode ---- */

struct input {
  dev_t dev;
  ino_t ino;
  char what[32];
  char shown[ICSIM_PATH_SHOWN + 1];
};
static struct input *inputs;
static size_t ninputs, cap_inputs;

static void remember(const struct stat *sb, const char *what, const char *path)
{
  for (size_t i = 0; i < ninputs; i++)
    if (inputs[i].dev == sb->st_dev && inputs[i].ino == sb->st_ino)
      return; /* loaded again (a platform read by several commands' steps, the fuzzer's one file) */
  if (ninputs == cap_inputs) {
    size_t more = cap_inputs ? cap_inputs * 2 : 16;
    struct input *grown = realloc(inputs, more * sizeof *grown);
    if (!grown)
      return; /* out of memory: the output check then knows less, nothing breaks */
    inputs = grown, cap_inputs = more;
  }
  struct input *in = &inputs[ninputs++];
  in->dev = sb->st_dev;
  in->ino = sb->st_ino;
  snprintf(in->what, sizeof in->what, "%s", what);
  icsim_path_short(path, in->shown, sizeof in->shown);
}

void icsim_input_forget(const char *path)
{
  struct stat sb;
  if (stat(path, &sb))
    return;
  for (size_t i = 0; i < ninputs; i++)
    if (inputs[i].dev == sb.st_dev && inputs[i].ino == sb.st_ino) {
      inputs[i] = inputs[--ninputs];
      return;
    }
}

void icsim_inputs_forget(void)
{
  free(inputs);
  inputs = NULL;
  ninputs = cap_inputs = 0;
}

/* The refusal of PATH (stat SB) as an input, or 0 when it is a regular file. */
static int refuse(const char *what, const char *path, const struct stat *sb, char *err, size_t errlen)
{
  if (S_ISREG(sb->st_mode))
    return 0;
  snprintf(err, errlen, "%s %s: %s, not a regular file; give the path of a file (icsim reads a file whole, never "
           "from a pipe, a device or a folder)", what, icsim_path_shown(path), icsim_path_kind(sb->st_mode));
  return -1;
}

static int stat_input(const char *what, const char *path, struct stat *sb, char *err, size_t errlen)
{
  if (!path || !*path) {
    snprintf(err, errlen, "%s: empty file name; give the path of a file", what);
    return -1;
  }
  if (stat(path, sb) != 0) {
    snprintf(err, errlen, "%s %s: cannot open (%s); check the path", what, icsim_path_shown(path), strerror(errno));
    return -1;
  }
  return refuse(what, path, sb, err, errlen);
}

int icsim_input_check(const char *what, const char *path, char *err, size_t errlen)
{
  struct stat sb;
  if (stat_input(what, path, &sb, err, errlen))
    return -1;
  remember(&sb, what, path);
  return 0;
}

int icsim_input_open(const char *what, const char *path, char *err, size_t errlen)
{
  struct stat sb;
  if (stat_input(what, path, &sb, err, errlen))
    return -1;
  /* non-blocking: if PATH became a FIFO since the stat, the open returns at once, and the fstat
   * below refuses it; O_NOCTTY: a terminal never becomes ours */
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) {
    snprintf(err, errlen, "%s %s: cannot open (%s); check the path", what, icsim_path_shown(path), strerror(errno));
    return -1;
  }
  if (fstat(fd, &sb) != 0) {
    snprintf(err, errlen, "%s %s: cannot read (%s)", what, icsim_path_shown(path), strerror(errno));
    close(fd);
    return -1;
  }
  if (refuse(what, path, &sb, err, errlen)) {
    close(fd);
    return -1;
  }
  int flags = fcntl(fd, F_GETFL);
  if (flags >= 0)
    fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  remember(&sb, what, path);
  return fd;
}

FILE *icsim_input_fopen(const char *what, const char *path, char *err, size_t errlen)
{
  int fd = icsim_input_open(what, path, err, errlen);
  if (fd < 0)
    return NULL;
  FILE *f = fdopen(fd, "r");
  if (!f) {
    snprintf(err, errlen, "%s %s: cannot read (%s)", what, icsim_path_shown(path), strerror(errno));
    close(fd);
  }
  return f;
}

int icsim_output_not_input(const char *option, const char *path, char *err, size_t errlen)
{
  struct stat sb;
  if (!path || stat(path, &sb) != 0) /* follows a symbolic link: the file that would be replaced */
    return 0;
  for (size_t i = 0; i < ninputs; i++)
    if (inputs[i].dev == sb.st_dev && inputs[i].ino == sb.st_ino) {
      /* by inode: the input's own name, a symbolic link to it and a hard link alike */
      snprintf(err, errlen, "%s %s: that is one of this run's inputs (%s %s: the same file, by device and inode); "
               "writing there would destroy it: give the output a file of its own", option, icsim_path_shown(path),
               inputs[i].what, inputs[i].shown);
      return -1;
    }
  return 0;
}
