/* Datatype calls whose arguments SMPI 3.32 uses unchecked: MPI_Type_get_extent_x and
 * MPI_Type_get_true_extent_x write through null pointers (MPICH's errors/datatype/
 * type_get_true_extent_x_nullarg crashed). The error is MPICH's (MPI_ERR_ARG), through
 * MPI_COMM_WORLD's handler: a datatype has none. */
#include "layer.h"

int MPI_Type_get_extent_x(MPI_Datatype type, MPI_Count *lb, MPI_Count *extent)
{
  if (icsim_runtime_get() && (!lb || !extent))
    return icsim_error(MPI_COMM_NULL, "MPI_Type_get_extent_x", MPI_ERR_ARG);
  return PMPI_Type_get_extent_x(type, lb, extent);
}

int MPI_Type_get_true_extent_x(MPI_Datatype type, MPI_Count *lb, MPI_Count *extent)
{
  if (icsim_runtime_get() && (!lb || !extent))
    return icsim_error(MPI_COMM_NULL, "MPI_Type_get_true_extent_x", MPI_ERR_ARG);
  return PMPI_Type_get_true_extent_x(type, lb, extent);
}
