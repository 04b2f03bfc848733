/* Place in the adaptor's order (adaptor.h): the top header: includes abi_mpich.h. */
/* MPICH's Fortran ABI (libmpichfort.so.12): what the generated entry points (fortran_mpich.c) need. */
#ifndef ICSIM_ABI_FORTRAN_H
#define ICSIM_ABI_FORTRAN_H

#include "abi_mpich.h"

#undef ABI_CALLER
#define ABI_CALLER() __attribute__((unused)) const void *abi_caller_ = __builtin_return_address(0)

/* A Fortran buffer argument: MPI_BOTTOM and MPI_IN_PLACE are members of the program's common block
 * /MPIPRIV1/; they become MPICH's C values. */
void *abi_f_buf(void *p, const void *caller);
/* MPI_STATUS_IGNORE (/MPIPRIV1/) and MPI_STATUSES_IGNORE (/MPIPRIV2/) become MPICH's C values; any
 * other status is an INTEGER(5) laid out as MPICH's C MPI_Status. */
A_Status *abi_f_status(void *p, const void *caller);
const int *abi_f_weights(void *p, const void *caller);
A_Status *abi_f_statuses(void *p, const void *caller);
void abi_untranslated(const char *name) __attribute__((noreturn));

#endif
