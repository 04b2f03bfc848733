/* SkifCh semantics exercised by a real program (stacks/skifch/tests/test_skifch_e2e.c runs it
 * with `icsim run` and checks what it prints against hand-derived values). First argument: the
 * check. Rank 1 receives; rank 0 (and rank 2 for `order`) send. */
#include <errno.h>
#include <mpi.h>
#include <skifch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char big[1 << 16];

static ssize_t send1(SkifCh *ch, netaddr_t dst, const void *p, size_t n)
{
  struct iovec v = {(void *)p, n};
  return SkifCh_Send(ch, dst, &v, 1);
}

static ssize_t recv1(SkifCh *ch, struct iovec *c, int *k)
{
  ssize_t n;
  while ((n = SkifCh_Recv(ch, c, k)) == 0)
    ;
  return n;
}

/* recv-buffer 20 KiB, max-message 8 KiB: 8192 + 8192 fit, the third Send gets the 4096 B left
 * (a prefix), the fourth is refused. Once the receiver completes one 8 KiB message, a retry
 * succeeds after the credit returns. */
static void prefix(int rank, SkifCh *ch)
{
  netaddr_t dst = SKIFCH_ADDR(1, 0);
  if (rank == 0) {
    ssize_t a = send1(ch, dst, big, 8192), b = send1(ch, dst, big, 8192), c = send1(ch, dst, big, 10000);
    ssize_t d = send1(ch, dst, big, 10000);
    printf("sent %zd %zd %zd %zd errno=%s\n", a, b, c, d, d < 0 && errno == EAGAIN ? "EAGAIN" : "other");
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    long refusals = 0;
    ssize_t e;
    while ((e = send1(ch, dst, big, 10000)) < 0)
      refusals++;
    printf("retry sent %zd after %ld refusals, %.3f us after the barrier\n", e, refusals, (MPI_Wtime() - t0) * 1e6);
  } else if (rank == 1) {
    MPI_Barrier(MPI_COMM_WORLD);
    struct iovec c[SKIFCH_CONT_SIZE];
    int k;
    ssize_t n = recv1(ch, c, &k);
    SkifCh_RecvComp(ch);
    printf("received %zd\n", n);
    for (int i = 0; i < 3; i++) {
      recv1(ch, c, &k);
      SkifCh_RecvComp(ch);
    }
  }
}

/* recv-buffer 16 KiB (4 pages): 8192 + 3584 B, completed, put the tail at 11776; 6144 B then come
 * as 512 B (end of page 2) + 4096 B (page 3) + 1536 B (page 0, after the wrap). */
static void pieces(int rank, SkifCh *ch)
{
  netaddr_t dst = SKIFCH_ADDR(1, 0);
  for (int i = 0; i < 6144; i++)
    big[i] = (char)(i % 251);
  if (rank == 0) {
    send1(ch, dst, big, 8192);
    send1(ch, dst, big, 3584);
    MPI_Barrier(MPI_COMM_WORLD); /* the receiver has completed both */
    /* their space reaches this adapter one credit latency (1 us) later: sent earlier, the
     * message would be cut to the 4608 B left (a prefix). Wait 2 us by polling our own channel. */
    struct iovec c[SKIFCH_CONT_SIZE];
    int k;
    for (double t0 = MPI_Wtime(); MPI_Wtime() - t0 < 2e-6;)
      SkifCh_Recv(ch, c, &k);
    printf("sent %zd\n", send1(ch, dst, big, 6144));
  } else if (rank == 1) {
    struct iovec c[SKIFCH_CONT_SIZE];
    int k;
    recv1(ch, c, &k);
    SkifCh_RecvComp(ch);
    recv1(ch, c, &k);
    SkifCh_RecvComp(ch);
    MPI_Barrier(MPI_COMM_WORLD);
    ssize_t n = recv1(ch, c, &k);
    int ok = 1;
    size_t at = 0;
    for (int i = 0; i < k; i++)
      for (size_t j = 0; j < c[i].iov_len; j++, at++)
        ok &= ((char *)c[i].iov_base)[j] == (char)(at % 251);
    printf("message %zd in %d pieces:", n, k);
    for (int i = 0; i < k; i++)
      printf(" %zu", c[i].iov_len);
    printf(" content %s\n", ok ? "ok" : "WRONG");
    SkifCh_RecvComp(ch);
  }
}

/* Ranks 0 and 2 each send 200 messages (sender, sequence) to rank 1 at once. */
static void order(int rank, SkifCh *ch)
{
  netaddr_t dst = SKIFCH_ADDR(1, 0);
  enum { N = 200 };
  if (rank == 0 || rank == 2) {
    for (int i = 0; i < N; i++) {
      int m[2] = {rank, i};
      while (send1(ch, dst, m, sizeof m) < 0)
        ;
    }
  } else if (rank == 1) {
    int next[3] = {0, 0, 0}, last = -1, switches = 0, ok = 1;
    for (int i = 0; i < 2 * N; i++) {
      struct iovec c[SKIFCH_CONT_SIZE];
      int k, m[2];
      ssize_t n = recv1(ch, c, &k);
      memcpy(m, c[0].iov_base, sizeof m);
      ok &= n == sizeof m && k == 1 && (m[0] == 0 || m[0] == 2) && m[1] == next[m[0]];
      next[m[0]] = m[1] + 1;
      switches += last >= 0 && m[0] != last;
      last = m[0];
      SkifCh_RecvComp(ch);
    }
    printf("order %s: %d from rank 0, %d from rank 2, %d sender switches\n", ok ? "kept" : "BROKEN", next[0], next[2],
           switches);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

/* Rank 1 opens ports 1 and 2; rank 0 sends 'A' to port 1 and 'B' to port 2, ten each, alternating.
 * Each channel gets only its own. */
static void separation(int rank)
{
  SkifCh *p1 = NULL, *p2 = NULL, *s = NULL;
  if (rank == 1) {
    p1 = SkifCh_Open(1);
    p2 = SkifCh_Open(2);
  } else
    s = SkifCh_Open(1);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    for (int i = 0; i < 10; i++) {
      while (send1(s, SKIFCH_ADDR(1, 1), "A", 1) < 0)
        ;
      while (send1(s, SKIFCH_ADDR(1, 2), "B", 1) < 0)
        ;
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 1) {
    int a = 0, b = 0, wrong = 0;
    struct iovec c[SKIFCH_CONT_SIZE];
    int k;
    for (int i = 0; i < 10; i++) {
      recv1(p2, c, &k);
      b += *(char *)c[0].iov_base == 'B';
      SkifCh_RecvComp(p2);
    }
    wrong += SkifCh_Recv(p2, c, &k) != 0;
    for (int i = 0; i < 10; i++) {
      recv1(p1, c, &k);
      a += *(char *)c[0].iov_base == 'A';
      SkifCh_RecvComp(p1);
    }
    wrong += SkifCh_Recv(p1, c, &k) != 0;
    printf("port 1 got %d A, port 2 got %d B, %d extra\n", a, b, wrong);
    errno = 0;
    printf("second open of port 1: %s\n", !SkifCh_Open(1) && errno == EADDRINUSE ? "EADDRINUSE" : "WRONG");
    SkifCh_Close(p1);
    SkifCh_Close(p2);
  } else
    SkifCh_Close(s);
}

/* Rank 1 spins on its empty channel while rank 0 sleeps 100 us, then sends 8 KiB: the program sees
 * the message at the first poll at or after it lands. Prints when (from rank 1's first look) and how
 * many empty receives the program saw. */
static void spin(int rank, SkifCh *ch)
{
  if (rank == 0) {
    usleep(100);
    send1(ch, SKIFCH_ADDR(1, 0), big, 8192);
  } else if (rank == 1) {
    struct iovec c[SKIFCH_CONT_SIZE];
    int k;
    long empty = 0;
    double t0 = MPI_Wtime();
    while (SkifCh_Recv(ch, c, &k) == 0)
      empty++;
    double t = MPI_Wtime();
    SkifCh_RecvComp(ch);
    printf("spin: seen %.6f ns after the first look, %ld empty receives\n", (t - t0) * 1e9, empty);
  }
}

/* Rank 1 waits for a message nobody sends. */
static void nosend(int rank, SkifCh *ch)
{
  struct iovec c[SKIFCH_CONT_SIZE];
  int k;
  if (rank == 1)
    recv1(ch, c, &k);
}

/* The receiver takes messages and never completes them: the sender is refused for ever. */
static void forget(int rank, SkifCh *ch)
{
  if (rank == 0) {
    for (;;)
      send1(ch, SKIFCH_ADDR(1, 0), big, 4096);
  } else if (rank == 1) {
    struct iovec c[SKIFCH_CONT_SIZE];
    int k;
    for (;;)
      SkifCh_Recv(ch, c, &k);
  }
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const char *what = argc > 1 ? argv[1] : "";
  if (!strcmp(what, "separation")) {
    separation(rank);
  } else {
    SkifCh *ch = SkifCh_Open(0);
    MPI_Barrier(MPI_COMM_WORLD);
    if (!strcmp(what, "prefix"))
      prefix(rank, ch);
    else if (!strcmp(what, "pieces"))
      pieces(rank, ch);
    else if (!strcmp(what, "order"))
      order(rank, ch);
    else if (!strcmp(what, "forget"))
      forget(rank, ch);
    else if (!strcmp(what, "spin"))
      spin(rank, ch);
    else if (!strcmp(what, "nosend"))
      nosend(rank, ch);
    else if (rank == 0)
      fprintf(stderr, "skifch_checks: prefix|pieces|order|separation|forget|spin|nosend\n");
    SkifCh_Close(ch);
  }
  MPI_Finalize();
  return 0;
}
