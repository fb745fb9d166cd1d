/* u8.h - one-character UTF-8 decoder shared by the command-line tools. */
#ifndef FOLDFS_TOOLS_U8_H
#define FOLDFS_TOOLS_U8_H

#include <stddef.h>
#include <stdint.h>

/* Decode the character at s[0..n): returns its length (1-4) and stores the
 * code point in *cp, or returns 0 if s does not start with a well-formed
 * character.  n must be at least 1. */
size_t u8_decode(const unsigned char *s, size_t n, uint32_t *cp);

#endif
