"""Validates a JUnit XML file against Jenkins' junit-10.xsd with the third-party
`xmlschema` package, and reads it with the third-party `xunitparser` package
(which asserts that the root's counts match the test cases and that no
property name repeats). Prints JSON: the schema errors (element path and
reason) and what xunitparser understood."""
import json
import sys

try:
    import xmlschema
    import xunitparser
except ImportError as e:
    sys.exit(f"{e}: run `cargo xtask test`, which installs xmlschema==4.3.2 and xunitparser==1.3.4 into target/py-venv")

xml_path, xsd_path = sys.argv[1], sys.argv[2]
schema = xmlschema.XMLSchema10(xsd_path)
errors = []
for e in schema.iter_errors(xml_path):
    errors.append({"path": e.path, "reason": e.reason})

with open(xml_path, "rb") as f:
    suite, result = xunitparser.parse(f)
print(json.dumps({
    "errors": errors,
    "xunitparser": {
        "tests": result.testsRun,
        "failures": len(result.failures),
        "skipped": len(result.skipped),
        "properties": suite.properties,
    },
}))
