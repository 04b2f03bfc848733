/* The program's own error classes, codes and strings, and errors it raises itself:
 * MPI_Add_error_class / _code / _string, MPI_Error_class and MPI_Error_string on them (and on a
 * predefined code), MPI_LASTUSEDCODE, MPI_Comm_call_errhandler with MPI_ERRORS_RETURN (returns)
 * and with the program's handler (called with the code, on the communicator), a code added to a
 * predefined class. Correct MPI that prints No Errors on MPICH. */
#include "suite.h"

static int seen_code = -1, seen_calls;
static MPI_Comm seen_comm = MPI_COMM_NULL;

static void handler(MPI_Comm *comm, int *code, ...)
{
  seen_calls++;
  seen_code = *code;
  seen_comm = *comm;
}

int main(int argc, char **argv)
{
  suite_init(&argc, &argv);
  enum { NCLASS = 6, NCODE = 3 };
  int cls[NCLASS], code[NCLASS][NCODE], out;
  char s[MPI_MAX_ERROR_STRING], want[MPI_MAX_ERROR_STRING];
  int len;
  suite_step("add classes, codes and strings");
  for (int i = 0; i < NCLASS; i++) {
    MPI_OK(MPI_Add_error_class(&cls[i]));
    CHECK(cls[i] > MPI_ERR_LASTCODE, "class %d is %d, not above MPI_ERR_LASTCODE", i, cls[i]);
    for (int j = 0; j < NCODE; j++) {
      MPI_OK(MPI_Add_error_code(cls[i], &code[i][j]));
      snprintf(want, sizeof want, "rank %d class %d code %d", suite_rank, i, j);
      MPI_OK(MPI_Add_error_string(code[i][j], want));
    }
  }
  suite_step("read them back");
  for (int i = 0; i < NCLASS; i++) {
    MPI_OK(MPI_Error_class(cls[i], &out));
    CHECK(out == cls[i], "class of class %d: %d, not %d", i, out, cls[i]);
    MPI_OK(MPI_Error_string(cls[i], s, &len));
    CHECK(len == 0 && s[0] == '\0', "class %d without a string reads \"%s\"", i, s);
    for (int j = 0; j < NCODE; j++) {
      CHECK(code[i][j] != cls[i], "code %d of class %d has the class's value", j, i);
      MPI_OK(MPI_Error_class(code[i][j], &out));
      CHECK(out == cls[i], "class of code %d/%d: %d, not %d", i, j, out, cls[i]);
      snprintf(want, sizeof want, "rank %d class %d code %d", suite_rank, i, j);
      MPI_OK(MPI_Error_string(code[i][j], s, &len));
      CHECK(!strcmp(s, want) && len == (int)strlen(want), "string of code %d/%d: \"%s\"", i, j, s);
    }
  }
  suite_step("a code in a predefined class");
  int argcode;
  MPI_OK(MPI_Add_error_code(MPI_ERR_ARG, &argcode));
  MPI_OK(MPI_Error_class(argcode, &out));
  CHECK(out == MPI_ERR_ARG, "class of a code added to MPI_ERR_ARG: %d", out);
  MPI_OK(MPI_Error_class(MPI_ERR_TRUNCATE, &out));
  CHECK(out == MPI_ERR_TRUNCATE, "class of MPI_ERR_TRUNCATE: %d", out);
  MPI_OK(MPI_Error_string(MPI_ERR_TRUNCATE, s, &len));
  CHECK(len > 0, "MPI_ERR_TRUNCATE has no string");
  suite_step("MPI_LASTUSEDCODE");
  int *last, flag = 0;
  MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &flag));
  CHECK(flag && *last >= argcode, "MPI_LASTUSEDCODE: flag %d, value %d, last code added %d", flag,
        flag ? *last : -1, argcode);
  suite_step("MPI_Comm_call_errhandler");
  MPI_Comm dup;
  MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  MPI_OK(MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN));
  CHECK(MPI_Comm_call_errhandler(dup, code[0][1]) == MPI_SUCCESS, "MPI_ERRORS_RETURN: call did not return success");
  MPI_Errhandler eh;
  MPI_OK(MPI_Comm_create_errhandler(handler, &eh));
  MPI_OK(MPI_Comm_set_errhandler(dup, eh));
  MPI_OK(MPI_Errhandler_free(&eh));
  MPI_OK(MPI_Comm_call_errhandler(dup, code[2][0]));
  CHECK(seen_calls == 1 && seen_code == code[2][0], "handler: %d calls, code %d (expected 1, %d)", seen_calls,
        seen_code, code[2][0]);
  int same = MPI_UNEQUAL;
  if (seen_comm != MPI_COMM_NULL)
    MPI_Comm_compare(seen_comm, dup, &same);
  CHECK(same == MPI_IDENT, "handler called on another communicator");
  MPI_OK(MPI_Comm_free(&dup));
  return suite_finish();
}
