/* Cancelling posted receives (MPI 3.1, 3.8.4), on every rank pair (left -> me): MPICH's rcancel
 * pattern (four receives of 1, 100, 10000 and 1000000 bytes, three cancelled and waited one by one,
 * then the fourth, which a 0-byte message from MPI_BOTTOM matched and which must not be cancelled),
 * and the same with one cancel while the other receives are still posted; two cancelled receives
 * beside one that is not, completed by each completion call (Wait, Test, Waitany, Waitall,
 * Testall, Waitsome, Testany, Testsome, Request_get_status then Wait), its message landed before
 * the cancels or sent after them (1 MB, still in flight during the call); a receive whose message
 * is in flight when it is cancelled (the cancel fails, the data arrives); a persistent receive
 * cancelled, then restarted and matched; an MPI_ANY_SOURCE receive cancelled takes no message;
 * eight receives with every other one cancelled, the rest landing out of order; and a receive
 * cancelled beside a pending one on an intercommunicator.
 * Under icsim these crashed in SimGrid 3.32 (sim/mpi/smpi_direct.cpp says why). */
#include "suite.h"

static int cancelled(const MPI_Status *st)
{
  int flag = -1;
  MPI_Test_cancelled(st, &flag);
  return flag;
}

static int count_of(const MPI_Status *st, MPI_Datatype t)
{
  int c = -1;
  MPI_Get_count(st, t, &c);
  return c;
}

enum { WAIT, TEST, WAITANY, WAITALL, TESTALL, WAITSOME, TESTANY, TESTSOME, GET_STATUS, NMETHODS };
static const char *method_name[] = {"MPI_Wait",     "MPI_Test",    "MPI_Waitany",  "MPI_Waitall", "MPI_Testall",
                                    "MPI_Waitsome", "MPI_Testany", "MPI_Testsome", "MPI_Request_get_status"};

/* Complete the N requests R with METHOD; ST[i] gets request i's status. */
static void complete(int method, int n, MPI_Request *r, MPI_Status *st)
{
  int flag = 0, done = 0, idx, out, indices[8];
  MPI_Status tmp, sts[8];
  time_t start = 0;
  switch (method) {
  case WAIT:
    for (int i = 0; i < n; i++)
      MPI_OK(MPI_Wait(&r[i], &st[i]));
    break;
  case TEST:
    for (int i = 0; i < n; i++)
      for (flag = 0, start = 0; !flag; suite_poll(&start, "MPI_Test"))
        MPI_OK(MPI_Test(&r[i], &flag, &st[i]));
    break;
  case WAITANY:
    for (int k = 0; k < n; k++) {
      MPI_OK(MPI_Waitany(n, r, &idx, &tmp));
      CHECK(idx >= 0 && idx < n, "Waitany index %d", idx);
      if (idx >= 0 && idx < n)
        st[idx] = tmp;
    }
    MPI_OK(MPI_Waitany(n, r, &idx, &tmp));
    CHECK(idx == MPI_UNDEFINED, "Waitany on completed requests gave index %d", idx);
    break;
  case WAITALL: MPI_OK(MPI_Waitall(n, r, st)); break;
  case TESTALL:
    while (!flag) {
      MPI_OK(MPI_Testall(n, r, &flag, st));
      suite_poll(&start, "MPI_Testall");
    }
    break;
  case WAITSOME:
  case TESTSOME:
    while (done < n) {
      if (method == WAITSOME)
        MPI_OK(MPI_Waitsome(n, r, &out, indices, sts));
      else
        MPI_OK(MPI_Testsome(n, r, &out, indices, sts));
      CHECK(out != MPI_UNDEFINED, "%s: nothing active with %d of %d completed", method_name[method], done, n);
      if (out == MPI_UNDEFINED)
        break;
      for (int j = 0; j < out; j++)
        st[indices[j]] = sts[j];
      done += out;
      suite_poll(&start, method_name[method]);
    }
    break;
  case TESTANY:
    while (done < n) {
      MPI_OK(MPI_Testany(n, r, &idx, &flag, &tmp));
      if (flag) {
        CHECK(idx >= 0 && idx < n, "Testany index %d", idx);
        if (idx < 0 || idx >= n)
          break;
        st[idx] = tmp;
        done++;
      }
      suite_poll(&start, "MPI_Testany");
    }
    break;
  case GET_STATUS:
    for (int i = 0; i < n; i++) {
      for (flag = 0, start = 0; !flag; suite_poll(&start, "MPI_Request_get_status"))
        MPI_OK(MPI_Request_get_status(r[i], &flag, &st[i]));
      CHECK(r[i] != MPI_REQUEST_NULL, "Request_get_status freed the request");
      MPI_OK(MPI_Wait(&r[i], &tmp));
      CHECK(cancelled(&tmp) == cancelled(&st[i]), "Wait after Request_get_status: cancelled %d, then %d",
            cancelled(&st[i]), cancelled(&tmp));
    }
    break;
  }
  for (int i = 0; i < n; i++)
    CHECK(r[i] == MPI_REQUEST_NULL, "%s left request %d", method_name[method], i);
}

#define BIG 250000 /* ints: 1 MB, far above every eager threshold */

int main(int argc, char **argv)
{
  suite_init(&argc, &argv);
  if (!suite_need(2))
    return suite_finish();
  int me = suite_rank, n = suite_size;
  int right = (me + 1) % n, left = (me + n - 1) % n, token = 0, got = 0;
  MPI_Comm comm = MPI_COMM_WORLD;
  MPI_Status st[8];
  MPI_Request r[8], s;
  int *big = malloc(BIG * sizeof *big), *bigout = malloc(BIG * sizeof *bigout);
  int small[4], smallout[4];
  /* I have done what must precede my left neighbour's sending to me; my right one has too */
#define GO(tag) MPI_Sendrecv(&token, 1, MPI_INT, left, tag, &got, 1, MPI_INT, right, tag, comm, MPI_STATUS_IGNORE)

  /* MPICH's rcancel, on every pair */
  static const int sizes[4] = {1, 100, 10000, 1000000};
  char *b[4];
  for (int i = 0; i < 4; i++)
    b[i] = malloc((size_t)sizes[i]);
  for (int variant = 0; variant < 2; variant++) {
    suite_step(variant ? "rcancel, one cancel while the others are posted" : "rcancel");
    int tag0 = 10 * variant;
    for (int i = 0; i < 4; i++)
      MPI_Irecv(b[i], sizes[i], MPI_CHAR, left, tag0 + i, comm, &r[i]);
    MPI_Send(MPI_BOTTOM, 0, MPI_CHAR, right, tag0 + 1, comm);
    static const int order[2][3] = {{2, 3, 0}, {2, -1, -1}};
    for (int k = 0; k < 3 && order[variant][k] >= 0; k++) {
      int i = order[variant][k];
      MPI_OK(MPI_Cancel(&r[i]));
      MPI_OK(MPI_Wait(&r[i], &st[i]));
      CHECK(cancelled(&st[i]) == 1, "request %d not cancelled", i);
      CHECK(r[i] == MPI_REQUEST_NULL, "request %d not freed", i);
    }
    MPI_OK(MPI_Wait(&r[1], &st[1]));
    CHECK(cancelled(&st[1]) == 0, "request 1 (matched) reported cancelled");
    CHECK(st[1].MPI_SOURCE == left && st[1].MPI_TAG == tag0 + 1 && count_of(&st[1], MPI_CHAR) == 0,
          "request 1: source %d, tag %d, count %d", st[1].MPI_SOURCE, st[1].MPI_TAG, count_of(&st[1], MPI_CHAR));
    if (variant) { /* 0 and 3 are still posted: cancel both, complete them together */
      MPI_OK(MPI_Cancel(&r[3]));
      MPI_OK(MPI_Cancel(&r[0]));
      MPI_Request rest[2] = {r[0], r[3]};
      MPI_OK(MPI_Waitall(2, rest, st));
      CHECK(cancelled(&st[0]) == 1 && cancelled(&st[1]) == 1, "cancelled %d %d", cancelled(&st[0]),
            cancelled(&st[1]));
    }
  }
  for (int i = 0; i < 4; i++)
    free(b[i]);

  /* two cancelled receives around one that is not, by each completion call; its message landed
   * before the cancels (small) or sent after them (1 MB) */
  for (int m = 0; m < NMETHODS; m++)
    for (int later = 0; later < 2; later++) {
      suite_step("%s, cancelled receives beside one %s", method_name[m],
                 later ? "whose 1 MB message is sent after the cancels" : "that has landed");
      int tag = 100 + 10 * (2 * m + later), seed = 1000 * left + tag, ints = later ? BIG : 4;
      int *in = later ? big : small, *out = later ? bigout : smallout;
      memset(in, 0, (size_t)ints * sizeof *in);
      suite_fill(out, (size_t)ints * sizeof *out, 1000 * me + tag);
      MPI_Irecv(small + 2, 1, MPI_INT, left, tag, comm, &r[0]);
      MPI_Irecv(in, ints, MPI_INT, left, tag + 1, comm, &r[1]);
      MPI_Irecv(small + 3, 1, MPI_INT, MPI_ANY_SOURCE, tag + 2, comm, &r[2]);
      if (!later) {
        MPI_Send(out, ints, MPI_INT, right, tag + 1, comm);
        GO(tag + 3);
      }
      MPI_OK(MPI_Cancel(&r[2]));
      MPI_OK(MPI_Cancel(&r[0]));
      if (later) {
        GO(tag + 3);
        MPI_Isend(out, ints, MPI_INT, right, tag + 1, comm, &s);
      }
      complete(m, 3, r, st);
      if (later)
        MPI_Wait(&s, MPI_STATUS_IGNORE);
      CHECK(cancelled(&st[0]) == 1 && cancelled(&st[2]) == 1, "cancelled receives: %d %d", cancelled(&st[0]),
            cancelled(&st[2]));
      CHECK(cancelled(&st[1]) == 0, "the receive not cancelled says cancelled");
      CHECK(st[1].MPI_SOURCE == left && st[1].MPI_TAG == tag + 1 && count_of(&st[1], MPI_INT) == ints,
            "source %d, tag %d, count %d", st[1].MPI_SOURCE, st[1].MPI_TAG, count_of(&st[1], MPI_INT));
      long bad = suite_verify(in, (size_t)ints * sizeof *in, seed);
      CHECK(bad < 0, "data differs at byte %ld", bad);
    }

  suite_step("a receive cancelled while its 1 MB message is in flight");
  memset(big, 0, BIG * sizeof *big);
  suite_fill(bigout, BIG * sizeof *bigout, 77 * me);
  MPI_Irecv(big, BIG, MPI_INT, left, 300, comm, &r[0]);
  GO(301);
  MPI_Isend(bigout, BIG, MPI_INT, right, 300, comm, &s);
  MPI_Send(&token, 1, MPI_INT, right, 302, comm); /* after the big one: when it lands, that one matched */
  MPI_Recv(&got, 1, MPI_INT, left, 302, comm, MPI_STATUS_IGNORE);
  MPI_OK(MPI_Cancel(&r[0]));
  MPI_OK(MPI_Wait(&r[0], &st[0]));
  MPI_Wait(&s, MPI_STATUS_IGNORE);
  CHECK(cancelled(&st[0]) == 0, "a matched receive was cancelled");
  CHECK(count_of(&st[0], MPI_INT) == BIG, "count %d", count_of(&st[0], MPI_INT));
  long bad = suite_verify(big, BIG * sizeof *big, 77 * left);
  CHECK(bad < 0, "data differs at byte %ld", bad);

  suite_step("persistent receive cancelled, restarted, matched");
  MPI_Request p;
  MPI_Recv_init(small, 1, MPI_INT, left, 400, comm, &p);
  MPI_Start(&p);
  MPI_OK(MPI_Cancel(&p));
  MPI_OK(MPI_Wait(&p, &st[0]));
  CHECK(cancelled(&st[0]) == 1, "not cancelled");
  CHECK(p != MPI_REQUEST_NULL, "the persistent request was freed");
  GO(401);
  smallout[0] = 400 + me;
  MPI_Send(smallout, 1, MPI_INT, right, 400, comm);
  MPI_Start(&p);
  MPI_OK(MPI_Wait(&p, &st[0]));
  CHECK(cancelled(&st[0]) == 0 && small[0] == 400 + left, "restarted: cancelled %d, data %d", cancelled(&st[0]),
        small[0]);
  MPI_Request_free(&p);

  suite_step("a cancelled MPI_ANY_SOURCE receive takes no message");
  MPI_Irecv(small, 1, MPI_INT, MPI_ANY_SOURCE, 500, comm, &r[0]);
  MPI_OK(MPI_Cancel(&r[0]));
  MPI_OK(MPI_Wait(&r[0], &st[0]));
  CHECK(cancelled(&st[0]) == 1, "not cancelled");
  GO(501);
  smallout[0] = 500 + me;
  MPI_Send(smallout, 1, MPI_INT, right, 500, comm);
  MPI_Recv(small, 1, MPI_INT, MPI_ANY_SOURCE, 500, comm, &st[0]);
  CHECK(small[0] == 500 + left && st[0].MPI_SOURCE == left, "got %d from %d", small[0], st[0].MPI_SOURCE);

  suite_step("eight receives, every other one cancelled, the rest landing out of order");
  {
    int *bufs[8], lens[8];
    MPI_Request sends[4];
    for (int i = 0; i < 8; i++) {
      lens[i] = i % 4 == 2 ? BIG / 4 : 3;
      bufs[i] = calloc((size_t)lens[i], sizeof(int));
      MPI_Irecv(bufs[i], lens[i], MPI_INT, left, 600 + i, comm, &r[i]);
    }
    for (int i = 1; i < 8; i += 2)
      MPI_OK(MPI_Cancel(&r[i]));
    GO(610);
    int *outs[8] = {0};
    for (int i = 6, k = 0; i >= 0; i -= 2, k++) {
      outs[i] = malloc((size_t)lens[i] * sizeof(int));
      suite_fill(outs[i], (size_t)lens[i] * sizeof(int), 600 * me + i);
      MPI_Isend(outs[i], lens[i], MPI_INT, right, 600 + i, comm, &sends[k]);
    }
    complete(WAITSOME, 8, r, st);
    MPI_Waitall(4, sends, MPI_STATUSES_IGNORE);
    for (int i = 0; i < 8; i++) {
      CHECK(cancelled(&st[i]) == (i % 2), "receive %d: cancelled %d", i, cancelled(&st[i]));
      if (i % 2 == 0) {
        CHECK(st[i].MPI_TAG == 600 + i && count_of(&st[i], MPI_INT) == lens[i], "receive %d: tag %d, count %d", i,
              st[i].MPI_TAG, count_of(&st[i], MPI_INT));
        long off = suite_verify(bufs[i], (size_t)lens[i] * sizeof(int), 600 * left + i);
        CHECK(off < 0, "receive %d: data differs at byte %ld", i, off);
      }
      free(bufs[i]);
      free(outs[i]);
    }
  }

  suite_step("intercommunicator: a receive cancelled beside a pending one");
  {
    int low = me < n / 2, rsize, lr;
    MPI_Comm half, ic;
    MPI_Comm_split(MPI_COMM_WORLD, low, me, &half);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, low ? n / 2 : 0, 700, &ic);
    MPI_Comm_remote_size(ic, &rsize);
    MPI_Comm_rank(ic, &lr);
    if (lr < rsize) { /* paired with rank lr of the other group */
      MPI_Irecv(small, 1, MPI_INT, lr, 701, ic, &r[0]);
      MPI_Irecv(small + 1, 1, MPI_INT, lr, 702, ic, &r[1]);
      MPI_OK(MPI_Cancel(&r[0]));
      smallout[0] = 700 + me;
      MPI_Send(smallout, 1, MPI_INT, lr, 702, ic);
      MPI_OK(MPI_Waitall(2, r, st));
      int partner = low ? n / 2 + lr : lr;
      CHECK(cancelled(&st[0]) == 1 && cancelled(&st[1]) == 0, "cancelled %d %d", cancelled(&st[0]),
            cancelled(&st[1]));
      CHECK(small[1] == 700 + partner && st[1].MPI_SOURCE == lr, "got %d from %d", small[1], st[1].MPI_SOURCE);
    }
    MPI_Comm_free(&ic);
    MPI_Comm_free(&half);
  }

  free(big);
  free(bigout);
  return suite_finish();
}
