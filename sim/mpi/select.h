/* How the MPI layer chooses a collective algorithm: MPICH 3.x's default decisions, every
 * threshold a parameter of the platform (`mpi/...` keys, one descriptor table in select.c), so a
 * platform can state its own MPI's choices (MVAPICH2's, SCore's) with their origins.
 *
 * Pure C, no MPI: compiled into the core library (the loader, `icsim describe` and the tests use
 * the table) and called by the collectives of the MPI layer (sim/mpi/coll_*.c). */
#ifndef ICSIM_MPI_SELECT_H
#define ICSIM_MPI_SELECT_H

#include <stddef.h>

#include "params.h"

/* Resolved thresholds (bytes are per the quantity named in each key's help). */
struct icsim_mpi_select {
  double alltoall_short_B, alltoall_medium_B;
  int alltoall_throttle, alltoall_min_procs;
  int alltoall_long_batched_min_ppn, alltoall_long_batched_max_ppn, alltoall_long_batched_min_procs;
  double allgather_short_B, allgather_long_B;
  double bcast_short_B, bcast_long_B;
  int bcast_min_procs;
  double allreduce_short_B, reduce_short_B;
  double redscat_long_B;
  int context_ids; /* communicators a process may hold at once (0: no limit) */
};

extern const struct icsim_param_desc icsim_mpi_select_table[];
extern const size_t icsim_mpi_select_table_len;
/* Its range rules (params.h): the capacity limit, the batched all-to-all's keys when it is off. */
extern const struct icsim_param_rule icsim_mpi_select_rules[];
extern const size_t icsim_mpi_select_rules_len;

/* MPICH 3.x's defaults (the table's defaults), for code that runs without a platform. */
void icsim_mpi_select_defaults(struct icsim_mpi_select *s);

enum icsim_coll_algo {
  ICSIM_ALLTOALL_BRUCK,       /* ceil(log2 n) steps, blocks forwarded (store and forward) */
  ICSIM_ALLTOALL_ISEND_IRECV, /* batches of `throttle` Irecv + Isend, scattered destinations */
  ICSIM_ALLTOALL_PAIRWISE,    /* n - 1 Sendrecv steps: peer me ^ i (power of two), else me +- i */
  ICSIM_ALLGATHER_RDB,        /* recursive doubling (power-of-two n only) */
  ICSIM_ALLGATHER_BRUCK,      /* ceil(log2 n) steps */
  ICSIM_ALLGATHER_RING,       /* n - 1 steps to the right neighbour */
  ICSIM_BCAST_BINOMIAL,
  ICSIM_BCAST_SCATTER_RDB,    /* binomial scatter + recursive-doubling allgather */
  ICSIM_BCAST_SCATTER_RING,   /* binomial scatter + ring allgather */
  ICSIM_ALLREDUCE_RDB,        /* recursive doubling */
  ICSIM_ALLREDUCE_RABENSEIFNER, /* reduce-scatter (recursive halving) + allgather (recursive doubling) */
  ICSIM_REDUCE_BINOMIAL,
  ICSIM_REDUCE_RABENSEIFNER,  /* reduce-scatter (recursive halving) + binomial gather */
};

/* Name of an algorithm as printed by the tests ("bruck", "isend_irecv", ...). */
const char *icsim_coll_algo_name(enum icsim_coll_algo a);

/* The decisions. BYTES are payload bytes (count x type size); N the communicator size;
 * BUILTIN whether the op is a predefined one (MPICH splits vectors only for those). */
enum icsim_coll_algo icsim_select_alltoall(const struct icsim_mpi_select *s, size_t block_bytes, int n);
/* PPN: processes of the communicator on each of its nodes when all hold the same number, else 0. */
enum icsim_coll_algo icsim_select_alltoall_ppn(const struct icsim_mpi_select *s, size_t block_bytes, int n, int ppn);
enum icsim_coll_algo icsim_select_allgather(const struct icsim_mpi_select *s, size_t total_bytes, int n);
enum icsim_coll_algo icsim_select_bcast(const struct icsim_mpi_select *s, size_t bytes, int n);
enum icsim_coll_algo icsim_select_allreduce(const struct icsim_mpi_select *s, size_t bytes, int count, int n,
                                            int builtin);
enum icsim_coll_algo icsim_select_reduce(const struct icsim_mpi_select *s, size_t bytes, int count, int n,
                                         int builtin);

/* Largest power of two <= N (N >= 1). */
int icsim_pof2_floor(int n);

#endif
