// Context-parallel attention over virtual ranks (see include/hcp/sim.h).
#include <algorithm>
#include <string>

#include "hcp/layout.h"
#include "hcp/sim.h"
#include "hcp/text_util.h"

namespace hcp {

namespace {

/// One virtual rank's tensors: its tokens (by global position) and the heads it owns.
struct RankData {
  std::vector<int64_t> positions;
  Tensor q, k, v;
  Tensor o;
};

/// Counts the elements each virtual rank sends, by kind of collective.
class Network {
 public:
  explicit Network(int64_t ranks)
      : a2a_(static_cast<size_t>(ranks), 0), ring_(static_cast<size_t>(ranks), 0) {}
  void a2a(int from, int to, int64_t elements) {
    if (from != to) a2a_[from] += elements;
  }
  void ring(int from, int to, int64_t elements) {
    if (from != to) ring_[from] += elements;
  }
  const std::vector<int64_t>& a2a_elements() const { return a2a_; }
  const std::vector<int64_t>& ring_elements() const { return ring_; }

 private:
  std::vector<int64_t> a2a_;
  std::vector<int64_t> ring_;
};

int64_t elements(const Tensor& t) {
  return t.tokens * t.heads * t.dim;
}

/// Return the rows of `t` at `positions`, heads [head_begin, head_begin + head_count).
Tensor take(const Tensor& t, const std::vector<int64_t>& positions, int64_t head_begin,
            int64_t head_count) {
  Tensor out = Tensor::zeros(static_cast<int64_t>(positions.size()), head_count, t.dim);
  for (size_t i = 0; i < positions.size(); ++i) {
    for (int64_t h = 0; h < head_count; ++h) {
      std::copy_n(t.at(positions[i], head_begin + h), t.dim, out.at(static_cast<int64_t>(i), h));
    }
  }
  return out;
}

/// Megatron's load balancing: 2*cp chunks, rank r holds chunks r and 2*cp-1-r.
std::vector<int64_t> chunks_of_rank(int64_t rank, int64_t cp) {
  return {rank, 2 * cp - 1 - rank};
}

std::vector<RankData> distribute(const AttentionInputs& in, int64_t cp) {
  const int64_t chunk = in.q.tokens / (2 * cp);
  std::vector<RankData> ranks(static_cast<size_t>(cp));
  for (int64_t r = 0; r < cp; ++r) {
    for (int64_t c : chunks_of_rank(r, cp)) {
      for (int64_t t = 0; t < chunk; ++t)
        ranks[r].positions.push_back(c * chunk + t);
    }
    ranks[r].q = take(in.q, ranks[r].positions, 0, in.q.heads);
    ranks[r].k = take(in.k, ranks[r].positions, 0, in.k.heads);
    ranks[r].v = take(in.v, ranks[r].positions, 0, in.v.heads);
  }
  return ranks;
}

/// Hierarchical CP sub-groups ([level][group][member]) of one CP group of `cp` ranks, taken from
/// the layout module's Megatron group construction (a world of exactly one CP group).
Result<std::vector<std::vector<std::vector<int>>>> hierarchical_groups(
    int64_t cp, const std::vector<int64_t>& sizes) {
  GroupOptions config;
  config.world_size = cp;
  config.layout.cp = cp;
  config.layout.hcp = sizes;
  auto groups = build_groups(config);
  if (!groups) return groups.error();
  std::vector<std::vector<std::vector<int>>> levels;
  for (const GroupSet& level : groups->hcp)
    levels.push_back(level.lists());
  return levels;
}

/// Ulysses head scatter inside `group`: member j receives heads block j of every member's tokens.
void a2a_scatter_heads(std::vector<RankData>& ranks, const std::vector<int>& group, Network& net) {
  const int64_t n = static_cast<int64_t>(group.size());
  std::vector<RankData> after(group.size());
  for (int64_t j = 0; j < n; ++j) {
    RankData& dst = after[j];
    std::vector<const RankData*> sources;
    sources.reserve(group.size());
    for (int member : group)
      sources.push_back(&ranks[member]);
    const int64_t hq = sources[0]->q.heads / n, hkv = sources[0]->k.heads / n;
    int64_t tokens = 0;
    for (const RankData* src : sources)
      tokens += src->q.tokens;
    dst.q = Tensor::zeros(tokens, hq, sources[0]->q.dim);
    dst.k = Tensor::zeros(tokens, hkv, sources[0]->k.dim);
    dst.v = Tensor::zeros(tokens, hkv, sources[0]->v.dim);
    int64_t row = 0;
    for (int64_t i = 0; i < n; ++i) {
      const RankData& src = *sources[i];
      for (int64_t t = 0; t < src.q.tokens; ++t, ++row) {
        dst.positions.push_back(src.positions[t]);
        for (int64_t h = 0; h < hq; ++h)
          std::copy_n(src.q.at(t, j * hq + h), src.q.dim, dst.q.at(row, h));
        for (int64_t h = 0; h < hkv; ++h) {
          std::copy_n(src.k.at(t, j * hkv + h), src.k.dim, dst.k.at(row, h));
          std::copy_n(src.v.at(t, j * hkv + h), src.v.dim, dst.v.at(row, h));
        }
      }
      net.a2a(group[i], group[j], src.q.tokens * (hq + 2 * hkv) * src.q.dim);
    }
  }
  for (int64_t j = 0; j < n; ++j)
    ranks[group[j]] = std::move(after[j]);
}

/// Inverse of a2a_scatter_heads for the output: member i gets all heads of its own tokens back,
/// and its tensors return to their state before the scatter (`before`).
void a2a_gather_output(std::vector<RankData>& ranks, const std::vector<RankData>& before,
                       const std::vector<int>& group, Network& net) {
  const int64_t n = static_cast<int64_t>(group.size());
  std::vector<Tensor> outputs;
  int64_t offset = 0;
  for (int64_t i = 0; i < n; ++i) {
    const RankData& original = before[group[i]];
    Tensor o = Tensor::zeros(original.q.tokens, original.q.heads, original.q.dim);
    for (int64_t j = 0; j < n; ++j) {
      const Tensor& part = ranks[group[j]].o;
      for (int64_t t = 0; t < original.q.tokens; ++t) {
        for (int64_t h = 0; h < part.heads; ++h) {
          std::copy_n(part.at(offset + t, h), part.dim, o.at(t, j * part.heads + h));
        }
      }
      net.a2a(group[j], group[i], original.q.tokens * part.heads * part.dim);
    }
    offset += original.q.tokens;
    outputs.push_back(std::move(o));
  }
  for (int64_t i = 0; i < n; ++i) {
    ranks[group[i]] = before[group[i]];
    ranks[group[i]].o = std::move(outputs[i]);
  }
}

/// KV ring over `group` (TE p2p): every member attends the KV block it holds, then passes it to
/// the next member; group.size()-1 transfers per member.
void ring_attention(std::vector<RankData>& ranks, const std::vector<int>& group, bool causal,
                    int64_t tile, Network& net) {
  const size_t n = group.size();
  std::vector<OnlineSoftmax> states;
  std::vector<size_t> held(n);  // index (in group) of the member whose KV each member holds
  for (size_t i = 0; i < n; ++i) {
    states.emplace_back(ranks[group[i]].q, ranks[group[i]].positions, causal);
    held[i] = i;
  }
  for (size_t step = 0; step < n; ++step) {
    for (size_t i = 0; i < n; ++i) {
      const RankData& kv = ranks[group[held[i]]];
      states[i].add_block(kv.k, kv.v, kv.positions, tile);
    }
    if (step + 1 == n) break;
    std::vector<size_t> next(n);
    for (size_t i = 0; i < n; ++i) {
      const RankData& kv = ranks[group[held[i]]];
      net.ring(group[i], group[(i + 1) % n], elements(kv.k) + elements(kv.v));
      next[(i + 1) % n] = held[i];
    }
    held = next;
  }
  for (size_t i = 0; i < n; ++i)
    ranks[group[i]].o = states[i].finish();
}

/// TE all_gather: every member sends its KV to every other member, then attends all of it.
void all_gather_attention(std::vector<RankData>& ranks, const std::vector<int>& group, bool causal,
                          int64_t tile, Network& net) {
  for (int member : group) {
    OnlineSoftmax state(ranks[member].q, ranks[member].positions, causal);
    for (int source : group) {
      const RankData& kv = ranks[source];
      net.ring(source, member, elements(kv.k) + elements(kv.v));
      state.add_block(kv.k, kv.v, kv.positions, tile);
    }
    ranks[member].o = state.finish();
  }
}

/// The silent failure: no CP communication, each rank attends only its own tokens.
void local_attention(std::vector<RankData>& ranks, bool causal, int64_t tile) {
  for (RankData& rank : ranks) {
    OnlineSoftmax state(rank.q, rank.positions, causal);
    state.add_block(rank.k, rank.v, rank.positions, tile);
    rank.o = state.finish();
  }
}

/// Scatter heads in every group of `groups`, run `attend`, gather the output back.
template <typename Attend>
void with_head_scatter(std::vector<RankData>& ranks, const std::vector<std::vector<int>>& groups,
                       Network& net, Attend attend) {
  const std::vector<RankData> before = ranks;
  for (const auto& group : groups)
    a2a_scatter_heads(ranks, group, net);
  attend();
  for (const auto& group : groups)
    a2a_gather_output(ranks, before, group, net);
}

Tensor assemble_output(const std::vector<RankData>& ranks, const AttentionShape& shape) {
  Tensor out = Tensor::zeros(shape.seq_length, shape.heads, shape.head_dim);
  for (const RankData& rank : ranks) {
    for (size_t t = 0; t < rank.positions.size(); ++t) {
      std::copy_n(rank.o.at(static_cast<int64_t>(t), 0), shape.heads * shape.head_dim,
                  out.at(rank.positions[t], 0));
    }
  }
  return out;
}

}  // namespace

Status check_simulation(const CpSimOptions& o) {
  const AttentionShape& s = o.shape;
  if (s.seq_length <= 0 || s.heads <= 0 || s.kv_heads <= 0 || s.head_dim <= 0 || o.cp <= 0 ||
      o.tile <= 0) {
    return Error{"seq-length, heads, kv-heads, head-dim, cp and tile must be positive", {}, ""};
  }
  if (s.seq_length > 65536 || s.heads * s.head_dim > 65536) {
    return Error{
        "simulation too large for the CPU (limit: 65536 tokens, heads*head-dim 65536)", {}, ""};
  }
  if (const double work = simulation_multiply_adds(s); work > kMaxSimulationMultiplyAdds) {
    return Error{"simulation too long for the CPU: " + format_fixed(work / 1e12, 0) +
                     " trillion multiply-adds, limit " +
                     format_fixed(kMaxSimulationMultiplyAdds / 1e12, 0) +
                     " (about 4 h); a smaller --seq-length checks the same layout",
                 {},
                 ""};
  }
  if (o.comm_type == CpCommType::kA2aP2p && o.hcp.size() != 2) {
    return Error{"a2a+p2p needs --hcp A,P (two sizes, A*P = cp)", {}, "hcp"};
  }
  if (o.comm_type != CpCommType::kA2aP2p && !o.hcp.empty()) {
    return Error{"--hcp applies only to cp_comm_type a2a+p2p", {}, "hcp"};
  }
  return Ok{};
}

namespace {

CpVolumeInput volume_input(const CpSimOptions& o) {
  CpVolumeInput in;
  in.seq_length = o.shape.seq_length;
  in.heads = o.shape.heads;
  in.kv_heads = o.shape.kv_heads;
  in.head_dim = o.shape.head_dim;
  in.cp = o.cp;
  in.comm_type = o.comm_type;
  if (o.hcp.size() == 2) {
    in.hcp_a2a = o.hcp[0];
    in.hcp_p2p = o.hcp[1];
  }
  in.bytes_per_element = o.bytes_per_element;
  return in;
}

/// Run the comm type's data movement and attention on the distributed ranks.
Status run_comm_type(const CpSimOptions& o, std::vector<RankData>& ranks, Network& net,
                     std::vector<std::vector<std::vector<int>>>& hcp_groups) {
  const bool causal = o.shape.causal;
  std::vector<int> all;
  for (int64_t r = 0; r < o.cp; ++r)
    all.push_back(static_cast<int>(r));
  switch (o.comm_type) {
    case CpCommType::kP2p:
      ring_attention(ranks, all, causal, o.tile, net);
      break;
    case CpCommType::kAllGather:
      all_gather_attention(ranks, all, causal, o.tile, net);
      break;
    case CpCommType::kA2a:
      with_head_scatter(ranks, {all}, net, [&] { local_attention(ranks, causal, o.tile); });
      break;
    case CpCommType::kA2aP2p: {
      auto levels = hierarchical_groups(o.cp, o.hcp);
      if (!levels) return levels.error();
      hcp_groups = *levels;
      with_head_scatter(ranks, hcp_groups[0], net, [&] {
        for (const auto& ring : hcp_groups[1])
          ring_attention(ranks, ring, causal, o.tile, net);
      });
      break;
    }
  }
  return Ok{};
}

}  // namespace

Result<CpSimResult> simulate_cp_attention(const CpSimOptions& options) {
  if (auto st = check_simulation(options); !st) return st.error();
  // A tile longer than the sequence is one tile of every key: clamped, its buffers stay that
  // size (--tile 2147483647 on 16 tokens took 7 GB).
  CpSimOptions o = options;
  o.tile = std::min(o.tile, o.shape.seq_length);
  auto volume = cp_volume(volume_input(o));
  if (!volume) return volume.error();

  auto progress = [&o](int done) {
    if (o.progress) o.progress(done, 3);
  };
  const AttentionInputs inputs = random_attention_inputs(o.shape, o.seed);
  progress(0);
  const Tensor reference = reference_attention(inputs, o.shape.causal);
  CpSimResult result;
  result.formula = *volume;
  progress(1);
  result.blocked_max_abs_error =
      max_abs_difference(blocked_attention(inputs, o.shape.causal, o.tile), reference);
  progress(2);

  std::vector<RankData> ranks = distribute(inputs, o.cp);
  Network net(o.cp);
  if (o.local_only) {
    local_attention(ranks, o.shape.causal, o.tile);
  } else {
    if (auto st = run_comm_type(o, ranks, net, result.hcp_groups); !st) return st.error();
  }
  result.max_abs_error = max_abs_difference(assemble_output(ranks, o.shape), reference);

  result.bytes_match_formula = !o.local_only;
  for (int64_t r = 0; r < o.cp; ++r) {
    result.rank_chunks.push_back(chunks_of_rank(r, o.cp));
    result.a2a_bytes_per_rank.push_back(net.a2a_elements()[r] * o.bytes_per_element);
    result.ring_bytes_per_rank.push_back(net.ring_elements()[r] * o.bytes_per_element);
    result.comm_bytes_per_rank.push_back(result.a2a_bytes_per_rank.back() +
                                         result.ring_bytes_per_rank.back());
    result.bytes_match_formula = result.bytes_match_formula &&
                                 result.a2a_bytes_per_rank[r] == volume->a2a_forward_bytes &&
                                 result.ring_bytes_per_rank[r] == volume->ring_forward_bytes;
  }
  progress(3);
  return result;
}

double simulation_multiply_adds(const AttentionShape& shape) {
  const double s = static_cast<double>(shape.seq_length);
  const double keys = shape.causal ? (s + 1) / 2 : s;
  return 3.0 * 2.0 * s * keys * static_cast<double>(shape.heads) *
         static_cast<double>(shape.head_dim);
}

}  // namespace hcp
