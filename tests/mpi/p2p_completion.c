/* Every completion call, with the statuses it must fill:
 * Wait, Waitall, Waitany, Waitsome, Test, Testall, Testany, Testsome, Request_get_status,
 * Request_free on an active send, MPI_STATUS_IGNORE / MPI_STATUSES_IGNORE, MPI_PROC_NULL
 * peers, MPI_REQUEST_NULL entries in arrays, empty and all-null arrays, completion in reverse
 * and random orders, MPI_ANY_SOURCE / MPI_ANY_TAG.
 *
 * Round shape: rank 0 posts receives from every other rank (K messages each, tag = k, size
 * depends on source and k, some above the eager threshold) and completes them with the call
 * under test; the others send them (Isend, completed in a random order). */
#include "suite.h"

#define K 3 /* messages per sender per round */

/* Ints of message K from SRC: small, medium, and above every eager threshold. */
static int msg_count(int src, int k) { return k == 0 ? src : k == 1 ? 100 + 10 * src : 6000 + 100 * src; }
static int msg_seed(int round, int src, int k) { return round * 10000 + src * 10 + k; }

/* The empty status of MPI 3.1 sec. 3.7.3: source ANY_SOURCE, tag ANY_TAG, count 0. */
static void check_empty(const MPI_Status *st, const char *what)
{
  int n = -1;
  MPI_Get_count(st, MPI_INT, &n);
  CHECK(st->MPI_SOURCE == MPI_ANY_SOURCE && st->MPI_TAG == MPI_ANY_TAG && n == 0,
        "%s: status not empty (source %d, tag %d, count %d)", what, st->MPI_SOURCE, st->MPI_TAG, n);
}

/* The status of a receive from MPI_PROC_NULL: source PROC_NULL, tag ANY_TAG, count 0
 * (MPI 3.1 sec. 3.11). NONBLOCKING: the receive was an MPI_Irecv. MPICH 4.0 (Debian 12)
 * returns source 0 and tag 0 for those (its blocking MPI_Recv is right), so on MPICH only
 * the count is checked for them; everywhere else the whole status is. */
static void check_proc_null_status(const MPI_Status *st, const char *what, int nonblocking)
{
  int n = -1;
  MPI_Get_count(st, MPI_INT, &n);
  int strict = 1;
#ifdef MPICH_VERSION
  strict = !nonblocking;
#else
  (void)nonblocking;
#endif
  CHECK(n == 0 && (!strict || (st->MPI_SOURCE == MPI_PROC_NULL && st->MPI_TAG == MPI_ANY_TAG)),
        "%s: receive from MPI_PROC_NULL gave source %d, tag %d, count %d", what, st->MPI_SOURCE, st->MPI_TAG, n);
}
#define check_proc_null(st, what) check_proc_null_status(st, what, 1)

static void check_msg(int round, const int *buf, const MPI_Status *st, int src, int k)
{
  int n = -1;
  MPI_Get_count(st, MPI_INT, &n);
  CHECK(st->MPI_SOURCE == src, "MPI_SOURCE %d, expected %d", st->MPI_SOURCE, src);
  CHECK(st->MPI_TAG == k, "MPI_TAG %d, expected %d", st->MPI_TAG, k);
  CHECK(n == msg_count(src, k), "MPI_Get_count %d, expected %d (from %d, tag %d)", n, msg_count(src, k), src, k);
  long bad = suite_verify(buf, sizeof(int) * (size_t)msg_count(src, k), msg_seed(round, src, k));
  CHECK(bad < 0, "message from %d tag %d: byte %ld differs", src, k, bad);
}

/* The senders' side of a round: K messages to rank 0, completed in a random order. */
static void send_round(int round)
{
  int me = suite_rank;
  int *bufs[K];
  MPI_Request r[K];
  for (int k = 0; k < K; k++) {
    bufs[k] = malloc(sizeof(int) * (size_t)msg_count(me, k) + 1);
    suite_fill(bufs[k], sizeof(int) * (size_t)msg_count(me, k), msg_seed(round, me, k));
    MPI_OK(MPI_Isend(bufs[k], msg_count(me, k), MPI_INT, 0, k, MPI_COMM_WORLD, &r[k]));
  }
  uint32_t state = (uint32_t)(round * 77 + me);
  int order[K];
  suite_shuffle(order, K, &state);
  for (int i = 0; i < K; i++)
    MPI_OK(MPI_Wait(&r[order[i]], MPI_STATUS_IGNORE));
  for (int k = 0; k < K; k++)
    free(bufs[k]);
}

/* Rank 0's side: the receives of a round, in slots [NULLS + i], with NULLS leading
 * MPI_REQUEST_NULL entries, a receive from MPI_PROC_NULL and a trailing null; returns the
 * number of slots. Slot of (src, k): 1 + (src - 1) * K + k. */
struct round {
  int n; /* slots */
  MPI_Request *req;
  int **buf;
  int *src, *k; /* -1: the MPI_PROC_NULL receive; -2: a null slot */
  int *done;
};

static void post_round(struct round *rd, int round)
{
  int n = suite_size;
  rd->n = 1 + (n - 1) * K + 2;
  rd->req = malloc(sizeof *rd->req * (size_t)rd->n);
  rd->buf = calloc((size_t)rd->n, sizeof *rd->buf);
  rd->src = malloc(sizeof(int) * (size_t)rd->n);
  rd->k = malloc(sizeof(int) * (size_t)rd->n);
  rd->done = calloc((size_t)rd->n, sizeof(int));
  rd->req[0] = MPI_REQUEST_NULL;
  rd->src[0] = -2;
  for (int s = 1; s < n; s++)
    for (int k = 0; k < K; k++) {
      int i = 1 + (s - 1) * K + k;
      rd->src[i] = s;
      rd->k[i] = k;
      rd->buf[i] = malloc(sizeof(int) * (size_t)(msg_count(s, k) + 1));
      MPI_OK(MPI_Irecv(rd->buf[i], msg_count(s, k) + 1, MPI_INT, s, k, MPI_COMM_WORLD, &rd->req[i]));
    }
  int p = rd->n - 2;
  rd->src[p] = -1;
  rd->buf[p] = malloc(sizeof(int));
  MPI_OK(MPI_Irecv(rd->buf[p], 1, MPI_INT, MPI_PROC_NULL, 5, MPI_COMM_WORLD, &rd->req[p]));
  rd->req[rd->n - 1] = MPI_REQUEST_NULL;
  rd->src[rd->n - 1] = -2;
  (void)round;
}

/* Slot I completed with status ST (NULL: statuses ignored). */
static void slot_done(struct round *rd, int round, int i, const MPI_Status *st, const char *what)
{
  CHECK(i >= 0 && i < rd->n, "%s: index %d out of range", what, i);
  if (i < 0 || i >= rd->n)
    return;
  CHECK(rd->src[i] != -2, "%s: index %d is an MPI_REQUEST_NULL slot", what, i);
  CHECK(!rd->done[i], "%s: index %d completed twice", what, i);
  CHECK(rd->req[i] == MPI_REQUEST_NULL, "%s: completed request %d not set to MPI_REQUEST_NULL", what, i);
  rd->done[i]++;
  if (!st || rd->src[i] == -2)
    return;
  if (rd->src[i] == -1)
    check_proc_null(st, what);
  else
    check_msg(round, rd->buf[i], st, rd->src[i], rd->k[i]);
}

static void finish_round(struct round *rd, const char *what)
{
  for (int i = 0; i < rd->n; i++) {
    if (rd->src[i] != -2)
      CHECK(rd->done[i] == 1, "%s: slot %d (source %d) completed %d times", what, i, rd->src[i], rd->done[i]);
    free(rd->buf[i]);
  }
  free(rd->req);
  free(rd->buf);
  free(rd->src);
  free(rd->k);
  free(rd->done);
}

static int all_null(const struct round *rd)
{
  for (int i = 0; i < rd->n; i++)
    if (rd->req[i] != MPI_REQUEST_NULL)
      return 0;
  return 1;
}

enum method { WAIT_REVERSE, WAIT_RANDOM, WAITALL, WAITALL_IGNORE, WAITANY, WAITSOME, WAITSOME_IGNORE, TEST, TESTALL,
              TESTANY, TESTSOME, GET_STATUS, NMETHODS };
static const char *method_name[NMETHODS] = {"Wait (reverse order)", "Wait (random order)", "Waitall", "Waitall (STATUSES_IGNORE)",
                                             "Waitany", "Waitsome", "Waitsome (STATUSES_IGNORE)", "Test",
                                             "Testall", "Testany", "Testsome", "Request_get_status + Wait"};

static void receive_round(int round, enum method m)
{
  struct round rd;
  post_round(&rd, round);
  const char *what = method_name[m];
  MPI_Status *sts = malloc(sizeof *sts * (size_t)rd.n);
  int *idx = malloc(sizeof(int) * (size_t)rd.n);
  int outcount, index, flag, guard = 0;
  switch (m) {
  case WAIT_REVERSE:
  case WAIT_RANDOM: {
    int *order = malloc(sizeof(int) * (size_t)rd.n);
    uint32_t state = (uint32_t)round + 1;
    suite_shuffle(order, rd.n, &state);
    for (int j = 0; j < rd.n; j++) {
      int i = m == WAIT_REVERSE ? rd.n - 1 - j : order[j];
      MPI_Status st;
      int was_null = rd.req[i] == MPI_REQUEST_NULL;
      MPI_OK(MPI_Wait(&rd.req[i], &st));
      if (was_null)
        check_empty(&st, "MPI_Wait on MPI_REQUEST_NULL");
      else
        slot_done(&rd, round, i, &st, what);
    }
    free(order);
    break;
  }
  case WAITALL:
    for (int i = 0; i < rd.n; i++)
      sts[i].MPI_SOURCE = sts[i].MPI_TAG = 12345;
    MPI_OK(MPI_Waitall(rd.n, rd.req, sts));
    for (int i = 0; i < rd.n; i++)
      if (rd.src[i] == -2)
        check_empty(&sts[i], "MPI_Waitall status of an MPI_REQUEST_NULL entry");
      else
        slot_done(&rd, round, i, &sts[i], what);
    break;
  case WAITALL_IGNORE:
    MPI_OK(MPI_Waitall(rd.n, rd.req, MPI_STATUSES_IGNORE));
    for (int i = 0; i < rd.n; i++)
      if (rd.src[i] != -2) {
        slot_done(&rd, round, i, NULL, what);
        if (rd.src[i] >= 0) {
          long bad = suite_verify(rd.buf[i], sizeof(int) * (size_t)msg_count(rd.src[i], rd.k[i]),
                                  msg_seed(round, rd.src[i], rd.k[i]));
          CHECK(bad < 0, "message from %d tag %d: byte %ld differs", rd.src[i], rd.k[i], bad);
        }
      }
    break;
  case WAITANY:
    for (;;) {
      MPI_Status st;
      MPI_OK(MPI_Waitany(rd.n, rd.req, &index, &st));
      if (index == MPI_UNDEFINED) {
        CHECK(all_null(&rd), "MPI_Waitany returned MPI_UNDEFINED with active requests left");
        check_empty(&st, "MPI_Waitany with no active request");
        break;
      }
      slot_done(&rd, round, index, &st, what);
      if (++guard > rd.n)
        break;
    }
    break;
  case WAITSOME:
  case WAITSOME_IGNORE:
    for (;;) {
      MPI_OK(MPI_Waitsome(rd.n, rd.req, &outcount, idx, m == WAITSOME ? sts : MPI_STATUSES_IGNORE));
      if (outcount == MPI_UNDEFINED) {
        CHECK(all_null(&rd), "MPI_Waitsome returned MPI_UNDEFINED with active requests left");
        break;
      }
      CHECK(outcount >= 1, "MPI_Waitsome returned outcount %d", outcount);
      for (int j = 0; j < outcount; j++)
        slot_done(&rd, round, idx[j], m == WAITSOME ? &sts[j] : NULL, what);
      if (++guard > rd.n)
        break;
    }
    break;
  case TEST:
    for (int i = 0; i < rd.n; i++) {
      MPI_Status st;
      int was_null = rd.req[i] == MPI_REQUEST_NULL;
      flag = 0;
      time_t t0 = 0;
      while (!flag) {
        suite_poll(&t0, "MPI_Test");
        MPI_OK(MPI_Test(&rd.req[i], &flag, &st));
      }
      if (was_null)
        check_empty(&st, "MPI_Test on MPI_REQUEST_NULL");
      else
        slot_done(&rd, round, i, &st, what);
    }
    break;
  case TESTALL:
    flag = 0;
    time_t t0 = 0;
    while (!flag) {
      suite_poll(&t0, "MPI_Testall");
      MPI_OK(MPI_Testall(rd.n, rd.req, &flag, sts));
    }
    for (int i = 0; i < rd.n; i++)
      if (rd.src[i] == -2)
        check_empty(&sts[i], "MPI_Testall status of an MPI_REQUEST_NULL entry");
      else
        slot_done(&rd, round, i, &sts[i], what);
    break;
  case TESTANY:
    for (time_t t0 = 0;;) {
      MPI_Status st;
      suite_poll(&t0, "MPI_Testany");
      flag = 0;
      MPI_OK(MPI_Testany(rd.n, rd.req, &index, &flag, &st));
      if (!flag) {
        CHECK(index == MPI_UNDEFINED, "MPI_Testany: flag false but index %d", index);
        continue;
      }
      if (index == MPI_UNDEFINED) {
        CHECK(all_null(&rd), "MPI_Testany: flag true, MPI_UNDEFINED, with active requests left");
        check_empty(&st, "MPI_Testany with no active request");
        break;
      }
      slot_done(&rd, round, index, &st, what);
      if (++guard > rd.n)
        break;
    }
    break;
  case TESTSOME:
    for (time_t t0 = 0;;) {
      suite_poll(&t0, "MPI_Testsome");
      MPI_OK(MPI_Testsome(rd.n, rd.req, &outcount, idx, sts));
      if (outcount == MPI_UNDEFINED) {
        CHECK(all_null(&rd), "MPI_Testsome returned MPI_UNDEFINED with active requests left");
        break;
      }
      for (int j = 0; j < outcount; j++)
        slot_done(&rd, round, idx[j], &sts[j], what);
      if (outcount > 0 && ++guard > rd.n)
        break;
    }
    break;
  case GET_STATUS:
    /* Request_get_status does not free the request: it stays valid for the Wait */
    for (int i = rd.n - 1; i >= 0; i--) {
      MPI_Status st, st2;
      flag = 0;
      MPI_Request keep = rd.req[i];
      time_t t0 = 0;
      while (!flag) {
        suite_poll(&t0, "MPI_Request_get_status");
        MPI_OK(MPI_Request_get_status(rd.req[i], &flag, &st));
      }
      CHECK(rd.req[i] == keep, "MPI_Request_get_status changed the request handle");
      if (rd.src[i] == -2) {
        check_empty(&st, "MPI_Request_get_status on MPI_REQUEST_NULL");
        continue;
      }
      if (rd.src[i] == -1)
        check_proc_null(&st, "MPI_Request_get_status");
      else
        check_msg(round, rd.buf[i], &st, rd.src[i], rd.k[i]);
      MPI_OK(MPI_Wait(&rd.req[i], &st2));
      slot_done(&rd, round, i, &st2, "MPI_Wait after MPI_Request_get_status");
    }
    break;
  default: abort();
  }
  finish_round(&rd, what);
  free(sts);
  free(idx);
}

/* MPI_ANY_SOURCE / MPI_ANY_TAG: rank 0 receives one message from every other rank, tag
 * 50 + source, in whatever order they come, once through blocking Recv, once through Irecvs
 * completed by Waitany. */
static void any_source_any_tag(void)
{
  int me = suite_rank, n = suite_size;
  for (int pass = 0; pass < 2; pass++) {
    suite_step("ANY_SOURCE/ANY_TAG, %s", pass ? "Irecv + Waitany" : "Recv");
    if (me != 0) {
      int msg[2] = {me, 1000 * pass + me};
      MPI_OK(MPI_Send(msg, 2, MPI_INT, 0, 50 + me, MPI_COMM_WORLD));
      MPI_Barrier(MPI_COMM_WORLD); /* pass 1 must not match pass 0's receives */
      continue;
    }
    int *seen = calloc((size_t)n, sizeof(int));
    int(*msg)[3] = malloc(sizeof *msg * (size_t)n);
    MPI_Request *r = malloc(sizeof *r * (size_t)n);
    if (pass)
      for (int i = 1; i < n; i++)
        MPI_OK(MPI_Irecv(msg[i], 3, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &r[i]));
    for (int i = 1; i < n; i++) {
      MPI_Status st;
      int slot = i;
      if (pass) {
        MPI_OK(MPI_Waitany(n - 1, r + 1, &slot, &st));
        slot++;
      } else
        MPI_OK(MPI_Recv(msg[i], 3, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
      int count = -1, src = st.MPI_SOURCE;
      MPI_Get_count(&st, MPI_INT, &count);
      CHECK(src >= 1 && src < n, "MPI_SOURCE %d", src);
      if (src < 1 || src >= n)
        continue;
      CHECK(!seen[src]++, "source %d seen twice", src);
      CHECK(st.MPI_TAG == 50 + src, "MPI_TAG %d from source %d", st.MPI_TAG, src);
      CHECK(count == 2, "count %d", count);
      CHECK(msg[slot][0] == src && msg[slot][1] == 1000 * pass + src, "content %d %d from %d", msg[slot][0],
            msg[slot][1], src);
    }
    free(seen);
    free(msg);
    free(r);
    MPI_Barrier(MPI_COMM_WORLD);
  }
}

/* Request_free on an active send: the message still arrives; the receiver tells when. */
static void free_active_send(void)
{
  int me = suite_rank, n = suite_size, right = (me + 1) % n, left = (me + n - 1) % n;
  for (int big = 0; big < 2; big++) {
    int count = big ? 30000 : 10;
    suite_step("MPI_Request_free on an active Isend of %d ints", count);
    int *s = malloc(sizeof(int) * (size_t)count), *r = malloc(sizeof(int) * (size_t)count);
    suite_fill(s, sizeof(int) * (size_t)count, me + 900 + big);
    MPI_Request req;
    MPI_OK(MPI_Isend(s, count, MPI_INT, right, 60 + big, MPI_COMM_WORLD, &req));
    MPI_OK(MPI_Request_free(&req));
    CHECK(req == MPI_REQUEST_NULL, "MPI_Request_free did not set the handle to MPI_REQUEST_NULL");
    MPI_Status st;
    MPI_OK(MPI_Recv(r, count, MPI_INT, left, 60 + big, MPI_COMM_WORLD, &st));
    long bad = suite_verify(r, sizeof(int) * (size_t)count, left + 900 + big);
    CHECK(bad < 0, "byte %ld differs", bad);
    MPI_Barrier(MPI_COMM_WORLD); /* every message has arrived: the send buffers are free */
    free(s);
    free(r);
  }
}

/* MPI_PROC_NULL peers in every call, and calls on empty or all-null arrays. */
static void proc_null_and_empty(void)
{
  MPI_Status st, sts[3];
  MPI_Request r[3];
  int x = 42, flag, index, outcount, idx[3];
  suite_step("Send/Recv with MPI_PROC_NULL");
  MPI_OK(MPI_Send(&x, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD));
  MPI_OK(MPI_Ssend(&x, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD));
  MPI_OK(MPI_Recv(&x, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &st));
  check_proc_null_status(&st, "MPI_Recv", 0);
  CHECK(x == 42, "MPI_Recv from MPI_PROC_NULL changed the buffer");
  MPI_OK(MPI_Recv(&x, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));

  suite_step("Isend/Irecv with MPI_PROC_NULL, Wait and Test");
  MPI_OK(MPI_Isend(&x, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &r[0]));
  MPI_OK(MPI_Wait(&r[0], &st));
  CHECK(r[0] == MPI_REQUEST_NULL, "request not freed");
  MPI_OK(MPI_Irecv(&x, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &r[0]));
  flag = 0;
  MPI_OK(MPI_Test(&r[0], &flag, &st));
  CHECK(flag, "MPI_Test on a receive from MPI_PROC_NULL not complete at once");
  if (flag)
    check_proc_null(&st, "MPI_Test");
  else
    MPI_Wait(&r[0], MPI_STATUS_IGNORE);

  suite_step("empty arrays");
  MPI_OK(MPI_Waitall(0, r, MPI_STATUSES_IGNORE));
  flag = 0;
  MPI_OK(MPI_Testall(0, r, &flag, MPI_STATUSES_IGNORE));
  CHECK(flag, "MPI_Testall on 0 requests: flag false");
  MPI_OK(MPI_Waitany(0, r, &index, &st));
  CHECK(index == MPI_UNDEFINED, "MPI_Waitany on 0 requests: index %d", index);
  MPI_OK(MPI_Waitsome(0, r, &outcount, idx, MPI_STATUSES_IGNORE));
  CHECK(outcount == MPI_UNDEFINED, "MPI_Waitsome on 0 requests: outcount %d", outcount);

  suite_step("all-null arrays");
  for (int i = 0; i < 3; i++)
    r[i] = MPI_REQUEST_NULL;
  MPI_OK(MPI_Waitall(3, r, sts));
  for (int i = 0; i < 3; i++)
    check_empty(&sts[i], "MPI_Waitall on null requests");
  flag = 0;
  MPI_OK(MPI_Testall(3, r, &flag, sts));
  CHECK(flag, "MPI_Testall on null requests: flag false");
  MPI_OK(MPI_Waitany(3, r, &index, &st));
  CHECK(index == MPI_UNDEFINED, "MPI_Waitany on null requests: index %d", index);
  flag = 0;
  MPI_OK(MPI_Testany(3, r, &index, &flag, &st));
  CHECK(flag && index == MPI_UNDEFINED, "MPI_Testany on null requests: flag %d index %d", flag, index);
  MPI_OK(MPI_Waitsome(3, r, &outcount, idx, sts));
  CHECK(outcount == MPI_UNDEFINED, "MPI_Waitsome on null requests: outcount %d", outcount);
  MPI_OK(MPI_Testsome(3, r, &outcount, idx, sts));
  CHECK(outcount == MPI_UNDEFINED, "MPI_Testsome on null requests: outcount %d", outcount);
  MPI_OK(MPI_Wait(&r[0], &st));
  check_empty(&st, "MPI_Wait on MPI_REQUEST_NULL");
  MPI_OK(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
  flag = 0;
  MPI_OK(MPI_Test(&r[0], &flag, MPI_STATUS_IGNORE));
  CHECK(flag, "MPI_Test on MPI_REQUEST_NULL: flag false");
}

int main(int argc, char **argv)
{
  suite_init(&argc, &argv);
  if (!suite_need(2))
    return suite_finish();
  for (int m = 0; m < NMETHODS; m++) {
    suite_step("round %d: %s", m, method_name[m]);
    if (suite_rank == 0)
      receive_round(m, (enum method)m);
    else
      send_round(m);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  any_source_any_tag();
  MPI_Barrier(MPI_COMM_WORLD);
  free_active_send();
  proc_null_and_empty();
  return suite_finish();
}
