#ifndef CHEAP_H
#define CHEAP_H
#include <stddef.h>

/// Bytes the malloc heap has handed out and not taken back (glibc's mallinfo2 uordblks + hblkhd); 0 elsewhere.
size_t cheap_heap_in_use(void);

#endif
