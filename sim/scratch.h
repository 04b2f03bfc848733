/* Scratch folders and child processes of the icsim command, cleaned up whatever happens.
 *
 * A command (run, validate, sweep) creates its temporary folders here and registers the
 * simulations it starts. On SIGINT, SIGTERM, SIGHUP, SIGQUIT or SIGPIPE the handler passes the
 * signal on to the children (SIGTERM for SIGPIPE), waits for them, removes every registered folder
 * with everything in it, and dies of the same signal, so the caller sees 128 + n. Outputs meant
 * to survive are moved into place inside icsim_scratch_hold() / icsim_scratch_release(): a
 * signal arriving meanwhile acts once the move is complete. */
#ifndef ICSIM_SCRATCH_H
#define ICSIM_SCRATCH_H

#include <signal.h>
#include <stddef.h>
#include <sys/types.h>

/* Create a registered folder named TEMPLATE with XXXXXX replaced (mkdtemp); a template without
 * '/' goes into $TMPDIR (default /tmp). The path is written to OUT. Returns 0 or -1 with errno. */
int icsim_scratch_mkdtemp(const char *template, char *out, size_t len);
/* Remove folder DIR with everything in it and forget it. */
void icsim_scratch_remove(const char *dir);
/* A child whose lifetime the signal handler manages (forward, wait); forget it once reaped. */
void icsim_scratch_child(pid_t pid);
void icsim_scratch_child_done(pid_t pid);
/* Hold the termination signals over a section that must not be cut (moving outputs in place). */
void icsim_scratch_hold(sigset_t *saved);
void icsim_scratch_release(const sigset_t *saved);

#endif
