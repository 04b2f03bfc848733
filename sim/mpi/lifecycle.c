/* How ranks start and end: MPI_Init (and its placement check), MPI_Abort, exit() before
 * MPI_Finalize, a rank ending the whole process, and messages sent to a rank that has ended.
 *
 * Why here: SMPI 3.32 gets the run's exit status wrong or crashes in these cases. MPI_Abort ends
 * the simulation with status 0 (and MPI_Abort on a sub-communicator leaves the other ranks
 * blocked); a send to a rank that has ended trips SimGrid's assertion "Actor pid=N is gone??"
 * (abort, status 134); a rank calling the C library's exit() (a Fortran STOP, exit() in code that
 * did not include mpi.h) runs SimGrid's exit handlers while the simulation is live, which die with
 * "Process exited without calling MPI_Finalize" (status 134). The layer instead ends the process
 * with the status the program asked for, as mpiexec does, after saying which rank did what; it
 * notes "exit N" in the ICSIM_STATUS file so that `icsim run` does not take it for a crash.
 *
 * Each rank's end is recorded in the runtime (rank_end): the adapter reports, at the end of the
 * run, the ranks that never called MPI_Finalize. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <simgrid/actor.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "layer.h"

/* Declared by SMPI's smpi_helpers_internal.h, where `exit` is a macro for it in programs built
 * with smpicc: the rank's actor ends, the others go on. */
void smpi_exit(int status) __attribute__((noreturn));

/* A process exit status: the low 8 bits, as the kernel keeps them, and an abort never reads as
 * success (MPI_Abort(comm, 0) or 256 exit 1). */
static int abort_status(int code)
{
  int s = code & 0xff;
  return s ? s : 1;
}

/* End the whole simulation now with STATUS: what mpiexec does when one process aborts. */
static void __attribute__((noreturn)) stop_run(int status)
{
  char line[32];
  snprintf(line, sizeof line, "exit %d\n", status & 0xff);
  icsim_runtime_note(line);
  fflush(NULL);
  _exit(status & 0xff);
}

static int my_state_slot(struct icsim_runtime *rt)
{
  int me = icsim_my_rank();
  return me >= 0 && me < rt->nranks ? me : -1;
}

/* The actor of a rank ends (main returned, exit(), or SimGrid killed it). */
static void rank_ended(int failed, void *data)
{
  struct icsim_runtime *rt = icsim_runtime_get();
  int r = (int)(intptr_t)data;
  if (!rt || r < 0 || r >= rt->nranks || rt->rank_end[r] == ICSIM_RANK_EXITED ||
      rt->rank_end[r] == ICSIM_RANK_FINALIZED)
    return;
  int finalized = 0;
  PMPI_Finalized(&finalized);
  rt->rank_end[r] = finalized ? ICSIM_RANK_FINALIZED : failed ? ICSIM_RANK_KILLED : ICSIM_RANK_RETURNED;
}

/* An interrupt (SIGINT, or SIGTERM when SimGrid handles it) ends the simulation through SimGrid's
 * handler, which calls exit(1) in whatever context is running: often a rank's, which would then be
 * reported as that rank calling exit(). The signal is noted first, then SimGrid's handler runs. */
static volatile sig_atomic_t interrupted_by;
static struct sigaction simgrid_handler[2]; /* SIGINT, SIGTERM */

static void on_interrupt(int sig)
{
  interrupted_by = sig;
  const struct sigaction *prev = &simgrid_handler[sig == SIGTERM];
  prev->sa_handler(sig);
}

static void note_interrupts(void)
{
  static const int sigs[2] = {SIGINT, SIGTERM};
  for (int i = 0; i < 2; i++) {
    struct sigaction cur;
    if (sigaction(sigs[i], NULL, &cur) != 0 || (cur.sa_flags & SA_SIGINFO) || cur.sa_handler == SIG_DFL ||
        cur.sa_handler == SIG_IGN)
      continue; /* nobody handles it (the default ends the process at once) or it is ignored */
    simgrid_handler[i] = cur;
    struct sigaction sa = cur;
    sa.sa_handler = on_interrupt;
    sigaction(sigs[i], &sa, NULL);
  }
}

/* exit() called by a rank that is still running: a Fortran STOP, or C code built without mpi.h.
 * The C library is ending the process and SimGrid's own exit handlers would abort it: end it here
 * with the program's status instead. Registered with on_exit() after SimGrid's atexit() handlers,
 * so it runs before them. */
static void process_exit(int status, void *unused)
{
  (void)unused;
  struct icsim_runtime *rt = icsim_runtime_get();
  if (!rt || rt->finished)
    return; /* smpirun's own exit once the simulation is over */
  int me = sg_actor_self() ? my_state_slot(rt) : -1;
  int others = 0;
  for (int r = 0; r < rt->nranks; r++)
    others += r != me && rt->rank_end[r] == ICSIM_RANK_RUNNING;
  int finalized = me >= 0 && rt->rank_end[me] == ICSIM_RANK_FINALIZED;
  if (interrupted_by)
    fprintf(stderr, "icsim: interrupted (%s) at simulated time %.9g s%s\n",
            interrupted_by == SIGINT ? "SIGINT" : "SIGTERM", simgrid_get_clock(),
            others || me >= 0 ? "; the ranks still running were stopped" : "");
  else if (me < 0) /* not a rank: SimGrid itself (its interrupt handler, an abort) or the maestro */
    fprintf(stderr, "icsim: the simulation was ended outside any rank with exit status %d (interrupted, or SimGrid "
                    "stopped it)%s\n", status & 0xff, others ? "; the ranks still running were stopped" : "");
  else if (status != 0 || !finalized || others > 0)
    fprintf(stderr,
            "icsim: rank %d ended the whole program with exit status %d (exit() or a Fortran STOP) %s%s%s\n", me,
            status & 0xff, finalized ? "after MPI_Finalize" : "before MPI_Finalize",
            others ? "; the ranks still running were stopped" : "",
            others && finalized ? " (under SMPI every rank is one process: end the program by returning from main)"
                                : "");
  stop_run(status);
}

/* The hostfile and the placement must agree, or every figure is wrong. */
static int check_placement(int rc)
{
  struct icsim_runtime *rt = icsim_runtime_get();
  if (rc == MPI_SUCCESS && rt) {
    int me = icsim_my_rank(), n;
    PMPI_Comm_size(MPI_COMM_WORLD, &n);
    char expect[64];
    icsim_host_name(&rt->pf, rt->rank_host[me < rt->nranks ? me : 0], expect, sizeof expect);
    if (n != rt->nranks || strcmp(expect, sg_host_get_name(sg_host_self())) != 0) {
      fprintf(stderr,
              "icsim: rank %d runs on %s but the placement says %s (-np %d, %s=%d): the hostfile and %s disagree; "
              "regenerate the command with `icsim run --dry-run`\n",
              me, sg_host_get_name(sg_host_self()), expect, n, ICSIM_ENV_NRANKS, rt->nranks, ICSIM_ENV_PLACE);
      stop_run(2);
    }
    rt->rank_end[me] = ICSIM_RANK_RUNNING;
    sg_actor_on_exit(rank_ended, (void *)(intptr_t)me);
    static int registered;
    if (!registered++) {
      on_exit(process_exit, NULL);
      note_interrupts(); /* SimGrid's handlers are in place by the time a rank runs */
    }
  }
  return rc;
}

/* SMPI's initialisation may exchange a few bytes of its own: bracketed like its other calls. */
int MPI_Init(int *argc, char ***argv)
{
  struct icsim_runtime *rt = icsim_runtime_get();
  if (rt)
    icsim_runtime_internal_enter(rt, -1); /* the rank is not known before MPI_Init */
  int rc = PMPI_Init(argc, argv);
  if (rt)
    icsim_runtime_internal_leave(rt, -1);
  return check_placement(rc);
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
  struct icsim_runtime *rt = icsim_runtime_get();
  if (rt)
    icsim_runtime_internal_enter(rt, -1);
  int rc = PMPI_Init_thread(argc, argv, required, provided);
  if (rt)
    icsim_runtime_internal_leave(rt, -1);
  return check_placement(rc);
}

/* SMPI's finalization may exchange messages of its own: bracketed like its other calls. From now
 * on the rank counts as done for the others: a message to it is an error, and its ending the
 * process stops nobody who still had work. */
int MPI_Finalize(void)
{
  struct icsim_runtime *rt = icsim_runtime_get();
  if (!rt)
    return PMPI_Finalize();
  int me_rank = icsim_my_rank();
  icsim_self_attrs_release(); /* the program's at-exit callbacks, before anything is finalized */
  icsim_runtime_internal_enter(rt, me_rank);
  int rc = PMPI_Finalize();
  icsim_runtime_internal_leave(rt, me_rank);
  int me = my_state_slot(rt);
  if (rc == MPI_SUCCESS && me >= 0 && rt->rank_end[me] == ICSIM_RANK_RUNNING)
    rt->rank_end[me] = ICSIM_RANK_FINALIZED;
  return rc;
}

/* MPI_Abort ends every rank, whatever the communicator, as MPICH and Open MPI do, and the
 * program's exit status is the error code. */
int MPI_Abort(MPI_Comm comm, int code)
{
  if (!icsim_runtime_get())
    return PMPI_Abort(comm, code);
  fprintf(stderr, "icsim: rank %d called MPI_Abort with error code %d\n", icsim_my_rank(), code);
  stop_run(abort_status(code));
}

void icsim_stop(int code) { stop_run(abort_status(code)); }

void smpi_exit(int status)
{
  struct icsim_runtime *rt = icsim_runtime_get();
  int me = rt ? my_state_slot(rt) : -1;
  if (me >= 0 && rt->rank_end[me] == ICSIM_RANK_RUNNING) {
    rt->rank_end[me] = ICSIM_RANK_EXITED;
    rt->rank_status[me] = status;
  }
  /* SimGrid's own smpi_exit keeps the status for the end of the run and ends this actor */
  void (*real)(int) = (void (*)(int))dlsym(RTLD_NEXT, "smpi_exit");
  if (real && real != smpi_exit)
    real(status);
  sg_actor_exit();
  abort(); /* not reached */
}

void icsim_check_peer(int world)
{
  struct icsim_runtime *rt = icsim_runtime_get();
  if (!rt || world < 0 || world >= rt->nranks)
    return;
  int end = rt->rank_end[world];
  if (end == ICSIM_RANK_RUNNING || end == ICSIM_RANK_NOT_STARTED)
    return;
  char how[64];
  if (end == ICSIM_RANK_EXITED)
    snprintf(how, sizeof how, "called exit(%d) before MPI_Finalize", rt->rank_status[world]);
  else
    snprintf(how, sizeof how, "%s", end == ICSIM_RANK_FINALIZED ? "called MPI_Finalize"
                                     : end == ICSIM_RANK_RETURNED ? "returned from main without MPI_Finalize"
                                                                  : "was stopped");
  fprintf(stderr, "icsim: rank %d sends to rank %d, which has already ended (it %s): a real MPI fails here too; "
          "stopping the run\n", icsim_my_rank(), world, how);
  stop_run(end == ICSIM_RANK_EXITED && (rt->rank_status[world] & 0xff) ? rt->rank_status[world] : 1);
}

/* fork() in a rank: every rank is a thread of the one simulator process, so a child would be a copy
 * of the whole simulation, every rank included, running on from inside one of them (OSU's
 * osu_latency_mp forks: its children returned from main inside the simulation and the run
 * deadlocked). A rank cannot have processes of its own; the run stops with status 3 (a feature
 * icsim cannot run) and says so. Outside a simulation the C library's fork runs. */
pid_t fork(void)
{
  if (icsim_runtime_get()) {
    fprintf(stderr,
            "icsim: rank %d called fork(): a simulated rank cannot create processes (SMPI runs every rank "
            "inside one simulator process, which a child would copy whole), so this program cannot run under "
            "icsim\n",
            icsim_my_rank());
    icsim_stop(3);
  }
  pid_t (*real)(void) = (pid_t(*)(void))dlsym(RTLD_NEXT, "fork");
  return real ? real() : -1;
}
