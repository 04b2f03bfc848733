/* The shared libraries a program needs, found as the dynamic loader would find them: its DT_NEEDED
 * names, each looked up through DT_RPATH (of the object and the objects that loaded it, when the
 * object has no DT_RUNPATH), LD_LIBRARY_PATH, DT_RUNPATH, /etc/ld.so.cache and the system folders,
 * $ORIGIN expanded; a name already found is not looked up again (ld.so matches it to the loaded
 * object). Used by `icsim run` to see which MPI the whole tree was built against and which
 * libraries call it (program.c). */
#ifndef ICSIM_ELF_DEPS_H
#define ICSIM_ELF_DEPS_H

#include <stddef.h>

struct elf_obj {
  char *name;   /* the DT_NEEDED name that brought it in (the program: its path) */
  char *path;   /* the file it resolves to; NULL when none was found */
  int parent;   /* the object whose DT_NEEDED first named it; -1 for the program */
  int *needs;   /* indices of the objects its DT_NEEDED names, in order */
  int nneeds;
  int leaf;     /* not descended into (the caller's `stop` said so, or not found) */
};

struct elf_tree {
  struct elf_obj *obj; /* obj[0] is the program */
  int n;
};

/* At most this many objects in one tree (far above any real program: a guard against loops of
 * odd files). */
#define ELF_TREE_MAX 4096

/* Read the tree of PROGRAM. LIBRARY_PATH is the LD_LIBRARY_PATH the simulator will see (may be
 * NULL). STOP(name) != 0 keeps the object of that DT_NEEDED name a leaf (an MPI library, which the
 * adaptor replaces). Returns 0, or -1 with ERR (an unreadable program). */
int elf_tree_read(const char *program, const char *library_path, int (*stop)(const char *name),
                  struct elf_tree *t, char *err, size_t errlen);
void elf_tree_free(struct elf_tree *t);

#endif
