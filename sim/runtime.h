/* The live simulation state shared by the SimGrid adapter (kernel side) and the MPI layer
 * (rank side). Both are loaded into the one smpirun process and link this library, so the
 * runtime is one global: the platform, the stack instances and the run's counters. */
#ifndef ICSIM_RUNTIME_H
#define ICSIM_RUNTIME_H

#include <stdio.h>

#include "platform.h"
#include "stack.h"
#include "trace.h"
#include "transfer.h"

struct icsim_runtime {
  struct icsim_platform pf;
  char *sets; /* the --set assignments as given ("key=value;..."), for --stats */
  void *state[ICSIM_MAX_LAYERS]; /* one per pf.layer[] */
  int nranks;
  int host_timing; /* SMPI benchmarks user code: stack CPU charges must pause its timer */
  int every_poll;  /* icsim run --every-poll: spinning waits simulated one empty poll at a time */
  double progress_s, progress_t0, progress_last; /* --progress: period and wall clock (monotonic) */
  int *rank_host; /* host (socket) of each world rank, from the placement */
  int has_call_cpu; /* some layer costs every MPI call */
  struct icsim_transfer_table *transfers;
  int internal_calls; /* ranks now inside an SMPI call that sends its own messages */
  int *rank_internal; /* [nranks]: the same, per world rank */
  /* counters kept by sim/ itself, whatever the stack */
  double messages, payload_bytes, send_cpu_s, recv_cpu_s, call_cpu_s, transfers_started, intra_node_transfers,
      intra_node_messages, mpi_calls;
  /* requests the MPI layer's progress engine holds (receives and persistent sends, the layer's own
   * included): what is left at the end was never completed or freed by the program */
  double engine_requests;
  /* declared compute phases (icsim_phase.h): time charged per rank, phases and their work */
  double *compute_s;
  double phases, phase_ops, phase_bytes, phase_accesses;
  /* how each world rank ended (sim/mpi/lifecycle.c), reported by the adapter at the end of the run */
  signed char *rank_end; /* enum icsim_rank_end */
  int *rank_status;      /* the status a rank gave exit() */
  struct icsim_trace *trace; /* --trace: the timeline being written, or NULL */
  /* where each rank's simulated time goes (--breakdown, --stats "breakdown"), and the per-layer
   * parts of the last CPU cost computed (icsim_runtime_*_cpu), for the charge that follows it */
  struct icsim_rank_time *rank_time; /* [nranks] */
  double last_part[ICSIM_MAX_LAYERS];
  int last_shm; /* the last cost was a message within a node: the network layer's part is its
                 * shared-memory path */
  /* the transfers' phases as the stacks priced them (icsim_wire_cost), summed per layer and name,
   * and the rest of their time (flow), for the breakdown */
#define ICSIM_RUN_MAX_PHASES 32
  struct icsim_phase_total {
    const char *layer, *name;
    double s, n;
  } wire_phase[ICSIM_RUN_MAX_PHASES];
  int nwire_phases;
  double wire_flow_s, wire_transfers_done;
  int time_observed; /* --trace, --breakdown or --stats: host-timed code is charged before each call */
  int breakdown;     /* --breakdown: print where each rank's time went at the end */
  /* the MPI layer's posted receives: the buffer of the oldest receive rank DST has posted that a
   * message from world rank SRC with TAG would match and no transfer has been given yet (marked
   * given); NULL when none. Set by sim/mpi once a receive is posted; NULL outside MPI programs. */
  const void *(*posted_recv)(int dst, int src, int tag);
  int finished;          /* the simulation has ended: a process exit now is smpirun's own */
  int deadlocked;
};

/* The kinds of CPU cost the MPI layer charges (icsim_runtime_charge). */
enum icsim_cpu_kind { ICSIM_CPU_CALL, ICSIM_CPU_SEND, ICSIM_CPU_RECV, ICSIM_CPU_SHM_SEND, ICSIM_CPU_SHM_RECV, ICSIM_CPU_KINDS };
extern const char *const icsim_cpu_kind_name[ICSIM_CPU_KINDS]; /* "call", "send", ..., "shm-recv" */

/* One rank's time: inside the program's MPI calls (split into the layers' CPU costs, polls, and
 * the rest: blocked), declared computation (compute_s), and the program's own code (the rest). */
struct icsim_rank_time {
  double enter_t;   /* when the outermost MPI call now under way began (-1: none) */
  double in_mpi_s;  /* inside the program's MPI calls, those ended */
  double end_t;     /* when it left MPI_Finalize (-1: not yet) */
  double poll_s;    /* polls that found nothing */
  double compute_s; /* declared computation, as the simulated clock measured it */
  double cpu_s[ICSIM_MAX_LAYERS][ICSIM_CPU_KINDS];
  double cpu_outside_s; /* layer costs charged outside any MPI call (a call layer's own interface) */
};

enum icsim_rank_end {
  ICSIM_RANK_NOT_STARTED, /* MPI_Init not called (yet) */
  ICSIM_RANK_RUNNING,     /* between MPI_Init and the end of its main */
  ICSIM_RANK_FINALIZED,   /* has called MPI_Finalize (and may have ended since): the normal end */
  ICSIM_RANK_RETURNED,    /* returned from main without MPI_Finalize */
  ICSIM_RANK_EXITED,      /* called exit() before MPI_Finalize */
  ICSIM_RANK_KILLED,      /* ended by SimGrid (after a deadlock) */
};

/* Environment variables through which `icsim run` hands the run to smpirun. */
#define ICSIM_ENV_PLATFORM "ICSIM_PLATFORM"
#define ICSIM_ENV_SET "ICSIM_SET" /* key=value;key=value */
#define ICSIM_ENV_STATS "ICSIM_STATS"
#define ICSIM_ENV_NRANKS "ICSIM_NRANKS"
#define ICSIM_ENV_PLACE "ICSIM_PLACE"
#define ICSIM_ENV_HOST_TIMING "ICSIM_HOST_TIMING" /* "on" when SMPI times the program's own code */
#define ICSIM_ENV_EVERY_POLL "ICSIM_EVERY_POLL"   /* "1": no skipping of a spinning wait's empty polls */
#define ICSIM_ENV_PROGRESS "ICSIM_PROGRESS"       /* wall seconds between progress lines on stderr */
#define ICSIM_ENV_TRACE "ICSIM_TRACE"             /* FORMAT:PATH of the timeline to write (--trace) */
#define ICSIM_ENV_BREAKDOWN "ICSIM_BREAKDOWN"     /* "1": print where each rank's time went */
/* A file where the simulation says how it ended ("exit N": the process ends with status N on
 * purpose; "end": the simulation ran to its end), so that `icsim run` can tell them from a crash. */
#define ICSIM_ENV_STATUS "ICSIM_STATUS"
/* The run's verdict channels (issue 39, item 4), so that nothing the program prints is read as how
 * the run ended: the status file above is opened once by the simulation and its name taken out of
 * the environment before the program starts; SimGrid's own log (the deadlock report, its
 * assertions) goes to descriptor ICSIM_LOG_FD, a pipe to `icsim run`, instead of the stderr the
 * program shares; ICSIM_FDS ("OUT,ERR") are the descriptors `icsim exec-fds` makes the
 * simulation's stdout and stderr, so that smpirun's own lines stay on its own. */
#define ICSIM_ENV_LOG_FD "ICSIM_LOG_FD"
#define ICSIM_ENV_FDS "ICSIM_FDS"

/* Load the platform and create its stacks. Returns NULL with ERR filled on failure. */
struct icsim_runtime *icsim_runtime_create(const char *platform, const char *sets, char *err, size_t errlen);
/* Create from the environment and make it the process' runtime. */
int icsim_runtime_init_from_env(char *err, size_t errlen);
/* The process' runtime, NULL when the program runs outside icsim (plain smpirun, native MPI). */
struct icsim_runtime *icsim_runtime_get(void);
void icsim_runtime_destroy(struct icsim_runtime *rt);

/* Host-side costs of message M (announced or not): the network layer's path between nodes, or
 * its shared-memory channel inside a node, plus every other layer's. */
double icsim_runtime_send_cpu(struct icsim_runtime *rt, const struct icsim_msg *m);
double icsim_runtime_recv_cpu(struct icsim_runtime *rt, const struct icsim_msg *m);
/* CPU seconds of one MPI call in the call layers (0 when none costs calls). */
double icsim_runtime_call_cpu(struct icsim_runtime *rt, const char *mpi_function);

/* The transfer table: the MPI side announces, the wire side starts and completes. */
uint64_t icsim_runtime_announce(struct icsim_runtime *rt, const struct icsim_msg *m, double now);
/* A send announced as ID was cancelled before it started (transfer.h). */
void icsim_runtime_withdraw(struct icsim_runtime *rt, uint64_t id);
void icsim_runtime_cancel_lingering(struct icsim_runtime *rt, uint64_t id);
/* Wire side: cost of transfer Q (its id and message filled here from the table); C gets the
 * route's figures, then each layer's. */
void icsim_runtime_wire(struct icsim_runtime *rt, struct icsim_wire_query *q, int src_host, int dst_host,
                        double size, struct icsim_wire_cost *c);
/* SimGrid completed transfer ID at NOW: every layer's transfer_done. */
void icsim_runtime_transfer_done(struct icsim_runtime *rt, uint64_t id, double now);
/* Brackets around SMPI calls that send their own messages (window fences, communicator
 * creation): transfers nobody announced meanwhile are SMPI's, not missed messages. */
/* RANK (world; -1 when not known yet, in MPI_Init) enters / leaves an SMPI call that sends
 * SMPI's own messages. */
void icsim_runtime_internal_enter(struct icsim_runtime *rt, int rank);
/* SMPI's send-is-detached threshold for this platform (bytes): the stack's eager limit, at most
 * INT_MAX (SimGrid reads it as an int; "no limit" is the largest it takes). */
double icsim_runtime_detach_threshold(struct icsim_runtime *rt);
/* Phase NAME of layer LAYER took S seconds of a transfer (summed for the breakdown). */
void icsim_runtime_wire_phase(struct icsim_runtime *rt, const char *layer, const char *name, double s);
/* Rank RANK's CPU was just charged SECONDS of a cost of KIND, kept in its breakdown. PARTS (each
 * layer's share, rt->last_part) and SHM (rt->last_shm) as they were when the charge was priced:
 * other ranks price theirs while it runs, and would overwrite them. */
void icsim_runtime_charged(struct icsim_runtime *rt, int rank, enum icsim_cpu_kind kind, double seconds,
                           const double *parts, int shm);
/* The parts the layers named (icsim_cpu_part) of the last CPU cost computed, as rt->last_part: the
 * layer that named each, its name and seconds, in the order named. Returns how many. */
struct icsim_cpu_named { int layer; const char *name; double s; };
int icsim_runtime_cpu_parts(struct icsim_cpu_named *out, int max);
/* Rank RANK's CPU was just charged SECONDS of a poll that found nothing. */
void icsim_runtime_polled(struct icsim_runtime *rt, int rank, double seconds);
/* Rank RANK enters (1) or leaves (0) an MPI call of the program's at NOW; FINAL: MPI_Finalize. */
void icsim_runtime_in_mpi(struct icsim_runtime *rt, int rank, int enter, double now, int final);
/* Rank RANK's time up to END_S (its end, or the simulation's) in ENTRY order: program, compute,
 * blocked, poll, then each layer's kinds; returns how many were filled (at most MAX). */
struct icsim_time_entry {
  char name[48]; /* "program", "compute", "blocked", "mpi/poll", "generic/send", "generic/shm-send" */
  double s;
};
int icsim_runtime_breakdown(const struct icsim_runtime *rt, int rank, double end_s, struct icsim_time_entry *out,
                            int max);
void icsim_runtime_internal_leave(struct icsim_runtime *rt, int rank);

/* Channel capacity for N sharers from the composing stack, else the network stack; negative
 * when neither models it. */
double icsim_runtime_channel_capacity(struct icsim_runtime *rt, const struct icsim_link *link, int up, double nominal,
                                      int n);
int icsim_runtime_models_channels(const struct icsim_runtime *rt);
/* Bandwidth SimGrid should give LINK: its nominal one, or a stack's higher peak. */
double icsim_runtime_channel_peak(struct icsim_runtime *rt, const struct icsim_link *link);

/* The work a compute phase declares (workloads/include/icsim_phase.h): counted from its loop body. */
struct icsim_work {
  double ops;          /* independent operations (arithmetic, compares, conversions) */
  double bytes;        /* bytes streamed (read + written) */
  double accesses;     /* random accesses: data-dependent or scattered loads and updates */
  double working_set;  /* bytes the phase touches, which decides the level that holds them; 0 = not
                          declared: memory */
  double access_set;   /* bytes the random accesses fall into (0: the working set) */
  double chain;        /* floating-point adds on a dependency chain (running sums, recurrences) */
  double chain_mul;    /* floating-point multiplies on that chain */
  double chain_int;    /* integer ALU operations on that chain (and, add, shift: one clock each) */
  double chain_int_mul; /* integer multiplies on that chain (at int-multiply-latency) */
  double chain_divide; /* divisions and square roots on that chain */
  double mispredicts;  /* data-dependent branches the predictor misses */
  double stride;       /* bytes between successive random accesses when they walk a stride (a column, a
                          line of a 3-D grid); 0 = scattered. Lines a power-of-two stride apart share few
                          cache sets, so fewer of them stay in a cache than its size says */
  double stride_stores; /* the strided accesses that are stores: those missing the L1 commit in program
                           order, each waiting for its line */
  double branch_chain;  /* operations between a mispredicted branch's loads and the branch (adds, multiplies,
                           the compare): the branch resolves only after its loads and these */
  double paths;         /* independent dependency paths the chain is made of (iterations whose chains do not
                           wait for one another: EP's pairs); 0 or 1 = one chain through the whole phase */
  double integer;       /* nonzero: every operation is an integer one (no floating point): the core issues
                           them at int-ops-per-cycle */
  double moves;         /* of the ops: register-to-register copies and zeroing idioms (the compiled code's
                           movapd xmm, xmm; mov r64, r64; pxor x, x), which a core with move-elimination
                           completes at renaming without issuing them */
  double store_fills;   /* stores whose line must first be fetched (read for ownership), scattered over the
                           access set where no prefetcher follows and no other line evicts them: stores commit
                           in program order, so the fetches hold the core (added to it), overlapped with one
                           another up to memory-parallelism */
};

/* Time of a declared compute phase on the core of world rank RANK:
 *   core   = max(ops / (clock x ops-per-cycle, or int-ops-per-cycle for an integer phase), less the moves
 *                 where the core has move-elimination,
 *                 (chain x fp-latency + chain_mul x fp-multiply-latency + chain_divide x fp-divide-latency
 *                  + chain_int x 1 + chain_int_mul x int-multiply-latency) / clock)
 *            + mispredicts x (mispredict-penalty + resolution) / clock, resolution = latency of the level
 *              holding the working set (the branch's operands are loaded) + branch_chain x fp-latency
 *   stream = bytes / bandwidth of the level holding the working set (L1, L2, the rank's share of the L3,
 *            or memory: the socket's bandwidth split among its ranks, at most one core's)
 *   access = accesses x latency / memory-parallelism; scattered accesses spread over the access set
 *            (the working set unless a smaller array is declared): each level of C bytes takes C / set
 *            of them at its latency, the rest go on to memory; strided accesses pay the first level
 *            whose sets at that stride hold access_set / stride lines: ways x the sets the stride visits)
 *   stores = stride_stores x latency of that level when it is not the L1 (in-order commit), added to core;
 *            store_fills x latency over the access set / memory-parallelism, added to core
 *   window = a chain of PATHS independent paths overlaps min(paths, 1 + reorder-window / (ops / paths)) of
 *            them (the path at the window's head and those it holds): the chain term is divided by that
 *   t      = max(core + stores, stream, access)
 * Parameters: the nodes/ rows of sim/platform.c. */
double icsim_runtime_compute_time(const struct icsim_runtime *rt, int rank, const struct icsim_work *w);

/* The limits one phase met (icsim_runtime_compute_terms), for the phase profile that says which term of
 * the model a phase's time came from (ICSIM_PHASE_PROFILE, validate/host/host-npb-compute). */
enum icsim_compute_bound {
  ICSIM_BOUND_ISSUE,  /* the core: operations at the issue rate */
  ICSIM_BOUND_CHAIN,  /* the core: the dependency chain at the operations' latencies */
  ICSIM_BOUND_STALLS, /* the core: its stalls (mispredicts, strided stores, store fills) more than either */
  ICSIM_BOUND_STREAM, /* bytes at the holding level's bandwidth */
  ICSIM_BOUND_ACCESS, /* random accesses at their latency over memory-parallelism */
  ICSIM_BOUNDS
};
extern const char *const icsim_compute_bound_name[ICSIM_BOUNDS]; /* "issue", "chain", "stalls", "stream", "access" */
struct icsim_compute_terms {
  double issue_s, chain_s; /* the two core limits before stalls: operations at the issue rate, the chain */
  double stall_s;          /* added to the core: mispredicted branches, strided stores, store fills */
  double stream_s, access_s, t;
  enum icsim_compute_bound bound; /* the term t came from (the core's largest part when the core) */
  double rate;                    /* operations per clock the issue term used */
  double issued;                  /* operations the issue term counted (the ops less eliminated moves) */
  double chain_clocks;            /* clocks per chain element the chain term charged (after the window) */
  double bandwidth_Bps;           /* the stream term's bandwidth */
  double access_lat_s;            /* the access term's latency per access (before memory-parallelism) */
};
/* The same time with its terms filled (T may be NULL). */
double icsim_runtime_compute_terms(const struct icsim_runtime *rt, int rank, const struct icsim_work *w,
                                   struct icsim_compute_terms *T);

/* Write the counters as JSON to PATH atomically (sim/outfile.h: never over a non-regular file). */
int icsim_runtime_write_stats(struct icsim_runtime *rt, const char *path, double simulated_s, char *err,
                              size_t errlen);
/* Append LINE (with its newline) to the ICSIM_STATUS file, when there is one. */
void icsim_runtime_note(const char *line);
/* Open the ICSIM_STATUS file once (close-on-exec) and take its name out of the environment: the
 * program and its children then cannot find it. Called by the adapter before any rank starts. */
void icsim_runtime_claim_status(void);

/* Say which ranks ended without MPI_Finalize (exit() with its status, or a plain return). */
void icsim_runtime_report_ends(const struct icsim_runtime *rt, FILE *f);

/* End-of-run invariants: every stack's, and no rank's time breakdown entry below zero (END_S: the
 * run's end, for ranks still running). */
int icsim_runtime_check(struct icsim_runtime *rt, double end_s, char *err, size_t errlen);


#endif
