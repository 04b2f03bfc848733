/* Rank placement: `--place` (block, cyclic, NxC, a node list, a configuration file) resolved into
 * the SimGrid host (socket) of each rank, filling a node's cores socket by socket. */
#include "placement.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "placement_file.h"
#include "platform.h"

/* A node or socket number: decimal digits only (no sign, no spaces), at most 9 of them.
 * Returns the end of the digits, or NULL. */
static const char *parse_index(const char *s, long *v)
{
  size_t n = strspn(s, "0123456789");
  if (n == 0 || n > 9)
    return NULL;
  *v = strtol(s, NULL, 10);
  return s + n;
}

/* "NxC": two such numbers around an 'x'. */
static int parse_shape(const char *spec, int *N, int *C)
{
  long n, c;
  const char *x = parse_index(spec, &n);
  if (!x || *x != 'x')
    return -1;
  const char *end = parse_index(x + 1, &c);
  if (!end || *end)
    return -1;
  *N = (int)n;
  *C = (int)c;
  return 0;
}

int icsim_place(const struct icsim_platform *pf, int nranks, const char *spec, int *rank_host, char *err,
                size_t errlen)
{
  const struct icsim_platform_params *p = &pf->p;
  int cores = p->sockets * p->cores_per_socket;
  long total = (long)p->nodes * cores;
  if (nranks < 1) {
    snprintf(err, errlen, "-n %d: need at least one rank", nranks);
    return -1;
  }
  int *node_of = malloc((size_t)nranks * sizeof *node_of);
  int *socket_of = malloc((size_t)nranks * sizeof *socket_of);
  for (int r = 0; r < nranks; r++)
    socket_of[r] = -1;
  int rc = -1, N, C;
  if (strcmp(spec, "block") == 0 || strcmp(spec, "cyclic") == 0) {
    if (nranks > total) {
      snprintf(err, errlen, "-n %d: the platform has %d nodes x %d cores = %ld cores; lower -n or use a bigger platform",
               nranks, p->nodes, cores, total);
      goto out;
    }
    for (int r = 0; r < nranks; r++)
      node_of[r] = spec[0] == 'b' ? r / cores : r % p->nodes;
  } else if (parse_shape(spec, &N, &C) == 0) {
    if (N < 1 || C < 1 || N > p->nodes || C > cores) {
      snprintf(err, errlen, "--place %s: the platform has %d nodes of %d cores; pick N <= %d and C <= %d", spec,
               p->nodes, cores, p->nodes, cores);
      goto out;
    }
    if ((long)N * C != nranks) {
      snprintf(err, errlen, "--place %s places %ld ranks but -n is %d; make N x C equal -n", spec, (long)N * C, nranks);
      goto out;
    }
    for (int r = 0; r < nranks; r++)
      node_of[r] = r / C;
  } else if (icsim_placement_is_file(spec)) {
    /* a configuration file of "rank device module" lines: read as the list it holds */
    char *list = NULL;
    if (icsim_placement_file_read(spec, pf, nranks, &list, err, errlen) == 0 && !icsim_placement_is_file(list))
      rc = icsim_place(pf, nranks, list, rank_host, err, errlen);
    free(list);
    goto out;
  } else {
    /* explicit list, one entry per rank: a node ("3", cores filled socket by socket) or a
     * node and socket ("3.1", pinned to that socket, like numactl --cpunodebind); numbers are
     * plain decimal digits, entries separated by single commas */
    const char *s = spec;
    int r = 0;
    for (;;) {
      long v, sock = -1;
      const char *end = parse_index(s, &v);
      if (end && *end == '.')
        end = parse_index(end + 1, &sock);
      if (!end || (*end && *end != ',') || (*end == ',' && !end[1])) {
        snprintf(err, errlen,
                 "--place '%s': write block, cyclic, NxC (e.g. 2x4) or one node (or node.socket) per rank, "
                 "separated by commas (e.g. 0,0,1,1 or 0.0,0.1)",
                 spec);
        goto out;
      }
      if (v >= p->nodes) {
        snprintf(err, errlen, "--place: node %ld does not exist (nodes are 0..%d)", v, p->nodes - 1);
        goto out;
      }
      if (sock >= p->sockets) {
        snprintf(err, errlen, "--place: socket %ld does not exist (sockets are 0..%d)", sock, p->sockets - 1);
        goto out;
      }
      if (r < nranks) {
        node_of[r] = (int)v;
        socket_of[r] = (int)sock;
      }
      r++;
      if (!*end)
        break;
      s = end + 1;
    }
    if (r != nranks) {
      snprintf(err, errlen, "--place lists %d ranks but -n is %d; give one node per rank", r, nranks);
      goto out;
    }
  }
  /* Unpinned ranks fill cores socket by socket in rank order (compact binding, like numactl
   * --physcpubind); pinned ones take a core of their socket. */
  int *used = calloc((size_t)p->nodes * (size_t)p->sockets, sizeof *used);
  for (int r = 0; r < nranks; r++) {
    int n = node_of[r], sock = socket_of[r];
    if (sock < 0)
      for (sock = 0; sock < p->sockets - 1 && used[icsim_host_of(pf, n, sock)] >= p->cores_per_socket; sock++)
        ;
    if (used[icsim_host_of(pf, n, sock)] >= p->cores_per_socket) {
      snprintf(err, errlen, "--place %s puts more ranks on node %d%s than it has cores (%d per socket, %d sockets)",
               spec, n, socket_of[r] >= 0 ? " socket" : "", p->cores_per_socket, p->sockets);
      free(used);
      goto out;
    }
    rank_host[r] = icsim_host_of(pf, n, sock);
    used[icsim_host_of(pf, n, sock)]++;
  }
  free(used);
  rc = 0;
out:
  free(node_of);
  free(socket_of);
  return rc;
}
