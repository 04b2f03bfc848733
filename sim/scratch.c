/* Scratch folders and child processes, cleaned up on interruption (scratch.h).
 *
 * The signal handler may run at any moment, so it only uses async-signal-safe calls: kill,
 * waitpid, nanosleep, openat, getdents64, unlinkat, raise. The registry it reads is changed only
 * with those signals held, so the handler never sees a half-written entry. */
#define _GNU_SOURCE
#include "scratch.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { MAX_DIRS = 16, MAX_CHILDREN = 8 };
static char dirs[MAX_DIRS][PATH_MAX];
static pid_t children[MAX_CHILDREN];
static const int term_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE};
#define NSIGS (sizeof term_signals / sizeof term_signals[0])

/* A child gets this long to end after the forwarded signal before it is killed. */
static const int child_grace_ms = 10000;

struct linux_dirent64_ {
  unsigned long long d_ino;
  long long d_off;
  unsigned short d_reclen;
  unsigned char d_type;
  char d_name[];
};

/* Remove NAME under folder DIRFD, a folder's content first; async-signal-safe. Entries are
 * removed while the folder is being read, so it is read again until a pass finds nothing. */
static void remove_at(int dirfd, const char *name, int depth)
{
  if (unlinkat(dirfd, name, 0) == 0 || (errno != EISDIR && errno != EPERM))
    return;
  int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    return;
  char buf[4096];
  for (int found = 1; found && depth < 16;) {
    found = 0;
    lseek(fd, 0, SEEK_SET);
    long n;
    while ((n = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0)
      for (long off = 0; off < n;) {
        struct linux_dirent64_ *d = (struct linux_dirent64_ *)(buf + off);
        off += d->d_reclen;
        if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
          continue;
        remove_at(fd, d->d_name, depth + 1);
        found = 1;
      }
  }
  close(fd);
  unlinkat(dirfd, name, AT_REMOVEDIR);
}

static void remove_tree(const char *path) { remove_at(AT_FDCWD, path, 0); }

static void on_signal(int sig)
{
  int fwd = sig == SIGPIPE ? SIGTERM : sig; /* smpirun passes SIGTERM on to the simulation */
  for (int i = 0; i < MAX_CHILDREN; i++)
    if (children[i] > 0)
      kill(children[i], fwd);
  for (int i = 0; i < MAX_CHILDREN; i++) {
    if (children[i] <= 0)
      continue;
    int waited = 0;
    while (waitpid(children[i], NULL, WNOHANG) == 0) {
      if (waited >= child_grace_ms) {
        kill(children[i], SIGKILL);
        waitpid(children[i], NULL, 0);
        break;
      }
      struct timespec ts = {0, 10 * 1000 * 1000};
      nanosleep(&ts, NULL);
      waited += 10;
    }
  }
  for (int i = 0; i < MAX_DIRS; i++)
    if (dirs[i][0])
      remove_tree(dirs[i]);
  /* say so (the simulation says when, if it got the signal itself): write() is async-signal-safe */
  static const char *const names[] = {"SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT", "SIGPIPE"};
  for (size_t i = 0; i < NSIGS; i++)
    if (term_signals[i] == sig && sig != SIGPIPE) {
      static const char head[] = "icsim: interrupted (", tail[] = "): stopped, temporary files removed\n";
      ssize_t ignored = write(2, head, sizeof head - 1);
      ignored = write(2, names[i], strlen(names[i]));
      ignored = write(2, tail, sizeof tail - 1);
      (void)ignored;
    }
  signal(sig, SIG_DFL);
  sigset_t s;
  sigemptyset(&s);
  sigaddset(&s, sig);
  sigprocmask(SIG_UNBLOCK, &s, NULL);
  raise(sig);
  _exit(128 + sig); /* not reached unless the signal is ignored by default */
}

void icsim_scratch_hold(sigset_t *saved)
{
  sigset_t s;
  sigemptyset(&s);
  for (size_t i = 0; i < NSIGS; i++)
    sigaddset(&s, term_signals[i]);
  sigprocmask(SIG_BLOCK, &s, saved);
}

void icsim_scratch_release(const sigset_t *saved) { sigprocmask(SIG_SETMASK, saved, NULL); }

static void install(void)
{
  static int installed;
  if (installed)
    return;
  installed = 1;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  for (size_t i = 0; i < NSIGS; i++)
    sigaddset(&sa.sa_mask, term_signals[i]); /* one cleanup at a time */
  for (size_t i = 0; i < NSIGS; i++) {
    struct sigaction old;
    /* a signal the caller ignores (nohup, a background job's SIGINT) stays ignored */
    if (sigaction(term_signals[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
      continue;
    sigaction(term_signals[i], &sa, NULL);
  }
}

int icsim_scratch_mkdtemp(const char *template, char *out, size_t len)
{
  const char *tmp = getenv("TMPDIR");
  if (strchr(template, '/'))
    snprintf(out, len, "%s", template);
  else
    snprintf(out, len, "%s/%s", tmp && *tmp ? tmp : "/tmp", template);
  sigset_t saved;
  icsim_scratch_hold(&saved);
  install();
  int slot = -1;
  for (int i = 0; i < MAX_DIRS && slot < 0; i++)
    if (!dirs[i][0])
      slot = i;
  int rc = -1;
  if (slot < 0)
    errno = EMFILE;
  else if (strlen(out) >= PATH_MAX)
    errno = ENAMETOOLONG;
  else if (mkdtemp(out)) {
    snprintf(dirs[slot], PATH_MAX, "%s", out);
    rc = 0;
  }
  int e = errno;
  icsim_scratch_release(&saved);
  errno = e;
  return rc;
}

void icsim_scratch_remove(const char *dir)
{
  sigset_t saved;
  icsim_scratch_hold(&saved);
  char copy[PATH_MAX];
  snprintf(copy, sizeof copy, "%s", dir); /* DIR may be the registry's own string */
  for (int i = 0; i < MAX_DIRS; i++)
    if (!strcmp(dirs[i], copy))
      dirs[i][0] = '\0';
  remove_tree(copy);
  icsim_scratch_release(&saved);
}

void icsim_scratch_child(pid_t pid)
{
  sigset_t saved;
  icsim_scratch_hold(&saved);
  install();
  for (int i = 0; i < MAX_CHILDREN; i++)
    if (children[i] <= 0) {
      children[i] = pid;
      break;
    }
  icsim_scratch_release(&saved);
}

void icsim_scratch_child_done(pid_t pid)
{
  sigset_t saved;
  icsim_scratch_hold(&saved);
  for (int i = 0; i < MAX_CHILDREN; i++)
    if (children[i] == pid)
      children[i] = 0;
  icsim_scratch_release(&saved);
}
