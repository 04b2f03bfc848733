/* Wrong arguments, as a buggy program makes them, on a duplicated communicator of every rank:
 * MPI's error must reach the program through the communicator's error handler, never a crash
 * (issue 39). Argument: the handler to set.
 *   fatal    MPI_ERRORS_ARE_FATAL (the default): rank 1 sends to rank -1000; the run stops
 *   return   MPI_ERRORS_RETURN: rank 1 makes each mistake below and prints the class it got
 *   own      the program's handler: it is called with the error, the call returns the code
 * A communicator split from the duplicate after the handler was set inherits it.
 * Each mistake is one MPICH reports before it acts (tests/mpi/errors_diff.py compares all of them
 * with MPICH); the other ranks meanwhile wait in a barrier, so a mistake that sent or hung shows. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static int calls, last_code;

static void own_handler(MPI_Comm *comm, int *code, ...)
{
  (void)comm;
  calls++;
  last_code = *code;
}

static const char *name(int rc)
{
  int c = rc;
  MPI_Error_class(rc, &c);
  static const struct {
    int c;
    const char *n;
  } t[] = {{MPI_SUCCESS, "MPI_SUCCESS"}, {MPI_ERR_RANK, "MPI_ERR_RANK"},       {MPI_ERR_COUNT, "MPI_ERR_COUNT"},
           {MPI_ERR_TAG, "MPI_ERR_TAG"}, {MPI_ERR_ROOT, "MPI_ERR_ROOT"},       {MPI_ERR_OP, "MPI_ERR_OP"},
           {MPI_ERR_ARG, "MPI_ERR_ARG"}, {MPI_ERR_TYPE, "MPI_ERR_TYPE"},       {MPI_ERR_BUFFER, "MPI_ERR_BUFFER"},
           {MPI_ERR_COMM, "MPI_ERR_COMM"}, {MPI_ERR_WIN, "MPI_ERR_WIN"},      {MPI_ERR_REQUEST, "MPI_ERR_REQUEST"}};
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
    if (t[i].c == c)
      return t[i].n;
  return "another class";
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  const char *mode = argc > 1 ? argv[1] : "fatal";
  int rank, x[4] = {0}, y[4] = {0};
  MPI_Comm dup;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  if (!strcmp(mode, "return"))
    MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
  MPI_Errhandler eh;
  if (!strcmp(mode, "own")) {
    MPI_Comm_create_errhandler(own_handler, &eh);
    MPI_Comm_set_errhandler(dup, eh);
  }
  MPI_Comm split; /* made after the handler is set: it inherits it (MPI 4.0, 9.3) */
  MPI_Comm_split(dup, 0, rank, &split);
  if (rank == 1) {
    MPI_Request req;
    MPI_Datatype uncommitted;
    MPI_Type_contiguous(2, MPI_INT, &uncommitted);
    struct {
      const char *what;
      int rc;
    } got[] = {
        {"send to rank -1000", MPI_Send(x, 1, MPI_INT, -1000, 0, dup)},
        {"send to rank 1<<30", MPI_Send(x, 1, MPI_INT, 1 << 30, 0, dup)},
        {"isend with tag -5", MPI_Isend(x, 1, MPI_INT, 0, -5, dup, &req)},
        {"irecv of -1 elements", MPI_Irecv(x, -1, MPI_INT, 0, 0, dup, &req)},
        {"recv from rank 1000", MPI_Recv(x, 1, MPI_INT, 1000, 0, dup, MPI_STATUS_IGNORE)},
        {"isend without a request", MPI_Isend(x, 1, MPI_INT, 0, 0, dup, NULL)},
        {"send of an uncommitted type", MPI_Send(x, 1, uncommitted, 0, 0, dup)},
        {"send of 4 ints from NULL", MPI_Send(NULL, 4, MPI_INT, 0, 0, dup)},
        {"bcast from root 99", MPI_Bcast(x, 1, MPI_INT, 99, dup)},
        {"allreduce with MPI_OP_NULL", MPI_Allreduce(x, y, 1, MPI_INT, MPI_OP_NULL, dup)},
        {"allreduce in place of itself", MPI_Allreduce(x, x, 1, MPI_INT, MPI_SUM, dup)},
        {"probe with tag -7", MPI_Probe(0, -7, dup, MPI_STATUS_IGNORE)},
        {"send to rank -1000 on a split of it", MPI_Send(x, 1, MPI_INT, -1000, 0, split)},
    };
    for (size_t i = 0; i < sizeof got / sizeof got[0]; i++)
      printf("%s: %s\n", got[i].what, name(got[i].rc));
    if (!strcmp(mode, "own"))
      printf("handler called %d times, last with %s\n", calls, name(last_code));
    fflush(stdout);
    MPI_Type_free(&uncommitted);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Comm_free(&split);
  MPI_Comm_free(&dup);
  if (!rank)
    printf("No Errors\n");
  MPI_Finalize();
  return 0;
}
