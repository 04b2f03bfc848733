/* MPI_Get_elements and MPI_Get_elements_x: how many basic elements the bytes a receive got hold.
 * SMPI 3.32's stubs abort the program. Counted along the datatype's type map, which SMPI describes
 * through MPI_Type_get_envelope / MPI_Type_get_contents: whole instances of the type count all
 * their basic elements, the bytes left over count the complete basic elements they cover, in
 * type-map order (the order the bytes arrive in). A pair type (MPI_2INT, MPI_DOUBLE_INT ...) is two
 * basic elements, as in MPI's definition of them. */
#include <stdlib.h>

#include "layer.h"

static MPI_Count type_size(MPI_Datatype t)
{
  MPI_Count s = 0;
  PMPI_Type_size_x(t, &s);
  return s;
}

/* A predefined pair type: the size of its first member, or 0. */
static MPI_Count pair_first(MPI_Datatype t)
{
  if (t == MPI_2INT || t == MPI_SHORT_INT || t == MPI_LONG_INT || t == MPI_FLOAT_INT || t == MPI_DOUBLE_INT ||
      t == MPI_LONG_DOUBLE_INT || t == MPI_2FLOAT || t == MPI_2DOUBLE || t == MPI_2LONG)
    return t == MPI_2INT ? (MPI_Count)sizeof(int)
           : t == MPI_SHORT_INT ? (MPI_Count)sizeof(short)
           : t == MPI_LONG_INT || t == MPI_2LONG ? (MPI_Count)sizeof(long)
           : t == MPI_FLOAT_INT || t == MPI_2FLOAT ? (MPI_Count)sizeof(float)
           : t == MPI_DOUBLE_INT || t == MPI_2DOUBLE ? (MPI_Count)sizeof(double)
                                                     : (MPI_Count)sizeof(long double);
  return 0;
}

static int walk(MPI_Datatype t, MPI_Count *left, MPI_Count *elements, int depth);
/* Set by walk when the bytes end inside a basic element (icsim_type_cuts_element). A walk runs to
 * its end without yielding to another rank, so one flag serves them all. */
static int cut;

/* Basic elements in one instance of T (-1: the type map cannot be read). */
static MPI_Count per_instance(MPI_Datatype t, int depth)
{
  MPI_Count left = type_size(t), n = 0;
  return walk(t, &left, &n, depth) == MPI_SUCCESS ? n : -1;
}

/* K instances of SUB, as much of them as LEFT bytes cover. */
static int blocks(MPI_Datatype sub, MPI_Count k, MPI_Count *left, MPI_Count *elements, int depth)
{
  MPI_Count s = type_size(sub);
  if (k <= 0 || *left <= 0)
    return MPI_SUCCESS;
  if (s == 0)
    return MPI_SUCCESS; /* no bytes, no elements to meet */
  MPI_Count e = per_instance(sub, depth + 1);
  if (e < 0)
    return MPI_ERR_TYPE;
  MPI_Count whole = *left / s < k ? *left / s : k;
  *elements += whole * e;
  *left -= whole * s;
  if (whole < k && *left > 0) /* a part of the next instance */
    return walk(sub, left, elements, depth + 1);
  return MPI_SUCCESS;
}

/* One instance of T, as far as LEFT bytes go: the complete basic elements they cover. */
static int walk(MPI_Datatype t, MPI_Count *left, MPI_Count *elements, int depth)
{
  if (depth > 64)
    return MPI_ERR_TYPE;
  int ni = 0, na = 0, nt = 0, combiner = MPI_COMBINER_NAMED;
  if (PMPI_Type_get_envelope(t, &ni, &na, &nt, &combiner) != MPI_SUCCESS)
    return MPI_ERR_TYPE;
  if (combiner == MPI_COMBINER_NAMED || combiner == MPI_COMBINER_F90_REAL || combiner == MPI_COMBINER_F90_COMPLEX ||
      combiner == MPI_COMBINER_F90_INTEGER) {
    MPI_Count s = type_size(t), first = pair_first(t);
    if (first > 0) { /* two members */
      if (*left >= s) {
        *elements += 2, *left -= s;
      } else if (*left >= first) {
        cut |= *left > first;
        *elements += 1, *left = 0;
      } else {
        cut |= *left > 0;
        *left = 0;
      }
    } else if (*left >= s && s > 0) {
      *elements += 1, *left -= s;
    } else {
      cut |= *left > 0;
      *left = 0;
    }
    return MPI_SUCCESS;
  }
  int *ints = malloc(((size_t)ni + 1) * sizeof *ints);
  MPI_Aint *addrs = malloc(((size_t)na + 1) * sizeof *addrs);
  MPI_Datatype *types = malloc(((size_t)nt + 1) * sizeof *types);
  int rc = ints && addrs && types ? PMPI_Type_get_contents(t, ni, na, nt, ints, addrs, types) : MPI_ERR_NO_MEM;
  if (rc == MPI_SUCCESS) {
    switch (combiner) {
    case MPI_COMBINER_DUP:
    case MPI_COMBINER_RESIZED:
      rc = walk(types[0], left, elements, depth + 1);
      break;
    case MPI_COMBINER_CONTIGUOUS:
      rc = blocks(types[0], ints[0], left, elements, depth);
      break;
    case MPI_COMBINER_VECTOR:
    case MPI_COMBINER_HVECTOR:
    case MPI_COMBINER_HVECTOR_INTEGER:
    case MPI_COMBINER_INDEXED_BLOCK:
    case MPI_COMBINER_HINDEXED_BLOCK: /* count blocks of blocklength each */
      rc = blocks(types[0], (MPI_Count)ints[0] * ints[1], left, elements, depth);
      break;
    case MPI_COMBINER_INDEXED:
    case MPI_COMBINER_HINDEXED:
    case MPI_COMBINER_HINDEXED_INTEGER:
      for (int i = 0; i < ints[0] && rc == MPI_SUCCESS && *left > 0; i++)
        rc = blocks(types[0], ints[1 + i], left, elements, depth);
      break;
    case MPI_COMBINER_STRUCT:
    case MPI_COMBINER_STRUCT_INTEGER:
      for (int i = 0; i < ints[0] && rc == MPI_SUCCESS && *left > 0; i++)
        rc = blocks(types[i], ints[1 + i], left, elements, depth);
      break;
    case MPI_COMBINER_SUBARRAY: { /* ndims, sizes, subsizes, starts, order: the subarray's points */
      MPI_Count k = 1;
      for (int d = 0; d < ints[0]; d++)
        k *= ints[1 + ints[0] + d];
      rc = blocks(types[0], k, left, elements, depth);
      break;
    }
    default: { /* DARRAY and anything else: the instances of the old type its size holds */
      MPI_Count s = type_size(types[nt - 1]);
      rc = s > 0 ? blocks(types[nt - 1], type_size(t) / s, left, elements, depth) : MPI_ERR_TYPE;
      break;
    }
    }
    for (int i = 0; i < nt; i++) { /* get_contents handed out a reference to each derived type */
      int a, b, c, comb = MPI_COMBINER_NAMED;
      PMPI_Type_get_envelope(types[i], &a, &b, &c, &comb);
      if (comb != MPI_COMBINER_NAMED)
        PMPI_Type_free(&types[i]);
    }
  }
  free(ints);
  free(addrs);
  free(types);
  return rc;
}

int MPI_Get_elements_x(MPI_Status *status, MPI_Datatype type, MPI_Count *count)
{
  if (status == NULL || status == MPI_STATUS_IGNORE || count == NULL)
    return icsim_error(MPI_COMM_NULL, "MPI_Get_elements", MPI_ERR_ARG);
  if (type == MPI_DATATYPE_NULL)
    return icsim_error(MPI_COMM_NULL, "MPI_Get_elements", MPI_ERR_TYPE);
  int bytes = 0;
  int rc = PMPI_Get_count(status, MPI_BYTE, &bytes);
  if (rc != MPI_SUCCESS)
    return icsim_error(MPI_COMM_NULL, "MPI_Get_elements", rc);
  if (bytes == MPI_UNDEFINED || bytes < 0) {
    *count = MPI_UNDEFINED;
    return MPI_SUCCESS;
  }
  MPI_Count size = type_size(type), left = bytes, n = 0;
  if (size == 0) { /* a type of no data: no elements, whatever came */
    *count = 0;
    return MPI_SUCCESS;
  }
  MPI_Count e = per_instance(type, 0);
  if (e < 0)
    return icsim_error(MPI_COMM_NULL, "MPI_Get_elements", MPI_ERR_TYPE);
  n = (left / size) * e;
  left %= size;
  if (left > 0 && (rc = walk(type, &left, &n, 0)) != MPI_SUCCESS)
    return icsim_error(MPI_COMM_NULL, "MPI_Get_elements", rc);
  *count = n;
  return MPI_SUCCESS;
}

/* Whether BYTES received into TYPE end inside one of its basic elements: MPICH then answers
 * MPI_ERR_TRUNCATE (the signatures do not match: its errors/pt2pt/truncmsg2), where SMPI would leave
 * the part behind. 0 when they end on an element's boundary or the type map cannot be read. */
int icsim_type_cuts_element(MPI_Datatype type, MPI_Count bytes)
{
  MPI_Count size = type_size(type), n = 0;
  if (size <= 0 || bytes <= 0 || bytes % size == 0)
    return 0;
  MPI_Count left = bytes % size;
  cut = 0;
  if (walk(type, &left, &n, 0) != MPI_SUCCESS)
    return 0;
  return cut;
}

int MPI_Get_elements(MPI_Status *status, MPI_Datatype type, int *count)
{
  if (count == NULL)
    return icsim_error(MPI_COMM_NULL, "MPI_Get_elements", MPI_ERR_ARG);
  MPI_Count n = 0;
  int rc = MPI_Get_elements_x(status, type, &n);
  if (rc == MPI_SUCCESS)
    *count = n > 2147483647 ? MPI_UNDEFINED : (int)n;
  return rc;
}

/* MPI_Type_match_size (MPI 3.1, 17.2.5): the predefined type of a class and size, for a program
 * that learns its Fortran kinds' sizes at run time. SMPI 3.32's stub aborts. The Fortran sized types
 * first (what a Fortran kind means), then the C ones; a size no predefined type has is
 * MPI_ERR_ARG. */
int MPI_Type_match_size(int typeclass, int size, MPI_Datatype *type)
{
  if (!icsim_runtime_get())
    return PMPI_Type_match_size(typeclass, size, type);
  MPI_Datatype reals[] = {MPI_REAL4, MPI_REAL8, MPI_REAL16, MPI_FLOAT, MPI_DOUBLE, MPI_LONG_DOUBLE};
  MPI_Datatype ints[] = {MPI_INTEGER1, MPI_INTEGER2, MPI_INTEGER4, MPI_INTEGER8, MPI_INTEGER16,
                         MPI_SIGNED_CHAR, MPI_SHORT, MPI_INT, MPI_LONG_LONG};
  MPI_Datatype complexes[] = {MPI_COMPLEX8, MPI_COMPLEX16, MPI_COMPLEX32, MPI_C_FLOAT_COMPLEX,
                              MPI_C_DOUBLE_COMPLEX, MPI_C_LONG_DOUBLE_COMPLEX};
  const MPI_Datatype *cand = typeclass == MPI_TYPECLASS_REAL      ? reals
                             : typeclass == MPI_TYPECLASS_INTEGER ? ints
                             : typeclass == MPI_TYPECLASS_COMPLEX ? complexes
                                                                  : NULL;
  size_t n = typeclass == MPI_TYPECLASS_REAL      ? sizeof reals / sizeof *reals
             : typeclass == MPI_TYPECLASS_INTEGER ? sizeof ints / sizeof *ints
                                                  : sizeof complexes / sizeof *complexes;
  if (!type)
    return icsim_error(MPI_COMM_NULL, "MPI_Type_match_size", MPI_ERR_ARG);
  for (size_t i = 0; cand && i < n; i++)
    if (cand[i] != MPI_DATATYPE_NULL && size > 0 && type_size(cand[i]) == size) {
      *type = cand[i];
      return MPI_SUCCESS;
    }
  return icsim_error(MPI_COMM_NULL, "MPI_Type_match_size", MPI_ERR_ARG);
}
