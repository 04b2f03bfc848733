/* Derived datatypes with empty blocks. A block of length 0 adds nothing to a type map, so it moves
 * neither the lower nor the upper bound (MPI 3.1, 4.1.6: lb and ub are the least and greatest
 * displacement of the map's entries). SMPI 3.32 counts its displacement anyway: an indexed type
 * whose first block is empty got lb 0 instead of the next block's start, one whose last block is
 * empty an upper bound past its data (MPICH's datatype/indexed_misc and hindexed_zeros), and so a
 * wrong extent, which shifts every following element of a buffer. The layer drops empty blocks
 * before SMPI builds the type; with none left the type is an empty contiguous one. (The old
 * MPI_Type_struct's MPI_LB and MPI_UB markers are kept: they carry no data but set the bounds.) */
#include <stdlib.h>
#include <string.h>

#include "layer.h"

/* The type with all blocks empty: no data, lb = ub = 0. */
static int empty(MPI_Datatype old, MPI_Datatype *out) { return PMPI_Type_contiguous(0, old, out); }

/* The blocks to keep of COUNT: their lengths into L, displacements (DSIZE bytes each) into D and
 * types into T (when TYPES: a struct's, whose MPI_LB and MPI_UB markers are kept too). Returns
 * how many; COUNT when none is dropped (then L, D, T are not to be used). */
static int keep(int count, const int *lens, const void *displs, size_t dsize, const MPI_Datatype *types, int *l,
                void *d, MPI_Datatype *t)
{
  int k = 0;
  for (int i = 0; i < count; i++)
    if (lens[i] != 0 || (types && (types[i] == MPI_LB || types[i] == MPI_UB))) {
      l[k] = lens[i];
      memcpy((char *)d + (size_t)k * dsize, (const char *)displs + (size_t)i * dsize, dsize);
      if (types)
        t[k] = types[i];
      k++;
    }
  return k;
}

int MPI_Type_indexed(int count, const int *lens, const int *displs, MPI_Datatype old, MPI_Datatype *out)
{
  if (count <= 0 || !lens || !displs)
    return PMPI_Type_indexed(count, lens, displs, old, out);
  int *l = malloc(sizeof(int) * 2 * (size_t)count), *d = l + count;
  int k = keep(count, lens, displs, sizeof *d, NULL, l, d, NULL);
  int rc = k == count ? PMPI_Type_indexed(count, lens, displs, old, out)
           : k     ? PMPI_Type_indexed(k, l, d, old, out)
                   : empty(old, out);
  free(l);
  return rc;
}

int MPI_Type_create_hindexed(int count, const int *lens, const MPI_Aint *displs, MPI_Datatype old, MPI_Datatype *out)
{
  if (count <= 0 || !lens || !displs)
    return PMPI_Type_create_hindexed(count, lens, displs, old, out);
  int *l = malloc(sizeof(int) * (size_t)count);
  MPI_Aint *d = malloc(sizeof(MPI_Aint) * (size_t)count);
  int k = keep(count, lens, displs, sizeof *d, NULL, l, d, NULL);
  int rc = k == count ? PMPI_Type_create_hindexed(count, lens, displs, old, out)
           : k     ? PMPI_Type_create_hindexed(k, l, d, old, out)
                   : empty(old, out);
  free(l);
  free(d);
  return rc;
}

int MPI_Type_create_struct(int count, const int *lens, const MPI_Aint *displs, const MPI_Datatype *types,
                           MPI_Datatype *out)
{
  if (count <= 0 || !lens || !displs || !types)
    return PMPI_Type_create_struct(count, lens, displs, types, out);
  int *l = malloc(sizeof(int) * (size_t)count);
  MPI_Aint *d = malloc(sizeof(MPI_Aint) * (size_t)count);
  MPI_Datatype *t = malloc(sizeof(MPI_Datatype) * (size_t)count);
  int k = keep(count, lens, displs, sizeof *d, types, l, d, t);
  int rc = k == count ? PMPI_Type_create_struct(count, lens, displs, types, out)
           : k     ? PMPI_Type_create_struct(k, l, d, t, out)
                   : empty(MPI_BYTE, out);
  free(l);
  free(d);
  free(t);
  return rc;
}

/* The older and the other names of the same constructors (SMPI's build through them too). */
int MPI_Type_create_indexed(int count, const int *lens, const int *displs, MPI_Datatype old, MPI_Datatype *out)
{
  return MPI_Type_indexed(count, lens, displs, old, out);
}

int MPI_Type_hindexed(int count, const int *lens, const MPI_Aint *displs, MPI_Datatype old, MPI_Datatype *out)
{
  return MPI_Type_create_hindexed(count, lens, displs, old, out);
}

int MPI_Type_struct(int count, const int *lens, const MPI_Aint *displs, const MPI_Datatype *types, MPI_Datatype *out)
{
  return MPI_Type_create_struct(count, lens, displs, types, out);
}

/* Packing a type that holds no data (every block empty: ScaLAPACK's BLACS packs the empty edge
 * blocks of a distributed matrix) moves nothing. SMPI 3.32's Datatype::copy divides the byte count
 * by a derived type's size, so MPI_Pack and MPI_Unpack of such a type died of SIGFPE (ScaLAPACK's
 * xdllt). Arguments SMPI would refuse still go to it. */
static int holds_nothing(int count, MPI_Datatype type)
{
  int size = 0;
  return count >= 0 && type != MPI_DATATYPE_NULL && PMPI_Type_size(type, &size) == MPI_SUCCESS &&
         (size == 0 || count == 0);
}

int MPI_Pack(const void *in, int incount, MPI_Datatype type, void *out, int outsize, int *position, MPI_Comm comm)
{
  if (position && comm != MPI_COMM_NULL && holds_nothing(incount, type))
    return MPI_SUCCESS;
  return icsim_error(comm, "MPI_Pack", PMPI_Pack(in, incount, type, out, outsize, position, comm));
}

int MPI_Unpack(const void *in, int insize, int *position, void *out, int outcount, MPI_Datatype type, MPI_Comm comm)
{
  if (position && comm != MPI_COMM_NULL && holds_nothing(outcount, type))
    return MPI_SUCCESS;
  return icsim_error(comm, "MPI_Unpack", PMPI_Unpack(in, insize, position, out, outcount, type, comm));
}
