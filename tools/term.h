/* SPDX-License-Identifier: MIT */
/* term.h — terminal manners: the width of the terminal a line goes to, colour for the verdict words only
 * on a terminal, never with NO_COLOR (https://no-color.org: set and not empty) or TERM=dumb, and no
 * control character from an input ever reaching it. */
#ifndef ETCD_FIO_TERM_H
#define ETCD_FIO_TERM_H

#include <stdio.h>

#include "fioreport.h"

/* Columns of the terminal on fd (TIOCGWINSZ), else $COLUMNS, else 80; at least 20. */
int term_width(int fd);
/* 1 when f is a terminal and colour is not switched off. */
int term_color(FILE *f);
/* ANSI start sequence for a verdict word ("" when colour is off), and the reset. */
const char *term_verdict_on(int color, fior_verdict v);
const char *term_off(int color);

/* Text from an input (a job name, a path, a reason) made safe for a terminal: every control character
 * (C0, DEL, C1: ESC sequences could clear the screen or set its title) and every byte that is not valid
 * UTF-8 becomes '?'. term_clean copies into dst (n bytes; dst may be src: it never grows); term_puts writes. */
char *term_clean(char *dst, size_t n, const char *src);
/* Columns a UTF-8 text takes (one per character: no wide characters in our texts). */
int   term_cols(const char *s);
/* text (from an input: made safe) word-wrapped to width: the first line after `first`, the others after
 * `indent` spaces; a text that fits is written as it is (its spacing kept), a word wider than a line cut. */
void  term_wrap(FILE *f, const char *first, int indent, const char *text, int width);
void  term_puts(FILE *f, const char *s);

#endif
