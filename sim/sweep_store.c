/* The results folder of a sweep: what makes it resumable.
 *
 *   DIR/points/ID/     a finished point: out.txt (the program's output), stats.json, point.txt
 *   DIR/tmp/ID.HOST.PID/  a point being run by the runner HOST:PID; moved to points/ID in one
 *                      rename when the run succeeded, so points/ID exists whole or not at all
 *   DIR/failed/ID.txt  why the last attempt at ID failed (removed when it succeeds)
 *
 * Killing a runner at any moment leaves at worst a folder in DIR/tmp: the next runner on that host
 * removes the ones whose runner is gone and runs those points again. Points finished stay. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sweep.h"
#include "paths.h"
#include "outfile.h"

static int make_dir(const char *path, char *err, size_t errlen)
{
  if (mkdir(path, 0755) && errno != EEXIST) {
    snprintf(err, errlen, "cannot create %s: %s", icsim_path_shown(path), strerror(errno));
    return -1;
  }
  return 0;
}

void store_remove_tree(const char *path)
{
  DIR *d = opendir(path);
  struct dirent *de;
  char sub[PATH_MAX];
  while (d && (de = readdir(d))) {
    if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
      continue;
    snprintf(sub, sizeof sub, "%s/%s", path, de->d_name);
    unlink(sub);
  }
  if (d)
    closedir(d);
  rmdir(path);
}

int store_open(const char *dir, char *err, size_t errlen)
{
  char path[PATH_MAX], host[256] = "";
  static const char *const subs[] = {"points", "tmp", "failed"};
  if (make_dir(dir, err, errlen))
    return -1;
  for (size_t i = 0; i < sizeof subs / sizeof subs[0]; i++) {
    snprintf(path, sizeof path, "%s/%s", dir, subs[i]);
    if (make_dir(path, err, errlen))
      return -1;
  }
  gethostname(host, sizeof host - 1);
  snprintf(path, sizeof path, "%s/tmp", dir);
  DIR *d = opendir(path);
  struct dirent *de;
  while (d && (de = readdir(d))) { /* ID.HOST.PID left by a runner of this host that is gone */
    char *pid_dot = strrchr(de->d_name, '.'), *host_dot = strchr(de->d_name, '.');
    if (!pid_dot || !host_dot || pid_dot == host_dot)
      continue;
    if ((size_t)(pid_dot - host_dot - 1) != strlen(host) || strncmp(host_dot + 1, host, strlen(host)))
      continue;
    pid_t pid = (pid_t)atol(pid_dot + 1);
    if (pid > 0 && kill(pid, 0) == -1 && errno == ESRCH) {
      char sub[PATH_MAX];
      snprintf(sub, sizeof sub, "%s/%s", path, de->d_name);
      store_remove_tree(sub);
    }
  }
  if (d)
    closedir(d);
  return 0;
}

bool store_done(const char *dir, const char *id)
{
  char path[PATH_MAX];
  struct stat sb;
  snprintf(path, sizeof path, "%s/points/%s", dir, id);
  return stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
}

int store_write_atomic(const char *path, const char *content, size_t len, char *err, size_t errlen)
{
  /* the one output path (outfile.h): beside the target, never over an input or a non-file */
  return icsim_output_write("--out", path, content, len, err, errlen);
}

char *store_read(const char *path)
{
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  size_t cap = 8192, len = 0, got;
  char *buf = malloc(cap);
  while ((got = fread(buf + len, 1, cap - len - 1, f)) > 0) {
    len += got;
    if (cap - len < 2)
      buf = realloc(buf, cap *= 2);
  }
  buf[len] = '\0';
  fclose(f);
  return buf;
}
