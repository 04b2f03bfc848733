/* Place in the adaptor's order (adaptor.h): a header above adaptor.h (includes it). */
/* The Open MPI ABI (libmpi.so.40, Open MPI 3.x and 4.x): pointer handles, Open MPI's status.
 * Values from Open MPI 4.1's mpi.h (spec/ompi.abi). */
#ifndef ICSIM_ABI_OMPI_H
#define ICSIM_ABI_OMPI_H

#include "adaptor.h"

/* What the adaptor puts at the start of every object a handle points to: the predefined objects
 * programs refer to (sized as Open MPI sizes them) and those it makes at run time. A program's
 * copy of a predefined object (copy relocation) holds the same bytes, so any copy translates. */
#define ABI_MAGIC 0x1c51ab1u
struct abi_obj {
  uint32_t magic;
  int16_t kind;
  int16_t pre; /* index in abi_predefs, -1 for an object made at run time */
  int32_t slot;
};
typedef struct abi_obj *A_handle;
typedef A_handle A_Comm, A_Datatype, A_Group, A_Op, A_Request, A_Errhandler, A_Info, A_Win, A_Message;

#define ABI_DEFINE_OBJECT(sym, size, kind, index)                                                                    \
  union {                                                                                                          \
    struct abi_obj o;                                                                                              \
    char pad[size];                                                                                                \
  } sym = {.o = {ABI_MAGIC, kind, index, -1}}
#define ABI_PREDEF_VALUE(v) ((intptr_t)&(v))

/* Open MPI's MPI_Status. */
typedef struct {
  int MPI_SOURCE;
  int MPI_TAG;
  int MPI_ERROR;
  int _cancelled;
  size_t _ucount;
} A_Status;

/* The wrapper's caller (the program's copy for this rank), for handles going back to it. */
#define ABI_CALLER() __attribute__((unused)) const void *abi_caller_ = __builtin_return_address(0)
#define abi_h_out(kind, t) abi_h_out_for(kind, t, abi_caller_)

void *abi_h_in(int kind, A_handle h, int fid);
A_handle abi_h_out_for(int kind, void *t, const void *caller);
/* Predefined handle I as CALLER's copy of the program sees it (its own copy of the object, if any). */
A_handle abi_predef_for(int i, const void *caller);
void abi_h_release(int kind, A_handle h);
int abi_is_status_ignore(const A_Status *s);
void abi_status_out(A_Status *a, const t_status *t);
void abi_status_in(const A_Status *a, t_status *t);

#endif
