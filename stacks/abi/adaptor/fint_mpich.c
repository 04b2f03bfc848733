/* Place in the adaptor's order (adaptor.h): above the tables; calls no file (MPICH's handles are integers). */
/* MPI_<Kind>_c2f and _f2c in the MPICH ABI: MPICH's handles are integers and its Fortran handles the
 * same integers (its mpi.h makes these macros; libmpich.so.12 exports them as functions too). */
#include "abi_mpich.h"

#define FINT(Name)                                                                                                 \
  int MPI_##Name##_c2f(A_handle h) { return h; }                                                                   \
  A_handle MPI_##Name##_f2c(int f) { return f; }                                                                   \
  int PMPI_##Name##_c2f(A_handle h) { return h; }                                                                  \
  A_handle PMPI_##Name##_f2c(int f) { return f; }
FINT(Comm)
FINT(Type)
FINT(Group)
FINT(Op)
FINT(Request)
FINT(Errhandler)
FINT(Info)
FINT(Win)
