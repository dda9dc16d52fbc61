// Internal: turn a full ConfigContainer dump into the canonical partial-tree shape.
#pragma once

#include "hcp/value.h"

namespace hcp::recipe_detail {

/// Normalise a loaded tree in place: drop metadata keys (_target_, _call_, _args_, _partial_,
/// _builder_, ...), turn {_target_: torch.bfloat16, _call_: false} into "torch.bfloat16" and an
/// AttnBackend enum {_args_: [5]} into "auto", flatten model.transformer.<field> into
/// model.<field>, and rename dataset.sequence_length to dataset.seq_length.
void normalize_tree(Value& root);

/// Return the AttnBackend member name for its value (flash=1 ... auto=5), or "" when unknown.
const char* attn_backend_name(int64_t value);

}  // namespace hcp::recipe_detail
