"""The calls of the hcp_plan package: each runs the hcp-plan binary and parses its JSON."""
from __future__ import annotations

import contextlib
import dataclasses
import inspect
import io
import json
import os
import pathlib
import shutil
import subprocess
import tempfile
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

# Exit codes of the CLI contract (ARCHITECTURE.md §3).
EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_BAD_INPUT = 2
EXIT_ENVIRONMENT = 3

_HOW_TO_GET_IT = (
    "set HCP_PLAN_BIN to the binary, put hcp-plan on PATH, or build it in the source tree "
    "(`make run`, or `cmake -S . -B build && cmake --build build --target hcp-plan`)"
)


class HcpPlanError(Exception):
    """hcp-plan refused the input or could not run; str() is the tool's one-line message."""

    def __init__(self, message: str, exit_code: Optional[int] = None, stderr: str = "",
                 findings: Optional["Findings"] = None):
        super().__init__(message)
        self.message = message
        self.exit_code = exit_code
        self.stderr = stderr
        self.findings = findings


class HcpPlanNotFound(HcpPlanError):
    """No hcp-plan binary was found; the message says where it was looked for."""


@dataclasses.dataclass(frozen=True)
class Finding:
    """One finding of `validate`: a rule ID ("" for a note without a rule), its severity
    ("error", "warning" or "info"), the message and where: file and line (None when the
    finding has no line, e.g. a note about the command line)."""

    id: str
    severity: str
    message: str
    file: str
    line: Optional[int]
    column: Optional[int] = None
    key: str = ""
    fix: str = ""

    @classmethod
    def from_json(cls, entry: Mapping[str, Any]) -> "Finding":
        location = entry.get("location") or {}
        line = int(location.get("line") or 0)
        column = int(location.get("column") or 0)
        return cls(id=entry.get("id", ""), severity=entry.get("severity", ""),
                   message=entry.get("message", ""), file=location.get("file", ""),
                   line=line or None, column=column or None, key=entry.get("key", ""),
                   fix=entry.get("fix", ""))

    def __str__(self) -> str:
        where = self.file
        if self.line:
            where += f":{self.line}" + (f":{self.column}" if self.column else "")
        rule = f"[{self.id}] " if self.id else ""
        return f"{where}: {self.severity}: {rule}{self.message}"


class Findings(list):
    """The findings of one `validate` call (a list), with the exit code and the raw JSON."""

    def __init__(self, findings: Sequence[Finding], exit_code: int, raw: Dict[str, Any]):
        super().__init__(findings)
        self.exit_code = exit_code
        self.raw = raw

    def of_severity(self, severity: str) -> List[Finding]:
        return [f for f in self if f.severity == severity]

    @property
    def errors(self) -> List[Finding]:
        return self.of_severity("error")

    @property
    def warnings(self) -> List[Finding]:
        return self.of_severity("warning")

    @property
    def ok(self) -> bool:
        """True when no rule reported an error."""
        return not self.errors


class ValidationFailed(HcpPlanError):
    """check_config found errors (or warnings with fail_on="warning"): one line per finding."""


@dataclasses.dataclass(frozen=True)
class Option:
    """One layout option of `plan` (fields as in `plan --format json`; all of them in raw)."""

    label: str
    tp: int
    cp: int
    pp: int
    dp: int
    cp_comm_type: str
    hierarchical_context_parallel_sizes: Tuple[int, ...]
    step_time_s: float
    tokens_per_s_per_gpu: float
    tokens_per_s_per_gpu_low: float
    tokens_per_s_per_gpu_high: float
    memory_gib_per_gpu: float
    memory_limit_gib: float
    fits_memory: bool
    recommended: bool
    recipe_layout: bool
    tie_with_best: bool
    # cp_comm_type names of this option that no published run behind its band used.
    cp_comm_types_without_runs: Tuple[str, ...]
    notes: Tuple[str, ...]
    reasons: Tuple[str, ...]
    raw: Dict[str, Any] = dataclasses.field(compare=False, repr=False)

    @classmethod
    def from_json(cls, entry: Mapping[str, Any]) -> "Option":
        tokens = float(entry.get("tokens_per_s_per_gpu", 0))
        return cls(
            label=entry.get("label", ""), tp=int(entry.get("tp", 1)), cp=int(entry.get("cp", 1)),
            pp=int(entry.get("pp", 1)), dp=int(entry.get("dp", 1)),
            cp_comm_type=entry.get("cp_comm_type", ""),
            hierarchical_context_parallel_sizes=tuple(
                entry.get("hierarchical_context_parallel_sizes") or ()),
            step_time_s=float(entry.get("step_time_s", 0)), tokens_per_s_per_gpu=tokens,
            tokens_per_s_per_gpu_low=float(entry.get("tokens_per_s_per_gpu_low", tokens)),
            tokens_per_s_per_gpu_high=float(entry.get("tokens_per_s_per_gpu_high", tokens)),
            memory_gib_per_gpu=float(entry.get("memory_gib_per_gpu", 0)),
            memory_limit_gib=float(entry.get("memory_limit_gib", 0)),
            fits_memory=bool(entry.get("fits_memory")), recommended=bool(entry.get("recommended")),
            recipe_layout=bool(entry.get("recipe_layout")),
            tie_with_best=bool(entry.get("tie_with_best")),
            cp_comm_types_without_runs=tuple(entry.get("cp_comm_types_without_runs") or ()),
            notes=tuple(entry.get("notes") or ()), reasons=tuple(entry.get("reasons") or ()),
            raw=dict(entry))


@dataclasses.dataclass
class Plan:
    """The ranked options of `plan` (best first), its summary sentences and the raw JSON."""

    options: List[Option]
    summary: List[str]
    exit_code: int
    raw: Dict[str, Any] = dataclasses.field(repr=False)

    @property
    def recommended(self) -> Optional[Option]:
        """The recommended option; None when none fits (the tool then exits 1)."""
        return next((o for o in self.options if o.recommended), None)

    @property
    def recipe_option(self) -> Optional[Option]:
        """The recipe's own layout as priced (also when it ranks below `top`); None when the
        rules or the model rejected it (raw["recipe_layout"] then says why)."""
        own = self.raw.get("recipe_layout")
        if isinstance(own, dict) and "tokens_per_s_per_gpu" in own:
            return Option.from_json(own)
        return next((o for o in self.options if o.recipe_layout), None)


# --- finding and running the binary ------------------------------------------------------------

def _candidates() -> List[Tuple[str, str]]:
    """(path, where it came from) in the order find_binary tries them."""
    found = []
    bundled = pathlib.Path(__file__).resolve().parent / "bin" / "hcp-plan"
    found.append((str(bundled), "bundled in the package"))
    on_path = shutil.which("hcp-plan")
    if on_path:
        found.append((on_path, "PATH"))
    try:
        from . import _build_info  # written by the build backend at install time
        trees = [pathlib.Path(_build_info.SOURCE_TREE)]
    except ImportError:  # running from the source tree itself
        trees = [pathlib.Path(__file__).resolve().parents[2]]
    for tree in trees:
        found.append((str(tree / "build" / "hcp-plan"), f"the build directory of {tree}"))
    return found


def _is_executable(path: str) -> bool:
    return os.path.isfile(path) and os.access(path, os.X_OK)


def find_binary(binary: Optional[str] = None) -> str:
    """Return the hcp-plan binary to run: `binary` when given, else $HCP_PLAN_BIN, else the one
    bundled in the package, else hcp-plan on PATH, else <source tree>/build/hcp-plan of the tree
    the package was installed from. Raise HcpPlanNotFound (saying how to get one) otherwise."""
    explicit = binary or os.environ.get("HCP_PLAN_BIN")
    if explicit:
        if _is_executable(explicit):
            return explicit
        origin = "binary=" if binary else "HCP_PLAN_BIN"
        raise HcpPlanNotFound(f"{origin} names {explicit}, which is not an executable file")
    for path, _ in _candidates():
        if _is_executable(path):
            return path
    raise HcpPlanNotFound("hcp-plan not found: " + _HOW_TO_GET_IT)


def _one_line_error(stderr: str, exit_code: int) -> str:
    """The tool's one-line message ("hcp-plan: error: " dropped), or what is known."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    for line in lines:
        if line.startswith("hcp-plan: error: "):
            return line[len("hcp-plan: error: "):]
    if lines:
        return lines[0]
    return f"hcp-plan exited with status {exit_code}"


def _run(args: Sequence[str], stdin: Optional[str], binary: Optional[str],
         timeout: float) -> subprocess.CompletedProcess:
    command = [find_binary(binary), *args]
    try:
        return subprocess.run(command, input=stdin, capture_output=True, text=True,
                              errors="replace", timeout=timeout, check=False)
    except subprocess.TimeoutExpired as e:
        raise HcpPlanError(f"hcp-plan did not finish within {timeout} s: {' '.join(command)}") from e
    except OSError as e:
        raise HcpPlanError(f"cannot run {command[0]}: {e.strerror or e}") from e


def _parse_json(stdout: str, result: subprocess.CompletedProcess) -> Dict[str, Any]:
    try:
        data = json.loads(stdout)
    except ValueError:
        raise HcpPlanError(_one_line_error(result.stderr, result.returncode)
                           if result.returncode else "hcp-plan printed no JSON",
                           result.returncode, result.stderr) from None
    if not isinstance(data, dict):
        raise HcpPlanError("hcp-plan printed JSON that is not an object", result.returncode,
                           result.stderr)
    return data


# --- inputs ------------------------------------------------------------------------------------

RecipeLike = Union[str, "os.PathLike[str]", Mapping[str, Any], Any]


def _yaml_of(config: Any) -> str:
    """The YAML of an object with to_yaml(): Megatron-Bridge's ConfigContainer.to_yaml(path)
    writes the file (without a path it prints); one that returns the text works too."""
    method = config.to_yaml
    try:
        takes_path = any(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL)
                         for p in inspect.signature(method).parameters.values())
    except (TypeError, ValueError):
        takes_path = False
    with tempfile.TemporaryDirectory(prefix="hcp_plan_") as folder:
        path = os.path.join(folder, "config.yaml")
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            returned = method(path) if takes_path else method()
        if os.path.exists(path) and os.path.getsize(path) > 0:
            return pathlib.Path(path).read_text(encoding="utf-8")
    for text in (returned, printed.getvalue()):
        if isinstance(text, str) and text.strip():
            return text
    raise HcpPlanError(f"{type(config).__name__}.to_yaml() wrote no YAML")


def _recipe_input(recipe: RecipeLike) -> Tuple[str, Optional[str]]:
    """(the RECIPE argument, text for standard input): a path or shipped name as given; a dict
    (as JSON, which YAML reads) or a to_yaml() object through standard input ("-")."""
    if isinstance(recipe, (str, os.PathLike)):
        return os.fspath(recipe), None
    if isinstance(recipe, Mapping):
        return "-", json.dumps(recipe, default=str, indent=1)
    if hasattr(recipe, "to_yaml"):
        return "-", _yaml_of(recipe)
    raise TypeError("recipe must be a path, a shipped recipe name, a dict or an object with "
                    f"to_yaml() (a Megatron-Bridge ConfigContainer), not {type(recipe).__name__}")


def _override_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, (list, tuple, dict)):
        return json.dumps(value)
    return str(value)


def _override_words(overrides: Union[None, Mapping[str, Any], Sequence[str]]) -> List[str]:
    """Hydra overrides as words: a dict {"model.context_parallel_size": 4} or "k=v" strings."""
    if overrides is None:
        return []
    if isinstance(overrides, str):
        return [overrides]
    if isinstance(overrides, Mapping):
        return [f"{key}={_override_value(value)}" for key, value in overrides.items()]
    return [str(word) for word in overrides]


def _option_words(**options: Any) -> List[str]:
    """--flag value for every option that is set (underscores become dashes)."""
    words = []
    for name, value in options.items():
        if value is not None:
            words += ["--" + name.replace("_", "-"), str(value)]
    return words


# --- the calls ---------------------------------------------------------------------------------

def validate(recipe: RecipeLike, overrides=None, *, world_size: Optional[int] = None,
             nodes: Optional[int] = None, gpus_per_node: Optional[int] = None,
             te_version: Optional[str] = None, args: Sequence[str] = (),
             binary: Optional[str] = None, timeout: float = 300) -> Findings:
    """Check a recipe against every context-parallel rule (`hcp-plan validate --format json`).

    recipe: a path, a shipped recipe name, a dict, or an object with to_yaml() (a
    Megatron-Bridge ConfigContainer). overrides: {"key": value} or ["key=value", ...] in Hydra
    grammar. args: further validate options ("--te-version", "2.18.0", ...).
    Return the findings (errors, warnings, infos); `.ok` is False when a rule reported an error.
    Raise HcpPlanError with the tool's one-line message on bad input (exit 2) or a missing
    environment (exit 3)."""
    recipe_arg, stdin = _recipe_input(recipe)
    command = ["validate", recipe_arg, *_override_words(overrides), "--format", "json",
               *_option_words(world_size=world_size, nodes=nodes, gpus_per_node=gpus_per_node,
                              te_version=te_version), *args]
    result = _run(command, stdin, binary, timeout)
    if result.returncode not in (EXIT_OK, EXIT_FINDINGS):
        findings = None
        with contextlib.suppress(HcpPlanError):
            raw = _parse_json(result.stdout, result)
            findings = Findings([Finding.from_json(d) for d in raw.get("diagnostics", [])],
                                result.returncode, raw)
        raise HcpPlanError(_one_line_error(result.stderr, result.returncode), result.returncode,
                           result.stderr, findings)
    raw = _parse_json(result.stdout, result)
    return Findings([Finding.from_json(d) for d in raw.get("diagnostics", [])],
                    result.returncode, raw)


def plan(recipe: RecipeLike, overrides=None, *, nodes: int, gpus_per_node: Optional[int] = None,
         cluster: Optional[str] = None, top: Optional[int] = None, args: Sequence[str] = (),
         binary: Optional[str] = None, timeout: float = 300) -> Plan:
    """Rank layouts for a recipe on `nodes` nodes (`hcp-plan plan --format json`).

    Return the options best first (`.recommended` is None when no layout fits in memory).
    Raise HcpPlanError with the tool's one-line message on bad input."""
    recipe_arg, stdin = _recipe_input(recipe)
    command = ["plan", recipe_arg, *_override_words(overrides), "--format", "json",
               *_option_words(nodes=nodes, gpus_per_node=gpus_per_node, cluster=cluster,
                              top=top), *args]
    result = _run(command, stdin, binary, timeout)
    if result.returncode not in (EXIT_OK, EXIT_FINDINGS):
        raise HcpPlanError(_one_line_error(result.stderr, result.returncode), result.returncode,
                           result.stderr)
    raw = _parse_json(result.stdout, result)
    return Plan([Option.from_json(o) for o in raw.get("options", [])],
                list(raw.get("summary", [])), result.returncode, raw)


def check_config(config: RecipeLike, overrides=None, *, world_size: Optional[int] = None,
                 nodes: Optional[int] = None, gpus_per_node: Optional[int] = None,
                 fail_on: str = "error", **kwargs: Any) -> Findings:
    """Validate a training config before pretrain(): a Megatron-Bridge ConfigContainer (or any
    object with to_yaml()), a dict, or a recipe path. Without a world size it takes $WORLD_SIZE
    (set by torchrun) when present. Raise ValidationFailed, one line per finding, when a
    finding is at least `fail_on` ("error" or "warning"); else return the findings."""
    if fail_on not in ("error", "warning"):
        raise ValueError(f"fail_on must be 'error' or 'warning', not {fail_on!r}")
    if world_size is None and nodes is None and os.environ.get("WORLD_SIZE", "").isdigit():
        world_size = int(os.environ["WORLD_SIZE"])
    findings = validate(config, overrides, world_size=world_size, nodes=nodes,
                        gpus_per_node=gpus_per_node, **kwargs)
    failing = findings.errors + (findings.warnings if fail_on == "warning" else [])
    if failing:
        lines = "\n".join(str(f) for f in failing)
        raise ValidationFailed(f"hcp-plan found {len(failing)} problem(s):\n{lines}",
                               findings.exit_code, "", findings)
    return findings
