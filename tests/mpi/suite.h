/* Shared helpers of the MPI regression programs (tests/mpi/README.md).
 *
 * Every program checks its own results: CHECK() records a failure with the rank, the current
 * step and the source line and carries on; suite_finish() adds up the failures of all ranks
 * (point-to-point only, on MPI_COMM_WORLD, so a broken collective cannot hide them), prints
 * "No Errors" or "Found N errors" once, and gives the exit status (0 or 1) every rank returns.
 * Only standard MPI-3.1: the programs run unchanged on MPICH and under icsim. */
#ifndef ICSIM_TESTS_MPI_SUITE_H
#define ICSIM_TESTS_MPI_SUITE_H
#include <mpi.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SUITE_MAX_PRINTED 30 /* per rank: the first failures say enough */
#define SUITE_TAG_TOTAL 32000 /* used only by suite_finish */

static int suite_errors, suite_rank = -1, suite_size;
static char suite_step_name[160] = "start";

/* Name the step being run, for the failure messages. */
static inline void suite_step(const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(suite_step_name, sizeof suite_step_name, fmt, ap);
  va_end(ap);
  static int trace = -1; /* SUITE_TRACE=1 in the environment: every step on stderr */
  if (trace < 0)
    trace = getenv("SUITE_TRACE") != NULL;
  if (trace)
    fprintf(stderr, "rank %d: step %s\n", suite_rank, suite_step_name);
}

static inline void suite_fail(const char *file, int line, const char *fmt, ...)
{
  if (++suite_errors > SUITE_MAX_PRINTED)
    return;
  va_list ap;
  va_start(ap, fmt);
  printf("rank %d: [%s] %s:%d: ", suite_rank, suite_step_name, file, line);
  vprintf(fmt, ap);
  printf("\n");
  fflush(stdout);
  va_end(ap);
}

#define CHECK(cond, ...)                                                                                              \
  do {                                                                                                                \
    if (!(cond))                                                                                                      \
      suite_fail(__FILE__, __LINE__, __VA_ARGS__);                                                                    \
  } while (0)

/* An MPI call that must succeed (the default error handler aborts anyway; this names it). */
#define MPI_OK(call)                                                                                                  \
  do {                                                                                                                \
    int rc_ = (call);                                                                                                 \
    if (rc_ != MPI_SUCCESS)                                                                                           \
      suite_fail(__FILE__, __LINE__, "%s returned %d", #call, rc_);                                                 \
  } while (0)

static inline void suite_init(int *argc, char ***argv)
{
  MPI_Init(argc, argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &suite_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &suite_size);
}

/* Require at least MIN ranks (all ranks see the same answer). */
static inline int suite_need(int min)
{
  if (suite_size >= min)
    return 1;
  if (suite_rank == 0)
    printf("this test needs at least %d ranks, got %d\n", min, suite_size);
  suite_errors++;
  return 0;
}

static inline int suite_finish(void)
{
  int total = suite_errors;
  if (suite_rank == 0) {
    for (int r = 1; r < suite_size; r++) {
      int e = 0;
      MPI_Recv(&e, 1, MPI_INT, r, SUITE_TAG_TOTAL, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      total += e;
    }
    for (int r = 1; r < suite_size; r++)
      MPI_Send(&total, 1, MPI_INT, r, SUITE_TAG_TOTAL, MPI_COMM_WORLD);
    if (total == 0)
      printf("No Errors\n");
    else
      printf("Found %d errors\n", total);
    fflush(stdout);
  } else {
    MPI_Send(&suite_errors, 1, MPI_INT, 0, SUITE_TAG_TOTAL, MPI_COMM_WORLD);
    MPI_Recv(&total, 1, MPI_INT, 0, SUITE_TAG_TOTAL, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  MPI_Finalize();
  return total ? 1 : 0;
}

/* Call once per iteration of a polling loop (Test, Iprobe...) with a zeroed *START: a loop
 * that has not finished after SUITE_POLL_LIMIT_S seconds of real time (time(), which SMPI
 * does not virtualise) is reported with WHAT and the job aborted, rather than spinning on. */
#define SUITE_POLL_LIMIT_S 20
static inline void suite_poll(time_t *start, const char *what)
{
  time_t now = time(NULL);
  if (!*start) {
    *start = now;
    return;
  }
  if (now - *start <= SUITE_POLL_LIMIT_S)
    return;
  suite_errors = 0; /* print this one whatever came before */
  suite_fail(__FILE__, __LINE__, "%s: still not complete after %d s of polling; aborting", what, SUITE_POLL_LIMIT_S);
  printf("Found errors (aborted)\n");
  fflush(stdout);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

/* A small deterministic generator (same sequence on every MPI): xorshift32. */
static inline uint32_t suite_rand(uint32_t *state)
{
  uint32_t x = *state ? *state : 0x9e3779b9u;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  return *state = x;
}

/* A random permutation of 0..n-1 into P. */
static inline void suite_shuffle(int *p, int n, uint32_t *state)
{
  for (int i = 0; i < n; i++)
    p[i] = i;
  for (int i = n - 1; i > 0; i--) {
    int j = (int)(suite_rand(state) % (uint32_t)(i + 1));
    int t = p[i];
    p[i] = p[j];
    p[j] = t;
  }
}

/* Byte I of a message identified by SEED. */
static inline unsigned char suite_byte(int seed, size_t i) { return (unsigned char)((size_t)seed * 131u + i * 7u + (i >> 8)); }

static inline void suite_fill(void *buf, size_t bytes, int seed)
{
  for (size_t i = 0; i < bytes; i++)
    ((unsigned char *)buf)[i] = suite_byte(seed, i);
}

/* Index of the first byte that differs from suite_fill(SEED), or -1. */
static inline long suite_verify(const void *buf, size_t bytes, int seed)
{
  for (size_t i = 0; i < bytes; i++)
    if (((const unsigned char *)buf)[i] != suite_byte(seed, i))
      return (long)i;
  return -1;
}

/* World rank of rank R of COMM. */
static inline int suite_world_rank(MPI_Comm comm, int r)
{
  MPI_Group g, wg;
  int w = MPI_UNDEFINED;
  MPI_Comm_group(comm, &g);
  MPI_Comm_group(MPI_COMM_WORLD, &wg);
  MPI_Group_translate_ranks(g, 1, &r, wg, &w);
  MPI_Group_free(&g);
  MPI_Group_free(&wg);
  return w;
}

#endif
