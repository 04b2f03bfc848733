/* The argument checks of the entry bracket (checks.c): what MPICH checks before it acts, made
 * before the layer touches an argument, so that a wrong one reaches the program as MPI's error
 * class through the object's error handler, never as a crash inside the layer.
 *
 * The generated bracket (gen_entries.py) calls them in the order of the call's parameters, after
 * the communicator, window or message they refer to; the first failure wins and the rest do
 * nothing. icsim_check_end then hands it to the error handler (errors.c). */
#ifndef ICSIM_MPI_CHECKS_H
#define ICSIM_MPI_CHECKS_H

#include <mpi.h>

struct icsim_check {
  const char *call;   /* the MPI function, for the fatal handler's message */
  int rc;             /* MPI_SUCCESS, or the class of the first wrong argument */
  char what[160];     /* "dest = 1000: not a rank of the communicator (size 4) nor MPI_PROC_NULL" */
};

/* Checking is on inside a simulation (SMPI's own calls outside it are SMPI's). */
int icsim_checking(void);

void icsim_check_comm(struct icsim_check *c, const char *name, MPI_Comm comm);
void icsim_check_win(struct icsim_check *c, const char *name, MPI_Win win);
void icsim_check_ptr(struct icsim_check *c, const char *name, const void *p);
/* Data a call reads that must be there: a null pointer or MPI_BOTTOM is MPI_ERR_ARG. */
void icsim_check_data(struct icsim_check *c, const char *name, const void *p);
void icsim_check_count(struct icsim_check *c, const char *name, long long n);
void icsim_check_counts(struct icsim_check *c, const char *name, const int *v, int n);
void icsim_check_type(struct icsim_check *c, const char *name, MPI_Datatype type);
void icsim_check_op(struct icsim_check *c, const char *name, MPI_Op op);
void icsim_check_buf(struct icsim_check *c, const char *name, const void *buf, int count, MPI_Datatype type);
/* Point to point: a peer (MPI_PROC_NULL allowed; MPI_ANY_SOURCE too when ANY) and a tag
 * (MPI_ANY_TAG allowed when ANY) of COMM, over its remote group on an intercommunicator. */
void icsim_check_rank(struct icsim_check *c, const char *name, int rank, MPI_Comm comm, int any);
void icsim_check_tag(struct icsim_check *c, const char *name, int tag, int any);
/* A matched message given to MPI_Mrecv or MPI_Imrecv (its pointer). */
void icsim_check_message(struct icsim_check *c, const char *name, const MPI_Message *msg);
/* A window's size (MPI_ERR_SIZE) and displacement unit (MPI_ERR_DISP). */
void icsim_check_win_size(struct icsim_check *c, const char *name, MPI_Aint size);
void icsim_check_disp_unit(struct icsim_check *c, const char *name, int disp);
/* An info handle that must be one (MPI_Info_set and the like). */
void icsim_check_info(struct icsim_check *c, const char *name, MPI_Info info);

/* A group (MPI_ERR_GROUP when null) and, for MPI_Comm_create(_group), one within COMM's group. */
void icsim_check_group(struct icsim_check *c, const char *name, MPI_Group group);
void icsim_check_subgroup(struct icsim_check *c, const char *name, MPI_Group group, MPI_Comm comm);

/* The result: MPI_SUCCESS, or the error after COMM's (or, given, WIN's) handler has seen it. */
int icsim_check_end(struct icsim_check *c, MPI_Comm comm, MPI_Win win);

/* MPI_Cart_create's grid: no more cells than COMM has ranks (*OUT is MPI_COMM_NULL otherwise). */
void icsim_check_cart(struct icsim_check *c, MPI_Comm comm, int ndims, const int *dims, MPI_Comm *out);
/* MPI_Compare_and_swap's datatype. */
void icsim_check_cas_type(struct icsim_check *c, MPI_Datatype t);
/* A target rank of WIN's group (MPI_PROC_NULL allowed). */
void icsim_check_win_rank(struct icsim_check *c, const char *name, int rank, MPI_Win win);
/* One-sided epochs (rma_sync.c): CHECK a synchronisation call or an operation on WIN (TARGET: its
 * target rank, or MPI_PROC_NULL) against the epochs open; DONE records a successful one (ASSERT:
 * a fence's, FLAG: MPI_Win_test's answer); FORGET a freed window. */
void icsim_rma_sync_check(struct icsim_check *c, MPI_Win win, int target);
void icsim_rma_sync_done(const char *call, MPI_Win win, int target, int assert, int flag);
void icsim_rma_sync_forget(MPI_Win win);

/* The error handler of PARENT, set on the communicator at *OUT (not MPI_COMM_NULL) it was made from. */
void icsim_inherit_errhandler(MPI_Comm parent, MPI_Comm *out);
/* A communicator a constructor returned / MPI_Comm_free released (context_ids.c). */
void icsim_context_ids_taken(MPI_Comm comm);
void icsim_context_ids_given(MPI_Comm comm);

/* A communicator constructor when the rank holds mpi/context-ids communicators already. */
void icsim_check_context_ids(struct icsim_check *c);
/* An attribute key made for another kind of object (KIND: 1 communicator, 2 datatype, 3 window). */
void icsim_check_keyval(struct icsim_check *c, const char *name, int key, int kind);

#endif
