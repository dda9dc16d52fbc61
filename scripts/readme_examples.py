#!/usr/bin/env python3
"""Regenerate or check the examples in README.md from real output of a built hcp-plan.

An example is a line `$ hcp-plan ARGS` inside a fenced code block (a trailing backslash continues
the command on the next line; a comment after two spaces and `#`, such as `# exit 2`, is kept and
not run). Its output is every following line of the block up to the next `$ ` line, a blank line
before one, or the closing fence. Commands that are not `hcp-plan` (make, mpirun, srun, dpkg)
are left as they are.

    scripts/readme_examples.py BUILD/hcp-plan            check: exit 1 and a diff when stale
    scripts/readme_examples.py BUILD/hcp-plan --update   rewrite README.md's example outputs

The commands run from the repository root with the golden tests' environment (COLUMNS=100,
NO_COLOR=1, HCP_PLAN_DATA_DIR=recipes, LC_ALL=C); stdout and stderr are shown together.
"""
import difflib
import os
import re
import shlex
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
README = os.path.join(ROOT, "README.md")
PROMPT = "$ hcp-plan "
COMMENT = re.compile(r"\s{2,}#.*$")


def command_lines(lines, start):
    """The command starting at lines[start] (continuations joined) and the index after it."""
    parts = []
    i = start
    while True:
        text = lines[i]
        i += 1
        if text.endswith("\\"):
            parts.append(text[:-1])
            continue
        parts.append(text)
        return " ".join(p.strip() for p in parts), i


def run(binary, command):
    words = shlex.split(COMMENT.sub("", command)[len("$ hcp-plan"):])
    env = dict(os.environ, COLUMNS="100", NO_COLOR="1", HCP_PLAN_DATA_DIR="recipes", LC_ALL="C")
    done = subprocess.run([binary] + words, cwd=ROOT, env=env, stdin=subprocess.DEVNULL,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=120)
    return done.stdout.decode("utf-8", "replace").rstrip("\n").split("\n")


def end_of_output(lines, i):
    """The index of the first line after an example's output (the next prompt or the fence)."""
    while i < len(lines):
        if lines[i].startswith("```") or lines[i].startswith("$ "):
            break
        if lines[i] == "" and i + 1 < len(lines) and lines[i + 1].startswith("$ "):
            break
        i += 1
    return i


def regenerate(binary, lines):
    out = []
    i = 0
    in_block = False
    count = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("```"):
            in_block = not in_block
            out.append(line)
            i += 1
            continue
        if not (in_block and line.startswith(PROMPT)):
            out.append(line)
            i += 1
            continue
        command, after = command_lines(lines, i)
        out.extend(lines[i:after])
        end = end_of_output(lines, after)
        out.extend(run(binary, command))
        count += 1
        i = end
    return out, count


def main():
    if len(sys.argv) < 2:
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    binary = os.path.abspath(sys.argv[1])
    update = len(sys.argv) > 2 and sys.argv[2] == "--update"
    with open(README, encoding="utf-8") as f:
        lines = f.read().split("\n")
    new, count = regenerate(binary, lines)
    if new == lines:
        print(f"readme_examples: {count} examples match README.md")
        return 0
    if update:
        with open(README, "w", encoding="utf-8") as f:
            f.write("\n".join(new))
        print(f"readme_examples: rewrote the output of {count} examples in README.md")
        return 0
    sys.stdout.writelines(difflib.unified_diff([l + "\n" for l in lines], [l + "\n" for l in new],
                                               "README.md", "real output"))
    print("readme_examples: README.md is stale; run scripts/readme_examples.py BIN --update")
    return 1


if __name__ == "__main__":
    sys.exit(main())
