/* icsim calibrate-host: how fast this machine runs scalar code, so that an external program's
 * own computation, timed by SMPI on this machine (--host-timing on), is charged at the simulated
 * CPU's speed instead of this machine's.
 *
 * The measure is a chain of dependent integer additions: every x86-64 core retires one per clock
 * cycle, whatever its vector width, so the rate is this core's clock in scalar operations per
 * second, comparable with a platform's nodes/clock. SMPI charges measured seconds t as
 * t x smpi/host-speed flops at the simulated host's nodes/speed; icsim sets smpi/host-speed =
 * H x speed / clock, so t becomes t x H / clock: a chain of N dependent additions takes N / clock
 * simulated seconds (the ratio of clocks; whatever else this core overlaps is in t already).
 *
 * The result is stored (build/host-speed.txt: one number and how it was measured) and reused by
 * every run; `icsim calibrate-host` measures again. It counts the thread's CPU time, as SMPI's
 * own timer does, so other work on the machine does not count; best of several runs. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <math.h>
#include <stdio.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "outfile.h"
#include "cli.h"

#define CHAIN 200000000L /* additions per run: about 0.1 s at 2 GHz */
#define RUNS 7

static double seconds(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts); /* CPU time: load on the machine does not count */
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Seconds of N dependent additions (N a multiple of 8): one register added to 8 times a turn, the
 * turn counted in another, the whole loop in assembly. Written as a C loop around one `add`, gcc
 * -O2 (Debian 12) copied the sum through a second register each turn (mov, add, mov): on the Zen 4
 * VM that chain took 2 clocks a turn, and the rate read 1.83 GHz where the core ran 3.6. */
static double add_chain_seconds(long n)
{
  unsigned long x = 1;
  long turns = n / 8;
  double t0 = seconds();
  __asm__ volatile("1:\n\t"
                   "add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\t"
                   "add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\t"
                   "sub $1, %1\n\tjnz 1b"
                   : "+r"(x), "+r"(turns)
                   :
                   : "cc");
  double t = seconds() - t0;
  if (x == 0)
    fprintf(stderr, "unreachable\n");
  return t;
}

/* One dependent chain: additions per second, one per clock. */
static double chain_rate(void)
{
  double t = add_chain_seconds(CHAIN);
  return t > 0 ? (double)CHAIN / t : 0;
}

static void store_path(char *buf, size_t len) { snprintf(buf, len, "%s/../host-speed.txt", ICSIM_BINDIR); }

static double best_rate(int runs)
{
  double best = 0;
  for (int r = 0; r < runs; r++) {
    double v = chain_rate();
    if (v > best)
      best = v;
  }
  return best;
}

static double measure_and_store(FILE *say)
{
  double best = best_rate(RUNS);
  char path[4096], text[512];
  store_path(path, sizeof path);
  time_t now = time(NULL);
  char when[64], err[4400];
  strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", gmtime(&now));
  snprintf(text, sizeof text, "%.6e\n# scalar operations per second of this machine (one dependent addition per clock), "
                            "best of %d runs of %ld, measured %s by `icsim calibrate-host`\n",
           best, RUNS, CHAIN, when);
  /* whole or not at all, an interruption leaving no temporary (outfile.c) */
  if (icsim_output_write("calibrate-host", path, text, strlen(text), err, sizeof err) != 0) {
    fprintf(stderr, "icsim: cannot store the host calibration: %s\n", err);
  } else if (say) {
    fprintf(say, "icsim: this machine runs %.3g scalar operations per second (%.2f GHz equivalent); stored in %s\n",
            best, best / 1e9, path);
  }
  return best;
}

double icsim_host_ops_per_s(void)
{
  const char *env = getenv("ICSIM_HOST_OPS");
  if (env && atof(env) > 0)
    return atof(env); /* fixed by the caller (tests, reproducible studies) */
  char path[4096];
  store_path(path, sizeof path);
  /* the stored calibration: a regular file only (a FIFO there would block every run with host
   * timing); anything else is ignored and measured again, and the store refuses to replace it */
  struct stat sb;
  FILE *f = stat(path, &sb) == 0 && S_ISREG(sb.st_mode) ? fopen(path, "r") : NULL;
  double v = 0;
  if (f) {
    if (fscanf(f, "%lf", &v) != 1)
      v = 0;
    fclose(f);
  }
  if (v > 0)
    return v;
  fprintf(stderr, "icsim: no host calibration yet: measuring this machine's speed once (under a second)\n");
  return measure_and_store(stderr);
}

/* --clock-trace: samples this core's rate every 5 ms (a 200,000-addition chain, 60 to 100 us, about
 * 1% of the core; shorter chains read low, by 5 to 9% at 50,000, from the switch into the probe) until SIGTERM or SIGINT, then prints the mean: the clock a program sharing this
 * core saw meanwhile, frequency changes and time the hypervisor took included (both stretch the
 * program's thread CPU time alike). */
static volatile sig_atomic_t trace_stop;
static void on_trace_signal(int sig)
{
  (void)sig;
  trace_stop = 1;
}

static int clock_trace(void)
{
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_trace_signal; /* no SA_RESTART: the signal ends the sleep at once */
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGINT, &sa, NULL);
  double sum = 0;
  long n = 0;
  while (!trace_stop) {
    double t = add_chain_seconds(200000);
    if (t > 0) {
      sum += 200000.0 / t;
      n++;
    }
    struct timespec ts = {0, 5000000L};
    nanosleep(&ts, NULL);
  }
  printf("%.6e %ld\n", n ? sum / (double)n : 0.0, n);
  return n ? 0 : 1;
}

int cmd_calibrate_host(int argc, char **argv)
{
  if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
    printf("usage: icsim calibrate-host [--memory | --clock | --clock-trace | --placement [A B] | --chase BYTES]\n"
           "Measures how many scalar operations per second this machine runs (a chain of dependent\n"
           "additions, one per clock) and stores it; `icsim run --host-timing on` uses it to charge a\n"
           "program's own computation at the simulated CPU's clock. Run it again after moving the build.\n"
           "--memory measures this machine's copy bandwidth (one core, all cores) and load latency at\n"
           "working sets from the first-level cache to memory, and prints them as platform lines\n"
           "(nodes/memory-bandwidth etc., origin measured) for a host platform (platforms/host-*.yaml).\n"
           "--clock prints the rate now (Hz, best of 3 short runs) and stores nothing: a cloud VM's\n"
           "clock follows its host's load (2.5 to 3.5 GHz seen on the development VM within a day), so\n"
           "validate/host/host-npb-compute measures it beside every native run.\n"
           "--clock-trace samples the rate every 5 ms until SIGTERM or SIGINT, then prints the mean\n"
           "and the number of samples (run it pinned beside a program: taskset -c CORE).\n"
           "--placement [A B] prints the round trip of a cache line between cores A and B (0 and 1 by\n"
           "default), in ns: a VM's two vCPUs on one CCD of their host (sharing its L3) take about\n"
           "100 ns, on two CCDs 400 ns and more, and the hypervisor moves them.\n"
           "--chase BYTES prints the load-to-use latency through BYTES now, in ns (a short probe: how\n"
           "much of the shared last-level cache this core reaches at the moment).\n");
    return 0;
  }
  if (argc == 2 && !strcmp(argv[1], "--memory"))
    return calibrate_memory(stdout);
  if (argc == 2 && !strcmp(argv[1], "--clock")) {
    double hz = best_rate(3);
    printf("%.6e\n", hz);
    return hz > 0 ? 0 : 1;
  }
  if (argc == 2 && !strcmp(argv[1], "--clock-trace"))
    return clock_trace();
  if ((argc == 2 || argc == 4) && !strcmp(argv[1], "--placement")) {
    /* core numbers of this machine: the pinning would fail (or pin elsewhere) beyond them */
    long ncores = sysconf(_SC_NPROCESSORS_CONF);
    struct icsim_cli_num d = {"--placement", ICSIM_DIM_NONE, 0, ncores > 0 ? ncores - 1 : 0, true, "0 1",
                              "the cores of this machine", false};
    double a = 0, b = 1;
    char err[1024];
    if (argc == 4 && (icsim_cli_number(&d, argv[2], &a, err, sizeof err) ||
                      icsim_cli_number(&d, argv[3], &b, err, sizeof err))) {
      fprintf(stderr, "icsim calibrate-host: %s\n", err);
      return 2;
    }
    if (argc == 2 && ncores < 2) {
      fprintf(stderr, "icsim calibrate-host --placement: this machine has one core; there is no pair to measure\n");
      return 2;
    }
    return calibrate_placement(stdout, (int)a, (int)b);
  }
  if (argc == 3 && !strcmp(argv[1], "--chase")) {
    /* the chase allocates BYTES: at most half of this machine's memory */
    double mem = icsim_physical_memory(), n;
    struct icsim_cli_num d = {"--chase", ICSIM_DIM_SIZE, 4096, mem > 0 ? floor(mem / 2) : 1 << 30, true, "32MiB",
                              "a working set that fits in half of this machine's memory", true};
    char err[1024];
    if (icsim_cli_number(&d, argv[2], &n, err, sizeof err)) {
      fprintf(stderr, "icsim calibrate-host: %s\n", err);
      return 2;
    }
    return calibrate_chase(stdout, (size_t)n);
  }
  if (argc > 1) {
    fprintf(stderr, "icsim calibrate-host: takes no arguments but --memory, --clock, --clock-trace, --placement [A B] "
                    "or --chase BYTES (see --help)\n");
    return 2;
  }
  return measure_and_store(stdout) > 0 ? 0 : 1;
}
