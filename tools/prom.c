/* SPDX-License-Identifier: MIT */
/* prom.c — node_exporter textfile writer (see prom.h). */
#include "prom.h"

#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct prom_sample {
    char  *name, *help, *type;
    char  *labels; /* already rendered: {a="b",c="d"} or "" */
    double value;
} prom_sample;

struct prom_file {
    prom_sample *s;
    size_t n, cap;
};

prom_file *prom_new(void) { return calloc(1, sizeof(prom_file)); }

void prom_free(prom_file *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->n; i++) {
        free(p->s[i].name);
        free(p->s[i].help);
        free(p->s[i].type);
        free(p->s[i].labels);
    }
    free(p->s);
    free(p);
}

static int valid_name(const char *n, int metric)
{
    if (!n || !*n)
        return 0;
    for (const char *c = n; *c; c++) {
        int ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || *c == '_' || (metric && *c == ':') ||
                 (c != n && *c >= '0' && *c <= '9');
        if (!ok)
            return 0;
    }
    return 1;
}

/* Label values escape backslash, double quote and newline; HELP text escapes backslash and newline. */
static void put_escaped(FILE *f, const char *v, int quote)
{
    for (; *v; v++) {
        if (*v == '\\')
            fputs("\\\\", f);
        else if (*v == '\n')
            fputs("\\n", f);
        else if (quote && *v == '"')
            fputs("\\\"", f);
        else
            fputc(*v, f);
    }
}

int prom_add(prom_file *p, const char *name, const char *help, const char *type, const prom_label *labels,
             size_t nlabels, double value)
{
    if (!p || !valid_name(name, 1))
        return -1;
    for (size_t i = 0; i < nlabels; i++)
        if (!valid_name(labels[i].name, 0) || !labels[i].value)
            return -1;
    if (p->n == p->cap) {
        size_t nc = p->cap ? p->cap * 2 : 32;
        prom_sample *ns = realloc(p->s, nc * sizeof *ns);
        if (!ns)
            return -1;
        p->s = ns;
        p->cap = nc;
    }
    char *lab = NULL;
    size_t lablen = 0;
    FILE *m = open_memstream(&lab, &lablen);
    if (!m)
        return -1;
    for (size_t i = 0; i < nlabels; i++) {
        fprintf(m, "%s%s=\"", i ? "," : "{", labels[i].name);
        put_escaped(m, labels[i].value, 1);
        fputc('"', m);
    }
    if (nlabels)
        fputc('}', m);
    fclose(m);
    prom_sample *s = &p->s[p->n];
    s->name = strdup(name);
    s->help = strdup(help ? help : "");
    s->type = strdup(type ? type : "gauge");
    s->labels = lab;
    s->value = value;
    if (!s->name || !s->help || !s->type || !s->labels) {
        free(s->name);
        free(s->help);
        free(s->type);
        free(s->labels);
        return -1;
    }
    p->n++;
    return 0;
}

static void put_value(FILE *f, double v)
{
    if (isnan(v))
        fputs("NaN", f);
    else if (isinf(v))
        fputs(v > 0 ? "+Inf" : "-Inf", f);
    else if (v == floor(v) && fabs(v) < 9007199254740992.0)
        fprintf(f, "%.0f", v); /* integers exact (Unix timestamps, counts): %.9g would round them */
    else
        fprintf(f, "%.9g", v);
}

int prom_render(const prom_file *p, char **buf, size_t *len)
{
    *buf = NULL;
    FILE *f = open_memstream(buf, len);
    char *done = calloc(p->n ? p->n : 1, 1);
    if (!f || !done) {
        if (f)
            fclose(f);
        free(done);
        free(*buf);
        *buf = NULL;
        return -1;
    }
    for (size_t i = 0; i < p->n; i++) {
        if (done[i])
            continue;
        fprintf(f, "# HELP %s ", p->s[i].name);
        put_escaped(f, p->s[i].help, 0);
        fprintf(f, "\n# TYPE %s %s\n", p->s[i].name, p->s[i].type);
        for (size_t j = i; j < p->n; j++) {
            if (done[j] || strcmp(p->s[j].name, p->s[i].name))
                continue;
            done[j] = 1;
            fprintf(f, "%s%s ", p->s[j].name, p->s[j].labels);
            put_value(f, p->s[j].value);
            fputc('\n', f);
        }
    }
    free(done);
    int bad = ferror(f);
    if (fclose(f) != 0 || bad) {
        free(*buf);
        *buf = NULL;
        return -1;
    }
    return 0;
}

int prom_write(const prom_file *p, const char *path, char *err, size_t errlen)
{
    char *buf;
    size_t len;
    if (prom_render(p, &buf, &len) != 0) {
        snprintf(err, errlen, "%s: out of memory", path);
        return -1;
    }
    int rc = outfile_write(path, buf, len, err, errlen);
    free(buf);
    return rc;
}
