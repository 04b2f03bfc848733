/* icsim sweep end to end: results.csv against the ping-pong closed form, a second start that
 * runs nothing, a failing point, and the sweep killed (SIGINT, then SIGKILL) in the middle of
 * points and started again: nothing finished is lost or run twice, nothing is left running. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "shell.h"

#define ICSIM ICSIM_BUILD "/bin/icsim"
#define SWEEPS ICSIM_SRC "/tests/data/sweeps/"

/* One-way ping-pong time on tests/data/pingpong-2node.yaml (eager sizes): both overheads, the
 * link latency, the payload + 16 B envelope at the link bandwidth. */
static double pingpong_us(double size_B, double bw_Bps, double send_overhead_us)
{
  return send_overhead_us + 3 + 10 + (size_B + 16) / bw_Bps * 1e6;
}

static char *tmpdir(void)
{
  char *d = strdup("/tmp/icsim-sweep-test-XXXXXX");
  cr_assert_not_null(mkdtemp(d));
  return d;
}

static int count_dir(const char *path)
{
  DIR *d = opendir(path);
  struct dirent *de;
  int n = 0;
  while (d && (de = readdir(d)))
    n += de->d_name[0] != '.';
  if (d)
    closedir(d);
  return n;
}

/* The whole file PATH ("" when absent). */
static char *slurp(const char *path)
{
  FILE *f = fopen(path, "r");
  size_t cap = 1 << 16, len = 0, got;
  char *buf = malloc(cap);
  while (f && (got = fread(buf + len, 1, cap - len - 1, f)) > 0)
    if ((len += got) + 1 >= cap)
      buf = realloc(buf, cap *= 2);
  buf[len] = '\0';
  if (f)
    fclose(f);
  return buf;
}

Test(sweep_run, csv_matches_the_closed_form_and_a_rerun_runs_nothing)
{
  char *dir = tmpdir(), cmd[1024], *out, path[512];
  snprintf(cmd, sizeof cmd, ICSIM " sweep " SWEEPS "good.yaml --out %s/o -j 2", dir);
  cr_assert_eq(run(cmd, &out, 1), 0, "%s", out);
  free(out);
  snprintf(path, sizeof path, "%s/o/results.csv", dir);
  char *csv = slurp(path);
  const char *header =
      "network/link-bandwidth[Bps],size[B],sender,latency[us],simulated[s],payload[B],blocked[s],generic_send[s]\n";
  cr_assert(!strncmp(csv, header, strlen(header)), "%s", csv);
  int rows = 0;
  for (char *l = strchr(csv, '\n') + 1; *l; l = strchr(l, '\n') + 1, rows++) {
    double bw, size, lat, sim, payload;
    char sender[32];
    cr_assert_eq(sscanf(l, "%lf,%lf,%31[^,],%lf,%lf,%lf", &bw, &size, sender, &lat, &sim, &payload), 6, "row: %s", l);
    cr_assert(strstr(l, ",,") == NULL, "a figure is missing: %s", l);
    /* the --stats counter: 2 warm-up + 20 timed round trips, two messages of `size` each */
    cr_assert_float_eq(payload, 44 * size, 0.5, "payload %.0f B: %s", payload, l);
    double expect = pingpong_us(size, bw, strcmp(sender, "base") ? 12 : 2);
    printf("bw %.0f B/s, %5.0f B, %-9s: %8.2f us, closed form %8.2f us\n", bw, size, sender, lat, expect);
    cr_assert(fabs(lat - expect) <= 0.006, "%s: %.2f vs %.2f us", l, lat, expect); /* two decimals printed */
    cr_assert(sim >= 22 * 2 * expect * 1e-6, "22 round trips take at least %.6f s: %s", 44 * expect * 1e-6, l);
  }
  cr_assert_eq(rows, 8);
  /* the plot: `where sender=base` leaves one line per bandwidth */
  snprintf(path, sizeof path, "%s/o/plots/latency.dat", dir);
  char *dat = slurp(path);
  cr_assert(strstr(dat, "# 50MBps\n1024 ") && strstr(dat, "# 100MBps\n"),
            "%s", dat);
  cr_assert_null(strstr(dat, "sender"), "%s", dat);
  free(dat);
  struct stat sb;
  snprintf(path, sizeof path, "%s/o/latency.png", dir);
  cr_assert(stat(path, &sb) == 0 && sb.st_size > 1000, "no plot %s", path);
  /* the stacked plot: per size, the send CPU, then send CPU + blocked, from the CSV's own cells */
  snprintf(path, sizeof path, "%s/o/plots/time-split.dat", dir);
  dat = slurp(path);
  int stacked = 0;
  for (char *l = csv; (l = strstr(l, "100000000,")); l++) { /* 100MBps rows */
    double size, lat, sim, payload, blocked, send;
    char sender[32];
    if (sscanf(l, "100000000,%lf,%31[^,],%lf,%lf,%lf,%lf,%lf", &size, sender, &lat, &sim, &payload, &blocked, &send) != 7 ||
        strcmp(sender, "base"))
      continue;
    char want[128];
    snprintf(want, sizeof want, "%.10g %.10g %.10g\n", size, send, send + blocked);
    cr_assert(strstr(dat, want), "stacked row %s missing from:\n%s", want, dat);
    stacked++;
  }
  cr_assert_eq(stacked, 2, "%s", dat);
  free(dat);
  snprintf(path, sizeof path, "%s/o/time-split.png", dir);
  cr_assert(stat(path, &sb) == 0 && sb.st_size > 1000, "no plot %s", path);
  /* a second start finds every point done, runs none, writes the same CSV */
  snprintf(cmd, sizeof cmd, ICSIM " sweep " SWEEPS "good.yaml --out %s/o", dir);
  cr_assert_eq(run(cmd, &out, 1), 0, "%s", out);
  cr_assert(strstr(out, "all 8 points done already"), "%s", out);
  free(out);
  snprintf(path, sizeof path, "%s/o/results.csv", dir);
  char *again = slurp(path);
  cr_assert_str_eq(again, csv);
  free(again);
  /* a point gone: gather says so and fails */
  snprintf(cmd, sizeof cmd, "rm -r $(ls -d %s/o/points/* | head -1) && " ICSIM " sweep " SWEEPS "good.yaml --out %s/o --gather",
           dir, dir);
  cr_assert_eq(run(cmd, &out, 1), 1, "%s", out);
  cr_assert(strstr(out, "7 of 8 points"), "%s", out);
  free(out);
  free(csv);
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  run(cmd, &out, 0);
  free(out);
  free(dir);
}

Test(sweep_run, a_failing_point_is_reported_and_retried)
{
  char *dir = tmpdir(), path[512], cmd[1024], *out;
  snprintf(path, sizeof path, "%s/failing.yaml", dir);
  FILE *f = fopen(path, "w");
  fprintf(f,
          "sweep: failing\nplatform: %s/tests/data/pingpong-2node.yaml\nprogram: \"{prog}\"\nargs: \"-m 0:0 -i 5 -x 1\"\n"
          "ranks: 2\nplace: 2x1\naxes:\n  - var: prog\n    values: [osu_latency, %s/tests/progs/exit7]\n"
          "figures:\n  - name: t\n    row: \"0\"\n",
          ICSIM_SRC, ICSIM_BUILD);
  fclose(f);
  snprintf(cmd, sizeof cmd, ICSIM " sweep %s --out %s/o -j 1", path, dir);
  cr_assert_eq(run(cmd, &out, 1), 1, "%s", out);
  cr_assert(strstr(out, "point 1 (prog=") && strstr(out, "failed with status 7"), "%s", out);
  cr_assert(strstr(out, "1 of 2 points"), "%s", out);
  free(out);
  char sub[600];
  snprintf(sub, sizeof sub, "%s/o/points", dir);
  cr_assert_eq(count_dir(sub), 1);
  snprintf(sub, sizeof sub, "%s/o/failed", dir);
  cr_assert_eq(count_dir(sub), 1);
  snprintf(cmd, sizeof cmd, "cat %s/o/failed/*.txt", dir);
  run(cmd, &out, 0);
  cr_assert(strstr(out, "exit status 7") && strstr(out, "command: "), "%s", out);
  free(out);
  /* the next start runs the failed point again, not the finished one */
  snprintf(cmd, sizeof cmd, ICSIM " sweep %s --out %s/o -j 1", path, dir);
  cr_assert_eq(run(cmd, &out, 1), 1, "%s", out);
  cr_assert(strstr(out, "1 of 2 points done already, running the other 1"), "%s", out);
  free(out);
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  run(cmd, &out, 0);
  free(out);
  free(dir);
}

/* Start `icsim sweep` on slow.yaml in the background, its stderr to ERRFILE. */
/* TMPDIR of the sweeps started here: what their points' `icsim run` leave behind shows. */
static char scratch[700];

static pid_t start_sweep(const char *outdir, const char *errfile)
{
  pid_t pid = fork();
  if (pid == 0) {
    int e = open(errfile, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(e, 2);
    if (scratch[0])
      setenv("TMPDIR", scratch, 1);
    execl(ICSIM, ICSIM, "sweep", SWEEPS "slow.yaml", "--out", outdir, "-j", "1", (char *)NULL);
    _exit(127);
  }
  return pid;
}

/* Wait until OUT/points holds at least N points while the sweep PID runs (at most 120 s). */
static void wait_points(const char *out, int n, pid_t pid, const char *errfile)
{
  char path[600];
  snprintf(path, sizeof path, "%s/points", out);
  for (int i = 0; i < 1200 && count_dir(path) < n; i++) {
    int status;
    if (waitpid(pid, &status, WNOHANG) == pid) {
      char *err = slurp(errfile);
      cr_assert_fail("the sweep ended (status %d) before %d points were done:\n%s", status, n, err);
    }
    usleep(100000);
  }
  cr_assert_geq(count_dir(path), n, "no %d points after 120 s", n);
}

/* Processes whose command line or environment mentions S, our sweep's folder: the sweep and
 * its supervisors (argv), `icsim run` (its --stats path), smpirun and the simulation (ICSIM_STATS). */
static int processes_mentioning(const char *s)
{
  DIR *d = opendir("/proc");
  struct dirent *de;
  int n = 0;
  static const char *const files[] = {"cmdline", "environ"};
  while (d && (de = readdir(d))) {
    if (de->d_name[0] < '0' || de->d_name[0] > '9')
      continue;
    int hit = 0;
    for (int f = 0; f < 2 && !hit; f++) {
      char path[300], buf[65536];
      snprintf(path, sizeof path, "/proc/%s/%s", de->d_name, files[f]);
      int fd = open(path, O_RDONLY);
      ssize_t len = fd >= 0 ? read(fd, buf, sizeof buf - 1) : 0;
      if (fd >= 0)
        close(fd);
      for (ssize_t i = 0; i < len; i++)
        buf[i] = buf[i] ? buf[i] : ' ';
      buf[len > 0 ? len : 0] = '\0';
      hit = strstr(buf, s) != NULL;
    }
    n += hit;
  }
  if (d)
    closedir(d);
  return n;
}

static ino_t inode_of(const char *dir, const char *name)
{
  char path[800];
  struct stat sb;
  snprintf(path, sizeof path, "%s/points/%s", dir, name);
  return stat(path, &sb) == 0 ? sb.st_ino : 0;
}

Test(sweep_run, killed_at_any_moment_and_resumed, .timeout = 600)
{
  char *dir = tmpdir(), out[600], errfile[600], *text, cmd[1024];
  snprintf(out, sizeof out, "%s/o", dir);
  snprintf(errfile, sizeof errfile, "%s/err", dir);
  snprintf(scratch, sizeof scratch, "%s/scratch", dir);
  cr_assert_eq(mkdir(scratch, 0755), 0);
  /* Ctrl-C after the first point: exit 130, the point in flight removed, nothing running */
  pid_t pid = start_sweep(out, errfile);
  wait_points(out, 1, pid, errfile);
  kill(pid, SIGINT);
  int status;
  waitpid(pid, &status, 0);
  cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 130, "status %d", status);
  text = slurp(errfile);
  cr_assert(strstr(text, "interrupted;"), "%s", text);
  free(text);
  snprintf(cmd, sizeof cmd, "%s/tmp", out);
  cr_assert_eq(count_dir(cmd), 0, "an unfinished point was left in %s", cmd);
  for (int i = 0; i < 50 && processes_mentioning(out) > 0; i++) /* killed, maybe not yet reaped */
    usleep(100000);
  cr_assert_eq(processes_mentioning(out), 0, "a point kept running after its sweep was interrupted");
  cr_assert_eq(count_dir(scratch), 0, "the interrupted point's icsim run left its temporary folder in %s", scratch);
  /* SIGKILL while a point runs: its supervisor takes the simulation down */
  pid = start_sweep(out, errfile);
  snprintf(cmd, sizeof cmd, "%s/points", out);
  int before = count_dir(cmd);
  wait_points(out, before + 1, pid, errfile);
  char tmp[700];
  snprintf(tmp, sizeof tmp, "%s/tmp", out);
  for (int i = 0; i < 1200 && count_dir(tmp) < 1; i++) /* the next point has just started */
    usleep(10000);
  cr_assert_eq(count_dir(tmp), 1);
  kill(pid, SIGKILL);
  waitpid(pid, &status, 0);
  for (int i = 0; i < 50 && processes_mentioning(out) > 0; i++)
    usleep(100000);
  cr_assert_eq(processes_mentioning(out), 0, "a point kept running after its sweep was killed");
  cr_assert_eq(count_dir(scratch), 0, "the killed sweep's point left its temporary folder in %s", scratch);
  /* and it was stopped, not left to finish: its output has no result row (a point takes about a
   * second: 40,000 iterations; with 4,000 it took 0.15 s, and on a loaded machine the kill once
   * landed after the point's end; it was killed as it started) */
  snprintf(cmd, sizeof cmd, "cat %s/*/out.txt", tmp);
  run(cmd, &text, 0);
  for (char *l = text; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : l + strlen(l))
    cr_assert(*l == '#' || *l == '\n' || !*l, "the point in flight ran to its end after its sweep was killed:\n%s", text);
  free(text);
  snprintf(cmd, sizeof cmd, "%s/points", out);
  /* what is finished stays, as it is */
  char names[6][32];
  ino_t inodes[6];
  int done = 0;
  DIR *d = opendir(cmd);
  struct dirent *de;
  while (d && (de = readdir(d)))
    if (de->d_name[0] != '.' && done < 6) {
      snprintf(names[done], sizeof names[done], "%s", de->d_name);
      inodes[done] = inode_of(out, de->d_name);
      done++;
    }
  closedir(d);
  cr_assert(done >= 2 && done < 6, "%d points done when killed", done);
  /* the next start runs only the others */
  snprintf(cmd, sizeof cmd, ICSIM " sweep " SWEEPS "slow.yaml --out %s -j 1", out);
  char *log;
  cr_assert_eq(run(cmd, &log, 1), 0, "%s", log);
  char want[128];
  snprintf(want, sizeof want, "%d of 6 points done already, running the other %d", done, 6 - done);
  cr_assert(strstr(log, want), "expected '%s' in:\n%s", want, log);
  free(log);
  for (int k = 0; k < done; k++)
    cr_assert_eq(inode_of(out, names[k]), inodes[k], "point %s was run again", names[k]);
  snprintf(cmd, sizeof cmd, "%s/tmp", out);
  cr_assert_eq(count_dir(cmd), 0);
  /* and nothing is lost: every row, each at its closed form */
  snprintf(cmd, sizeof cmd, "%s/results.csv", out);
  text = slurp(cmd);
  int rows = 0;
  for (char *l = strchr(text, '\n') + 1; *l; l = strchr(l, '\n') + 1, rows++) {
    double size, lat;
    cr_assert_eq(sscanf(l, "%lf,%lf", &size, &lat), 2, "%s", l);
    cr_assert(fabs(lat - pingpong_us(size, 100e6, 2)) <= 0.006, "%s", l);
  }
  cr_assert_eq(rows, 6, "%s", text);
  free(text);
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  run(cmd, &text, 0);
  free(text);
  free(dir);
}
