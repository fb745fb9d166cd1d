/* u8.h - one-character UTF-8 decoder and the rule for what is unsafe to
 * print, shared by everything that shows a name or a record field: the
 * command-line tools and the record's printer (common/record.c). */
#ifndef FOLDFS_TOOLS_U8_H
#define FOLDFS_TOOLS_U8_H

#include <stddef.h>
#include <stdint.h>

/* Decode the character at s[0..n): returns its length (1-4) and stores the
 * code point in *cp, or returns 0 if s does not start with a well-formed
 * character.  n must be at least 1. */
size_t u8_decode(const unsigned char *s, size_t n, uint32_t *cp);

/* Whether cp would garble a terminal line or hide the true order of the
 * text: C0 and C1 controls, DEL, bidi marks, embeddings, overrides and
 * isolates, line and paragraph separators.  Printers escape these. */
int u8_unsafe(uint32_t cp);

#endif
