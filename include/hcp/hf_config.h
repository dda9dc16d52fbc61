// Hugging Face `config.json` -> model dimensions of a recipe, with Megatron-Bridge's field
// mapping (bridge.md §5: num_key_value_heads -> num_query_groups, head_dim -> kv_channels, ...)
// and the per-family extras that matter for context parallelism (sliding windows, sinks, MLA,
// Mamba, linear attention).
#pragma once

#include <string>
#include <string_view>

#include "hcp/diagnostic.h"
#include "hcp/recipe.h"

namespace hcp {

/// Fill `recipe`'s model section from the HF config text. Architecture fields replace the
/// recipe's; `model.seq_length` / `dataset.seq_length` are taken from max_position_embeddings
/// only when the recipe has no sequence length. `path` is used in locations (each value is
/// located at its key in the file). Return an Error for malformed JSON, a root that is not an
/// object, a config without num_hidden_layers / hidden_size / num_attention_heads, or a field of
/// the wrong type.
Status apply_hf_config_text(Recipe& recipe, std::string_view json_text, const std::string& path);

/// Read `path` and apply it as apply_hf_config_text does. Error when the file cannot be read.
Status apply_hf_config(Recipe& recipe, const std::string& path);

}  // namespace hcp
