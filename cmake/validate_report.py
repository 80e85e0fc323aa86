#!/usr/bin/env python3
"""Validates grader JSON reports against docs/report.schema.json (a ctest).
Usage: validate_report.py SCHEMA REPORT... ; exits 1 on the first invalid report."""
import json
import sys

import jsonschema

schema = json.load(open(sys.argv[1]))
jsonschema.Draft7Validator.check_schema(schema)
for path in sys.argv[2:]:
    report = json.load(open(path))
    errors = sorted(jsonschema.Draft7Validator(schema).iter_errors(report), key=str)
    for e in errors:
        print(f"{path}: {'/'.join(map(str, e.path))}: {e.message}")
    if errors:
        sys.exit(1)
    print(f"{path}: valid ({report['lesson']} {report['score']}/{report['max_score']}, passed={report['passed']})")
