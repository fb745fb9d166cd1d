/* u8.h - one-character UTF-8 decoder and the rule for what is unsafe to
 * print, shared by everything that shows a name or a record field: the
 * command-line tools and the record's printer (common/record.c). */
#ifndef FOLDFS_TOOLS_U8_H
#define FOLDFS_TOOLS_U8_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Decode the character at s[0..n): returns its length (1-4) and stores the
 * code point in *cp, or returns 0 if s does not start with a well-formed
 * character.  n must be at least 1. */
size_t u8_decode(const unsigned char *s, size_t n, uint32_t *cp);

/* Whether cp would garble a terminal line or hide the true order of the
 * text: C0 and C1 controls, DEL, bidi marks, embeddings, overrides and
 * isolates, line and paragraph separators.  Printers escape these. */
int u8_unsafe(uint32_t cp);

/* The longest u8_escape1() output: four bytes as \xNN each. */
#define U8_ESC_MAX 16

/* The printable form of the character at s[0..n) (n >= 1) into out
 * (U8_ESC_MAX bytes, not terminated): the character itself, "\\" for a
 * backslash, or \xNN for each byte of an unsafe character or of one byte
 * of ill-formed UTF-8.  Returns the output's length; *used is how many
 * bytes of s it stands for. */
size_t u8_escape1(const unsigned char *s, size_t n, char *out, size_t *used);

/* s[0..n) to f, every character as u8_escape1() gives it: one line of
 * printable text a terminal does not act on. */
void u8_fput_esc(FILE *f, const char *s, size_t n);

#endif
