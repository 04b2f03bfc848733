/* SkifCh: a low-level message-passing interface (SKIF-Aurora 3D torus; papers/skifch-2011.md),
 * as programs built with icsimcc call it under `icsim run` on a platform whose network layer is
 * `skifch` (platforms/skif-aurora.yaml). The program starts with MPI_Init as any icsim program.
 *
 * Channels: each software component opens its own channel with its own network address and
 * receives only the messages sent to that address, like a port. Send gathers an iovec into ONE
 * message whose size the network state decides (the adapter's largest message, the receiving
 * ring's free space as the sender's credits show it, the adapter's free slots): it may send only a
 * prefix and returns the bytes sent; with nothing sendable it fails (errno EAGAIN) and the caller
 * retries later: there is no buffering inside. Recv returns one whole message exactly as one
 * Send made it, as up to SKIFCH_CONT_SIZE pointers into the channel's receive ring (zero-copy; a
 * message crossing pages comes in pieces), or 0 when none is waiting. No source argument:
 * senders interleave, each sender's messages keep their order. RecvComp must follow each
 * processed message so its ring space is reused: a ring held by un-completed messages refuses
 * every sender. */
#ifndef SKIFCH_H
#define SKIFCH_H

#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

#define SKIFCH_CONT_SIZE 3
typedef uint32_t netaddr_t;
typedef struct SkifCh SkifCh;

/* The address of port PORT (0..255) of the process with MPI_COMM_WORLD rank RANK. */
#define SKIFCH_ADDR(rank, port) ((netaddr_t)(rank) << 8 | (netaddr_t)((port) & 0xff))
#define SKIFCH_ADDR_RANK(a) ((int)((a) >> 8))
#define SKIFCH_ADDR_PORT(a) ((int)((a) & 0xff))

/* Open the calling process' channel on PORT; NULL with errno EADDRINUSE when it is open already,
 * EINVAL for a bad port. */
SkifCh *SkifCh_Open(int port);
/* Its network address (SKIFCH_ADDR(my rank, port)). */
netaddr_t SkifCh_Address(const SkifCh *ch);
/* Close it; messages still in its ring are dropped. The calling rank's messages still in flight
 * (to any channel) land first: Close waits for them. */
int SkifCh_Close(SkifCh *ch);

/* Bytes sent (a prefix of the iovec's), or -1: errno EAGAIN (nothing can be sent now: retry),
 * ENXIO (no channel is open at DST yet). A zero-byte iovec sends nothing and returns 0. */
ssize_t SkifCh_Send(SkifCh *ch, netaddr_t dst, const struct iovec *iov, int iov_count);
/* Size of the next message with *cont_count pieces in CONT, or 0 when none has arrived. */
ssize_t SkifCh_Recv(SkifCh *ch, struct iovec cont[SKIFCH_CONT_SIZE], int *cont_count);
/* Release the oldest message Recv returned; 0, or -1 (errno EINVAL) when none is outstanding. */
int SkifCh_RecvComp(SkifCh *ch);

#endif
