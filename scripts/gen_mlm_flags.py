#!/usr/bin/env python3
"""Generate src/recipe/mlm_known_flags.inc: every command-line flag Megatron-LM's training parser
accepts, read from a Megatron-LM checkout (python3 standard library only; nothing is imported from
Megatron, its files are only parsed).

Usage:
    scripts/gen_mlm_flags.py [--choices CHOICES] MEGATRON_LM_CHECKOUT [OUTPUT]
    scripts/gen_mlm_flags.py [--choices CHOICES] --git-dir DIR --commit SHA [--commit SHA2 ...] [OUTPUT]
        (a bare clone; several commits give the union, e.g. main and dev, whose functional tests
        use flags main does not have yet)

Where the flags come from (megatron/training/arguments.py):
  * literal names passed to `<group or parser>.add_argument('--flag', ...)`;
  * `ArgumentGroupFactory(SomeConfig, exclude=[...]).build_group(...)`, which turns every init
    field of the dataclass SomeConfig (and its dataclass bases) into `--field-name`, a bool field
    whose default is True into `--no-field-name` and `--disable-field-name`, unless the field's
    metadata gives `argparse_meta: {arg_names: [...]}` (megatron/training/argument_utils.py,
    ArgumentGroupFactory._build_argparse_kwargs_from_field).
The argparse `choices` of each flag go to CHOICES (mlm_flag_choices.inc next to OUTPUT): a literal
`choices=[...]` of add_argument, or for a dataclass field a `Literal[...]` annotation (Optional or
in a list), an Enum annotation (its member names: `_get_enum_kwargs` looks the value up by name) or
`argparse_meta: {choices: ...}`. A flag gets a choice list only where every registration of it,
at every commit, declares one (the union of them); a `type=` other than str or int (a converter
such as str.lower) leaves it without, since the value is converted before it is compared.
Rerunning this script on a newer checkout is how the list is updated; the output records the
commit it was generated from.
"""

import ast
import json
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

    def enum_members(self, name):
        """Member names of an Enum class (what `SomeEnum[text]` looks up), or None."""
        if name not in self.classes:
            return None
        _, cls = self.classes[name]
        bases = [b.id if isinstance(b, ast.Name) else getattr(b, "attr", "") for b in cls.bases]
        if not any(b.endswith("Enum") for b in bases):
            return None
        members = []
        for stmt in cls.body:
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
                target = stmt.targets[0]
                if isinstance(target, ast.Name) and not target.id.startswith("_"):
                    members.append(target.id)
        return members or None

    def fields(self, name, seen=None):
        """Init fields of a dataclass in declaration order, bases first: (name, node, path of the
        class that declares it)."""
        seen = seen or set()
        if name in seen or name not in self.classes:
            return []
        seen.add(name)
        path, cls = self.classes[name]
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
                out.append((stmt.target.id, stmt, path))
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


def checked_choices(values, type_name):
    """(choices, kind) argparse enforces as written: str choices with type str (or none), int
    choices with type int; None for anything else (no choices, a converter, mixed types)."""
    if not isinstance(values, (list, tuple)) or not values:
        return None
    if all(isinstance(v, str) and "|" not in v for v in values) and type_name in (None, "str"):
        return tuple(values), "str"
    if all(isinstance(v, int) and not isinstance(v, bool) for v in values) and type_name == "int":
        return tuple(values), "int"
    return None


def call_choices(node):
    """The choices of a literal add_argument call (checked_choices), or None."""
    kw = {k.arg: k.value for k in node.keywords}
    if "choices" not in kw:
        return None
    type_name = ast.unparse(kw["type"]) if "type" in kw else None
    return checked_choices(literal(kw["choices"]), type_name)


def subscript_base(node):
    value = node.value
    return value.id if isinstance(value, ast.Name) else getattr(value, "attr", "")


def annotation_choices(ann, index):
    """The choices ArgumentGroupFactory._extract_type derives from a field annotation: Literal
    (also inside Optional or a list) or an Enum (member names), or None."""
    node = ann
    while True:
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            if not (isinstance(node.right, ast.Constant) and node.right.value is None):
                return None
            node = node.left
        elif isinstance(node, ast.Subscript):
            base = subscript_base(node)
            items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            if base in ("Optional", "List", "list"):
                node = items[0]
            elif base == "Union":
                if len(items) != 2 or not (isinstance(items[1], ast.Constant) and items[1].value is None):
                    return None
                node = items[0]
            elif base == "Literal":
                values = [literal(item) for item in items]
                kinds = {type(v) for v in values}
                return checked_choices(values, "int" if kinds == {int} else "str")
            else:
                return None
        elif isinstance(node, (ast.Name, ast.Attribute)):
            name = node.id if isinstance(node, ast.Name) else node.attr
            members = index.enum_members(name)
            return checked_choices(members, "str") if members else None
        else:
            return None


def meta_entries(stmt):
    """The argparse_meta dict of a field(metadata=...) as AST nodes by key, or {}."""
    call = field_call(stmt)
    if call is None:
        return {}
    for k in call.keywords:
        if k.arg == "metadata" and isinstance(k.value, ast.Dict):
            for key, value in zip(k.value.keys, k.value.values):
                if literal(key) == "argparse_meta" and isinstance(value, ast.Dict):
                    return {literal(mk): mv for mk, mv in zip(value.keys, value.values)}
    return {}


def field_choices(stmt, index):
    """The choices of the flag ArgumentGroupFactory makes of one field: argparse_meta's
    `choices` (a literal, or `[x.name for x in SomeEnum]`) over the annotation's; None when a
    `type` in argparse_meta converts the value."""
    meta = meta_entries(stmt)
    type_name = ast.unparse(meta["type"]) if "type" in meta else None
    if "choices" in meta:
        node = meta["choices"]
        values = literal(node)
        if values is None and isinstance(node, ast.ListComp) and len(node.generators) == 1:
            gen = node.generators[0]
            is_name = isinstance(node.elt, ast.Attribute) and node.elt.attr == "name"
            if is_name and isinstance(gen.iter, ast.Name):
                values = index.enum_members(gen.iter.id)
        kinds = {type(v) for v in values or []}
        return checked_choices(values, type_name or ("int" if kinds == {int} else "str"))
    inferred = annotation_choices(stmt.annotation, index)
    if inferred is None or type_name is None:
        return inferred
    return inferred if type_name == inferred[1] else None


def add_choices(choices_of, flag, found, where):
    """Record one registration of `flag`: its choices (or None, a free value) and where."""
    choices_of.setdefault(flag, []).append(None if found is None else (found[0], found[1], where))


def merged_choices(entries):
    """One flag's choices over all its registrations: their union when every registration has
    choices of one kind, else None (some registration takes any value)."""
    if any(e is None for e in entries) or len({e[1] for e in entries}) != 1:
        return None
    values = []
    for e in entries:
        values.extend(v for v in e[0] if v not in values)
    return values, entries[0][1], entries[0][2]


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


def collect_extra(tree, flags, choices_of):
    """Literal add_argument flags (and their choices) of the in-scope files other than
    arguments.py."""
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
                        add_choices(choices_of, value, call_choices(node), f"{path}:{node.lineno}")


def collect(tree):
    text = tree.read(ARGS_PATH)
    module = ast.parse(text)
    index = ClassIndex(tree)
    flags = {}
    choices_of = {}
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
                        add_choices(choices_of, value, call_choices(node),
                                    f"{ARGS_PATH}:{node.lineno}")
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
                for fname, stmt, declared_in in index.fields(cls_name):
                    if fname in exclude:
                        continue
                    names = field_flags(fname, stmt)
                    found = field_choices(stmt, index) if names else None
                    for flag in names or []:
                        flags.setdefault(flag, f"{where} ({cls_name}.{fname}) via {ARGS_PATH}:{node.lineno}")
                        add_choices(choices_of, flag, found,
                                    f"{declared_in}:{stmt.lineno} ({cls_name}.{fname})")
    collect_extra(tree, flags, choices_of)
    return flags, choices_of, unresolved, factories


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
    choices_output = None
    commits = []
    while "--git-dir" in args or "--commit" in args or "--choices" in args:
        for opt in ("--git-dir", "--commit", "--choices"):
            if opt in args:
                i = args.index(opt)
                if opt == "--git-dir":
                    git_dir = args[i + 1]
                elif opt == "--choices":
                    choices_output = args[i + 1]
                else:
                    commits.append(args[i + 1])
                del args[i:i + 2]
    output = args[-1] if (git_dir and args) or len(args) > 1 else "src/recipe/mlm_known_flags.inc"
    flags, choices_of, factories, used = {}, {}, set(), []
    if git_dir:
        import tempfile
        for commit in commits or ["HEAD"]:
            with tempfile.TemporaryDirectory() as tmp:
                full = export_commit(git_dir, commit, tmp)
                f, c, unresolved, fac = collect(Tree(root=tmp))
                for flag, where in f.items():
                    flags.setdefault(flag, f"{full[:10]} {where}")
                add_commit_choices(choices_of, c, full)
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
        flags, c, unresolved, fac = collect(Tree(root=root))
        add_commit_choices(choices_of, c, full)
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
    choices_output = choices_output or os.path.join(os.path.dirname(output), CHOICES_NAME)
    count = write_choices(choices_output, choices_of, used)
    print(f"{count} flags with choices -> {choices_output}", file=sys.stderr)
    return 0


CHOICES_NAME = "mlm_flag_choices.inc"


def add_commit_choices(choices_of, found, commit):
    """Add one commit's registrations, their places written path:line@commit."""
    for flag, entries in found.items():
        for e in entries:
            if e is None:
                choices_of.setdefault(flag, []).append(None)
                continue
            path, _, rest = e[2].partition(" ")
            where = f"{path}@{commit[:10]}" + (f" {rest}" if rest else "")
            choices_of.setdefault(flag, []).append((e[0], e[1], where))


def c_string(text):
    return json.dumps(text, ensure_ascii=True)


def write_choices(path, choices_of, used):
    """Write {flag, "a|b|c", integer, "where"} rows, sorted by flag; return how many."""
    lines = [
        "// GENERATED by scripts/gen_mlm_flags.py from NVIDIA/Megatron-LM at commit(s)",
        "//   " + ", ".join(used),
        "// The argparse `choices` of the flags of mlm_known_flags.inc that declare them at every",
        "// registration (add_argument choices=, a Literal or Enum dataclass field, argparse_meta",
        "// choices), '|'-separated; integer: compared as int(value). Do not edit: rerun the script.",
    ]
    count = 0
    for flag in sorted(choices_of):
        merged = merged_choices(choices_of[flag])
        if merged is None:
            continue
        values, kind, where = merged
        text = "|".join(str(v) for v in values)
        integer = "true" if kind == "int" else "false"
        lines.append(f"{{{c_string(flag)}, {c_string(text)}, {integer}, {c_string(where)}}},")
        count += 1
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    return count


if __name__ == "__main__":
    sys.exit(main(sys.argv))
