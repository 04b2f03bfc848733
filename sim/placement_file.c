/* Reading configuration files for `icsim run --place` (rank -> device name, physical module). */
#define _GNU_SOURCE
#include "placement_file.h"
#include "paths.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outfile.h"
#include "platform.h"

int icsim_placement_is_file(const char *spec)
{
  /* anything that exists by that name is meant as a file, so that a FIFO or a device is refused as
   * such (paths.h) rather than read as a malformed spec; a folder only when named as a path */
  struct stat st;
  return spec && stat(spec, &st) == 0 && (!S_ISDIR(st.st_mode) || strchr(spec, '/'));
}

static int bad(char *err, size_t errlen, const char *path, int line, int col, const char *what)
{
  snprintf(err, errlen, "%s:%d:%d: %s", icsim_path_shown(path), line, col, what);
  return -1;
}

int icsim_placement_file_read(const char *path, const struct icsim_platform *pf, int nranks, char **list, char *err,
                              size_t errlen)
{
  FILE *f = icsim_input_fopen("--place", path, err, errlen); /* a regular file only (paths.h) */
  if (!f)
    return -1;
  char **entry = calloc((size_t)nranks, sizeof *entry);
  int *where = calloc((size_t)nranks, sizeof *where);
  char line[1024], msg[512];
  int lineno = 0, rc = -1, seen = 0;
  while (fgets(line, sizeof line, f)) {
    lineno++;
    char *hash = strchr(line, '#');
    if (hash)
      *hash = '\0';
    char *tok[4];
    int col[4], n = 0;
    for (char *s = line; *s && n < 4;) {
      while (*s && isspace((unsigned char)*s))
        s++;
      if (!*s)
        break;
      col[n] = (int)(s - line) + 1;
      tok[n++] = s;
      while (*s && !isspace((unsigned char)*s))
        s++;
      if (*s)
        *s++ = '\0';
    }
    if (n == 0)
      continue;
    if (n != 3) {
      bad(err, errlen, path, lineno, n > 3 ? col[3] : 1,
          "write three columns per line: rank, device name, module (e.g. `0 /dev/smpo0 3`)");
      goto out;
    }
    char *end;
    long r = strtol(tok[0], &end, 10);
    if (*end || r < 0) {
      bad(err, errlen, path, lineno, col[0], "the rank must be a whole number >= 0");
      goto out;
    }
    if (r >= nranks) {
      snprintf(msg, sizeof msg, "rank %ld, but -n is %d: list ranks 0..%d only (or raise -n)", r, nranks, nranks - 1);
      bad(err, errlen, path, lineno, col[0], msg);
      goto out;
    }
    if (entry[r]) {
      snprintf(msg, sizeof msg, "rank %ld is listed twice (first on line %d): give each rank one line", r, where[r]);
      bad(err, errlen, path, lineno, col[0], msg);
      goto out;
    }
    long mod = strtol(tok[2], &end, 10), sock = -1;
    if (end != tok[2] && *end == '.') {
      char *s2 = end + 1;
      sock = strtol(s2, &end, 10);
      if (end == s2)
        end = s2 - 1;
    }
    if (end == tok[2] || *end) {
      bad(err, errlen, path, lineno, col[2], "the module must be a number (or module.socket, e.g. 3.1)");
      goto out;
    }
    if (mod < 0 || mod >= pf->p.nodes) {
      snprintf(msg, sizeof msg, "module %ld does not exist: the platform's modules are 0..%d", mod, pf->p.nodes - 1);
      bad(err, errlen, path, lineno, col[2], msg);
      goto out;
    }
    if (sock >= pf->p.sockets) {
      snprintf(msg, sizeof msg, "socket %ld does not exist: sockets are 0..%d", sock, pf->p.sockets - 1);
      bad(err, errlen, path, lineno, col[2], msg);
      goto out;
    }
    entry[r] = strdup(tok[2]);
    where[r] = lineno;
    seen++;
  }
  if (seen != nranks) {
    int missing = 0;
    while (entry[missing])
      missing++;
    snprintf(err, errlen, "%s: lists %d of the %d ranks (rank %d is missing); add one line per rank", icsim_path_shown(path), seen,
             nranks, missing);
    goto out;
  }
  size_t cap = 1, len = 0;
  for (int r = 0; r < nranks; r++)
    cap += strlen(entry[r]) + 1;
  *list = malloc(cap);
  (*list)[0] = '\0';
  for (int r = 0; r < nranks; r++)
    len += (size_t)snprintf(*list + len, cap - len, "%s%s", r ? "," : "", entry[r]);
  rc = 0;
out:
  fclose(f);
  for (int r = 0; r < nranks; r++)
    free(entry[r]);
  free(entry);
  free(where);
  return rc;
}
