/* SPDX-License-Identifier: MIT */
/* term.c — see term.h. */
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "term.h"

int term_width(int fd)
{
    struct winsize ws;
    int w = 0;
    if (ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
        w = ws.ws_col;
    else if (getenv("COLUMNS"))
        w = atoi(getenv("COLUMNS"));
    if (w <= 0)
        w = 80;
    return w < 20 ? 20 : w;
}

int term_color(FILE *f)
{
    const char *nc = getenv("NO_COLOR"), *t = getenv("TERM");
    if (nc && nc[0])
        return 0;
    if (t && !strcmp(t, "dumb"))
        return 0;
    int fd = f ? fileno(f) : -1;
    return fd >= 0 && isatty(fd);
}

const char *term_verdict_on(int color, fior_verdict v)
{
    if (!color)
        return "";
    return v == FIOR_PASS ? "\033[32m" : v == FIOR_FAIL ? "\033[1;31m" : v == FIOR_UNKNOWN ? "\033[33m" : "";
}

const char *term_off(int color)
{
    return color ? "\033[0m" : "";
}
