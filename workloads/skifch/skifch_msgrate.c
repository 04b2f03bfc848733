/* MsgRate (the SkifCh paper's test) written against SkifCh instead of MPI: rank 0 only sends,
 * rank 1 only receives, N messages of SIZE bytes between two barriers; rate = N / elapsed.
 * Same options and output as osu_msgrate. A message longer than the network allows is sent as
 * the prefixes SkifCh_Send accepts and reassembled by the receiver into its buffer (the paper:
 * large transfers are cut by the sender and reassembled by the receiver); a refused send is
 * retried. MPI is used only to start, for the barriers and to finish. */
#include <errno.h>
#include <mpi.h>
#include <skifch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../osu/osu_util.h"

#define PORT 7

static void send_all(SkifCh *ch, netaddr_t dst, const char *buf, size_t size)
{
  size_t done = 0;
  while (done < size) {
    struct iovec v = {(void *)(buf + done), size - done};
    ssize_t n = SkifCh_Send(ch, dst, &v, 1);
    if (n > 0)
      done += (size_t)n;
    else if (n < 0 && errno != EAGAIN && errno != ENXIO) {
      perror("skifch_msgrate: SkifCh_Send");
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
  }
}

/* Receive SIZE bytes (one or more messages) into BUF, copying out of the ring. */
static void recv_all(SkifCh *ch, char *buf, size_t size)
{
  size_t done = 0;
  while (done < size) {
    struct iovec cont[SKIFCH_CONT_SIZE];
    int k;
    ssize_t n = SkifCh_Recv(ch, cont, &k);
    if (n <= 0)
      continue;
    for (int i = 0; i < k; i++) {
      memcpy(buf + done, cont[i].iov_base, cont[i].iov_len);
      done += cont[i].iov_len;
    }
    SkifCh_RecvComp(ch);
  }
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int rank, np, status;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  struct osu_opts o = {1, 1 << 16, 10000, 1000, 100, 10, 0, 0, 0};
  if (osu_parse(argc, argv, &o, "skifch_msgrate", 0, &status)) {
    MPI_Finalize();
    return status;
  }
  if (np < 2) {
    if (rank == 0)
      fprintf(stderr, "skifch_msgrate: needs at least 2 ranks\n");
    MPI_Finalize();
    return 2;
  }
  SkifCh *ch = rank < 2 ? SkifCh_Open(PORT) : NULL;
  if (rank < 2 && !ch) {
    perror("skifch_msgrate: SkifCh_Open");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Barrier(MPI_COMM_WORLD); /* every channel is open before anyone sends */
  char *buf = osu_buffer(o.max_size, 'a');
  netaddr_t peer = SKIFCH_ADDR(1, PORT);
  if (rank == 0)
    printf("# icsim message-rate test over SkifCh (MsgRate: channel sends 0 -> 1)\n# Size        Messages/s\n");
  for (size_t size = o.min_size; size <= o.max_size; size = osu_next_size(size)) {
    int n = osu_iters(&o, size), skip = osu_skip(&o, size);
    for (int i = 0; i < skip; i++) {
      if (rank == 0)
        send_all(ch, peer, buf, size);
      else if (rank == 1)
        recv_all(ch, buf, size);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    double start = MPI_Wtime();
    for (int i = 0; i < n; i++) {
      if (rank == 0)
        send_all(ch, peer, buf, size);
      else if (rank == 1)
        recv_all(ch, buf, size);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    double elapsed = MPI_Wtime() - start;
    if (rank == 0)
      printf("%-10zu%18.2f\n", size, n / elapsed);
    fflush(stdout);
  }
  osu_free(buf);
  if (ch)
    SkifCh_Close(ch);
  MPI_Finalize();
  return 0;
}
