/* icsim calibrate-host --memory: this machine's memory hierarchy, measured, for a host platform
 * (platforms/host-*.yaml) whose compute model is checked against native runs (validate/host).
 *
 * Two measures, each at working sets from inside the first-level cache to far beyond the last:
 *   - copy bandwidth, STREAM's "copy" kernel (b[i] = a[i] on doubles; counted as STREAM counts
 *     it: 16 bytes per element, read + write, the write-allocate read not counted), on one core
 *     and on every core at once (threads, each its own arrays): one core's rate and the socket's;
 *   - load-to-use latency, a chase through a random cyclic permutation of cache-line-sized
 *     cells (each load's address is the previous load's value: no overlap, no prefetch);
 *   - random updates, counters[random index]++ as in a histogram (independent accesses: the core
 *     overlaps their misses); latency / time per update is the core's memory parallelism.
 * Best of several repetitions (other work on a shared machine only slows a run down), each timed
 * with the measuring thread's CPU clock, as the check times the native kernels: on a shared
 * machine a thread waiting for a core would otherwise count its wait (at load 7 on the 2-core
 * development VM, 2026-11-27, wall time gave one core 45 GB/s through 512 KiB and 9 GB/s from
 * memory). The all-cores copy divides by the slowest thread's CPU time, so when the threads did
 * not run at once it reads up to threads x one core's rate: read it at a quiet moment. The
 * results are printed as platform lines with origin `measured`, the date and the command. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

#define LINE 64
#define REPEATS 3
#define MAX_THREADS 64

/* CPU time of the calling thread: what the copy, chase and update take when they run */
static double cpu_now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- copy bandwidth ---- */

struct copier {
  size_t n;  /* doubles per array */
  double *a, *b;
  long passes;
  pthread_barrier_t *start;
  double seconds, wall; /* the thread's CPU time and the wall time it spanned */
};

static void *copy_run(void *arg)
{
  struct copier *c = arg;
  pthread_barrier_wait(c->start);
  double t0 = cpu_now(), w0 = now();
  for (long p = 0; p < c->passes; p++) {
    memcpy(c->b, c->a, c->n * sizeof(double)); /* the library's copy: what a compiled loop reaches */
    __asm__ volatile("" ::"r"(c->b) : "memory");
  }
  c->seconds = cpu_now() - t0;
  c->wall = now() - w0;
  return NULL;
}

/* Aggregate copy bandwidth (B/s) of THREADS threads, each copying its own BYTES-sized array. */
static double copy_bandwidth(size_t bytes, int threads, bool *all_at_once)
{
  struct copier c[MAX_THREADS];
  pthread_t tid[MAX_THREADS];
  pthread_barrier_t start;
  size_t n = bytes / sizeof(double);
  /* about 0.1 s of copying per repetition, at least one pass */
  long passes = (long)(2e9 / (double)bytes);
  if (passes < 1)
    passes = 1;
  double best = 0;
  for (int t = 0; t < threads; t++) {
    c[t].n = n;
    c[t].a = aligned_alloc(LINE, n * sizeof(double));
    c[t].b = aligned_alloc(LINE, n * sizeof(double));
    if (!c[t].a || !c[t].b) {
      fprintf(stderr, "icsim calibrate-host: cannot allocate 2 x %zu bytes\n", bytes);
      exit(1);
    }
    for (size_t i = 0; i < n; i++)
      c[t].a[i] = (double)i, c[t].b[i] = 0;
    c[t].passes = passes;
  }
  /* One thread: its CPU time. Several: the socket's rate needs them copying at once, so a
   * repetition counts only when every thread ran for at least 90% of the wall time it spanned,
   * and is timed by the wall clock; up to 10 tries for REPEATS such repetitions. If none ran at
   * once (a loaded machine), the CPU-time rate is kept and *all_at_once says so. */
  int counted = 0;
  double best_cpu = 0;
  for (int r = 0; r < 10 && counted < (threads > 1 ? REPEATS : 1); r++) {
    pthread_barrier_init(&start, NULL, (unsigned)threads);
    for (int t = 0; t < threads; t++) {
      c[t].start = &start;
      pthread_create(&tid[t], NULL, copy_run, &c[t]);
    }
    double slowest = 0, longest = 0;
    bool together = true;
    for (int t = 0; t < threads; t++) {
      pthread_join(tid[t], NULL);
      slowest = c[t].seconds > slowest ? c[t].seconds : slowest;
      longest = c[t].wall > longest ? c[t].wall : longest;
      together = together && c[t].seconds >= 0.9 * c[t].wall;
    }
    pthread_barrier_destroy(&start);
    double bytes_moved = 16.0 * (double)n * (double)passes * threads;
    best_cpu = bytes_moved / slowest > best_cpu ? bytes_moved / slowest : best_cpu;
    if (threads == 1) { /* REPEATS repetitions, the best */
      best = best_cpu;
      counted = r + 1 >= REPEATS;
      continue;
    }
    if (together) {
      counted++;
      best = bytes_moved / longest > best ? bytes_moved / longest : best;
    }
  }
  if (all_at_once)
    *all_at_once = threads == 1 || counted > 0;
  if (best == 0)
    best = best_cpu;
  for (int t = 0; t < threads; t++)
    free(c[t].a), free(c[t].b);
  return best;
}

/* ---- latency ---- */

/* Seconds per dependent load through BYTES of memory, one load per cache line, in random order. */
static long chase_loads = 2000000; /* per repetition; --chase takes fewer */

static double chase_latency(size_t bytes)
{
  size_t cells = bytes / LINE;
  char *mem = aligned_alloc(LINE, cells * LINE);
  size_t *order = malloc(cells * sizeof *order);
  if (!mem || !order) {
    fprintf(stderr, "icsim calibrate-host: cannot allocate %zu bytes\n", bytes);
    exit(1);
  }
  for (size_t i = 0; i < cells; i++)
    order[i] = i;
  uint64_t s = 88172645463325252ULL; /* xorshift: a fixed permutation, the same every run */
  for (size_t i = cells - 1; i > 0; i--) {
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    size_t j = (size_t)(s % (i + 1)), t = order[i];
    order[i] = order[j], order[j] = t;
  }
  for (size_t i = 0; i < cells; i++)
    *(char **)(mem + order[i] * LINE) = mem + order[(i + 1) % cells] * LINE;
  free(order);
  long loads = chase_loads;
  double best = 1;
  for (int r = 0; r < REPEATS; r++) {
    char *p = mem;
    for (size_t i = 0; i < cells; i++) /* warm: the working set in whatever level holds it */
      p = *(char **)p;
    double t0 = cpu_now();
    for (long i = 0; i < loads; i++)
      p = *(char **)p;
    double t = (cpu_now() - t0) / (double)loads;
    __asm__ volatile("" ::"r"(p));
    best = t < best ? t : best;
  }
  free(mem);
  return best;
}

/* Seconds per independent random increment of one of BYTES / 4 counters. */
static double random_update(size_t bytes)
{
  size_t n = bytes / sizeof(uint32_t);
  uint32_t *count = aligned_alloc(LINE, n * sizeof *count);
  if (!count) {
    fprintf(stderr, "icsim calibrate-host: cannot allocate %zu bytes\n", bytes);
    exit(1);
  }
  memset(count, 0, n * sizeof *count);
  long updates = 4000000;
  double best = 1;
  for (int r = 0; r < REPEATS; r++) {
    uint64_t s = 88172645463325252ULL + (uint64_t)r;
    double t0 = cpu_now();
    for (long i = 0; i < updates; i++) {
      s ^= s << 13, s ^= s >> 7, s ^= s << 17;
      count[s % n]++;
    }
    double t = (cpu_now() - t0) / (double)updates;
    best = t < best ? t : best;
  }
  __asm__ volatile("" ::"r"(count) : "memory");
  free(count);
  return best;
}

int calibrate_memory(FILE *out)
{
  long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
  int threads = ncpu < 1 ? 1 : ncpu > MAX_THREADS ? MAX_THREADS : (int)ncpu;
  time_t t = time(NULL);
  char when[32];
  strftime(when, sizeof when, "%Y-%m-%d", gmtime(&t));
  double loadavg[1] = {0};
  getloadavg(loadavg, 1);
  fprintf(out, "# icsim calibrate-host --memory, %s, %ld cores online, load average %.2f at start\n", when, ncpu,
          loadavg[0]);
  fprintf(out, "# working set  copy 1 core   copy %d cores (* CPU-time rate, never at once)   latency (one dependent load per line)   random update\n",
          threads);
  static const size_t sizes[] = {16u << 10, 32u << 10, 256u << 10, 512u << 10, 4u << 20, 8u << 20, 16u << 20,
                                 64u << 20, 256u << 20};
  double bw1[9], bwn[9], lat[9], upd[9];
  bool together[9];
  for (int i = 0; i < 9; i++) {
    /* copy: two arrays of half the working set each */
    bw1[i] = copy_bandwidth(sizes[i] / 2, 1, NULL);
    bwn[i] = copy_bandwidth(sizes[i] / 2, threads, &together[i]);
    lat[i] = chase_latency(sizes[i]);
    upd[i] = random_update(sizes[i]);
    fprintf(out, "# %8zu KiB  %8.1f GB/s  %8.1f GB/s%s  %8.1f ns  %8.2f ns\n", sizes[i] >> 10, bw1[i] / 1e9,
            bwn[i] / 1e9, together[i] ? " " : "*", lat[i] * 1e9, upd[i] * 1e9);
    fflush(out);
  }
  const char *ref = "icsim calibrate-host --memory";
  if (threads > 1 && !together[8])
    fprintf(stderr, "icsim calibrate-host --memory: the %d copying threads never ran at once through 256 MiB (a loaded "
                    "machine): memory-bandwidth is their CPU-time rate, up to %d x one core's; measure again when "
                    "the machine is quieter\n",
            threads, threads);
  fprintf(out, "memory-bandwidth: {value: %.1fGBps, origin: measured, ref: \"%s, %s: %d cores copying 2 x 128 MiB "
               "each (STREAM copy)%s\"}\n",
          bwn[8] / 1e9, when, ref, threads,
          threads > 1 && !together[8] ? ", the threads never at once: their CPU-time rate, an upper bound" : "");
  fprintf(out, "core-memory-bandwidth: {value: %.1fGBps, origin: measured, ref: \"%s, %s: one core copying 2 x 128 "
               "MiB (STREAM copy)\"}\n",
          bw1[8] / 1e9, when, ref);
  fprintf(out, "memory-latency: {value: %.0fns, origin: measured, ref: \"%s, %s: dependent loads through 256 MiB\"}\n",
          lat[8] * 1e9, when, ref);
  fprintf(out, "memory-parallelism: {value: %.1f, origin: measured, ref: \"%s, %s: latency %.0f ns / %.2f ns per "
               "independent random update through 256 MiB\"}\n",
          lat[8] / upd[8], when, ref, lat[8] * 1e9, upd[8] * 1e9);
  return 0;
}

/* ---- placement: how far apart two cores are ----
 *
 * A cloud VM's vCPUs are threads the hypervisor places on its host's cores, and it moves them: the
 * development VM's two vCPUs sit on one CCD (sharing its L3) for a while, then on two. The round
 * trip of one cache line between the two cores tells which: about 80-140 ns within a CCD, 400 ns
 * and more between CCDs (2026-11-26, 400 samples a minute apart). It decides where a line one core
 * wrote and the other read is found (validate/host/README.md: IS W on 2 processes, whose receiver
 * reads the sender's keys in place through CMA). */
static _Atomic long pingpong_flag __attribute__((aligned(64)));
#define PINGPONG_ROUNDS 100000

static void pin_to(int cpu)
{
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

static void *pong(void *arg)
{
  pin_to(*(const int *)arg);
  for (long i = 0; i < PINGPONG_ROUNDS; i++) {
    while (atomic_load_explicit(&pingpong_flag, memory_order_acquire) != 2 * i + 1)
      ;
    atomic_store_explicit(&pingpong_flag, 2 * i + 2, memory_order_release);
  }
  return NULL;
}

/* Seconds per round trip of a cache line between cores A and B (best of 3), or -1. */
static double round_trip(int a, int b)
{
  double best = -1;
  for (int r = 0; r < 3; r++) {
    pthread_t t;
    atomic_store(&pingpong_flag, 0);
    if (pthread_create(&t, NULL, pong, &b) != 0)
      return -1;
    pin_to(a);
    double t0 = now();
    for (long i = 0; i < PINGPONG_ROUNDS; i++) {
      atomic_store_explicit(&pingpong_flag, 2 * i + 1, memory_order_release);
      while (atomic_load_explicit(&pingpong_flag, memory_order_acquire) != 2 * i + 2)
        ;
    }
    double dt = (now() - t0) / PINGPONG_ROUNDS;
    pthread_join(t, NULL);
    best = best < 0 || dt < best ? dt : best;
  }
  return best;
}

int calibrate_placement(FILE *out, int a, int b)
{
  long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
  if (a < 0 || b < 0 || a >= ncpu || b >= ncpu || a == b) {
    fprintf(stderr, "icsim calibrate-host --placement: cores %d and %d: give two different cores of 0..%ld\n", a, b,
            ncpu - 1);
    return 2;
  }
  double rt = round_trip(a, b);
  if (rt < 0) {
    fprintf(stderr, "icsim calibrate-host --placement: cannot start a thread\n");
    return 1;
  }
  fprintf(out, "%.1f\n", rt * 1e9);
  return 0;
}

/* Load-to-use latency through BYTES now (one dependent load per line, best of 3), in ns. */
int calibrate_chase(FILE *out, size_t bytes)
{
  if (bytes < 4096 || bytes > ((size_t)1 << 34)) {
    fprintf(stderr, "icsim calibrate-host --chase: a working set of 4 KiB to 16 GiB, in bytes\n");
    return 2;
  }
  chase_loads = 200000; /* 3-30 ms a repetition: a probe beside other runs */
  fprintf(out, "%.1f\n", chase_latency(bytes) * 1e9);
  return 0;
}
