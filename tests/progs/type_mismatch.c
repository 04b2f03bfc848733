/* An erroneous program MPICH runs: messages received with another predefined type than they were
 * sent with (MPI 3.1, 3.3.1 requires matching type signatures; MPICH checks none and delivers the
 * bytes). Rank 0 sends MPI_INT values, rank 1 receives them into MPI_CHAR buffers by MPI_Irecv +
 * MPI_Wait, MPI_Recv, MPI_Sendrecv and a persistent receive, and into MPI_INT as MPI_FLOAT (same
 * size), under the default MPI_ERRORS_ARE_FATAL: each receive succeeds with the bytes sent, the
 * count in the receive's type. Two doubles received into two ints are more bytes than the buffer
 * holds: MPI_ERR_TRUNCATE, returned under MPI_ERRORS_RETURN. Prints "type_mismatch: N wrong" (rank 1). Runs clean under native MPICH. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static int bad;

static void expect_bytes(const char *what, const unsigned char *got, const int *sent, int n)
{
  if (memcmp(got, sent, (size_t)n * sizeof(int)) != 0) {
    printf("type_mismatch: %s: bytes differ\n", what);
    bad++;
  }
}

static void expect_count(const char *what, const MPI_Status *st, MPI_Datatype t, int want)
{
  int c = -1;
  MPI_Get_count(st, t, &c);
  if (c != want) {
    printf("type_mismatch: %s: count %d, expected %d\n", what, c, want);
    bad++;
  }
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int rank, n;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  int v[4] = {0x01020304, 0x05060708, -1, 42};
  double d[2] = {1.5, -2.25};
  unsigned char c[64];
  int ints[4];
  MPI_Status st;
  MPI_Request r;
  if (rank == 0) {
    for (int tag = 1; tag <= 4; tag++)
      MPI_Send(v, 4, MPI_INT, 1, tag, MPI_COMM_WORLD);
    MPI_Sendrecv(v, 4, MPI_INT, 1, 5, c, 0, MPI_CHAR, 1, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(d, 2, MPI_DOUBLE, 1, 7, MPI_COMM_WORLD);
  } else if (rank == 1) {
    memset(c, 0, sizeof c);
    MPI_Irecv(c, 64, MPI_CHAR, 0, 1, MPI_COMM_WORLD, &r);
    if (MPI_Wait(&r, &st) != MPI_SUCCESS) {
      printf("type_mismatch: Irecv+Wait failed\n");
      bad++;
    }
    expect_bytes("Irecv+Wait", c, v, 4);
    expect_count("Irecv+Wait", &st, MPI_CHAR, 16);

    memset(c, 0, sizeof c);
    if (MPI_Recv(c, 64, MPI_UNSIGNED_CHAR, 0, 2, MPI_COMM_WORLD, &st) != MPI_SUCCESS) {
      printf("type_mismatch: Recv failed\n");
      bad++;
    }
    expect_bytes("Recv", c, v, 4);
    expect_count("Recv", &st, MPI_UNSIGNED_CHAR, 16);

    memset(ints, 0, sizeof ints);
    if (MPI_Recv(ints, 4, MPI_FLOAT, 0, 3, MPI_COMM_WORLD, &st) != MPI_SUCCESS) {
      printf("type_mismatch: Recv as MPI_FLOAT failed\n");
      bad++;
    }
    expect_bytes("Recv as MPI_FLOAT", (unsigned char *)ints, v, 4);
    expect_count("Recv as MPI_FLOAT", &st, MPI_FLOAT, 4);

    MPI_Request p;
    memset(c, 0, sizeof c);
    MPI_Recv_init(c, 64, MPI_CHAR, 0, 4, MPI_COMM_WORLD, &p);
    MPI_Start(&p);
    if (MPI_Wait(&p, &st) != MPI_SUCCESS) {
      printf("type_mismatch: persistent receive failed\n");
      bad++;
    }
    MPI_Request_free(&p);
    expect_bytes("persistent receive", c, v, 4);

    memset(c, 0, sizeof c);
    if (MPI_Sendrecv(NULL, 0, MPI_INT, 0, 6, c, 64, MPI_CHAR, 0, 5, MPI_COMM_WORLD, &st) != MPI_SUCCESS) {
      printf("type_mismatch: Sendrecv failed\n");
      bad++;
    }
    expect_bytes("Sendrecv", c, v, 4);

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rc = MPI_Recv(ints, 2, MPI_INT, 0, 7, MPI_COMM_WORLD, &st), cls = MPI_SUCCESS;
    if (rc != MPI_SUCCESS)
      MPI_Error_class(rc, &cls);
    if (cls != MPI_ERR_TRUNCATE) {
      printf("type_mismatch: two doubles into two ints: class %d, expected MPI_ERR_TRUNCATE\n", cls);
      bad++;
    }
    printf("type_mismatch: %d wrong\n", bad);
  }
  MPI_Finalize();
  return 0;
}
