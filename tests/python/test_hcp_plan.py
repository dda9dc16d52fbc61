"""The hcp_plan package, installed by run_pytest.sh, against the built hcp-plan binary.

Environment: HCP_PLAN_TEST_BIN (the binary) and HCP_PLAN_SOURCE_DIR (the checkout).
"""
import os
import pathlib
import sys

import pytest

import hcp_plan

BIN = os.environ["HCP_PLAN_TEST_BIN"]
SRC = pathlib.Path(os.environ["HCP_PLAN_SOURCE_DIR"])
RECIPE = str(SRC / "recipes" / "llama3_8b_128k.yaml")
# A recipe whose own layout fits on 4 x 8 H100 (llama3_8b_128k's does not: CP115 warns).
CLEAN_RECIPE = str(SRC / "recipes" / "qwen3_8b_32k.yaml")
FULL_DUMP = SRC / "tests" / "fixtures" / "recipe" / "full_dump_llama32_1b.yaml"


@pytest.fixture(autouse=True)
def _binary(monkeypatch):
    monkeypatch.setenv("HCP_PLAN_BIN", BIN)
    monkeypatch.delenv("WORLD_SIZE", raising=False)


def line_of(path, text):
    """1-based number of the first line of `path` that contains `text`."""
    for number, line in enumerate(pathlib.Path(path).read_text().splitlines(), start=1):
        if text in line:
            return number
    raise AssertionError(f"{text!r} not in {path}")


class ToYamlWritesFile:
    """Megatron-Bridge's ConfigContainer.to_yaml(yaml_path=None): writes the file it is given."""

    def __init__(self, text):
        self.text = text

    def to_yaml(self, yaml_path=None):
        if yaml_path is None:
            print(self.text)
        else:
            pathlib.Path(yaml_path).write_text(self.text)


class ToYamlPrints:
    """An older to_yaml() without a path: it prints the YAML."""

    def __init__(self, text):
        self.text = text

    def to_yaml(self):
        print(self.text)


def test_the_installed_copy_is_under_test():
    installed = pathlib.Path(hcp_plan.__file__).resolve()
    assert SRC / "python" not in installed.parents
    from hcp_plan import _build_info  # written by the offline build backend
    assert pathlib.Path(_build_info.SOURCE_TREE) == SRC


def test_a_clean_recipe_has_no_errors():
    findings = hcp_plan.validate(CLEAN_RECIPE, nodes=4, gpus_per_node=8)
    assert findings.ok
    assert findings.exit_code == 0
    assert findings.errors == []
    assert findings, "the tool's notes (infos) are findings too"
    assert {f.severity for f in findings} == {"info"}
    assert all(isinstance(f, hcp_plan.Finding) for f in findings)


def test_errors_carry_rule_id_file_and_line():
    findings = hcp_plan.validate(RECIPE, {"model.context_parallel_size": 3}, world_size=32)
    assert not findings.ok
    assert findings.exit_code == 1
    by_id = {f.id: f for f in findings.errors}
    assert set(by_id) >= {"CP001", "CP040"}
    cp040 = by_id["CP040"]
    assert cp040.severity == "error"
    assert cp040.file == RECIPE
    assert cp040.line == line_of(RECIPE, "seq_length:")
    assert "divisible by 2 * context parallel size" in cp040.message
    cp001 = by_id["CP001"]
    assert (cp001.file, cp001.line) == ("<override 1>", 1)
    assert "world size (32)" in cp001.message
    assert str(cp001).startswith("<override 1>:1:")
    assert "[CP001]" in str(cp001)


@pytest.mark.parametrize("overrides", [
    {"model.context_parallel_size": 3},
    ["model.context_parallel_size=3"],
    "model.context_parallel_size=3",
])
def test_overrides_as_dict_list_or_string(overrides):
    findings = hcp_plan.validate(RECIPE, overrides, world_size=32)
    assert "CP001" in {f.id for f in findings.errors}


def test_a_dict_is_validated_through_standard_input():
    config = {"model": {"context_parallel_size": 3, "seq_length": 4096, "num_layers": 2,
                        "hidden_size": 1024, "num_attention_heads": 8}}
    findings = hcp_plan.validate(config, world_size=8)
    errors = {f.id: f for f in findings.errors}
    assert set(errors) == {"CP001", "CP040"}
    assert errors["CP040"].file == "<stdin>"
    assert errors["CP040"].line > 1  # the JSON is written one key per line
    config["model"]["context_parallel_size"] = 2
    assert hcp_plan.validate(config, world_size=8).ok


@pytest.mark.parametrize("container_type", [ToYamlWritesFile, ToYamlPrints])
def test_check_config_takes_a_config_container(container_type):
    container = container_type(FULL_DUMP.read_text())
    # The dump's dataset sequence length (1024) disagrees with the model's (131072): CP042.
    with pytest.raises(hcp_plan.ValidationFailed) as failed:
        hcp_plan.check_config(container, world_size=8)
    assert "[CP042]" in str(failed.value)
    assert "<stdin>:" in str(failed.value)
    assert [f.id for f in failed.value.findings.errors] == ["CP042"]
    # The same config with the lengths agreeing passes.
    findings = hcp_plan.check_config(container, {"dataset.sequence_length": 131072}, world_size=8)
    assert findings.ok


def test_check_config_reads_world_size_from_torchrun(monkeypatch):
    monkeypatch.setenv("WORLD_SIZE", "32")
    with pytest.raises(hcp_plan.ValidationFailed) as failed:
        hcp_plan.check_config(RECIPE, {"model.context_parallel_size": 3})
    assert "world size (32)" in str(failed.value)


def test_check_config_fails_on_warnings_when_asked():
    findings = hcp_plan.check_config(CLEAN_RECIPE, nodes=4, gpus_per_node=8, fail_on="warning")
    assert findings.warnings == []
    with pytest.raises(hcp_plan.ValidationFailed):  # CP115: its own layout is over 80 GiB
        hcp_plan.check_config(RECIPE, nodes=4, gpus_per_node=8, fail_on="warning")
    with pytest.raises(ValueError):
        hcp_plan.check_config(RECIPE, fail_on="info")


def test_bad_input_raises_the_tools_one_line_message():
    with pytest.raises(hcp_plan.HcpPlanError) as bad:
        hcp_plan.validate("/nonexistent/recipe.yaml")
    assert str(bad.value) == "/nonexistent/recipe.yaml: no such file"
    assert bad.value.exit_code == 2
    with pytest.raises(hcp_plan.HcpPlanError) as bad:
        hcp_plan.validate(RECIPE, ["context_parallel_size=3"], world_size=32)
    assert "unknown section 'context_parallel_size'" in str(bad.value)
    assert "\n" not in str(bad.value)
    assert bad.value.findings.errors[0].file == "<override 1>"


def test_plan_returns_the_ranked_options():
    result = hcp_plan.plan(RECIPE, nodes=4, gpus_per_node=8, cluster="dgx-h100", top=3)
    assert result.exit_code == 0
    assert result.options
    recommended = [o for o in result.options if o.recommended]
    assert len(recommended) == 1
    assert result.recommended is result.options[0]
    for option in result.options:
        assert option.tp * option.cp * option.pp * option.dp == 32
        assert option.tokens_per_s_per_gpu_low <= option.tokens_per_s_per_gpu
        assert option.tokens_per_s_per_gpu <= option.tokens_per_s_per_gpu_high
        assert option.label
    assert result.summary and result.summary[0].startswith("recommended:")
    # The recipe's own layout ranks below the three listed; it is there all the same.
    own = result.recipe_option
    assert own is not None and own.recipe_layout
    assert own not in result.options
    assert (own.tp, own.cp, own.cp_comm_type) == (1, 16, "a2a+p2p")
    assert own.hierarchical_context_parallel_sizes == (8, 2)
    # Every CP run behind the bands used p2p: an a2a+p2p option's exchange has no run behind it.
    assert own.cp_comm_types_without_runs == ("a2a+p2p",)
    for option in result.options:
        assert option.cp_comm_types_without_runs == (
            () if option.cp == 1 or option.cp_comm_type == "p2p" else (option.cp_comm_type,))


def test_a_rejected_recipe_layout_has_no_option():
    result = hcp_plan.plan(RECIPE, {"model.hierarchical_context_parallel_sizes": [4, 2]},
                           nodes=4, gpus_per_node=8, top=2)
    assert result.recipe_option is None
    assert "must equal context_parallel_size" in result.raw["recipe_layout"]["message"]


def test_plan_bad_input_raises():
    with pytest.raises(hcp_plan.HcpPlanError) as bad:
        hcp_plan.plan(RECIPE, nodes=0)
    assert "--nodes: '0' is below the physical range [1, 1048576]" in str(bad.value)
    assert bad.value.exit_code == 2


def test_a_missing_binary_says_how_to_get_one(monkeypatch, tmp_path):
    monkeypatch.setenv("HCP_PLAN_BIN", str(tmp_path / "nothing"))
    with pytest.raises(hcp_plan.HcpPlanNotFound) as missing:
        hcp_plan.validate(RECIPE)
    assert "HCP_PLAN_BIN names" in str(missing.value)


def test_the_binary_is_found_on_path(monkeypatch, tmp_path):
    monkeypatch.delenv("HCP_PLAN_BIN")
    (tmp_path / "hcp-plan").symlink_to(BIN)
    monkeypatch.setenv("PATH", str(tmp_path))
    assert hcp_plan.find_binary() == str(tmp_path / "hcp-plan")
    assert hcp_plan.validate(RECIPE, nodes=4, gpus_per_node=8).ok


def test_without_path_the_source_trees_build_is_used(monkeypatch, tmp_path):
    monkeypatch.delenv("HCP_PLAN_BIN")
    monkeypatch.setenv("PATH", str(tmp_path))  # empty: no hcp-plan on PATH
    built = SRC / "build" / "hcp-plan"
    if built.exists():
        assert hcp_plan.find_binary() == str(built)
    else:
        with pytest.raises(hcp_plan.HcpPlanNotFound) as missing:
            hcp_plan.find_binary()
        assert "HCP_PLAN_BIN" in str(missing.value) and "make run" in str(missing.value)


def test_other_recipe_types_are_refused():
    with pytest.raises(TypeError):
        hcp_plan.validate(42)


if __name__ == "__main__":
    sys.exit(pytest.main([__file__]))
