/* The SimGrid adapter: the only C++ in icsim.
 *
 * Built as libicsim_platform.so and given to smpirun as `-platform path/libicsim_platform.so`.
 * load_platform() reads the run from the environment (set by `icsim run`), builds hosts, links
 * and routes from the C platform description, and routes every transfer's latency and
 * bandwidth through the stack models. At the end it reports ranks that ended without
 * MPI_Finalize, writes --stats, checks invariants and notes how the run ended (ICSIM_STATUS). */
#include <simgrid/kernel/resource/NetworkModelIntf.hpp>
#include <simgrid/kernel/routing/NetPoint.hpp>
#include <simgrid/kernel/routing/NetZoneImpl.hpp>
#include <simgrid/s4u.hpp>
#include <xbt/log.h>
#include <xbt/signal.hpp>

#include <fcntl.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unordered_map>
#include <vector>

extern "C" {
#include "breakdown.h"
#include "paths.h"
#include "runtime.h"
}

namespace sg4 = simgrid::s4u;

/* SimGrid 3.32 fires these kernel signals for every communication, right after the network
 * model has priced it (start) and when it ends (completion), but does not install their header.
 * Only the two static members are declared here; the object is used as an opaque key. */
namespace simgrid::kernel::activity {
class CommImpl {
public:
  static xbt::signal<void(CommImpl const&)> on_start;
  static xbt::signal<void(CommImpl const&)> on_completion;
};
} // namespace simgrid::kernel::activity
using simgrid::kernel::activity::CommImpl;

namespace {

std::unordered_map<const sg4::Link*, const icsim_link*> link_of; // directional link -> our description
std::unordered_map<const sg4::Host*, int> host_index;

/* SimGrid asks for the bandwidth factor and then the latency factor of the same transfer:
 * compute the stack's answer once and hand it to both. */
struct WireMemo {
  double size = -1;
  const sg4::Host* src = nullptr;
  const sg4::Host* dst = nullptr;
  bool used_bw = false, used_lat = false;
  icsim_wire_query q{};
  icsim_wire_cost c{};
} memo;

/* Transfer ids of the communications in flight, from start to completion. */
std::unordered_map<const CommImpl*, uint64_t> comm_transfer;
uint64_t last_priced = 0; /* id of the transfer the factor callbacks just priced */

const WireMemo& wire_for(double size, const sg4::Host* src, const sg4::Host* dst, const std::vector<sg4::Link*>& /*links*/,
                         bool for_bw)
{
  bool fresh = !(memo.size == size && memo.src == src && memo.dst == dst && !(for_bw ? memo.used_bw : memo.used_lat));
  if (fresh) {
    icsim_runtime* rt = icsim_runtime_get();
    const icsim_platform* pf = &rt->pf;
    icsim_wire_query q{};
    q.bytes = size > ICSIM_SMPI_ENVELOPE_B ? size - ICSIM_SMPI_ENVELOPE_B : 0;
    q.envelope_bytes = size - q.bytes;
    q.now_s = sg4::Engine::get_clock();
    int sh = host_index.at(src), dh = host_index.at(dst);
    q.src_node = sh / pf->p.sockets;
    q.src_socket = sh % pf->p.sockets;
    q.dst_node = dh / pf->p.sockets;
    q.dst_socket = dh % pf->p.sockets;
    q.route_bandwidth_Bps = 1e300;
    /* Our own route, not SimGrid's LINKS: SimGrid's omits the switches (see get_local_route). */
    static std::vector<icsim_hop> hops(icsim_route_max_hops(pf));
    int nh = icsim_route(pf, sh, dh, hops.data(), (int)hops.size());
    for (int k = 0; k < nh; k++) {
      const icsim_link* d = &pf->links[hops[k].link];
      q.route_latency_s += d->lat_s;
      if (d->bw_Bps < q.route_bandwidth_Bps)
        q.route_bandwidth_Bps = d->bw_Bps;
      q.network_hops += d->kind == ICSIM_LINK_NETWORK;
      q.switch_stages += d->kind == ICSIM_LINK_SWITCH;
    }
    memo.size = size;
    memo.src = src;
    memo.dst = dst;
    memo.used_bw = memo.used_lat = false;
    memo.q = q;
    icsim_runtime_wire(rt, &memo.q, sh, dh, size, &memo.c);
    last_priced = memo.q.id;
  }
  (for_bw ? memo.used_bw : memo.used_lat) = true;
  return memo;
}

/* --trace: a link's load in bytes/s (the flows' rates on it, as the last solve of the sharing gave
 * them), and an icsim link's name. */
double usage_of(const void* h)
{
  return static_cast<const sg4::Link*>(h)->get_usage();
}
const char* link_name_of(int link)
{
  return icsim_runtime_get()->pf.links[link].name;
}

void die(const char* what)
{
  std::fprintf(stderr, "icsim: %s\n", what);
  std::exit(2);
}

/* Routes computed per transfer by icsim_route(), the way SimGrid's cluster zones compute theirs,
 * instead of a stored route per host pair (a full zone holds N^2 routes: a 16384-host star
 * would need 2^28 of them). Memory is the links alone; a route costs a few hops to compute. */
class RoutedByIcsim : public simgrid::kernel::routing::NetZoneImpl {
public:
  using Link = simgrid::kernel::resource::StandardLinkImpl;
  RoutedByIcsim(const std::string& name, const icsim_platform* pf)
      : NetZoneImpl(name), pf_(pf), hops_(icsim_route_max_hops(pf))
  {
  }
  /* Host H was created with netpoint NP. */
  void add_host(const simgrid::kernel::routing::NetPoint* np, int h)
  {
    if (np->id() >= host_of_.size())
      host_of_.resize(np->id() + 1, -1);
    host_of_[np->id()] = h;
  }
  /* Link I of the platform is UP in the up direction and DOWN in the other (the same when shared). */
  void add_link(Link* up, Link* down)
  {
    up_.push_back(up);
    down_.push_back(down);
  }

protected:
  void get_local_route(const simgrid::kernel::routing::NetPoint* src, const simgrid::kernel::routing::NetPoint* dst,
                       simgrid::kernel::routing::Route* into, double* latency) override
  {
    int a = src->id() < host_of_.size() ? host_of_[src->id()] : -1;
    int b = dst->id() < host_of_.size() ? host_of_[dst->id()] : -1;
    if (a < 0 || b < 0)
      die("internal error: a route was asked for a point that is not one of the platform's hosts");
    int n = icsim_route(pf_, a, b, hops_.data(), (int)hops_.size());
    if (n < 0)
      die("internal error: a route is longer than icsim_route_max_hops()");
    for (int k = 0; k < n; k++) {
      int li = hops_[k].link;
      /* A switch is a crossbar of unbounded bandwidth: it never limits a flow, but as a SimGrid
       * link it would put every flow through it into one constraint, and the solver re-examines
       * all flows of a constraint whenever one of them changes (all-to-all at 256 ranks: most of
       * the run). Its latency counts; the link is left out of the route. */
      if (pf_->links[li].kind != ICSIM_LINK_SWITCH)
        into->link_list_.push_back(hops_[k].up ? up_[li] : down_[li]);
      if (latency) /* what SimGrid's own zones add: each link's latency, in route order */
        *latency += pf_->links[li].lat_s;
    }
  }

private:
  const icsim_platform* pf_;
  std::vector<icsim_hop> hops_;
  std::vector<int> host_of_; /* netpoint id -> host index */
  std::vector<Link*> up_, down_;
};

} // namespace

/* The verdict channels (runtime.h, ICSIM_ENV_LOG_FD): SimGrid's log leaves the stderr the program
 * writes to for the pipe `icsim run` reads as SimGrid's alone (unbuffered: an assertion aborts right
 * after its message), and the status file is claimed before any rank can see its name. */
static void claim_channels()
{
  icsim_runtime_claim_status();
  const char* v = std::getenv(ICSIM_ENV_LOG_FD);
  if (!v || !*v)
    return; /* a pasted smpirun command: SimGrid logs to stderr as usual */
  char* end;
  long fd = std::strtol(v, &end, 10);
  if (*end || fd < 3 || fcntl((int)fd, F_SETFD, FD_CLOEXEC) != 0)
    return;
  FILE* log = fdopen((int)fd, "w");
  if (!log)
    return;
  setvbuf(log, nullptr, _IONBF, 0);
  xbt_log_appender_set(&_simgrid_log_category__root, xbt_log_appender_stream(log));
  unsetenv(ICSIM_ENV_LOG_FD);
}

/* The program (smpimain's first argument) is one of the run's inputs here too: an output the
 * simulation writes itself (a layer's, such as smpo/record-pattern) must not replace it (paths.h). */
static void note_program()
{
  FILE* f = std::fopen("/proc/self/cmdline", "rb");
  if (!f)
    return;
  char buf[4096];
  size_t n = std::fread(buf, 1, sizeof buf - 1, f);
  std::fclose(f);
  buf[n] = '\0';
  const char* program = buf + std::strlen(buf) + 1; /* after smpimain's own path */
  char err[256];
  if (program < buf + n && *program)
    (void)icsim_input_check("program", program, err, sizeof err);
}

extern "C" void load_platform(const sg4::Engine& /*engine*/)
{
  claim_channels();
  note_program();
  char err[2048];
  if (icsim_runtime_init_from_env(err, sizeof err))
    die(err);
  icsim_runtime* rt = icsim_runtime_get();
  const icsim_platform* pf = &rt->pf;

  /* Prefixed: a platform named like a host ("node0.s0") must not clash with it. */
  auto* routing = new RoutedByIcsim(std::string("platform:") + pf->p.name, pf);
  sg4::NetZone* zone = routing->get_iface();
  int nhosts = icsim_platform_hosts(pf);
  std::vector<sg4::Host*> hosts(nhosts);
  char name[64];
  for (int h = 0; h < nhosts; h++) {
    icsim_host_name(pf, h, name, sizeof name);
    hosts[h] = zone->create_host(name, pf->p.speed_flops)->set_core_count(pf->p.cores_per_socket)->seal();
    host_index[hosts[h]] = h;
    routing->add_host(hosts[h]->get_netpoint(), h);
  }
  /* One entry per icsim link: the SimGrid link for each direction (same link when shared). */
  std::vector<sg4::Link*> up(pf->nlinks), down(pf->nlinks);
  bool channels = icsim_runtime_models_channels(rt);
  /* A stack that models sharing gets each channel's capacity as a function of its sharers. */
  auto nonlinear = [channels](sg4::Link* link, const icsim_link* l, int up) {
    if (!channels || l->sharing == ICSIM_FATPIPE)
      return;
    link->set_sharing_policy(sg4::Link::SharingPolicy::NONLINEAR, [l, up](double capacity, int n) {
      double v = icsim_runtime_channel_capacity(icsim_runtime_get(), l, up, l->bw_Bps, n);
      return v < 0 ? capacity : v;
    });
  };
  for (int i = 0; i < pf->nlinks; i++) {
    const icsim_link* l = &pf->links[i];
    if (l->sharing == ICSIM_SPLITDUPLEX) {
      sg4::SplitDuplexLink* sd = zone->create_split_duplex_link(l->name, icsim_runtime_channel_peak(rt, l));
      sd->set_latency(l->lat_s);
      nonlinear(sd->get_link_up(), l, 1);
      nonlinear(sd->get_link_down(), l, 0);
      sd->seal();
      up[i] = sd->get_link_up();
      down[i] = sd->get_link_down();
    } else {
      auto* link = zone->create_link(l->name, icsim_runtime_channel_peak(rt, l))->set_latency(l->lat_s);
      link->set_sharing_policy(l->sharing == ICSIM_FATPIPE ? sg4::Link::SharingPolicy::FATPIPE
                                                           : sg4::Link::SharingPolicy::SHARED);
      nonlinear(link, l, 1);
      link->seal();
      up[i] = down[i] = link;
    }
    link_of[up[i]] = l;
    link_of[down[i]] = l;
    /* kept in the trace's own memory: tracing must not move the program's buffers. A switch is in
     * no SimGrid route (RoutedByIcsim): it carries nothing SimGrid could report. */
    if (rt->trace && l->kind != ICSIM_LINK_SWITCH)
      icsim_trace_link_handles(rt->trace, i, up[i], down[i], l->bw_Bps);
    routing->add_link(up[i]->get_impl(), down[i]->get_impl());
  }
  zone->seal();

  auto* model = zone->get_network_model();
  model->set_bw_factor_cb([](double size, const sg4::Host* src, const sg4::Host* dst,
                             const std::vector<sg4::Link*>& links, const std::unordered_set<sg4::NetZone*>&) {
    const WireMemo& m = wire_for(size, src, dst, links, true);
    return m.c.bandwidth_Bps / m.q.route_bandwidth_Bps;
  });
  model->set_lat_factor_cb([](double size, const sg4::Host* src, const sg4::Host* dst,
                              const std::vector<sg4::Link*>& links, const std::unordered_set<sg4::NetZone*>&) {
    const WireMemo& m = wire_for(size, src, dst, links, false);
    /* memory and network links have a positive minimum latency, so the ratio is defined */
    return m.c.latency_s / m.q.route_latency_s;
  });

  /* The transfer id joins SimGrid's communication to the MPI message from start to end, so
   * that layers free what a transfer holds when it really completes. */
  CommImpl::on_start.connect([](CommImpl const& comm) {
    if (last_priced)
      comm_transfer[&comm] = last_priced;
    last_priced = 0;
  });
  CommImpl::on_completion.connect([](CommImpl const& comm) {
    auto it = comm_transfer.find(&comm);
    if (it == comm_transfer.end())
      return;
    icsim_runtime_transfer_done(icsim_runtime_get(), it->second, sg4::Engine::get_clock());
    comm_transfer.erase(it);
  });

  /* --trace: links' utilisation. Each step of the clock follows a solve of the sharing, whose rates
   * held over the step just made: they are written at its start. Connected with or without a trace,
   * so that a trace does not change what the heap holds when the program starts. */
  sg4::Engine::on_time_advance_cb([](double) {
    static double step_start = 0;
    double from = step_start;
    step_start = sg4::Engine::get_clock();
    icsim_runtime* rt = icsim_runtime_get();
    if (rt->trace)
      icsim_trace_sample_links(rt->trace, from, usage_of, link_name_of);
  });

  sg4::Engine::on_deadlock_cb([]() { icsim_runtime_get()->deadlocked = 1; });
  sg4::Engine::on_simulation_end_cb([]() {
    icsim_runtime* rt = icsim_runtime_get();
    rt->finished = 1; /* from now on a process exit is smpirun's own (sim/mpi/lifecycle.c) */
    icsim_runtime_report_ends(rt, stderr);
    if (rt->breakdown && !rt->deadlocked)
      icsim_breakdown_print(rt, sg4::Engine::get_clock(), stderr);
    if (rt->trace && icsim_trace_close(rt->trace, sg4::Engine::get_clock()) != 0)
      std::fprintf(stderr, "icsim: --trace: the timeline could not be written whole (disk full?)\n");
    rt->trace = nullptr;
    char err[2048];
    const char* stats = std::getenv(ICSIM_ENV_STATS);
    if (stats && *stats && !rt->deadlocked && icsim_runtime_write_stats(rt, stats, sg4::Engine::get_clock(), err, sizeof err))
      std::fprintf(stderr, "icsim: %s\n", err);
    if (icsim_runtime_check(rt, sg4::Engine::get_clock(), err, sizeof err))
      std::fprintf(stderr, "icsim: invariant broken at end of run: %s\n", err);
    icsim_runtime_note(rt->deadlocked ? "deadlock\n" : "end\n");
  });
}
