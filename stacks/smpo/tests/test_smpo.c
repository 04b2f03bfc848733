/* SMPO stack, one test per mechanism; expected values worked out by hand from the parameters set
 * here (not from the model's output), or from independent references (the CRC-32 check value). */
#include <criterion/criterion.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform.h"
#include "library.h"
#include "smpo.h"

static struct smpo_params params(void)
{
  struct smpo_params p = {0};
  p.hardware_buffer_B = 4096;
  p.header_field_B = 4; /* 12 fields: 48 B of header, 4048 B of data per packet */
  p.library_send_message_instructions = 300;
  p.library_send_packet_instructions = 60;
  p.library_receive_message_instructions = 250;
  p.library_shm_message_instructions = 200;
  p.queue_packet_instructions = 150;
  p.queue_message_instructions = 200;
  p.checksum_cycles_per_B = 4;
  p.copy_bw_Bps = 400e6;
  p.mmap_driver_buffer = true;
  p.driver_call_s = 2e-6;
  p.driver_packet_instructions = 100;
  p.adapter_latency_s = 3e-6;
  p.control_message_B = 32;
  p.inline_threshold_B = 1024;
  p.eager_threshold_B = 131072;
  p.semaphore_op_s = 1.5e-6;
  p.corrupt_packet_rate = 0;
  p.corrupt_bits = 1;
  p.corrupt_seed = 1;
  p.record_pattern = "";
  return p;
}

static uint8_t *pattern_bytes(size_t n)
{
  uint8_t *b = malloc(n ? n : 1);
  for (size_t i = 0; i < n; i++)
    b[i] = (uint8_t)(i * 7 + 3);
  return b;
}

Test(packets, sizes_by_hand)
{
  struct smpo_params p = params();
  cr_assert_float_eq(smpo_header_bytes(&p), 48, 0);
  cr_assert_float_eq(smpo_packet_data_bytes(&p), 4048, 0);
  cr_assert_float_eq(smpo_packets(&p, 0), 1, 0);     /* an empty message is one header-only packet */
  cr_assert_float_eq(smpo_packets(&p, 4048), 1, 0);
  cr_assert_float_eq(smpo_packets(&p, 4049), 2, 0);
  cr_assert_float_eq(smpo_wire_bytes(&p, 10000), 10000 + 3 * 48, 0);
  p.header_field_B = 8; /* 96 B of header */
  cr_assert_float_eq(smpo_packets(&p, 4000), 1, 0);
  cr_assert_float_eq(smpo_packets(&p, 4001), 2, 0);
}

Test(checksum, crc32_check_value)
{
  /* the CRC-32 (IEEE, reflected) check value of "123456789" from the CRC catalogue */
  cr_assert_eq(smpo_crc32(0, "123456789", 9), 0xCBF43926u);
  /* continuing a CRC gives the CRC of the concatenation; 13 bytes cross the 8-byte slicing */
  const char *s = "The quick brown fox";
  cr_assert_eq(smpo_crc32(smpo_crc32(0, s, 5), s + 5, strlen(s) - 5), smpo_crc32(0, s, strlen(s)));
  cr_assert_eq(smpo_crc32(0, "", 0), 0u);
}

Test(packets, header_parts_written_and_read_back)
{
  struct smpo_params p = params();
  uint8_t *data = pattern_bytes(5000);
  struct smpo_header h = {.dst_module = 10, .transit = 3, .sender = 4, .receiver = 7, .msg_id = 99, .type = SMPO_DATA};
  struct smpo_wire_msg m;
  cr_assert_eq(smpo_packetise(&p, h, data, 5000, &m), 0);
  cr_assert_eq(m.h.npackets, 2);
  cr_assert_eq(m.h.msg_checksum, smpo_crc32(0, data, 5000));
  size_t len0, len1;
  uint8_t *p0 = smpo_packet(&m, 0, &len0), *p1 = smpo_packet(&m, 1, &len1);
  cr_assert_eq(len0, 4096);          /* 44 B of header fields + 4048 data + 4 B checksum trailer */
  cr_assert_eq(len1, 48 + 952);      /* the rest: 5000 - 4048 = 952 */
  struct smpo_header r;
  smpo_header_read(&p, p1, &r);
  cr_assert_eq(r.dst_module, 10);
  cr_assert_eq(r.transit, 3);
  cr_assert_eq(r.sender, 4);
  cr_assert_eq(r.receiver, 7);
  cr_assert_eq(r.msg_id, 99);
  cr_assert_eq(r.type, SMPO_DATA);
  cr_assert_eq(r.length, 5000);
  cr_assert_eq(r.npackets, 2);
  cr_assert_eq(r.seq, 1);
  cr_assert_eq(r.pkt_length, 952);
  cr_assert_eq(memcmp(p1 + 44, data + 4048, 952), 0);
  uint32_t st, co;
  cr_assert(smpo_packet_checksum_ok(&p, p0, len0, &st, &co));
  cr_assert(smpo_packet_checksum_ok(&p, p1, len1, &st, &co));
  cr_assert_eq(st, smpo_crc32(0, p1, len1 - 4));
  smpo_wire_msg_free(&m);
  free(data);
}

static int count_requests(void *device, const struct smpo_lib_request *r)
{
  ((int *)device)[0]++;
  ((int *)device)[1] = (int)r->npackets;
  return 0;
}

/* The library's steps as code (library.c, whose instructions set smpo/library-*-instructions)
 * write the same header words as packets.c, and read them back on the receive side. Ranks 0..7
 * on modules r / 2; from module 0, module 2 lies behind 1 transit module. */
Test(library, headers_are_the_packets_and_analysis_reads_them)
{
  struct smpo_params p = params();
  uint32_t module_of[8] = {0, 0, 1, 1, 2, 2, 3, 3}, transit[4] = {0, 0, 1, 0};
  int calls[2] = {0, 0};
  static uint32_t slot[2000]; /* the driver's ring */
  uint32_t tail = 0;
  struct smpo_lib l = {1, 0, module_of, transit, 99, 4048, count_requests, calls, slot, 2000, 0, &tail};
  struct smpo_lib_msg m;
  uint8_t *data = pattern_bytes(5000);
  uint32_t ck = smpo_crc32(0, data, 5000);
  cr_assert_eq(smpo_lib_send(&l, 5, SMPO_DATA, 5000, ck, &m), 0);
  cr_assert_eq(m.npackets, 2);
  cr_assert_eq(m.dst_module, 2);
  cr_assert_eq(m.transit, 1);
  cr_assert_not(m.shared_memory);
  cr_assert_eq(l.next_id, 100);
  cr_assert_eq(calls[0], 1);
  cr_assert_eq(calls[1], 2);
  struct smpo_header h = {.dst_module = 2, .transit = 1, .sender = 1, .receiver = 5, .msg_id = 99, .type = SMPO_DATA};
  struct smpo_wire_msg w;
  cr_assert_eq(smpo_packetise(&p, h, data, 5000, &w), 0);
  size_t len;
  uint8_t *p0 = smpo_packet(&w, 0, &len), *p1 = smpo_packet(&w, 1, &len);
  /* packet 1's header starts after packet 0's 11 header words, 4048 data bytes and checksum word */
  cr_assert_eq(memcmp(slot, p0, 44), 0);
  cr_assert_eq(memcmp(slot + 11 + 4048 / 4 + 1, p1, 44), 0);
  /* the packets took 1024 + 11 + 238 + 1 words of the ring's 2000; one of 4000 B (1012 words) does not
   * fit after them: it waits until the driver has sent the first (tail), then starts the ring over */
  cr_assert_eq(l.head, 1274);
  cr_assert_eq(smpo_lib_send(&l, 5, SMPO_DATA, 4000, ck, &m), -1);
  cr_assert_eq(calls[0], 1);
  tail = 1274;
  cr_assert_eq(smpo_lib_send(&l, 5, SMPO_DATA, 4000, ck, &m), 0);
  cr_assert_eq(l.head, 1012);
  cr_assert_eq(calls[0], 2);
  /* a peer of the same module needs no packets and no driver */
  cr_assert_eq(smpo_lib_send(&l, 0, SMPO_INLINE, 8, ck, &m), 0);
  cr_assert(m.shared_memory);
  cr_assert_eq(calls[0], 2);
  /* receive: rank 5 (module 2) analyses the message; rank 4 is told it is not for it */
  struct smpo_lib r5 = {5, 2, module_of, transit, 1, 4048, count_requests, calls, NULL, 0, 0, NULL};
  cr_assert_eq(smpo_lib_receive(&r5, slot, &m), SMPO_LIB_DELIVER);
  cr_assert_eq(m.receiver, 1);
  cr_assert_eq(m.length, 4000); /* the second message's header now heads the ring */
  cr_assert_eq(m.id, 100);
  cr_assert_eq(calls[0], 3);
  slot[SMPO_F_TYPE] = SMPO_RTS;
  cr_assert_eq(smpo_lib_receive(&r5, slot, &m), SMPO_LIB_ANSWER);
  r5.rank = 4;
  cr_assert_eq(smpo_lib_receive(&r5, slot, &m), -1);
  smpo_wire_msg_free(&w);
  free(data);
}

/* Packet K of M into Q (the length is taken before the call: argument order is unspecified). */
static int add(struct smpo_queue *q, const struct smpo_params *p, const struct smpo_wire_msg *m, uint32_t k, int tag)
{
  size_t len;
  uint8_t *pkt = smpo_packet(m, k, &len);
  uint32_t st, co;
  return smpo_queue_add_packet(q, p, pkt, len, tag, &st, &co);
}

Test(queue, ready_queue_counter_poll_receive)
{
  struct smpo_params p = params();
  uint8_t *a = pattern_bytes(9000), out[9000];
  struct smpo_header h = {.sender = 3, .receiver = 0, .msg_id = 5, .type = SMPO_DATA};
  struct smpo_wire_msg m, small;
  smpo_packetise(&p, h, a, 9000, &m); /* 3 packets: 4048 + 4048 + 904 */
  h.msg_id = 6;
  smpo_packetise(&p, h, a, 10, &small);
  struct smpo_queue q = {0};
  uint32_t st, co;
  /* packets arrive out of order: the message is ready only when all three are in */
  cr_assert_eq(add(&q, &p, &m, 2, 11), SMPO_OK);
  cr_assert_eq(add(&q, &p, &m, 0, 11), SMPO_OK);
  cr_assert_eq(q.ready_count, 0);
  cr_assert_not(smpo_queue_poll(&q, 3, 9000, 11));
  cr_assert_eq(add(&q, &p, &small, 0, 12), SMPO_OK);
  cr_assert_eq(q.ready_count, 1); /* the one-packet message is ready at once */
  cr_assert_eq(add(&q, &p, &m, 1, 11), SMPO_OK);
  cr_assert_eq(q.ready_count, 2);
  cr_assert_eq(q.max_ready, 2);
  cr_assert_float_eq(q.bytes, 9000 + 3 * 48 + 10 + 48, 0); /* the pool holds every packet, headers included */
  cr_assert(smpo_queue_poll(&q, 3, 9000, 11));
  cr_assert_not(smpo_queue_poll(&q, 3, 9000, 12)); /* wrong tag */
  cr_assert_not(smpo_queue_poll(&q, 2, -1, INT_MIN)); /* nobody else sent */
  const struct smpo_qmsg *qm = smpo_queue_lookup(&q, 3, 9000, 11);
  cr_assert_not_null(qm);
  cr_assert_eq(qm->msg_id, 5);
  cr_assert_eq(smpo_queue_receive(&q, &p, 3, 5, out, &st, &co), SMPO_OK);
  cr_assert_eq(memcmp(out, a, 9000), 0);
  cr_assert_eq(q.ready_count, 1);
  cr_assert_eq(smpo_queue_receive(&q, &p, 3, 5, out, &st, &co), SMPO_ENOTREADY); /* freed */
  cr_assert_eq(smpo_queue_receive(&q, &p, 3, 6, out, &st, &co), SMPO_OK);
  cr_assert_eq(q.ready_count, 0);
  cr_assert_float_eq(q.bytes, 0, 0);
  cr_assert_eq(smpo_queue_held(&q), 0);
  smpo_queue_free(&q);
  smpo_wire_msg_free(&m);
  smpo_wire_msg_free(&small);
  free(a);
}

/* Every single-bit error anywhere in a packet (header, data, checksum) is refused at insertion
 * and nothing is stored. */
Test(checksum, every_single_bit_error_detected)
{
  struct smpo_params p = params();
  uint8_t *a = pattern_bytes(300);
  struct smpo_wire_msg m;
  smpo_packetise(&p, (struct smpo_header){.sender = 1, .msg_id = 2, .type = SMPO_DATA}, a, 300, &m);
  size_t len;
  uint8_t *pkt = smpo_packet(&m, 0, &len);
  struct smpo_queue q = {0};
  uint32_t st, co;
  for (size_t bit = 0; bit < len * 8; bit++) {
    pkt[bit / 8] ^= (uint8_t)(1u << (bit % 8));
    cr_assert_eq(smpo_queue_add_packet(&q, &p, pkt, len, 0, &st, &co), SMPO_EPACKET, "bit %zu", bit);
    pkt[bit / 8] ^= (uint8_t)(1u << (bit % 8));
  }
  cr_assert_eq(smpo_queue_held(&q), 0);
  cr_assert_float_eq(q.bytes, 0, 0);
  smpo_queue_free(&q);
  smpo_wire_msg_free(&m);
  free(a);
}

/* Injection: over 20,000 seeded packets of the longest size with 1, 2 and 3 flipped bits, every
 * damaged one is refused. */
Test(checksum, injected_errors_of_up_to_3_bits_all_detected)
{
  struct smpo_params p = params();
  p.hardware_buffer_B = 8192; /* the longest packet the table allows */
  uint8_t *a = pattern_bytes(8192);
  struct smpo_wire_msg m;
  smpo_packetise(&p, (struct smpo_header){.sender = 1, .msg_id = 2, .type = SMPO_DATA}, a, 8192 - 48, &m);
  size_t len;
  const uint8_t *pkt = smpo_packet(&m, 0, &len);
  cr_assert_eq(len, 8192);
  uint8_t *copy = malloc(len);
  int tried = 0;
  for (int bits = 1; bits <= 3; bits++)
    for (uint32_t k = 0; k < 7000; k++) {
      p.corrupt_bits = bits;
      memcpy(copy, pkt, len);
      smpo_corrupt_flip(&p, 9, k, k, copy, len);
      int differ = 0;
      for (size_t i = 0; i < len; i++)
        differ += __builtin_popcount(copy[i] ^ pkt[i]);
      cr_assert_eq(differ, bits);
      uint32_t st, co;
      cr_assert_not(smpo_packet_checksum_ok(&p, copy, len, &st, &co), "bits %d k %u", bits, k);
      tried++;
    }
  cr_assert_eq(tried, 21000);
  free(copy);
  smpo_wire_msg_free(&m);
  free(a);
}

Test(checksum, decisions_follow_rate_and_seed)
{
  struct smpo_params p = params();
  p.corrupt_packet_rate = 0.25;
  int hit = 0, again = 0;
  for (uint32_t k = 0; k < 20000; k++) {
    int d = smpo_corrupt_decide(&p, 0, k / 100, k % 100);
    hit += d;
    again += d == smpo_corrupt_decide(&p, 0, k / 100, k % 100);
  }
  cr_assert_eq(again, 20000);                     /* deterministic */
  cr_assert(fabs(hit / 20000.0 - 0.25) < 0.015, "%d", hit); /* binomial sd 0.003 */
  p.corrupt_packet_rate = 0;
  cr_assert_not(smpo_corrupt_decide(&p, 0, 1, 1));
}

/* A packet damaged after its insertion (in memory) is caught by the whole-message checksum at
 * receive: nothing is handed up. */
Test(queue, message_checksum_catches_what_packet_checksums_passed)
{
  struct smpo_params p = params();
  uint8_t *a = pattern_bytes(100), out[100];
  memset(out, 0xAA, sizeof out);
  struct smpo_wire_msg m;
  smpo_packetise(&p, (struct smpo_header){.sender = 1, .msg_id = 2, .type = SMPO_DATA}, a, 100, &m);
  struct smpo_queue q = {0};
  uint32_t st, co;
  size_t len;
  uint8_t *pkt = smpo_packet(&m, 0, &len);
  cr_assert_eq(smpo_queue_add_packet(&q, &p, pkt, len, 0, &st, &co), SMPO_OK);
  q.pool->slot[0][44 + 17] ^= 0x10; /* one data bit, in the queue's slot */
  cr_assert_eq(smpo_queue_receive(&q, &p, 1, 2, out, &st, &co), SMPO_EMESSAGE);
  cr_assert_eq(st, smpo_crc32(0, a, 100));
  cr_assert_neq(st, co);
  for (int i = 0; i < 100; i++)
    cr_assert_eq(out[i], 0xAA);
  cr_assert_eq(smpo_queue_held(&q), 0); /* freed all the same */
  smpo_queue_free(&q);
  smpo_wire_msg_free(&m);
  free(a);
}

Test(device, transfer_modes_and_thresholds)
{
  struct smpo_params p = params();
  struct smpo_plan pl;
  smpo_plan(&p, 1024, &pl);
  cr_assert_eq(pl.mode, SMPO_MODE_INLINE);
  cr_assert_eq(pl.n, 1);
  cr_assert_float_eq(pl.leg[0].bytes, 32 + 1024, 0);
  smpo_plan(&p, 1025, &pl);
  cr_assert_eq(pl.mode, SMPO_MODE_EAGER);
  cr_assert_eq(pl.n, 2);
  cr_assert_eq(pl.leg[0].type, SMPO_CONTROL);
  cr_assert_float_eq(pl.leg[1].bytes, 1025, 0);
  smpo_plan(&p, 131072, &pl);
  cr_assert_eq(pl.mode, SMPO_MODE_EAGER);
  smpo_plan(&p, 131073, &pl);
  cr_assert_eq(pl.mode, SMPO_MODE_RENDEZVOUS);
  cr_assert_eq(pl.n, 3);
  cr_assert_eq(pl.leg[1].type, SMPO_CTS);
  cr_assert_eq(pl.leg[1].back, 1);
}

/* 10,000 bytes at 1 GHz: 3 packets; library 300 + 3 x 60 instructions; checksums over the data
 * twice (message + packets) and 3 x 44 header bytes at 4 clocks per byte; copies at 400 MB/s. */
Test(device, cpu_split_by_hand)
{
  struct smpo_params p = params();
  struct smpo_cpu c;
  smpo_send_side(&p, 1e9, 10000, &c);
  cr_assert_float_eq(c.library_s, 480e-9, 1e-15);
  double cks = (2 * 10000 + 3 * 44) * 4 / 1e9;
  cr_assert_float_eq(c.queue_s, cks + 10000 / 400e6, 1e-15);
  cr_assert_float_eq(c.driver_s, 2e-6 + 300e-9, 1e-15);
  p.mmap_driver_buffer = false; /* write() copies the 10,144 packet bytes once more */
  smpo_send_side(&p, 1e9, 10000, &c);
  cr_assert_float_eq(c.queue_s, cks + 10000 / 400e6 + 10144 / 400e6, 1e-15);
  p.mmap_driver_buffer = true;
  smpo_recv_side(&p, 1e9, 10000, &c);
  double add = 3 * 150e-9 + 10144 / 400e6, rcv = 200e-9 + 10000 / 400e6;
  cr_assert_float_eq(c.queue_s, add + rcv + cks, 1e-15);
  /* rendezvous: the sender also takes the CTS (32 B, 1 packet), the receiver sends it */
  struct smpo_cpu snd, one, ctl;
  smpo_message_cpu(&p, 1e9, 200000, 1, &snd);
  smpo_send_side(&p, 1e9, 32, &ctl);
  smpo_send_side(&p, 1e9, 200000, &one);
  struct smpo_cpu cts_in;
  smpo_recv_side(&p, 1e9, 32, &cts_in);
  cr_assert_float_eq(smpo_cpu_total(&snd), smpo_cpu_total(&ctl) + smpo_cpu_total(&cts_in) + smpo_cpu_total(&one), 1e-15);
}

/* Store and forward over 2 transit modules: 10,000 B = 10,144 B on the first link, then the
 * largest packet (4,096 B) stored and forwarded twice. */
Test(routing, stream_closed_form)
{
  struct smpo_params p = params();
  double b = 10000;
  double t = smpo_stream_s(&p, &b, 1, 2, 1e-6, 100e6);
  cr_assert_float_eq(t, 1e-6 + 3e-6 + (10144 + 2 * 4096) / 100e6, 1e-15);
  double legs[2] = {32, 2000}; /* eager: control + body, one adapter start each */
  t = smpo_stream_s(&p, legs, 2, 0, 1e-6, 100e6);
  cr_assert_float_eq(t, 1e-6 + 6e-6 + (80 + 2048) / 100e6, 1e-15);
}

static struct icsim_platform load(const char *yaml_sets)
{
  struct icsim_platform pf;
  char err[1024];
  char *sets[1] = {(char *)yaml_sets};
  cr_assert_eq(icsim_platform_load(&pf, ICSIM_SRC "/platforms/vniief-smpo.yaml", sets, yaml_sets ? 1 : 0, err,
                                   sizeof err), 0, "%s", err);
  return pf;
}

/* 4 x 4 torus, modules numbered x + 4 y: transit modules = Manhattan distance on the torus - 1. */
Test(routing, transit_hops_on_the_torus)
{
  struct icsim_platform pf = load(NULL);
  struct smpo_routes r;
  smpo_routes_init(&r, &pf);
  cr_assert_eq(smpo_transit_hops(&r, 0, 1), 0);  /* neighbours */
  cr_assert_eq(smpo_transit_hops(&r, 0, 3), 0);  /* neighbours round the torus */
  cr_assert_eq(smpo_transit_hops(&r, 0, 2), 1);
  cr_assert_eq(smpo_transit_hops(&r, 0, 5), 1);  /* (1,1) */
  cr_assert_eq(smpo_transit_hops(&r, 0, 10), 3); /* (2,2): 4 links, 3 modules between */
  struct smpo_header h = {0};
  smpo_routing_header(&r, 0, 10, &h);
  cr_assert_eq(h.dst_module, 10);
  cr_assert_eq(h.transit, 3);
  cr_assert(smpo_same_module(4, 4));
  cr_assert_not(smpo_same_module(4, 5));
  smpo_routes_free(&r);
  icsim_platform_free(&pf);
}

/* The stack as the simulator drives it: send (packets over the real bytes), wire (joins the
 * transfer), transfer done (packets into the receiver's queue), receive. */
static char last_diag[1024];
static int aborts;
static void test_abort(const char *d)
{
  snprintf(last_diag, sizeof last_diag, "%s", d);
  aborts++;
}

static void *make(struct icsim_platform *pf)
{
  void *st;
  char err[256];
  cr_assert_eq(smpo_stack.create(&st, &pf->params, pf, err, sizeof err), 0, "%s", err);
  smpo_abort = test_abort;
  return st;
}

static void one_message(void *st, uint64_t id, int src, int dst, int src_node, int dst_node, const void *buf,
                        size_t bytes, int tag)
{
  struct icsim_msg m = {ICSIM_MSG_P2P, src, dst, src_node, dst_node, 0, 0, bytes, buf, tag, NULL};
  smpo_stack.send_cpu(st, &m);
  struct icsim_wire_query q = {.id = id, .msg = &m, .bytes = (double)bytes, .envelope_bytes = 16,
                               .src_node = src_node, .dst_node = dst_node, .route_latency_s = 1e-6,
                               .route_bandwidth_Bps = 100e6, .network_hops = 1};
  struct icsim_wire_cost c = {.latency_s = 1e-6, .bandwidth_Bps = 100e6};
  smpo_stack.wire(st, &q, &c);
  struct icsim_transfer t = {.id = id, .msg = m};
  smpo_stack.transfer_done(st, &t, 0);
  if (aborts == 0)
    smpo_stack.recv_cpu(st, &m);
}

Test(stack, messages_pass_through_the_queue_system)
{
  struct icsim_platform pf = load(NULL);
  void *st = make(&pf);
  struct smpo_state *s = st;
  uint8_t *a = pattern_bytes(300000);
  size_t sizes[] = {0, 1000, 5000, 300000}; /* inline, inline, eager, rendezvous */
  for (int i = 0; i < 4; i++)
    one_message(st, (uint64_t)i + 1, 0, 2, 0, 1, a, sizes[i], 7);
  cr_assert_eq(aborts, 0, "%s", last_diag);
  cr_assert_float_eq(s->inline_msgs, 2, 0);
  cr_assert_float_eq(s->eager_msgs, 1, 0);
  cr_assert_float_eq(s->rendezvous_msgs, 1, 0);
  /* SMPO messages: 1 + 1 + (control + body) + (RTS + CTS + body) = 7 */
  cr_assert_float_eq(s->smpo_messages, 7, 0);
  /* packets: 1 + 1 + (1 + 2) + (1 + 1 + ceil(300000 / 4048) = 75) = 82, each checked once */
  cr_assert_float_eq(s->packets, 82, 0);
  cr_assert_float_eq(s->packet_checksums, 82, 0);
  cr_assert_float_eq(s->message_checksums, 7, 0);
  cr_assert_float_eq(s->unqueued_receives, 0, 0);
  char err[256];
  cr_assert_eq(smpo_stack.check(st, err, sizeof err), 0, "%s", err);
  smpo_stack.destroy(st);
  icsim_platform_free(&pf);
  free(a);
}

/* Many seeded runs of 200 messages each with damaged packets: every damaged packet stops the
 * run at its insertion (100% detection), with rank, message id and packet named, and none gets
 * into a queue. */
Test(stack, corruption_detected_in_every_seeded_run)
{
  uint8_t *a = pattern_bytes(20000);
  int runs_with_damage = 0;
  for (int seed = 1; seed <= 100; seed++) {
    char set[64];
    snprintf(set, sizeof set, "smpo/corrupt-seed=%d", seed);
    struct icsim_platform pf = load(set);
    icsim_params_set(&pf.params, "smpo/corrupt-packet-rate", "0.002", NULL, "test", NULL, set, sizeof set);
    void *st = make(&pf);
    struct smpo_state *s = st;
    aborts = 0;
    for (int i = 0; i < 200 && aborts == 0; i++)
      one_message(st, (uint64_t)i + 1, 1, 3, 0, 2, a, (size_t)(i * 97) % 20000, i);
    cr_assert_eq(s->delivered_corrupted, 0);
    cr_assert_eq(s->detected_corruptions, s->corrupted_packets);
    if (s->corrupted_packets > 0) {
      runs_with_damage++;
      cr_assert_eq(aborts, 1);
      cr_assert(strstr(last_diag, "checksum mismatch in packet") && strstr(last_diag, "of message") &&
                    strstr(last_diag, "rank"), "%s", last_diag);
    } else {
      cr_assert_eq(aborts, 0);
    }
    smpo_stack.destroy(st);
    icsim_platform_free(&pf);
  }
  cr_assert_gt(runs_with_damage, 50); /* ~1,000 packets per run at 0.2%: most runs see damage */
  free(a);
}

/* Candidate mappings of a ring (icsim place --pattern-file). Ranks 0..7 in the ring order
 * 0 3 6 1 4 7 2 5 (each rank sends 10 messages of 10 kB to rank + 3 mod 8), 2 ranks per module on
 * the 4 x 4 torus (module = x + 4 y). Worked out by hand:
 *   packed (rank r on module r / 2): pairs 1->4 (modules 0->2), 3->6 (1->3), 5->0 (2->0), 7->2 (3->1)
 *     cross one transit module, the other four are neighbours: 4 x 10 = 40 transit hops, 80 messages
 *     between modules, none in shared memory;
 *   cyclic (rank r on module r): 0->3 and 4->7 are neighbours round the torus; 1->4 (1,0)->(0,1),
 *     2->5 (2,0)->(1,1), 3->6 (3,0)->(2,1), 5->0 (1,1)->(0,0), 6->1 (2,1)->(1,0), 7->2 (3,1)->(2,0)
 *     take two links, one transit module each: 6 x 10 = 60 transit hops;
 *   the best: with 2 ranks per module at most 4 of the 8 ring edges stay inside a module, so at
 *     least 40 messages cross modules; 0 transit hops and exactly 40 is reachable (ring pairs
 *     sharing a module, the 4 modules a cycle of neighbours). */
#include "mapping.h"

static const char *write_ring(void)
{
  static const char *path = "/tmp/icsim-test-smpo-ring.pattern";
  FILE *f = fopen(path, "w");
  fprintf(f, "# icsim communication pattern (smpo/record-pattern): ranks 8\n# src dst messages bytes\n");
  for (int r = 0; r < 8; r++)
    fprintf(f, "%d %d 10 100000\n", r, (r + 3) % 8);
  fclose(f);
  return path;
}

Test(mapping, ring_candidates_by_hand)
{
  struct icsim_platform pf = load(NULL);
  struct smpo_routes r;
  smpo_routes_init(&r, &pf);
  struct smpo_pattern pat;
  char err[1024];
  cr_assert_eq(smpo_pattern_read(write_ring(), &pat, err, sizeof err), 0, "%s", err);
  cr_assert_eq(pat.nranks, 8);
  cr_assert_eq(pat.npairs, 8);
  struct smpo_candidate c[SMPO_MAX_CANDIDATES];
  int n = smpo_mapping_candidates(&pat, &r, 8, 2, 1, c, err, sizeof err);
  cr_assert_geq(n, 3, "%s", err);
  int seen = 0;
  for (int i = 0; i < n; i++) {
    if (!strncmp(c[i].name, "packed", 6)) {
      seen |= 1;
      for (int k = 0; k < 8; k++)
        cr_assert_eq(c[i].module_of[k], k / 2);
      cr_assert_eq(c[i].cost.transit_hops, 40);
      cr_assert_eq(c[i].cost.net_messages, 80);
      cr_assert_eq(c[i].cost.shm_messages, 0);
      cr_assert_eq(c[i].cost.net_bytes, 800000);
    } else if (!strcmp(c[i].name, "cyclic")) {
      seen |= 2;
      cr_assert_eq(c[i].cost.transit_hops, 60);
      cr_assert_eq(c[i].cost.net_messages, 80);
    } else if (!strcmp(c[i].name, "search")) {
      seen |= 4;
      /* the optimum worked out above, and ring neighbours on one module or neighbouring modules */
      cr_assert_eq(c[i].cost.transit_hops, 0);
      cr_assert_eq(c[i].cost.net_messages, 40);
      cr_assert_eq(c[i].cost.shm_messages, 40);
      int load[16] = {0};
      for (int k = 0; k < 8; k++) {
        load[c[i].module_of[k]]++;
        cr_assert_eq(smpo_transit_hops(&r, c[i].module_of[k], c[i].module_of[(k + 3) % 8]), 0);
      }
      for (int m = 0; m < 16; m++)
        cr_assert_leq(load[m], 2);
    }
  }
  cr_assert_eq(seen, 7, "packed, cyclic and search among the candidates");
  /* the same seed gives the same mapping */
  struct smpo_candidate d[SMPO_MAX_CANDIDATES];
  cr_assert_eq(smpo_mapping_candidates(&pat, &r, 8, 2, 1, d, err, sizeof err), n);
  for (int i = 0; i < n; i++)
    cr_assert_eq(memcmp(c[i].module_of, d[i].module_of, 8 * sizeof(int)), 0);
  /* too few ranks for the pattern */
  cr_assert_eq(smpo_mapping_candidates(&pat, &r, 4, 2, 1, d, err, sizeof err), -1);
  cr_assert(strstr(err, "raise -n"), "%s", err);
  smpo_candidates_free(c, n);
  smpo_candidates_free(d, n);
  smpo_pattern_free(&pat);
  smpo_routes_free(&r);
  icsim_platform_free(&pf);
}

Test(mapping, bad_pattern_lines_named)
{
  const char *path = "/tmp/icsim-test-smpo-bad.pattern";
  FILE *f = fopen(path, "w");
  fprintf(f, "# src dst messages bytes\n0 1 10 100\n1 x 10 100\n");
  fclose(f);
  struct smpo_pattern pat;
  char err[1024];
  cr_assert_eq(smpo_pattern_read(path, &pat, err, sizeof err), -1);
  cr_assert(strstr(err, "bad.pattern:3:3: expected the destination rank"), "%s", err);
  f = fopen(path, "w");
  fprintf(f, "0 1 0 100\n");
  fclose(f);
  cr_assert_eq(smpo_pattern_read(path, &pat, err, sizeof err), -1);
  cr_assert(strstr(err, ":1: a pair with no messages"), "%s", err);
  /* found by the loaders' fuzz target: a count beyond a long was cast to one (undefined) */
  f = fopen(path, "w");
  fprintf(f, "0 1 8888888888888888888888 100\n");
  fclose(f);
  cr_assert_eq(smpo_pattern_read(path, &pat, err, sizeof err), -1);
  cr_assert(strstr(err, ":1:5: expected the message count"), "%s", err);
}
