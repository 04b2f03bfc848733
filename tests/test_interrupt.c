/* Interrupting `icsim run` and `icsim validate` at any moment (SIGINT or SIGTERM after a delay
 * drawn from a fixed seed, from the first millisecond to past the end of the run) leaves no
 * temporary file, no half-written output and no process behind, and the command dies of the
 * signal it got (or, when the signal came too late, has finished normally). */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "shell.h"

#define ICSIM ICSIM_BUILD "/bin/icsim"

static int entries(const char *dir, char *first, size_t len)
{
  DIR *d = opendir(dir);
  int n = 0;
  struct dirent *de;
  while (d && (de = readdir(d)))
    if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
      if (n++ == 0 && first)
        snprintf(first, len, "%s", de->d_name);
    }
  if (d)
    closedir(d);
  return n;
}

static void sleep_ms(long ms)
{
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) && errno == EINTR)
    ;
}

/* Start ARGV in its own process group with TMPDIR, output discarded, default signal handling
 * (a background shell job would otherwise inherit SIGINT ignored). ERR_FD >= 0: stderr goes there. */
static pid_t start_err(char *const argv[], const char *tmpdir, int err_fd)
{
  fflush(stdout); /* or the child's freopen writes our buffered lines a second time */
  pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    setenv("TMPDIR", tmpdir, 1);
    freopen("/dev/null", "w", stdout);
    if (err_fd >= 0)
      dup2(err_fd, 2);
    else
      freopen("/dev/null", "w", stderr);
    execv(argv[0], argv);
    _exit(127);
  }
  setpgid(pid, pid);
  return pid;
}

static pid_t start(char *const argv[], const char *tmpdir) { return start_err(argv, tmpdir, -1); }

/* Send SIG after DELAY_MS, reap, and wait (bounded) until no process of its group is left. */
static int interrupt(pid_t pid, int sig, long delay_ms)
{
  sleep_ms(delay_ms);
  kill(pid, sig);
  int status;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
    ;
  for (int i = 0; i < 500 && !(kill(-pid, 0) < 0 && errno == ESRCH); i++)
    sleep_ms(20);
  cr_assert(kill(-pid, 0) < 0 && errno == ESRCH, "processes of the interrupted command are still running");
  return status;
}

/* Deterministic delays: a few at the very start (folder creation, fork), the rest spread by a
 * fixed linear congruential sequence over 0..SPAN_MS. */
static long delay_for(int trial, unsigned *seed, long span_ms)
{
  static const long early[] = {0, 2, 10};
  if (trial < (int)(sizeof early / sizeof early[0]))
    return early[trial];
  *seed = *seed * 1103515245u + 12345u;
  return (long)((*seed >> 8) % (unsigned)span_ms);
}

static void check_status(int status, int sig, long delay)
{
  cr_assert((WIFSIGNALED(status) && WTERMSIG(status) == sig) || (WIFEXITED(status) && WEXITSTATUS(status) == 0),
            "signal %d after %ld ms: status %#x (neither that signal nor a normal end)", sig, delay, status);
}

static char *slurp(const char *path)
{
  char cmd[512], *out;
  snprintf(cmd, sizeof cmd, "cat %s 2>/dev/null", path);
  run(cmd, &out, 0);
  return out;
}

Test(interrupt, run_leaves_nothing_behind)
{
  char tmpdir[] = "/tmp/icsim-int-tmp-XXXXXX", outdir[] = "/tmp/icsim-int-out-XXXXXX", stats[128], name[256];
  cr_assert(mkdtemp(tmpdir) && mkdtemp(outdir));
  snprintf(stats, sizeof stats, "%s/run.json", outdir);
  char *argv[] = {ICSIM, "run", "-p", ICSIM_SRC "/platforms/score-gige-xeon.yaml", "-n", "2", "--host-timing", "off",
                  "--stats", stats, ICSIM_BUILD "/workloads/osu_latency", "-m", "1:65536", "-i", "200", "-x", "1",
                  NULL};
  unsigned seed = 20240518;
  for (int trial = 0; trial < 10; trial++) {
    FILE *f = fopen(stats, "w");
    fputs("old\n", f);
    fclose(f);
    int sig = trial % 2 ? SIGTERM : SIGINT;
    long delay = delay_for(trial, &seed, 1500);
    int status = interrupt(start(argv, tmpdir), sig, delay);
    printf("run: signal %d after %4ld ms -> %s\n", sig, delay, WIFSIGNALED(status) ? "interrupted" : "finished");
    check_status(status, sig, delay);
    cr_assert_eq(entries(tmpdir, name, sizeof name), 0, "after %ld ms: %s left in TMPDIR", delay, name);
    cr_assert_eq(entries(outdir, name, sizeof name), 1, "after %ld ms: more than run.json in its folder", delay);
    char *text = slurp(stats);
    int whole = !strncmp(text, "{\n", 2) && strlen(text) > 2 && !strcmp(text + strlen(text) - 2, "}\n");
    cr_assert(!strcmp(text, "old\n") || whole, "after %ld ms --stats holds:\n%s", delay, text);
    if (WIFEXITED(status))
      cr_assert(whole, "a finished run left --stats as:\n%s", text);
    free(text);
  }
  char cmd[256];
  snprintf(cmd, sizeof cmd, "rm -rf %s %s", tmpdir, outdir);
  cr_assert_eq(system(cmd), 0);
}

Test(interrupt, validate_leaves_the_previous_outputs_whole)
{
  char tmpdir[] = "/tmp/icsim-int-tmp-XXXXXX", base[] = "/tmp/icsim-int-val-XXXXXX", out[128], name[256];
  cr_assert(mkdtemp(tmpdir) && mkdtemp(base));
  snprintf(out, sizeof out, "%s/out", base);
  char *argv[] = {ICSIM, "validate", "sumimoto-rtt", "--out", out, NULL};
  /* the outputs of one full run: every interrupted run must leave exactly these */
  int status = interrupt(start(argv, tmpdir), 0, 0); /* signal 0: just wait for it */
  cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  char path[256];
  snprintf(path, sizeof path, "%s/summary.csv", out);
  char *reference = slurp(path);
  cr_assert(strstr(reference, "sumimoto-rtt,rtt_us,0,43.328,"), "%s", reference);
  int files = entries(out, NULL, 0);
  unsigned seed = 77;
  for (int trial = 0; trial < 8; trial++) {
    int sig = trial % 2 ? SIGINT : SIGTERM;
    long delay = delay_for(trial, &seed, 650);
    status = interrupt(start(argv, tmpdir), sig, delay);
    printf("validate: signal %d after %4ld ms -> %s\n", sig, delay, WIFSIGNALED(status) ? "interrupted" : "finished");
    check_status(status, sig, delay);
    cr_assert_eq(entries(tmpdir, name, sizeof name), 0, "after %ld ms: %s left in TMPDIR", delay, name);
    cr_assert_eq(entries(base, name, sizeof name), 1, "after %ld ms: %s beside the output folder", delay, name);
    cr_assert_eq(entries(out, NULL, 0), files, "after %ld ms: the output folder changed", delay);
    char *now = slurp(path);
    cr_assert_str_eq(now, reference, "after %ld ms", delay);
    free(now);
  }
  free(reference);
  char cmd[256];
  snprintf(cmd, sizeof cmd, "rm -rf %s %s", tmpdir, base);
  cr_assert_eq(system(cmd), 0);
}

/* Interrupted, the run says so, never as a rank calling exit() (SimGrid's handler exits in
 * whatever rank is running). TARGET: 0 `icsim run` alone, 1 its whole process group (a Ctrl-C),
 * 2 the simulation alone (it then says at which simulated time). */
static char *interrupted_stderr(int target)
{
  char tmpdir[] = "/tmp/icsim-int-tmp-XXXXXX", errpath[] = "/tmp/icsim-int-err-XXXXXX";
  cr_assert(mkdtemp(tmpdir));
  int efd = mkstemp(errpath);
  cr_assert(efd >= 0);
  /* long enough to be running its ranks when the signal comes (about 10 s uninterrupted) */
  char *argv[] = {ICSIM, "run", "-p", ICSIM_SRC "/platforms/score-gige-xeon.yaml", "-n", "2", "--host-timing", "off",
                  ICSIM_BUILD "/workloads/osu_latency", "-m", "1:4194304", "-i", "20000", "-x", "1", NULL};
  pid_t pid = start_err(argv, tmpdir, efd);
  sleep_ms(1500);
  if (target == 2) {
    char cmd[96];
    snprintf(cmd, sizeof cmd, "pkill -INT -g %d smpimain", (int)pid);
    cr_assert_eq(system(cmd), 0, "no simulation running after 1.5 s");
  } else {
    kill(target ? -pid : pid, SIGINT);
  }
  int status = interrupt(pid, 0, 0); /* signal 0: reap it, and check nothing of it is left */
  cr_assert(WIFSIGNALED(status) || (WIFEXITED(status) && WEXITSTATUS(status) != 0),
            "an interrupted run must not end with status 0 (status %#x)", status);
  close(efd);
  char *text = slurp(errpath);
  unlink(errpath);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
  cr_assert_eq(system(cmd), 0);
  return text;
}

Test(interrupt, an_interrupted_run_says_so)
{
  for (int target = 0; target < 3; target++) {
    char *text = interrupted_stderr(target);
    const char *want = target == 2 ? "icsim: interrupted (SIGINT) at simulated time" : "icsim: interrupted (SIGINT)";
    cr_assert(strstr(text, want), "SIGINT to %s, stderr:\n%s", target == 2 ? "the simulation" : target ? "the group" : "icsim run", text);
    cr_assert(!strstr(text, "ended the whole program"), "an interrupt reported as a rank's exit:\n%s", text);
    free(text);
  }
}
