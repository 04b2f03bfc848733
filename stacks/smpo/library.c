/* The CM_MP library's own work on one SMPO message: the four steps the paper counts as the
 * library's overhead (message analysis, packetisation, header, driver request) and nothing else,
 * written as plainly as the library would write them, with 32-bit header words.
 *
 * This code does not move the simulation's bytes (packets.c does, for every field width). It is
 * what smpo/library-*-instructions are measured on: measure-library.sh runs it under callgrind
 * and prints the instructions per message and per packet. The paper's own code is not public, so
 * this is the nearest thing to a count: its steps are the paper's, its header is packets.c's
 * (tests/test_smpo.c checks that the words written here are packets.c's bytes), and what belongs
 * to the queue system (checksums, copies into the slots, queue operations) or to the driver (the
 * system call itself) is left to them. */
#include "library.h"

void smpo_lib_send_analyse(struct smpo_lib *l, uint32_t receiver, uint32_t type, uint32_t length,
                           struct smpo_lib_msg *m)
{
  m->receiver = receiver;
  m->type = type;
  m->length = length;
  m->dst_module = l->module_of[receiver];
  m->shared_memory = m->dst_module == l->module; /* same module: shared memory, no packets */
  m->transit = l->transit[m->dst_module];
  m->npackets = length ? (length + l->packet_data - 1) / l->packet_data : 1;
}

uint32_t smpo_lib_packetise(const struct smpo_lib *l, const struct smpo_lib_msg *m, uint32_t msg_checksum,
                            uint32_t *slot)
{
  uint32_t left = m->length, words = 0;
  for (uint32_t k = 0; k < m->npackets; k++) {
    uint32_t n = left < l->packet_data ? left : l->packet_data;
    uint32_t *h = slot + words;
    h[SMPO_F_DST_MODULE] = m->dst_module;
    h[SMPO_F_TRANSIT] = m->transit;
    h[SMPO_F_SENDER] = l->rank;
    h[SMPO_F_RECEIVER] = m->receiver;
    h[SMPO_F_MSG_ID] = m->id;
    h[SMPO_F_TYPE] = m->type;
    h[SMPO_F_LENGTH] = m->length;
    h[SMPO_F_NPACKETS] = m->npackets;
    h[SMPO_F_MSG_CHECKSUM] = msg_checksum;
    h[SMPO_F_SEQ] = k;
    h[SMPO_F_PKT_LENGTH] = n;
    /* the data (n bytes) and the packet checksum after it are the queue system's to write */
    words += SMPO_HEADER_FIELDS + (n + 3) / 4 + 1;
    left -= n;
  }
  return words;
}

int smpo_lib_request(struct smpo_lib *l, uint32_t op, const struct smpo_lib_msg *m, uint32_t *buffer, uint32_t words)
{
  struct smpo_lib_request r = {op, m->dst_module, m->npackets, words, buffer};
  return l->driver(l->device, &r);
}

int smpo_lib_recv_analyse(const struct smpo_lib *l, const uint32_t *h, struct smpo_lib_msg *m)
{
  if (h[SMPO_F_RECEIVER] != l->rank)
    return -1;
  uint32_t sender = h[SMPO_F_SENDER];
  m->receiver = sender; /* the peer: where an answer (a CTS) goes */
  m->dst_module = l->module_of[sender];
  m->shared_memory = m->dst_module == l->module;
  m->transit = l->transit[m->dst_module];
  m->id = h[SMPO_F_MSG_ID];
  m->type = h[SMPO_F_TYPE];
  m->length = h[SMPO_F_LENGTH];
  m->npackets = h[SMPO_F_NPACKETS];
  switch (m->type) { /* what the device does next: hand a body up, or answer, or start the body */
  case SMPO_INLINE:
  case SMPO_DATA:
    return SMPO_LIB_DELIVER;
  case SMPO_CONTROL:
    return SMPO_LIB_EXPECT_BODY;
  case SMPO_RTS:
    return SMPO_LIB_ANSWER;
  case SMPO_CTS:
    return SMPO_LIB_SEND_BODY;
  default:
    return -1;
  }
}

int smpo_lib_send(struct smpo_lib *l, uint32_t receiver, uint32_t type, uint32_t length, uint32_t msg_checksum,
                  struct smpo_lib_msg *m)
{
  smpo_lib_send_analyse(l, receiver, type, length, m);
  if (m->shared_memory) {
    m->id = l->next_id++;
    return 0;
  }
  /* room for the packets in the driver's ring (header, data rounded up to words, checksum, per
   * packet): at HEAD, or from the start when they do not fit before its end, never over packets
   * the driver has not sent yet ([TAIL, HEAD), wrapping) */
  uint32_t words = m->npackets * (SMPO_HEADER_FIELDS + 2) + length / 4, at = l->head, tail = *l->tail;
  if (tail <= at) { /* live packets in [tail, at): free after at and before tail */
    if (at + words > l->ring_words) {
      at = 0;
      if (words >= tail)
        return -1;
    }
  } else if (at + words >= tail) { /* live packets wrap round: free only between at and tail */
    return -1;
  }
  m->id = l->next_id++; /* a message that found no room yet has no id */
  uint32_t used = smpo_lib_packetise(l, m, msg_checksum, l->ring + at);
  l->head = at + used;
  return smpo_lib_request(l, SMPO_LIB_OP_SEND, m, l->ring + at, used);
}

int smpo_lib_receive(struct smpo_lib *l, uint32_t *packet, struct smpo_lib_msg *m)
{
  int next = smpo_lib_recv_analyse(l, packet, m);
  if (next < 0)
    return -1;
  if (!m->shared_memory && smpo_lib_request(l, SMPO_LIB_OP_RECEIVE, m, packet, 0) != 0)
    return -1;
  return next;
}
