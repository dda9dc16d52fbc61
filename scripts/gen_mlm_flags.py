#!/usr/bin/env python3
"""Generate src/recipe/mlm_known_flags.inc: every command-line flag Megatron-LM's training parser
accepts, read from a Megatron-LM checkout (python3 standard library only; nothing is imported from
Megatron, its files are only parsed).

Usage:
    scripts/gen_mlm_flags.py MEGATRON_LM_CHECKOUT [OUTPUT]
    scripts/gen_mlm_flags.py --git-dir DIR --commit SHA [--commit SHA2 ...] [OUTPUT]
        (a bare clone; several commits give the union, e.g. main and dev, whose functional tests
        use flags main does not have yet)

Where the flags come from (megatron/training/arguments.py):
  * literal names passed to `<group or parser>.add_argument('--flag', ...)`;
  * `ArgumentGroupFactory(SomeConfig, exclude=[...]).build_group(...)`, which turns every init
    field of the dataclass SomeConfig (and its dataclass bases) into `--field-name`, a bool field
    whose default is True into `--no-field-name` and `--disable-field-name`, unless the field's
    metadata gives `argparse_meta: {arg_names: [...]}` (megatron/training/argument_utils.py,
    ArgumentGroupFactory._build_argparse_kwargs_from_field).
Rerunning this script on a newer checkout is how the list is updated; the output records the
commit it was generated from.
"""

import ast
import os
import subprocess
import sys

ARGS_PATH = "megatron/training/arguments.py"


class Tree:
    """Read the Python files of a checkout (a work tree or a `git archive` export)."""

    def __init__(self, root):
        self.root = root
        self._files = None

    def files(self):
        if self._files is None:
            self._files = []
            for d, _, names in os.walk(self.root):
                for n in names:
                    if n.endswith(".py"):
                        self._files.append(os.path.relpath(os.path.join(d, n), self.root))
        return self._files

    def read(self, path):
        with open(os.path.join(self.root, path), encoding="utf-8") as f:
            return f.read()


def literal(node):
    try:
        return ast.literal_eval(node)
    except (ValueError, SyntaxError, TypeError):
        return None


class ClassIndex:
    """Find dataclass definitions by class name under megatron/."""

    def __init__(self, tree):
        self.tree = tree
        self.classes = {}  # name -> (path, ClassDef)
        for path in tree.files():
            if not path.startswith("megatron/"):
                continue
            text = tree.read(path)
            if "class " not in text:
                continue
            try:
                module = ast.parse(text)
            except SyntaxError:
                continue
            for node in module.body:
                if isinstance(node, ast.ClassDef):
                    self.classes.setdefault(node.name, (path, node))

    def fields(self, name, seen=None):
        """Init fields of a dataclass in declaration order, bases first: (name, node)."""
        seen = seen or set()
        if name in seen or name not in self.classes:
            return []
        seen.add(name)
        _, cls = self.classes[name]
        out = []
        for base in cls.bases:
            base_name = base.id if isinstance(base, ast.Name) else getattr(base, "attr", None)
            if base_name:
                out.extend(self.fields(base_name, seen))
        for stmt in cls.body:
            if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                ann = ast.unparse(stmt.annotation)
                if "ClassVar" in ann or "InitVar" in ann:
                    continue
                out = [f for f in out if f[0] != stmt.target.id]
                out.append((stmt.target.id, stmt))
        return out


def field_call(stmt):
    v = stmt.value
    if isinstance(v, ast.Call) and getattr(v.func, "id", getattr(v.func, "attr", "")) == "field":
        return v
    return None


def field_flags(name, stmt):
    """The flags ArgumentGroupFactory registers for one dataclass field; None when init=False."""
    call = field_call(stmt)
    default = stmt.value
    if call is not None:
        kw = {k.arg: k.value for k in call.keywords}
        if "init" in kw and literal(kw["init"]) is False:
            return None
        default = kw.get("default")
        meta = literal(kw["metadata"]) if "metadata" in kw else None
        if isinstance(meta, dict):
            names = meta.get("argparse_meta", {}).get("arg_names")
            if names:
                return list(names)
    dashed = name.replace("_", "-")
    ann = ast.unparse(stmt.annotation).replace(" ", "")
    if ann == "bool" and default is not None and literal(default) is True:
        return ["--no-" + dashed, "--disable-" + dashed]
    return ["--" + dashed]


def local_lists(func):
    """Literal list assignments of a function body: name -> list."""
    out = {}
    for node in ast.walk(func):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            value = literal(node.value)
            if isinstance(value, list):
                out[node.targets[0].id] = value
    return out


def in_scope(path):
    """Files whose add_argument calls register training flags: Megatron's own packages (the
    parser above and extra_args_provider modules such as megatron/post_training/arguments.py),
    the training entry points at the top level (pretrain_*.py, train_rl.py, ...) and the examples'
    entry points and argument modules (examples/mimo/train.py, examples/multimodal/...). Tests and
    the standalone tools/ scripts (their own parsers) are left out."""
    if path.startswith(("tests/", "tools/")) or "/tests/" in path:
        return False
    return path.startswith(("megatron/", "examples/")) or "/" not in path


def collect_extra(tree, flags):
    """Literal add_argument flags of the in-scope files other than arguments.py."""
    for path in tree.files():
        if path == ARGS_PATH or not in_scope(path):
            continue
        text = tree.read(path)
        if "add_argument" not in text:
            continue
        try:
            module = ast.parse(text)
        except SyntaxError:
            continue
        for node in ast.walk(module):
            if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "add_argument":
                for arg in node.args:
                    value = literal(arg)
                    if isinstance(value, str) and value.startswith("--"):
                        flags.setdefault(value, f"{path}:{node.lineno}")


def collect(tree):
    text = tree.read(ARGS_PATH)
    module = ast.parse(text)
    index = ClassIndex(tree)
    flags = {}
    unresolved = []
    factories = []
    for func in [n for n in module.body if isinstance(n, ast.FunctionDef)]:
        lists = local_lists(func)
        for node in ast.walk(func):
            if not isinstance(node, ast.Call):
                continue
            name = getattr(node.func, "attr", getattr(node.func, "id", ""))
            if name == "add_argument":
                for arg in node.args:
                    value = literal(arg)
                    if isinstance(value, str) and value.startswith("-"):
                        flags.setdefault(value, f"{ARGS_PATH}:{node.lineno}")
                    elif value is None:
                        unresolved.append(f"{ARGS_PATH}:{node.lineno}")
            elif name == "ArgumentGroupFactory" and node.args:
                cls = node.args[0]
                cls_name = cls.id if isinstance(cls, ast.Name) else getattr(cls, "attr", "")
                exclude = []
                for k in node.keywords:
                    if k.arg == "exclude":
                        exclude = literal(k.value)
                        if exclude is None and isinstance(k.value, ast.Name):
                            exclude = lists.get(k.value.id)
                        if exclude is None:
                            unresolved.append(f"{ARGS_PATH}:{node.lineno} exclude")
                            exclude = []
                if cls_name not in index.classes:
                    unresolved.append(f"{ARGS_PATH}:{node.lineno} class {cls_name}")
                    continue
                factories.append(cls_name)
                where = index.classes[cls_name][0]
                for fname, stmt in index.fields(cls_name):
                    if fname in exclude:
                        continue
                    names = field_flags(fname, stmt)
                    for flag in names or []:
                        flags.setdefault(flag, f"{where} ({cls_name}.{fname}) via {ARGS_PATH}:{node.lineno}")
    collect_extra(tree, flags)
    return flags, unresolved, factories


def export_commit(git_dir, commit, dest):
    """Write the tree of `commit` to `dest` (git archive | tar), return the full commit id."""
    full = subprocess.run(["git", "--git-dir", git_dir, "rev-parse", commit], check=True,
                          capture_output=True, text=True).stdout.strip()
    archive = subprocess.run(["git", "--git-dir", git_dir, "archive", full, "megatron", "examples"]
                             + [f for f in top_level_py(git_dir, full)],
                             check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", dest], input=archive, check=True)
    return full


def top_level_py(git_dir, commit):
    out = subprocess.run(["git", "--git-dir", git_dir, "ls-tree", "--name-only", commit],
                         check=True, capture_output=True, text=True).stdout
    return [f for f in out.splitlines() if f.endswith(".py")]


def main(argv):
    args = list(argv[1:])
    git_dir = None
    commits = []
    while "--git-dir" in args or "--commit" in args:
        for opt in ("--git-dir", "--commit"):
            if opt in args:
                i = args.index(opt)
                if opt == "--git-dir":
                    git_dir = args[i + 1]
                else:
                    commits.append(args[i + 1])
                del args[i:i + 2]
    output = args[-1] if (git_dir and args) or len(args) > 1 else "src/recipe/mlm_known_flags.inc"
    flags, factories, used = {}, set(), []
    if git_dir:
        import tempfile
        for commit in commits or ["HEAD"]:
            with tempfile.TemporaryDirectory() as tmp:
                full = export_commit(git_dir, commit, tmp)
                f, unresolved, fac = collect(Tree(root=tmp))
                for flag, where in f.items():
                    flags.setdefault(flag, f"{full[:10]} {where}")
                factories.update(fac)
                used.append(full)
                for u in unresolved:
                    print(f"note: {full[:10]}: not resolved: {u}", file=sys.stderr)
    else:
        if not args:
            print(__doc__, file=sys.stderr)
            return 2
        root = args[0]
        # The checkout's commit only when ROOT is itself the top of a git work tree.
        top = subprocess.run(["git", "-C", root, "rev-parse", "--show-toplevel"],
                             capture_output=True, text=True).stdout.strip()
        full = "unknown"
        if top and os.path.realpath(top) == os.path.realpath(root):
            full = subprocess.run(["git", "-C", root, "rev-parse", "HEAD"], capture_output=True,
                                  text=True).stdout.strip() or "unknown"
        flags, unresolved, fac = collect(Tree(root=root))
        factories.update(fac)
        used.append(full)
        for u in unresolved:
            print(f"note: not resolved: {u}", file=sys.stderr)
    lines = [
        "// GENERATED by scripts/gen_mlm_flags.py from NVIDIA/Megatron-LM at commit(s)",
        "//   " + ", ".join(used),
        "// Every flag the training parser registers (" + ARGS_PATH + ": add_argument literals",
        "// and the ArgumentGroupFactory dataclass groups " + ", ".join(sorted(factories)) + ")",
        "// plus the literal add_argument flags of the extra_args_provider modules and entry points",
        "// (megatron/**, examples/**, top-level *.py; not tests/ or tools/). Do not edit: rerun",
        "// the script on newer commits to update. One string per line.",
        f'#define HCP_MLM_FLAGS_COMMIT "{", ".join(used)}"',
    ]
    for flag in sorted(flags):
        lines.append(f'"{flag}",')
    with open(output, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    print(f"{len(flags)} flags from {', '.join(c[:10] for c in used)} -> {output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
