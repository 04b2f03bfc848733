/* SkifCh end to end: a program written against <skifch.h>, built with icsimcc and run with
 * `icsim run` on platforms/skif-aurora.yaml; what it prints is checked against values worked out
 * by hand from the parameters given here. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../../tests/shell.h"

#define ICSIM ICSIM_BUILD "/bin/icsim"
#define AURORA ICSIM_SRC "/platforms/skif-aurora.yaml"
/* One build per test process: criterion may run tests in parallel processes. */
static char prog[512];
#include <unistd.h>

static void build(void)
{
  char *out, cmd[1024];
  snprintf(prog, sizeof prog, ICSIM_BUILD "/skifch-checks-%d", (int)getpid());
  snprintf(cmd, sizeof cmd, ICSIM_BUILD "/bin/icsimcc -O1 -o %s " ICSIM_SRC "/stacks/skifch/tests/progs/skifch_checks.c",
           prog);
  int st = run(cmd, &out, 1);
  cr_assert_eq(st, 0, "icsimcc failed: %s", out);
  free(out);
}

static int check(const char *what, int n, const char *sets, char **out)
{
  char cmd[1024];
  snprintf(cmd, sizeof cmd, ICSIM " run -p " AURORA " -n %d --place cyclic --host-timing off %s %s %s", n, sets, prog,
           what);
  return run(cmd, out, 1);
}

/* Run WHAT and check that it ends with STATUS (ANY_FAILURE: any but 0) and prints every one of the
 * NULL-terminated lines after STATUS. */
#define ANY_FAILURE (-1)
static void check_says(const char *what, int n, const char *sets, int status, ...)
{
  char *out;
  int st = check(what, n, sets, &out);
  if (status == ANY_FAILURE)
    cr_assert_neq(st, 0, "%s", out);
  else
    cr_assert_eq(st, status, "%s", out);
  va_list ap;
  va_start(ap, status);
  for (const char *line; (line = va_arg(ap, const char *));)
    cr_assert(strstr(out, line), "no \"%s\" in:\n%s", line, out);
  va_end(ap);
  free(out);
}

static void cleanup(void) { unlink(prog); }

TestSuite(skifch_e2e, .init = build, .fini = cleanup);

/* 20 KiB ring, 8 KiB messages: 8192, 8192, then the 4096 B left (a prefix of 10000), then refused.
 * After the barrier the receiver completes one 8 KiB message; the sender sees its space one
 * credit latency (1 us) later and sends 8192 of its 10000. */
Test(skifch_e2e, prefix_under_a_full_receiver_then_refusal_and_retry)
{
  char *out;
  int st = check("prefix", 2, "--set skifch/recv-buffer=20KiB", &out);
  cr_assert_eq(st, 0, "%s", out);
  cr_assert(strstr(out, "sent 8192 8192 4096 -1 errno=EAGAIN"), "%s", out);
  cr_assert(strstr(out, "received 8192"), "%s", out);
  cr_assert(strstr(out, "retry sent 8192 after "), "%s", out);
  long refusals = 0;
  double us = 0;
  const char *r = strstr(out, "retry sent 8192 after ");
  cr_assert(sscanf(r, "retry sent 8192 after %ld refusals, %lf us", &refusals, &us) == 2);
  cr_assert_gt(refusals, 0, "the sender must have been refused before the credit came back");
  cr_assert_geq(us, 1.0, "space freed is seen one credit latency (1 us) later: %s", out);
  free(out);
}

/* 16 KiB ring of 4 KiB pages: see the program; pieces 512 + 4096 + 1536, contents intact. */
Test(skifch_e2e, three_piece_zero_copy_receive_at_the_ring_end)
{
  check_says("pieces", 2, "--set skifch/recv-buffer=16KiB", 0, "sent 6144",
             "message 6144 in 3 pieces: 512 4096 1536 content ok", NULL);
}

Test(skifch_e2e, one_senders_messages_keep_their_order_while_senders_interleave)
{
  char *out;
  int st = check("order", 3, "", &out);
  cr_assert_eq(st, 0, "%s", out);
  cr_assert(strstr(out, "order kept: 200 from rank 0, 200 from rank 2,"), "%s", out);
  int sw = 0;
  cr_assert(sscanf(strstr(out, "from rank 2,") + 12, "%d", &sw) == 1);
  cr_assert_gt(sw, 1, "two senders at once must interleave: %s", out);
  free(out);
}

Test(skifch_e2e, channels_receive_only_their_own_messages)
{
  check_says("separation", 2, "", 0, "port 1 got 10 A, port 2 got 10 B, 0 extra",
             "second open of port 1: EADDRINUSE", NULL);
}

Test(skifch_e2e, a_program_that_forgets_recvcomp_stalls_and_is_told_why)
{
  check_says("forget", 2, "", ANY_FAILURE,
             "held entirely by 16 messages SkifCh_Recv returned and SkifCh_RecvComp never released",
             "Call SkifCh_RecvComp(ch) after processing each message", NULL);
}

/* A receive spinning on an empty channel (layer.h, icsim_poll_until). Clock 1 GHz and 50 instructions
 * a poll: one empty look costs 50 ns. Rank 0 sleeps 100 us and sends 8 KiB (8.2 us on the link at
 * 1.25 GB/s, plus its latency). Polled one by one (--every-poll), rank 1's program sees one empty
 * receive per 50 ns until the bytes land; skipped (the default), it sees three: its first look, polled
 * as usual, then one that sleeps until the send and one that sleeps until the bytes land. Either way
 * the message is seen at the same instant, the first look on the 50 ns grid at or after it lands,
 * which the test reads to the printed femtosecond. */
/* Runs check WHAT with SETS and MODE and reads the line starting with the literal start of FMT: two
 * figures (FMT's two conversions, into A and B). */
static void run_two(const char *what, const char *sets, const char *mode, const char *fmt, void *a, void *b)
{
  char *out, all[256], key[64];
  snprintf(all, sizeof all, "%s %s", sets, mode);
  int st = check(what, 2, all, &out);
  cr_assert_eq(st, 0, "%s", out);
  snprintf(key, sizeof key, "%.*s", (int)strcspn(fmt, "%"), fmt);
  const char *r = strstr(out, key);
  cr_assert(r && sscanf(r, fmt, a, b) == 2, "%s", out);
  free(out);
}

#define SPIN_SETS "--set nodes/clock=1GHz --set nodes/poll-instructions=50"
#define SPIN_LINE "spin: seen %lf ns after the first look, %ld empty receives"

Test(skifch_e2e, a_spinning_receive_skips_its_empty_polls_and_sees_the_message_at_the_same_instant)
{
  double skip_ns, every_ns;
  long skip_n, every_n;
  run_two("spin", SPIN_SETS, "", SPIN_LINE, &skip_ns, &skip_n);
  run_two("spin", SPIN_SETS, "--every-poll", SPIN_LINE, &every_ns, &every_n);
  cr_assert_eq(skip_n, 3, "skipped: the first look, then a wait for the send and one for the bytes: %ld", skip_n);
  cr_assert_eq(skip_ns, every_ns, "seen at %.6f ns skipping, %.6f ns polling one by one", skip_ns, every_ns);
  /* one by one: 50 ns per empty receive, then the receive that finds it (its recv-overhead, 0.2 us) */
  cr_assert_gt(every_ns, 100e3 + 8192 / 1.25, "the message cannot be seen before it lands: %.3f ns", every_ns);
  cr_assert(fabs(every_ns - every_n * 50.0) < 1000, "%ld empty receives x 50 ns against %.3f ns", every_n, every_ns);
}

/* The same for a sender retrying a refused send (prefix check above: its retry waits for the
 * credit of the 8 KiB the receiver completes). Retried one by one, each refusal costs
 * skifch/refusal-cost (0.5 us); skipped, the program meets two refusals, the first as usual and one
 * that sleeps until the credit is back; the retry goes at the same instant either way. */
#define RETRY_LINE "retry sent 8192 after %ld refusals, %lf us"

Test(skifch_e2e, a_refused_sender_retrying_skips_its_refusals_and_sends_at_the_same_instant)
{
  long skip_n, every_n;
  double skip_us, every_us;
  run_two("prefix", "--set skifch/recv-buffer=20KiB", "", RETRY_LINE, &skip_n, &skip_us);
  run_two("prefix", "--set skifch/recv-buffer=20KiB", "--every-poll", RETRY_LINE, &every_n, &every_us);
  cr_assert_eq(skip_n, 2, "skipped: the first refusal, then one that waits for the credit: %ld", skip_n);
  cr_assert_eq(skip_us, every_us, "retry sent at %.3f us skipping, %.3f us one by one", skip_us, every_us);
  cr_assert_gt(every_n, 2, "one by one the sender meets a refusal every 0.5 us while it waits: %ld", every_n);
}

/* With nothing left to send to it, a spinning receive would poll for ever; skipped, it is a
 * deadlock, reported as one. */
Test(skifch_e2e, a_receive_no_rank_will_send_to_is_reported_as_a_deadlock)
{
  check_says("nosend", 2, "", 3, "the program deadlocked", "spinning on SkifCh_Recv", NULL);
}

/* ---- MsgRate: the paper's qualitative claims, against the platform's and stack's defaults ----
 * skifch/send-overhead 0.3 us, recv-overhead 0.2 us, match-base 0.4 us, match-entry 0.02 us;
 * torus links 1.25 GB/s; max message 8 KiB with a 16 B header (+ 16 B envelope per transfer). */
static double rate(const char *platform, const char *sets, const char *prog, long size, int iters)
{
  char cmd[1024], *out;
  snprintf(cmd, sizeof cmd, ICSIM " run -p %s -n 2 --place cyclic --host-timing off %s %s -m %ld:%ld -i %d -x 10",
           platform, sets, prog, size, size, iters);
  int st = run(cmd, &out, 1);
  cr_assert_eq(st, 0, "%s: %s", cmd, out);
  double v = row_value(out, size);
  free(out);
  return v;
}

/* Short messages: SkifCh is sender-bound, one send path per message, so its rate is at most
 * 1 / 0.3 us (the barrier and the last message's flight add a few us to 1000 x 0.3 us: at least
 * 95% of it). MPI over SkifCh: eager messages are pushed into the receiver's ring as they are sent,
 * so the receiver is the bound: per message recv-overhead 0.2 us + the match (match-base 0.4 us +
 * 1 entry examined x 0.02 us: the queue holds the one sender's messages in order) + the message's
 * wire bytes, which SimGrid still moves when the receive is posted: 8 B + 16 B header + 16 B
 * envelope at 1.25 GB/s = 0.032 us; 0.652 us in all. With matching switched off (the what-if) the
 * sender is the bound again and MPI over SkifCh reaches SkifCh's rate: the whole gap is the match. */
Test(skifch_e2e, msgrate_skifch_above_mpi_over_skifch_by_the_matching_cost)
{
  double sk = rate(AURORA, "", "skifch_msgrate", 8, 1000);
  double on = rate(AURORA, "", "osu_msgrate", 8, 1000);
  double off = rate(AURORA, "--set skifch/mpi-matching=false", "osu_msgrate", 8, 1000);
  cr_assert(sk <= 1 / 0.3e-6 && sk >= 0.95 / 0.3e-6, "SkifCh 8 B: %g msg/s", sk);
  cr_assert_gt(sk, 2 * on, "SkifCh %g vs MPI over SkifCh %g msg/s", sk, on);
  double per_msg = 0.2e-6 + 0.42e-6 + 40 / 1.25e9;
  cr_assert(on <= 1 / per_msg && on >= 0.98 / per_msg, "MPI over SkifCh 8 B: %g msg/s, receiver bound %g", on,
            1 / per_msg);
  cr_assert(fabs(off / sk - 1) < 0.05, "MPI over SkifCh without matching %g vs SkifCh %g msg/s", off, sk);
}

/* 64 KiB: both are bound by the torus link. SkifCh sends 8 messages of 8 KiB, each with 32 B of
 * header and envelope: 1.25e9 / 65792 = 18999 msg/s at most; MPI over SkifCh one transfer of
 * 65536 + 16 + 8 x 16 B. The curves meet: within 10% of each other. */
Test(skifch_e2e, msgrate_curves_meet_as_messages_grow)
{
  double sk = rate(AURORA, "", "skifch_msgrate", 65536, 40);
  double mpi = rate(AURORA, "", "osu_msgrate", 65536, 40);
  cr_assert(sk <= 1.25e9 / 65792 * 1.0001 && sk >= 0.95 * 1.25e9 / 65792, "SkifCh 64 KiB: %g msg/s", sk);
  cr_assert(fabs(sk / mpi - 1) < 0.10, "SkifCh %g vs MPI over SkifCh %g msg/s at 64 KiB", sk, mpi);
}
