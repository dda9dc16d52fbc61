"""Validate and plan Megatron context parallelism from Python with the hcp-plan binary.

    import hcp_plan

    findings = hcp_plan.validate("recipes/llama3_8b_128k.yaml", world_size=32)
    for f in findings.errors:
        print(f.file, f.line, f.id, f.message)

    plan = hcp_plan.plan("llama3_8b_128k", nodes=4, gpus_per_node=8)
    print(plan.recommended.label, plan.recommended.tokens_per_s_per_gpu)

    # In a training script, before pretrain(cfg, ...):
    hcp_plan.check_config(cfg)          # raises hcp_plan.ValidationFailed on rule errors

Every call runs the hcp-plan binary (found as described in find_binary) and parses its JSON.
Bad input (a missing file, a malformed override, ...) raises HcpPlanError with the tool's
one-line message.
"""
from ._api import (
    Finding,
    Findings,
    HcpPlanError,
    HcpPlanNotFound,
    Option,
    Plan,
    ValidationFailed,
    check_config,
    find_binary,
    plan,
    validate,
)

__all__ = [
    "Finding",
    "Findings",
    "HcpPlanError",
    "HcpPlanNotFound",
    "Option",
    "Plan",
    "ValidationFailed",
    "check_config",
    "find_binary",
    "plan",
    "validate",
]
__version__ = "0.1.0"
