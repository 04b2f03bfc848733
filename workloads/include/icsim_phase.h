/* icsim_phase.h: declare a program's compute phases to icsim.
 *
 *   ICSIM_PHASE_BEGIN();
 *   ... the loop ...
 *   ICSIM_PHASE_END(ops, bytes);   // operations done, bytes moved to or from memory
 * or
 *   ICSIM_PHASE_END_ACCESS(ops, bytes, accesses, working_set);   // + random accesses, and the
 *                                  // bytes the phase touches (which cache level holds them)
 *
 * Under `icsim run` (program built with icsimcc) the phase costs what the platform's compute
 * model says (core clock x ops-per-cycle against the streaming rate of the level holding the
 * working set, plus random accesses at that level's latency; sim/runtime.h), whatever this
 * machine's load, and the real loop is not timed. Built with plain smpicc the calls do nothing
 * and SMPI times the code as usual; built with mpicc they compile away.
 *
 * Skeleton runs (scale studies): icsim_skeleton_ok() says whether the compute model is there to
 * charge phases whose loops the program skips; icsim_alloc_shared() then gives one set of pages
 * shared by all simulated ranks (SMPI shared malloc), so big arrays cost no memory. */
#ifndef ICSIM_PHASE_H
#define ICSIM_PHASE_H

#include <stddef.h>
#include <stdlib.h>

#include <mpi.h>

#if defined(SMPI_H) /* SimGrid's mpi.h: built with smpicc or icsimcc */
/* Weak: present when the icsim MPI layer is linked (icsimcc), NULL with plain smpicc. */
void icsim_phase_begin(void) __attribute__((weak));
void icsim_phase_end(double ops, double bytes) __attribute__((weak));
void icsim_phase_end_access(double ops, double bytes, double accesses, double working_set) __attribute__((weak));
double icsim_phase_seconds(void) __attribute__((weak));
int icsim_phase_modeled(void) __attribute__((weak));

#define ICSIM_PHASE_BEGIN()                                                                                           \
  do {                                                                                                                \
    if (icsim_phase_begin)                                                                                            \
      icsim_phase_begin();                                                                                            \
  } while (0)
#define ICSIM_PHASE_END(ops, bytes)                                                                                   \
  do {                                                                                                                \
    if (icsim_phase_end)                                                                                              \
      icsim_phase_end((double)(ops), (double)(bytes));                                                                \
  } while (0)
/* A phase that also makes ACCESSES random (data-dependent, scattered or cache-defeating strided)
 * accesses into WORKING_SET bytes: the platform charges them at the latency of the cache level
 * (or memory) that holds the working set, and streams BYTES at that level's bandwidth. */
#define ICSIM_PHASE_END_ACCESS(ops, bytes, accesses, working_set)                                                    \
  do {                                                                                                                \
    if (icsim_phase_end_access)                                                                                       \
      icsim_phase_end_access((double)(ops), (double)(bytes), (double)(accesses), (double)(working_set));            \
  } while (0)
/* Seconds of declared compute charged to the calling rank so far (0 outside icsim). */
static inline double icsim_compute_seconds(void) { return icsim_phase_seconds ? icsim_phase_seconds() : 0; }
/* 1 when a compute model charges the phases (the program runs under `icsim run`). */
static inline int icsim_skeleton_ok(void) { return icsim_phase_modeled ? icsim_phase_modeled() : 0; }
static inline void *icsim_alloc_shared(size_t bytes) { return SMPI_SHARED_MALLOC(bytes); }
static inline void icsim_free_shared(void *p) { SMPI_SHARED_FREE(p); }
#elif defined(ICSIM_PHASE_TIMING)
/* Native build for the compute-model check (validate/host): each phase is timed on this machine,
 * so the kernels report their measured compute beside the total time. The clock is the thread's
 * CPU time: on a shared machine the time a process spends descheduled is not compute. Each phase's
 * call site also keeps its own sum and declared work (icsim_phase_profile() prints them) to show
 * which phase the model misses. Sums are one per program (weak: every file shares them). */
#include <stdio.h>
#include <time.h>
struct icsim_phase_site {
  const char *file;
  int line;
  double calls, seconds, ops, bytes, accesses, working_set;
  int line_seen;
  struct icsim_phase_site *next;
};
double icsim_native_phase_s __attribute__((weak)) = 0;
struct icsim_phase_site *icsim_phase_sites __attribute__((weak)) = NULL;
static double icsim__phase_t0;
static inline double icsim__cpu_seconds(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
static inline void icsim__phase_end(struct icsim_phase_site *s, double ops, double bytes, double accesses, double ws)
{
  double t = icsim__cpu_seconds() - icsim__phase_t0;
  icsim_native_phase_s += t;
  if (!s->line_seen) {
    s->line_seen = 1;
    s->next = icsim_phase_sites;
    icsim_phase_sites = s;
  }
  s->calls++, s->seconds += t, s->ops += ops, s->bytes += bytes, s->accesses += accesses, s->working_set = ws;
}
#define ICSIM_PHASE_BEGIN() (icsim__phase_t0 = icsim__cpu_seconds())
#define ICSIM_PHASE_END_ACCESS(ops, bytes, accesses, working_set)                                                    \
  do {                                                                                                                \
    static struct icsim_phase_site icsim__site = {__FILE__, __LINE__, 0, 0, 0, 0, 0, 0, 0, NULL};                       \
    icsim__phase_end(&icsim__site, (double)(ops), (double)(bytes), (double)(accesses), (double)(working_set));      \
  } while (0)
#define ICSIM_PHASE_END(ops, bytes) ICSIM_PHASE_END_ACCESS(ops, bytes, 0, -1)
static inline double icsim_compute_seconds(void) { return icsim_native_phase_s; }
/* Per call site: calls, measured CPU seconds and the declared work (all phases since the start). */
static inline void icsim_phase_profile(FILE *f)
{
  for (struct icsim_phase_site *s = icsim_phase_sites; s; s = s->next)
    if (s->calls)
      fprintf(f, "phase %s:%d calls %.0f seconds %.6f ops %.6g bytes %.6g accesses %.6g working_set %.6g\n", s->file,
            s->line, s->calls, s->seconds, s->ops, s->bytes, s->accesses, s->working_set);
}
/* Start the per-site sums again (at the start of the timed region). */
static inline void icsim_phase_profile_reset(void)
{
  for (struct icsim_phase_site *s = icsim_phase_sites; s; s = s->next)
    s->calls = s->seconds = s->ops = s->bytes = s->accesses = 0;
}
static inline int icsim_skeleton_ok(void) { return 0; }
static inline void *icsim_alloc_shared(size_t bytes) { return malloc(bytes); }
static inline void icsim_free_shared(void *p) { free(p); }
#else
#define ICSIM_PHASE_BEGIN() ((void)0)
#define ICSIM_PHASE_END(ops, bytes) ((void)(ops), (void)(bytes))
#define ICSIM_PHASE_END_ACCESS(ops, bytes, accesses, working_set)                                                    \
  ((void)(ops), (void)(bytes), (void)(accesses), (void)(working_set))
static inline double icsim_compute_seconds(void) { return 0; }
static inline int icsim_skeleton_ok(void) { return 0; }
static inline void *icsim_alloc_shared(size_t bytes) { return malloc(bytes); }
static inline void icsim_free_shared(void *p) { free(p); }
#endif

#endif
