"""The composite GitHub Action (action.yml) and its example workflow (docs/examples/hcp-plan.yml).

The action's run: steps take their inputs from env only, so they run here in bash as GitHub runs
them (bash --noprofile --norc -eo pipefail), on a scratch git repository, with the ${{ }} of each
step's env resolved from the inputs, the github context and earlier steps' outputs. Steps that
`uses:` another action are not run; their `with:` is checked instead. The SARIF produced is
checked against the structure SARIF 2.1.0 and code scanning require.

Environment: HCP_PLAN_TEST_BIN (the binary) and HCP_PLAN_SOURCE_DIR (the checkout).
"""
import json
import os
import pathlib
import re
import shutil
import subprocess

import pytest
import yaml

BIN = os.environ["HCP_PLAN_TEST_BIN"]
SRC = pathlib.Path(os.environ["HCP_PLAN_SOURCE_DIR"])
ACTION = yaml.safe_load((SRC / "action.yml").read_text())
WORKFLOW = yaml.safe_load((SRC / "docs" / "examples" / "hcp-plan.yml").read_text())
EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
DOTTED = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*(\.[A-Za-z_][A-Za-z0-9_-]*)*$")


def git(repo, *args):
    """Run git in repo; return its output."""
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=repo,
                          check=True, capture_output=True, text=True).stdout.strip()


@pytest.fixture
def repo(tmp_path):
    """A user's repository: two recipes (one broken), a non-recipe YAML, two commits; the second
    changes only recipes/good.yaml."""
    root = tmp_path / "repo"
    (root / "recipes").mkdir(parents=True)
    (root / "notes").mkdir()
    shutil.copy(SRC / "recipes" / "llama3_8b_128k.yaml", root / "recipes" / "good.yaml")
    shutil.copy(SRC / "tests" / "fixtures" / "report" / "bad_hcp.yaml", root / "recipes" / "bad.yaml")
    (root / "notes" / "other.yaml").write_text("title: not a recipe\n")
    (root / "README.md").write_text("recipes\n")
    git(root, "init", "-q", ".")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "first")
    first = git(root, "rev-parse", "HEAD")
    with open(root / "recipes" / "good.yaml", "a") as f:
        f.write("# tuned\n")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "second")
    second = git(root, "rev-parse", "HEAD")
    return {"root": root, "first": first, "second": second, "temp": tmp_path}


def resolve(text, context):
    """Replace every ${{ a.b.c }} in text from the nested context ("" when absent, as GitHub)."""
    def one(match):
        path = match.group(1)
        assert DOTTED.match(path), f"only plain context paths in env: {path}"
        value = context
        for part in path.split("."):
            value = value.get(part, "") if isinstance(value, dict) else ""
        return str(value)
    return EXPRESSION.sub(one, str(text))


def run_action(repo, inputs, event=None):
    """Run the action's run: steps in order; return (steps context, per-step results)."""
    values = {name: spec.get("default", "") for name, spec in ACTION["inputs"].items()}
    values.update(inputs)
    steps = {}
    context = {"inputs": values, "steps": steps,
               "github": {"action_path": str(SRC), "sha": repo["second"], "event": event or {}}}
    results = {}
    env_base = {k: v for k, v in os.environ.items() if k != "HCP_PLAN_BIN"}
    for index, step in enumerate(ACTION["runs"]["steps"]):
        key = step.get("id", str(index))
        if "uses" in step:
            results[key] = {"uses": step["uses"],
                            "with": {k: resolve(v, context) for k, v in step["with"].items()}}
            continue
        assert step["shell"] == "bash"
        assert "${{" not in step["run"], "run: scripts take inputs from env only"
        output = repo["temp"] / f"output_{index}"
        output.write_text("")
        script = repo["temp"] / f"step_{index}.sh"
        script.write_text(step["run"])
        env = dict(env_base, GITHUB_OUTPUT=str(output), RUNNER_TEMP=str(repo["temp"]))
        env.update({k: resolve(v, context) for k, v in step.get("env", {}).items()})
        done = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
                              cwd=repo["root"], env=env, capture_output=True, text=True,
                              timeout=120)
        outputs = dict(line.split("=", 1) for line in output.read_text().splitlines() if line)
        steps[key] = {"outputs": outputs}
        results[key] = {"code": done.returncode, "out": done.stdout, "err": done.stderr,
                        "outputs": outputs}
        if done.returncode != 0:
            break
    return steps, results


def check_sarif(path, repo_root):
    """The structure of SARIF 2.1.0 that code scanning's upload needs; return the results."""
    sarif = json.loads(pathlib.Path(path).read_text())
    assert sarif["version"] == "2.1.0"
    assert "sarif-2.1.0" in sarif["$schema"]
    assert len(sarif["runs"]) == 1
    run = sarif["runs"][0]
    driver = run["tool"]["driver"]
    assert driver["name"] == "hcp-plan"
    rules = driver.get("rules", [])
    assert all(isinstance(rule["id"], str) and rule["id"] for rule in rules)
    for result in run["results"]:
        assert isinstance(result["ruleId"], str) and result["ruleId"]
        assert result["level"] in ("error", "warning", "note", "none")
        assert result["message"]["text"]
        if "ruleIndex" in result:
            assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
        for location in result["locations"]:
            physical = location["physicalLocation"]
            uri = physical["artifactLocation"]["uri"]
            assert not uri.startswith("/") and (repo_root / uri).is_file(), uri
            region = physical.get("region", {})
            assert region.get("startLine", 1) >= 1
            assert region.get("startColumn", 1) >= 1
    return run["results"]


def test_action_and_workflow_are_valid():
    assert ACTION["runs"]["using"] == "composite"
    assert {"files", "args", "sarif-file", "upload-sarif", "fail-on-findings"} <= set(ACTION["inputs"])
    uses = [s for s in ACTION["runs"]["steps"] if "uses" in s]
    assert [s["uses"].split("@")[0] for s in uses] == ["github/codeql-action/upload-sarif"]
    # The workflow: a real trigger, the permission upload-sarif needs, a full-history checkout
    # (the diff), and only inputs the action declares.
    on = WORKFLOW[True] if True in WORKFLOW else WORKFLOW["on"]  # YAML 1.1 reads `on` as true
    assert {"pull_request", "push"} <= set(on)
    assert WORKFLOW["permissions"]["security-events"] == "write"
    steps = WORKFLOW["jobs"]["validate"]["steps"]
    assert steps[0]["uses"].startswith("actions/checkout@")
    assert steps[0]["with"]["fetch-depth"] == 0
    action_step = next(s for s in steps if "hcp-plan" in s.get("uses", ""))
    assert set(action_step["with"]) <= set(ACTION["inputs"])


def test_a_fake_changed_list_checks_only_its_recipes(repo):
    sarif = repo["temp"] / "out.sarif"
    steps, results = run_action(repo, {
        "hcp-plan-bin": BIN, "sarif-file": str(sarif), "args": "--world-size 32",
        "changed-files": "recipes/bad.yaml notes/other.yaml README.md recipes/deleted.yaml"})
    assert results["binary"]["outputs"]["bin"] == BIN
    assert results["binary"]["out"].startswith("hcp-plan ")
    listed = pathlib.Path(steps["changed"]["outputs"]["list"]).read_text().split()
    assert listed == ["recipes/bad.yaml"]
    assert steps["changed"]["outputs"]["count"] == "1"
    validate = results["validate"]
    assert validate["code"] == 0, validate["err"]
    assert validate["outputs"]["exit-code"] == "1"
    assert "::error file=recipes/bad.yaml,line=25" in validate["out"]
    assert validate["outputs"]["sarif"] == str(sarif)
    found = check_sarif(sarif, repo["root"])
    errors = [r for r in found if r["level"] == "error"]
    assert [r["ruleId"] for r in errors] == ["CP013"]
    region = errors[0]["locations"][0]["physicalLocation"]["region"]
    assert region["startLine"] == 25
    upload = next(r for k, r in results.items() if "uses" in r)
    assert upload["with"] == {"sarif_file": str(sarif), "category": "hcp-plan"}
    fail = results[str(len(ACTION["runs"]["steps"]) - 1)]
    assert fail["code"] == 1
    assert "::error::hcp-plan validate found errors" in fail["out"]


def test_the_push_diff_is_checked(repo):
    sarif = repo["temp"] / "out.sarif"
    steps, results = run_action(repo, {"hcp-plan-bin": BIN, "sarif-file": str(sarif),
                                       "args": "--world-size 32"},
                                event={"before": repo["first"]})
    listed = pathlib.Path(steps["changed"]["outputs"]["list"]).read_text().split()
    assert listed == ["recipes/good.yaml"]  # bad.yaml did not change
    assert results["validate"]["outputs"]["exit-code"] == "0"
    assert [r for r in check_sarif(sarif, repo["root"]) if r["level"] == "error"] == []
    assert results[str(len(ACTION["runs"]["steps"]) - 1)]["code"] == 0


def test_all_files_or_an_unknown_base_checks_every_recipe(repo):
    for inputs, event in (({"all-files": "true"}, {"before": repo["first"]}),
                          ({}, {"before": "0" * 40})):  # a branch's first push
        steps, results = run_action(
            repo, dict(inputs, **{"hcp-plan-bin": BIN, "sarif-file": str(repo["temp"] / "a.sarif"),
                                  "args": "--world-size 32", "fail-on-findings": "false"}), event)
        listed = sorted(pathlib.Path(steps["changed"]["outputs"]["list"]).read_text().split())
        assert listed == ["recipes/bad.yaml", "recipes/good.yaml"]
        assert results["validate"]["outputs"]["exit-code"] == "1"
        assert results[str(len(ACTION["runs"]["steps"]) - 1)]["code"] == 0  # not asked to fail


def test_no_changed_recipe_uploads_nothing(repo):
    steps, results = run_action(repo, {"hcp-plan-bin": BIN, "changed-files": "README.md"})
    assert steps["changed"]["outputs"]["count"] == "0"
    assert results["validate"]["outputs"] == {"exit-code": "0", "sarif": ""}
    upload = next(s for s in ACTION["runs"]["steps"] if "uses" in s)
    assert "steps.validate.outputs.sarif != ''" in upload["if"]


def test_bad_arguments_fail_the_validate_step(repo):
    steps, results = run_action(repo, {"hcp-plan-bin": BIN, "args": "--world-size many",
                                       "changed-files": "recipes/good.yaml",
                                       "sarif-file": str(repo["temp"] / "x.sarif")})
    assert results["validate"]["code"] == 2
    assert "hcp-plan: error:" in results["validate"]["err"]
    assert results["validate"]["outputs"]["sarif"] == ""
