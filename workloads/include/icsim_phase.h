/* icsim_phase.h: declare a program's compute phases to icsim.
 *
 *   ICSIM_PHASE_BEGIN();
 *   ... the loop ...
 *   ICSIM_PHASE_END(ops, bytes);   // operations done, bytes moved to or from memory
 *
 * Under `icsim run` (program built with icsimcc) the phase costs what the platform's compute
 * model says (core clock x ops-per-cycle against the socket's memory bandwidth), whatever this
 * machine's load, and the real loop is not timed. Built with plain smpicc the calls do nothing
 * and SMPI times the code as usual; built with mpicc they do nothing natively, and run unchanged
 * under icsim (the MPI adaptor, stacks/abi) they are charged as with icsimcc.
 *
 * Skeleton runs (scale studies): icsim_skeleton_ok() says whether the compute model is there to
 * charge phases whose loops the program skips; icsim_alloc_shared() then gives one set of pages
 * shared by all simulated ranks (SMPI shared malloc), so big arrays cost no memory. */
#ifndef ICSIM_PHASE_H
#define ICSIM_PHASE_H

#include <stddef.h>
#include <stdlib.h>

#include <mpi.h>

/* Weak: present when the icsim MPI layer is linked (icsimcc), or when a binary built with another
 * MPI's mpicc runs unchanged under icsim (the MPI adaptor, stacks/abi, provides them); NULL with
 * plain smpicc and natively, where the phases cost nothing extra. */
void icsim_phase_begin(void) __attribute__((weak));
void icsim_phase_end(double ops, double bytes) __attribute__((weak));
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
/* Seconds of declared compute charged to the calling rank so far (0 outside icsim). */
static inline double icsim_compute_seconds(void) { return icsim_phase_seconds ? icsim_phase_seconds() : 0; }
/* 1 when a compute model charges the phases (the program runs under `icsim run`). */
static inline int icsim_skeleton_ok(void) { return icsim_phase_modeled ? icsim_phase_modeled() : 0; }

#if defined(SMPI_H) /* SimGrid's mpi.h (smpicc, icsimcc): one set of pages for all simulated ranks */
static inline void *icsim_alloc_shared(size_t bytes) { return SMPI_SHARED_MALLOC(bytes); }
static inline void icsim_free_shared(void *p) { SMPI_SHARED_FREE(p); }
#else
static inline void *icsim_alloc_shared(size_t bytes) { return malloc(bytes); }
static inline void icsim_free_shared(void *p) { free(p); }
#endif

#endif
