/* Error classes, codes and strings a program adds (MPI_Add_error_class, MPI_Add_error_code,
 * MPI_Add_error_string) and the calls that read them back (MPI_Error_class, MPI_Error_string,
 * the MPI_LASTUSEDCODE attribute, which attr.c answers).
 *
 * Why here: SMPI 3.32 declares the three MPI_Add_error_* calls but only warns and returns
 * MPI_SUCCESS, leaving the new class or code unset, so a program went on with an uninitialised
 * value (MPICH's errhan tests: wrong classes, a crash in the error handler). Its MPI_Error_class
 * returns any code as its own class, and MPI_Error_string knows only the predefined codes.
 *
 * Values above MPI_ERR_LASTCODE are the program's, handed out in order; MPI allows them to differ
 * between processes, and the table is shared by all ranks (SMPI runs them in one process, one at
 * a time), so every value is unique and any rank reads it back.
 *
 * Error handlers: what every call of the layer does with a failure (icsim_error,
 * icsim_win_error), and MPI_Comm_call_errhandler / MPI_Win_call_errhandler. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layer.h"

struct added {
  int cls;   /* the class: its own value for a class */
  char *str; /* MPI_Add_error_string's, or NULL (the empty string) */
};

static struct added *added;
static int nadded, cap;

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
  *out = icsim_last_used_code = code;
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

/* ---- error handlers ---- */

/* Which argument was wrong and why (checks.c), for the fatal handler's message; NULL: none. */
static const char *detail;
void icsim_error_detail(const char *what) { detail = what; }

/* MPI_ERRORS_ARE_FATAL: say which call failed and how (the argument and its value when the
 * entry checks found it), and stop the run as MPI_Abort would. */
static void fatal(const char *call, int rc, const char *on)
{
  char what[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(rc, what, &len) != MPI_SUCCESS) /* errors.c: the program's codes too */
    len = snprintf(what, sizeof what, "error code %d", rc);
  fprintf(stderr,
          "icsim: rank %d: %s failed: %.*s%s%s%s. The %s's error handler is MPI_ERRORS_ARE_FATAL, so the run stops (set "
          "MPI_ERRORS_RETURN on it to get the error code back)\n",
          icsim_my_rank(), call, len, what, detail ? " (" : "", detail ? detail : "", detail ? ")" : "", on);
  icsim_stop(1);
}

/* Handler EH (a reference the caller got, released here) of the communicator or window ON: stops
 * the run when it is MPI_ERRORS_ARE_FATAL; 1 when it is the program's own, for the caller to call.
 * SMPI takes a null handler as MPI_ERRORS_RETURN. */
static int programs_own(MPI_Errhandler eh, const char *call, int rc, const char *on)
{
  if (eh == MPI_ERRORS_ARE_FATAL)
    fatal(call, rc, on);
  int own = eh != MPI_ERRHANDLER_NULL && eh != MPI_ERRORS_RETURN;
  if (eh != MPI_ERRHANDLER_NULL)
    PMPI_Errhandler_free(&eh);
  return own;
}

int icsim_win_error(MPI_Win win, const char *call, int rc)
{
  if (rc == MPI_SUCCESS || !icsim_runtime_get())
    return rc;
  /* MPICH leaves a new window's handler unset and then raises on MPI_COMM_WORLD's (its
   * MPIR_Err_return_win): a program that set only the world's to MPI_ERRORS_RETURN gets the code */
  if (win == MPI_WIN_NULL || !icsim_win_handler_marked(win))
    return icsim_error(MPI_COMM_NULL, call, rc);
  MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
  if (PMPI_Win_get_errhandler(win, &eh) == MPI_SUCCESS && programs_own(eh, call, rc, "window"))
    PMPI_Win_call_errhandler(win, rc);
  return rc;
}

int icsim_error(MPI_Comm comm, const char *call, int rc)
{
  if (rc == MPI_SUCCESS || !icsim_runtime_get())
    return rc;
  MPI_Comm on = comm == MPI_COMM_NULL ? MPI_COMM_WORLD : comm;
  MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
  if (PMPI_Comm_get_errhandler(on, &eh) != MPI_SUCCESS) {
    on = MPI_COMM_WORLD;
    PMPI_Comm_get_errhandler(on, &eh);
  }
  if (programs_own(eh, call, rc, "communicator"))
    PMPI_Comm_call_errhandler(on, rc);
  return rc;
}

/* A program raising an error itself. SMPI 3.32 calls the predefined handlers' functions, which
 * are null: MPI_ERRORS_ARE_FATAL and MPI_ERRORS_RETURN crashed the program (MPICH's errfatal).
 * Fatal stops the run naming the error, return does nothing, the program's own is called. */
int MPI_Comm_call_errhandler(MPI_Comm comm, int errorcode)
{
  MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
  int rc = PMPI_Comm_get_errhandler(comm, &eh);
  if (rc != MPI_SUCCESS)
    return rc;
  if (programs_own(eh, "MPI_Comm_call_errhandler", errorcode, "communicator"))
    return PMPI_Comm_call_errhandler(comm, errorcode);
  return MPI_SUCCESS;
}

int MPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler)
{
  int rc = PMPI_Win_set_errhandler(win, errhandler);
  if (rc == MPI_SUCCESS)
    icsim_win_handler_mark(win);
  return rc;
}

int MPI_Win_call_errhandler(MPI_Win win, int errorcode)
{
  MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
  int rc = PMPI_Win_get_errhandler(win, &eh);
  if (rc != MPI_SUCCESS)
    return rc;
  if (programs_own(eh, "MPI_Win_call_errhandler", errorcode, "window"))
    return PMPI_Win_call_errhandler(win, errorcode);
  return MPI_SUCCESS;
}
