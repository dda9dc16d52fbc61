// Internal: turn a full ConfigContainer dump into the canonical partial-tree shape.
#pragma once

#include <map>
#include <string>

#include "hcp/value.h"

namespace hcp::recipe_detail {

/// Normalise a loaded tree in place: drop metadata keys (_target_, _call_, _args_, _partial_,
/// _builder_, ...), turn {_target_: torch.bfloat16, _call_: false} into "torch.bfloat16" and an
/// AttnBackend enum {_args_: [5]} into "auto", flatten model.transformer.<field> into
/// model.<field>, and rename dataset.sequence_length to dataset.seq_length.
void normalize_tree(Value& root);

/// Record the `_target_` of every map below `path` that is a dataclass (has fields besides
/// metadata keys), by dotted path, before normalize_tree drops the metadata keys.
void collect_targets(const Value& map, const std::string& path,
                     std::map<std::string, std::string>& targets);

/// Give offline-packed SFT of Bridge before the gpt_sft rewrite (FinetuningDatasetConfig /
/// HFDatasetConfig with `packed_sequence_specs.packed_sequence_size > 0`, Bridge a9497c6
/// src/megatron/bridge/data/builders/finetuning_dataset.py:91 and training/config.py:1197) the
/// keys today's Bridge and the packing rules read: `dataset.enable_offline_packing: true` and
/// `dataset.offline_packing_specs` (067f987d src/megatron/bridge/data/builders/gpt_sft.py:127-128).
/// Run after the schema check (the old class has no such fields); existing keys are kept. Return
/// true when it wrote them (the recipe's offline specs are then a copy of packed_sequence_specs).
bool canonical_packing(Value& root);

/// Return the AttnBackend member name for its value (flash=1 ... auto=5), or "" when unknown.
const char* attn_backend_name(int64_t value);

}  // namespace hcp::recipe_detail
