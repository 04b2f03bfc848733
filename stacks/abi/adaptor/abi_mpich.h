/* Place in the adaptor's order (adaptor.h): a header above adaptor.h (includes it); fortran.h includes it. */
/* The MPICH ABI (libmpich.so.12; Intel MPI and MS MPI follow it): integer handles, MPICH's status.
 * Values from MPICH 4.0's mpi.h (spec/mpich.abi). */
#ifndef ICSIM_ABI_MPICH_H
#define ICSIM_ABI_MPICH_H

#include "adaptor.h"

typedef int A_handle;
typedef A_handle A_Comm, A_Datatype, A_Group, A_Op, A_Request, A_Errhandler, A_Info, A_Win, A_Message;

/* MPICH's MPI_Status: the byte count split in two, the cancelled flag in bit 0 of the high half. */
typedef struct {
  int count_lo;
  int count_hi_and_cancelled;
  int MPI_SOURCE;
  int MPI_TAG;
  int MPI_ERROR;
} A_Status;

#define ABI_PREDEF_VALUE(v) ((intptr_t)(int)(v))
#define ABI_CALLER() ((void)0) /* integer handles are the same in every rank */

void *abi_h_in(int kind, A_handle h, int fid);
A_handle abi_h_out(int kind, void *t);
void abi_h_release(int kind, A_handle h);
int abi_is_status_ignore(const A_Status *s);
void abi_status_out(A_Status *a, const t_status *t);
void abi_status_in(const A_Status *a, t_status *t);

#endif
