/* icsim run: check the platform, the placement, the program and the --stats target, then hand
 * the program to smpirun with the icsim platform library, relay its output, and exit with the
 * program's status (README, "Exit status"): SimGrid's failures are made readable, and nothing is
 * left behind in the temporary folder, even when interrupted (scratch.h). */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "outfile.h"
#include "paths.h"
#include "runtime.h"
#include "scratch.h"

void free_strv(char **v)
{
  if (!v)
    return;
  for (char **p = v; *p; p++)
    free(*p);
  free(v);
}

static void push(char ***v, int *n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void push(char ***v, int *n, const char *fmt, ...)
{
  *v = realloc(*v, (size_t)(*n + 2) * sizeof **v);
  va_list ap;
  va_start(ap, fmt);
  if (vasprintf(&(*v)[*n], fmt, ap) < 0)
    abort();
  va_end(ap);
  (*n)++;
  (*v)[*n] = NULL;
}

/* The hostfile, written whole (it may be the stable one of --dry-run, read by a pasted command). */
static int write_hostfile(const char *path, const char *content, char *err, size_t errlen)
{
  return icsim_output_write("hostfile", path, content, strlen(content), err, errlen);
}

/* Prepend layer LAYER to the platform's layers (or to a --set layers list) in SETS, unless they list it. */
static void add_layer(const char *layer, const char *platform, char *sets, size_t cap)
{
  char names[512] = "";
  const char *given = strstr(sets, "layers=");
  if (given && (given == sets || given[-1] == ';')) {
    int n = (int)strcspn(given + 7, ";");
    snprintf(names, sizeof names, "%.*s", n, given + 7);
    char rest[8192];
    snprintf(rest, sizeof rest, "%s", given + 7 + n);
    snprintf(sets + (given - sets), cap - (size_t)(given - sets), "%s", rest[0] == ';' ? rest + 1 : rest);
  } else {
    char e[256];
    struct icsim_runtime *r0 = icsim_runtime_create(platform, NULL, e, sizeof e);
    if (!r0)
      return; /* the platform's own error is reported by the caller */
    for (int i = 0; i < r0->pf.nlayers; i++)
      snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? "," : "", r0->pf.layer[i]->name);
    icsim_runtime_destroy(r0);
  }
  char list[600];
  int has = 0;
  for (char *t = names, *end; *t; t = *end ? end + 1 : end) {
    end = t + strcspn(t, ",");
    has |= (size_t)(end - t) == strlen(layer) && !strncmp(t, layer, strlen(layer));
  }
  snprintf(list, sizeof list, "%s%s%s", has ? "" : layer, has || !names[0] ? "" : ",", names);
  size_t len = strlen(sets);
  snprintf(sets + len, cap - len, "%slayers=%s", len ? ";" : "", list);
}

/* PATH (an output's) with its folder made absolute, into ABS. */
static int absolute_target(const char *option, const char *path, char *abs, size_t abslen, char *err, size_t errlen)
{
  const char *slash = strrchr(path, '/');
  char dir[PATH_MAX], real[PATH_MAX];
  snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
  if (!realpath(dir[0] ? dir : "/", real)) {
    snprintf(err, errlen, "%s %s: folder %s: %s", option, path, dir, strerror(errno));
    return -1;
  }
  snprintf(abs, abslen, "%s/%s", real, slash ? slash + 1 : path);
  return 0;
}

/* --trace: a known format, not the --stats file, in a folder that takes a file; outfile.c refuses
 * any of the run's inputs (platform, placement file, program: paths.h), by inode. */
static int check_trace(const struct run_request *rq, char *err, size_t errlen)
{
  enum icsim_trace_format f;
  if (rq->trace_format && icsim_trace_format_parse(rq->trace_format, &f)) {
    snprintf(err, errlen, "--trace-format %s: write paje (ViTE, pj_dump) or chrome (Perfetto, chrome://tracing)",
             rq->trace_format);
    return -1;
  }
  char ta[PATH_MAX], sa[PATH_MAX], e2[256];
  if (rq->stats && !absolute_target("--trace", rq->trace, ta, sizeof ta, e2, sizeof e2) &&
      !absolute_target("--stats", rq->stats, sa, sizeof sa, e2, sizeof e2) && !strcmp(ta, sa)) {
    snprintf(err, errlen, "--trace %s and --stats %s are the same file; give each its own",
             icsim_path_shown(rq->trace), icsim_path_shown(rq->stats));
    return -1;
  }
  return icsim_output_check("--trace", rq->trace, err, errlen);
}

int build_smpirun(const struct run_request *rq, const char *hostfile, char ***argv_out, char ***env_out,
                  char **note_out, char *err, size_t errlen)
{
  if (note_out)
    *note_out = NULL;
  char abs_platform[PATH_MAX];
  if (icsim_input_check("-p", rq->platform, err, errlen)) /* a regular file, before anything opens it */
    return -1;
  if (!realpath(rq->platform, abs_platform)) {
    snprintf(err, errlen, "-p %s: cannot open (%s); check the path", icsim_path_shown(rq->platform), strerror(errno));
    return -1;
  }
  /* Same checks the simulation will make, done here so errors come before SimGrid starts. */
  char sets[8192] = "";
  for (int i = 0; i < rq->nsets; i++) {
    if (strchr(rq->sets[i], ';')) {
      snprintf(err, errlen, "--set %s: values may not contain ';'", rq->sets[i]);
      return -1;
    }
    snprintf(sets + strlen(sets), sizeof sets - strlen(sets), "%s%s", i ? ";" : "", rq->sets[i]);
  }
  /* A layer may take the program through its launch hook (an ABI adaptor takes a binary built
   * against another MPI): asked before the platform is read, since it may add itself to it. */
  struct icsim_launch launch = {.libdir = ICSIM_LIBDIR, .nranks = rq->nranks};
  const struct icsim_stack_ops *taker = NULL;
  char *early = rq->program && rq->program[0] ? find_program(rq->program[0]) : NULL;
  /* the program is read by the layers' launch hooks and by SimGrid: a regular file first (a FIFO
   * would block them), and one of the run's inputs (no output may replace it) */
  if (early && icsim_input_check("program", early, err, errlen)) {
    free(early);
    icsim_launch_clear(&launch);
    return -1;
  }
  for (size_t i = 0; early && !taker && i < icsim_stack_count(); i++) {
    const struct icsim_stack_ops *ops = icsim_stack_at(i);
    int r = ops->launch ? ops->launch(early, &launch, err, errlen) : 0;
    if (r < 0) {
      free(early);
      icsim_launch_clear(&launch);
      return -1;
    }
    if (r > 0)
      taker = ops;
  }
  free(early);
  if (taker && launch.add_layer)
    add_layer(taker->name, abs_platform, sets, sizeof sets);
  struct icsim_runtime *rt = icsim_runtime_create(abs_platform, sets, err, errlen);
  if (!rt)
    return -1;
  int *rank_host = malloc((size_t)(rq->nranks > 0 ? rq->nranks : 1) * sizeof *rank_host);
  int rc = -1;
  char *program = NULL;
  if (icsim_place(&rt->pf, rq->nranks, rq->place, rank_host, err, errlen))
    goto out;
  if (!rq->program || !rq->program[0]) {
    snprintf(err, errlen, "no program given; write `icsim run -p PLATFORM -n N PROGRAM [ARGS]`");
    goto out;
  }
  program = find_program(rq->program[0]);
  if (!program) {
    snprintf(err, errlen, "program '%s' not found or not executable; build it with icsimcc and give its path",
             icsim_path_shown(rq->program[0]));
    goto out;
  }
  if (!taker && check_program(program, err, errlen))
    goto out;
  if (rq->stats && icsim_output_check("--stats", rq->stats, err, errlen))
    goto out;
  if (rq->trace && check_trace(rq, err, errlen))
    goto out;
  /* One hostfile line per rank: SMPI then maps rank r to line r. */
  size_t cap = (size_t)rq->nranks * 24 + 1, len = 0;
  char *hosts = malloc(cap);
  hosts[0] = '\0';
  for (int r = 0; r < rq->nranks; r++) {
    char name[64];
    icsim_host_name(&rt->pf, rank_host[r], name, sizeof name);
    len += (size_t)snprintf(hosts + len, cap - len, "%s\n", name);
  }
  int wrc = write_hostfile(hostfile, hosts, err, errlen);
  free(hosts);
  if (wrc)
    goto out;

  char libpath[PATH_MAX];
  snprintf(libpath, sizeof libpath, "%s/libicsim_platform.so", ICSIM_LIBDIR);
  double eager = icsim_runtime_detach_threshold(rt);
  char **argv = NULL, **env = NULL;
  int na = 0, ne = 0;
  push(&env, &ne, "%s=%s", ICSIM_ENV_PLATFORM, abs_platform);
  if (sets[0])
    push(&env, &ne, "%s=%s", ICSIM_ENV_SET, sets);
  push(&env, &ne, "%s=%d", ICSIM_ENV_NRANKS, rq->nranks);
  push(&env, &ne, "%s=%s", ICSIM_ENV_PLACE, rq->place);
  push(&env, &ne, "%s=%s", ICSIM_ENV_HOST_TIMING, rq->host_timing ? "on" : "off");
  if (rq->every_poll)
    push(&env, &ne, "%s=1", ICSIM_ENV_EVERY_POLL);
  if (rq->progress_s > 0)
    push(&env, &ne, "%s=%g", ICSIM_ENV_PROGRESS, rq->progress_s);
  if (rq->breakdown)
    push(&env, &ne, "%s=1", ICSIM_ENV_BREAKDOWN);
  if (rq->trace) { /* FORMAT:PATH, the path absolute (smpirun runs elsewhere) */
    char abs[PATH_MAX];
    if (absolute_target("--trace", rq->trace, abs, sizeof abs, err, errlen)) {
      free_strv(env);
      goto out;
    }
    push(&env, &ne, "%s=%s:%s", ICSIM_ENV_TRACE, rq->trace_format ? rq->trace_format : "paje", abs);
  }
  if (rq->stats) {
    char abs[PATH_MAX];
    const char *slash = strrchr(rq->stats, '/');
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - rq->stats) : 1, slash ? rq->stats : ".");
    if (!realpath(dir[0] ? dir : "/", abs)) { /* checked above: only a race gets here */
      snprintf(err, errlen, "--stats %s: folder %s: %s", rq->stats, dir, strerror(errno));
      free_strv(env);
      goto out;
    }
    push(&env, &ne, "%s=%s/%s", ICSIM_ENV_STATS, abs, slash ? slash + 1 : rq->stats);
  }
  if (taker) {
#if ICSIM_SANITIZED
    snprintf(err, errlen, "program %s runs through the `%s` layer's launch, which the sanitizer build does not run; "
             "use the ordinary build", program, taker->name);
    free_strv(env);
    goto out;
#endif
    for (int i = 0; i < ICSIM_LAUNCH_MAX_ENV && launch.env[i]; i++)
      push(&env, &ne, "%s", launch.env[i]);
  }
  { /* what smpirun's process preloads: the clock shim (host timing off), what the layer that took
     * the program needs (the adaptor's loader), then whatever the caller preloads */
    char preload[3 * PATH_MAX] = "";
    const char *pre = getenv("LD_PRELOAD");
#if !ICSIM_SANITIZED
    if (!rq->host_timing)
      snprintf(preload, sizeof preload, "%s/libicsim_clock.so", ICSIM_LIBDIR);
#endif
    if (taker && launch.preload)
      snprintf(preload + strlen(preload), sizeof preload - strlen(preload), "%s%s", preload[0] ? ":" : "",
               launch.preload);
    if (pre && *pre)
      snprintf(preload + strlen(preload), sizeof preload - strlen(preload), "%s%s", preload[0] ? ":" : "", pre);
    if (preload[0])
      push(&env, &ne, "LD_PRELOAD=%s", preload);
  }
  push(&argv, &na, "smpirun");
#if ICSIM_SANITIZED
  /* The sanitizer build (tests/sanitize.sh): ASan refuses SMPI's default privatization (dlopen
   * with RTLD_DEEPBIND); mmap privatization loads the program once and swaps its data segment per
   * rank. The layer then wins over SMPI's MPI_* only when preloaded, after ASan's runtime, into
   * smpimain alone; thread contexts, because ASan cannot follow SimGrid's stack switching. SimGrid's
   * own allocations live to the end of the process: leak checking is for the unit tests. */
  push(&env, &ne, "ASAN_OPTIONS=detect_leaks=0");
  push(&argv, &na, "-wrapper");
  push(&argv, &na, "env LD_PRELOAD=%s:%s/libicsim_mpi.so", ICSIM_ASAN_RUNTIME, ICSIM_LIBDIR);
#endif
  push(&argv, &na, "-platform");
  push(&argv, &na, "%s", libpath);
  push(&argv, &na, "-hostfile");
  push(&argv, &na, "%s", hostfile);
  push(&argv, &na, "-np");
  push(&argv, &na, "%d", rq->nranks);
  /* Only icsim's models shape the timing: plain CM02 sharing, no SMPI piecewise factors (the
   * callbacks replace them), no reverse ACK traffic, no latency-weighted unfairness. */
  push(&argv, &na, "--cfg=network/model:CM02");
  push(&argv, &na, "--cfg=network/crosstraffic:0");
  push(&argv, &na, "--cfg=network/weight-S:0");
  push(&argv, &na, "--cfg=smpi/send-is-detached-thresh:%.0f", eager);
  push(&argv, &na, "--cfg=smpi/simulate-computation:%s", rq->host_timing ? "yes" : "no");
  /* The MPI layer's progress engine tests requests on every call; SMPI's injected delay per
   * test would charge 0.1 ms and more each time. Polls that find nothing cost the platform's
   * nodes/poll-instructions instead. */
  push(&argv, &na, "--cfg=smpi/test:0");
#if ICSIM_SANITIZED
  push(&argv, &na, "--cfg=smpi/privatization:mmap");
  push(&argv, &na, "--cfg=contexts/factory:thread");
#endif
  if (rq->host_timing) {
    /* The program's own computation, timed here, is charged at the simulated core's clock:
     * seconds x (this machine's clock, as scalar ops/s) / clock; see cmd_calibrate.c. The ratio
     * of clocks only: the time measured here already holds this core's way of issuing the code
     * (nodes/ops-per-cycle describes declared phases, whose operations are counted, not timed). */
    const struct icsim_platform_params *p = &rt->pf.p;
    push(&argv, &na, "--cfg=smpi/host-speed:%.17gf", icsim_host_ops_per_s() * p->speed_flops / p->clock_Hz);
  }
  push(&argv, &na, "--log=root.thres:warning");
  push(&argv, &na, "--log=smpi_config.thres:error");
  push(&argv, &na, "--log=ker_engine.thres:info"); /* the deadlock report lists blocked actors at INFO */
  push(&argv, &na, "%s", program);
  for (char **a = rq->program + 1; *a; a++)
    push(&argv, &na, "%s", *a);
  *argv_out = argv;
  *env_out = env;
  rc = 0;
out:
  free(program);
  if (note_out && rc == 0 && launch.note) {
    *note_out = launch.note;
    launch.note = NULL;
  }
  icsim_launch_clear(&launch);
  free(rank_host);
  icsim_runtime_destroy(rt);
  return rc;
}

/* Shell-quote S into OUT when it holds anything but safe characters. */
static void print_quoted(FILE *f, const char *s)
{
  if (*s && strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./:=,+@%") == strlen(s)) {
    fputs(s, f);
    return;
  }
  fputc('\'', f);
  for (; *s; s++)
    if (*s == '\'')
      fputs("'\\''", f);
    else
      fputc(*s, f);
  fputc('\'', f);
}

/* How a run ended is never read from what the program prints (issue 39, item 4). Four streams come
 * back from smpirun, each on its own pipe:
 * - the program's stdout and stderr (the simulation's descriptors 1 and 2, given by `icsim
 *   exec-fds`), passed on byte for byte as they arrive: a line that looks like icsim's or SimGrid's
 *   own messages is the program's and is neither lost nor believed;
 * - SimGrid's log (the adapter points SimGrid's root appender at ICSIM_LOG_FD): the deadlock report
 *   and the assertions that stop SimGrid (a program SMPI cannot load), summarized here, the rest
 *   passed on;
 * - smpirun's own shell (its command echo and "Execution failed" on failure, the shell's report of
 *   a signal), replaced by icsim's own summary.
 * The verdicts themselves come from the status file the simulation claimed (runtime.h) and the
 * exit status: "exit N", "end", "deadlock", or death by a signal. */
struct stderr_filter {
  int deadlock;  /* SimGrid's log began a deadlock report */
  char when[64];
  char *blocked; /* "rank 0 on node0.s0 in MPI_Recv; ..." (the first BLOCKED_LISTED) */
  size_t blen;
  int nblocked;
  char *report; /* the report verbatim: printed as it was if the status file does not say deadlock */
  size_t rlen;
  char *load_error; /* SMPI could not load the program (a library missing, no main): why */
  int simgrid_stopped; /* SimGrid's log said it stopped on an assertion (CRITICAL) */
  /* The program's stderr from a line in the form of SimGrid's backtrace on, held to the end: SimGrid
   * writes its backtrace to the stderr it shares with the program when an assertion stops it (no
   * program code has run when that is a load failure). Printed whole unless SimGrid's own log
   * says it stopped so. */
  char *held;
  size_t hlen;
  int err_bol; /* the program's stderr is at the start of a line */
};

/* "Segmentation fault", "Aborted (core dumped)"...: how smpirun's shell reports that the simulation
 * died of a signal. */
static int looks_like_signal_report(const char *line)
{
  for (int s = 1; s < 32; s++) {
    const char *name = strsignal(s);
    size_t n = strlen(name);
    if (strncmp(line, name, n) == 0 &&
        (!strcmp(line + n, "\n") || !strcmp(line + n, ".\n") || !strcmp(line + n, " (core dumped)\n")))
      return s;
  }
  return 0;
}

static void append(char **buf, size_t *len, const char *s, size_t n)
{
  char *grown = realloc(*buf, *len + n + 1);
  if (!grown)
    return; /* out of memory: the summary loses detail, never the run's status */
  memcpy(grown + *len, s, n);
  *len += n;
  grown[*len] = '\0';
  *buf = grown;
}

static void write_all_fd(int fd, const char *s, size_t n)
{
  while (n > 0) {
    ssize_t w = write(fd, s, n);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      return; /* the reader went away (a closed pipe): nothing more to pass on */
    s += w;
    n -= (size_t)w;
  }
}

/* Blocked ranks named one by one in a deadlock report; the rest are counted. */
#define BLOCKED_LISTED 16

/* One line of SimGrid's log (its own channel). */
static void log_line(struct stderr_filter *f, const char *line)
{
  /* SMPI failing to dlopen the program, or to find its main: one reason, no backtrace */
  const char *why = strstr(line, "dlopen failed: ");
  if (!why && strstr(line, "Could not resolve entry point"))
    why = "the program has no main function";
  if (why && !f->load_error) {
    if (!strncmp(why, "dlopen failed: ", 15))
      why += 15;
    f->load_error = strndup(why, strcspn(why, "\n"));
    char *cut = f->load_error ? strstr(f->load_error, " (errno:") : NULL;
    if (cut)
      *cut = '\0';
    f->simgrid_stopped = 1;
    return;
  }
  if (f->load_error && !strncmp(line, "Error: Did you compile", 22))
    return;
  if (strstr(line, "Deadlock detected") || strstr(line, "Oops! Deadlock")) {
    f->deadlock = 1;
    append(&f->report, &f->rlen, line, strlen(line));
    const char *b = strchr(line, '[');
    if (b)
      sscanf(b + 1, "%63[^]]", f->when);
    return;
  }
  if (f->deadlock) {
    append(&f->report, &f->rlen, line, strlen(line));
    /* "[t] [ker_engine/INFO] Actor 1 (0@node0.s0): waiting for communication activity ..." */
    const char *actor = strstr(line, "Actor ");
    int pid, rank;
    char host[128] = "", what[256] = "";
    int parsed = actor && sscanf(actor, "Actor %d (%d@%127[^)]): %255[^\n]", &pid, &rank, host, what) == 4;
    /* a rank blocked in the MPI layer's progress engine shows the simcall it waits in */
    if (!parsed && actor && sscanf(actor, "Actor %d (%d@%127[^)]) simcall %255[^\n]", &pid, &rank, host, what) == 4) {
      parsed = 1;
      if (strstr(what, "Wait") || strstr(what, "Comm"))
        snprintf(what, sizeof what, "waiting for communication");
    }
    if (parsed && f->nblocked++ >= BLOCKED_LISTED)
      return; /* a thousand ranks in one line help nobody: counted, not listed */
    if (parsed) {
      char *act = strstr(what, " activity");
      if (act)
        *act = '\0'; /* keep "waiting for communication", drop the pointer */
      char buf[512];
      int n = snprintf(buf, sizeof buf, "%srank %d on %s %s", f->blen ? "; " : "", rank, host, what);
      append(&f->blocked, &f->blen, buf, (size_t)n);
    }
    return; /* the rest of SimGrid's dump is summarized */
  }
  /* SMPI's warning for a non-zero return: icsim's exit status says it */
  if (strstr(line, "SMPI process did not return 0"))
    return;
  if (strstr(line, "/CRITICAL]"))
    f->simgrid_stopped = 1;
  fputs(line, stderr);
}

/* One line of smpirun's shell: its echo of the command and "Execution failed with code N." when the
 * simulation fails, the shell's report of the signal it died of: all replaced by icsim's summary. */
static void shell_line(const char *line)
{
  if (strstr(line, "--cfg=smpi/privatization") || !strncmp(line, "Execution failed with code", 26) ||
      !strncmp(line, "Generated unrolled hostfile", 27) || looks_like_signal_report(line))
    return;
  fputs(line, stderr);
}

/* A chunk of the program's stderr: passed on as it came, unless from a line in the form of
 * SimGrid's backtrace on (held, see struct stderr_filter). */
static void program_err(struct stderr_filter *f, const char *s, size_t n)
{
  static const char mark[] = "Backtrace (displayed in actor ";
  size_t i = 0;
  while (!f->held && i < n) {
    /* a line start whose text may be the mark (a mark cut across two chunks is passed on: SimGrid
     * writes its backtrace in one piece) */
    if (f->err_bol && n - i >= sizeof mark - 1 && !memcmp(s + i, mark, sizeof mark - 1))
      break;
    f->err_bol = s[i] == '\n';
    i++;
  }
  write_all_fd(2, s, i);
  if (i < n)
    append(&f->held, &f->hlen, s + i, n - i);
}

/* Lines of a line-parsed stream: hand over complete lines; at end of stream (EOF), the rest. */
static void lines(char **buf, size_t *len, int eof, void (*each)(void *, const char *), void *arg)
{
  char *start = *buf, *end = *buf + *len;
  while (start < end) {
    char *nl = memchr(start, '\n', (size_t)(end - start));
    if (!nl && !eof)
      break;
    char *stop = nl ? nl + 1 : end;
    char saved = *stop;
    *stop = '\0';
    each(arg, start);
    *stop = saved;
    start = stop;
  }
  *len = (size_t)(end - start);
  memmove(*buf, start, *len);
}

static void each_log(void *f, const char *line) { log_line(f, line); }
static void each_shell(void *f, const char *line) { (void)f; shell_line(line); }

/* Relay the four streams (fd -1: not there) until all close. */
static void relay(int out, int errfd, int shell, int log, int out_fd, struct stderr_filter *filt)
{
  struct pollfd fds[4] = {{out, POLLIN, 0}, {errfd, POLLIN, 0}, {shell, POLLIN, 0}, {log, POLLIN, 0}};
  char *buf[4] = {NULL, NULL, NULL, NULL};
  size_t len[4] = {0, 0, 0, 0};
  int open_fds = 0;
  for (int i = 0; i < 4; i++)
    open_fds += fds[i].fd >= 0;
  filt->err_bol = 1;
  while (open_fds > 0) {
    if (poll(fds, 4, -1) < 0) {
      if (errno == EINTR)
        continue;
      break;
    }
    for (int i = 0; i < 4; i++) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
        continue;
      char chunk[65536];
      ssize_t n = read(fds[i].fd, chunk, sizeof chunk);
      if (n < 0 && errno == EINTR)
        continue;
      int eof = n <= 0;
      if (eof) {
        close(fds[i].fd);
        fds[i].fd = -1;
        open_fds--;
        n = 0;
      }
      if (i == 0) { /* the program's stdout: as it came */
        write_all_fd(out_fd, chunk, (size_t)n);
        continue;
      }
      if (i == 1) {
        program_err(filt, chunk, (size_t)n);
        continue;
      }
      append(&buf[i], &len[i], chunk, (size_t)n);
      if (buf[i])
        lines(&buf[i], &len[i], eof, i == 2 ? each_shell : each_log, filt);
    }
  }
  for (int i = 0; i < 4; i++)
    free(buf[i]);
}

/* What the simulation noted in the ICSIM_STATUS file: "exit N" (the layer ended the process
 * with status N on purpose), "end" or "deadlock" (the simulation ran to its end). */
struct run_notes {
  int exit_status; /* -1 when none */
  int ended, deadlocked;
};

static void read_notes(const char *path, struct run_notes *n)
{
  n->exit_status = -1;
  n->ended = n->deadlocked = 0;
  FILE *f = fopen(path, "r");
  char line[128];
  while (f && fgets(line, sizeof line, f)) {
    int v;
    if (sscanf(line, "exit %d", &v) == 1 && n->exit_status < 0)
      n->exit_status = v;
    n->ended |= strcmp(line, "end\n") == 0;
    n->deadlocked |= strcmp(line, "deadlock\n") == 0;
  }
  if (f)
    fclose(f);
}

/* Move the stats the adapter wrote into DIR to the user's --stats target, once the run is over. */
static int deliver_stats(const char *from, const char *target, char *err, size_t errlen)
{
  FILE *f = fopen(from, "r");
  if (!f) {
    snprintf(err, errlen, "--stats %s: the simulation wrote no statistics", target);
    return -1;
  }
  char *text = NULL;
  size_t cap = 0, len = 0, n;
  char chunk[65536];
  while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
    if (len + n > cap)
      text = realloc(text, cap = (len + n) * 2);
    memcpy(text + len, chunk, n);
    len += n;
  }
  fclose(f);
  int rc = icsim_output_write("--stats", target, text ? text : "", len, err, errlen);
  free(text);
  return rc;
}

int launch_smpirun(const struct run_request *rq, int out_fd, char *err, size_t errlen)
{
  char dir[PATH_MAX];
  if (icsim_scratch_mkdtemp("icsim-run-XXXXXX", dir, sizeof dir)) {
    snprintf(err, errlen, "cannot create a temporary folder %s: %s (set TMPDIR to a writable folder)", dir,
             strerror(errno));
    return -1;
  }
  /* The adapter writes the statistics into our folder; they replace the target only after a run
   * that went to its end, so an interrupted or failed run leaves the previous file as it was. */
  char hostfile[PATH_MAX + 16], stats[PATH_MAX + 16], notes[PATH_MAX + 16], trace[PATH_MAX + 16];
  snprintf(hostfile, sizeof hostfile, "%s/hostfile", dir);
  snprintf(trace, sizeof trace, "%s/trace", dir);
  snprintf(stats, sizeof stats, "%s/stats.json", dir);
  snprintf(notes, sizeof notes, "%s/status", dir);
  struct run_request inner = *rq;
  inner.stats = rq->stats ? stats : NULL;
  inner.trace = rq->trace ? trace : NULL; /* streamed into our folder, moved to the target at the end */
  char **argv, **env;
  if (build_smpirun(&inner, hostfile, &argv, &env, NULL, err, errlen)) {
    icsim_scratch_remove(dir);
    return -1;
  }
  /* the user's targets, once build_smpirun has read every input (none may be an output) */
  if ((rq->stats && icsim_output_check("--stats", rq->stats, err, errlen)) ||
      (rq->trace && check_trace(rq, err, errlen))) {
    free_strv(argv);
    free_strv(env);
    icsim_scratch_remove(dir);
    return -1;
  }
  /* The channels (see struct stderr_filter): 0 the program's stdout, 1 its stderr, 2 smpirun's shell,
   * 3 SimGrid's log. The simulation gets 0 and 1 as its stdout and stderr through `icsim exec-fds`
   * (smpirun's -wrapper), unless icsim's own path cannot be given to smpirun (it splits the
   * wrapper at blanks): then the program shares the shell's stdout and stderr, as before. */
  int pp[4][2] = {{-1, -1}, {-1, -1}, {-1, -1}, {-1, -1}};
  char self[PATH_MAX] = "";
  ssize_t sl = readlink("/proc/self/exe", self, sizeof self - 1);
  self[sl > 0 ? sl : 0] = '\0';
  int wrap = self[0] && !strpbrk(self, " \t\n");
  int np = 0;
  for (int i = 0; i < 4; i++)
    if (wrap || i == 0 || i == 1 || i == 3)
      np += pipe(pp[i]) == 0;
  if (np < (wrap ? 4 : 3)) {
    snprintf(err, errlen, "pipe: %s", strerror(errno));
    for (int i = 0; i < 4; i++)
      for (int k = 0; k < 2; k++)
        if (pp[i][k] >= 0)
          close(pp[i][k]);
    free_strv(argv);
    free_strv(env);
    icsim_scratch_remove(dir);
    return -1;
  }
  if (wrap) { /* -wrapper "ICSIM exec-fds [the wrapper build_smpirun chose]" */
    int at = -1, n = 0;
    for (char **a = argv; *a; a++, n++)
      if (!strcmp(*a, "-wrapper") && a[1])
        at = (int)(a - argv) + 1;
    char *w;
    if (asprintf(&w, "%s exec-fds%s%s", self, at >= 0 ? " " : "", at >= 0 ? argv[at] : "") < 0)
      abort();
    if (at >= 0) {
      free(argv[at]);
      argv[at] = w;
    } else { /* after "smpirun": -wrapper W */
      argv = realloc(argv, (size_t)(n + 3) * sizeof *argv);
      memmove(argv + 3, argv + 1, (size_t)n * sizeof *argv);
      argv[1] = strdup("-wrapper");
      argv[2] = w;
    }
  }
  fflush(stdout);
  sigset_t saved;
  icsim_scratch_hold(&saved); /* registered before any signal can act on it */
  pid_t pid = fork();
  if (pid == 0) {
    icsim_scratch_release(&saved);
    /* fixed descriptors above the shell's (smpirun's script uses 3; dash keeps its own >= 10 free of
     * ours), handed on as ICSIM_FDS and ICSIM_LOG_FD */
    enum { FD_OUT = 40, FD_ERR = 41, FD_LOG = 42, FD_SHELL = 43 };
    int want[4] = {FD_OUT, FD_ERR, FD_SHELL, FD_LOG};
    for (int i = 0; i < 4; i++)
      if (pp[i][0] >= 0)
        close(pp[i][0]);
    for (int i = 0; i < 4; i++) /* out of the way of the fixed numbers first */
      if (pp[i][1] >= 0) {
        int moved = fcntl(pp[i][1], F_DUPFD, 50);
        close(pp[i][1]);
        pp[i][1] = moved;
      }
    for (int i = 0; i < 4; i++)
      if (pp[i][1] >= 0) {
        dup2(pp[i][1], want[i]);
        close(pp[i][1]);
      }
    dup2(wrap ? FD_SHELL : FD_OUT, 1);
    dup2(wrap ? FD_SHELL : FD_ERR, 2);
    if (wrap) {
      close(FD_SHELL);
      char fds[32];
      snprintf(fds, sizeof fds, "%d,%d", FD_OUT, FD_ERR);
      setenv(ICSIM_ENV_FDS, fds, 1);
    } else {
      close(FD_OUT);
      close(FD_ERR);
    }
    for (char **e = env; *e; e++)
      putenv(*e);
    char logfd[16];
    snprintf(logfd, sizeof logfd, "%d", FD_LOG);
    setenv(ICSIM_ENV_LOG_FD, logfd, 1);
    setenv(ICSIM_ENV_STATUS, notes, 1);
    setenv("TMPDIR", dir, 1); /* smpirun's own temporary copies go with ours */
    execvp("smpirun", argv);
    fprintf(stderr, "icsim: cannot start smpirun: %s (install simgrid)\n", strerror(errno));
    _exit(127);
  }
  if (pid > 0)
    icsim_scratch_child(pid);
  icsim_scratch_release(&saved);
  for (int i = 0; i < 4; i++)
    if (pp[i][1] >= 0)
      close(pp[i][1]);
  if (pid < 0) {
    snprintf(err, errlen, "fork: %s", strerror(errno));
    for (int i = 0; i < 4; i++)
      if (pp[i][0] >= 0)
        close(pp[i][0]);
    free_strv(argv);
    free_strv(env);
    icsim_scratch_remove(dir);
    return -1;
  }
  struct stderr_filter filt = {0};
  relay(pp[0][0], pp[1][0], pp[2][0], pp[3][0], out_fd, &filt);
  int status;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
    ;
  icsim_scratch_child_done(pid);
  struct run_notes nt;
  read_notes(notes, &nt);
  int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  int signal_death = !WIFEXITED(status) || (nt.exit_status < 0 && !nt.ended && !nt.deadlocked && code > 128 &&
                                            code < 128 + 32);
  /* what the program wrote to stderr from a line like SimGrid's backtrace on: SimGrid's own when its
   * log says an assertion stopped it (the program's code then never ran: a load failure), else the
   * program's, printed whole */
  if (filt.held && !(filt.simgrid_stopped && !nt.ended))
    write_all_fd(2, filt.held, filt.hlen);
  free(filt.held);
  if (filt.load_error && !nt.ended) {
    fprintf(stderr,
            "icsim: SimGrid could not load the program: %s; check that every library it needs is found "
            "(`ldd %s`, LD_LIBRARY_PATH), or rebuild it with icsimcc\n",
            filt.load_error, rq->program[0]);
    code = 2;
  } else if (nt.exit_status >= 0) {
    code = nt.exit_status; /* MPI_Abort, exit() ending the process: the layer said why */
    if (filt.report && !nt.deadlocked)
      fputs(filt.report, stderr);
  } else if (nt.deadlocked) { /* said by the simulation, never by the program's text */
    char more[96] = "";
    if (filt.nblocked > BLOCKED_LISTED)
      snprintf(more, sizeof more, "; and %d more ranks (%d blocked in all)", filt.nblocked - BLOCKED_LISTED,
               filt.nblocked);
    fprintf(stderr,
            "icsim: the program deadlocked (simulated time %s s): no rank can progress. Blocked: %s%s.\n"
            "icsim: look for a receive without a matching send, blocking sends to each other larger than the "
            "eager threshold, or a rank that ended while others still wait for it.%s\n",
            filt.when[0] ? filt.when : "?", filt.blocked ? filt.blocked : "(no details)", more,
            filt.blocked && strstr(filt.blocked, "synchronization")
                ? "\nicsim: a rank \"waiting for synchronization\" may be spinning on SkifCh_Recv of a channel no rank "
                  "left running will send to (its empty polls are skipped until an arrival that cannot come)"
                : "");
    if (code == 0)
      code = 3;
  } else {
    if (filt.report) /* a deadlock report the simulation did not confirm: SimGrid's words as they were */
      fputs(filt.report, stderr);
    if (signal_death) {
      char what[64];
      snprintf(what, sizeof what, "%s", strsignal(code - 128));
      what[0] = (char)tolower((unsigned char)what[0]);
      fprintf(stderr,
              "icsim: the program crashed (%s, exit status %d); to debug, print the command with "
              "`icsim run --dry-run` and add -gdb after smpirun\n",
              what, code);
    }
  }
  free(filt.report);
  if (rq->stats) {
    char serr[2048];
    if (!nt.ended)
      fprintf(stderr, "icsim: --stats %s not written: the simulation did not run to its end\n", rq->stats);
    else if (deliver_stats(stats, rq->stats, serr, sizeof serr)) {
      fprintf(stderr, "icsim: %s\n", serr);
      if (code == 0)
        code = 2;
    }
  }
  if (rq->trace) {
    char terr[2048];
    if (nt.deadlocked && !icsim_output_copy("--trace", rq->trace, trace, terr, sizeof terr))
      fprintf(stderr, "icsim: --trace %s written up to the deadlock: each rank's last state is the call it is "
                      "stuck in\n", rq->trace);
    else if (!nt.ended)
      fprintf(stderr, "icsim: --trace %s not written: the simulation did not run to its end\n", rq->trace);
    else if (icsim_output_copy("--trace", rq->trace, trace, terr, sizeof terr)) {
      fprintf(stderr, "icsim: %s\n", terr);
      if (code == 0)
        code = 2;
    }
  }
  free(filt.blocked);
  free(filt.load_error);
  icsim_scratch_remove(dir);
  free_strv(argv);
  free_strv(env);
  return code;
}

static void usage(FILE *f)
{
  fprintf(f,
          "usage: icsim run -p PLATFORM.yaml -n N [options] [--] PROGRAM [ARGS...]\n"
          "Runs an MPI program built with icsimcc on a simulated platform; prints its output.\n"
          "  -p, --platform FILE    platform description (platforms/*.yaml)\n"
          "  -n, --np N             number of MPI ranks\n"
          "      --place SPEC       block (default), cyclic, NxC (e.g. 2x4: 2 nodes x 4 cores) or\n"
          "                         one node per rank (e.g. 0,0,1,1), or a configuration file\n"
          "                         (lines: rank device module; see sim/placement_file.h)\n"
          "      --set KEY=VALUE    override a parameter (see `icsim describe -p FILE`)\n"
          "      --stats FILE.json  write per-stack counters\n"
          "      --trace FILE       write the run's timeline: per rank, each MPI call the program\n"
          "                         made, the stacks' CPU costs inside it (call, send, recv, poll cpu)\n"
          "                         and declared computation, on simulated time\n"
          "      --trace-format F   paje (default: ViTE, pj_dump) or chrome (Trace Event JSON:\n"
          "                         Perfetto, chrome://tracing)\n"
          "      --breakdown        print, per rank and in total, where the simulated time went: the\n"
          "                         program's own code, declared computation, each layer's CPU cost\n"
          "                         by kind, polls, and the time blocked in MPI (they sum to each\n"
          "                         rank's time; --stats has the totals under \"breakdown\")\n"
          "      --host-timing on|off  charge the program's own computation by timing it on this\n"
          "                         machine (SMPI benchmarking; default on). off: only modelled costs,\n"
          "                         results identical run to run\n"
          "      --every-poll       simulate every failed try of a spinning wait one by one. By\n"
          "                         default (host timing off) a rank that polls the same empty SkifCh\n"
          "                         channel again, or retries a refused send at once, sleeps until it can\n"
          "                         succeed and is charged the tries it would have made: the same\n"
          "                         figures in far fewer simulation steps\n"
          "      --progress SECONDS print a progress line to stderr every SECONDS of wall time\n"
          "                         (transfers simulated, simulated time, rate): long runs\n"
          "      --dry-run          print the smpirun command instead of running it\n"
          "Exit status is the program's.\n");
}

int cmd_run(int argc, char **argv)
{
  struct run_request rq = {.place = "block", .host_timing = true};
  bool dry = false;
  char err[2048];
  static const struct option opts[] = {{"platform", required_argument, 0, 'p'}, {"np", required_argument, 0, 'n'},
                                       {"place", required_argument, 0, 'P'},    {"set", required_argument, 0, 's'},
                                       {"stats", required_argument, 0, 'S'},    {"dry-run", no_argument, 0, 'd'},
                                       {"host-timing", required_argument, 0, 'H'}, {"help", no_argument, 0, 'h'},
                                       {"progress", required_argument, 0, 'G'},
                                       {"trace", required_argument, 0, 'T'},
                                       {"trace-format", required_argument, 0, 'F'},
                                       {"breakdown", no_argument, 0, 'B'},
                                       {"every-poll", no_argument, 0, 'E'},
                                       {0, 0, 0, 0}};
  int c;
  optind = 1;
  while ((c = getopt_long(argc, argv, "+p:n:h", opts, NULL)) != -1) {
    switch (c) {
    case 'p': rq.platform = optarg; break;
    case 'n': {
      static const struct icsim_cli_num d = {"-n", ICSIM_DIM_NONE, 1, 1 << 20, true, "8", "the number of ranks", false};
      double n;
      if (icsim_cli_number(&d, optarg, &n, err, sizeof err)) {
        fprintf(stderr, "icsim run: %s\n", err);
        return 2;
      }
      rq.nranks = (int)n;
      break;
    }
    case 'P': rq.place = optarg; break;
    case 's':
      rq.sets = realloc(rq.sets, (size_t)(rq.nsets + 1) * sizeof *rq.sets);
      rq.sets[rq.nsets++] = optarg;
      break;
    case 'S': rq.stats = optarg; break;
    case 'T': rq.trace = optarg; break;
    case 'F': rq.trace_format = optarg; break;
    case 'B': rq.breakdown = true; break;
    case 'E': rq.every_poll = true; break;
    case 'd': dry = true; break;
    case 'H':
      if (strcmp(optarg, "on") && strcmp(optarg, "off")) {
        fprintf(stderr, "icsim run: --host-timing %s: write on or off\n", optarg);
        return 2;
      }
      rq.host_timing = strcmp(optarg, "on") == 0;
      break;
    case 'G': {
      /* wall seconds; a bare number is taken as seconds, as before */
      static const struct icsim_cli_num ds = {"--progress", ICSIM_DIM_TIME, 0.001, 1e6, false, "10s",
                                              "the wall time between progress lines", false},
                                        dn = {"--progress", ICSIM_DIM_NONE, 0.001, 1e6, false, "10",
                                              "the wall seconds between progress lines", false};
      double v;
      if (icsim_cli_number(strspn(optarg, "0123456789.") == strlen(optarg) ? &dn : &ds, optarg, &v, err,
                           sizeof err)) {
        fprintf(stderr, "icsim run: %s\n", err);
        return 2;
      }
      rq.progress_s = v;
      break;
    }
    case 'h': usage(stdout); return 0;
    default: usage(stderr); return 2;
    }
  }
  if (!rq.platform || rq.nranks == 0) {
    fprintf(stderr, "icsim run: %s is required\n", !rq.platform ? "-p PLATFORM.yaml" : "-n N");
    usage(stderr);
    return 2;
  }
  if (rq.trace_format && !rq.trace) {
    fprintf(stderr, "icsim run: --trace-format %s: give --trace FILE too (the file the timeline goes to)\n",
            rq.trace_format);
    return 2;
  }
  rq.program = argv + optind;
  int code;
  if (dry) {
    /* A stable hostfile so that the printed command keeps working after we exit. */
    char hostfile[PATH_MAX];
    const char *tmp = getenv("TMPDIR");
    unsigned long h = 1469598103934665603UL; /* FNV-1a of what decides the mapping */
    char key[PATH_MAX + 64];
    snprintf(key, sizeof key, "%s|%s|%d", rq.platform, rq.place, rq.nranks);
    for (const char *k = key; *k; k++)
      h = (h ^ (unsigned char)*k) * 1099511628211UL;
    snprintf(hostfile, sizeof hostfile, "%s/icsim-%d-%016lx.hosts", tmp ? tmp : "/tmp", (int)getuid(), h);
    char **sargv, **env, *note;
    if (build_smpirun(&rq, hostfile, &sargv, &env, &note, err, sizeof err)) {
      fprintf(stderr, "icsim run: %s\n", err);
      free(rq.sets);
      return 2;
    }
    if (note) /* what the layer that took the program says of it (the adaptor: the ABI, its libraries) */
      fputs(note, stdout);
    free(note);
    for (char **e = env; *e; e++) {
      char *eq = strchr(*e, '=');
      printf("%.*s=", (int)(eq - *e + 0), *e);
      print_quoted(stdout, eq + 1);
      putchar(' ');
    }
    for (char **a = sargv; *a; a++) {
      print_quoted(stdout, *a);
      putchar(a[1] ? ' ' : '\n');
    }
    free_strv(sargv);
    free_strv(env);
    code = 0;
  } else {
    code = launch_smpirun(&rq, 1, err, sizeof err);
    if (code < 0) {
      fprintf(stderr, "icsim run: %s\n", err);
      code = 2;
    }
  }
  free(rq.sets);
  return code;
}
