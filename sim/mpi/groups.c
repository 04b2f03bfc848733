/* Group calls the layer does not change, defined here so that the bracket checks their group
 * arguments before SMPI reads them (checks.c: icsim_check_group, e.g. a communicator passed as a
 * group, MPICH's errors/group/gerr). Each passes straight to SMPI. */
#include "layer.h"

int MPI_Group_size(MPI_Group group, int *size) { return PMPI_Group_size(group, size); }
int MPI_Group_rank(MPI_Group group, int *rank) { return PMPI_Group_rank(group, rank); }
int MPI_Group_translate_ranks(MPI_Group group1, int n, const int *ranks1, MPI_Group group2, int *ranks2)
{
  return PMPI_Group_translate_ranks(group1, n, ranks1, group2, ranks2);
}
int MPI_Group_compare(MPI_Group group1, MPI_Group group2, int *result)
{
  return PMPI_Group_compare(group1, group2, result);
}
int MPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
  return PMPI_Group_union(group1, group2, newgroup);
}
int MPI_Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
  return PMPI_Group_intersection(group1, group2, newgroup);
}
int MPI_Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
  return PMPI_Group_difference(group1, group2, newgroup);
}
int MPI_Group_incl(MPI_Group group, int n, const int *ranks, MPI_Group *newgroup)
{
  return PMPI_Group_incl(group, n, ranks, newgroup);
}
int MPI_Group_excl(MPI_Group group, int n, const int *ranks, MPI_Group *newgroup)
{
  return PMPI_Group_excl(group, n, ranks, newgroup);
}
int MPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup)
{
  return PMPI_Group_range_incl(group, n, ranges, newgroup);
}
int MPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup)
{
  return PMPI_Group_range_excl(group, n, ranges, newgroup);
}
