#!/usr/bin/env python3
# Validates JSON files against a JSON Schema (the docs/*.schema.json; used by ctest).
#   python3 cmake/validate_json.py SCHEMA FILE...   every FILE against SCHEMA
#   python3 cmake/validate_json.py SCHEMA           only check that SCHEMA is a valid schema
# The schema's "$schema" picks the draft (2020-12 or 7). Prints one line per error,
# "FILE: JSON-PATH: message", and "FILE: valid" per valid file; exits 1 on any error
# (every file is still checked), 2 on bad usage. Needs only python3-jsonschema.
import json
import sys

import jsonschema
from jsonschema.exceptions import best_match


def load(path):
    """The JSON in path, or raises ValueError with a one-line reason."""
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except OSError as e:
        raise ValueError(f"cannot read: {e.strerror}") from None
    except json.JSONDecodeError as e:
        raise ValueError(f"not valid JSON: {e.msg} at line {e.lineno} column {e.colno}") from None


def messages(error):
    """The message of an error; for anyOf/oneOf, the most relevant sub-error's too."""
    if error.context:
        sub = best_match(error.context)
        return f"{error.message} (closest: {sub.json_path}: {sub.message})"
    return error.message


def main(argv):
    if len(argv) < 2 or argv[1].startswith("-"):
        print("usage: validate_json.py SCHEMA [FILE...]", file=sys.stderr)
        return 2
    schema_path, files = argv[1], argv[2:]
    try:
        schema = load(schema_path)
    except ValueError as e:
        print(f"{schema_path}: {e}")
        return 1
    if not isinstance(schema, dict) or "$schema" not in schema:
        print(f'{schema_path}: $: a schema must name its draft in "$schema"')
        return 1
    cls = jsonschema.validators.validator_for(schema, default=None)
    if cls is None:
        print(f"{schema_path}: $.$schema: unknown draft {schema['$schema']!r}")
        return 1
    try:
        cls.check_schema(schema)
    except jsonschema.SchemaError as e:
        print(f"{schema_path}: {e.json_path}: not a valid schema: {messages(e)}")
        return 1
    draft = cls.__name__.removeprefix("Draft").removesuffix("Validator")
    draft = {"202012": "2020-12", "201909": "2019-09"}.get(draft, draft)
    if not files:
        print(f"{schema_path}: valid JSON Schema (draft {draft})")
        return 0

    validator = cls(schema)
    failed = False
    for path in files:
        try:
            document = load(path)
        except ValueError as e:
            print(f"{path}: {e}")
            failed = True
            continue
        errors = sorted(validator.iter_errors(document), key=lambda e: ([(type(p).__name__, p) for p in e.path], e.message))
        for e in errors:
            print(f"{path}: {e.json_path}: {messages(e)}")
        failed |= bool(errors)
        if not errors:
            print(f"{path}: valid")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
