/* RapidIO stack, one test per mechanism; expected values worked out by hand from the
 * parameters set here (not from the model's output). */
#include <criterion/criterion.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>

#include "rapidio.h"

#define BW 192e6
#define LAT 0.3e-6

static struct rio_state mk(int nodes)
{
  struct rio_state s = {0};
  struct rio_params *p = &s.p;
  p->segment_B = 256;
  p->segments_per_message = 16;
  p->packet_header_B = 12;
  p->response_B = 8;
  p->turnaround_s = 0.1e-6;
  p->retry_delay_s = 1e-6;
  p->dedicated_queues = 8;
  p->mailboxes = 4;
  p->letters = 4;
  p->common_queue_slots = 8;
  p->dma_bw_Bps = 1e12;
  p->io_payload_B = 8;
  p->io_header_bits = 54;
  p->doorbell_B = 2;
  p->large_threshold_B = 4096;
  p->mx_rndv_threshold_B = 32768;
  p->small_header_B = 16;
  p->round_to_segment = true;
  p->zero_copy_align_B = 4096;
  p->manual_programming = true;
  p->shared_core = true;
  p->completion_latency_s = 100e-6;
  p->mx_instructions = 20000;
  p->mx_large_instructions = 5000;
  p->control_instructions = 1000;
  p->program_instructions = 200;
  p->mailbox_message_instructions = 3000;
  p->io_instructions = 10;
  p->copy_bw_Bps = 25e6;
  p->bounce_copy_bw_Bps = 25e6;
  s.clock_Hz = 50e6;
  s.link_bw_Bps = BW;
  char err[128];
  cr_assert_eq(rio_state_init(&s, nodes, err, sizeof err), 0);
  return s;
}

/* one segment of b bytes: out with 12 B header, route, turnaround, 8 B status back, route */
static double seg(double b) { return (b + 12) / BW + LAT + 0.1e-6 + 8 / BW + LAT; }

Test(rapidio, segmenting_and_rounding)
{
  struct rio_state s = mk(2);
  cr_assert_float_eq(rio_round(&s.p, 300), 512, 0);
  cr_assert_float_eq(rio_round(&s.p, 0), 256, 0);
  s.p.round_to_segment = false;
  cr_assert_float_eq(rio_round(&s.p, 300), 300, 0);
  /* 5000 B: 19 full segments + one of 136 B, in 2 messages (4096 + 904) */
  double segs, msgs;
  double t = rio_messages_s(&s.p, 5000, BW, LAT, &segs, &msgs);
  cr_assert_float_eq(segs, 20, 0);
  cr_assert_float_eq(msgs, 2, 0);
  cr_assert_float_eq(t, 19 * seg(256) + seg(136), 1e-15);
  rio_state_free(&s);
}

Test(rapidio, placement_hazard_needs_rounding_off_and_a_rejection)
{
  struct rio_state s = mk(2);
  cr_assert_float_eq(rio_hazard_overflow(&s.p, 300, true), 0, 0); /* rounded: safe */
  s.p.round_to_segment = false;
  cr_assert_float_eq(rio_hazard_overflow(&s.p, 300, false), 0, 0);
  /* 300 B = 2 segments; the last lands at 256 and may run to 512: 212 B past the buffer */
  cr_assert_float_eq(rio_hazard_overflow(&s.p, 300, true), 212, 0);
  cr_assert_float_eq(rio_hazard_overflow(&s.p, 512, true), 0, 0); /* exact multiple: fits */
  rio_state_free(&s);
}

Test(rapidio, retry_when_the_common_queue_is_full)
{
  struct rio_state s = mk(2);
  s.p.common_queue_slots = 1; /* the common queue is opened with the state: open it again */
  rio_state_free(&s);
  char err[128];
  cr_assert_eq(rio_state_init(&s, 2, err, sizeof err), 0);
  struct rio_timing a, b;
  /* 100 B small data -> 16 B header + 100 = 116 -> one 256 B segment */
  rio_small_transfer(&s, 0, 1, 0, 100, LAT, &a);
  cr_assert_float_eq(a.retries, 0, 0);
  cr_assert_float_eq(a.total_s, seg(256), 1e-15);
  /* the single slot stays taken until the receiver has processed the first packet:
   * arrival seg(256), then (20000 + 3000 for its one message) instr / 50 MHz + 256 B / 25 MB/s */
  double busy_until = seg(256) + 23000 / 50e6 + 256 / 25e6;
  rio_small_transfer(&s, 0, 1, 0, 100, LAT, &b);
  double attempt = seg(256) + 1e-6;
  cr_assert_float_eq(b.retries, ceil(busy_until / attempt), 0);
  cr_assert_float_eq(b.total_s, busy_until + seg(256), 1e-12);
  rio_state_free(&s);
}

Test(rapidio, dedicated_queue_handshake_on_mailbox_0)
{
  struct rio_state s = mk(2);
  struct rio_timing t;
  rio_dedicated_queue_handshake(&s, 0, 1, 0, 8192, LAT, &t);
  /* request + reply: each 2 x 1000 instr at 50 MHz and one 256 B control segment */
  double handshake = 2 * (2 * 1000 / 50e6 + seg(256));
  /* two 4 KiB messages, each completed (100 us) before the next; programming is CPU work */
  double chain = 2 * (16 * seg(256) + 100e-6);
  double doorbell = (2 + 12) / BW + LAT;
  cr_assert_float_eq(t.control_messages, 2, 0);
  cr_assert_float_eq(t.segments, 32, 0);
  cr_assert_float_eq(t.total_s, handshake + chain + doorbell, 1e-12);
  cr_assert_eq(t.deferred, 0);
  /* the completion booked queue 0 of node 1 and the first (mailbox, letter) of pair 0 -> 1
   * (index (0 x 2 + 1) x 3 mailboxes x 4 letters = 12) until the doorbell is in */
  cr_assert_float_eq(t.doorbells, 1, 0);
  cr_assert_eq(t.queue, 0);
  cr_assert_eq(t.mailbox_index, 12);
  cr_assert_float_eq(s.node[1].queue_free_at[0], t.total_s, 0);
  cr_assert_float_eq(s.mailbox_free_at[12], t.total_s, 0);
  rio_state_free(&s);
}

/* ---- control-level operations, one handler each (through rio_control) ---- */

/* one control message on mailbox 0: 1000 instructions at each end at 50 MHz, one 256 B segment
 * (the 16 B header rounded up) */
static double ctl(void) { return 2 * 1000 / 50e6 + seg(256); }

Test(rapidio, control_mailbox_is_mailbox_0_with_the_common_queue_behind_it)
{
  struct rio_state s = mk(2);
  cr_assert_eq(RIO_CONTROL_MAILBOX, 0);
  for (int n = 0; n < 2; n++) {
    cr_assert_eq(s.node[n].control.slots, 8); /* opened at start-up with every buffer free */
    for (int i = 0; i < 8; i++)
      cr_assert_float_eq(s.node[n].control.slot_free_at[i], 0, 0);
    cr_assert_float_eq(s.node[n].control.cpu_free_at, 0, 0);
  }
  rio_state_free(&s);
}

Test(rapidio, small_data_takes_common_queue_buffers_and_the_receiving_cpu)
{
  struct rio_state s = mk(2);
  struct rio_timing t = {0};
  /* 100 B + 16 B header -> one 256 B segment, one 4 KiB buffer */
  struct rio_control_msg m = {.op = RIO_SMALL_DATA, .src = 0, .dst = 1, .bytes = 100, .route_lat_s = LAT};
  double took = rio_control(&s, &m, &t);
  cr_assert_float_eq(took, seg(256), 1e-15);
  cr_assert_float_eq(t.segments, 1, 0);
  cr_assert_float_eq(t.messages, 1, 0);
  cr_assert_float_eq(t.retries, 0, 0);
  cr_assert_float_eq(t.control_messages, 0, 0); /* data, not control information */
  /* the CPU takes it on arrival: (20000 + 3000) instructions at 50 MHz + 256 B copied at 25 MB/s;
   * its buffer is held until then */
  struct rio_control_mailbox *cm = &s.node[1].control;
  double drained = seg(256) + 23000 / 50e6 + 256 / 25e6;
  cr_assert_float_eq(cm->cpu_free_at, drained, 1e-15);
  cr_assert_float_eq(cm->slot_free_at[0], drained, 1e-15);
  for (int i = 1; i < 8; i++)
    cr_assert_float_eq(cm->slot_free_at[i], 0, 0);
  cr_assert_float_eq(s.node[0].control.cpu_free_at, 0, 0); /* the sender's mailbox is untouched */
  /* 5000 B + 16 -> 5120 B: 20 segments in 2 messages (pieces of 4096 and 1024 B), 2 more
   * buffers. Sent as the first packet leaves the lanes (concurrent segments would share them): the
   * two pieces come from one contiguous bounce buffer, queued back to back (no completion between
   * them): 20 segments; the CPU is still on the first packet (~472 us) and drains each piece with
   * half of the message's receive path */
  struct rio_timing u = {0};
  m.bytes = 5000;
  m.now_s = m.at_s = seg(256);
  double took_5000 = rio_control(&s, &m, &u);
  cr_assert_float_eq(took_5000, 20 * seg(256), 1e-15);
  cr_assert_float_eq(u.segments, 20, 0);
  cr_assert_float_eq(u.messages, 2, 0);
  cr_assert(21 * seg(256) < drained);
  double half = ((20000 + 2 * 3000) / 50e6 + 5120 / 25e6) / 2, second = drained + 2 * half;
  cr_assert_float_eq(cm->cpu_free_at, second, 1e-15);
  cr_assert_float_eq(cm->slot_free_at[1], drained + half, 1e-15);
  cr_assert_float_eq(cm->slot_free_at[2], second, 1e-15);
  rio_state_free(&s);
}

Test(rapidio, paths_are_keyed_by_size_at_two_boundaries)
{
  struct rio_state s = mk(2);
  s.p.large_threshold_B = 1048576;
  cr_assert_eq(rio_path_of(&s.p, 32768), RIO_PATH_MX_EAGER); /* MX medium up to 32 KiB */
  cr_assert_eq(rio_path_of(&s.p, 32769), RIO_PATH_MX_PULL);
  cr_assert_eq(rio_path_of(&s.p, 1048576), RIO_PATH_MX_PULL);
  cr_assert_eq(rio_path_of(&s.p, 1048577), RIO_PATH_DEDICATED);
  /* MX's rendezvous starts at its medium limit whatever the control level does: SMPI's eager
   * limit is the smaller of the two boundaries */
  cr_assert_float_eq(rapidio_stack.eager_limit_bytes(&s), 32768, 0);
  s.p.large_threshold_B = 4096;
  cr_assert_float_eq(rapidio_stack.eager_limit_bytes(&s), 4096, 0);
  rio_state_free(&s);
}

Test(rapidio, pulled_data_is_copied_piece_by_piece_by_both_drivers)
{
  struct rio_state s = mk(2);
  struct rio_timing t;
  /* 8192 B + 16 B header -> 8448 B: pieces of 4096, 4096 and 256 B (16, 16 and 1 segments). The
   * sending driver copies each piece into a bounce buffer (25 MB/s) before programming it, takes
   * its completion (100 us) before the next; the receiving driver copies the last piece out. */
  /* (MX pull: see below) */
  rio_pull_transfer(&s, 0, 1, 0, 8192, LAT, &t);
  double handshake = 2 * ctl(); /* RNDV and PULL on mailbox 0 */
  double c4 = 4096 / 25e6, c256 = 256 / 25e6;
  /* the receiver asks for the second and third pieces with a pull request each (one control
   * message on mailbox 0) */
  double chain = 2 * (c4 + 16 * seg(256) + 100e-6) + c256 + seg(256) + c256 + 2 * ctl();
  cr_assert_float_eq(t.control_messages, 2, 0);
  cr_assert_float_eq(t.pull_requests, 2, 0);
  cr_assert_float_eq(t.messages, 3, 0);
  cr_assert_float_eq(t.segments, 33, 0);
  cr_assert_float_eq(t.total_s, handshake + chain, 1e-12);
  /* each driver has 2 x c4 + c256 of copying and MX's rendezvous work (5000 instructions at
   * 50 MHz) queued from the data's start */
  double mxw = 5000 / 50e6;
  cr_assert_float_eq(s.node[0].driver_busy_until[0], handshake + 2 * c4 + c256 + mxw, 1e-12);
  cr_assert_float_eq(s.node[1].driver_busy_until[0], handshake + 2 * c4 + c256 + mxw, 1e-12);
  /* a second pulled transfer started at once finds both drivers' queues: the chain's gaps (two
   * completions of 100 us) are shorter than the first transfer's copies, so it ends when the
   * drivers have done both transfers' work (2 x (2 x c4 + c256 + mxw)) and its last piece out */
  struct rio_timing u;
  rio_pull_transfer(&s, 0, 1, 0, 8192, LAT, &u);
  double both = 2 * (2 * c4 + c256 + mxw);
  cr_assert(handshake + both + c256 > handshake + chain);
  cr_assert_float_eq(u.total_s, handshake + both + c256, 1e-12);
  cr_assert_float_eq(s.node[0].driver_busy_until[0], handshake + both, 1e-12);
  rio_state_free(&s);
}

/* Bidirectional exchange of pulled messages between two nodes: N = 2 transfers of 8192 B each
 * way, all started at t = 0 (a window, as osu_bibw posts it). Every pulled transfer queues
 * W = its bounce copies (2 x 4096 B + 256 B at 25 MB/s = 337.92 us) + MX's rendezvous work (5000
 * instructions at 50 MHz = 100 us) = 437.92 us on its sender's core and W on its receiver's.
 * The 1890VM6Ya has one core, which runs both directions' drivers: each node's core does
 * 2N jobs, one after another, so the last transfer ends at
 *   handshake + 2N W + c256 = 84.28 + 1751.68 + 10.24 us = 1846.2 us
 * (handshake: RNDV and PULL, 2 x 42.14 us; c256: its last piece copied out), i.e.
 * 4 x 8192 B / 1846.2 us = 17.75 MB/s both ways together. With the two directions on separate
 * queues (the model before rapidio/shared-core, as if on two cores) each queue has N jobs:
 * handshake + N W + c256 = 970.36 us, 33.8 MB/s, 1.90 times faster. Both are CPU-bound: one
 * transfer's chain alone (handshake + 702.98 us = 787.26 us, pieces, completions and pull
 * requests) is shorter. One direction only (osu_bw's case) queues N jobs on each node's core,
 * the sender's and the receiver's, whatever the switch: handshake + N W + c256 either way.
 * Tolerance: 1 ns (the figure is a sum of the same terms; only rounding differs). */
static double pulled_window(bool shared, bool both_ways)
{
  struct rio_state s = mk(2);
  s.p.shared_core = shared;
  struct rio_timing t;
  double last = 0;
  for (int i = 0; i < 2; i++) {
    rio_pull_transfer(&s, 0, 1, 0, 8192, LAT, &t);
    last = fmax(last, t.total_s);
    if (both_ways) {
      rio_pull_transfer(&s, 1, 0, 0, 8192, LAT, &t);
      last = fmax(last, t.total_s);
    }
  }
  rio_state_free(&s);
  return last;
}

Test(rapidio, one_core_runs_both_directions_drivers)
{
  double handshake = 2 * ctl(), c4 = 4096 / 25e6, c256 = 256 / 25e6, mxw = 5000 / 50e6;
  double W = 2 * c4 + c256 + mxw, N = 2;
  double chain = 2 * (c4 + 16 * seg(256) + 100e-6) + c256 + seg(256) + c256 + 2 * ctl();
  cr_assert(N * W + c256 > chain, "the hand figure assumes a CPU-bound window");
  double shared = handshake + 2 * N * W + c256;
  cr_assert_float_eq(shared, 1846.2e-6, 0.05e-6, "hand figure in the comment: %.2f us", shared * 1e6);
  double got = pulled_window(true, true);
  cr_assert_float_eq(got, shared, 1e-9, "bidirectional, one core: %.2f us, expected %.2f us", got * 1e6,
                     shared * 1e6);
  cr_assert_float_eq(4 * 8192 / got / 1e6, 17.75, 0.01);
  /* switched off, the two directions' driver work overlaps: the earlier model's figure */
  cr_assert_float_eq(pulled_window(false, true), handshake + N * W + c256, 1e-9);
  /* one direction at a time does not depend on the switch */
  cr_assert_float_eq(pulled_window(true, false), handshake + N * W + c256, 1e-9);
  cr_assert_float_eq(pulled_window(false, false), handshake + N * W + c256, 1e-9);
}

Test(rapidio, queue_request_reserves_the_earliest_queue_and_mailbox)
{
  struct rio_state s = mk(2);
  /* node 1's queues: queue 2 frees first, at 1 ms; pair 0 -> 1 has 3 data mailboxes x 4 letters
   * at indices 12..23, all busy until 4 ms except index 17 (3 ms) */
  for (int q = 0; q < 8; q++)
    s.node[1].queue_free_at[q] = q == 2 ? 1e-3 : 2e-3;
  for (int i = 12; i < 24; i++)
    s.mailbox_free_at[i] = i == 17 ? 3e-3 : 4e-3;
  struct rio_timing t = {0};
  struct rio_control_msg m = {.op = RIO_QUEUE_REQUEST, .src = 0, .dst = 1, .bytes = 8192, .route_lat_s = LAT};
  double took = rio_control(&s, &m, &t);
  cr_assert_float_eq(took, ctl(), 1e-15);
  cr_assert_eq(m.queue, 2);
  cr_assert_eq(m.mailbox_index, 17);
  cr_assert_float_eq(m.granted_s, 3e-3, 0); /* the mailbox binds: deferred until 3 ms */
  cr_assert_eq(t.deferred, 1);
  cr_assert_float_eq(t.control_messages, 1, 0);
  cr_assert_eq(m.mailbox, RIO_CONTROL_MAILBOX); /* the sender does not know it yet */
  /* reserved, not booked: the completion books them */
  cr_assert_float_eq(s.node[1].queue_free_at[2], 1e-3, 0);
  cr_assert_float_eq(s.mailbox_free_at[17], 3e-3, 0);
  /* everything free at 0: granted at once, queue 0, first pair */
  struct rio_state f = mk(2);
  struct rio_timing u = {0};
  m = (struct rio_control_msg){.op = RIO_QUEUE_REQUEST, .src = 0, .dst = 1, .at_s = 5e-3, .route_lat_s = LAT};
  rio_control(&f, &m, &u);
  cr_assert_eq(m.queue, 0);
  cr_assert_eq(m.mailbox_index, 12);
  cr_assert_float_eq(m.granted_s, 5e-3, 0);
  cr_assert_eq(u.deferred, 0);
  rio_state_free(&f);
  rio_state_free(&s);
}

Test(rapidio, queue_reply_carries_the_mailbox_number)
{
  struct rio_state s = mk(2);
  struct rio_timing t = {0};
  /* index 17 of pair 0 -> 1 (first 12): 5th of 12 = data mailbox 1 + 5 / 4 = 2, letter 5 % 4 = 1 */
  struct rio_control_msg m = {.op = RIO_QUEUE_REPLY, .src = 0, .dst = 1, .mailbox_index = 17, .route_lat_s = LAT};
  double took = rio_control(&s, &m, &t);
  cr_assert_float_eq(took, ctl(), 1e-15);
  cr_assert_eq(m.mailbox, 2);
  cr_assert_eq(m.letter, 1);
  cr_assert_float_eq(t.control_messages, 1, 0);
  /* the first pair is data mailbox 1, letter 0: never the control mailbox */
  m.mailbox_index = 12;
  rio_control(&s, &m, &t);
  cr_assert_eq(m.mailbox, RIO_CONTROL_MAILBOX + 1);
  cr_assert_eq(m.letter, 0);
  cr_assert_float_eq(t.control_messages, 2, 0);
  rio_state_free(&s);
}

Test(rapidio, send_to_mailbox_programs_4KiB_messages_into_the_queue)
{
  struct rio_state s = mk(2);
  struct rio_timing t = {0};
  struct rio_control_msg m = {.op = RIO_SEND_TO_MAILBOX, .src = 0, .dst = 1, .at_s = 1e-3, .bytes = 8192,
                              .route_lat_s = LAT, .mailbox = 1};
  /* two 4 KiB messages of 16 segments, each followed by its 100 us completion */
  double chain = 2 * (16 * seg(256) + 100e-6);
  double took = rio_control(&s, &m, &t);
  cr_assert_float_eq(took, chain, 1e-15);
  cr_assert_float_eq(t.data_s, chain, 1e-15);
  cr_assert_float_eq(t.segments, 32, 0);
  cr_assert_float_eq(t.messages, 2, 0);
  cr_assert_float_eq(t.retries, 0, 0);
  cr_assert_float_eq(t.control_messages, 0, 0);
  /* placed on node 0's outbound and node 1's inbound lane: 8192 B + 32 x 12 B of headers */
  cr_assert_eq(s.node[0].nflows, 1);
  cr_assert_eq(s.node[1].nflows, 1);
  cr_assert_eq(s.node[0].flows[0].out, 1);
  cr_assert_eq(s.node[1].flows[0].out, 0);
  cr_assert_float_eq(s.node[1].flows[0].start_s, 1e-3, 0);
  cr_assert_float_eq(s.node[1].flows[0].end_s, 1e-3 + chain, 1e-15);
  cr_assert_float_eq(s.node[1].flows[0].rate_Bps, (8192 + 32 * 12) / chain, 1e-6);
  /* programmed by the hardware: one completion for the whole buffer; 5120 B = 20 segments */
  struct rio_state h = mk(2);
  h.p.manual_programming = false;
  struct rio_timing u = {0};
  m.bytes = 5120;
  double took_hw = rio_control(&h, &m, &u);
  cr_assert_float_eq(took_hw, 20 * seg(256) + 100e-6, 1e-15);
  cr_assert_float_eq(u.messages, 2, 0);
  rio_state_free(&h);
  rio_state_free(&s);
}

Test(rapidio, send_to_mailbox_before_the_reply_aborts, .signal = SIGABRT)
{
  struct rio_state s = mk(2);
  struct rio_timing t = {0};
  /* no reply yet: the only mailbox the sender knows is mailbox 0 */
  struct rio_control_msg m = {.op = RIO_SEND_TO_MAILBOX, .src = 0, .dst = 1, .bytes = 4096, .route_lat_s = LAT};
  rio_control(&s, &m, &t);
}

Test(rapidio, completion_doorbell_frees_queue_and_mailbox_when_it_lands)
{
  struct rio_state s = mk(2);
  struct rio_timing t = {0};
  struct rio_control_msg m = {.op = RIO_COMPLETION, .src = 0, .dst = 1, .at_s = 2e-3, .route_lat_s = LAT,
                              .queue = 3, .mailbox_index = 14, .mailbox = 1};
  /* a 2 B doorbell with the 12 B packet header, posted */
  double doorbell = (2 + 12) / BW + LAT;
  double took = rio_control(&s, &m, &t);
  cr_assert_float_eq(took, doorbell, 1e-15);
  cr_assert_float_eq(s.node[1].queue_free_at[3], 2e-3 + doorbell, 1e-15);
  cr_assert_float_eq(s.mailbox_free_at[14], 2e-3 + doorbell, 1e-15);
  cr_assert_float_eq(s.node[0].queue_free_at[3], 0, 0); /* the receiver's queue, not the sender's */
  cr_assert_float_eq(t.doorbells, 1, 0);
  cr_assert_eq(t.queue, 3);
  cr_assert_eq(t.mailbox_index, 14);
  cr_assert_float_eq(t.done_s, 2e-3 + doorbell, 1e-15);
  rio_state_free(&s);
}

Test(rapidio, unknown_control_op_aborts, .signal = SIGABRT)
{
  struct rio_state s = mk(2);
  struct rio_timing t = {0};
  struct rio_control_msg m = {0}; /* op 0 is no operation: the enum starts at 1 */
  rio_control(&s, &m, &t);
}

Test(rapidio, queue_allocation_defers_when_none_is_free)
{
  struct rio_state s = mk(3);
  s.p.dedicated_queues = 2;
  struct rio_timing t1, t2, t3;
  rio_dedicated_queue_handshake(&s, 0, 2, 0, 4096, LAT, &t1);
  rio_dedicated_queue_handshake(&s, 1, 2, 0, 4096, LAT, &t2);
  cr_assert_eq(t1.deferred + t2.deferred, 0);
  /* node 2 has no free queue: the third waits for the first to finish, then shakes hands */
  rio_dedicated_queue_handshake(&s, 0, 2, 0, 4096, LAT, &t3);
  cr_assert_eq(t3.deferred, 1);
  cr_assert_float_eq(t3.total_s, t1.total_s + t1.total_s, 1e-12);
  /* a hardware-programmed transfer pays one programming step and one completion */
  s.p.manual_programming = false;
  struct rio_state h = mk(2);
  h.p.manual_programming = false;
  struct rio_timing th;
  rio_dedicated_queue_handshake(&h, 0, 1, 0, 8192, LAT, &th);
  double handshake = 2 * (2 * 1000 / 50e6 + seg(256));
  cr_assert_float_eq(th.total_s, handshake + 32 * seg(256) + 100e-6 + (2 + 12) / BW + LAT, 1e-12);
  rio_state_free(&s);
  rio_state_free(&h);
}

Test(rapidio, mailboxes_limit_concurrency_per_source)
{
  struct rio_state s = mk(2);
  s.p.mailboxes = 2; /* mailbox 0 is control: one data mailbox */
  s.p.letters = 1;
  rio_state_free(&s);
  char err[128];
  cr_assert_eq(rio_state_init(&s, 2, err, sizeof err), 0);
  struct rio_timing a, b;
  rio_dedicated_queue_handshake(&s, 0, 1, 0, 4096, LAT, &a);
  rio_dedicated_queue_handshake(&s, 0, 1, 0, 4096, LAT, &b); /* queues free, but no mailbox */
  cr_assert_eq(b.deferred, 1);
  cr_assert_float_eq(b.total_s, 2 * a.total_s, 1e-12);
  rio_state_free(&s);
}

Test(rapidio, bounce_copy_or_zero_copy_by_buffer_address)
{
  struct rio_state s = mk(2);
  void *state = &s;
  char *page = aligned_alloc(4096, 3 * 4096);
  struct icsim_msg m = {.kind = ICSIM_MSG_P2P, .bytes = 8192, .buf = page, .src_node = 0, .dst_node = 1};
  double aligned = rapidio_stack.send_cpu(state, &m);
  /* MX path plus programming its two 4 KiB messages by hand */
  cr_assert_float_eq(aligned, (5000 + 2 * 200) / 50e6, 1e-15);
  cr_assert_float_eq(s.zero_copy, 1, 0);
  m.buf = page + 8; /* not 4 KiB aligned: copied to a bounce buffer at 25 MB/s */
  double bounced = rapidio_stack.send_cpu(state, &m);
  cr_assert_float_eq(bounced, (5000 + 2 * 200) / 50e6 + 8192 / 25e6, 1e-15);
  cr_assert_float_eq(s.bounce_copies, 1, 0);
  /* small data always goes through the bounce buffer with its header: 100 + 16 -> 256 B, one
   * mailbox message; 4096 + 16 -> 4352 B takes two */
  m.bytes = 100;
  m.buf = page;
  cr_assert_float_eq(rapidio_stack.send_cpu(state, &m), (20000 + 3000) / 50e6 + 256 / 25e6, 1e-15);
  s.p.large_threshold_B = 16384;
  m.bytes = 4096;
  cr_assert_float_eq(rapidio_stack.send_cpu(state, &m), (20000 + 2 * 3000) / 50e6 + 4352 / 25e6, 1e-15);
  free(page);
  rio_state_free(&s);
}

Test(rapidio, io_transactions_for_one_sided_operations)
{
  struct rio_state s = mk(2);
  double n;
  /* NWRITE of 20 B: 3 transactions (8 + 8 + 4 B), each with a 6.75 B header, posted back to back */
  double w = rio_io_s(&s.p, 20, false, BW, LAT, &n);
  cr_assert_float_eq(n, 3, 0);
  cr_assert_float_eq(w, (20 + 3 * 6.75) / BW + LAT, 1e-15);
  /* NREAD: each a request out and a response with the data back */
  double r = rio_io_s(&s.p, 20, true, BW, LAT, &n);
  cr_assert_float_eq(r, 3 * (6.75 / BW + LAT + 0.1e-6 + 6.75 / BW + LAT) + 20 / BW, 1e-15);
  /* the standard's 256 B payload: one transaction */
  s.p.io_payload_B = 256;
  rio_io_s(&s.p, 20, false, BW, LAT, &n);
  cr_assert_float_eq(n, 1, 0);
  /* CPU: 10 instructions per transaction */
  struct icsim_msg m = {.kind = ICSIM_MSG_PUT, .bytes = 20};
  s.p.io_payload_B = 8;
  cr_assert_float_eq(rapidio_stack.send_cpu(&s, &m), 3 * 10 / 50e6, 1e-15);
  rio_state_free(&s);
}

Test(rapidio, dma_saturation_causes_retries)
{
  struct rio_state s = mk(2);
  s.p.dma_bw_Bps = 1e3; /* far below one flow's rate */
  struct rio_timing t;
  rio_dedicated_queue_handshake(&s, 0, 1, 0, 4096, LAT, &t);
  cr_assert(t.retries > 0, "a saturated controller must reject segments");
  rio_state_free(&s);
}
