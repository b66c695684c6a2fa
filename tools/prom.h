/* SPDX-License-Identifier: MIT */
/* prom.h — writer for node_exporter textfile-collector files (Prometheus text format 0.0.4). Samples are
 * collected first and written grouped by metric name (one HELP/TYPE each, as the format requires, even when
 * several label sets — e.g. one per fleet host — share a name). prom_write writes through outfile.h (temp
 * file created O_EXCL|O_NOFOLLOW beside FILE, fsynced, renamed over it), so the collector never reads a
 * half-written file. Label sets are free-form. Integral values are written exactly. */
#ifndef ETCD_FIO_PROM_H
#define ETCD_FIO_PROM_H

#include <stddef.h>

typedef struct prom_label {
    const char *name;
    const char *value;
} prom_label;

typedef struct prom_file prom_file;

prom_file *prom_new(void);
void       prom_free(prom_file *p);
/* type: "gauge" or "counter". Names are copied. Returns 0, or -1 on a bad metric/label name or no memory. */
int prom_add(prom_file *p, const char *name, const char *help, const char *type, const prom_label *labels,
             size_t nlabels, double value);
/* The text in a malloc'd buffer; 0 or -1 (out of memory). */
int prom_render(const prom_file *p, char **buf, size_t *len);
/* Writes everything to path atomically. 0, or -1 with a one-line message naming the file in err. */
int prom_write(const prom_file *p, const char *path, char *err, size_t errlen);

#endif
