/* The CM_MP library's own steps as code (library.c): what smpo/library-*-instructions count. */
#ifndef ICSIM_SMPO_LIBRARY_H
#define ICSIM_SMPO_LIBRARY_H

#include <stdint.h>

#include "smpo.h"

struct smpo_lib_request {
  uint32_t op;         /* send or receive */
  uint32_t dst_module; /* where the packets go (send) */
  uint32_t npackets;
  uint32_t words;      /* 32-bit words of packets in BUFFER */
  uint32_t *buffer;    /* the packets, in the mmap-ed driver buffer */
};

/* One process's view of the machine. */
struct smpo_lib {
  uint32_t rank, module;     /* own rank and physical module */
  const uint32_t *module_of; /* rank -> physical module: the configuration file */
  const uint32_t *transit;   /* [module]: transit modules on the way there (the routing table) */
  uint32_t next_id;          /* the next message id */
  uint32_t packet_data;      /* data bytes a packet carries: hardware buffer - header */
  int (*driver)(void *device, const struct smpo_lib_request *r); /* the system call (the driver's cost) */
  void *device;
  /* the mmap-ed driver buffer, a ring of 32-bit words: the library writes packets at HEAD, the
   * driver frees them up to TAIL once the adapter has sent them */
  uint32_t *ring;
  uint32_t ring_words, head;
  volatile uint32_t *tail;
};

/* What the analysis found out about one SMPO message. */
struct smpo_lib_msg {
  uint32_t receiver;   /* send: the receiver; receive: the sender */
  uint32_t dst_module, transit, id, type, length, npackets;
  int shared_memory;   /* the peer is on this module */
};

enum { SMPO_LIB_DELIVER = 1, SMPO_LIB_EXPECT_BODY, SMPO_LIB_ANSWER, SMPO_LIB_SEND_BODY };
enum { SMPO_LIB_OP_SEND = 1, SMPO_LIB_OP_RECEIVE };

/* Send side, message analysis: where the message goes (module, shared memory or not, transit
 * modules), in how many packets. (smpo_lib_send gives it its id once it has room.) */
void smpo_lib_send_analyse(struct smpo_lib *l, uint32_t receiver, uint32_t type, uint32_t length,
                           struct smpo_lib_msg *m);
/* Packetisation and header: the header of each packet written into SLOT (the driver buffer),
 * space left for the data and the packet checksum. Returns the 32-bit words the packets take. */
uint32_t smpo_lib_packetise(const struct smpo_lib *l, const struct smpo_lib_msg *m, uint32_t msg_checksum,
                            uint32_t *slot);
/* The request to the driver (its system call is the driver's own cost). */
int smpo_lib_request(struct smpo_lib *l, uint32_t op, const struct smpo_lib_msg *m, uint32_t *buffer, uint32_t words);
/* Receive side, message analysis of a message the queue system handed up (H: its first packet's
 * header): whose it is and what the device does next (SMPO_LIB_*), or -1 when it is not for us. */
int smpo_lib_recv_analyse(const struct smpo_lib *l, const uint32_t *h, struct smpo_lib_msg *m);

/* The library's entry points, one SMPO message each: analysis, room in the driver buffer, packets,
 * request (send); analysis, request (receive). To a peer on the same module: analysis only (the
 * shared-memory path moves the data). What they execute, less the driver's system call, is the
 * library's overhead. smpo_lib_send returns -1 when the driver buffer has no room yet. */
int smpo_lib_send(struct smpo_lib *l, uint32_t receiver, uint32_t type, uint32_t length, uint32_t msg_checksum,
                  struct smpo_lib_msg *m);
int smpo_lib_receive(struct smpo_lib *l, uint32_t *packet, struct smpo_lib_msg *m);

#endif
