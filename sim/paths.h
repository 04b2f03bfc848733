/* The one gate for every path icsim reads or writes (issue 39, item 3).
 *
 * - A file read (platform, case, sweep, placement, pattern, program, published table) must be a
 *   regular file: anything else (a FIFO, /dev/stdin, a terminal, a folder, a device) is refused
 *   from its stat, before any open that could block; the open itself is non-blocking and checked
 *   again on the descriptor, so a file swapped for a FIFO meanwhile is refused too.
 * - Every file read is remembered by device and inode: an output (outfile.c asks) that is one of
 *   them, under its own name, through a symbolic link or a hard link, is refused before anything
 *   runs, instead of overwriting the input.
 * - Messages name a path shortened to its head and tail (icsim_path_short), so a long path never
 *   pushes the reason and the fix out of a bounded message buffer.
 * Outputs themselves are written by outfile.h (atomically, beside their target). */
#ifndef ICSIM_PATHS_H
#define ICSIM_PATHS_H

#include <stddef.h>
#include <stdio.h>
#include <sys/stat.h>

/* Longest path a message quotes whole; longer ones keep their head and tail around "...". */
#define ICSIM_PATH_SHOWN 96

/* PATH as a message should show it, in BUF (at least ICSIM_PATH_SHOWN + 1 bytes). Returns BUF. */
const char *icsim_path_short(const char *path, char *buf, size_t len);
/* The same into a rotating static buffer (8 slots): for a message naming a few paths at once. */
const char *icsim_path_shown(const char *path);

/* What an existing file of mode M is, for messages ("a pipe (FIFO)", "a folder"...). */
const char *icsim_path_kind(mode_t m);

/* Open PATH for reading as WHAT ("platform", "--place", "sweep file"): a regular file only,
 * refused before any blocking open; remembered as one of the run's inputs. Returns a descriptor
 * (close-on-exec, blocking again) or -1 with ERR: "WHAT PATH: REASON; FIX". */
int icsim_input_open(const char *what, const char *path, char *err, size_t errlen);
/* The same as a stdio stream ("r"). */
FILE *icsim_input_fopen(const char *what, const char *path, char *err, size_t errlen);
/* Check PATH the same way without reading it (a program, which SimGrid opens): 0 or -1 with ERR. */
int icsim_input_check(const char *what, const char *path, char *err, size_t errlen);

/* 0 when the file PATH would replace (PATH, or what its symbolic link names) is none of the inputs
 * read so far; -1 with ERR naming OPTION, the input and the fix. A missing PATH is no input. */
int icsim_output_not_input(const char *option, const char *path, char *err, size_t errlen);

/* Forget the input PATH: a file the command wrote itself and read back, before it removes or
 * rewrites it (icsim calibrate's batch files; its inode may be another file's afterwards). */
void icsim_input_forget(const char *path);
/* Forget the inputs (a command that loads several runs' inputs in turn, tests). */
void icsim_inputs_forget(void);

#endif
