/* MPI_ROOT for programs built with icsimcc (which includes this header first) and for the MPI layer.
 *
 * SimGrid 3.32's smpi.h defines MPI_ROOT as 0, which is also a valid rank: a program cannot tell an
 * intercommunicator's collective that it is the root (MPI 3.1, 5.2.2) rather than that the root
 * is rank 0 of the other group. SMPI has no intercommunicators, so it never needed the value;
 * the layer has them (intercomm.c, coll_inter.c) and takes -4, Open MPI's value, which is none
 * of SMPI's other special ranks (MPI_ANY_SOURCE -555, MPI_PROC_NULL -666). A call layer that runs
 * binaries of other MPIs maps theirs (MPICH's -3) to it. Fortran programs built with icsimff still see SMPI's 0. */
#ifndef ICSIM_MPI_ROOT_H
#define ICSIM_MPI_ROOT_H
#include <mpi.h>
#undef MPI_ROOT
#define MPI_ROOT (-4)
#endif
