/* Every send mode (standard, synchronous, ready, buffered; blocking and nonblocking) at 0, 1,
 * 1000 and 100000 bytes, below and above every platform's eager threshold, contents checked.
 *
 * Ring: each rank pre-posts its receive from the left, a barrier makes sure every receive is
 * posted (ready mode needs it), then each rank sends to the right in the mode under test.
 * Pairs: ranks 2k and 2k+1 exchange with the receiver calling a blocking MPI_Recv, one way
 * and back, for the modes that do not need the receive first.
 * Semantics: an Issend does not complete before its receive is posted; Bsend and Ibsend
 * complete without any receive (even above the eager threshold); MPI_Buffer_detach waits for
 * buffered messages and returns the attached buffer and size. */
#include "suite.h"

enum mode { SEND, SSEND, RSEND, BSEND, ISEND, ISSEND, IRSEND, IBSEND, NMODES };
static const char *mode_name[NMODES] = {"Send", "Ssend", "Rsend", "Bsend", "Isend", "Issend", "Irsend", "Ibsend"};
static const int sizes[] = {0, 1, 1000, 100000};
#define NSIZES (int)(sizeof sizes / sizeof sizes[0])
#define MAXBYTES 100000

/* Bytes as a count of a type: ints when they divide evenly, else bytes. */
static MPI_Datatype type_for(int bytes, int *count)
{
  if (bytes >= 4 && bytes % 4 == 0) {
    *count = bytes / 4;
    return MPI_INT;
  }
  *count = bytes;
  return MPI_BYTE;
}

static void send_mode(enum mode m, const void *buf, int count, MPI_Datatype t, int dest, int tag)
{
  MPI_Request r = MPI_REQUEST_NULL;
  switch (m) {
  case SEND: MPI_OK(MPI_Send(buf, count, t, dest, tag, MPI_COMM_WORLD)); break;
  case SSEND: MPI_OK(MPI_Ssend(buf, count, t, dest, tag, MPI_COMM_WORLD)); break;
  case RSEND: MPI_OK(MPI_Rsend(buf, count, t, dest, tag, MPI_COMM_WORLD)); break;
  case BSEND: MPI_OK(MPI_Bsend(buf, count, t, dest, tag, MPI_COMM_WORLD)); break;
  case ISEND: MPI_OK(MPI_Isend(buf, count, t, dest, tag, MPI_COMM_WORLD, &r)); break;
  case ISSEND: MPI_OK(MPI_Issend(buf, count, t, dest, tag, MPI_COMM_WORLD, &r)); break;
  case IRSEND: MPI_OK(MPI_Irsend(buf, count, t, dest, tag, MPI_COMM_WORLD, &r)); break;
  case IBSEND: MPI_OK(MPI_Ibsend(buf, count, t, dest, tag, MPI_COMM_WORLD, &r)); break;
  default: abort();
  }
  if (r != MPI_REQUEST_NULL) {
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK(r == MPI_REQUEST_NULL, "request not MPI_REQUEST_NULL after MPI_Wait");
  }
}

static void check_received(const void *buf, int bytes, const MPI_Status *st, int src, int tag, int seed)
{
  int count, n;
  MPI_Datatype t = type_for(bytes, &count);
  MPI_Get_count(st, t, &n);
  CHECK(st->MPI_SOURCE == src, "MPI_SOURCE %d, expected %d", st->MPI_SOURCE, src);
  CHECK(st->MPI_TAG == tag, "MPI_TAG %d, expected %d", st->MPI_TAG, tag);
  CHECK(n == count, "MPI_Get_count %d, expected %d", n, count);
  long bad = suite_verify(buf, (size_t)bytes, seed);
  CHECK(bad < 0, "byte %ld of %d differs", bad, bytes);
}

static void ring(enum mode m, int bytes, char *sbuf, char *rbuf)
{
  int me = suite_rank, n = suite_size, right = (me + 1) % n, left = (me + n - 1) % n, count;
  int tag = 100 + m * 10;
  MPI_Datatype t = type_for(bytes, &count);
  suite_step("ring %s %d B", mode_name[m], bytes);
  suite_fill(sbuf, (size_t)bytes, me * 100 + m * 7 + bytes);
  memset(rbuf, 0xee, MAXBYTES);
  MPI_Request r;
  MPI_Status st;
  MPI_OK(MPI_Irecv(rbuf, count, t, left, tag, MPI_COMM_WORLD, &r));
  MPI_Barrier(MPI_COMM_WORLD); /* every receive is posted: ready mode is legal */
  send_mode(m, sbuf, count, t, right, tag);
  MPI_OK(MPI_Wait(&r, &st));
  check_received(rbuf, bytes, &st, left, tag, left * 100 + m * 7 + bytes);
}

static void pairs(enum mode m, int bytes, char *sbuf, char *rbuf)
{
  int me = suite_rank, count, tag = 200 + m;
  if ((suite_size & 1) && me == suite_size - 1)
    return; /* odd count: the last rank sits out */
  int peer = me ^ 1;
  MPI_Datatype t = type_for(bytes, &count);
  suite_step("pairs %s %d B", mode_name[m], bytes);
  MPI_Status st;
  for (int leg = 0; leg < 2; leg++) {
    int sender = (me & 1) == leg;
    if (sender) {
      suite_fill(sbuf, (size_t)bytes, me * 1000 + m + leg);
      send_mode(m, sbuf, count, t, peer, tag);
    } else {
      memset(rbuf, 0xee, MAXBYTES);
      MPI_OK(MPI_Recv(rbuf, count, t, peer, tag, MPI_COMM_WORLD, &st));
      check_received(rbuf, bytes, &st, peer, tag, peer * 1000 + m + leg);
    }
  }
}

/* An Issend must not complete while its receive cannot have been posted. */
static void issend_waits_for_receive(char *sbuf, char *rbuf)
{
  int me = suite_rank, n = suite_size, right = (me + 1) % n, left = (me + n - 1) % n;
  for (int s = 0; s < NSIZES; s++) {
    int bytes = sizes[s];
    suite_step("Issend not complete before the receive, %d B", bytes);
    suite_fill(sbuf, (size_t)bytes, me + 31 * s);
    MPI_Request r;
    int flag = 0;
    MPI_OK(MPI_Issend(sbuf, bytes, MPI_BYTE, right, 300 + s, MPI_COMM_WORLD, &r));
    for (int i = 0; i < 20 && !flag; i++)
      MPI_OK(MPI_Test(&r, &flag, MPI_STATUS_IGNORE));
    CHECK(!flag, "MPI_Issend completed before the matching receive was posted");
    MPI_Barrier(MPI_COMM_WORLD); /* nobody posts the receive before this */
    MPI_Status st;
    MPI_OK(MPI_Recv(rbuf, bytes, MPI_BYTE, left, 300 + s, MPI_COMM_WORLD, &st));
    if (!flag)
      MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    int count;
    MPI_Get_count(&st, MPI_BYTE, &count);
    CHECK(count == bytes, "count %d, expected %d", count, bytes);
    long bad = suite_verify(rbuf, (size_t)bytes, left + 31 * s);
    CHECK(bad < 0, "byte %ld differs", bad);
  }
}

/* Buffered sends complete locally: several of every size leave before any receive exists. */
static void buffered_without_receiver(char *rbuf)
{
  int me = suite_rank, n = suite_size, right = (me + 1) % n, left = (me + n - 1) % n;
  char *msgs[2 * NSIZES];
  MPI_Request reqs[NSIZES];
  for (int s = 0; s < NSIZES; s++) {
    for (int k = 0; k < 2; k++) {
      msgs[2 * s + k] = malloc(MAXBYTES);
      suite_fill(msgs[2 * s + k], (size_t)sizes[s], me * 50 + s * 2 + k);
    }
    suite_step("Bsend %d B before the receive is posted", sizes[s]);
    MPI_OK(MPI_Bsend(msgs[2 * s], sizes[s], MPI_BYTE, right, 400 + s, MPI_COMM_WORLD));
    suite_step("Ibsend %d B before the receive is posted", sizes[s]);
    MPI_OK(MPI_Ibsend(msgs[2 * s + 1], sizes[s], MPI_BYTE, right, 500 + s, MPI_COMM_WORLD, &reqs[s]));
    /* the data is in the attached buffer now: the user's copy may change */
    memset(msgs[2 * s], 0x55, MAXBYTES);
  }
  for (int s = 0; s < NSIZES; s++) {
    suite_step("Ibsend %d B completes locally", sizes[s]);
    int flag = 0;
    for (int i = 0; i < 1000 && !flag; i++)
      MPI_OK(MPI_Test(&reqs[s], &flag, MPI_STATUS_IGNORE));
    CHECK(flag, "MPI_Ibsend not complete with no receive posted (buffered sends complete locally)");
    if (flag)
      memset(msgs[2 * s + 1], 0x55, MAXBYTES);
    else
      MPI_Request_free(&reqs[s]);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  for (int s = NSIZES - 1; s >= 0; s--) /* receive in another order than sent (tags differ) */
    for (int k = 1; k >= 0; k--) {
      suite_step("receive of buffered %d B (%s)", sizes[s], k ? "Ibsend" : "Bsend");
      MPI_Status st;
      memset(rbuf, 0xee, MAXBYTES);
      MPI_OK(MPI_Recv(rbuf, sizes[s], MPI_BYTE, left, (k ? 500 : 400) + s, MPI_COMM_WORLD, &st));
      int count;
      MPI_Get_count(&st, MPI_BYTE, &count);
      CHECK(count == sizes[s], "count %d, expected %d", count, sizes[s]);
      long bad = suite_verify(rbuf, (size_t)sizes[s], left * 50 + s * 2 + k);
      CHECK(bad < 0, "byte %ld differs", bad);
    }
  for (int i = 0; i < 2 * NSIZES; i++)
    free(msgs[i]);
}

int main(int argc, char **argv)
{
  suite_init(&argc, &argv);
  if (!suite_need(2))
    return suite_finish();
  char *sbuf = malloc(MAXBYTES), *rbuf = malloc(MAXBYTES);
  /* room for every buffered message in flight at once (buffered_without_receiver has 8) */
  int bsize = 2 * NSIZES * (MAXBYTES + MPI_BSEND_OVERHEAD) + 1024;
  char *bbuf = malloc((size_t)bsize);
  suite_step("MPI_Buffer_attach");
  MPI_OK(MPI_Buffer_attach(bbuf, bsize));

  for (int s = 0; s < NSIZES; s++)
    for (int m = 0; m < NMODES; m++)
      ring((enum mode)m, sizes[s], sbuf, rbuf);
  for (int s = 0; s < NSIZES; s++)
    for (int m = 0; m < NMODES; m++)
      if (m != RSEND && m != IRSEND)
        pairs((enum mode)m, sizes[s], sbuf, rbuf);
  MPI_Barrier(MPI_COMM_WORLD);
  issend_waits_for_receive(sbuf, rbuf);
  MPI_Barrier(MPI_COMM_WORLD);
  buffered_without_receiver(rbuf);

  suite_step("MPI_Buffer_detach");
  void *back = NULL;
  int back_size = 0;
  MPI_OK(MPI_Buffer_detach(&back, &back_size));
  CHECK(back == bbuf, "MPI_Buffer_detach returned %p, attached %p", back, (void *)bbuf);
  CHECK(back_size == bsize, "MPI_Buffer_detach returned size %d, attached %d", back_size, bsize);
  /* a second attach/detach cycle with a small buffer still works */
  suite_step("second MPI_Buffer_attach, Bsend, detach");
  int small = 4096 + MPI_BSEND_OVERHEAD;
  char *sb = malloc((size_t)small);
  MPI_OK(MPI_Buffer_attach(sb, small));
  int me = suite_rank, n = suite_size;
  suite_fill(sbuf, 1000, me + 7000);
  MPI_OK(MPI_Bsend(sbuf, 1000, MPI_BYTE, (me + 1) % n, 600, MPI_COMM_WORLD));
  MPI_OK(MPI_Recv(rbuf, 1000, MPI_BYTE, (me + n - 1) % n, 600, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  long bad = suite_verify(rbuf, 1000, (me + n - 1) % n + 7000);
  CHECK(bad < 0, "byte %ld differs", bad);
  MPI_OK(MPI_Buffer_detach(&back, &back_size));
  CHECK(back == sb && back_size == small, "second detach returned %p/%d, attached %p/%d", back, back_size,
        (void *)sb, small);
  free(sb);
  free(bbuf);
  free(sbuf);
  free(rbuf);
  return suite_finish();
}
