/* Runs the library's steps (library.c) on a machine of 16 modules so that measure-library.sh can
 * count their instructions under callgrind, one case per run: `send 1` sends N messages of one
 * packet, `send 9` N of nine (analysis, packetisation and header, driver request), `receive` takes
 * N (analysis, request). The driver's system call is a stub: its cost is the driver's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "library.h"

enum { N = 1000, MODULES = 16, RANKS = 32, MAX_PACKETS = 64, PACKET_DATA = 4048 };

static int syscall_stub(void *device, const struct smpo_lib_request *r)
{
  (void)device;
  return r->npackets == 0;
}

int main(int argc, char **argv)
{
  int send = argc == 3 && !strcmp(argv[1], "send"), packets = send ? atoi(argv[2]) : 0;
  if (!(send && packets >= 1 && packets <= MAX_PACKETS) && !(argc == 2 && !strcmp(argv[1], "receive"))) {
    fprintf(stderr, "usage: %s send PACKETS (1-%d) | receive\n", argv[0], MAX_PACKETS);
    return 2;
  }
  static uint32_t module_of[RANKS], transit[MODULES];
  for (int r = 0; r < RANKS; r++)
    module_of[r] = (uint32_t)(r / 2);
  for (int m = 0; m < MODULES; m++)
    transit[m] = (uint32_t)(m % 4 + m / 4); /* hops on a 4 x 4 mesh from module 0, less one */
  struct smpo_lib l = {0, 0, module_of, transit, 1, PACKET_DATA, syscall_stub, NULL};
  uint32_t *slot = calloc((size_t)MAX_PACKETS * 4096 / 4, sizeof *slot);
  if (!slot)
    return 1;
  struct smpo_lib_msg m;
  int bad = 0;
  for (int i = 0; send && i < N; i++) {
    uint32_t len = (uint32_t)(packets - 1) * PACKET_DATA + 1000;
    bad |= smpo_lib_send(&l, (uint32_t)(2 + i % (RANKS - 2)), SMPO_DATA, len, 0x1234567u, slot, &m) != 0;
  }
  /* the receive side sees those same headers, addressed to it */
  struct smpo_lib me = l;
  me.rank = 3;
  me.module = 1;
  for (int i = 0; !send && i < N; i++) {
    slot[SMPO_F_RECEIVER] = 3;
    slot[SMPO_F_SENDER] = (uint32_t)(4 + i % (RANKS - 4));
    slot[SMPO_F_TYPE] = (uint32_t)(SMPO_DATA + i % 5);
    slot[SMPO_F_LENGTH] = 1000;
    slot[SMPO_F_NPACKETS] = 1;
    bad |= smpo_lib_receive(&me, slot, &m) < 0;
  }
  free(slot);
  printf("%d messages%s\n", N, bad ? ", some refused" : "");
  return bad;
}
