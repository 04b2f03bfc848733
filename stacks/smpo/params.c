/* The SMPO stack's parameter table: the one place its values and their origins live. The paper
 * publishes no timing figure (no latency, no bandwidth, no instruction count): the timing values
 * here are `assumed`, with the reasoning that makes them plausible for a 2004 module with a PCI
 * channel adapter, except the checksum rate, a published figure (`paper`) for the algorithm, and
 * the library's own instruction counts, `measured` on library.c, the steps the paper names written
 * out; `paper` also marks what the SMPO paper states (a mechanism switched on, a field present). */
#include "smpo.h"

#define F(field) offsetof(struct smpo_params, field)
#define Q(key, dim, lo, hi, def, origin, help, field) {key, ICSIM_P_QUANTITY, dim, lo, hi, def, origin, help, NULL, F(field)}
#define N(key, lo, hi, def, origin, help, field) {key, ICSIM_P_QUANTITY, ICSIM_DIM_NONE, lo, hi, def, origin, help, NULL, F(field)}
#define I(key, lo, hi, def, origin, help, field) {key, ICSIM_P_INT, ICSIM_DIM_NONE, lo, hi, def, origin, help, NULL, F(field)}
#define B(key, def, origin, help, field) {key, ICSIM_P_BOOL, ICSIM_DIM_NONE, 0, 0, def, origin, help, NULL, F(field)}
#define S(key, def, origin, help, field) {key, ICSIM_P_STRING, ICSIM_DIM_NONE, 0, 0, def, origin, help, NULL, F(field)}

const struct icsim_param_desc smpo_params_table[SMPO_NPARAMS] = {
    /* packets: the upper bound keeps a packet within the length over which CRC-32 detects every
     * error of up to 3 bits (Hamming distance 4 up to 91,607 bits, Koopman 2002) */
    Q("smpo/hardware-buffer", ICSIM_DIM_SIZE, 128, 8192, "4KiB", "assumed",
      "the channel's hardware buffer = longest packet, header included (the paper bounds packets by it; size not "
      "published: a 4 KiB adapter buffer assumed)",
      hardware_buffer_B),
    Q("smpo/header-field-bytes", ICSIM_DIM_SIZE, 4, 8, "4B", "assumed",
      "width of one header field (12 fields: routing 2, message part 7, packet part 3; 32-bit words assumed)",
      header_field_B),
    /* the library's own share */
    /* measured: the instructions library.c executes (stacks/smpo/measure-library.sh, callgrind,
     * gcc 12 -O2 x86-64), at one instruction per clock like the stack's other counts */
    N("smpo/library-send-message-instructions", 0, 1e7, "89", "measured",
      "library work per SMPO message sent: message analysis (destination module, shared memory or not, transit "
      "modules, packet count, message id), room for its packets in the driver buffer's ring and the request to the "
      "driver, less the system call; counted in library.c by stacks/smpo/measure-library.sh",
      library_send_message_instructions),
    N("smpo/library-send-packet-instructions", 0, 1e6, "31", "measured",
      "library work per packet sent: cut the packet and write its 11 header words into the driver buffer; counted "
      "in library.c by stacks/smpo/measure-library.sh",
      library_send_packet_instructions),
    N("smpo/library-receive-message-instructions", 0, 1e7, "52", "measured",
      "library work per SMPO message received: analysis of the message the queue system hands up (for us?, from "
      "where, what next) and the request to the driver; per packet nothing (the queue system's add-packet reads "
      "each header); counted in library.c by stacks/smpo/measure-library.sh",
      library_receive_message_instructions),
    N("smpo/library-shm-message-instructions", 0, 1e7, "43", "measured",
      "library work per message between two processes of one module, each side: the message analysis that finds the "
      "peer on this module (no packets, no driver); the mean of the send side (44) and the receive side (42) counted "
      "in library.c by stacks/smpo/measure-library.sh",
      library_shm_message_instructions),
    /* queue system */
    N("smpo/queue-packet-instructions", 0, 1e6, "150", "assumed",
      "queue system: add one packet to the main queue (find a free slot, count it, ready queue on the last)",
      queue_packet_instructions),
    N("smpo/queue-message-instructions", 0, 1e6, "200", "assumed",
      "queue system: ready-queue look-up, extract and free one message", queue_message_instructions),
    /* Sarwate's byte-at-a-time table CRC: each byte's table look-up waits for the previous
     * byte's result, so the loop runs at the chain's pace, not the instruction count's */
    N("smpo/checksum-cycles-per-byte", 0, 100, "6.7", "paper",
      "CPU clocks per byte checksummed by a table-driven (Sarwate) CRC-32: 6.61-6.75 cycles/B from 64 B to 1 MB "
      "(Kadatch & Jenkins, Everything we know about CRC but afraid to forget, 2010, table 6, Core 2 at 3 GHz; their "
      "section 4.6: 6-8 cycles per byte on current CPUs)",
      checksum_cycles_per_B),
    Q("smpo/copy-bandwidth", ICSIM_DIM_BANDWIDTH, 1e6, 1e12, "400MBps", "assumed",
      "memory-to-memory copy rate of the module's CPU (packet into a queue slot, message out to the user)",
      copy_bw_Bps),
    B("smpo/mmap-driver-buffer", "true", "paper",
      "packets are built in the driver buffer mmap-ed into the process (false: a write() copies them in)",
      mmap_driver_buffer),
    /* driver and adapter */
    Q("smpo/driver-call", ICSIM_DIM_TIME, 0, 1e-2, "2us", "assumed",
      "one request to the character device's driver (system call), per SMPO message, each side", driver_call_s),
    N("smpo/driver-packet-instructions", 0, 1e6, "100", "assumed",
      "the driver's work per packet, each side (program the adapter / take the packet from its buffer)",
      driver_packet_instructions),
    Q("smpo/adapter-latency", ICSIM_DIM_TIME, 0, 1e-2, "3us", "assumed",
      "the PCI channel adapter starting one SMPO message (DMA set-up across PCI)", adapter_latency_s),
    /* CM_MP transfer modes */
    Q("smpo/control-message-bytes", ICSIM_DIM_SIZE, 8, 1024, "32B", "assumed",
      "ADI2 control message of CM_MP (envelope: mode, tag, context, source, length)", control_message_B),
    Q("smpo/inline-threshold", ICSIM_DIM_SIZE, 0, 1e6, "1KiB", "assumed",
      "largest body carried inside the control message (inlining)", inline_threshold_B),
    Q("smpo/eager-threshold", ICSIM_DIM_SIZE, 0, 1e9, "128KiB", "assumed",
      "largest body sent eagerly (control message, then body); larger ones wait for the receiver (rendezvous)",
      eager_threshold_B),
    /* shared memory inside a module */
    Q("smpo/semaphore-op", ICSIM_DIM_TIME, 0, 1e-2, "1.5us", "assumed",
      "one operation on the semaphore guarding the shared-memory buffer (System V semop, a system call)",
      semaphore_op_s),
    /* corruption injection (a what-if, off by default) */
    N("smpo/corrupt-packet-rate", 0, 1, "0", "assumed",
      "probability that a packet arrives damaged (bits flipped in the simulated packet; 0 = off)",
      corrupt_packet_rate),
    I("smpo/corrupt-bits", 1, 3, "1", "assumed",
      "bits flipped in a damaged packet (CRC-32 detects every error of up to 3 bits in a packet)", corrupt_bits),
    I("smpo/corrupt-seed", 0, 2147483647, "1", "assumed", "seed choosing the damaged packets and bits", corrupt_seed),
    S("smpo/record-pattern", "", "assumed",
      "write the run's communication pattern (messages and bytes per rank pair) to this file (empty: no)",
      record_pattern),
};
const size_t smpo_params_table_len = sizeof smpo_params_table / sizeof smpo_params_table[0];
_Static_assert(sizeof smpo_params_table / sizeof smpo_params_table[0] == SMPO_NPARAMS, "SMPO_NPARAMS");

/* With smpo/corrupt-packet-rate 0 no packet is damaged (checksum.c): which bits and which seed
 * are unused. */
const struct icsim_param_rule smpo_params_rules[2] = {
    {"smpo/corrupt-bits", 0, "smpo/corrupt-packet-rate=0"},
    {"smpo/corrupt-seed", 0, "smpo/corrupt-packet-rate=0"},
};
