// Sequence-length inputs: a text or JSON list, a Megatron indexed-dataset `.idx`, or a synthetic
// log-normal draw.
#include <nlohmann/json.hpp>

#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <type_traits>

#include "hcp/checked.h"
#include "hcp/file_input.h"
#include "hcp/json_io.h"
#include "hcp/text_util.h"
#include "schedule_internal.h"

namespace hcp::dcp {
namespace {

// Megatron stores lengths as int32; larger values would also overflow L*L in the cost model.
constexpr int64_t kMaxLength = std::numeric_limits<int32_t>::max();

Error located(const std::string& name, int line, const std::string& message) {
  return Error{message, Location{name, line, 0}, ""};
}

Status check_length(int64_t value, size_t index, const std::string& name, int line) {
  if (value <= 0) {
    return located(name, line,
                   "sample " + std::to_string(index) + " has length " + std::to_string(value) +
                       "; sequence lengths must be > 0");
  }
  if (value > kMaxLength) {
    return located(name, line,
                   "sample " + std::to_string(index) + " has length " + std::to_string(value) +
                       ", more than 2^31-1 tokens");
  }
  return Ok{};
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
    s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
    s.remove_suffix(1);
  return s;
}

Result<std::vector<int64_t>> parse_json_list(std::string_view text, const std::string& name) {
  auto parsed = parse_json_input(text, name, "JSON lengths list");
  if (!parsed) return parsed.error();
  const nlohmann::json& doc = *parsed;
  if (!doc.is_array()) return make_error(name + ": expected a JSON list of integers");
  std::vector<int64_t> out;
  out.reserve(doc.size());
  for (size_t i = 0; i < doc.size(); ++i) {
    const nlohmann::json& v = doc[i];
    if (!v.is_number_integer()) {
      return make_error(name + ": element " + std::to_string(i) +
                        " is not an integer: " + v.dump());
    }
    if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(kMaxLength)) {
      // Said as written: capped to fit an int64 first, 2^63-1 was reported as 2^62.
      return located(
          name, 0,
          "sample " + std::to_string(i) + " has length " + v.dump() + ", more than 2^31-1 tokens");
    }
    const int64_t value = v.get<int64_t>();
    if (Status ok = check_length(value, i, name, 0); !ok.ok()) return ok.error();
    out.push_back(value);
  }
  return out;
}

/// A line of the input as a message shows it: at most 60 bytes (never half a UTF-8 character),
/// control bytes written as \\xNN. A 1 GiB line of NULs is not a 1 GiB message.
std::string shown(std::string_view line) {
  std::string out = neutralize_controls(utf8_prefix(line, 60));
  return line.size() > 60 ? out + "..." : out;
}

Result<std::vector<int64_t>> parse_lines(std::string_view text, const std::string& name) {
  std::vector<int64_t> out;
  int line_no = 0;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = trim(text.substr(pos, end - pos));
    ++line_no;
    pos = end + 1;
    if (line.empty() || line.front() == '#') continue;
    int64_t value = 0;
    auto [ptr, ec] = std::from_chars(line.data(), line.data() + line.size(), value);
    if (ec == std::errc::result_out_of_range) {
      return located(name, line_no, "length '" + shown(line) + "' is out of range");
    }
    if (ec != std::errc() || ptr != line.data() + line.size()) {
      return located(name, line_no, "expected one integer length, got '" + shown(line) + "'");
    }
    if (Status ok = check_length(value, out.size(), name, line_no); !ok.ok()) return ok.error();
    out.push_back(value);
  }
  return out;
}

}  // namespace

Result<std::vector<int64_t>> parse_lengths_text(std::string_view text, const std::string& name) {
  text = strip_utf8_bom(text);  // as every loader: read_input_file strips it from files too
  std::string_view body = trim(text);
  auto parsed =
      !body.empty() && body.front() == '[' ? parse_json_list(text, name) : parse_lines(text, name);
  if (!parsed.ok()) return parsed;
  if (parsed->empty()) return make_error(name + ": no sequence lengths in the input");
  return parsed;
}

Result<std::vector<int64_t>> read_lengths_file(const std::string& path) {
  auto text = read_input_file(path, InputKind::kLengths);
  if (!text.ok()) return text.error();
  return parse_lengths_text(*text, path);
}

// ---------------------------------------------------------------------------------------------
// Megatron indexed dataset (.idx), dynamic_cp.md §9. Little-endian, no padding: read byte by byte.
// ---------------------------------------------------------------------------------------------
namespace {

constexpr char kIdxMagic[9] = {'M', 'M', 'I', 'D', 'I', 'D', 'X', '\0', '\0'};
constexpr size_t kIdxHeaderSize = 34;

/// Read a little-endian integer at `offset` (the caller checked the bounds).
template <typename T>
T read_le(std::string_view bytes, size_t offset) {
  uint64_t raw = 0;
  for (size_t b = 0; b < sizeof(T); ++b) {
    raw |= static_cast<uint64_t>(static_cast<unsigned char>(bytes[offset + b])) << (8 * b);
  }
  using Unsigned = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<Unsigned>(raw));
}

size_t dtype_size(uint8_t code) {
  switch (code) {
    case 1:  // uint8
    case 2:  // int8
      return 1;
    case 3:  // int16
    case 8:  // uint16
      return 2;
    case 4:  // int32
    case 7:  // float32
      return 4;
    case 5:  // int64
    case 6:  // float64
      return 8;
    default:
      return 0;
  }
}

}  // namespace

namespace {

/// What an .idx header says, checked against the file's size.
struct IdxHeader {
  size_t itemsize = 0;
  uint64_t sequences = 0;
  uint64_t documents = 0;
};

Error idx_error(const std::string& name, const std::string& why) {
  return make_error(name + ": not a valid Megatron .idx: " + why);
}

/// The header of an .idx of `size` bytes whose first bytes are `bytes` (at least the header's
/// 34 when the file has them): magic, version, dtype, and counts that match the size.
Result<IdxHeader> parse_idx_header(std::string_view bytes, uint64_t size, const std::string& name) {
  if (size < kIdxHeaderSize || bytes.size() < kIdxHeaderSize) {
    return idx_error(name,
                     "file has " + std::to_string(size) + " bytes, the header alone needs 34");
  }
  if (std::memcmp(bytes.data(), kIdxMagic, sizeof(kIdxMagic)) != 0) {
    return idx_error(name, "bad magic (expected \"MMIDIDX\\0\\0\")");
  }
  const uint64_t version = read_le<uint64_t>(bytes, 9);
  if (version != 1)
    return idx_error(name, "version " + std::to_string(version) + ", only 1 is known");
  IdxHeader h;
  const uint8_t dtype = static_cast<uint8_t>(bytes[17]);
  h.itemsize = dtype_size(dtype);
  if (h.itemsize == 0) return idx_error(name, "unknown token dtype code " + std::to_string(dtype));
  h.sequences = read_le<uint64_t>(bytes, 18);
  h.documents = read_le<uint64_t>(bytes, 26);
  if (h.sequences > size / 12 || h.documents > size / 8) {  // bounded by the size first
    return idx_error(name, "counts (" + std::to_string(h.sequences) + " sequences, " +
                               std::to_string(h.documents) +
                               " document indices) exceed the file size " + std::to_string(size));
  }
  const uint64_t body = kIdxHeaderSize + 12 * h.sequences + 8 * h.documents;
  if (size != body && size != body + h.sequences) {
    return idx_error(name, "size " + std::to_string(size) + " bytes does not match " +
                               std::to_string(h.sequences) + " sequences and " +
                               std::to_string(h.documents) + " document indices (expected " +
                               std::to_string(body) + " or " + std::to_string(body + h.sequences) +
                               "; truncated?)");
  }
  if (h.sequences == 0) return idx_error(name, "it holds no sequences");
  if (h.documents < 1) return idx_error(name, "document_indices is empty");
  return h;
}

}  // namespace

Result<std::vector<int64_t>> parse_idx_bytes(std::string_view bytes, const std::string& name) {
  auto fail = [&](const std::string& why) { return idx_error(name, why); };
  Result<IdxHeader> header = parse_idx_header(bytes, bytes.size(), name);
  if (!header) return header.error();
  const size_t itemsize = header->itemsize;
  const uint64_t sequences = header->sequences;
  const uint64_t documents = header->documents;

  const size_t lengths_at = kIdxHeaderSize;
  const size_t pointers_at = lengths_at + 4 * sequences;
  const size_t documents_at = pointers_at + 8 * sequences;
  std::vector<int64_t> lengths(sequences);
  int64_t expected_pointer = 0;
  for (uint64_t i = 0; i < sequences; ++i) {
    const int32_t length = read_le<int32_t>(bytes, lengths_at + 4 * i);
    if (length <= 0) {
      return fail("sequence " + std::to_string(i) + " has length " + std::to_string(length) +
                  "; sequence lengths must be > 0");
    }
    const int64_t pointer = read_le<int64_t>(bytes, pointers_at + 8 * i);
    if (pointer != expected_pointer) {
      return fail("sequence_pointers[" + std::to_string(i) + "] = " + std::to_string(pointer) +
                  ", expected " + std::to_string(expected_pointer) +
                  " (cumulative length x itemsize)");
    }
    expected_pointer += static_cast<int64_t>(length) * static_cast<int64_t>(itemsize);
    lengths[i] = length;
  }
  int64_t previous = -1;
  for (uint64_t d = 0; d < documents; ++d) {
    const int64_t index = read_le<int64_t>(bytes, documents_at + 8 * d);
    const bool bad =
        (d == 0 && index != 0) || index < previous || index > static_cast<int64_t>(sequences);
    if (bad) {
      return fail("document_indices[" + std::to_string(d) + "] = " + std::to_string(index) +
                  " is not a non-decreasing sequence index starting at 0");
    }
    previous = index;
  }
  if (previous != static_cast<int64_t>(sequences)) {
    return fail("document_indices ends at " + std::to_string(previous) + ", expected " +
                std::to_string(sequences) + " (the sequence count)");
  }
  return lengths;
}

Result<std::vector<int64_t>> read_idx_file(const std::string& path) {
  // The header first: the body is read only when its size is what the header's counts say.
  auto head = read_input_head(path, InputKind::kIndex, kIdxHeaderSize);
  if (!head.ok()) return head.error();
  if (auto header = parse_idx_header(head->bytes, head->size, path); !header) {
    return header.error();
  }
  auto bytes = read_input_file(path, InputKind::kIndex, head->size);
  if (!bytes.ok()) return bytes.error();
  return parse_idx_bytes(*bytes, path);
}

// ---------------------------------------------------------------------------------------------
// Synthetic lengths
// ---------------------------------------------------------------------------------------------
namespace {

/// MEAN: one token up to the longest sequence a length file may hold.
constexpr PhysicalRange kMeanTokens{"tokens", 1, static_cast<double>(kMaxLength), false};
/// SIGMA: 0 (every length MEAN) up to 3. The median of the distribution is MEAN x e^(-SIGMA^2 / 2):
/// 1.1 % of MEAN at 3, 0.03 % at 4, where for MEANs of thousands of tokens most draws fall under
/// one token, are clipped to 1, and the sample's mean is no longer MEAN.
constexpr PhysicalRange kSigma{"(a standard deviation of log length)", 1e-9, 3, true};

/// `text` as a number of `range`, or an error "--synthetic: FIELD 'x' is ...".
Result<double> synthetic_number(std::string_view text, const char* field,
                                const PhysicalRange& range) {
  auto value = parse_physical(text, range);
  if (!value.ok())
    return make_error("--synthetic: " + std::string(field) + " " + value.error().message);
  return *value;
}

bool parse_count(std::string_view text, int64_t& out) {
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && ptr == text.data() + text.size();
}

}  // namespace

Result<SyntheticSpec> parse_synthetic_spec(std::string_view spec) {
  std::vector<std::string_view> parts;
  size_t pos = 0;
  while (true) {
    size_t colon = spec.find(':', pos);
    parts.push_back(spec.substr(pos, colon == std::string_view::npos ? spec.npos : colon - pos));
    if (colon == std::string_view::npos) break;
    pos = colon + 1;
  }
  const std::string usage = " (expected lognormal:MEAN:SIGMA:COUNT[:MAX[:MIN]])";
  if (parts[0] != "lognormal") {
    return make_error("--synthetic: unknown distribution '" + std::string(parts[0]) + "'" + usage);
  }
  if (parts.size() < 4 || parts.size() > 6) {
    return make_error("--synthetic '" + std::string(spec) + "': wrong number of fields" + usage);
  }
  SyntheticSpec out;
  auto mean = synthetic_number(parts[1], "MEAN", kMeanTokens);
  if (!mean.ok()) return mean.error();
  out.mean = *mean;
  auto sigma = synthetic_number(parts[2], "SIGMA", kSigma);
  if (!sigma.ok()) return sigma.error();
  out.sigma = *sigma;
  if (!parse_count(parts[3], out.count) || out.count <= 0 || out.count > kMaxSyntheticCount) {
    return make_error("--synthetic: COUNT '" + std::string(parts[3]) +
                      "' must be an integer in [1, 2^24 = " + std::to_string(kMaxSyntheticCount) +
                      "]");
  }
  if (parts.size() >= 5 && (!parse_count(parts[4], out.max) || out.max <= 0)) {
    return make_error("--synthetic: MAX '" + std::string(parts[4]) + "' must be an integer > 0");
  }
  if (parts.size() == 6 && (!parse_count(parts[5], out.min) || out.min < 1 || out.min > out.max)) {
    return make_error("--synthetic: MIN '" + std::string(parts[5]) +
                      "' must be an integer in [1, MAX = " + std::to_string(out.max) + "]");
  }
  return out;
}

std::vector<int64_t> synthetic_lengths(const SyntheticSpec& spec, uint64_t seed) {
  // mt19937_64 is fully specified by the standard; the normal draw is our own Box-Muller so the
  // lengths do not depend on the standard library's distribution code.
  std::mt19937_64 engine(seed);
  auto uniform = [&] {  // in (0, 1]
    return (static_cast<double>(engine() >> 11) + 1.0) * (1.0 / 9007199254740992.0);
  };
  constexpr double kTwoPi = 6.283185307179586;
  const double mu = std::log(spec.mean) - spec.sigma * spec.sigma / 2;
  const double upper =
      spec.max > 0 ? static_cast<double>(spec.max) : static_cast<double>(kMaxLength);
  std::vector<int64_t> out(static_cast<size_t>(spec.count));
  for (int64_t& length : out) {
    const double z = std::sqrt(-2.0 * std::log(uniform())) * std::cos(kTwoPi * uniform());
    const double x = std::exp(mu + spec.sigma * z);
    length = static_cast<int64_t>(std::min(upper, std::max(static_cast<double>(spec.min), x)));
  }
  return out;
}

}  // namespace hcp::dcp
