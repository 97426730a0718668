/* What the files of the reference share (not for its users). */
#ifndef PP_REFERENCE_INTERNAL_H
#define PP_REFERENCE_INTERNAL_H

#include <stddef.h>

/* malloc that never returns NULL: out of memory ends the program with a
 * message (reference.c). */
void *ref_xmalloc(size_t bytes);

#endif
