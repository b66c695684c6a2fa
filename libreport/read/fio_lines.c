/* SPDX-License-Identifier: MIT */
/* fio_lines.c — fio's own lines, which any of its outputs may carry between or inside what a reader reads,
 * recognised the same way by every reader: "fio: terminating on signal N" (backend.c sig_int: fio stops
 * its jobs and prints their figures), "fio: pid=P, got signal=S" (a job process died) and the client's
 * "client: host=H disconnected" (client.c: a server it ran jobs on is gone). What each means for a job's
 * end is the run-end rule's (run_end.c). */
#include <stdio.h>
#include <string.h>

#include "internal.h"

int fior__sigline(const char *p, size_t n, size_t *len)
{
    static const char m[] = FIOR__SIGLINE;
    const size_t ml = sizeof m - 1;
    *len = 0;
    if (memcmp(p, m, n < ml ? n : ml))
        return 0;
    if (n < ml)
        return -1;
    size_t i = ml;
    int sig = 0;
    while (i < n && i < ml + 3 && p[i] >= '0' && p[i] <= '9')
        sig = sig * 10 + (p[i++] - '0');
    if (i == n)
        return -1;
    if (i == ml || sig == 0)
        return 0;
    if (p[i] == '\r' && ++i == n)
        return -1;
    if (p[i] != '\n')
        return 0;
    *len = i + 1;
    return sig;
}

int fior__got_signal_line(const char *p, long *pid)
{
    long pd;
    int sig, end = 0;
    /* the whole line: a job may be named "fio: pid=1, got signal=9" (its header goes on after the name) */
    if (sscanf(p, "fio: pid=%ld, got signal=%d%n", &pd, &sig, &end) == 2 && sig > 0 && !p[end]) {
        if (pid)
            *pid = pd;
        return sig;
    }
    return 0;
}

int fior__host_lost_line(const char *p)
{
    size_t n = strlen(p);
    static const char pre[] = "client: host=", suf[] = " disconnected";
    return n > sizeof pre + sizeof suf - 2 && !strncmp(p, pre, sizeof pre - 1) &&
           !strcmp(p + n - (sizeof suf - 1), suf) && !memchr(p + sizeof pre - 1, ' ', n - (sizeof pre - 1) - (sizeof suf - 1));
}
