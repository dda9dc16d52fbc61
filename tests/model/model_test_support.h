// Shared inputs of the model and planner tests: Llama-3-8B dimensions and a DGX H100 profile
// with the figures of shared/reference/topology_bench.md §5 (no dependency on recipes/).
#pragma once

#include "hcp/model.h"
#include "hcp/model_constants.h"

namespace hcp::testing {

/// The model tests' constants: the catalogue's fit_start values (model_constants.cpp), fixed in
/// code, not the shipped fit (recipes/corpus/fitted_constants.json). These tests check the
/// model's arithmetic and relations between layouts; they must not move when the corpus is
/// refitted. What `plan` runs is tested in tests/planner/inputs_test.cpp.
inline const ModelConstants& test_constants() {
  return ModelConstants::fit_start();
}

/// Llama-3-8B (model_dims.json: 32 layers, hidden 4096, 32 heads, 8 KV heads, ffn 14336, vocab
/// 128256, untied embeddings, SwiGLU) at `seq` tokens.
inline ModelDims llama3_8b(int64_t seq) {
  ModelDims m;
  m.num_layers = 32;
  m.hidden = 4096;
  m.heads = 32;
  m.kv_heads = 8;
  m.head_dim = 128;
  m.ffn = 14336;
  m.vocab = 128256;
  m.gated_mlp = true;
  m.tied_embeddings = false;
  m.seq_length = seq;
  return m;
}

/// DGX H100: 8 GPUs per node, NVLink 450 GB/s per direction, 8 x 400 Gb/s NICs, 80 GiB, 989 TF/s.
inline ClusterProfile dgx_h100() {
  ClusterProfile p;
  p.name = "dgx-h100-test";
  p.gpu_name = "H100-SXM5-80GB";
  p.gpu_sm = 90;
  p.gpus_per_node = 8;
  p.nvlink_domain = 8;
  p.nvlink_gbps_per_gpu = 450;
  p.pcie_gbps_per_gpu = 64;
  p.nics_per_node = 8;
  p.nic_gbits = 400;
  p.gpu_memory_gib = 80;
  p.bf16_dense_tflops = 989.4;
  return p;
}

/// The seed's options on 4 nodes x 8 GPUs.
inline Layout option_a() {  // TP1 CP16 a2a+p2p [8,2]
  Layout l;
  l.tp = 1;
  l.cp = 16;
  l.dp = 2;
  l.comm = CommType::kA2aP2p;
  l.hcp = {8, 2};
  return l;
}
inline Layout option_b() {  // TP2 CP4 a2a
  Layout l;
  l.tp = 2;
  l.cp = 4;
  l.dp = 4;
  l.comm = CommType::kA2a;
  return l;
}
inline Layout option_c() {  // TP1 CP16 p2p
  Layout l;
  l.tp = 1;
  l.cp = 16;
  l.dp = 2;
  l.comm = CommType::kP2p;
  return l;
}

}  // namespace hcp::testing
