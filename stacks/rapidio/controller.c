/* Controller and logical layer: segments with a delivery status each, retries, the placement
 * hazard, IO transactions and doorbells. Pure functions of the parameters. */
#include <math.h>

#include "rapidio.h"

double rio_round(const struct rio_params *p, double bytes)
{
  if (!p->round_to_segment)
    return bytes;
  double r = ceil(bytes / p->segment_B) * p->segment_B;
  return r > 0 ? r : p->segment_B;
}

double rio_segment_s(const struct rio_params *p, double bytes, double link_bw, double route_lat_s)
{
  /* the segment goes out, the receiver turns a status response around, the sender sends the
   * next segment only when the status is in */
  return (bytes + p->packet_header_B) / link_bw + route_lat_s + p->turnaround_s + p->response_B / link_bw +
         route_lat_s;
}

double rio_messages_s(const struct rio_params *p, double bytes, double link_bw, double route_lat_s, double *segments,
                      double *messages)
{
  double msg_B = p->segment_B * p->segments_per_message;
  double nseg = bytes > 0 ? ceil(bytes / p->segment_B) : 1;
  double full = floor(bytes / p->segment_B);
  double last = bytes - full * p->segment_B; /* all segments equal except the last */
  double t = full * rio_segment_s(p, p->segment_B, link_bw, route_lat_s);
  if (last > 0 || bytes == 0)
    t += rio_segment_s(p, last, link_bw, route_lat_s);
  if (segments)
    *segments = nseg;
  if (messages)
    *messages = bytes > 0 ? ceil(bytes / msg_B) : 1;
  return t;
}

double rio_hazard_overflow(const struct rio_params *p, double bytes, bool rejected_before_last)
{
  if (p->round_to_segment || !rejected_before_last)
    return 0;
  double nseg = ceil(bytes / p->segment_B);
  double end_of_last = p->segment_B * nseg; /* last segment written at 256 x (nseg - 1), up to 256 B */
  return end_of_last > bytes ? end_of_last - bytes : 0;
}

double rio_io_s(const struct rio_params *p, double bytes, bool read, double link_bw, double route_lat_s,
                double *transactions)
{
  double n = bytes > 0 ? ceil(bytes / p->io_payload_B) : 1;
  double header_B = p->io_header_bits / 8;
  if (transactions)
    *transactions = n;
  if (!read) /* NWRITE is posted: transactions stream out back to back */
    return (bytes + n * header_B) / link_bw + route_lat_s;
  /* NREAD is a CPU load: each waits for its response carrying the data */
  return n * (header_B / link_bw + route_lat_s + p->turnaround_s + header_B / link_bw + route_lat_s) +
         bytes / link_bw;
}

double rio_doorbell_s(const struct rio_params *p, double link_bw, double route_lat_s)
{
  return (p->doorbell_B + p->packet_header_B) / link_bw + route_lat_s;
}
