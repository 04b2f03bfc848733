/* The skifch stack behind the contract: host CPU per message and the message's time on the torus.
 *
 * Channel messages (tag SKIFCH_WIRE_TAG, sent by program/channel.c) pay the adapter's send and
 * receive paths only. MPI messages are MPI over SkifCh: MPI cuts them into SkifCh messages of at
 * most skifch/max-message, each paying the adapter's paths, and the receiving MPI matches every
 * one against its queues (skifch/mpi-matching), the cost the paper measures SkifCh against. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "runtime.h"
#include "skifch_model.h"

double skifch_pieces(const struct skifch_params *p, double bytes)
{
  return bytes > 0 ? ceil(bytes / p->max_message_B) : 1;
}

static int skifch_create(void **state, const struct icsim_params *ps, const struct icsim_platform *pf, char *err,
                         size_t errlen)
{
  (void)pf;
  struct skifch_state *s = calloc(1, sizeof *s);
  icsim_params_fill(ps, skifch_params_table, SKIFCH_NPARAMS, &s->p);
  const struct skifch_params *p = &s->p;
  if (fmod(p->recv_buffer_B, p->page_B) != 0) {
    snprintf(err, errlen, "skifch/recv-buffer (%.0f B) must be a whole number of skifch/page (%.0f B); "
             "round it to a multiple", p->recv_buffer_B, p->page_B);
    free(s);
    return -1;
  }
  if (p->max_message_B > 2 * p->page_B) {
    snprintf(err, errlen, "skifch/max-message (%.0f B) exceeds 2 x skifch/page (%.0f B): a message could span more "
             "than SKIFCH_CONT_SIZE = 3 pages; lower it or raise skifch/page", p->max_message_B, p->page_B);
    free(s);
    return -1;
  }
  if (p->max_message_B > p->recv_buffer_B) {
    snprintf(err, errlen, "skifch/max-message (%.0f B) exceeds skifch/recv-buffer (%.0f B): such a message could "
             "never be received; lower it or raise the buffer", p->max_message_B, p->recv_buffer_B);
    free(s);
    return -1;
  }
  *state = s;
  return 0;
}

static void skifch_destroy(void *state)
{
  struct skifch_state *s = state;
  for (int i = 0; i < s->nranks_cap; i++)
    free(s->unexpected[i].e);
  free(s->unexpected);
  free(s);
}

static struct skifch_match_queue *queue_of(struct skifch_state *s, int rank)
{
  if (rank >= s->nranks_cap) {
    int n = rank * 2 + 8;
    s->unexpected = realloc(s->unexpected, n * sizeof *s->unexpected);
    memset(s->unexpected + s->nranks_cap, 0, (n - s->nranks_cap) * sizeof *s->unexpected);
    s->nranks_cap = n;
  }
  return &s->unexpected[rank];
}

static double skifch_send_cpu(void *state, const struct icsim_msg *m)
{
  struct skifch_state *s = state;
  if (m->tag == SKIFCH_WIRE_TAG) {
    s->channel_msgs++;
    return s->p.send_overhead_s;
  }
  double n = skifch_pieces(&s->p, (double)m->bytes);
  s->mpi_msgs++;
  s->mpi_pieces += n;
  if (s->p.mpi_matching)
    skifch_match_push(queue_of(s, m->dst_rank), m->src_rank, m->tag);
  return n * s->p.send_overhead_s;
}

static double skifch_recv_cpu(void *state, const struct icsim_msg *m)
{
  struct skifch_state *s = state;
  if (m->tag == SKIFCH_WIRE_TAG)
    return s->p.recv_overhead_s;
  double t = skifch_pieces(&s->p, (double)m->bytes) * s->p.recv_overhead_s;
  if (s->p.mpi_matching) {
    double examined = (double)skifch_match_take(queue_of(s, m->dst_rank), m->src_rank, m->tag);
    double match = s->p.match_base_s + examined * s->p.match_entry_s;
    s->match_entries += examined;
    s->match_s += match;
    t += match;
    icsim_cpu_part("MPI matching", match); /* the cost the paper measures SkifCh against (--trace) */
  }
  return t;
}

/* Each SkifCh message carries a torus header: the payload flows at link rate x payload / wire. */
static void skifch_wire(void *state, const struct icsim_wire_query *q, struct icsim_wire_cost *c)
{
  struct skifch_state *s = state;
  if (q->network_hops <= 0)
    return;
  double pieces = q->msg && q->msg->tag == SKIFCH_WIRE_TAG ? 1 : skifch_pieces(&s->p, q->bytes);
  double moved = q->bytes + q->envelope_bytes, wire = moved + pieces * s->p.header_B;
  s->wire_bytes += wire;
  c->bandwidth_Bps *= moved / wire;
  /* the headers' share of the link time, at the route's rate (the rest of the bytes are the flow) */
  icsim_wire_add_phase(c, "torus headers", (wire - moved) / q->route_bandwidth_Bps);
  /* Eager push: the sender's adapter writes an eager message into the receiver's ring as soon
   * as it is sent, whether or not the receive is posted (SimGrid would start it only then): the
   * part of the flight already behind it when SimGrid starts the transfer is not paid again. */
  if (q->bytes <= s->p.mpi_eager_B && icsim_eager_push(q, c))
    s->pushed_msgs++;
  /* an eager message (and every channel message) is the adapter writing it into the receiver's
   * ring: its flow is the ring push */
  if (q->bytes <= s->p.mpi_eager_B || (q->msg && q->msg->tag == SKIFCH_WIRE_TAG))
    icsim_wire_name_flow(c, "ring push");
}

static double skifch_eager_limit(void *state) { return ((struct skifch_state *)state)->p.mpi_eager_B; }

static size_t skifch_counters(void *state, struct icsim_counter *out, size_t max)
{
  struct skifch_state *s = state;
  struct icsim_counter c[] = {{"channel_messages", "messages", s->channel_msgs},
                              {"mpi_messages", "messages", s->mpi_msgs},
                              {"mpi_pieces", "messages", s->mpi_pieces},
                              {"match_entries_examined", "entries", s->match_entries},
                              {"match_s", "s", s->match_s},
                              {"send_refusals", "calls", s->refusals},
                              {"prefix_sends", "calls", s->prefixes},
                              {"wire_bytes", "bytes", s->wire_bytes},
                              {"pushed_before_receive", "messages", s->pushed_msgs}};
  return icsim_counters_out(out, max, c, sizeof c / sizeof c[0]);
}

const struct icsim_stack_ops skifch_stack = {
    .name = "skifch",
    .summary = "SkifCh channels on an FPGA torus: adapter send/receive paths, headers; MPI over SkifCh pays matching",
    .params = skifch_params_table,
    .nparams = SKIFCH_NPARAMS,
    .rules = skifch_params_rules,
    .nrules = sizeof skifch_params_rules / sizeof skifch_params_rules[0],
    .role = ICSIM_ROLE_NETWORK,
    .wire_mode = ICSIM_WIRE_FACTORS,
    .create = skifch_create,
    .destroy = skifch_destroy,
    .send_cpu = skifch_send_cpu,
    .recv_cpu = skifch_recv_cpu,
    .wire = skifch_wire,
    .eager_limit_bytes = skifch_eager_limit,
    .counters = skifch_counters,
};

ICSIM_REGISTER_STACK(skifch_stack)

struct skifch_state *skifch_state_of(void *runtime)
{
  struct icsim_runtime *rt = runtime;
  if (!rt || rt->pf.stack != &skifch_stack)
    return NULL;
  return rt->state[rt->pf.network];
}
