#!/usr/bin/env python3
"""The GitHub Actions workflows end to end (ctest grader.workflow).

1. Both workflows are parsed by a YAML parser and checked against
   docs/formats/github-workflow.schema.json and the rules below (pinned actions, no
   ${{ }} inside a script, the reporter reading the marking step's result).
2. The student repository's workflow (docs/release/.github/workflows/classroom.student.yml)
   runs as GitHub would run it, step by step, in a fresh student release
   (`grader dev release`): its install, build and marking scripts run with bash -eo
   pipefail and GITHUB_OUTPUT / GITHUB_STEP_SUMMARY files; checkout is the release itself,
   and the reporter is replaced by what GitHub Classroom's reporter does with the result
   (base64, JSON, points), checked against docs/formats/classroom.schema.json and against a
   `grader mark --json` of the same files. Marked: the solutions, the untouched exercise,
   and a repository whose grader does not run.
3. The instructor's matrix workflow (docs/ci/mark-class.yml): its shard and merge scripts
   run for a class of three with two shards, the shards uploaded without dot-entries as
   upload-artifact does; the merged gradebook must equal one batch of the whole class (but
   for each mark's seconds) and the summary byte for byte.

YAML parser: PyYAML where it is installed; otherwise Perl's core CPAN::Meta::YAML (a
YAML::Tiny subset, always there with Debian's perl), whose plain scalars are then typed as
YAML 1.2's core schema types them. That subset drops the indentation and the comment lines
inside block scalars (bash needs neither; the scripts have no here-documents); with both,
the trees must agree up to that.
  grader/tests/workflow_test.py build/dev/bin/grader .
"""
import base64
import csv
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import jsonschema

GRADER = os.path.realpath(sys.argv[1])
ROOT = os.path.realpath(sys.argv[2] if len(sys.argv) > 2 else ".")
LESSON = "lesson13"
STUDENT_WORKFLOW = "docs/release/.github/workflows/classroom.student.yml"
CLASS_WORKFLOW = "docs/ci/mark-class.yml"
failures = []


def check(name, ok, detail=""):
    print(("ok   " if ok else "FAIL ") + name + ("" if ok else f": {detail}"))
    if not ok:
        failures.append(name)
    return ok


# ---- parsing -------------------------------------------------------------------------

PERL = r"""local $/; my $y = CPAN::Meta::YAML->read_string(<STDIN>)
  or die CPAN::Meta::YAML->errstr; print JSON::PP->new->canonical->encode($y->[0])"""


def core_type(value):
    """A plain scalar as YAML 1.2's core schema types it (the subset parser gives strings)."""
    if isinstance(value, dict):
        return {k: core_type(v) for k, v in value.items()}
    if isinstance(value, list):
        return [core_type(v) for v in value]
    if value is None or value in ("~", "null"):
        return None
    if value in ("true", "false"):
        return value == "true"
    if re.fullmatch(r"[-+]?[0-9]+", value):
        return int(value)
    return value


def loose(value):
    """For comparing the two parsers: scalars as text, block scalars' lines without their
    indentation and without comment lines (both of which the subset parser drops)."""
    if isinstance(value, dict):
        return {k: loose(v) for k, v in value.items()}
    if isinstance(value, list):
        return [loose(v) for v in value]
    if value is None:
        return None
    text = str(value).lower() if isinstance(value, bool) else str(value)
    lines = (line.strip() for line in text.split("\n"))
    return "\n".join(line for line in lines if line and not line.startswith("#"))


def load_workflow(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    perl = subprocess.run(["perl", "-MCPAN::Meta::YAML", "-MJSON::PP", "-e", PERL],
                          input=text, capture_output=True, text=True)
    check(f"{os.path.basename(path)}: Perl's CPAN::Meta::YAML reads it", perl.returncode == 0,
          perl.stderr.strip())
    tree = core_type(json.loads(perl.stdout)) if perl.returncode == 0 else None
    try:
        import yaml
    except ImportError:
        return tree
    full = yaml.safe_load(text)
    # PyYAML reads YAML 1.1, where a bare `on` is the boolean true; the files quote it.
    check(f"{os.path.basename(path)}: PyYAML reads the same tree", tree is None or
          loose(full) == loose(tree), "the two parsers disagree")
    return full


def steps_of(job):
    return job.get("steps", [])


def structure(wf, name):
    schema = json.load(open(f"{ROOT}/docs/formats/github-workflow.schema.json", encoding="utf-8"))
    errors = sorted(jsonschema.Draft202012Validator(schema).iter_errors(wf), key=str)
    check(f"{name}: obeys github-workflow.schema.json", not errors,
          "; ".join(f"{list(e.absolute_path)}: {e.message}" for e in errors[:3]))
    for job_id, job in wf.get("jobs", {}).items():
        for s in steps_of(job):
            label = f"{name}: {job_id} / {s.get('name') or s.get('uses')}"
            if "uses" in s:
                check(f"{label}: the action is pinned to a major version",
                      re.search(r"@v[0-9]+$", s["uses"]) is not None, s["uses"])
            if "run" in s:
                # An expression in a script is pasted into it before bash runs: injection.
                check(f"{label}: no ${{{{ }}}} in the script (values come through env)",
                      "${{" not in s["run"], "an expression inside run")
    # A schema cannot say that `needs` names jobs that exist.
    for job_id, job in wf.get("jobs", {}).items():
        needs = job.get("needs", [])
        for n in [needs] if isinstance(needs, str) else needs:
            check(f"{name}: {job_id} needs {n}, a job of the workflow", n in wf["jobs"])


# ---- running steps -------------------------------------------------------------------


class Runner:
    """Runs a job's `run` steps as GitHub does: bash -eo pipefail, in the workspace, with
    the workflow's, the job's and the step's env, and the files GitHub gives each step."""

    def __init__(self, workflow, job, workspace, env=None):
        self.job, self.workspace = job, workspace
        self.base = dict(os.environ)
        self.base.update({k: str(v) for k, v in workflow.get("env", {}).items()})
        self.base.update({k: str(v) for k, v in job.get("env", {}).items()})
        self.base.update(env or {})
        self.outputs = {}
        self.summary = os.path.join(workspace, "..", "step-summary.md")

    def expand(self, value, matrix=None):
        def one(m):
            expr = m.group(1).strip()
            if (s := re.fullmatch(r"steps\.([\w-]+)\.outputs\.([\w-]+)", expr)):
                return self.outputs.get(s.group(1), {}).get(s.group(2), "")
            if (s := re.fullmatch(r"matrix\.([\w-]+)", expr)) and matrix is not None:
                return str(matrix[s.group(1)])
            raise ValueError(f"the test cannot evaluate ${{{{ {expr} }}}}")
        return re.sub(r"\$\{\{(.*?)\}\}", one, str(value))

    def run(self, step, matrix=None, log=None):
        assert step.get("shell", self.job.get("defaults", {}).get("run", {}).get("shell")) == "bash"
        out = tempfile.NamedTemporaryFile(delete=False, dir=os.path.dirname(self.summary))
        out.close()
        env = dict(self.base)
        env.update({k: self.expand(v, matrix) for k, v in step.get("env", {}).items()})
        env.update({"GITHUB_OUTPUT": out.name, "GITHUB_STEP_SUMMARY": self.summary,
                    "GITHUB_WORKSPACE": self.workspace, "CI": "true", "GITHUB_ACTIONS": "true"})
        with open(log or os.devnull, "a", encoding="utf-8") as f:
            rc = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
                                cwd=self.workspace, env=env, stdout=f, stderr=subprocess.STDOUT).returncode
        if step.get("id"):
            values = {}
            for line in open(out.name, encoding="utf-8"):
                if "=" in line:
                    k, v = line.rstrip("\n").split("=", 1)
                    values[k] = v
            self.outputs[step["id"]] = values
        os.unlink(out.name)
        return rc


def classroom_reporter(runner, step, schema):
    """What autograding-grading-reporter does: for each runner id, base64-decode the env
    variable <ID>_RESULTS and read the JSON; points are the sum of the tests' scores."""
    results = []
    env = {k: runner.expand(v) for k, v in step.get("env", {}).items()}
    for rid in [r.strip() for r in step["with"]["runners"].split(",")]:
        encoded = env.get(f"{rid.upper()}_RESULTS", "")
        result = json.loads(base64.b64decode(encoded, validate=True).decode("utf-8"))
        jsonschema.validate(result, schema)
        results.append(result)
    return results


def student_workflow(wf):
    name = "classroom.yml"
    structure(wf, name)
    jobs = wf.get("jobs", {})
    check(f"{name}: one job", len(jobs) == 1)
    job = next(iter(jobs.values()))
    steps = steps_of(job)
    on = wf.get("on", {})
    check(f"{name}: runs on push", isinstance(on, dict) and "push" in on)
    check(f"{name}: may write checks (the reporter's check run)",
          wf.get("permissions", {}).get("checks") == "write")
    check(f"{name}: runs in Debian 12, the course's platform", job.get("container") == "debian:12")
    check(f"{name}: the first step checks the repository out",
          steps and steps[0].get("uses", "").startswith("actions/checkout@"))
    readme = open(f"{ROOT}/docs/release/README.student.md", encoding="utf-8").read()
    runs = [s["run"].strip() for s in steps if "run" in s]
    check(f"{name}: installs and builds with the README's own commands",
          ".ci/install-deps" in runs and "cmake --workflow --preset default" in runs and
          ".ci/install-deps && cmake --workflow --preset default" in readme)
    reporter = [s for s in steps if s.get("uses", "").startswith(
        "classroom-resources/autograding-grading-reporter@")]
    ok = check(f"{name}: the last step is GitHub Classroom's reporter", reporter == steps[-1:])
    ids = [s.get("id") for s in steps]
    if ok:
        runners = [r.strip() for r in reporter[0].get("with", {}).get("runners", "").split(",")]
        for rid in runners:
            check(f"{name}: the reporter reads {rid.upper()}_RESULTS from step {rid}'s result",
                  rid in ids and reporter[0].get("env", {}).get(f"{rid.upper()}_RESULTS") ==
                  f"${{{{ steps.{rid}.outputs.result }}}}")
    return job, steps


def run_student_workflow(wf, job, steps, work):
    schema = json.load(open(f"{ROOT}/docs/formats/classroom.schema.json", encoding="utf-8"))
    repo = f"{work}/repo"
    rel = subprocess.run([GRADER, "dev", "release", LESSON, "--root", ROOT, "--out", repo],
                         capture_output=True, text=True)
    if not check("dev release writes the student repository", rel.returncode == 0, rel.stderr):
        return
    check("the release holds the workflow as .github/workflows/classroom.yml",
          open(f"{repo}/.github/workflows/classroom.yml", encoding="utf-8").read() ==
          open(f"{ROOT}/{STUDENT_WORKFLOW}", encoding="utf-8").read())
    files = [line.split()[2] for line in subprocess.run(
        [GRADER, "dev", "manifest", LESSON, "--all", "--root", ROOT],
        capture_output=True, text=True, check=True).stdout.splitlines()]
    for f in files:
        shutil.copy(f"{ROOT}/solutions/{LESSON}/{f}", f"{repo}/exercises/{LESSON}/{f}")
    runner = Runner(wf, job, repo)
    mark_step = None
    for s in steps:
        label = s.get("name") or s.get("uses")
        if s.get("uses", "").startswith("actions/checkout@"):
            continue  # the release is the checkout
        if "uses" in s:
            continue  # the reporter: below
        log = f"{work}/step-{len(runner.outputs)}-{re.sub(r'[^a-z]+', '-', label.lower())}.log"
        rc = runner.run(s, log=log)
        if not check(f"step '{label}' exits 0", rc == 0, open(log).read()[-1500:]):
            return
        if s.get("id"):
            mark_step = s
    reporter = steps[-1]

    def points(tag):
        [result] = classroom_reporter(runner, reporter, schema)
        return result, sum(t["score"] for t in result["tests"])

    # The solutions: the code items full marks, the questions graded at submission.
    result, total = points("solutions")
    mark = subprocess.run([f"{repo}/build/bin/grader", "mark", LESSON, f"exercises/{LESSON}",
                           "--allow-unconfined", "--lang", "en", "--json", f"{work}/mark.json"],
                          cwd=repo, capture_output=True, text=True)
    report = json.load(open(f"{work}/mark.json", encoding="utf-8"))
    code_max = sum(i["max_points"] for u in report["units"] for i in u["items"] if not i["at_submission"])
    check("solutions: the reporter's points equal grader mark's, every code item full",
          total == sum(u["score"] for u in report["units"]) == code_max and code_max > 0,
          f"{total} vs {[u['score'] for u in report['units']]}, code {code_max}")
    check("solutions: status pass, one test per item and one verdict per unit",
          result["status"] == "pass" and len(result["tests"]) ==
          sum(len(u["items"]) + 1 for u in report["units"]), result["status"])
    summary = open(runner.summary, encoding="utf-8").read() if os.path.exists(runner.summary) else ""
    feedback = open(f"{repo}/build/marks/feedback.md", encoding="utf-8").read()
    check("solutions: the feedback is on the run's page (GITHUB_STEP_SUMMARY)",
          len(feedback) > 100 and feedback in summary, summary[:200])

    # The README's build is the student's: the instructor's commands answer with one line.
    for argv in (["dev", "check", LESSON], ["batch", LESSON, "submissions", "--out", "marks"]):
        run = subprocess.run([f"{repo}/build/bin/grader", *argv], cwd=repo, capture_output=True,
                             text=True)
        command = " ".join(argv[:2] if argv[0] == "dev" else argv[:1])
        check(f"the student build: grader {command} is an instructor command (exit 2, one line)",
              run.returncode == 2 and run.stderr.count("\n") == 1 and
              "cmake --workflow --preset instructor" in run.stderr, f"{run.returncode} {run.stderr}")

    helps = subprocess.run([f"{repo}/build/bin/grader", "--help"], capture_output=True,
                           text=True).stdout.splitlines()
    check("the student build: --help marks batch and review as not in it",
          all(any(h.strip().startswith(c + " ") and h.endswith("--preset instructor]") for h in helps)
              for c in ("batch", "review")), "\n".join(helps[-12:]))

    # The untouched exercise: 0 points, status fail.
    for f in files:
        shutil.copy(f"{ROOT}/exercises/{LESSON}/{f}", f"{repo}/exercises/{LESSON}/{f}")
    rc = runner.run(mark_step, log=f"{work}/untouched.log")
    result, total = points("untouched")
    check("untouched: the marking step still exits 0, 0 points, status fail",
          rc == 0 and total == 0 and result["status"] == "fail", f"rc {rc}, {total}, {result['status']}")

    # A grader that does not run: the reporter still gets a valid result, an error.
    os.rename(f"{repo}/build/bin/grader", f"{repo}/build/bin/grader.away")
    rc = runner.run(mark_step, log=f"{work}/broken.log")
    result, total = points("broken")
    check("no grader: the marking step exits 0 and the result is an error the schema accepts",
          rc == 0 and result["status"] == "error" and total == 0, f"rc {rc}, {result}")
    os.rename(f"{repo}/build/bin/grader.away", f"{repo}/build/bin/grader")


def class_workflow(wf, work):
    name = "mark-class.yml"
    structure(wf, name)
    jobs = wf.get("jobs", {})
    mark, merge = jobs.get("mark", {}), jobs.get("merge", {})
    shards = mark.get("strategy", {}).get("matrix", {}).get("shard", [])
    check(f"{name}: the matrix lists shards 1..SHARDS",
          shards == list(range(1, int(wf.get("env", {}).get("SHARDS", 0)) + 1)), f"{shards}")
    check(f"{name}: merge needs mark, mark needs gather",
          merge.get("needs") == "mark" and mark.get("needs") == "gather")
    for job_name, job in (("mark", mark), ("merge", merge)):
        check(f"{name}: {job_name} builds the instructor's grader (grader batch is in it)",
              "cmake --workflow --preset instructor" in [s.get("run", "").strip() for s in steps_of(job)])
    mark_step = [s for s in steps_of(mark) if "batch" in s.get("run", "")]
    merge_step = [s for s in steps_of(merge) if "--merge" in s.get("run", "")]
    if not check(f"{name}: one marking and one merging script", len(mark_step) == len(merge_step) == 1):
        return
    # A class of three: the solutions, the untouched exercise, a solution with one blank undone.
    files = [line.split()[2] for line in subprocess.run(
        [GRADER, "dev", "manifest", LESSON, "--all", "--root", ROOT],
        capture_output=True, text=True, check=True).stdout.splitlines()]
    subs = f"{work}/class/submissions"
    for student, source in (("ada", "solutions"), ("bo", "exercises"), ("cy", "solutions")):
        os.makedirs(f"{subs}/{student}")
        for f in files:
            shutil.copy(f"{ROOT}/{source}/{LESSON}/{f}", f"{subs}/{student}/{f}")
    shutil.copy(f"{ROOT}/exercises/{LESSON}/online_softmax.cpp", f"{subs}/cy/online_softmax.cpp")
    # The build steps are the student workflow's, run above; here GRADER names this test's
    # grader, through a wrapper that points it at the course (the scripts run elsewhere)
    # and marks the exam unit only, to keep the test short (ctest grader.batch shards and
    # merges whole-lesson batches).
    wrapper = f"{work}/class/grader"
    # The shards and the one batch mark in the same warm trees (the suites' shared ones
    # under ctest): what is tested here is the sharding and the merge, not a cold build.
    trees = os.environ.get("COURSE_WARM_TREES") or f"{work}/class/trees"
    with open(wrapper, "w", encoding="utf-8") as f:
        f.write(f'#!/bin/sh\nunit=""\ncase " $* " in *" --merge "*) ;; *) unit="--unit exam --trees {trees}" ;; esac\n'
                f'exec "{GRADER}" "$@" --root "{ROOT}" $unit\n')
    os.chmod(wrapper, 0o755)
    env = {"GRADER": wrapper, "SHARDS": "2"}
    merged = f"{work}/class/merged"
    os.makedirs(merged)
    for shard in (1, 2):
        ws = f"{work}/class/shard{shard}"
        os.makedirs(ws)
        shutil.copytree(subs, f"{ws}/submissions")
        log = f"{work}/class/shard{shard}.log"
        rc = Runner(wf, mark, ws, env).run(mark_step[0], matrix={"shard": shard}, log=log)
        check(f"{name}: shard {shard}/2 marks (exit 0)", rc == 0, open(log).read()[-800:])
        # upload-artifact without hidden files: the worker trees stay behind.
        shutil.copytree(f"{ws}/marks-{shard}", f"{merged}/marks-{shard}",
                        ignore=lambda d, names: [n for n in names if n.startswith(".")])
    log = f"{work}/class/merge.log"
    rc = Runner(wf, merge, merged, env).run(merge_step[0], log=log)
    check(f"{name}: the merge (exit 0)", rc == 0, open(log).read()[-800:])
    one = subprocess.run([wrapper, "batch", LESSON, subs, "--out", f"{work}/class/one", "--jobs", "2",
                          "--require-sandbox", "restricted", "--lang", "en"],
                         capture_output=True, text=True)
    check(f"{name}: one batch of the class (exit 0)", one.returncode == 0, one.stderr[-500:])

    def without_seconds(path):  # each mark's wall time is the one column a grade does not decide
        if not os.path.exists(path):
            return None
        rows = list(csv.reader(open(path, encoding="utf-8", newline="")))
        at = rows[0].index("seconds")
        return [r[:at] + r[at + 1:] for r in rows]
    a, b = without_seconds(f"{merged}/marks/gradebook.csv"), without_seconds(f"{work}/class/one/gradebook.csv")
    check(f"{name}: the merged gradebook is the one batch's (all but the seconds column)",
          a == b and a is not None and len(a) == 4, f"{a} vs {b}")
    a = open(f"{merged}/marks/summary.md", encoding="utf-8").read() if os.path.exists(f"{merged}/marks/summary.md") else None
    check(f"{name}: the merged summary.md is the one batch's, byte for byte",
          a == open(f"{work}/class/one/summary.md", encoding="utf-8").read())


def main():
    student = load_workflow(f"{ROOT}/{STUDENT_WORKFLOW}")
    klass = load_workflow(f"{ROOT}/{CLASS_WORKFLOW}")
    work = tempfile.mkdtemp(prefix="workflow-test-")
    try:
        if student is not None:
            job, steps = student_workflow(student)
            if not failures:
                run_student_workflow(student, job, steps, work)
        if klass is not None:
            class_workflow(klass, work)
    finally:
        if os.environ.get("KEEP_WORK"):
            print("work kept in", work)
        else:
            shutil.rmtree(work, ignore_errors=True)
    print(f"workflow: {'PASS' if not failures else f'{len(failures)} failures'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
