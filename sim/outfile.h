/* Output files written whole or not at all: the content goes to a temporary file beside the
 * target, which is then renamed over it. A target that exists and is not a regular file (a
 * folder, a device such as /dev/full, a pipe) is refused, never replaced. Used by `icsim run
 * --stats`, the adapter's own stats writing, and any command that writes a result file. */
#ifndef ICSIM_OUTFILE_H
#define ICSIM_OUTFILE_H

#include <stddef.h>

/* Check that PATH can receive an output: its folder exists and takes a new file (probed by
 * creating and removing one), and PATH is absent or a regular file (a symbolic link is followed).
 * OPTION names the option in messages ("--stats"). Returns 0, or -1 with ERR saying what to do. */
int icsim_output_check(const char *option, const char *path, char *err, size_t errlen);

/* Write LEN bytes of DATA to PATH atomically (same checks as above). Termination signals are held
 * meanwhile, so an interruption leaves either the old file or the new one, and no temporary. */
int icsim_output_write(const char *option, const char *path, const char *data, size_t len, char *err,
                       size_t errlen);

/* The same with the contents of the file FROM (a long trace): moved when both are on one file
 * system, else streamed. FROM may be gone afterwards. */
int icsim_output_copy(const char *option, const char *path, const char *from, char *err, size_t errlen);

#endif
