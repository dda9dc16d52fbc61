#!/usr/bin/env python3
"""Print the man page's accuracy figures (nroff) from `hcp-plan accuracy --format json` runs.

Usage: man_figures.py BEFORE.json AFTER.json   (before: --builtin; after: the shipped fit)
"""
import json
import sys

SLICES = ["all", "family dense", "family moe", "family hybrid", "CP >1", "NeMo long-seq CP 32K-1M"]


def row(s):
    tau = f"{s['kendall_tau']:.2f}" if s["tau_groups"] else "-"
    return (f"MAPE {100 * s['mape']:.0f}%, median {100 * s['median_ape']:.0f}%, "
            f"{100 * s['within_15']:.0f}% within 15%, tau {tau}")


def main():
    before, after = (json.load(open(p)) for p in sys.argv[1:3])
    out = []
    for name in SLICES:
        b = {s["slice"]: s for s in before["in_sample"]}.get(name)
        a = {s["slice"]: s for s in after["in_sample"]}.get(name)
        al = {s["slice"]: s for s in after.get("leave_one_model_out", [])}.get(name)
        if not (b and a and al):
            continue
        out.append(f".br\n{name} ({a['rows']} rows): before {row(b)}; fitted in-sample {row(a)}; "
                   f"leave-one-model-out {row(al)}.")
    oom = {s["slice"]: s for s in after["in_sample"]}["all"]["predicted_oom"]
    out.append(f".br\nRuns that ran but are predicted out of memory: {oom} of "
               f"{after['in_sample'][0]['rows']}.")
    print("\n".join(out))


if __name__ == "__main__":
    main()
