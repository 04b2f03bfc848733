/* The RapidIO stack's parameter table: the one place its values and their origins live. */
#include <float.h>

#include "rapidio.h"

#define F(field) offsetof(struct rio_params, field)
#define Q(key, dim, lo, hi, def, origin, help, field) {key, ICSIM_P_QUANTITY, dim, lo, hi, def, origin, help, NULL, F(field)}
#define I(key, lo, hi, def, origin, help, field) {key, ICSIM_P_INT, ICSIM_DIM_NONE, lo, hi, def, origin, help, NULL, F(field)}
#define N(key, lo, hi, def, origin, help, field) {key, ICSIM_P_QUANTITY, ICSIM_DIM_NONE, lo, hi, def, origin, help, NULL, F(field)}
#define B(key, def, origin, help, field) {key, ICSIM_P_BOOL, ICSIM_DIM_NONE, 0, 0, def, origin, help, NULL, F(field)}

/* Defaults are starting values; the calibrated ones live in platforms/niisi-rapidio-4.yaml with
 * the points they were fitted on. */
const struct icsim_param_desc rio_params_table[RIO_NPARAMS] = {
    /* controller (paper and RapidIO specification) */
    Q("rapidio/segment-bytes", ICSIM_DIM_SIZE, 8, 256, "256B", "paper", "largest segment of a RapidIO message", segment_B),
    I("rapidio/segments-per-message", 1, 16, "16", "paper", "segments per message: 16 x 256 B = 4 KiB", segments_per_message),
    Q("rapidio/packet-header-bytes", ICSIM_DIM_SIZE, 0, 64, "12B", "spec",
      "link bytes a message segment adds: physical 2 + transport 2 + logical 4 + CRC 2 + pad 2", packet_header_B),
    Q("rapidio/response-bytes", ICSIM_DIM_SIZE, 0, 64, "8B", "spec", "delivery-status response packet", response_B),
    Q("rapidio/turnaround", ICSIM_DIM_TIME, 0, 1e-3, "100ns", "assumed",
      "receiver controller: segment received -> response sent", turnaround_s),
    Q("rapidio/retry-delay", ICSIM_DIM_TIME, 0, 1e-2, "1us", "assumed", "sender's wait before re-sending a rejected segment",
      retry_delay_s),
    I("rapidio/dedicated-queues", 1, 64, "8", "paper", "inbound queues programmable per source node + mailbox (zero-copy)",
      dedicated_queues),
    I("rapidio/mailboxes", 2, 64, "4", "spec",
      "mailbox numbers of multi-segment messages (2-bit mbox field); 0 is control", mailboxes),
    I("rapidio/letters", 1, 4, "4", "spec", "letters (concurrent messages) per mailbox (2-bit letter field)", letters),
    I("rapidio/common-queue-slots", 1, 1024, "8", "assumed", "4 KiB buffers of the common inbound queue", common_queue_slots),
    Q("rapidio/dma-bandwidth", ICSIM_DIM_BANDWIDTH, 1e6, 1e12, "240MBps", "assumed",
      "controller <-> memory rate shared by inbound and outbound (32-bit bus at ~60 MHz)", dma_bw_Bps),
    Q("rapidio/io-payload-bytes", ICSIM_DIM_SIZE, 1, 256, "8B", "paper", "NREAD/NWRITE payload (the standard allows 256 B)",
      io_payload_B),
    N("rapidio/io-header-bits", 0, 1024, "54", "paper", "IO transaction header: 6 bytes + 6 bits", io_header_bits),
    Q("rapidio/doorbell-bytes", ICSIM_DIM_SIZE, 0, 2, "2B", "paper", "doorbell payload", doorbell_B),
    /* MX */
    Q("rapidio/mx-rndv-threshold", ICSIM_DIM_SIZE, 0, 1e9, "32KiB", "spec",
      "MX's largest medium (eager, copied) message; above it MX's rendezvous: RNDV, the receiver pulls (MX wire "
      "format, as Open-MX's OMX__MX_MEDIUM_MSG_LENGTH_MAX = 32768 in common/omx_io.h)",
      mx_rndv_threshold_B),
    /* control level */
    Q("rapidio/large-threshold", ICSIM_DIM_SIZE, 0, 1e9, "4KiB", "assumed",
      "the control level's small/large boundary: largest message sent as small data through mailbox 0 (set "
      "empirically in the paper)", large_threshold_B),
    Q("rapidio/small-header-bytes", ICSIM_DIM_SIZE, 0, 256, "16B", "assumed",
      "type/size header of small data, tells it from control information", small_header_B),
    B("rapidio/round-to-segment", "true", "paper", "round send and receive sizes up to 256 B (guards the placement hazard)",
      round_to_segment),
    Q("rapidio/zero-copy-alignment", ICSIM_DIM_SIZE, 8, 1e6, "4KiB", "paper",
      "buffer alignment for dedicated-queue zero-copy; others take a bounce copy", zero_copy_align_B),
    B("rapidio/manual-programming", "true", "paper", "each 4 KiB message of a large transfer programmed by hand",
      manual_programming),
    B("rapidio/shared-core", "true", "paper",
      "the SoC's one CPU core runs the sending and the receiving driver's queued work (bounce copies, MX rendezvous) "
      "one job after another; false: each direction's driver work has a core of its own (two overlapping queues)",
      shared_core),
    Q("rapidio/completion-latency", ICSIM_DIM_TIME, 0, 1, "190us", "assumed",
      "a 4 KiB message done -> the driver learns it and may start the next (interrupt, wake-up)",
      completion_latency_s),
    /* software */
    N("rapidio/mx-instructions", 0, 1e9, "20000", "paper", "driver + MX + MPICH instructions per small message, each side",
      mx_instructions),
    N("rapidio/mx-large-instructions", 0, 1e9, "40000", "paper",
      "driver + MX + MPICH instructions per rendezvous (MX large) message, each side: two MX messages (RNDV and "
      "PULL) at the paper's >= 20,000 instructions per message", mx_large_instructions),
    N("rapidio/control-instructions", 0, 1e9, "1000", "assumed",
      "control-level instructions per control message on mailbox 0, each side", control_instructions),
    N("rapidio/program-instructions", 0, 1e9, "200", "assumed",
      "instructions to program one 4 KiB message of a large transfer from the physical address table (trivial)",
      program_instructions),
    N("rapidio/mailbox-message-instructions", 0, 1e9, "200", "assumed",
      "per 4 KiB message of small data on mailbox 0, each side: program it from the contiguous bounce buffer / "
      "take it (as trivial as program-instructions; the per-byte work is copy-bandwidth)",
      mailbox_message_instructions),
    N("rapidio/io-instructions", 0, 1e6, "10", "assumed", "CPU instructions per IO transaction (load/store in the window)",
      io_instructions),
    Q("rapidio/copy-bandwidth", ICSIM_DIM_BANDWIDTH, 1e5, 1e12, "30MBps", "assumed",
      "MX library's medium-message path per byte, each side (copy into or out of its buffers)", copy_bw_Bps),
    Q("rapidio/bounce-copy-bandwidth", ICSIM_DIM_BANDWIDTH, 1e5, 1e12, "100MBps", "assumed",
      "the drivers' copy of registered pages into or out of bounce buffers (kernel, page by page)",
      bounce_copy_bw_Bps),
};
const size_t rio_params_table_len = sizeof rio_params_table / sizeof rio_params_table[0];
_Static_assert(sizeof rio_params_table / sizeof rio_params_table[0] == RIO_NPARAMS, "RIO_NPARAMS");
