#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# validate_json.py — validates etcd-fio --json outputs against doc/etcd-fio.schema.json with Debian's
# python3-jsonschema (tests only). Usage: validate_json.py FILE... ; exit 1 naming the file and the path.
import json, os, sys
import jsonschema
schema = json.load(open(os.path.join(os.path.dirname(__file__), '..', '..', 'doc', 'etcd-fio.schema.json')))
jsonschema.Draft7Validator.check_schema(schema)
v = jsonschema.Draft7Validator(schema)
bad = 0
for f in sys.argv[1:]:
    doc = json.load(open(f))
    for e in v.iter_errors(doc):
        print('%s: %s: %s' % (f, '/'.join(str(p) for p in e.absolute_path), e.message))
        bad = 1
sys.exit(bad)
