/* icsim_phase.h: declare a program's compute phases to icsim.
 *
 *   ICSIM_PHASE_BEGIN();
 *   ... the loop ...
 *   ICSIM_PHASE_END(ops, bytes);   // operations done, bytes moved to or from memory
 * or, saying more of what the loop does (every field counted from the loop body, 0 if absent):
 *   ICSIM_PHASE_END_WORK(.ops = ..., .bytes = ..., .accesses = ..., .working_set = ..., .chain = ...,
 *                        .chain_mul = ..., .chain_divide = ..., .mispredicts = ..., .stride = ...,
 *                        .stride_stores = ..., .paths = ..., .branch_chain = ..., .integer = 1,
 *                        .store_fills = ..., .chain_int = ..., .chain_int_mul = ..., .moves = ...);
 *   ICSIM_PHASE_END_ACCESS(ops, bytes, accesses, working_set);   // the memory side only
 *     ops           independent operations (arithmetic, compares, conversions; not loads and stores)
 *     bytes         bytes streamed, read + written
 *     accesses      random accesses (data-dependent, scattered, or strided so that each one is a miss)
 *     working_set   bytes the phase touches: which cache level (or memory) holds them
 *     access_set    bytes the random accesses fall into, when a smaller array than the working set
 *                   (0: the working set)
 *     chain         floating-point adds (and subtracts) on a dependency chain (a running sum, a recurrence,
 *                   work the core cannot overlap), chain_mul the multiplies on it, chain_divide the
 *                   divisions and square roots on it; chain_int the integer ALU operations on it (and,
 *                   add, shift: a clock each), chain_int_mul its integer multiplies
 *     mispredicts   data-dependent branches a predictor misses
 *     stride        bytes between successive accesses when they walk a stride (a line of a 3-D grid),
 *                   0 when scattered: the access set then holds access_set / stride lines, and a
 *                   power-of-two stride crowds them into few cache sets
 *     stride_stores the strided accesses that are stores (they reach the cache in program order)
 *     paths         independent dependency paths the chain splits into: iterations whose chains do not
 *                   wait for one another (0 or 1: one chain); an out-of-order core overlaps as many
 *                   as its reorder window holds
 *     branch_chain  operations from a mispredicted branch's loads to the branch (adds, multiplies, the
 *                   compare): a miss is found only when they are done, so each costs them too
 *     integer       1 when every operation is an integer one (no floating point): the core issues them
 *                   at its integer rate (nodes/int-ops-per-cycle)
 *     moves         of the ops, the register-to-register copies and zeroing idioms of the compiled
 *                   loop (movapd xmm, xmm; mov r64, r64; pxor x, x): a core that eliminates them at
 *                   register renaming (nodes/move-elimination) issues the ops without them
 *     store_fills   stores whose line must be fetched first (a new line of a scattered write stream
 *                   that no prefetcher follows), spread over the access set: they commit in program
 *                   order, so their fetches hold the core, overlapped with one another
 *
 * Under `icsim run` (program built with icsimcc) the phase costs what the platform's compute
 * model says (sim/runtime.h: the core's issue rate or its dependency chain, against the
 * streaming rate of the level holding the working set, plus random accesses at that level's
 * latency), whatever this machine's load, and the real loop is not timed. Built with plain
 * smpicc the calls do nothing and SMPI times the code as usual; built with mpicc they do nothing
 * natively, and run unchanged under icsim (the MPI adaptor, stacks/abi) they are charged as with
 * icsimcc. -DICSIM_PHASE_TIMING on a native build times each phase on this machine instead
 * (validate/host).
 *
 * Skeleton runs (scale studies): icsim_skeleton_ok() says whether the compute model is there to
 * charge phases whose loops the program skips; icsim_alloc_shared() then gives one set of pages
 * shared by all simulated ranks (SMPI shared malloc), so big arrays cost no memory. */
#ifndef ICSIM_PHASE_H
#define ICSIM_PHASE_H

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

/* What ICSIM_PHASE_END_WORK's fields fill (see above). */
struct icsim_phase_work {
  double ops, bytes, accesses, working_set, access_set, chain, chain_mul, chain_divide, mispredicts, stride,
      stride_stores, paths, branch_chain, integer, store_fills, chain_int, chain_int_mul, moves;
};
#define ICSIM_PHASE_END_ACCESS(ops_, bytes_, accesses_, working_set_)                                                \
  ICSIM_PHASE_END_WORK(.ops = (ops_), .bytes = (bytes_), .accesses = (accesses_), .working_set = (working_set_))

/* Weak: present when the icsim MPI layer is linked (icsimcc), or when a binary built with another
 * MPI's mpicc runs unchanged under icsim (the MPI adaptor, stacks/abi, provides them); NULL with
 * plain smpicc and natively, where the phases cost nothing extra. */
void icsim_phase_begin(void) __attribute__((weak));
void icsim_phase_end(double ops, double bytes) __attribute__((weak));
void icsim_phase_end_work(double ops, double bytes, double accesses, double working_set, double access_set,
                          double chain, double chain_mul, double chain_divide, double mispredicts, double stride,
                          double stride_stores, double paths, double branch_chain, double integer,
                          double store_fills, double chain_int, double chain_int_mul, double moves) __attribute__((weak));
double icsim_phase_seconds(void) __attribute__((weak));
int icsim_phase_modeled(void) __attribute__((weak));
/* The phase profile under icsim (ICSIM_PHASE_PROFILE): the call site of the phase about to end, and
 * the per-site sums of rank 0's phases with the model's terms (sim/mpi/phase_profile.c). */
void icsim_phase_site(const char *file, int line) __attribute__((weak));
void icsim_phase_profile_print(FILE *f) __attribute__((weak));
void icsim_phase_profile_clear(void) __attribute__((weak));

#if defined(ICSIM_PHASE_TIMING) && !defined(SMPI_H)
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
  double calls, seconds, ops, bytes, accesses, working_set, chain, chain_divide, mispredicts;
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
static inline void icsim__phase_end(struct icsim_phase_site *s, const struct icsim_phase_work *w)
{
  double t = icsim__cpu_seconds() - icsim__phase_t0;
  icsim_native_phase_s += t;
  if (!s->line_seen) {
    s->line_seen = 1;
    s->next = icsim_phase_sites;
    icsim_phase_sites = s;
  }
  s->calls++, s->seconds += t, s->ops += w->ops, s->bytes += w->bytes, s->accesses += w->accesses;
  s->chain += w->chain + w->chain_mul + w->chain_int + w->chain_int_mul, s->chain_divide += w->chain_divide, s->mispredicts += w->mispredicts;
  s->working_set = w->working_set;
}
#define ICSIM_PHASE_BEGIN() (icsim__phase_t0 = icsim__cpu_seconds())
#define ICSIM_PHASE_END_WORK(...)                                                                                     \
  do {                                                                                                                \
    static struct icsim_phase_site icsim__site = {.file = __FILE__, .line = __LINE__};                               \
    struct icsim_phase_work icsim__w = {__VA_ARGS__};                                                                 \
    icsim__phase_end(&icsim__site, &icsim__w);                                                                        \
  } while (0)
#define ICSIM_PHASE_END(ops_, bytes_) ICSIM_PHASE_END_WORK(.ops = (ops_), .bytes = (bytes_))
static inline double icsim_compute_seconds(void) { return icsim_native_phase_s; }
/* Per call site: calls, measured CPU seconds and the declared work (all phases since the start). */
static inline void icsim_phase_profile(FILE *f)
{
  for (struct icsim_phase_site *s = icsim_phase_sites; s; s = s->next)
    if (s->calls)
      fprintf(f,
              "phase %s:%d calls %.0f seconds %.6f ops %.6g bytes %.6g accesses %.6g working_set %.6g chain %.6g "
              "chain_divide %.6g mispredicts %.6g\n",
              s->file, s->line, s->calls, s->seconds, s->ops, s->bytes, s->accesses, s->working_set, s->chain,
              s->chain_divide, s->mispredicts);
}
/* Start the per-site sums again (at the start of the timed region). */
static inline void icsim_phase_profile_reset(void)
{
  for (struct icsim_phase_site *s = icsim_phase_sites; s; s = s->next)
    s->calls = s->seconds = s->ops = s->bytes = s->accesses = s->chain = s->chain_divide = s->mispredicts = 0;
}
static inline int icsim_skeleton_ok(void) { return 0; }
#else
#define ICSIM_PHASE_BEGIN()                                                                                           \
  do {                                                                                                                \
    if (icsim_phase_begin)                                                                                            \
      icsim_phase_begin();                                                                                            \
  } while (0)
#define ICSIM_PHASE_END(ops_, bytes_) ICSIM_PHASE_END_WORK(.ops = (double)(ops_), .bytes = (double)(bytes_))
#define ICSIM_PHASE_END_WORK(...)                                                                                     \
  do {                                                                                                                \
    struct icsim_phase_work icsim__w = {__VA_ARGS__};                                                                 \
    if (icsim_phase_site)                                                                                             \
      icsim_phase_site(__FILE__, __LINE__);                                                                           \
    if (icsim_phase_end_work)                                                                                         \
      icsim_phase_end_work(icsim__w.ops, icsim__w.bytes, icsim__w.accesses, icsim__w.working_set,                    \
                           icsim__w.access_set, icsim__w.chain, icsim__w.chain_mul, icsim__w.chain_divide,           \
                           icsim__w.mispredicts,                                                                      \
                           icsim__w.stride, icsim__w.stride_stores, icsim__w.paths, icsim__w.branch_chain,    \
                           icsim__w.integer, icsim__w.store_fills, icsim__w.chain_int, icsim__w.chain_int_mul,      \
                           icsim__w.moves);                                                                       \
  } while (0)
/* Seconds of declared compute charged to the calling rank so far (0 outside icsim). */
static inline double icsim_compute_seconds(void) { return icsim_phase_seconds ? icsim_phase_seconds() : 0; }
/* 1 when a compute model charges the phases (the program runs under `icsim run`). */
static inline int icsim_skeleton_ok(void) { return icsim_phase_modeled ? icsim_phase_modeled() : 0; }
/* Per call site of rank 0's phases: calls, the seconds the model charged, the declared work, and which
 * of the model's terms the time came from (the native build's lines, then the model's fields). */
static inline void icsim_phase_profile(FILE *f)
{
  if (icsim_phase_profile_print)
    icsim_phase_profile_print(f);
}
static inline void icsim_phase_profile_reset(void)
{
  if (icsim_phase_profile_clear)
    icsim_phase_profile_clear();
}
#endif

#if defined(SMPI_H) /* SimGrid's mpi.h (smpicc, icsimcc): one set of pages for all simulated ranks */
static inline void *icsim_alloc_shared(size_t bytes) { return SMPI_SHARED_MALLOC(bytes); }
static inline void icsim_free_shared(void *p) { SMPI_SHARED_FREE(p); }
#else
static inline void *icsim_alloc_shared(size_t bytes) { return malloc(bytes); }
static inline void icsim_free_shared(void *p) { free(p); }
#endif

#endif
