/* The gate every path and number icsim takes goes through, and the run's verdicts (issue 39, items
 * 3 to 5), one test per rule, each on the command line as a user would meet it:
 * - a file read must be a regular file: a FIFO (which used to hang icsim), a device, a folder are
 *   refused at once, whatever command reads them;
 * - an output that is one of the run's inputs (by name, symbolic link or hard link) is refused and
 *   the input left as it was;
 * - a message about a long path keeps its reason and its fix;
 * - what a program prints passes through byte for byte, even when it looks like icsim's, SimGrid's
 *   or smpirun's own messages, and never changes the exit status;
 * - numbers out of their range are refused before anything runs, naming the option, the range and
 *   an example.
 * ICSIM_UNDER_TEST=path/to/icsim runs them against another build (they all fail on the build
 * before this gate). */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "progs/fake_verdicts.h"
#include "shell.h"

#define SCORE ICSIM_SRC "/platforms/score-gige-xeon.yaml"
#define SMPO ICSIM_SRC "/platforms/vniief-smpo.yaml"
#define PROGS ICSIM_BUILD "/tests/progs"

static const char *icsim(void)
{
  const char *other = getenv("ICSIM_UNDER_TEST");
  return other && *other ? other : ICSIM_BUILD "/bin/icsim";
}

/* A private folder with copies of the inputs the tests name (so that a gate that fails overwrites a
 * copy, never the sources). */
static char dir[64];

static void sh(const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  char *cmd;
  if (vasprintf(&cmd, fmt, ap) < 0)
    abort();
  va_end(ap);
  char *out;
  int rc = run(cmd, &out, 1);
  cr_assert_eq(rc, 0, "%s: %s", cmd, out);
  free(out);
  free(cmd);
}

static void setup(void)
{
  snprintf(dir, sizeof dir, "/tmp/icsim-test-gate-XXXXXX");
  cr_assert(mkdtemp(dir));
  sh("cd %s && cp " SCORE " score.yaml && cp " SMPO " smpo.yaml && cp " PROGS "/exit7 prog && mkfifo fifo && "
     "chmod +x fifo && cp " ICSIM_SRC "/stacks/smpo/placement-near.conf place.conf && "
     "printf '# icsim communication pattern (smpo/record-pattern): ranks 4\\n0 1 10 4096\\n1 0 10 4096\\n"
     "2 3 5 1024\\n3 2 5 1024\\n' > mg.pattern",
     dir);
}

static void teardown(void)
{
  sh("rm -rf %s", dir);
}

/* Run `icsim ARGS` in the private folder, at most 20 s (a command that blocks fails, never hangs
 * the suite); expect STATUS and each NULL-terminated needle in its merged output. */
static char *expect(int status, const char *args, ...)
{
  char *cmd;
  if (asprintf(&cmd, "cd %s && timeout 20 %s %s </dev/null", dir, icsim(), args) < 0)
    abort();
  va_list ap;
  va_start(ap, args);
  char *out = run_expecting(cmd, status, ap);
  va_end(ap);
  free(cmd);
  return out;
}

#define RUN "run -n 2 --host-timing off "
#define NOT_REGULAR "not a regular file"

TestSuite(gate, .init = setup, .fini = teardown, .timeout = 240);

/* A FIFO nobody writes to (open() would wait for a writer forever), a terminal or device, a folder:
 * refused by every command that reads a file, before anything runs. */
Test(gate, special_files_are_refused_at_once)
{
  free(expect(2, RUN "-p fifo ./prog", "-p fifo: a pipe (FIFO), " NOT_REGULAR, NULL));
  free(expect(2, RUN "-p /dev/stdin ./prog", "-p /dev/stdin: a character device, " NOT_REGULAR, NULL));
  free(expect(2, RUN "-p . ./prog", "-p .: a folder, " NOT_REGULAR, NULL));
  free(expect(2, RUN "-p score.yaml --place fifo ./prog", "--place fifo: a pipe (FIFO), " NOT_REGULAR, NULL));
  free(expect(2, RUN "-p score.yaml ./fifo", "program", "fifo: a pipe (FIFO), " NOT_REGULAR, NULL));
  free(expect(2, "describe -p fifo", "fifo: a pipe (FIFO), " NOT_REGULAR, NULL));
  free(expect(2, "sweep fifo --list", "fifo: a pipe (FIFO), " NOT_REGULAR, NULL));
  free(expect(2, "place -p fifo -n 2 --msg 1KiB", "fifo: a pipe (FIFO), " NOT_REGULAR, NULL));
  free(expect(2, "place -p smpo.yaml -n 4 --pattern-file fifo", "fifo: a pipe (FIFO), " NOT_REGULAR, NULL));
  free(expect(2, "sweep " ICSIM_SRC "/stacks/rapidio/queues.sweep.yaml --out sw --task-list fifo --task 0",
              "--task-list fifo: a pipe (FIFO), " NOT_REGULAR, NULL));
}

/* The file an output would replace is compared with every input by device and inode: its own
 * name, a symbolic link and a hard link to an input are all refused, and the input kept. */
Test(gate, an_input_is_never_an_output)
{
  sh("cd %s && ln score.yaml hard.yaml && ln -s place.conf link.conf && cp score.yaml score.orig && "
     "cp place.conf place.orig && cp prog prog.orig && cp mg.pattern mg.orig && cp smpo.yaml smpo.orig",
     dir);
  const char *inputs = "one of this run's inputs";
  free(expect(2, RUN "-p score.yaml --stats score.yaml ./prog", "--stats score.yaml", inputs, NULL));
  free(expect(2, RUN "-p score.yaml --trace hard.yaml ./prog", "--trace hard.yaml", inputs, NULL));
  free(expect(2, "run -n 8 --host-timing off -p smpo.yaml --place place.conf --stats link.conf ./prog", "--stats link.conf", inputs, NULL));
  free(expect(2, RUN "-p score.yaml --trace prog ./prog", "--trace prog", inputs, NULL));
  free(expect(2, RUN "-p score.yaml --dry-run --stats hard.yaml ./prog", inputs, NULL));
  free(expect(2, "place -p smpo.yaml -n 4 --pattern-file mg.pattern --write-best mg.pattern", inputs, NULL));
  free(expect(2, "place -p smpo.yaml -n 4 --pattern-file mg.pattern --write-best smpo.yaml", inputs, NULL));
  sh("cd %s && cmp score.yaml score.orig && cmp place.conf place.orig && cmp prog prog.orig && cmp mg.pattern mg.orig "
     "&& cmp smpo.yaml smpo.orig && test -L link.conf",
     dir);
}

/* A path too long to quote whole is shortened in the middle: the reason and the fix stay. */
Test(gate, a_long_path_keeps_its_reason)
{
  char longdir[4096] = "";
  for (int i = 0; i < 14; i++) /* 14 folders of 250 characters: 3500 in all, under PATH_MAX */
    snprintf(longdir + strlen(longdir), sizeof longdir - strlen(longdir), "/%0250d", i);
  char args[8192];
  snprintf(args, sizeof args, RUN "-p /tmp%s/platform.yaml ./prog", longdir);
  char *out = expect(2, args, "cannot open (No such file or directory); check the path", "platform.yaml", NULL);
  cr_assert_lt(strlen(out), 400, "the message quotes the whole path:\n%s", out);
  free(out);
  snprintf(args, sizeof args, RUN "-p score.yaml --stats /tmp%s/run.json ./prog", longdir);
  out = expect(2, args, "does not exist", "create it first", "run.json", NULL);
  cr_assert_lt(strlen(out), 600, "the message quotes the whole path:\n%s", out);
  free(out);
  snprintf(args, sizeof args, "sweep /tmp%s/study.sweep.yaml --list", longdir);
  free(expect(2, args, "cannot open (No such file or directory); check the path", NULL));
}

/* Run fake_verdicts with ARGS, its stdout and stderr into files; returns the exit status. */
static int fake(const char *args, char **out, size_t *nout, char **err, size_t *nerr)
{
  char *cmd;
  if (asprintf(&cmd, "cd %s && timeout 60 %s " RUN "-p score.yaml " PROGS "/fake_verdicts %s >o.txt 2>e.txt", dir,
               icsim(), args) < 0)
    abort();
  int st = system(cmd);
  free(cmd);
  const char *names[2] = {"o.txt", "e.txt"};
  char **bufs[2] = {out, err};
  size_t *lens[2] = {nout, nerr};
  for (int i = 0; i < 2; i++) {
    char path[128];
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    FILE *f = fopen(path, "rb");
    cr_assert(f);
    *bufs[i] = malloc(1 << 16);
    *lens[i] = fread(*bufs[i], 1, 1 << 16, f);
    fclose(f);
  }
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/* Lines in the form of icsim's verdicts, SimGrid's deadlock report and load failure, a crash
 * report, smpirun's failure echo: the program's own, passed on byte for byte, and the status is
 * the program's (the verdicts come from the simulation's own channel, which the program cannot
 * find either). */
Test(gate, program_text_is_never_a_verdict)
{
  const char *statuses[][2] = {{"", "0"}, {"5", "5"}};
  for (int i = 0; i < 2; i++) {
    char *out, *err;
    size_t nout, nerr;
    int st = fake(statuses[i][0], &out, &nout, &err, &nerr);
    cr_assert_eq(st, atoi(statuses[i][1]), "fake_verdicts %s: exit %d, expected %s; stderr:\n%.*s", statuses[i][0],
                 st, statuses[i][1], (int)nerr, err);
    size_t n = sizeof fake_verdicts_text - 1;
    cr_assert(nout == n && !memcmp(out, fake_verdicts_text, n), "stdout differs (%zu bytes, expected %zu):\n%.*s", nout,
              n, (int)nout, out);
    cr_assert(nerr == n && !memcmp(err, fake_verdicts_text, n), "stderr differs (%zu bytes, expected %zu):\n%.*s", nerr,
              n, (int)nerr, err);
    free(out);
    free(err);
  }
}

/* Numbers out of their descriptor's range are refused before any run, with the option, the range
 * and an example. */
Test(gate, numbers_out_of_range_are_refused)
{
  free(expect(2, "place -p score.yaml -n 2 --msg 1TiB", "--msg 1TiB: out of range", "from 1B to 1GiB",
              "e.g. --msg 1MiB", NULL));
  free(expect(2, "place -p score.yaml -n 2 --msg 0B", "--msg 0B: out of range", NULL));
  free(expect(2, "place -p score.yaml -n 8abc", "-n 8abc", "from 1 to 1048576", NULL));
  free(expect(2, "place -p score.yaml -n 2 --block 0", "--block 0: out of range", NULL));
  free(expect(2, "place -p smpo.yaml -n 4 --pattern-file mg.pattern --seed 99999999999", "--seed 99999999999: out of range",
              NULL));
  free(expect(2, "place -p score.yaml -n 16 --msg 1GiB", "of buffers, more than half", NULL));
  free(expect(2, RUN "-p score.yaml -n 99999999999 ./prog", "-n 99999999999: out of range", "from 1 to 1048576", NULL));
  free(expect(2, RUN "-p score.yaml --progress 2000000 ./prog", "--progress 2000000: out of range", NULL));
  free(expect(2, "calibrate-host --chase 1TiB", "--chase 1TiB: out of range", NULL));
  free(expect(2, "calibrate-host --placement 0 99999", "--placement 99999: out of range", NULL));
  free(expect(2, "sweep " ICSIM_SRC "/stacks/rapidio/queues.sweep.yaml --out sw --task-list x --task 99999999999",
              "--task 99999999999: out of range", NULL));
}
