/* Running a sweep's points: each one `icsim run` in its own process, so points share nothing.
 *
 * Each point runs under a small supervisor (a fork of this process) that leads its own process
 * group: `icsim run`, smpirun and the simulation. The supervisor dies with its runner
 * (PR_SET_PDEATHSIG) and then takes the whole group with it, so a runner killed even with
 * SIGKILL leaves no simulation behind; an interrupted runner (Ctrl-C, SIGTERM, scancel) stops
 * its points, removes their unfinished folders and exits 130. Either way the finished points
 * stay in DIR/points and the next start runs only the others (sweep_store.c). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sweep.h"
#include "paths.h"

static volatile sig_atomic_t interrupted;
static bool quiet; /* a caller that prints its own progress (icsim calibrate) */

void sweep_run_quiet(bool on) { quiet = on; }

static void on_interrupt(int sig) { interrupted = sig; }

static double now_s(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The `icsim run` command of point P, its --stats going to STATS (NULL-terminated argv). */
static char **run_argv(const struct sweep *s, const struct sweep_point *p, const char *stats)
{
  int n = 0, cap = 16 + 2 * p->nsets;
  for (char **a = p->args; *a; a++)
    cap++;
  char **v = calloc((size_t)cap, sizeof *v), num[32];
  v[n++] = strdup(ICSIM_BINDIR "/icsim");
  v[n++] = strdup("run");
  v[n++] = strdup("-p");
  v[n++] = strdup(p->platform);
  v[n++] = strdup("-n");
  snprintf(num, sizeof num, "%d", p->ranks);
  v[n++] = strdup(num);
  v[n++] = strdup("--place");
  v[n++] = strdup(p->place);
  v[n++] = strdup("--host-timing");
  v[n++] = strdup(s->host_timing ? "on" : "off");
  for (char **k = p->sets; *k; k++) {
    v[n++] = strdup("--set");
    v[n++] = strdup(*k);
  }
  if (stats) {
    v[n++] = strdup("--stats");
    v[n++] = strdup(stats);
  }
  v[n++] = strdup("--");
  v[n++] = strdup(p->program);
  for (char **a = p->args; *a; a++)
    v[n++] = strdup(*a);
  v[n] = NULL;
  return v;
}

static void free_argv(char **v)
{
  for (char **a = v; a && *a; a++)
    free(*a);
  free(v);
}

/* The command as one line a user can paste (point.txt, failure reports). */
static void command_line(char **argv, char *buf, size_t len)
{
  size_t k = 0;
  buf[0] = '\0';
  for (char **a = argv; *a && k < len; a++) {
    int plain = strspn(*a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./:=,+@%") == strlen(*a);
    k += (size_t)snprintf(buf + k, len - k, plain ? "%s%s" : "%s'%s'", a == argv ? "" : " ", *a);
  }
}

static pid_t supervised;
static volatile sig_atomic_t stop_requested;
/* Stop the point: `icsim run` first gets SIGTERM, which stops its simulation and removes its
 * temporary folder; the supervisor's loop then takes the whole group down (supervisor_wait). */
static void supervisor_stop(int sig)
{
  (void)sig;
  stop_requested = 1;
  if (supervised > 0)
    kill(supervised, SIGTERM);
  else
    killpg(0, SIGKILL); /* nothing started yet */
}

/* Wait for `icsim run`; once stopped, give it STOP_GRACE_S to tidy up, then SIGKILL the group:
 * icsim run, smpirun, the simulation, and this supervisor. */
#define STOP_GRACE_S 10
static int supervisor_wait(void)
{
  int status = 0;
  for (;;) {
    if (stop_requested) {
      for (int i = 0; i < STOP_GRACE_S * 20 && waitpid(supervised, &status, WNOHANG) == 0; i++)
        usleep(50000);
      killpg(0, SIGKILL);
    }
    if (waitpid(supervised, &status, 0) == supervised || errno != EINTR)
      return status;
  }
}

/* Start point P in TMP (created here): returns the supervisor's pid, or -1. */
static pid_t start_point(const struct sweep *s, const struct sweep_point *p, const char *tmp)
{
  char out[PATH_MAX], errf[PATH_MAX], stats[PATH_MAX];
  if (mkdir(tmp, 0755))
    return -1;
  snprintf(out, sizeof out, "%s/out.txt", tmp);
  snprintf(errf, sizeof errf, "%s/stderr.txt", tmp);
  snprintf(stats, sizeof stats, "%s/stats.json", tmp);
  char **argv = run_argv(s, p, stats);
  pid_t runner = getpid();
  fflush(NULL);
  pid_t pid = fork();
  if (pid != 0) {
    if (pid > 0)
      setpgid(pid, pid); /* both sides set it: no race with a signal sent right away */
    free_argv(argv);
    return pid;
  }
  setpgid(0, 0);
  prctl(PR_SET_PDEATHSIG, SIGTERM);
  struct sigaction sa = {.sa_handler = supervisor_stop};
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGHUP, &sa, NULL);
  if (getppid() != runner) /* the runner died before PDEATHSIG was armed */
    supervisor_stop(0);
  supervised = fork();
  if (supervised == 0) {
    int o = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644), e = open(errf, O_WRONLY | O_CREAT | O_TRUNC, 0644),
        nul = open("/dev/null", O_RDONLY);
    if (o < 0 || e < 0 || nul < 0)
      _exit(126);
    dup2(nul, 0);
    dup2(o, 1);
    dup2(e, 2);
    signal(SIGTERM, SIG_DFL);
    signal(SIGINT, SIG_DFL);
    signal(SIGHUP, SIG_DFL);
    execv(argv[0], argv);
    dprintf(2, "icsim sweep: cannot start %s: %s\n", argv[0], strerror(errno));
    _exit(127);
  }
  if (supervised < 0)
    _exit(125);
  int status = supervisor_wait();
  _exit(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
}

/* Point P ran in TMP with exit CODE: move it into place, or report why it failed. */
static int finish_point(const struct sweep *s, const struct sweep_point *p, const char *dir, const char *tmp, int code)
{
  char path[PATH_MAX], label[1024], cmd[8192], err[512];
  sweep_point_label(s, p, label, sizeof label);
  char **argv = run_argv(s, p, NULL);
  command_line(argv, cmd, sizeof cmd);
  free_argv(argv);
  char *info = NULL;
  int len = asprintf(&info, "point %d: %s\nid %s\nexit status %d\ncommand: %s\n", p->index, label, p->id, code, cmd);
  if (code == 0) {
    snprintf(path, sizeof path, "%s/point.txt", tmp);
    char final[PATH_MAX];
    snprintf(final, sizeof final, "%s/points/%s", dir, p->id);
    int ok = store_write_atomic(path, info, (size_t)len, err, sizeof err) == 0;
    if (ok && rename(tmp, final) != 0) { /* another runner finished the same point first */
      ok = store_done(dir, p->id);
      store_remove_tree(tmp);
    }
    if (ok) {
      snprintf(path, sizeof path, "%s/failed/%s.txt", dir, p->id);
      unlink(path);
      free(info);
      return 0;
    }
  }
  snprintf(path, sizeof path, "%s/stderr.txt", tmp);
  char *stderr_text = store_read(path), *report = NULL;
  int rlen = asprintf(&report, "%s\n%s", info, stderr_text ? stderr_text : "");
  snprintf(path, sizeof path, "%s/failed/%s.txt", dir, p->id);
  store_write_atomic(path, report, (size_t)rlen, err, sizeof err);
  fprintf(stderr, "%sicsim sweep: point %d (%s) failed with status %d: %s\n", isatty(2) ? "\r\033[K" : "", p->index,
          label, code, path);
  free(report);
  free(stderr_text);
  free(info);
  store_remove_tree(tmp);
  return -1;
}

static void fmt_duration(double s, char *buf, size_t len)
{
  long t = (long)(s + 0.5);
  if (t >= 3600)
    snprintf(buf, len, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
  else
    snprintf(buf, len, "%ld:%02ld", t / 60, t % 60);
}

static void progress(int done, int total, int running, int failed, double elapsed, int finished_here, int left)
{
  if (quiet)
    return;
  char el[32], eta[32] = "?";
  fmt_duration(elapsed, el, sizeof el);
  if (finished_here > 0)
    fmt_duration(elapsed / finished_here * left, eta, sizeof eta);
  fprintf(stderr, "%s[%d/%d] done, %d running, %d failed, elapsed %s, ETA %s%s", isatty(2) ? "\r\033[K" : "", done,
          total, running, failed, el, left ? eta : "0:00", isatty(2) ? "" : "\n");
  fflush(stderr);
}

/* Run TODO (N points, none done yet) WORKERS at a time; TOTAL points in the sweep, of which
 * BEFORE were done already. Returns the number that failed, or -1 when interrupted. */
static int run_points(const struct sweep *s, const struct sweep_point *const *todo, int n, int before, int total,
                      const char *dir, int workers)
{
  char host[256] = "";
  gethostname(host, sizeof host - 1);
  struct sigaction sa = {.sa_handler = on_interrupt}, old_int, old_term, old_hup;
  sigaction(SIGINT, &sa, &old_int);
  sigaction(SIGTERM, &sa, &old_term);
  sigaction(SIGHUP, &sa, &old_hup);
  struct slot {
    pid_t pid;
    const struct sweep_point *p;
    char tmp[PATH_MAX];
  } *slot = calloc((size_t)workers, sizeof *slot);
  int next = 0, running = 0, failed = 0, finished = 0;
  double t0 = now_s();
  progress(before, total, 0, 0, 0, 0, n);
  while ((next < n || running > 0) && !interrupted) {
    while (next < n && running < workers && !interrupted) {
      int w = 0;
      while (slot[w].pid)
        w++;
      slot[w].p = todo[next++];
      snprintf(slot[w].tmp, sizeof slot[w].tmp, "%s/tmp/%s.%s.%d", dir, slot[w].p->id, host, (int)getpid());
      store_remove_tree(slot[w].tmp);
      slot[w].pid = start_point(s, slot[w].p, slot[w].tmp);
      if (slot[w].pid < 0) {
        fprintf(stderr, "icsim sweep: cannot start point %d in %s: %s\n", slot[w].p->index, slot[w].tmp,
                strerror(errno));
        slot[w].pid = 0;
        failed++;
        continue;
      }
      running++;
      if (isatty(2)) /* a log (not a terminal) gets one line per finished point */
        progress(before + finished, total, running, failed, now_s() - t0, finished, n - finished - failed);
    }
    int status;
    pid_t pid = waitpid(-1, &status, 0);
    if (pid < 0) {
      if (errno == EINTR)
        continue;
      break;
    }
    for (int w = 0; w < workers; w++)
      if (slot[w].pid == pid) {
        slot[w].pid = 0;
        running--;
        int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        if (interrupted) { /* stopped by us: not a failure of the point */
          store_remove_tree(slot[w].tmp);
          break;
        }
        if (finish_point(s, slot[w].p, dir, slot[w].tmp, code) == 0)
          finished++;
        else
          failed++;
        progress(before + finished, total, running, failed, now_s() - t0, finished, n - finished - failed);
      }
  }
  if (interrupted) {
    for (int w = 0; w < workers; w++)
      if (slot[w].pid)
        kill(slot[w].pid, SIGTERM);
    for (int w = 0; w < workers; w++)
      if (slot[w].pid) {
        while (waitpid(slot[w].pid, NULL, 0) < 0 && errno == EINTR)
          ;
        store_remove_tree(slot[w].tmp);
      }
    fprintf(stderr, "%sicsim sweep: interrupted; %d of %d points done, the others run at the next start\n",
            isatty(2) ? "\r\033[K" : "", before + finished, total);
  } else if (isatty(2) && !quiet) {
    fputc('\n', stderr);
  }
  sigaction(SIGINT, &old_int, NULL);
  sigaction(SIGTERM, &old_term, NULL);
  sigaction(SIGHUP, &old_hup, NULL);
  free(slot);
  return interrupted ? -1 : failed;
}

int sweep_run_local(const struct sweep *s, const struct sweep_point *p, int n, const char *dir, int workers)
{
  const struct sweep_point **todo = calloc((size_t)n + 1, sizeof *todo);
  int ntodo = 0, before = 0;
  for (int i = 0; i < n; i++) {
    int dup = 0; /* two points with one id are one run */
    for (int k = 0; k < i && !dup; k++)
      dup = !strcmp(p[k].id, p[i].id);
    if (dup)
      continue;
    if (store_done(dir, p[i].id))
      before++;
    else
      todo[ntodo++] = &p[i];
  }
  int total = before + ntodo; /* distinct runs */
  if (quiet)
    ;
  else if (ntodo == 0)
    fprintf(stderr, "icsim sweep: all %d points done already\n", total);
  else if (before)
    fprintf(stderr, "icsim sweep: %d of %d points done already, running the other %d\n", before, total, ntodo);
  int rc = ntodo ? run_points(s, todo, ntodo, before, total, dir, workers < 1 ? 1 : workers) : 0;
  free(todo);
  return rc;
}

int sweep_run_task(const struct sweep *s, const struct sweep_point *p, int n, const char *dir, const char *list,
                   int task, char *err, size_t errlen)
{
  if (icsim_input_check("--task-list", list, err, errlen)) /* a regular file, never waited on */
    return -1;
  char *text = store_read(list);
  int chunk = 0;
  if (!text || sscanf(text, "# icsim sweep task list, %d points per task", &chunk) != 1 || chunk < 1) {
    snprintf(err, errlen, "%s: not a task list written by `icsim sweep --slurm`", icsim_path_shown(list));
    free(text);
    return -1;
  }
  const struct sweep_point **todo = calloc((size_t)chunk, sizeof *todo);
  int ntodo = 0, line = 0, rc = 0, before = 0;
  for (char *l = strchr(text, '\n'); l && l[1]; l = strchr(l + 1, '\n')) {
    char id[32];
    if (sscanf(l + 1, "%31s", id) != 1 || id[0] == '#')
      continue;
    if (line++ / chunk != task)
      continue;
    const struct sweep_point *found = NULL;
    for (int i = 0; i < n && !found; i++)
      if (!strcmp(p[i].id, id))
        found = &p[i];
    if (!found) {
      snprintf(err, errlen, "%s: point %s of task %d is not in %s any more (the sweep file or platform changed since "
               "the submission); submit again with --slurm", list, id, task, s->path);
      rc = -1;
      break;
    }
    if (store_done(dir, id))
      before++;
    else
      todo[ntodo++] = found;
  }
  if (rc == 0 && ntodo + before == 0) {
    snprintf(err, errlen, "%s: task %d has no points (the list has %d)", icsim_path_shown(list), task, line);
    rc = -1;
  }
  if (rc == 0)
    rc = ntodo ? run_points(s, todo, ntodo, before, ntodo + before, dir, 1) : 0;
  free(todo);
  free(text);
  return rc;
}
