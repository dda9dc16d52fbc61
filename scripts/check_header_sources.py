#!/usr/bin/env python3
"""Names lead to code (issue #26): a check of how public headers and sources are named.

1. Every public header include/hcp/NAME.h that declares a function to implement (a declaration
   without a body, at namespace or class scope) has a source named after it: NAME.cpp, or, for a
   header implemented by several files, NAME_<concern>.cpp (e.g. model_estimate.cpp), under src/,
   probes/ or plugins/. A pure interface (types, constants, inline functions and function-pointer
   typedefs only) needs none.
2. No two sources of the library, the CLI, the probes and the plugins share a basename, so a name
   in a build log, a stack trace or a profile points at one file.

Usage: check_header_sources.py [ROOT]   (ROOT defaults to the repository)
Exit 0 when both hold, 1 otherwise (each offender is listed).
"""
import collections
import pathlib
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from check_function_length import blank_literals, blank_preprocessor  # noqa: E402

SOURCE_DIRS = ("src", "probes", "plugins")
NOT_A_DECLARATION = re.compile(
    r'^(typedef|using|friend|static_assert|return|template\s*<[^>]*>\s*using)\b')


def declared_functions(text):
    """Return the names of the functions a header declares without defining them."""
    text = blank_preprocessor(blank_literals(text))
    stack = []  # True for a namespace / class / extern "C" scope, False for any other block
    statement = []
    names = []
    for c in text:
        if c == "{":
            s = " ".join("".join(statement).split())
            in_scope = all(stack)
            is_scope = in_scope and bool(re.search(
                r'\b(namespace|class|struct|union|enum)\b|^extern\s*""$', s)) and "(" not in s
            stack.append(is_scope)
            statement = []
        elif c == "}":
            if stack:
                stack.pop()
            statement = []
        elif c == ";":
            s = " ".join("".join(statement).split())
            statement = []
            if not all(stack) or "(" not in s or NOT_A_DECLARATION.match(s):
                continue
            if re.search(r'=\s*(default|delete|0)\s*$', s):
                continue  # defaulted, deleted or pure virtual: nothing to implement
            if "=" in s.split("(")[0] and "operator" not in s.split("(")[0]:
                continue  # a variable initialised by a call
            m = re.search(r'([~\w]+(?:\s*operator\s*[^\s(]+)?)\s*\(', s)
            if m and m.group(1) not in ("decltype", "alignas", "sizeof"):
                names.append(m.group(1))
        else:
            statement.append(c)
    return names


def owner(stem, header_names):
    """The header a source is named after: the longest header name NAME with stem == NAME or
    stem starting with NAME_ (layout_option.cpp is layout_option.h's, not layout.h's)."""
    best = None
    for name in header_names:
        if (stem == name or stem.startswith(name + "_")) and (best is None or len(name) > len(best)):
            best = name
    return best


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else
                        pathlib.Path(__file__).resolve().parent.parent)
    sources = sorted(p for d in SOURCE_DIRS for p in (root / d).rglob("*.cpp"))
    headers = sorted((root / "include" / "hcp").glob("*.h"))
    implemented = {owner(p.stem, [h.stem for h in headers]) for p in sources}
    problems = []
    for header in headers:
        name = header.stem
        functions = declared_functions(header.read_text(encoding="utf-8", errors="replace"))
        if not functions:
            continue  # a pure interface
        if name in implemented:
            continue
        problems.append(f"include/hcp/{header.name}: declares {functions[0]}() and "
                        f"{len(functions) - 1} more, but no source is named {name}.cpp or "
                        f"{name}_*.cpp")
    by_name = collections.defaultdict(list)
    for p in sources:
        by_name[p.name].append(p.relative_to(root).as_posix())
    for name, paths in sorted(by_name.items()):
        if len(paths) > 1:
            problems.append(f"{name} names {len(paths)} sources: {', '.join(paths)}")
    for p in problems:
        print(p)
    if problems:
        print(f"{len(problems)} naming problem(s): name sources after their header, uniquely")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
