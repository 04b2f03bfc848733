/* The skifch stack's parameter table: the one place its values and their origins live. The paper
 * publishes the interface and a message-rate figure without numbers: no adapter figure, no CPU
 * cost, no buffer size. Every timing and size here is `assumed`, with the reason that makes it
 * plausible for a 2010 FPGA torus adapter on PCIe Gen2; the machine's published figures are in
 * platforms/skif-aurora.yaml. */
#include "skifch_model.h"

#define F(field) offsetof(struct skifch_params, field)
#define Q(key, dim, lo, hi, def, origin, help, field) {key, ICSIM_P_QUANTITY, dim, lo, hi, def, origin, help, NULL, F(field)}
#define I(key, lo, hi, def, origin, help, field) {key, ICSIM_P_INT, ICSIM_DIM_NONE, lo, hi, def, origin, help, NULL, F(field)}
#define B(key, def, origin, help, field) {key, ICSIM_P_BOOL, ICSIM_DIM_NONE, 0, 0, def, origin, help, NULL, F(field)}

const struct icsim_param_desc skifch_params_table[SKIFCH_NPARAMS] = {
    Q("skifch/send-overhead", ICSIM_DIM_TIME, 0, 1e-3, "0.3us", "assumed",
      "CPU per SkifCh_Send: gather the iovec into a descriptor and post it to the FPGA adapter (a few PCIe Gen2 "
      "posted writes of ~0.1 us each; not published)",
      send_overhead_s),
    Q("skifch/recv-overhead", ICSIM_DIM_TIME, 0, 1e-3, "0.2us", "assumed",
      "CPU per SkifCh_Recv that returns a message: read its header in the ring (host memory, cached after the "
      "adapter's write) and fill the pointers; not published",
      recv_overhead_s),
    Q("skifch/max-message", ICSIM_DIM_SIZE, 64, 1 << 20, "8KiB", "assumed",
      "largest message the adapter sends in one Send (the paper: the network state decides the size; the FPGA's "
      "packet buffer bounds it; not published)",
      max_message_B),
    Q("skifch/header", ICSIM_DIM_SIZE, 0, 1024, "16B", "assumed",
      "torus packet header per message (destination coordinates, channel, length, sequence); not published",
      header_B),
    Q("skifch/recv-buffer", ICSIM_DIM_SIZE, 4096, 1 << 30, "64KiB", "assumed",
      "each channel's receive ring; when it is full the senders' calls fail (paper); size not published",
      recv_buffer_B),
    Q("skifch/page", ICSIM_DIM_SIZE, 64, 1 << 24, "4KiB", "spec",
      "the ring is made of separately mapped pages (x86 page, 4 KiB); a message of at most 2 pages spans at most 3 "
      "of them: SKIFCH_CONT_SIZE = 3 (the paper gives 3 pointers, not why: this reason is assumed)",
      page_B),
    Q("skifch/refusal-cost", ICSIM_DIM_TIME, 0, 1e-3, "0.5us", "assumed",
      "CPU of a Send that fails: the library reads the adapter's slot and credit state, one uncached PCIe Gen2 read "
      "round trip (~0.5 us)",
      refusal_s),
    I("skifch/tx-slots", 1, 4096, "8", "assumed",
      "messages one node's adapter keeps in flight; with all in flight the next Send fails (adapter credits); "
      "not published",
      tx_slots),
    Q("skifch/credit-latency", ICSIM_DIM_TIME, 0, 1, "1us", "assumed",
      "time for ring space freed by SkifCh_RecvComp to reach the senders' adapters (one credit packet across the "
      "torus: the machine's ~1 us network latency)",
      credit_latency_s),
    Q("skifch/stall-timeout", ICSIM_DIM_TIME, 1e-6, 1e4, "10ms", "assumed",
      "a sender refused this long by a ring held only by messages returned and never completed stops the run with "
      "the reason (a program that forgets SkifCh_RecvComp); a diagnostic bound, not hardware",
      stall_timeout_s),
    Q("skifch/mpi-eager-limit", ICSIM_DIM_SIZE, 0, 1 << 30, "128KiB", "assumed",
      "MPI over SkifCh: largest message sent without waiting for the receiver (larger ones rendezvous); above the "
      "MsgRate sizes so that the study compares the eager path; not published",
      mpi_eager_B),
    B("skifch/mpi-matching", "true", "paper",
      "MPI over SkifCh matches every message against the posted and unexpected queues (the paper: always paid, "
      "even when nothing is reordered); false = the what-if of sorting in the adapter",
      mpi_matching),
    Q("skifch/match-base", ICSIM_DIM_TIME, 0, 1e-3, "0.4us", "assumed",
      "MPI over SkifCh, per message taken: queue lock, envelope decode, posted-queue search and request completion; "
      "the paper names the cost, not its size",
      match_base_s),
    Q("skifch/match-entry", ICSIM_DIM_TIME, 0, 1e-3, "0.02us", "assumed",
      "MPI over SkifCh: per queue entry examined (one (source, tag, communicator) compare, a cache miss per "
      "entry on long queues)",
      match_entry_s),
};

/* With skifch/mpi-matching false (the what-if of sorting in the adapter) model.c prices no
 * matching: its two costs are unused. */
const struct icsim_param_rule skifch_params_rules[2] = {
    {"skifch/match-base", 0, "skifch/mpi-matching=false"},
    {"skifch/match-entry", 0, "skifch/mpi-matching=false"},
};
