#!/usr/bin/env python3
"""No function body over MAX_LINES lines (issue #26): a brace-counting scan of the C++ sources.

Comments, string and character literals (raw strings included) are blanked first, so braces inside
them do not count; a block opened at namespace or class scope whose header ends like a function
signature (`)`, a qualifier, a trailing return type or a constructor's initialiser list) is a
function, and its length is the number of lines from its opening to its closing brace, both
included. Brace-initialised data at namespace scope (catalog tables) is not a function.

Usage: check_function_length.py [--max N] [ROOT]   (ROOT defaults to the repository)
Exit 0 when every function is within the limit, 1 otherwise (each offender is listed).
"""
import argparse
import pathlib
import re
import sys

MAX_LINES = 100
# Folders scanned: the library, the CLI, the probes, the plugins, the tests and the benchmarks.
# kernels/ (CUDA) is exempt by the issue and not scanned.
SCANNED = ("src", "include", "probes", "plugins", "tests", "bench")
SUFFIXES = (".cpp", ".h", ".hpp", ".inc")
# Exempt by the issue: CUDA kernels (kernels/, not scanned) and catalog data. Each entry is
# "path:function"; keep the list short and say why.
EXEMPT = {
    # Catalog data: one launch_rule(...) entry per PF / LOG rule, nothing else.
    "src/rules/rules_launch.cpp:add_preflight_rules",
    "src/rules/rules_launch.cpp:add_logcheck_rules",
    # Hardware data: one GpuSpec row per GPU model with its figures' sources, nothing else.
    "src/hardware/gpu_specs.cpp:gpu_spec_table",
    # Test data: one {ID, fires, stays quiet} case per rule of the family.
    "tests/rules/rules_backend_test.cpp:backend_cases",
    "tests/rules/rules_dynamic_test.cpp:dynamic_cases",
}


def blank_literals(text):
    """Return `text` with comments and the contents of literals replaced by spaces (newlines
    kept, so line numbers stay)."""
    out = []
    i, n = 0, len(text)

    def keep_newlines(s):
        return "".join("\n" if c == "\n" else " " for c in s)

    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(keep_newlines(text[i:j]))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(keep_newlines(text[i:j]))
            i = j
        elif c == "R" and i + 1 < n and text[i + 1] == '"' and not (
                i > 0 and (text[i - 1].isalnum() or text[i - 1] == "_")) or (
                c in "uUL8" and re.match(r'(u8|u|U|L)R"', text[i:i + 4])):
            m = re.match(r'(?:u8|u|U|L)?R"([^(\s]*)\(', text[i:])
            if not m:
                out.append(c)
                i += 1
                continue
            end = text.find(")" + m.group(1) + '"', i + m.end())
            end = n if end < 0 else end + len(m.group(1)) + 2
            out.append('""' + keep_newlines(text[i + 2:end - 0])[2:])
            i = end
        elif c == '"' or (c == "'" and not (i > 0 and text[i - 1].isalnum() and i + 1 < n
                                             and text[i + 1].isalnum())):
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(c + keep_newlines(text[i + 1:j]) + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def blank_preprocessor(text):
    """Blank preprocessor lines (with their continuations)."""
    lines = text.split("\n")
    continued = False
    for k, line in enumerate(lines):
        if continued or line.lstrip().startswith("#"):
            continued = line.rstrip().endswith("\\")
            lines[k] = ""
    return "\n".join(lines)


SCOPE_RE = re.compile(r'^(template\s*<.*>\s*)?(typedef\s+)?(class|struct|union|enum)\b|\bnamespace\b|'
                      r'^extern\s*""$', re.S)
FUNC_END_RE = re.compile(r'\)\s*(const|volatile|noexcept(\s*\(.*\))?|override|final|mutable|&&?|'
                         r'->\s*[^;{}]*|\s)*$', re.S)
CTOR_INIT_RE = re.compile(r'\)\s*(noexcept\s*)?:[^:].*$', re.S)


def function_name(header):
    m = re.search(r'([~\w:]+(?:\s*operator\s*[^\s(]+)?)\s*\(', header)
    return m.group(1) if m else "?"


def long_functions(text, max_lines):
    """Yield (line, name, length) for each function longer than max_lines."""
    text = blank_preprocessor(blank_literals(text))
    stack = []  # entries: ("scope"|"func"|"other", open_line, name)
    header = []
    line = 1
    for c in text:
        if c == "\n":
            line += 1
        if c == "{":
            in_decl_scope = all(kind == "scope" for kind, _, _ in stack)
            h = " ".join("".join(header).split())
            if not in_decl_scope:
                kind = "other"
            elif SCOPE_RE.search(h) and "(" not in h.split("{")[0].split(":")[0]:
                kind = "scope"
            elif FUNC_END_RE.search(h) or CTOR_INIT_RE.search(h):
                kind = "func"
            else:
                kind = "other"
            stack.append((kind, line, function_name(h) if kind == "func" else ""))
            header = []
        elif c == "}":
            if stack:
                kind, open_line, name = stack.pop()
                length = line - open_line + 1
                if kind == "func" and length > max_lines:
                    yield open_line, name, length
            header = []
        elif c == ";":
            header = []
        else:
            header.append(c)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--max", type=int, default=MAX_LINES)
    parser.add_argument("root", nargs="?", default=pathlib.Path(__file__).resolve().parent.parent)
    args = parser.parse_args()
    root = pathlib.Path(args.root)
    offenders = []
    for folder in SCANNED:
        for path in sorted((root / folder).rglob("*")):
            if path.suffix not in SUFFIXES or not path.is_file():
                continue
            rel = path.relative_to(root).as_posix()
            text = path.read_text(encoding="utf-8", errors="replace")
            for open_line, name, length in long_functions(text, args.max):
                if f"{rel}:*" in EXEMPT or f"{rel}:{name}" in EXEMPT:
                    continue
                offenders.append(f"{rel}:{open_line}: {name} is {length} lines (max {args.max})")
    for o in offenders:
        print(o)
    if offenders:
        print(f"{len(offenders)} function(s) over {args.max} lines: split them into named steps")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
