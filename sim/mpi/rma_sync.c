/* The epochs of one-sided communication (MPI 4.0, 12.5), per rank and window, for the entry
 * bracket's checks: a synchronisation call that does not fit the epochs open (an unlock without a
 * lock, a second lock of one target, a complete without a start, a wait without a post, a window
 * freed in an epoch) or a one-sided operation outside any access epoch returns MPI_ERR_RMA_SYNC
 * through the window's error handler, as MPICH does (its errors/rma/win_sync_* tests). SMPI 3.32
 * checks none of it: it freed a locked window, unlocked what was never locked, and deadlocked on
 * nested epochs.
 *
 * Each rank has its own window object (SMPI makes one per member), so the object is the key. A
 * fence opens an epoch for the operations that follow unless its assertion says none will
 * (MPI_MODE_NOSUCCEED); a lock or a start ends it, as in MPICH. Nothing here sends a message or
 * takes simulated time. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks.h"

struct sync {
  MPI_Win win;
  int lock_all, started, posted, fence_open;
  int nlocked, cap;
  int *locked; /* the targets this rank holds a lock on */
  struct sync *next;
};
static struct sync *syncs;

static struct sync *find(MPI_Win win, int make)
{
  for (struct sync *s = syncs; s; s = s->next)
    if (s->win == win)
      return s;
  if (!make)
    return NULL;
  struct sync *s = calloc(1, sizeof *s);
  if (!s)
    return NULL;
  s->win = win;
  s->next = syncs;
  syncs = s;
  return s;
}

static int holds(const struct sync *s, int target)
{
  for (int i = 0; s && i < s->nlocked; i++)
    if (s->locked[i] == target)
      return 1;
  return 0;
}

static int in_epoch(const struct sync *s) { return s && (s->nlocked || s->lock_all || s->started || s->posted); }

static void fail(struct icsim_check *c, const char *why)
{
  if (!c->rc) {
    c->rc = MPI_ERR_RMA_SYNC;
    snprintf(c->what, sizeof c->what, "%s", why);
  }
}

void icsim_rma_sync_check(struct icsim_check *c, MPI_Win win, int target)
{
  if (c->rc || win == MPI_WIN_NULL)
    return;
  const struct sync *s = find(win, 0);
  const char *call = c->call + 4; /* after "MPI_" */
  if (!strcmp(call, "Win_lock")) {
    if (s && s->started)
      fail(c, "the window is in an access epoch of MPI_Win_start");
    else if (s && (s->lock_all || holds(s, target)))
      fail(c, "this rank already holds a lock on that target");
  } else if (!strcmp(call, "Win_unlock")) {
    if (!holds(s, target))
      fail(c, "this rank holds no lock on that target (MPI_Win_lock)");
  } else if (!strcmp(call, "Win_lock_all") || !strcmp(call, "Win_start")) {
    if (s && (s->lock_all || s->nlocked || s->started))
      fail(c, "the window is already in an access epoch");
  } else if (!strcmp(call, "Win_unlock_all")) {
    if (!s || !s->lock_all)
      fail(c, "no MPI_Win_lock_all epoch is open");
  } else if (!strcmp(call, "Win_complete")) {
    if (!s || !s->started)
      fail(c, "no MPI_Win_start epoch is open");
  } else if (!strcmp(call, "Win_post")) {
    if (s && s->posted)
      fail(c, "the window is already in an exposure epoch (MPI_Win_post)");
  } else if (!strcmp(call, "Win_wait") || !strcmp(call, "Win_test")) {
    if (!s || !s->posted)
      fail(c, "no MPI_Win_post epoch is open");
  } else if (!strcmp(call, "Win_fence") || !strcmp(call, "Win_free")) {
    if (in_epoch(s))
      fail(c, "the window is in a lock or post-start-complete-wait epoch");
  } else if (target != MPI_PROC_NULL) { /* a one-sided operation */
    if (!s || !(s->lock_all || s->started || s->fence_open || holds(s, target)))
      fail(c, "the window is in no access epoch for that target (MPI_Win_fence, _lock, _lock_all or _start)");
  }
}

void icsim_rma_sync_done(const char *fn, MPI_Win win, int target, int assert, int flag)
{
  const char *call = fn + 4;
  struct sync *s = find(win, 1);
  if (!s)
    return;
  if (!strcmp(call, "Win_lock")) {
    if (s->nlocked == s->cap) {
      int n = s->cap ? 2 * s->cap : 4;
      int *l = realloc(s->locked, (size_t)n * sizeof *l);
      if (!l)
        return;
      s->locked = l;
      s->cap = n;
    }
    s->locked[s->nlocked++] = target;
    s->fence_open = 0;
  } else if (!strcmp(call, "Win_unlock")) {
    for (int i = 0; i < s->nlocked; i++)
      if (s->locked[i] == target) {
        s->locked[i] = s->locked[--s->nlocked];
        break;
      }
  } else if (!strcmp(call, "Win_lock_all")) {
    s->lock_all = 1;
    s->fence_open = 0;
  } else if (!strcmp(call, "Win_unlock_all")) {
    s->lock_all = 0;
  } else if (!strcmp(call, "Win_start")) {
    s->started = 1;
    s->fence_open = 0;
  } else if (!strcmp(call, "Win_complete")) {
    s->started = 0;
  } else if (!strcmp(call, "Win_post")) {
    s->posted = 1;
  } else if (!strcmp(call, "Win_wait") || (!strcmp(call, "Win_test") && flag)) {
    s->posted = 0;
  } else if (!strcmp(call, "Win_fence")) {
    s->fence_open = !(assert & MPI_MODE_NOSUCCEED);
  }
}

void icsim_rma_sync_forget(MPI_Win win)
{
  for (struct sync **pp = &syncs; *pp; pp = &(*pp)->next)
    if ((*pp)->win == win) {
      struct sync *s = *pp;
      *pp = s->next;
      free(s->locked);
      free(s);
      return;
    }
}
