#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# screens.py — what tests/cli/it_screens.sh asks of a captured 80-column screen:
#   screens.py check FILE NAME       no line over 80, no fio status line, the confidence as asked, the
#                                    verdict first (after the warnings a run prints before it starts)
#   screens.py shape FILE            the screen's kinds of lines, one letter a line (tests/screens/README.md)
#   screens.py bound TXT HTML NAME   one bound string per role: the table's cell, the report's reason, the
#                                    screen's reasons
# Exit status 0 when it holds (shape: always), 1 with FAIL lines.
import html
import re
import sys


def body(lines):
    """The screen without the warnings a run prints before it starts (wrapped: continued by "  ")."""
    i = 0
    while i < len(lines) and re.match(r'^etcd-fio \w+: warning: ', lines[i]):
        i += 1
        while i < len(lines) and lines[i].startswith('  '):
            i += 1
    return lines[i:]


def check(path, name):
    lines = open(path, encoding='utf-8').read().split('\n')
    bad = 0
    def fail(m):
        nonlocal bad
        print('FAIL: %s: %s' % (name, m)); bad += 1
    for i, l in enumerate(lines):
        if len(l.rstrip()) > 80:
            fail('line %d is %d columns: %s' % (i + 1, len(l.rstrip()), l))
        if re.search(r'Jobs: \d+ \(f=\d+\)|\[eta \d|\beta \d+m:\d+s', l):
            fail('a fio status line: %s' % l)
        if re.search(r'\d+\.\d+ %', l) and re.search(r'9\d\.\d+ %', l):
            fail('a confidence not as asked: %s' % l)
    first = next((l for l in body(lines) if l.strip()), '')
    if not re.match(r'^(pass|fail|unknown): ', first):
        fail('the first line is not the verdict: %s' % first)
    return 1 if bad else 0


def shape(path):
    out, table = [], False
    for l in body(open(path, encoding='utf-8').read().split('\n')):
        row = table and (re.match(r'^ +\d+ +[\d-]', l) or (re.match(r'^  \S', l) and ': ' not in l))
        if re.match(r'^(pass|fail|unknown): ', l): k = 'V'
        elif re.match(r'^ *(ROLE|JOB|HOST|clients) ', l): k = 'H'
        elif row: k = 'R'
        elif re.match(r'^  file: ', l): k = 'F'
        elif re.match(r'^  why: ', l): k = 'W'
        elif re.match(r'^ +-> ', l): k = 'A'
        elif re.match(r'^ +run: ', l): k = 'X'                # the next command to run
        elif re.match(r'^  \(\d+ more why: lines? with -v\)', l): k = 'M'
        elif re.match(r'^fleet: (pass|fail|unknown) \(\d+ hosts: ', l): k = 'T'  # fleet's count at the end
        elif re.match(r'^  \S', l): k = 'N'                   # a reason or note
        elif re.match(r'^ {3,}\S', l): k = 'C'                # a continuation
        elif l.strip() == '': k = '_'
        else: k = '?'
        table = k in 'HR' or (table and k == 'C')
        out.append(k)
    print(''.join(out).rstrip('_'))
    return 0


def bound(txt_path, html_path, name):
    txt, page = open(txt_path, encoding='utf-8').read(), open(html_path, encoding='utf-8').read()
    page = html.unescape(re.sub(r'<[^>]*>', ' ', page))
    B = r'(\d[\d.]* [mun]?s\.\.(?:\d[\d.]* [mun]?s|\?))'   # "5.14 ms..9.11 ms", "12.3 ms..?"
    rc, compared = 0, 0
    for role, label in (('WAL', 'WAL fdatasync'), ('backend', 'backend commit')):
        m = re.search(r'^  %s +\d+ .*?%s' % (role, B), txt, re.M)
        if not m:
            continue
        cell = m.group(1)
        # a bound belongs to the nearest role's label before it: the text between may hold no parenthesis
        # and no other label (a title "WAL fdatasync p99 …, backend commit p99 …" runs into the backend's
        # sentence without one)
        between = r'(?:(?!WAL fdatasync|backend commit)[^()])*?'
        cited = set(re.findall(label + r' p99 ' + between + r'\((?:\u2265 )?\d+ % bound ' + B, page))
        on_screen = set(re.findall(label + r' p99 ' + between + r'\((?:\u2265 )?\d+ % bound ' + B, txt))
        for where, got in (('the report', cited), ('the screen', on_screen)):
            if got and got != {cell}:
                print('FAIL: %s: %s bound %s in the table, %s in %s' % (name, role, cell, sorted(got), where)); rc = 1
        if cited:
            compared += 1
            print('ok: %s: %s bound %s in the table and the report' % (name, role, cell))
    if not compared:
        print('FAIL: %s: no bound of the table found in the report' % name); rc = 1
    for head in re.findall(r'BOUND [^\n]*?\d+ %', txt):
        if not re.match(r'BOUND (\u2265 )?95 %$', head):
            print('FAIL: %s: bound heading %s, not as asked' % (name, head)); rc = 1
    return rc


if __name__ == '__main__':
    cmd, args = sys.argv[1], sys.argv[2:]
    sys.exit({'check': check, 'shape': shape, 'bound': bound}[cmd](*args))
