"""Parses a JUnit XML file with the third-party `junitparser` package and prints
what it understood as JSON: per suite, per case, the result kind and message."""
import json
import sys

try:
    from junitparser import JUnitXml, Failure, Skipped, Error
except ImportError:
    sys.exit("the Python package junitparser is missing: python3 -m pip install junitparser==5.0.3")

xml = JUnitXml.fromfile(sys.argv[1])
out = {"time": xml.time, "tests": xml.tests, "failures": xml.failures, "skipped": xml.skipped, "errors": xml.errors, "suites": []}
for suite in xml:
    cases = []
    for case in suite:
        kinds = []
        for r in case.result:
            kind = "failure" if isinstance(r, Failure) else "skipped" if isinstance(r, Skipped) else "error" if isinstance(r, Error) else type(r).__name__
            kinds.append({"kind": kind, "message": r.message, "text": r.text})
        cases.append({"name": case.name, "classname": case.classname, "time": case.time, "results": kinds, "system_out": case.system_out})
    props = {p.name: p.value for p in suite.properties()}
    out["suites"].append({"name": suite.name, "tests": suite.tests, "failures": suite.failures, "skipped": suite.skipped, "time": suite.time, "properties": props, "cases": cases})
print(json.dumps(out))
