// The field sets of the ConfigContainer sections. Names, types and defaults come from the tables
// scripts/gen_bridge_schema.py generates from Megatron-Bridge's and Megatron-LM's dataclasses
// (bridge_schema.inc, commits recorded there); this file adds only what upstream's annotations
// cannot say, each with its source.
#include "schema_fields.h"

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <map>
#include <mutex>
#include <span>

namespace hcp::schema_detail {
namespace {

/// The generated tables, as scripts/gen_bridge_schema.py writes them. The three large ones are
/// packed below (kFields, kSectionFields, kClasses): only the packed copies are in the binary.
namespace generated {
struct GenField {
  std::string_view name;
  FieldType type;
  std::string_view default_value;
};
struct GenClass {
  std::string_view name;  ///< Qualified name, as a dump's `_target_` writes it.
  uint16_t first_field;
  uint16_t field_count;
  uint16_t first_base;
  uint16_t base_count;
};
struct GenSection {
  std::string_view name;
  uint16_t first_class;  ///< Into kGenSectionClasses: the classes ConfigContainer declares.
  uint16_t class_count;
  uint16_t first_field;  ///< Into kGenSectionFields: the merged fields of all those classes,
  uint16_t field_count;  ///< their subclasses and their bases.
};

#include "bridge_schema.inc"
}  // namespace generated

using generated::GenField;
using generated::GenSection;
using generated::kBridgeCommit;
using generated::kGenBases;
using generated::kGenSectionClasses;
using generated::kGenSections;

/// A string of a packed table: where it starts in the table's text, and its length.
struct PackedText {
  uint32_t at;
  uint16_t size;
};
struct PackedField {
  PackedText name;
  FieldType type;
  PackedText default_value;
};
struct PackedClass {
  PackedText name;
  uint16_t first_field;
  uint16_t field_count;
  uint16_t first_base;
  uint16_t base_count;
};

/// A generated table with its strings in one character array: a table of pointers (string_view)
/// in a position-independent executable is one relocation per pointer that ld.so writes at every
/// start (11,000 here, 60 pages copied on write, before `validate` reads a byte); offsets into
/// one array need none. Each table is packed by its own constant evaluation, a few steps per
/// character (clang stops one at 2^20 steps).
template <typename Row, size_t Chars, size_t Count>
struct PackedTable {
  char text[Chars] = {};
  Row rows[Count] = {};

  std::string_view text_of(PackedText t) const { return {text + t.at, t.size}; }
  static constexpr size_t size() { return Count; }
};

consteval size_t text_size_of(const generated::GenField& f) {
  return f.name.size() + f.default_value.size();
}
consteval size_t text_size_of(const generated::GenClass& c) {
  return c.name.size();
}
template <typename Source, size_t Count>
consteval size_t text_size(const Source (&source)[Count]) {
  size_t n = 0;
  for (size_t i = 0; i < Count; ++i)
    n += text_size_of(source[i]);
  return n;
}

/// Copy `s` to text[at...] and return where it went.
consteval PackedText pack_text(char* text, size_t& at, std::string_view s) {
  const PackedText packed{static_cast<uint32_t>(at), static_cast<uint16_t>(s.size())};
  const char* from = s.data();
  for (size_t i = 0; i < s.size(); ++i)
    text[at + i] = from[i];
  at += s.size();
  return packed;
}

consteval PackedField pack_row(char* text, size_t& at, const generated::GenField& f) {
  PackedText name = pack_text(text, at, f.name);
  return {name, f.type, pack_text(text, at, f.default_value)};
}
consteval PackedClass pack_row(char* text, size_t& at, const generated::GenClass& c) {
  return {pack_text(text, at, c.name), c.first_field, c.field_count, c.first_base, c.base_count};
}

template <typename Row, size_t Chars, typename Source, size_t Count>
consteval PackedTable<Row, Chars, Count> pack_table(const Source (&source)[Count]) {
  PackedTable<Row, Chars, Count> packed;
  size_t at = 0;
  for (size_t i = 0; i < Count; ++i)
    packed.rows[i] = pack_row(packed.text, at, source[i]);
  return packed;
}

constexpr auto kFields =
    pack_table<PackedField, text_size(generated::kGenFields)>(generated::kGenFields);
constexpr auto kSectionFields =
    pack_table<PackedField, text_size(generated::kGenSectionFields)>(generated::kGenSectionFields);
constexpr auto kClasses =
    pack_table<PackedClass, text_size(generated::kGenClasses)>(generated::kGenClasses);

template <typename Table>
FieldSpec spec_of(const Table& table, size_t index) {
  const PackedField& f = table.rows[index];
  return FieldSpec{table.text_of(f.name), f.type, false, table.text_of(f.default_value)};
}

/// Fields that are sizes or dimensions: every integer must lie in [1, 2^31). hcp-plan's own
/// bound (a zero or negative size makes Megatron divide by zero or build empty groups), not an
/// annotation upstream writes.
constexpr std::string_view kSizeFields[] = {
    "model.context_parallel_size",
    "model.expert_model_parallel_size",
    "model.expert_tensor_parallel_size",
    "model.ffn_hidden_size",
    "model.hidden_size",
    "model.hierarchical_context_parallel_sizes",
    "model.kv_channels",
    "model.max_seqlen_per_dp_cp_rank",
    "model.min_dynamic_context_parallel_size",
    "model.moe_router_topk",
    "model.num_attention_heads",
    "model.num_layers",
    "model.num_moe_experts",
    "model.num_query_groups",
    "model.pipeline_model_parallel_size",
    "model.seq_length",
    "model.tensor_model_parallel_size",
    "model.virtual_pipeline_model_parallel_size",
    "model.vocab_size",
    "train.global_batch_size",
    "train.micro_batch_size",
    "validation.eval_global_batch_size",
    "validation.eval_micro_batch_size",
    "dataset.context_parallel_size",
    "dataset.micro_batch_size",
    "dataset.seq_length",
    "dataset.sequence_length",
    "dist.eval_context_parallel_size",
};

/// Fields a recipe may not set to null. Bridge applies a YAML or override null as Python None
/// (Megatron-Bridge 067f987d src/megatron/bridge/training/utils/omegaconf_utils.py:105-160
/// process_config_with_overrides: OmegaConf.create of the dataclass dict, merge, then
/// _apply_overrides:454-515 setattr), and these are declared without Optional (Megatron-LM
/// 2a75ac12, the MCore Bridge pins): megatron/core/model_parallel_config.py:55,83,100,127
/// (`tensor_model_parallel_size: int = 1`, pipeline, context, expert alike),
/// megatron/core/transformer/transformer_config.py:65,138,141 (`num_layers`, `hidden_size`,
/// `num_attention_heads: int = 0`), and Bridge training/config.py:231 (the dataset's
/// `seq_length: int`, required; run_recipe.py copies it into model.seq_length, whose own null is
/// reported as having no effect). Megatron computes with each of them at start-up
/// (transformer_config.py:1351 `num_attention_heads % tensor_model_parallel_size`,
/// parallel_state.py:815-822 the model-parallel product), so None is a TypeError after the job
/// has its nodes. A field whose class in effect defaults to None (a provider that makes num_layers
/// Optional) still takes null.
constexpr std::string_view kNullRefusedFields[] = {
    "model.context_parallel_size",
    "model.expert_model_parallel_size",
    "model.hidden_size",
    "model.num_attention_heads",
    "model.num_layers",
    "model.pipeline_model_parallel_size",
    "model.tensor_model_parallel_size",
    "dataset.seq_length",
};

/// Model fields of Megatron-LM's dev branch (d48bd6be, megatron/core/transformer/
/// transformer_config.py and model_parallel_config.py) that Bridge's pinned MCore lacks; the
/// rules read them, so recipes written for the dev branch may set them.
constexpr GenField kMcoreDevModelFields[] = {
    {"attn_mask_type", FieldType::kString, "None"},
    {"cp_partition_mode", FieldType::kString, "'zigzag'"},
    {"dynamic_context_parallel", FieldType::kBool, "False"},
    {"linear_cp_mode", FieldType::kString, "None"},
    {"min_dynamic_context_parallel_size", FieldType::kInt, "1"},
    {"pad_packed_seq_alignment", FieldType::kAny, "None"},
    {"sequence_packing_scheduler", FieldType::kString, "None"},
    {"thd_max_packed_sequences", FieldType::kInt, "None"},
    {"thd_tail_padding_policy", FieldType::kString, "None"},
};

int class_index(std::string_view name) {
  for (size_t i = 0; i < kClasses.size(); ++i) {
    if (kClasses.text_of(kClasses.rows[i].name) == name) return static_cast<int>(i);
  }
  return -1;
}

/// Add the own fields of class `index` and of its bases (bases first; a subclass redeclaring a
/// field replaces its type) to `fields`.
void add_class(size_t index, std::map<std::string_view, FieldSpec>& fields, int depth = 0) {
  if (depth > 32) return;  // Generated bases form no cycle; guard anyway.
  const PackedClass& c = kClasses.rows[index];
  // Python's MRO puts the first base first: add the last base first so the first one wins.
  for (uint16_t b = c.base_count; b-- > 0;) {
    size_t base = kGenBases[c.first_base + b];
    if (base != index) add_class(base, fields, depth + 1);
  }
  for (uint16_t f = 0; f < c.field_count; ++f) {
    const FieldSpec spec = spec_of(kFields, c.first_field + f);
    auto [it, inserted] = fields.try_emplace(spec.name, spec);
    if (!inserted) {
      it->second.type = spec.type;
      it->second.default_value = spec.default_value;
    }
  }
}

bool descends_from(size_t index, size_t ancestor, int depth = 0) {
  if (index == ancestor) return true;
  if (depth > 32) return false;
  const PackedClass& c = kClasses.rows[index];
  for (uint16_t b = 0; b < c.base_count; ++b) {
    size_t base = kGenBases[c.first_base + b];
    if (base != index && descends_from(base, ancestor, depth + 1)) return true;
  }
  return false;
}

/// The set of `fields` (in any order; of two with one name the first stays), its size fields
/// marked. `validate` builds the sets of a recipe's sections at every start: the generated
/// fields come sorted, and the model's extra ones (sorted too) are merged in, not sorted again.
FieldSet to_set(std::string_view section, std::vector<FieldSpec> fields) {
  auto by_name = [](const FieldSpec& a, const FieldSpec& b) { return a.name < b.name; };
  auto unsorted = std::is_sorted_until(fields.begin(), fields.end(), by_name);
  if (std::is_sorted(unsorted, fields.end(), by_name)) {
    std::inplace_merge(fields.begin(), unsorted, fields.end(), by_name);  // stable
  } else {
    std::stable_sort(fields.begin(), fields.end(), by_name);
  }
  auto same_name = [](const FieldSpec& a, const FieldSpec& b) { return a.name == b.name; };
  fields.erase(std::unique(fields.begin(), fields.end(), same_name), fields.end());
  FieldSet set{std::move(fields)};
  for (std::string_view qualified : kSizeFields) {
    if (qualified.size() <= section.size() || !qualified.starts_with(section) ||
        qualified[section.size()] != '.') {
      continue;
    }
    auto it =
        std::lower_bound(set.fields.begin(), set.fields.end(),
                         FieldSpec{qualified.substr(section.size() + 1), {}, false, {}}, by_name);
    if (it != set.fields.end() && it->name == qualified.substr(section.size() + 1)) it->size = true;
  }
  return set;
}

/// The generated fields `fields`, then (for the model section) Megatron-LM dev's extra ones.
std::vector<FieldSpec> with_dev_fields(std::string_view section, std::vector<FieldSpec> fields) {
  if (section == "model") {
    for (const GenField& g : kMcoreDevModelFields)
      fields.push_back(FieldSpec{g.name, g.type, false, g.default_value});
  }
  return fields;
}

std::string_view section_of_class(size_t index) {
  for (const GenSection& s : kGenSections) {
    for (uint16_t i = 0; i < s.class_count; ++i) {
      if (descends_from(index, kGenSectionClasses[s.first_class + i])) return s.name;
    }
  }
  return {};
}

std::mutex& cache_mutex() {
  static std::mutex m;
  return m;
}

}  // namespace

const FieldSpec* FieldSet::find(std::string_view name) const {
  auto it = std::lower_bound(fields.begin(), fields.end(), name,
                             [](const FieldSpec& f, std::string_view n) { return f.name < n; });
  return it != fields.end() && it->name == name ? &*it : nullptr;
}

std::vector<std::string> FieldSet::names() const {
  std::vector<std::string> out;
  out.reserve(fields.size());
  for (const FieldSpec& f : fields)
    out.emplace_back(f.name);
  return out;
}

const FieldSet* class_fields(std::string_view qualified_name) {
  static std::map<std::string, FieldSet, std::less<>> cache;
  std::lock_guard<std::mutex> lock(cache_mutex());
  if (auto it = cache.find(qualified_name); it != cache.end()) return &it->second;
  int index = class_index(qualified_name);
  if (index < 0) return nullptr;
  std::map<std::string_view, FieldSpec> fields;
  add_class(static_cast<size_t>(index), fields);
  std::string_view section = section_of_class(static_cast<size_t>(index));
  std::vector<FieldSpec> own;
  own.reserve(fields.size());
  for (const auto& [name, spec] : fields)
    own.push_back(spec);
  return &cache
              .emplace(std::string(qualified_name),
                       to_set(section, with_dev_fields(section, std::move(own))))
              .first->second;
}

const FieldSet* section_fields(std::string_view section) {
  static std::map<std::string, FieldSet, std::less<>> cache;
  std::lock_guard<std::mutex> lock(cache_mutex());
  if (auto it = cache.find(section); it != cache.end()) return &it->second;
  const GenSection* spec = nullptr;
  for (const GenSection& s : kGenSections) {
    if (s.name == section) spec = &s;
  }
  if (spec == nullptr || spec->class_count == 0) return nullptr;
  std::vector<FieldSpec> fields;
  fields.reserve(spec->field_count + std::size(kMcoreDevModelFields));
  for (uint16_t f = 0; f < spec->field_count; ++f)
    fields.push_back(spec_of(kSectionFields, spec->first_field + f));
  return &cache
              .emplace(std::string(section),
                       to_set(section, with_dev_fields(section, std::move(fields))))
              .first->second;
}

const std::vector<std::string>& dataclass_sections() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const GenSection& s : kGenSections) {
      if (s.class_count > 0) out.emplace_back(s.name);
    }
    return out;
  }();
  return names;
}

bool refuses_null(std::string_view dotted) {
  return std::find(std::begin(kNullRefusedFields), std::end(kNullRefusedFields), dotted) !=
         std::end(kNullRefusedFields);
}

std::string_view schema_bridge_commit() {
  return kBridgeCommit;
}

}  // namespace hcp::schema_detail
