/* The MPI layer's algorithm-selection table and MPICH 3.x's default decisions.
 *
 * Source of the defaults: MPICH 3.2, the MPI_T control variables declared in the files of src/mpi/coll/ (their
 * generated storage with the defaults is src/util/cvar/mpich_cvars.c), and the decision code of
 * MPIR_Alltoall_intra, MPIR_Allgather_intra, MPIR_Bcast_intra, MPIR_Allreduce_intra and
 * MPIR_Reduce_intra in the same files. MPICH compares with <= for all-to-all and all-reduce
 * (the CVAR descriptions say "<= this value") and with < elsewhere; so does icsim.
 * SimGrid's own `smpi/coll-selector:mpich` (smpi_mpich_selector.cpp) follows the same decisions
 * with a few departures (see tests/test_coll_mpich.c): a platform that wants SimGrid's choices
 * states them with these keys. */
#include "select.h"

#include <stddef.h>

#define F(field) offsetof(struct icsim_mpi_select, field)
#define KIB 1024.0
#define BIG 1e15

const struct icsim_param_desc icsim_mpi_select_table[] = {
    {"mpi/alltoall-short-msg-size", ICSIM_P_QUANTITY, ICSIM_DIM_SIZE, 0, BIG, "256B", "spec",
     "all-to-all: Bruck's algorithm while a block (sendcount x type size) is <= this and n >= "
     "mpi/alltoall-min-procs (MPICH 3.2 MPIR_CVAR_ALLTOALL_SHORT_MSG_SIZE)",
     NULL, F(alltoall_short_B)},
    {"mpi/alltoall-medium-msg-size", ICSIM_P_QUANTITY, ICSIM_DIM_SIZE, 0, BIG, "32KiB", "spec",
     "all-to-all: batched Isend/Irecv while a block is <= this, pairwise exchange above "
     "(MPICH 3.2 MPIR_CVAR_ALLTOALL_MEDIUM_MSG_SIZE)",
     NULL, F(alltoall_medium_B)},
    {"mpi/alltoall-throttle", ICSIM_P_INT, 0, 0, 1 << 30, "32", "spec",
     "all-to-all(v): Isend/Irecv pairs posted per batch before waiting for all of them; 0 = all at once "
     "(MPICH 3.2 MPIR_CVAR_ALLTOALL_THROTTLE; SimGrid's mvapich2_scatter_dest and alltoallv use 4)",
     NULL, F(alltoall_throttle)},
    {"mpi/alltoall-min-procs", ICSIM_P_INT, 0, 1, 1 << 30, "8", "spec",
     "all-to-all: fewest processes for Bruck's algorithm (hard-coded 8 in MPICH 3.2 MPIR_Alltoall_intra)", NULL,
     F(alltoall_min_procs)},
    {"mpi/alltoall-long-batched-min-ppn", ICSIM_P_INT, 0, 0, 1 << 30, "0", "spec",
     "all-to-all, blocks above mpi/alltoall-medium-msg-size: batched Isend/Irecv (mpi/alltoall-throttle) instead "
     "of the pairwise exchange when every node of the communicator holds the same number of its processes and "
     "that number is within [this, mpi/alltoall-long-batched-max-ppn] (MVAPICH2's per-ppn tuning tables pick "
     "Scatter_dest there); 0 = never (MPICH: always pairwise)",
     NULL, F(alltoall_long_batched_min_ppn)},
    {"mpi/alltoall-long-batched-max-ppn", ICSIM_P_INT, 0, 0, 1 << 30, "0", "spec",
     "upper end of the processes-per-node range of mpi/alltoall-long-batched-min-ppn", NULL,
     F(alltoall_long_batched_max_ppn)},
    {"mpi/alltoall-long-batched-min-procs", ICSIM_P_INT, 0, 1, 1 << 30, "1", "spec",
     "fewest processes for the batched exchange of long blocks (MVAPICH2's tables keep pairwise on their "
     "smallest rows)",
     NULL, F(alltoall_long_batched_min_procs)},
    {"mpi/allgather-short-msg-size", ICSIM_P_QUANTITY, ICSIM_DIM_SIZE, 0, BIG, "80KiB", "spec",
     "all-gather(v), n not a power of two: Bruck's algorithm while the gathered total is < this, ring above "
     "(MPICH 3.2 MPIR_CVAR_ALLGATHER_SHORT_MSG_SIZE = 81920)",
     NULL, F(allgather_short_B)},
    {"mpi/allgather-long-msg-size", ICSIM_P_QUANTITY, ICSIM_DIM_SIZE, 0, BIG, "512KiB", "spec",
     "all-gather(v), n a power of two: recursive doubling while the gathered total is < this, ring above "
     "(MPICH 3.2 MPIR_CVAR_ALLGATHER_LONG_MSG_SIZE)",
     NULL, F(allgather_long_B)},
    {"mpi/bcast-short-msg-size", ICSIM_P_QUANTITY, ICSIM_DIM_SIZE, 0, BIG, "12KiB", "spec",
     "broadcast: binomial tree below this message size (MPICH 3.2 MPIR_CVAR_BCAST_SHORT_MSG_SIZE = 12288)", NULL,
     F(bcast_short_B)},
    {"mpi/bcast-long-msg-size", ICSIM_P_QUANTITY, ICSIM_DIM_SIZE, 0, BIG, "512KiB", "spec",
     "broadcast: scatter + recursive-doubling all-gather below this (n a power of two), scatter + ring all-gather "
     "above or otherwise (MPICH 3.2 MPIR_CVAR_BCAST_LONG_MSG_SIZE)",
     NULL, F(bcast_long_B)},
    {"mpi/bcast-min-procs", ICSIM_P_INT, 0, 1, 1 << 30, "8", "spec",
     "broadcast: binomial tree below this many processes whatever the size (MPICH 3.2 MPIR_CVAR_BCAST_MIN_PROCS)",
     NULL, F(bcast_min_procs)},
    {"mpi/allreduce-short-msg-size", ICSIM_P_QUANTITY, ICSIM_DIM_SIZE, 0, BIG, "2KiB", "spec",
     "all-reduce: recursive doubling while the vector is <= this (or the op is user-defined, or count < the "
     "largest power of two <= n), Rabenseifner above (MPICH 3.2 MPIR_CVAR_ALLREDUCE_SHORT_MSG_SIZE)",
     NULL, F(allreduce_short_B)},
    {"mpi/reduce-short-msg-size", ICSIM_P_QUANTITY, ICSIM_DIM_SIZE, 0, BIG, "2KiB", "spec",
     "reduce: binomial tree while the vector is <= this (or the op is user-defined, or count < the largest power "
     "of two <= n), reduce-scatter + gather above (MPICH 3.2 MPIR_CVAR_REDUCE_SHORT_MSG_SIZE)",
     NULL, F(reduce_short_B)},
    {"mpi/reduce-scatter-long-msg-size", ICSIM_P_QUANTITY, ICSIM_DIM_SIZE, 0, BIG, "512KiB", "spec",
     "reduce-scatter, commutative op: reserved for MPICH's pairwise algorithm above this total (MPICH 3.2 "
     "MPIR_CVAR_REDSCAT_COMMUTATIVE_LONG_MSG_SIZE); icsim's reduce-scatter is still reduce + scatterv",
     NULL, F(redscat_long_B)},
    {"mpi/context-ids", ICSIM_P_INT, 0, 0, 1 << 30, "2048", "spec",
     "communicators one process may hold at once, MPI_COMM_WORLD and MPI_COMM_SELF included: one context id "
     "each (MPICH 4.0: MPIR_MAX_CONTEXT_MASK, 64 words of 32 bits, src/include/mpir_contextid.h); one more is "
     "MPI_ERR_OTHER, at the call or, for MPI_Comm_idup, at its wait; 0 = no limit",
     NULL, F(context_ids)},
};
const size_t icsim_mpi_select_table_len = sizeof icsim_mpi_select_table / sizeof icsim_mpi_select_table[0];

/* mpi/context-ids only decides when MPI_ERR_OTHER is raised (context_ids.c): a capacity limit.
 * The batched all-to-all's bounds are read only when mpi/alltoall-long-batched-min-ppn is not 0
 * (coll_alltoall.c, select.c). */
const struct icsim_param_rule icsim_mpi_select_rules[] = {
    {"mpi/context-ids", ICSIM_PARAM_CAPACITY, NULL},
    {"mpi/alltoall-long-batched-max-ppn", 0, "mpi/alltoall-long-batched-min-ppn=0"},
    {"mpi/alltoall-long-batched-min-procs", 0, "mpi/alltoall-long-batched-min-ppn=0"},
};
const size_t icsim_mpi_select_rules_len = sizeof icsim_mpi_select_rules / sizeof icsim_mpi_select_rules[0];

void icsim_mpi_select_defaults(struct icsim_mpi_select *s)
{
  *s = (struct icsim_mpi_select){
      .alltoall_short_B = 256,
      .alltoall_medium_B = 32 * KIB,
      .alltoall_throttle = 32,
      .alltoall_min_procs = 8,
      .alltoall_long_batched_min_procs = 1,
      .allgather_short_B = 80 * KIB,
      .allgather_long_B = 512 * KIB,
      .bcast_short_B = 12 * KIB,
      .bcast_long_B = 512 * KIB,
      .bcast_min_procs = 8,
      .allreduce_short_B = 2 * KIB,
      .reduce_short_B = 2 * KIB,
      .redscat_long_B = 512 * KIB,
      .context_ids = 2048,
  };
}

static int pof2(int n) { return n > 0 && (n & (n - 1)) == 0; }

int icsim_pof2_floor(int n)
{
  int p = 1;
  while (p * 2 <= n)
    p *= 2;
  return p;
}

const char *icsim_coll_algo_name(enum icsim_coll_algo a)
{
  switch (a) {
  case ICSIM_ALLTOALL_BRUCK: return "bruck";
  case ICSIM_ALLTOALL_ISEND_IRECV: return "isend_irecv";
  case ICSIM_ALLTOALL_PAIRWISE: return "pairwise";
  case ICSIM_ALLGATHER_RDB: return "recursive_doubling";
  case ICSIM_ALLGATHER_BRUCK: return "bruck";
  case ICSIM_ALLGATHER_RING: return "ring";
  case ICSIM_BCAST_BINOMIAL: return "binomial";
  case ICSIM_BCAST_SCATTER_RDB: return "scatter_recursive_doubling_allgather";
  case ICSIM_BCAST_SCATTER_RING: return "scatter_ring_allgather";
  case ICSIM_ALLREDUCE_RDB: return "recursive_doubling";
  case ICSIM_ALLREDUCE_RABENSEIFNER: return "rabenseifner";
  case ICSIM_REDUCE_BINOMIAL: return "binomial";
  case ICSIM_REDUCE_RABENSEIFNER: return "reduce_scatter_gather";
  }
  return "?";
}

/* MPIR_Alltoall_intra (the in-place form is always pairwise: decided by the caller). */
enum icsim_coll_algo icsim_select_alltoall(const struct icsim_mpi_select *s, size_t block_bytes, int n)
{
  return icsim_select_alltoall_ppn(s, block_bytes, n, 0);
}

/* The same, knowing the communicator's processes per node (PPN, 0 when nodes hold different
 * numbers): MVAPICH2 picks its algorithm from one tuning table per ppn, and for the long blocks
 * of some ppn its tables name Scatter_dest (the batched exchange), not pairwise. */
enum icsim_coll_algo icsim_select_alltoall_ppn(const struct icsim_mpi_select *s, size_t block_bytes, int n, int ppn)
{
  if ((double)block_bytes <= s->alltoall_short_B && n >= s->alltoall_min_procs)
    return ICSIM_ALLTOALL_BRUCK;
  if ((double)block_bytes <= s->alltoall_medium_B)
    return ICSIM_ALLTOALL_ISEND_IRECV;
  if (ppn > 0 && s->alltoall_long_batched_min_ppn > 0 && ppn >= s->alltoall_long_batched_min_ppn &&
      ppn <= s->alltoall_long_batched_max_ppn && n >= s->alltoall_long_batched_min_procs)
    return ICSIM_ALLTOALL_ISEND_IRECV;
  return ICSIM_ALLTOALL_PAIRWISE;
}

/* MPIR_Allgather_intra and MPIR_Allgatherv_intra (total = bytes gathered on each rank). */
enum icsim_coll_algo icsim_select_allgather(const struct icsim_mpi_select *s, size_t total_bytes, int n)
{
  if ((double)total_bytes < s->allgather_long_B && pof2(n))
    return ICSIM_ALLGATHER_RDB;
  if ((double)total_bytes < s->allgather_short_B)
    return ICSIM_ALLGATHER_BRUCK;
  return ICSIM_ALLGATHER_RING;
}

/* MPIR_Bcast_intra (without its SMP variant: see the README on node-aware collectives). */
enum icsim_coll_algo icsim_select_bcast(const struct icsim_mpi_select *s, size_t bytes, int n)
{
  if ((double)bytes < s->bcast_short_B || n < s->bcast_min_procs)
    return ICSIM_BCAST_BINOMIAL;
  if ((double)bytes < s->bcast_long_B && pof2(n))
    return ICSIM_BCAST_SCATTER_RDB;
  return ICSIM_BCAST_SCATTER_RING;
}

/* MPIR_Allreduce_intra: vectors are split among ranks only for predefined ops and long enough. */
enum icsim_coll_algo icsim_select_allreduce(const struct icsim_mpi_select *s, size_t bytes, int count, int n,
                                            int builtin)
{
  if ((double)bytes <= s->allreduce_short_B || !builtin || count < icsim_pof2_floor(n))
    return ICSIM_ALLREDUCE_RDB;
  return ICSIM_ALLREDUCE_RABENSEIFNER;
}

/* MPIR_Reduce_intra. */
enum icsim_coll_algo icsim_select_reduce(const struct icsim_mpi_select *s, size_t bytes, int count, int n,
                                         int builtin)
{
  if ((double)bytes <= s->reduce_short_B || !builtin || count < icsim_pof2_floor(n))
    return ICSIM_REDUCE_BINOMIAL;
  return ICSIM_REDUCE_RABENSEIFNER;
}
