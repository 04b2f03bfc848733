/* Datatype calls whose arguments SMPI 3.32 uses unchecked: MPI_Type_get_extent_x and
 * MPI_Type_get_true_extent_x write through null pointers (MPICH's errors/datatype/
 * type_get_true_extent_x_nullarg crashed), MPI_Type_free releases a predefined type. The errors
 * are MPICH's (MPI_ERR_ARG, MPI_ERR_TYPE), through MPI_COMM_WORLD's handler: a datatype has none. */
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

/* A predefined type is permanent (MPI 4.0, 5.1.9: freeing it is erroneous). */
int MPI_Type_free(MPI_Datatype *type)
{
  int ni, na, nd, combiner = -1;
  if (icsim_runtime_get() && type && *type != MPI_DATATYPE_NULL && icsim_type_valid(*type) &&
      PMPI_Type_get_envelope(*type, &ni, &na, &nd, &combiner) == MPI_SUCCESS && combiner == MPI_COMBINER_NAMED)
    return icsim_error(MPI_COMM_NULL, "MPI_Type_free", MPI_ERR_TYPE);
  return PMPI_Type_free(type);
}
