/* Generic stack: frames, headers and the rendezvous round trip, values worked out by hand. */
#include <criterion/criterion.h>

#include <stdint.h>
#include <stdlib.h>

#include "generic.h"
#include "incast.h"
#include "pause.h"
#include "platform.h"
#include "registration.h"

static struct generic_state gige(void)
{
  struct generic_state s = {0};
  s.p.send_overhead_s = 5e-6;
  s.p.recv_overhead_s = 7e-6;
  s.p.eager_threshold_B = 16384;
  s.p.frame_payload_B = 1500;
  s.p.frame_header_B = 38;
  s.p.min_frame_B = 84;
  s.p.control_B = 64;
  s.p.store_and_forward = true;
  return s;
}

Test(generic, wire_bytes_pad_and_frame)
{
  struct generic_state s = gige();
  double frames;
  /* 16 B fits one frame: 16 + 38 = 54 < 84, padded to 84 */
  cr_assert_float_eq(generic_wire_bytes(&s.p, 16, &frames), 84, 1e-9);
  cr_assert_float_eq(frames, 1, 0);
  /* 3000 B = 2 full frames: 3000 + 2 x 38 */
  cr_assert_float_eq(generic_wire_bytes(&s.p, 3000, &frames), 3076, 1e-9);
  /* 3001 B = 3 frames, last carries 1 B: 1 + 38 = 39 < 84 -> +45 padding */
  cr_assert_float_eq(generic_wire_bytes(&s.p, 3001, &frames), 3001 + 3 * 38 + 45, 1e-9);
  cr_assert_float_eq(frames, 3, 0);
}

Test(generic, eager_message_through_one_switch)
{
  struct generic_state s = gige();
  struct icsim_wire_query q = {.bytes = 0, .envelope_bytes = 16, .route_latency_s = 3.2e-6,
                               .route_bandwidth_Bps = 125e6, .network_hops = 2, .switch_stages = 1};
  struct icsim_wire_cost c = {.latency_s = q.route_latency_s, .bandwidth_Bps = q.route_bandwidth_Bps};
  generic_wire(&s, &q, &c);
  /* 16 B move as an 84 B frame: rate 125e6 x 16/84; the switch re-sends the 84 B frame */
  cr_assert_float_eq(c.bandwidth_Bps, 125e6 * 16 / 84, 1e-3);
  cr_assert_float_eq(c.latency_s, 3.2e-6 + 84 / 125e6, 1e-12);
  cr_assert_float_eq(s.eager_msgs, 1, 0);
}

Test(generic, rendezvous_adds_a_control_round_trip)
{
  struct generic_state s = gige();
  struct icsim_wire_query q = {.bytes = 65536, .envelope_bytes = 16, .route_latency_s = 3.2e-6,
                               .route_bandwidth_Bps = 125e6, .network_hops = 2, .switch_stages = 1};
  struct icsim_wire_cost c = {.latency_s = q.route_latency_s, .bandwidth_Bps = q.route_bandwidth_Bps};
  generic_wire(&s, &q, &c);
  /* data: 65552 B in 44 frames (43 x 1500 + 52): 65552 + 44 x 38 = 67224 B on the wire;
   * store and forward of one full 1538 B frame. Control: 64 + 38 = 102 B frames, each way
   * 3.2 us + 102/125e6 + 102/125e6 (switch), plus both overheads. */
  double data = 3.2e-6 + 1538 / 125e6;
  double ctl = 2 * (3.2e-6 + 2 * 102 / 125e6) + 5e-6 + 7e-6;
  cr_assert_float_eq(c.latency_s, data + ctl, 1e-12);
  cr_assert_float_eq(c.bandwidth_Bps, 125e6 * 65552 / 67224, 1e-3);
  cr_assert_float_eq(s.rendezvous_msgs, 1, 0);
  cr_assert_float_eq(s.control_msgs, 2, 0);
}

Test(generic, cut_through_switches_add_no_frame_time)
{
  struct generic_state s = gige();
  s.p.store_and_forward = false;
  struct icsim_wire_query q = {.bytes = 0, .envelope_bytes = 16, .route_latency_s = 3.2e-6,
                               .route_bandwidth_Bps = 125e6, .network_hops = 2, .switch_stages = 1};
  struct icsim_wire_cost c = {.latency_s = q.route_latency_s, .bandwidth_Bps = q.route_bandwidth_Bps};
  generic_wire(&s, &q, &c);
  cr_assert_float_eq(c.latency_s, 3.2e-6, 1e-15);
}

Test(generic, intra_node_messages_skip_the_framing)
{
  struct generic_state s = gige();
  struct icsim_wire_query q = {.bytes = 100, .envelope_bytes = 16, .route_latency_s = 1e-7,
                               .route_bandwidth_Bps = 6.4e9, .network_hops = 0, .switch_stages = 0};
  struct icsim_wire_cost c = {.latency_s = q.route_latency_s, .bandwidth_Bps = q.route_bandwidth_Bps};
  generic_wire(&s, &q, &c);
  cr_assert_float_eq(c.latency_s, 1e-7, 1e-15);
  cr_assert_float_eq(c.bandwidth_Bps, 6.4e9, 1e-3);
}

/* RDMA write rendezvous: the FIN follows the data, one more control frame one way. */
Test(generic, rendezvous_finish_adds_the_fin)
{
  struct generic_state a = gige(), b = gige();
  b.p.rendezvous_finish = true;
  struct icsim_wire_query q = {.bytes = 65536, .envelope_bytes = 16, .route_latency_s = 3.2e-6,
                               .route_bandwidth_Bps = 125e6, .network_hops = 2, .switch_stages = 1};
  struct icsim_wire_cost ca = {.latency_s = q.route_latency_s, .bandwidth_Bps = q.route_bandwidth_Bps}, cb = ca;
  generic_wire(&a, &q, &ca);
  generic_wire(&b, &q, &cb);
  /* one way of a 64 B control message: 3.2 us + 102 B (64 + 38) at 125 MB/s + the switch re-sending it */
  double one_way = 3.2e-6 + 2 * 102 / 125e6;
  cr_assert_float_eq(cb.latency_s - ca.latency_s, one_way, 1e-12);
  cr_assert_float_eq(b.control_msgs, 3, 0);
}

/* Registration on first use, then cache hits; a region rounded out to whole pages; the least
 * recently used registration goes when the cache is full. */
Test(generic, registration_cache)
{
  struct generic_state s = gige();
  s.p.reg_base_s = 20e-6;
  s.p.reg_page_s = 0.5e-6;
  s.p.reg_page_B = 4096;
  s.p.reg_cache_entries = 2;
  double got;
  char *mem = (char *)(uintptr_t)0x100000; /* page-aligned addresses; never dereferenced */
  /* 1 MiB at a page boundary: 256 pages */
  got = generic_register(&s, 3, mem, 1 << 20);
  cr_assert_float_eq(got, 20e-6 + 256 * 0.5e-6, 1e-15);
  got = generic_register(&s, 3, mem, 1 << 20);
  cr_assert_float_eq(got, 0, 0, "same buffer: a hit");
  got = generic_register(&s, 3, mem + 4096, 8192);
  cr_assert_float_eq(got, 0, 0, "inside a registration: a hit");
  got = generic_register(&s, 4, mem, 1 << 20);
  cr_assert_float_eq(got, 20e-6 + 256 * 0.5e-6, 1e-15, "another rank's cache");
  /* 100 B straddling a page boundary: 2 pages */
  got = generic_register(&s, 3, mem + (2 << 20) + 4050, 100);
  cr_assert_float_eq(got, 20e-6 + 2 * 0.5e-6, 1e-15);
  /* a third buffer evicts the least recently used (the 1 MiB one was used before the 100 B one) */
  got = generic_register(&s, 3, mem + (4 << 20), 4096);
  cr_assert_float_eq(got, 20e-6 + 0.5e-6, 1e-15);
  got = generic_register(&s, 3, mem + (2 << 20) + 4050, 100);
  cr_assert_float_eq(got, 0, 0, "still cached");
  got = generic_register(&s, 3, mem, 1 << 20);
  cr_assert_float_eq(got, 20e-6 + 256 * 0.5e-6, 1e-15, "evicted");
  cr_assert_float_eq(s.registrations, 5, 0);
  cr_assert_float_eq(s.registration_hits, 3, 0, "hits %g", s.registration_hits);
  cr_assert_float_eq(s.registered_pages, 256 * 3 + 2 + 1, 0);
  for (int i = 0; i < s.nreg; i++)
    reg_cache_free(&s.reg[i]);
  free(s.reg);
}

/* Inside a node: up to the shared-memory eager threshold two copies (each side copies once),
 * above it an RTS/CTS through the ring (two cells each side) and the receiver's single copy,
 * which is the memory transfer and costs no CPU here. */
Test(generic, shared_memory_channel)
{
  struct generic_state s = gige();
  s.clock_Hz = 2e9;
  s.shm_instructions = 400; /* 0.2 us per cell */
  struct icsim_msg m = {.bytes = 8192};
  double snd, rcv;
  generic_intra_node(&s, &m, &snd, &rcv); /* no copy rate given: the platform's plain channel */
  cr_assert_float_eq(snd, 0.2e-6, 1e-15);
  cr_assert_float_eq(rcv, 0.2e-6, 1e-15);
  s.p.shm_eager_B = 8192;
  s.p.shm_copy_bw_Bps = 4e9;
  generic_intra_node(&s, &m, &snd, &rcv);
  cr_assert_float_eq(snd, 0.2e-6 + 8192 / 4e9, 1e-15);
  cr_assert_float_eq(rcv, 0.2e-6 + 8192 / 4e9, 1e-15);
  m.bytes = 8193;
  generic_intra_node(&s, &m, &snd, &rcv);
  cr_assert_float_eq(snd, 0.4e-6, 1e-15);
  cr_assert_float_eq(rcv, 0.4e-6, 1e-15);
  cr_assert_float_eq(s.shm_eager_msgs, 1, 0);
  cr_assert_float_eq(s.shm_single_copy_msgs, 1, 0);
}

/* Eager push: a message sent 2 us before its receive was posted has 2 us of its flight behind it
 * when SimGrid starts it; one sent 10 us before has all of it (the latency floors at ~0). Off,
 * or for a rendezvous message, nothing changes. */
Test(generic, eager_push_takes_off_the_flight_already_flown)
{
  struct icsim_msg m = {.bytes = 0};
  struct icsim_wire_query q = {.msg = &m, .now_s = 12e-6, .announced_s = 10e-6, .bytes = 0, .envelope_bytes = 16,
                               .route_latency_s = 3.2e-6, .route_bandwidth_Bps = 125e6, .network_hops = 2,
                               .switch_stages = 1};
  double full = 3.2e-6 + 84 / 125e6;
  struct generic_state s = gige();
  s.p.eager_push = true;
  struct icsim_wire_cost c = {.latency_s = q.route_latency_s, .bandwidth_Bps = q.route_bandwidth_Bps};
  generic_wire(&s, &q, &c);
  cr_assert_float_eq(c.latency_s, full - 2e-6, 1e-12);
  q.announced_s = 2e-6;
  c = (struct icsim_wire_cost){.latency_s = q.route_latency_s, .bandwidth_Bps = q.route_bandwidth_Bps};
  generic_wire(&s, &q, &c);
  cr_assert(c.latency_s > 0 && c.latency_s < 1e-9, "%g", c.latency_s);
  cr_assert_float_eq(s.pushed_msgs, 2, 0);
  s.p.eager_push = false;
  c = (struct icsim_wire_cost){.latency_s = q.route_latency_s, .bandwidth_Bps = q.route_bandwidth_Bps};
  generic_wire(&s, &q, &c);
  cr_assert_float_eq(c.latency_s, full, 1e-12);
}

/* One core's copy rate limits transfers on memory links only (inside a node), and only when
 * the platform gives one. */
Test(generic, flow_limit_on_memory_links_only)
{
  struct generic_state s = gige();
  struct icsim_link mem = {.kind = ICSIM_LINK_MEMORY}, net = {.kind = ICSIM_LINK_NETWORK};
  cr_assert_leq(generic_flow_limit(&s, NULL), 0);
  cr_assert_leq(generic_flow_limit(&s, &mem), 0);
  s.p.shm_copy_bw_Bps = 4e9; /* the ring's copies: not a bound on the transfer */
  cr_assert_leq(generic_flow_limit(&s, &mem), 0);
  s.p.single_copy_bw_Bps = 9.28e9;
  cr_assert_float_eq(generic_flow_limit(&s, NULL), 9.28e9, 1);
  cr_assert_float_eq(generic_flow_limit(&s, &mem), 9.28e9, 1);
  cr_assert_leq(generic_flow_limit(&s, &net), 0);
}

/* Karol, Hluchyj and Morgan 1987, Table I, and the interpolation beyond 8 inputs. */
Test(generic, hol_saturation_throughput)
{
  cr_assert_float_eq(pause_hol_throughput(1), 1.0, 1e-12);
  cr_assert_float_eq(pause_hol_throughput(2), 0.75, 1e-12);
  cr_assert_float_eq(pause_hol_throughput(8), 0.6184, 1e-12);
  cr_assert_float_eq(pause_hol_throughput(16), 0.5858 + 0.0326 * 0.5, 1e-12);
  for (int k = 2; k < 64; k++)
    cr_assert_leq(pause_hol_throughput(k + 1), pause_hol_throughput(k), "sat must not grow with k (%d)", k);
}

/* Who blocks whom: node 3 receives from 0, 1 and 2; 0 and 1 also send elsewhere, 2 sends to 3
 * only (never stuck behind another output). Only 0 and 1 count; when 1 stops sending elsewhere,
 * one is left and the port is whole again. */
Test(generic, contending_sources_of_an_output_port)
{
  struct pause_ports pp;
  cr_assert_eq(pause_ports_init(&pp, 4), 0);
  pause_transfer_start(&pp, 0, 3);
  pause_transfer_start(&pp, 0, 1);
  pause_transfer_start(&pp, 1, 3);
  pause_transfer_start(&pp, 1, 2);
  pause_transfer_start(&pp, 2, 3);
  pause_transfer_start(&pp, 2, 3); /* two transfers, one destination */
  cr_assert_eq(pause_contending_sources(&pp, 3), 2);
  cr_assert_eq(pause_contending_sources(&pp, 1), 1);
  pause_transfer_end(&pp, 1, 2);
  cr_assert_eq(pause_contending_sources(&pp, 3), 1);
  pause_transfer_start(&pp, 2, 0); /* 2 now spreads too */
  cr_assert_eq(pause_contending_sources(&pp, 3), 2);
  pause_transfer_start(&pp, 3, 3); /* to itself: not a transfer between nodes */
  cr_assert_eq(pause_contending_sources(&pp, 3), 2);
  pause_ports_free(&pp);
}

/* Which transfers overflow a port (incast.h): capacity 50 (buffer + round trip on the wire),
 * windows of 20. Alone, a window bigger than the port never overflows (in and out at link rate);
 * the second fits (40), the third overflows (60) and still feeds the port; once two are done
 * the port holds one window again, and a new one fits. Ports are separate. */
Test(generic, incast_overflow_of_a_port)
{
  struct incast_ports ip;
  cr_assert_eq(incast_ports_init(&ip, 4), 0);
  cr_assert_eq(incast_transfer_start(&ip, 1, 3, 80, 50), 0, "alone on the port");
  incast_transfer_end(&ip, 1);
  cr_assert_eq(incast_transfer_start(&ip, 2, 3, 20, 50), 0);
  cr_assert_eq(incast_transfer_start(&ip, 3, 3, 20, 50), 0);
  cr_assert_eq(incast_transfer_start(&ip, 4, 3, 20, 50), 1, "60 > 50");
  cr_assert_eq(incast_transfer_start(&ip, 5, 2, 20, 50), 0, "another port");
  incast_transfer_end(&ip, 2);
  incast_transfer_end(&ip, 4);
  incast_transfer_end(&ip, 99); /* unknown: ignored */
  cr_assert_eq(incast_transfer_start(&ip, 6, 3, 20, 50), 0, "40 again");
  cr_assert_eq(incast_transfer_start(&ip, 7, 3, 20, 50), 1, "60 again");
  incast_ports_free(&ip);
}
