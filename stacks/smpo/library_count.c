/* Runs the library's steps (library.c) on a machine of 16 modules so that measure-library.sh can
 * count their instructions under callgrind, one case per run:
 *   send P        N messages of P packets to other modules (analysis, room in the driver's ring,
 *                 packetisation and header, driver request)
 *   receive       N messages from other modules (analysis, request)
 *   shm-send      N messages to the same module (analysis: the shared-memory path moves the data)
 *   shm-receive   N messages from the same module (analysis)
 * The driver's system call is a stub that sends at once (its cost is the driver's). Prints N. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "library.h"

enum { N = 1000, MODULES = 16, RANKS = 32, MAX_PACKETS = 64, PACKET_DATA = 4048, RING_WORDS = 1 << 16 };

static uint32_t sent_up_to; /* the driver's tail: the adapter has sent everything handed to it */

static int syscall_stub(void *device, const struct smpo_lib_request *r)
{
  if (r->op == SMPO_LIB_OP_SEND) /* DEVICE: the ring's first word */
    sent_up_to = (uint32_t)(r->buffer - (uint32_t *)device) + r->words;
  return r->npackets == 0;
}

static int usage(const char *me)
{
  fprintf(stderr, "usage: %s send PACKETS (1-%d) | receive | shm-send | shm-receive\n", me, MAX_PACKETS);
  return 2;
}

int main(int argc, char **argv)
{
  if (argc < 2)
    return usage(argv[0]);
  const char *c = argv[1];
  int send = !strcmp(c, "send"), shm_send = !strcmp(c, "shm-send"), receive = !strcmp(c, "receive"),
      shm_receive = !strcmp(c, "shm-receive");
  int packets = send && argc == 3 ? atoi(argv[2]) : 1;
  if (!(send || shm_send || receive || shm_receive) || argc != 2 + send || packets < 1 || packets > MAX_PACKETS)
    return usage(argv[0]);
  static uint32_t module_of[RANKS], transit[MODULES], ring[RING_WORDS];
  for (int r = 0; r < RANKS; r++)
    module_of[r] = (uint32_t)(r / 2); /* two ranks per module */
  for (int m = 0; m < MODULES; m++)
    transit[m] = (uint32_t)(m % 4 + m / 4); /* from module 0 on a 4 x 4 mesh */
  struct smpo_lib l = {0, 0, module_of, transit, 1, PACKET_DATA, syscall_stub, ring, ring, RING_WORDS, 0, &sent_up_to};
  struct smpo_lib_msg m;
  int bad = 0;
  for (int i = 0; (send || shm_send) && i < N; i++) {
    uint32_t len = (uint32_t)(packets - 1) * PACKET_DATA + 1000;
    uint32_t to = shm_send ? 1 : (uint32_t)(2 + i % (RANKS - 2)); /* rank 1 shares module 0 */
    bad |= smpo_lib_send(&l, to, SMPO_DATA, len, 0x1234567u, &m) != 0;
  }
  /* the receive side: rank 3 (module 1) analyses headers addressed to it, from rank 2 (same
   * module) or from the other modules */
  struct smpo_lib me = l;
  me.rank = 3;
  me.module = 1;
  for (int i = 0; (receive || shm_receive) && i < N; i++) {
    ring[SMPO_F_RECEIVER] = 3;
    ring[SMPO_F_SENDER] = shm_receive ? 2 : (uint32_t)(4 + i % (RANKS - 4));
    ring[SMPO_F_TYPE] = (uint32_t)(SMPO_DATA + i % 5);
    ring[SMPO_F_LENGTH] = 1000;
    ring[SMPO_F_NPACKETS] = 1;
    bad |= smpo_lib_receive(&me, ring, &m) < 0;
  }
  printf("%d\n", N);
  if (bad)
    fprintf(stderr, "%s: some messages were refused\n", argv[0]);
  return bad;
}
