/* A sweep on Slurm: one job array whose tasks each run a share of the points not done yet, with
 * the same point runner as the local workers (`icsim sweep FILE --out DIR --task-list L --task I`).
 *
 * The submission writes DIR/slurm/submit-K.points (the ids, so a task runs exactly the points
 * that were missing when it was submitted, whatever happens to the others meanwhile) and
 * DIR/slurm/submit-K.sh, then calls sbatch. Submitting again covers only what is still missing;
 * `--gather` (or `--wait`) collects the results. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sweep.h"
#include "paths.h"

/* S shell-quoted into OUT (single quotes). */
static void shq(char *out, size_t len, const char *s)
{
  size_t k = 0;
  if (k + 1 < len)
    out[k++] = '\'';
  for (; *s && k + 5 < len; s++)
    if (*s == '\'') {
      memcpy(out + k, "'\\''", 4);
      k += 4;
    } else {
      out[k++] = *s;
    }
  if (k + 1 < len)
    out[k++] = '\'';
  out[k] = '\0';
}

int sweep_slurm_submit(const struct sweep *s, const struct sweep_point *p, int n, const char *dir,
                       const struct slurm_opts *o, char *err, size_t errlen)
{
  char absdir[PATH_MAX], sdir[PATH_MAX + 8], list[PATH_MAX + 64], script[PATH_MAX + 64], log[PATH_MAX + 64];
  if (store_open(dir, err, errlen) || !realpath(dir, absdir)) {
    if (!err[0])
      snprintf(err, errlen, "%s: %s", icsim_path_shown(dir), strerror(errno));
    return -1;
  }
  snprintf(sdir, sizeof sdir, "%s/slurm", absdir);
  if (mkdir(sdir, 0755) && errno != EEXIST) {
    snprintf(err, errlen, "cannot create %s: %s", icsim_path_shown(sdir), strerror(errno));
    return -1;
  }
  /* the ids not done, each once */
  size_t cap = 64 + (size_t)n * 17, len = 0;
  char *ids = malloc(cap);
  int missing = 0, chunk = o->chunk > 0 ? o->chunk : 1;
  len += (size_t)snprintf(ids, cap, "# icsim sweep task list, %d points per task\n", chunk);
  for (int i = 0; i < n; i++) {
    int dup = 0;
    for (int k = 0; k < i && !dup; k++)
      dup = !strcmp(p[k].id, p[i].id);
    if (!dup && !store_done(absdir, p[i].id)) {
      len += (size_t)snprintf(ids + len, cap - len, "%s\n", p[i].id);
      missing++;
    }
  }
  if (missing == 0) {
    fprintf(stderr, "icsim sweep: every point is done already; nothing to submit\n");
    free(ids);
    return 0;
  }
  int k = 1;
  for (struct stat sb;; k++) {
    snprintf(list, sizeof list, "%s/submit-%d.points", sdir, k);
    if (stat(list, &sb))
      break;
  }
  snprintf(script, sizeof script, "%s/submit-%d.sh", sdir, k);
  snprintf(log, sizeof log, "%s/submit-%d-%%a.log", sdir, k);
  int tasks = (missing + chunk - 1) / chunk;
  char qfile[PATH_MAX + 8], qdir[PATH_MAX + 8], qlist[PATH_MAX + 80], qbin[PATH_MAX + 8];
  shq(qfile, sizeof qfile, s->abs_path);
  shq(qdir, sizeof qdir, absdir);
  shq(qlist, sizeof qlist, list);
  shq(qbin, sizeof qbin, ICSIM_BINDIR "/icsim");
  char *text = NULL;
  int tlen = asprintf(&text,
                      "#!/bin/sh\n"
                      "# icsim sweep %s: %d points missing, %d per task (written by icsim sweep --slurm)\n"
                      "#SBATCH --job-name=icsim-%s\n"
                      "#SBATCH --array=0-%d%s%.0d\n"
                      "#SBATCH --output=%s\n"
                      "#SBATCH --ntasks=1\n"
                      "#SBATCH --cpus-per-task=1\n"
                      "%s%s%s%s%s%s%s%s%s"
                      "exec %s sweep %s --out %s --task-list %s --task \"$SLURM_ARRAY_TASK_ID\"\n",
                      s->name, missing, chunk, s->name, tasks - 1, o->throttle > 0 ? "%" : "", o->throttle > 0 ? o->throttle : 0,
                      log, o->partition ? "#SBATCH --partition=" : "", o->partition ? o->partition : "",
                      o->partition ? "\n" : "", o->time ? "#SBATCH --time=" : "", o->time ? o->time : "",
                      o->time ? "\n" : "", o->account ? "#SBATCH --account=" : "", o->account ? o->account : "",
                      o->account ? "\n" : "", qbin, qfile, qdir, qlist);
  /* the list first: a script is only ever submitted with its list in place */
  int rc = store_write_atomic(list, ids, len, err, errlen) || store_write_atomic(script, text, (size_t)tlen, err, errlen);
  free(ids);
  free(text);
  if (rc)
    return -1;
  chmod(script, 0755);
  char **argv = calloc((size_t)o->nextra + 8, sizeof *argv);
  int na = 0;
  argv[na++] = "sbatch";
  if (o->wait)
    argv[na++] = "--wait";
  for (int i = 0; i < o->nextra; i++)
    argv[na++] = o->extra[i];
  argv[na++] = script;
  argv[na] = NULL;
  fprintf(stderr, "icsim sweep: %d points missing -> job array of %d task%s (%s)\n", missing, tasks,
          tasks > 1 ? "s" : "", script);
  if (o->dry_run) {
    for (char **a = argv; *a; a++) {
      char q[PATH_MAX + 80];
      shq(q, sizeof q, *a);
      printf("%s%s", a == argv ? "" : " ", strspn(*a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=./:%,+@") == strlen(*a) ? *a : q);
    }
    printf("\n");
    free(argv);
    return 0;
  }
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0) {
    execvp("sbatch", argv);
    fprintf(stderr, "icsim sweep: cannot run sbatch: %s (is Slurm installed here? --dry-run writes the script only)\n",
            strerror(errno));
    _exit(127);
  }
  free(argv);
  int status = 0;
  while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
    ;
  if (pid < 0 || !WIFEXITED(status) || WEXITSTATUS(status)) {
    int code = pid > 0 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    if (o->wait && code > 0 && code != 127)
      fprintf(stderr, "icsim sweep: some tasks failed (sbatch --wait exit %d); their logs: %s/submit-%d-*.log\n", code,
              sdir, k);
    else {
      snprintf(err, errlen, "sbatch %s failed (exit %d)", script, code);
      return -1;
    }
  }
  if (!o->wait)
    fprintf(stderr, "icsim sweep: when the array is done: icsim sweep %s --out %s --gather\n", s->path, dir);
  return 0;
}
