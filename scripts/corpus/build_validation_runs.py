#!/usr/bin/env python3
"""Write recipes/corpus/validation_runs.json: hcp-plan's independent validation set.

The rows are published end-to-end training throughput from sources that are NOT in
recipes/corpus/measured_runs.json (whose rows the cost model is fitted to). They are transcribed
here as the publications print them (one table line per row, columns named in each table's
`columns`), with the source cited per table; nothing is fitted to them.

Usage: scripts/corpus/build_validation_runs.py [OUT_JSON]   (default recipes/corpus/validation_runs.json)
"""
import json
import os
import sys

sys.dont_write_bytecode = True  # keep scripts/corpus free of __pycache__
from validation_tables import DGXC_EP, DGXC_GA, DGXC_REPO, DGXC_SETTINGS_WHY, DGXC_TABLES, LF_ROWS, MODELS, MZ_ROWS, SOURCES, TABLES, TORCHTITAN_ROWS


def number(text):
    """A published cell: an int, a float, or None for an empty / not-published cell."""
    text = text.strip()
    if text in ("", "-", "n/a"):
        return None
    try:
        return int(text)
    except ValueError:
        return float(text)


def row_of(table, cells, index):
    cols = table["columns"]
    if len(cells) != len(cols):
        raise SystemExit(f"{table['id']} line {index}: {len(cells)} cells for {len(cols)} columns")
    raw = dict(zip(cols, (c.strip() for c in cells)))
    model_name = raw.pop("model")
    label = raw.pop("label", None)
    model = table["model_keys"].get(model_name)
    values = {k: number(v) for k, v in raw.items()}
    row = {
        "id": f"{table['id']}-{label or model_name}".replace(" ", "_"),
        "kind": table["kind"],
        "framework": table["framework"],
        "source": dict(table["source"], table_model=model_name),
        "model": model,
        "system": table["system"],
        "cluster": table["cluster"],
        "precision": table["precision"],
        "task": table.get("task", "pre-training"),
    }
    for key in ("num_gpus", "global_batch", "micro_batch", "seq_length", "tp", "pp", "cp", "vp",
                "ep", "fsdp"):
        row[key] = values.pop(key, table.get("fixed", {}).get(key))
    measured = {}
    for key in ("tokens_per_s_per_gpu", "model_tflops_per_gpu", "mfu"):
        if values.get(key) is not None:
            measured[key] = values.pop(key)
        else:
            values.pop(key, None)
    row["measured"] = measured
    extra = {k: v for k, v in values.items() if v is not None}
    settings = dict(table.get("settings", {}))
    settings.update(extra)
    own = table.get("row_settings", {}).get(label or model_name)
    if own:
        settings.update(own)
    row["settings"] = settings
    row["settings_source"] = {"found": False, "why": table["settings_why"]}
    read_from = [table.get("settings_read_from"), table.get("row_settings_read_from") if own else None]
    if any(read_from):
        row["settings_source"]["read_from"] = "; ".join(r for r in read_from if r)
    notes = table.get("row_notes", {}).get(label or model_name)
    if notes:
        row.update(notes)
    if model is None:
        row["excluded"] = table["unmodelled"].get(model_name, "no model dimensions")
    return row


def rows_of(table):
    out = []
    for index, line in enumerate(table["rows"].strip().splitlines()):
        out.append(row_of(table, line.strip().strip("|").split("|"), index))
    return out


def dgxc_rows(table):
    """The rows of one DGX Cloud Benchmarking scaling table (one per GPU count)."""
    out = []
    lay = table["layout"]
    strong = "strong" in table["section"].lower()
    for gpus, gbs, step_s, tokens_per_s in table["points"]:
        key = (table["section"], gpus)
        row = {
            "id": "dgxc-{}-{}-{}-{}-{}g{}".format(table["release"], table["system"], table["model"],
                                                table["precision"], gpus, "-strong" if strong else ""),
            "kind": "dgxc_benchmarking",
            "framework": "nemo",
            "source": {"title": "DGX Cloud Benchmarking performance recipe", "repo": DGXC_REPO,
                       "path": table["path"], "commit": table["commit"],
                       "release": table["release"],
                       "location": "section 'Expected Performance', table '{}'".format(table["section"])},
            "model": table["model"], "system": table["system"], "cluster": table["cluster"],
            "precision": table["precision"], "task": "pre-training",
            "num_gpus": gpus, "global_batch": gbs, "micro_batch": lay["micro_batch"],
            "seq_length": lay["seq_length"], "tp": lay["tp"], "pp": lay["pp"], "cp": lay["cp"],
            "vp": lay["vp"], "ep": DGXC_EP.get(key, lay["ep"]), "fsdp": lay["fsdp"],
            "measured": {"tokens_per_s_per_gpu": round(tokens_per_s / gpus, 1),
                         "derived": "published tokens per second of the job / num_gpus",
                         "published": {"step_time_s": step_s, "tokens_per_s": tokens_per_s}},
            "settings": {k: v for k, v in {
                "grad_accum": DGXC_GA.get(key, lay["grad_accum"]),
                "expert_tensor_parallel_size": lay.get("expert_tensor_parallel_size")}.items()
                if v is not None},
            "settings_source": {"found": False, "why": DGXC_SETTINGS_WHY},
        }
        if table.get("settings"):
            row["settings"].update(table["settings"])
            row["settings_source"]["read_from"] = table["settings_read_from"]
        if table.get("note"):
            row["note"] = table["note"]
        out.append(row)
    return out


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    if len(sys.argv) > 2 or (len(sys.argv) == 2 and sys.argv[1].startswith("-")):
        raise SystemExit(__doc__.strip().splitlines()[0] if __doc__ else "usage: build_validation_runs.py [OUT_JSON]")
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        here, "..", "..", "recipes", "corpus", "validation_runs.json")
    rows = [r for t in TABLES for r in rows_of(t)] + [r for t in DGXC_TABLES for r in dgxc_rows(t)] + TORCHTITAN_ROWS + MZ_ROWS + LF_ROWS
    ids = [r["id"] for r in rows]
    dup = {i for i in ids if ids.count(i) > 1}
    if dup:
        raise SystemExit(f"duplicate row ids: {sorted(dup)}")
    doc = {
        "what": ("hcp-plan's independent validation set: published end-to-end training throughput "
                 "from sources outside measured_runs.json. These rows are NEVER fitted: `hcp-plan "
                 "accuracy` only predicts them and reports the error (MAPE, Kendall tau inside "
                 "(model, system, precision) groups, band coverage)."),
        "built_by": "scripts/corpus/build_validation_runs.py from scripts/corpus/validation_tables.py "
                    "(tables transcribed as published); checked by scripts/corpus/check_validation_runs.py",
        "sources": SOURCES,
        "metric": ("measured.tokens_per_s_per_gpu as published where a table prints it; otherwise "
                   "measured.model_tflops_per_gpu as published (compare through "
                   "hcp::accuracy::model_flops_per_token) or measured.mfu (fraction, the "
                   "publication's own FLOP count and peak; see each source)"),
        "models_note": ("`models` holds only the models that measured_runs.json's `models` lacks; "
                        "rows naming LLAMA3_8B, LLAMA3_70B or LLAMA2_7B use measured_runs.json's "
                        "dimensions (a loader must merge both `models` blocks)."),
        "models": MODELS,
        "rows": rows,
    }
    with open(out, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    print(f"{out}: {len(rows)} rows, {len(MODELS)} models")


if __name__ == "__main__":
    main()
