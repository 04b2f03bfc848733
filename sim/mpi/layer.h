/* What the parts of the MPI layer share: who the calling rank is, how a message is described to
 * the stacks, how CPU time is charged, and the progress engine's entry points.
 * Globals of the layer are shared by all ranks (SMPI runs them in one process): per-rank state is
 * indexed by world rank. */
#ifndef ICSIM_MPI_LAYER_H
#define ICSIM_MPI_LAYER_H

#include <mpi.h>

#include "comm_record.h" /* the per-communicator record, world ranks */
#include "runtime.h"

/* phase_profile.c: rank ME's phase of work W took the time in T (kept for rank 0's profile). */
void icsim_phase_profile_add(int me, const struct icsim_work *w, const struct icsim_compute_terms *T);

/* rank.c: world rank of the calling rank (cached per actor), and one int per actor that never
 * moves (pages handed out on first use, every slot starting at INIT). */
int icsim_my_rank(void);
struct icsim_actor_ints {
  int **pages;
  size_t npages;
  int init;
};
int *icsim_actor_int(struct icsim_actor_ints *t);
/* A null buffer of no data (a type of no size) as SMPI accepts it: MPI_BOTTOM. */
void *icsim_no_data(const void *buf, int count, MPI_Datatype type);
/* Bytes of COUNT elements of TYPE. */
size_t icsim_type_bytes(int count, MPI_Datatype type);
/* Describe a message from world rank SRC to world rank DST. */
void icsim_fill_msg(struct icsim_runtime *rt, struct icsim_msg *m, int src, int dst, size_t bytes, const void *buf,
                    int tag);
/* Occupy the calling rank's CPU for SECONDS of simulated time. icsim_occupy: SECONDS is the cost of
 * KIND the runtime just computed (icsim_runtime_*_cpu): kept in the rank's breakdown by layer, and
 * shown on its timeline (--trace) named by the layers it is made of ("generic send"). */
void icsim_occupy_cpu(double seconds);
void icsim_occupy(double seconds, enum icsim_cpu_kind kind);
/* The bracket of every MPI call a program makes (mpi_entries.c): its state on the timeline. */
void icsim_enter(const char *name);
void icsim_leave(void);
/* Cost of the MPI call NAME in the call layers (per-call CPU hook), unless a call layer's entry
 * point already charged the call the program made (icsim_call_enter). */
void icsim_charge_call(const char *name);
/* A call layer's program-side library (one that forwards a binary's calls) brackets each call it forwards:
 * enter charges the call layers' call_cpu for NAME once, and the layer's own charges inside the
 * call are not made again; leave ends the bracket. Exported for those libraries. */
void icsim_call_enter(const char *name);
void icsim_call_leave(void);
/* Send side of one message: stack CPU, then the announcement that joins it to its transfer. */
void icsim_charge_send(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm);
/* Cancelled sends (MPI_Cancel): a program's send request is remembered with its announcement right
 * after it is made; withdrawing REQ (or, REQ null, announcement ID: a persistent send's, which the
 * engine keeps) takes the announcement back when the cancel took. */
/* ID: the send's announcement (icsim_last_announced() read right after icsim_charge_send, before
 * SMPI's call lets other ranks run). */
void icsim_remember_send(MPI_Request req, uint64_t id, int lingers);
uint64_t icsim_last_announced(void);
void icsim_withdraw_send(MPI_Request req, uint64_t id);
/* CPU of one progress-engine poll that found nothing (keeps busy-wait loops advancing time). */
void icsim_charge_poll(void);
/* A rank that polls the same empty source again is spinning: rather than simulate each poll,
 * icsim_poll_until blocks in WAIT(ARG) until the source's next event, then charges the polls the
 * rank would have made (one every poll cost from now, up to the first at or after the event) and
 * returns when that last poll would have looked: the same simulated times as polling one by one,
 * in a few simulation steps instead of one per poll. Only where that equivalence holds
 * (icsim_poll_skip_ok): the program's own code costs nothing between polls (host timing off)
 * and the rank's CPU is its own (no more actors on its host than cores), unless the run asked for
 * every poll (icsim run --every-poll). */
int icsim_poll_skip_ok(void);
/* icsim_poll_skip_ok without the poll cost's condition: for tries of another cost. */
int icsim_spin_skip_ok(void);
void icsim_poll_until(void (*wait)(void *), void *arg);
/* The same for any retried call that fails at a fixed cost STEP (seconds) until WAIT's event (a
 * refused send retried): returns the failed tries charged; POLLS: count them as polls (breakdown). */
double icsim_spin_until(double step, int polls, void (*wait)(void *), void *arg);

/* What an MPI call of the layer returns: RC, after handing a failure to COMM's error handler
 * (MPI_COMM_WORLD's when COMM is null) as SMPI's own MPI_* entry points do: MPI_ERRORS_RETURN
 * returns it, a program's handler is called, MPI_ERRORS_ARE_FATAL stops the run naming CALL and
 * the error. */
int icsim_error(MPI_Comm comm, const char *call, int rc);
/* The same for a call on window WIN (its own error handler). */
int icsim_win_error(MPI_Win win, const char *call, int rc);
/* The wrong argument behind the next icsim_error or icsim_win_error (checks.c), or NULL. */
void icsim_error_detail(const char *what);

/* intercomm.c: MPI_Comm_dup of an intercommunicator (its duplicate is one too), and MPI_Comm_split
 * and MPI_Comm_create of one (the layer's entry points in comm.c call them). */
void icsim_inter_dup(MPI_Comm from, MPI_Comm to);
int icsim_inter_split(MPI_Comm comm, int color, int key, MPI_Comm *out);
int icsim_inter_create(MPI_Comm comm, MPI_Group group, MPI_Comm *out);

/* comm.c: MPI_Comm_idup duplicating at the call (the Fortran binding converts the handle at return). */
int icsim_comm_idup_at_call(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *req);

/* engine.c: requests other parts of the layer own (persistent collectives, deferred duplications)
 * are served by the engine's entry points through their kind's hooks, each optional: START (1 and
 * *RC if REQ is one of its own: MPI_Start/Startall), FREE (1 if it was: MPI_Request_free),
 * BEFORE_WAIT (every wait, test and free calls it first with the requests it was given). A part
 * adds its kind once, from a constructor. */
struct icsim_request_kind {
  const char *what;
  int (*start)(MPI_Request *req, int *rc);
  int (*free)(MPI_Request *req);
  void (*before_wait)(int n, const MPI_Request *reqs);
};
void icsim_request_kind_add(const struct icsim_request_kind *k);
/* A stand-in: the handle a program holds for a request the layer completes itself (an SMPI
 * persistent request never started, which SMPI's waits and tests take as inactive). */
int icsim_engine_stand_in(MPI_Request *req);
/* A request complete and failed with ERR (its wait answers it in the status). */
int icsim_engine_failed_request(MPI_Request *req, int err);
/* COMM is about to be freed: receives of the calling rank in flight on it keep its group. */
void icsim_engine_comm_freed(MPI_Comm comm);

/* smpi_bracket.c: around an SMPI call that sends messages of its own (communicator and window
 * calls), so that --stats counts them as SMPI's. CALL: the program's call being made (its call CPU
 * is charged and landed receives taken first), or NULL inside another call. Leave returns RC. */
void icsim_smpi_enter(const char *call);
int icsim_smpi_leave(int rc);

/* attr.c: the largest error code handed out (errors.c), MPI_LASTUSEDCODE's value; a window's
 * MPI_WIN_CREATE_FLAVOR (MPI_WIN_MODEL is unified), recorded at creation and dropped at its free. */
extern int icsim_last_used_code;
/* The kind an attribute key was made for (keyvals.c): 0 unrecorded, 1 communicator, 2 datatype, 3 window. */
/* context_ids.c: communicators the rank holds against mpi/context-ids. */
int icsim_context_ids_left(void);
int icsim_context_ids_in_use(void);
void icsim_context_ids_taken(MPI_Comm comm);
void icsim_context_ids_given(MPI_Comm comm);
/* elements.c: whether BYTES received into TYPE end inside one of its basic elements. */
int icsim_type_cuts_element(MPI_Datatype type, MPI_Count bytes);
int icsim_keyval_kind(int key);
const char *icsim_keyval_kind_name(int kind);
void icsim_win_attrs_set(MPI_Win win, int flavor);
/* Whether the program set WIN's error handler (attr.c): until it does, a window's errors go to
 * MPI_COMM_WORLD's handler, as MPICH's (a new window's handler is unset there). */
void icsim_win_handler_mark(MPI_Win win);
int icsim_win_handler_marked(MPI_Win win);
void icsim_win_attrs_forget(MPI_Win win);
/* attr.c: delete MPI_COMM_SELF's attributes, last set first (the start of MPI_Finalize). */
void icsim_self_attrs_release(void);

/* lifecycle.c: stop the run now with exit status CODE (low 8 bits, 0 taken as 1), as MPI_Abort. */
void icsim_stop(int code) __attribute__((noreturn));
/* lifecycle.c: a message to world rank WORLD is about to be posted; if that rank has ended, say so
 * and stop the run (SMPI would abort on a failed assertion). */
void icsim_check_peer(int world);

/* Progress engine (engine.c). Receives are posted as persistent requests so that the engine can
 * complete them whenever the rank is inside MPI, charge their CPU then, and keep their status
 * for the user's own completion call. */
int icsim_engine_irecv(void *buf, int count, MPI_Datatype type, int src, int tag, MPI_Comm comm, MPI_Request *req,
                       int user_persistent);
/* The same for a receive the layer posts and completes itself (MPI_Recv, MPI_Sendrecv, the
 * collectives): its handle must go to the layer's own waits only, never to the application. */
int icsim_engine_irecv_internal(void *buf, int count, MPI_Datatype type, int src, int tag, MPI_Comm comm,
                                MPI_Request *req, int layer_args);
/* A send of the layer's own (peer, tag and communicator its choice): SMPI's, directly when it may
 * be (smpi_direct.cpp). SYNCHRONOUS: as MPI_Issend, else as MPI_Isend. Charges nothing. */
int icsim_layer_isend(int synchronous, const void *buf, int count, MPI_Datatype type, int dst, int tag, MPI_Comm comm,
                      MPI_Request *req);
/* MPI_Sendrecv's work (charges included); LAYER_ARGS as for icsim_engine_irecv_internal. */
int icsim_sendrecv(const void *sbuf, int scount, MPI_Datatype stype, int dest, int stag, void *rbuf, int rcount,
                   MPI_Datatype rtype, int src, int rtag, MPI_Comm comm, MPI_Status *status, int layer_args);
int icsim_engine_is_ours(MPI_Request req);
int icsim_engine_start(MPI_Request *req);
/* Persistent sends: the layer charges and announces each Start. */
void icsim_engine_track_psend(MPI_Request req, char mode, const void *buf, int count, MPI_Datatype type, int dest,
                              int tag, MPI_Comm comm);
/* A persistent send to MPI_PROC_NULL, kept by the engine (SMPI 3.32 aborts on starting one). */
int icsim_psend_init_null(MPI_Request *req);
/* A request already complete with status ST, as the application's (MPI_Imrecv's). */
int icsim_engine_completed(MPI_Request *req, const MPI_Status *st);
int icsim_engine_wait(MPI_Request *req, MPI_Status *status);
int icsim_engine_waitall(int n, MPI_Request reqs[], MPI_Status statuses[]);
/* Take every receive of the calling rank that has landed. */
void icsim_engine_poll(void);

/* smpi_direct.cpp: SMPI's request calls under the PMPI wrappers, for the layer's own messages
 * (why and when there). icsim_direct_ok: the run allows them (host timing off);
 * icsim_direct_args_ok: the PMPI checks would pass these arguments. */
int icsim_direct_ok(void);
int icsim_direct_args_ok(const void *buf, int count, MPI_Datatype type);
/* TYPE is a datatype SMPI accepts in a call (not null, committed). */
int icsim_type_valid(MPI_Datatype type);
int icsim_smpi_isend(int synchronous, const void *buf, int count, MPI_Datatype type, int dst, int tag, MPI_Comm comm,
                     MPI_Request *req);
int icsim_smpi_irecv(void *buf, int count, MPI_Datatype type, int src, int tag, MPI_Comm comm, MPI_Request *req);
int icsim_smpi_waitany(int n, MPI_Request *reqs, int *index, MPI_Status *st);
int icsim_smpi_testsome(int n, MPI_Request *reqs, int *out, int *idx, MPI_Status *sts);
void icsim_smpi_ref(MPI_Request req);
void icsim_smpi_unref(MPI_Request req);
int icsim_smpi_comm_id(MPI_Comm comm);


/* rma.c: every member's window base and displacement unit, recorded when a window is
 * created (an allgather inside the creating call), so that an origin can read a target's cell
 * (MPI_Compare_and_swap). icsim_win_target_addr gives NULL for an unknown window or rank. */
void icsim_win_remember(MPI_Win win, MPI_Comm comm, const void *base, int disp_unit, int flavor);
void icsim_win_forget(MPI_Win win);
const void *icsim_win_target_addr(MPI_Win win, int target, MPI_Aint disp);

#endif
