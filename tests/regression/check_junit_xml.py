"""gpumux check --junit: the file parses as XML (a real parser, xml.etree) and holds one
testcase per bound, classname the scenario, name the metric, a failure with value, bound and
note. Usage: check_junit_xml.py GPUMUX SCENARIO OUT_DIR (run from the source root)."""
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

gpumux, scenario, out_dir = sys.argv[1:4]
os.makedirs(out_dir, exist_ok=True)
junit = os.path.join(out_dir, "check.xml")
if os.path.exists(junit):
    os.remove(junit)
note = 'set by the test: <markup> & "quotes"'
bound = '/expect/jobs.rejected={"max": 0, "note": "%s"}' % note.replace('"', '\\"')
run = subprocess.run([gpumux, "check", scenario, "--set", bound, "--junit", junit],
                     capture_output=True, text=True)
assert run.returncode == 3, (run.returncode, run.stdout, run.stderr)
assert note in run.stdout, run.stdout  # the failure table names the note too

root = ET.parse(junit).getroot()
assert root.tag == "testsuites", root.tag
suites = root.findall("testsuite")
assert len(suites) == 1, len(suites)
suite = suites[0]
cases = suite.findall("testcase")
assert int(suite.get("tests")) == len(cases) == int(root.get("tests")), ET.tostring(root)
assert cases, "no testcases"
assert all(c.get("classname") == suite.get("name") for c in cases)
failed = [c for c in cases if c.find("failure") is not None]
assert [c.get("name") for c in failed] == ["jobs.rejected"], [c.get("name") for c in failed]
assert int(root.get("failures")) == int(suite.get("failures")) == 1
message = failed[0].find("failure").get("message")
assert message == "jobs.rejected = 10, bound <= 0: " + note, message
assert len({c.get("name") for c in cases}) == len(cases), "a metric twice"
print("ok: %d testcases, 1 failure: %s" % (len(cases), message))
