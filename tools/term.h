/* SPDX-License-Identifier: MIT */
/* term.h — terminal manners: the width of the terminal a line goes to, and colour for the verdict words
 * only on a terminal, never with NO_COLOR (https://no-color.org: set and not empty) or TERM=dumb. */
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

#endif
