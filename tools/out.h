/* out.h — the three writers of the result model (result.h): the table people read, the JSON that
 * doc/etcd-fio.schema.json describes ("schema": 1, the same for check, fleet and verdict), and the
 * node_exporter textfile (one metric table for check and fleet: same names, labels {host, dir}). */
#ifndef ETCD_FIO_OUT_H
#define ETCD_FIO_OUT_H

#include <stdio.h>

#include "result.h"

/* First line "PASS: reason" (what a pod log shows first), then one row per job, the command's details,
 * and for several hosts a closing count line. */
void out_table(FILE *f, const rm_run *r);
/* One JSON object and a newline. 0, or -1 when out of memory. */
int  out_json(FILE *f, const rm_run *r);
/* The textfile in a malloc'd buffer; 0, or -1 (out of memory / invalid name). */
int  out_prom(const rm_run *r, char **buf, size_t *len);

/* Renders with one of the writers and writes the file safely (outfile.h). 0, or -1 with err. */
enum out_kind { OUT_JSON, OUT_PROM };
int  out_file(const char *path, enum out_kind kind, const rm_run *r, char *err, size_t errlen);

#endif
