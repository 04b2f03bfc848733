/* Probing: Probe and Iprobe (ANY_SOURCE / ANY_TAG and specific), MPI_Get_count on the probe's
 * status, then a receive of exactly that message; probes of MPI_PROC_NULL.
 *
 * With the argument `mprobe`, also the matched probes of MPI-3: Mprobe/Mrecv and
 * Improbe/Imrecv, which take the message out of the matching queue so that no other receive
 * can get it, a matched receive into a non-contiguous type and one into a buffer too short.
 * SimGrid 3.32 declares them in its mpi.h but aborts in them ("Not yet implemented:
 * PMPI_Mprobe"); icsim's layer implements them (sim/mpi/mprobe.c). */
#include "suite.h"

/* Ints of message K from SRC: several sizes around every platform's eager threshold. */
static int msg_count(int src, int k) { return (k % 3 == 0) ? src + k : (k % 3 == 1) ? 500 + src : 5000 * src + k; }
static int msg_seed(int step, int src, int k) { return step * 100000 + src * 100 + k; }

/* Nonblocking, so that rank 0 may take them in any order without relying on buffering. */
static void send_msgs(int step, int nmsg, int tag_base)
{
  int me = suite_rank;
  int **b = malloc(sizeof *b * (size_t)nmsg);
  MPI_Request *r = malloc(sizeof *r * (size_t)nmsg);
  for (int k = 0; k < nmsg; k++) {
    int count = msg_count(me, k);
    b[k] = malloc(sizeof(int) * (size_t)count + 1);
    suite_fill(b[k], sizeof(int) * (size_t)count, msg_seed(step, me, k));
    MPI_OK(MPI_Isend(b[k], count, MPI_INT, 0, tag_base + k, MPI_COMM_WORLD, &r[k]));
  }
  MPI_OK(MPI_Waitall(nmsg, r, MPI_STATUSES_IGNORE));
  for (int k = 0; k < nmsg; k++)
    free(b[k]);
  free(b);
  free(r);
}

/* Receive into a buffer of exactly the probed size, from the probed source and tag. */
static void recv_probed(int step, const MPI_Status *pst, int tag_base, int nmsg, int *seen)
{
  int src = pst->MPI_SOURCE, tag = pst->MPI_TAG, k = tag - tag_base, count = -1;
  MPI_Get_count(pst, MPI_INT, &count);
  CHECK(src > 0 && src < suite_size && k >= 0 && k < nmsg, "probe status: source %d tag %d", src, tag);
  if (!(src > 0 && src < suite_size && k >= 0 && k < nmsg))
    return;
  CHECK(count == msg_count(src, k), "probe count %d, expected %d (source %d tag %d)", count, msg_count(src, k), src,
        tag);
  CHECK(!seen[src * nmsg + k]++, "message source %d tag %d probed twice after being received", src, tag);
  int *b = malloc(sizeof(int) * (size_t)(count > 0 ? count : 1));
  MPI_Status st;
  MPI_OK(MPI_Recv(b, count, MPI_INT, src, tag, MPI_COMM_WORLD, &st));
  int got = -1;
  MPI_Get_count(&st, MPI_INT, &got);
  CHECK(st.MPI_SOURCE == src && st.MPI_TAG == tag && got == count, "receive after probe: source %d tag %d count %d",
        st.MPI_SOURCE, st.MPI_TAG, got);
  long bad = suite_verify(b, sizeof(int) * (size_t)count, msg_seed(step, src, k));
  CHECK(bad < 0, "source %d tag %d: byte %ld differs", src, tag, bad);
  free(b);
}

/* Rank 0 probes every message from ANY_SOURCE / ANY_TAG, blocking (PROBE) or polling. */
static void probe_any(int step, int blocking)
{
  const int nmsg = 4, tag_base = 100 * step;
  suite_step("%s(ANY_SOURCE, ANY_TAG) + Get_count + Recv", blocking ? "Probe" : "Iprobe");
  if (suite_rank != 0) {
    send_msgs(step, nmsg, tag_base);
  } else {
    int total = (suite_size - 1) * nmsg, *seen = calloc((size_t)(suite_size * nmsg), sizeof(int));
    for (int i = 0; i < total; i++) {
      MPI_Status st;
      if (blocking) {
        MPI_OK(MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
      } else {
        int flag = 0;
        time_t t0 = 0;
        while (!flag) {
          suite_poll(&t0, "MPI_Iprobe(ANY_SOURCE, ANY_TAG)");
          MPI_OK(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
        }
      }
      recv_probed(step, &st, tag_base, nmsg, seen);
    }
    free(seen);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

/* Specific probes: rank 0 probes the last message of each sender first (tag order reversed),
 * and an Iprobe of a message nobody sent says no. */
static void probe_specific(int step)
{
  const int nmsg = 3, tag_base = 100 * step;
  suite_step("Iprobe of a message that does not exist");
  int flag = 1;
  MPI_Status st;
  MPI_OK(MPI_Iprobe(MPI_ANY_SOURCE, 31999, MPI_COMM_WORLD, &flag, &st));
  CHECK(!flag, "Iprobe found a message with tag 31999 that nobody sent");
  suite_step("Probe(source, tag) in reverse tag order");
  if (suite_rank != 0) {
    send_msgs(step, nmsg, tag_base);
  } else {
    int *seen = calloc((size_t)(suite_size * nmsg), sizeof(int));
    for (int src = suite_size - 1; src >= 1; src--)
      for (int k = nmsg - 1; k >= 0; k--) {
        MPI_OK(MPI_Probe(src, tag_base + k, MPI_COMM_WORLD, &st));
        CHECK(st.MPI_SOURCE == src && st.MPI_TAG == tag_base + k, "Probe(%d, %d) status %d %d", src, tag_base + k,
              st.MPI_SOURCE, st.MPI_TAG);
        /* a second probe sees the same message: probing does not consume */
        MPI_Status again;
        flag = 0;
        MPI_OK(MPI_Iprobe(src, tag_base + k, MPI_COMM_WORLD, &flag, &again));
        CHECK(flag && again.MPI_SOURCE == src && again.MPI_TAG == tag_base + k, "second probe did not see the message");
        recv_probed(step, &st, tag_base, nmsg, seen);
      }
    free(seen);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

/* Matched probes: every sender sends two messages with the same tag. Rank 0 Mprobes the first
 * one of each sender, then receives with a plain Recv of that source and tag, which must get
 * the SECOND message (the first is no longer matchable), then Mrecv/Imrecv the first. */
static void matched(int step, int nonblocking)
{
  const int tag = 100 * step;
  suite_step("%s + %s", nonblocking ? "Improbe" : "Mprobe", nonblocking ? "Imrecv" : "Mrecv");
  if (suite_rank != 0) {
    int *b[2];
    MPI_Request r[2];
    for (int k = 0; k < 2; k++) {
      int count = msg_count(suite_rank, k == 0 ? 2 : 1); /* the first one large, the second small */
      b[k] = malloc(sizeof(int) * (size_t)count);
      suite_fill(b[k], sizeof(int) * (size_t)count, msg_seed(step, suite_rank, k));
      MPI_OK(MPI_Isend(b[k], count, MPI_INT, 0, tag, MPI_COMM_WORLD, &r[k]));
    }
    MPI_OK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
    free(b[0]);
    free(b[1]);
  } else {
    for (int i = 1; i < suite_size; i++) {
      MPI_Message msg = MPI_MESSAGE_NULL;
      MPI_Status st;
      if (nonblocking) {
        int flag = 0;
        time_t t0 = 0;
        while (!flag) {
          suite_poll(&t0, "MPI_Improbe");
          MPI_OK(MPI_Improbe(MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &flag, &msg, &st));
        }
      } else {
        MPI_OK(MPI_Mprobe(MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &msg, &st));
      }
      int src = st.MPI_SOURCE, count = -1;
      MPI_Get_count(&st, MPI_INT, &count);
      CHECK(src > 0 && src < suite_size && st.MPI_TAG == tag, "matched probe status: source %d tag %d", src,
            st.MPI_TAG);
      CHECK(msg != MPI_MESSAGE_NULL, "matched probe returned MPI_MESSAGE_NULL");
      if (!(src > 0 && src < suite_size) || msg == MPI_MESSAGE_NULL)
        continue;
      CHECK(count == msg_count(src, 2), "matched probe count %d, expected %d (the first message)", count,
            msg_count(src, 2));
      /* the second message: a plain receive from the same source and tag */
      int c2 = msg_count(src, 1), got = -1;
      int *b2 = malloc(sizeof(int) * (size_t)msg_count(src, 2)); /* room for either */
      MPI_Status st2;
      MPI_OK(MPI_Recv(b2, msg_count(src, 2), MPI_INT, src, tag, MPI_COMM_WORLD, &st2));
      MPI_Get_count(&st2, MPI_INT, &got);
      CHECK(got == c2, "Recv after a matched probe got %d ints, expected the second message (%d ints)", got, c2);
      long bad = suite_verify(b2, sizeof(int) * (size_t)c2, msg_seed(step, src, 1));
      CHECK(bad < 0, "second message from %d: byte %ld differs", src, bad);
      /* now the first, through its message handle */
      int *b1 = malloc(sizeof(int) * (size_t)count);
      MPI_Status st1;
      if (nonblocking) {
        MPI_Request r;
        MPI_OK(MPI_Imrecv(b1, count, MPI_INT, &msg, &r));
        MPI_OK(MPI_Wait(&r, &st1));
      } else {
        MPI_OK(MPI_Mrecv(b1, count, MPI_INT, &msg, &st1));
      }
      CHECK(msg == MPI_MESSAGE_NULL, "message handle not MPI_MESSAGE_NULL after the matched receive");
      MPI_Get_count(&st1, MPI_INT, &got);
      CHECK(st1.MPI_SOURCE == src && st1.MPI_TAG == tag && got == count, "matched receive status: %d %d %d",
            st1.MPI_SOURCE, st1.MPI_TAG, got);
      bad = suite_verify(b1, sizeof(int) * (size_t)count, msg_seed(step, src, 0));
      CHECK(bad < 0, "first message from %d: byte %ld differs", src, bad);
      free(b1);
      free(b2);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

/* A matched receive unpacks into the receive's own datatype (every other int of the buffer), and
 * one into a buffer shorter than the message fails with MPI_ERR_TRUNCATE, the message consumed. */
static void matched_typed(int step)
{
  const int tag = 100 * step, n = 10;
  suite_step("Mprobe + Mrecv into a vector type, and truncated");
  if (suite_rank == 1) {
    int v[10];
    for (int i = 0; i < n; i++)
      v[i] = 1000 + i;
    MPI_OK(MPI_Send(v, n, MPI_INT, 0, tag, MPI_COMM_WORLD));
    MPI_OK(MPI_Send(v, 8, MPI_INT, 0, tag + 1, MPI_COMM_WORLD));
    MPI_OK(MPI_Send(v, 1, MPI_INT, 0, tag + 2, MPI_COMM_WORLD));
  } else if (suite_rank == 0) {
    MPI_Datatype every_other;
    MPI_OK(MPI_Type_vector(n, 1, 2, MPI_INT, &every_other));
    MPI_OK(MPI_Type_commit(&every_other));
    int b[20];
    for (int i = 0; i < 20; i++)
      b[i] = -1;
    MPI_Message msg;
    MPI_Status st;
    MPI_OK(MPI_Mprobe(1, tag, MPI_COMM_WORLD, &msg, &st));
    MPI_OK(MPI_Mrecv(b, 1, every_other, &msg, &st));
    int ok = 1;
    for (int i = 0; i < 20; i++)
      ok &= b[i] == (i % 2 ? -1 : 1000 + i / 2);
    CHECK(ok, "Mrecv into every other int: b[0..3] = %d %d %d %d", b[0], b[1], b[2], b[3]);
    int got = -1;
    MPI_Get_count(&st, every_other, &got);
    CHECK(got == 1, "Mrecv into a vector type: count %d of the type, expected 1", got);
    MPI_Type_free(&every_other);

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int short_buf[4] = {0};
    MPI_OK(MPI_Mprobe(1, tag + 1, MPI_COMM_WORLD, &msg, &st));
    int rc = MPI_Mrecv(short_buf, 4, MPI_INT, &msg, &st), cls = -1;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_TRUNCATE, "Mrecv of 8 ints into 4: error class %d, expected MPI_ERR_TRUNCATE", cls);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    /* the truncated message is gone: the next one from rank 1 is the one int */
    int one = 0;
    MPI_OK(MPI_Recv(&one, 1, MPI_INT, 1, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
    CHECK(st.MPI_TAG == tag + 2 && one == 1000, "after the truncated Mrecv: tag %d value %d", st.MPI_TAG, one);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

/* Probes of MPI_PROC_NULL return at once with source PROC_NULL, tag ANY_TAG, count 0. */
static void proc_null(int matched_probes)
{
  MPI_Status st;
  int flag = 0, n = -1;
  suite_step("Probe/Iprobe of MPI_PROC_NULL");
  MPI_OK(MPI_Probe(MPI_PROC_NULL, 3, MPI_COMM_WORLD, &st));
  MPI_Get_count(&st, MPI_INT, &n);
  CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG && n == 0, "Probe: source %d tag %d count %d",
        st.MPI_SOURCE, st.MPI_TAG, n);
  MPI_OK(MPI_Iprobe(MPI_PROC_NULL, 3, MPI_COMM_WORLD, &flag, &st));
  MPI_Get_count(&st, MPI_INT, &n);
  CHECK(flag && st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG && n == 0,
        "Iprobe: flag %d source %d tag %d count %d", flag, st.MPI_SOURCE, st.MPI_TAG, n);
  if (!matched_probes)
    return;
  suite_step("Mprobe/Mrecv of MPI_PROC_NULL");
  MPI_Message msg = MPI_MESSAGE_NULL;
  MPI_OK(MPI_Mprobe(MPI_PROC_NULL, 3, MPI_COMM_WORLD, &msg, &st));
  CHECK(msg == MPI_MESSAGE_NO_PROC, "Mprobe(MPI_PROC_NULL) did not return MPI_MESSAGE_NO_PROC");
  CHECK(st.MPI_SOURCE == MPI_PROC_NULL, "Mprobe(MPI_PROC_NULL): source %d", st.MPI_SOURCE);
  int x = 99;
  MPI_OK(MPI_Mrecv(&x, 1, MPI_INT, &msg, &st));
  MPI_Get_count(&st, MPI_INT, &n);
  CHECK(x == 99 && st.MPI_SOURCE == MPI_PROC_NULL && n == 0, "Mrecv(MPI_MESSAGE_NO_PROC): x %d source %d count %d", x,
        st.MPI_SOURCE, n);
}

int main(int argc, char **argv)
{
  suite_init(&argc, &argv);
  if (!suite_need(2))
    return suite_finish();
  probe_any(1, 1);
  probe_any(2, 0);
  probe_specific(3);
  proc_null(argc > 1 && strcmp(argv[1], "mprobe") == 0);
  if (argc > 1 && strcmp(argv[1], "mprobe") == 0) {
    matched(4, 0);
    matched(5, 1);
    matched_typed(6);
  }
  return suite_finish();
}
