// Recompute and precision names.
#include <cctype>
#include <string>

#include "hcp/model.h"

namespace hcp {

const char* recompute_name(Recompute r) {
  switch (r) {
    case Recompute::kNone:
      return "none";
    case Recompute::kSelective:
      return "selective";
    case Recompute::kFull:
      return "full";
  }
  return "none";
}

std::optional<Recompute> parse_recompute(std::string_view text) {
  for (Recompute r : {Recompute::kNone, Recompute::kSelective, Recompute::kFull}) {
    if (text == recompute_name(r)) return r;
  }
  return std::nullopt;
}

}  // namespace hcp

namespace hcp {

const char* precision_name(Precision p) {
  switch (p) {
    case Precision::kBf16:
      return "bf16";
    case Precision::kFp8Delayed:
      return "fp8_delayed";
    case Precision::kFp8Current:
      return "fp8_current";
    case Precision::kFp8Block:
      return "fp8_block";
    case Precision::kMxfp8:
      return "mxfp8";
    case Precision::kNvfp4:
      return "nvfp4";
  }
  return "bf16";
}

namespace {

std::string lower(std::string_view text) {
  std::string s(text);
  for (char& c : s)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

std::optional<Precision> parse_precision(std::string_view text) {
  std::string t = lower(text);
  for (Precision p : {Precision::kBf16, Precision::kFp8Delayed, Precision::kFp8Current,
                      Precision::kFp8Block, Precision::kMxfp8, Precision::kNvfp4}) {
    if (t == precision_name(p)) return p;
  }
  // Bridge's mixed_precision recipe names (src/megatron/bridge/training/mixed_precision.py) and
  // the performance summary's labels ("FP8" on Hopper rows is current scaling since 25.09;
  // "FP8-CS" current scaling, "FP8-MX" / "MXFP8" MXFP8, "FP8-CS (FP8-MX)" per-GPU choice).
  if (t.find("nvfp4") != std::string::npos) return Precision::kNvfp4;
  if (t.find("mxfp8") != std::string::npos || t.find("fp8-mx") != std::string::npos ||
      t.find("fp8_mx") != std::string::npos)
    return Precision::kMxfp8;
  if (t.find("subchannel") != std::string::npos || t.find("block") != std::string::npos)
    return Precision::kFp8Block;
  if (t.find("delayed") != std::string::npos) return Precision::kFp8Delayed;
  if (t.find("fp8") != std::string::npos) return Precision::kFp8Current;
  if (t.find("bf16") != std::string::npos || t.find("bf-16") != std::string::npos)
    return Precision::kBf16;
  return std::nullopt;
}

}  // namespace hcp
