/* RapidIO stack, one test per mechanism; expected values worked out by hand from the
 * parameters set here (not from the model's output). */
#include <criterion/criterion.h>
#include <math.h>
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
  p->small_header_B = 16;
  p->round_to_segment = true;
  p->zero_copy_align_B = 4096;
  p->manual_programming = true;
  p->completion_latency_s = 100e-6;
  p->mx_instructions = 20000;
  p->mx_large_instructions = 5000;
  p->control_instructions = 1000;
  p->program_instructions = 200;
  p->mailbox_message_instructions = 3000;
  p->io_instructions = 10;
  p->copy_bw_Bps = 25e6;
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
  s.p.common_queue_slots = 1;
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
  rio_large_transfer(&s, 0, 1, 0, 8192, LAT, &t);
  /* request + reply: each 2 x 1000 instr at 50 MHz and one 256 B control segment */
  double handshake = 2 * (2 * 1000 / 50e6 + seg(256));
  /* two 4 KiB messages, each completed (100 us) before the next; programming is CPU work */
  double chain = 2 * (16 * seg(256) + 100e-6);
  double doorbell = (2 + 12) / BW + LAT;
  cr_assert_float_eq(t.control_messages, 2, 0);
  cr_assert_float_eq(t.segments, 32, 0);
  cr_assert_float_eq(t.total_s, handshake + chain + doorbell, 1e-12);
  cr_assert_eq(t.deferred, 0);
  rio_state_free(&s);
}

Test(rapidio, queue_allocation_defers_when_none_is_free)
{
  struct rio_state s = mk(3);
  s.p.dedicated_queues = 2;
  struct rio_timing t1, t2, t3;
  rio_large_transfer(&s, 0, 2, 0, 4096, LAT, &t1);
  rio_large_transfer(&s, 1, 2, 0, 4096, LAT, &t2);
  cr_assert_eq(t1.deferred + t2.deferred, 0);
  /* node 2 has no free queue: the third waits for the first to finish, then shakes hands */
  rio_large_transfer(&s, 0, 2, 0, 4096, LAT, &t3);
  cr_assert_eq(t3.deferred, 1);
  cr_assert_float_eq(t3.total_s, t1.total_s + t1.total_s, 1e-12);
  /* a hardware-programmed transfer pays one programming step and one completion */
  s.p.manual_programming = false;
  struct rio_state h = mk(2);
  h.p.manual_programming = false;
  struct rio_timing th;
  rio_large_transfer(&h, 0, 1, 0, 8192, LAT, &th);
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
  rio_large_transfer(&s, 0, 1, 0, 4096, LAT, &a);
  rio_large_transfer(&s, 0, 1, 0, 4096, LAT, &b); /* queues free, but no mailbox */
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
  rio_large_transfer(&s, 0, 1, 0, 4096, LAT, &t);
  cr_assert(t.retries > 0, "a saturated controller must reject segments");
  rio_state_free(&s);
}
