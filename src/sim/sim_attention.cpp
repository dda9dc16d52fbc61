// Single-device attention on the CPU: the plain double-precision reference and the blocked
// online-softmax algorithm the CUDA kernel implements (see include/hcp/sim.h).
#include <algorithm>
#include <cmath>
#include <limits>

#include "hcp/sim.h"

namespace hcp {

Tensor Tensor::zeros(int64_t tokens, int64_t heads, int64_t dim) {
  Tensor t;
  t.tokens = tokens;
  t.heads = heads;
  t.dim = dim;
  t.data.assign(static_cast<size_t>(tokens * heads * dim), 0.0f);
  return t;
}

namespace {

/// SplitMix64: a tiny portable generator, so seeds give the same data everywhere.
class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  /// Return a uniform double in (0, 1].
  double uniform() { return (static_cast<double>(next() >> 11) + 1.0) * 0x1.0p-53; }
  /// Return a standard-normal value (Box-Muller).
  double normal() {
    double r = std::sqrt(-2.0 * std::log(uniform()));
    return r * std::cos(2.0 * M_PI * uniform());
  }

 private:
  uint64_t state_;
};

Tensor random_tensor(int64_t tokens, int64_t heads, int64_t dim, SplitMix64& rng) {
  Tensor t = Tensor::zeros(tokens, heads, dim);
  for (float& x : t.data)
    x = static_cast<float>(rng.normal());
  return t;
}

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

}  // namespace

AttentionInputs random_attention_inputs(const AttentionShape& shape, uint64_t seed) {
  SplitMix64 rng(seed);
  AttentionInputs in;
  in.q = random_tensor(shape.seq_length, shape.heads, shape.head_dim, rng);
  in.k = random_tensor(shape.seq_length, shape.kv_heads, shape.head_dim, rng);
  in.v = random_tensor(shape.seq_length, shape.kv_heads, shape.head_dim, rng);
  return in;
}

Tensor reference_attention(const AttentionInputs& in, bool causal) {
  const int64_t s = in.q.tokens, d = in.q.dim;
  const int64_t group = in.q.heads / in.k.heads;
  const double scale = 1.0 / std::sqrt(static_cast<double>(d));
  Tensor out = Tensor::zeros(s, in.q.heads, d);
  std::vector<double> scores(static_cast<size_t>(s));
  std::vector<double> row(static_cast<size_t>(d));
  for (int64_t h = 0; h < in.q.heads; ++h) {
    const int64_t kvh = h / group;
    for (int64_t i = 0; i < s; ++i) {
      const int64_t keys = causal ? i + 1 : s;
      const float* q = in.q.at(i, h);
      double max_score = -std::numeric_limits<double>::infinity();
      for (int64_t j = 0; j < keys; ++j) {
        const float* k = in.k.at(j, kvh);
        double dot = 0;
        for (int64_t x = 0; x < d; ++x)
          dot += static_cast<double>(q[x]) * k[x];
        scores[j] = dot * scale;
        max_score = std::max(max_score, scores[j]);
      }
      double sum = 0;
      std::fill(row.begin(), row.end(), 0.0);
      for (int64_t j = 0; j < keys; ++j) {
        double p = std::exp(scores[j] - max_score);
        sum += p;
        const float* v = in.v.at(j, kvh);
        for (int64_t x = 0; x < d; ++x)
          row[x] += p * v[x];
      }
      float* o = out.at(i, h);
      for (int64_t x = 0; x < d; ++x)
        o[x] = static_cast<float>(row[x] / sum);
    }
  }
  return out;
}

OnlineSoftmax::OnlineSoftmax(const Tensor& q, std::vector<int64_t> q_positions, bool causal)
    : q_(q),
      q_positions_(std::move(q_positions)),
      causal_(causal),
      scale_(1.0f / std::sqrt(static_cast<float>(q.dim))),
      m_(static_cast<size_t>(q.tokens * q.heads), kNegInf),
      l_(static_cast<size_t>(q.tokens * q.heads), 0.0f),
      acc_(Tensor::zeros(q.tokens, q.heads, q.dim)) {}

void OnlineSoftmax::add_block(const Tensor& k, const Tensor& v,
                              const std::vector<int64_t>& kv_positions, int64_t tile) {
  const int64_t d = q_.dim;
  const int64_t group = q_.heads / k.heads;
  std::vector<float> s(static_cast<size_t>(tile));
  for (int64_t i = 0; i < q_.tokens; ++i) {
    for (int64_t h = 0; h < q_.heads; ++h) {
      const float* q = q_.at(i, h);
      float* acc = acc_.at(i, h);
      float& m = m_[i * q_.heads + h];
      float& l = l_[i * q_.heads + h];
      for (int64_t start = 0; start < k.tokens; start += tile) {
        const int64_t n = std::min(tile, k.tokens - start);
        float tile_max = kNegInf;
        for (int64_t j = 0; j < n; ++j) {
          const int64_t key = start + j;
          if (causal_ && kv_positions[key] > q_positions_[i]) {
            s[j] = kNegInf;
            continue;
          }
          const float* kk = k.at(key, h / group);
          float dot = 0;
          for (int64_t x = 0; x < d; ++x)
            dot += q[x] * kk[x];
          s[j] = dot * scale_;
          tile_max = std::max(tile_max, s[j]);
        }
        if (tile_max == kNegInf) continue;  // the whole tile is masked for this row
        const float m_new = std::max(m, tile_max);
        const float correction = std::exp(m - m_new);  // exp(-inf) = 0 on the first tile
        l *= correction;
        for (int64_t x = 0; x < d; ++x)
          acc[x] *= correction;
        for (int64_t j = 0; j < n; ++j) {
          if (s[j] == kNegInf) continue;
          const float p = std::exp(s[j] - m_new);
          l += p;
          const float* vv = v.at(start + j, h / group);
          for (int64_t x = 0; x < d; ++x)
            acc[x] += p * vv[x];
        }
        m = m_new;
      }
    }
  }
}

Tensor OnlineSoftmax::finish() const {
  Tensor out = acc_;
  for (int64_t i = 0; i < out.tokens; ++i) {
    for (int64_t h = 0; h < out.heads; ++h) {
      const float l = l_[i * out.heads + h];
      float* o = out.at(i, h);
      for (int64_t x = 0; x < out.dim; ++x)
        o[x] = l > 0 ? o[x] / l : 0.0f;
    }
  }
  return out;
}

Tensor blocked_attention(const AttentionInputs& in, bool causal, int64_t tile) {
  std::vector<int64_t> positions(static_cast<size_t>(in.q.tokens));
  for (int64_t i = 0; i < in.q.tokens; ++i)
    positions[i] = i;
  OnlineSoftmax state(in.q, positions, causal);
  state.add_block(in.k, in.v, positions, tile);
  return state.finish();
}

double max_abs_difference(const Tensor& a, const Tensor& b) {
  double worst = 0;
  const size_t n = std::min(a.data.size(), b.data.size());
  for (size_t i = 0; i < n; ++i) {
    worst = std::max(worst, std::fabs(static_cast<double>(a.data[i]) - b.data[i]));
  }
  if (a.data.size() != b.data.size()) return std::numeric_limits<double>::infinity();
  return worst;
}

}  // namespace hcp
