/* SkifCh end to end: a program written against <skifch.h>, built with icsimcc and run with
 * `icsim run` on platforms/skif-aurora.yaml; what it prints is checked against values worked out
 * by hand from the parameters given here. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../../tests/shell.h"

#define ICSIM ICSIM_BUILD "/bin/icsim"
#define AURORA ICSIM_SRC "/platforms/skif-aurora.yaml"
#define PROG ICSIM_BUILD "/stacks-skifch-checks"

static void build(void)
{
  char *out;
  int st = run(ICSIM_BUILD "/bin/icsimcc -O1 -o " PROG " " ICSIM_SRC "/stacks/skifch/tests/progs/skifch_checks.c", &out,
               1);
  cr_assert_eq(st, 0, "icsimcc failed: %s", out);
  free(out);
}

static int check(const char *what, int n, const char *sets, char **out)
{
  char cmd[1024];
  snprintf(cmd, sizeof cmd, ICSIM " run -p " AURORA " -n %d --host-timing off %s " PROG " %s", n, sets, what);
  return run(cmd, out, 1);
}

TestSuite(skifch_e2e, .init = build);

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
  char *out;
  int st = check("pieces", 2, "--set skifch/recv-buffer=16KiB", &out);
  cr_assert_eq(st, 0, "%s", out);
  cr_assert(strstr(out, "sent 6144"), "%s", out);
  cr_assert(strstr(out, "message 6144 in 3 pieces: 512 4096 1536 content ok"), "%s", out);
  free(out);
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
  char *out;
  int st = check("separation", 2, "", &out);
  cr_assert_eq(st, 0, "%s", out);
  cr_assert(strstr(out, "port 1 got 10 A, port 2 got 10 B, 0 extra"), "%s", out);
  cr_assert(strstr(out, "second open of port 1: EADDRINUSE"), "%s", out);
  free(out);
}

Test(skifch_e2e, a_program_that_forgets_recvcomp_stalls_and_is_told_why)
{
  char *out;
  int st = check("forget", 2, "", &out);
  cr_assert_neq(st, 0, "%s", out);
  cr_assert(strstr(out, "held entirely by 16 messages SkifCh_Recv returned and SkifCh_RecvComp never released"), "%s",
            out);
  cr_assert(strstr(out, "Call SkifCh_RecvComp(ch) after processing each message"), "%s", out);
  free(out);
}
