/* Error classes, codes and strings a program adds (MPI_Add_error_class, MPI_Add_error_code,
 * MPI_Add_error_string) and the calls that read them back (MPI_Error_class, MPI_Error_string,
 * the MPI_LASTUSEDCODE attribute).
 *
 * Why here: SMPI 3.32 declares the three MPI_Add_error_* calls but only warns and returns
 * MPI_SUCCESS, leaving the new class or code unset, so a program went on with an uninitialised
 * value (MPICH's errhan tests: wrong classes, a crash in the error handler). Its MPI_Error_class
 * returns any code as its own class, and MPI_Error_string knows only the predefined codes.
 *
 * Values above MPI_ERR_LASTCODE are the program's, handed out in order; MPI allows them to differ
 * between processes, and the table is shared by all ranks (SMPI runs them in one process, one at
 * a time), so every value is unique and any rank reads it back. */
#include <stdlib.h>
#include <string.h>

#include "layer.h"

struct added {
  int cls;   /* the class: its own value for a class */
  char *str; /* MPI_Add_error_string's, or NULL (the empty string) */
};

static struct added *added;
static int nadded, cap;
static int last_used = MPI_ERR_LASTCODE; /* MPI_LASTUSEDCODE */

static struct added *find(int code)
{
  int i = code - MPI_ERR_LASTCODE - 1;
  return i >= 0 && i < nadded ? &added[i] : NULL;
}

static int add(int cls, int *out)
{
  if (nadded == cap) {
    int n = cap ? 2 * cap : 64;
    struct added *a = realloc(added, (size_t)n * sizeof *a);
    if (!a)
      return MPI_ERR_NO_MEM;
    added = a;
    cap = n;
  }
  int code = MPI_ERR_LASTCODE + 1 + nadded;
  added[nadded++] = (struct added){cls < 0 ? code : cls, NULL};
  *out = last_used = code;
  return MPI_SUCCESS;
}

int MPI_Add_error_class(int *errorclass)
{
  if (!errorclass)
    return icsim_error(MPI_COMM_NULL, "MPI_Add_error_class", MPI_ERR_ARG);
  return icsim_error(MPI_COMM_NULL, "MPI_Add_error_class", add(-1, errorclass));
}

int MPI_Add_error_code(int errorclass, int *errorcode)
{
  const struct added *c = find(errorclass);
  int predefined = errorclass >= 0 && errorclass <= MPI_ERR_LASTCODE;
  if (!errorcode || (!predefined && (!c || c->cls != errorclass)))
    return icsim_error(MPI_COMM_NULL, "MPI_Add_error_code", MPI_ERR_ARG);
  return icsim_error(MPI_COMM_NULL, "MPI_Add_error_code", add(errorclass, errorcode));
}

/* Only for the program's own classes and codes: MPI makes it erroneous for a predefined one. */
int MPI_Add_error_string(int errorcode, char *string)
{
  struct added *e = find(errorcode);
  if (!e || !string)
    return icsim_error(MPI_COMM_NULL, "MPI_Add_error_string", MPI_ERR_ARG);
  char *s = strndup(string, MPI_MAX_ERROR_STRING - 1);
  if (!s)
    return icsim_error(MPI_COMM_NULL, "MPI_Add_error_string", MPI_ERR_NO_MEM);
  free(e->str);
  e->str = s;
  return MPI_SUCCESS;
}

int MPI_Error_class(int errorcode, int *errorclass)
{
  const struct added *e = find(errorcode);
  if (!e)
    return PMPI_Error_class(errorcode, errorclass);
  if (!errorclass)
    return icsim_error(MPI_COMM_NULL, "MPI_Error_class", MPI_ERR_ARG);
  *errorclass = e->cls;
  return MPI_SUCCESS;
}

int MPI_Error_string(int errorcode, char *string, int *resultlen)
{
  const struct added *e = find(errorcode);
  if (!e)
    return PMPI_Error_string(errorcode, string, resultlen);
  if (!string || !resultlen)
    return icsim_error(MPI_COMM_NULL, "MPI_Error_string", MPI_ERR_ARG);
  const char *s = e->str ? e->str : ""; /* a class or code without a string: the empty string */
  size_t n = strlen(s);
  memcpy(string, s, n + 1);
  *resultlen = (int)n;
  return MPI_SUCCESS;
}

/* MPI_LASTUSEDCODE: the largest value handed out so far (SMPI's stays MPI_ERR_LASTCODE). */
int MPI_Comm_get_attr(MPI_Comm comm, int keyval, void *value, int *flag)
{
  if (keyval == MPI_LASTUSEDCODE && comm != MPI_COMM_NULL && value && flag) {
    *(int **)value = &last_used;
    *flag = 1;
    return MPI_SUCCESS;
  }
  return PMPI_Comm_get_attr(comm, keyval, value, flag);
}

int MPI_Attr_get(MPI_Comm comm, int keyval, void *value, int *flag)
{
  return MPI_Comm_get_attr(comm, keyval, value, flag);
}
