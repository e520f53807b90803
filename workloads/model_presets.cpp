#include "workloads/model_presets.hpp"

namespace echo::workloads {

const std::vector<std::string>& activation_names() {
  static const std::vector<std::string> names = {"gelu", "swiglu", "squared_relu"};
  return names;
}

const char* activation_name(Activation a) {
  switch (a) {
  case Activation::gelu: return "gelu";
  case Activation::swiglu: return "swiglu";
  case Activation::squared_relu: return "squared_relu";
  }
  return "gelu";
}

std::optional<Activation> activation_named(const std::string& name) {
  for (Activation a : {Activation::gelu, Activation::swiglu, Activation::squared_relu})
    if (name == activation_name(a))
      return a;
  return std::nullopt;
}

namespace {

ModelDims gpt3(const char* name, std::uint32_t layers, std::uint32_t hidden, std::uint32_t heads, double params_b) {
  return {name, layers, hidden, heads, heads, 4 * hidden, Activation::gelu, 50257, 2048, 0, 0, 0, true, true, false, params_b};
}

ModelDims llama(const char* name, std::uint32_t layers, std::uint32_t hidden, std::uint32_t heads, std::uint32_t kv_heads,
                std::uint32_t ffn, std::uint32_t vocab, std::uint32_t seq, double params_b) {
  return {name, layers, hidden, heads, kv_heads, ffn, Activation::swiglu, vocab, seq, 0, 0, 0, false, false, true, params_b, Norm::rmsnorm};
}

ModelDims megatron(const char* name, std::uint32_t layers, std::uint32_t hidden, std::uint32_t heads, std::uint32_t vocab,
                   std::uint32_t seq, double params_b) {
  return {name, layers, hidden, heads, heads, 4 * hidden, Activation::gelu, vocab, seq, 0, 0, 0, true, true, false, params_b};
}

} // namespace

const std::vector<ModelDims>& model_presets() {
  static const std::vector<ModelDims> presets = [] {
    std::vector<ModelDims> p = {
        // GPT-3, table 2.1 of the paper (vocabulary 50257, context 2048). Two of its entries do
        // not divide into heads (XL: 24 heads of 128 over 2048; 13B: width 5140): XL has 16 heads
        // of 128 here and 13B a width of 5120, as GPT-3 reproductions on Megatron-LM use.
        gpt3("gpt3-125m", 12, 768, 12, 0.125), gpt3("gpt3-350m", 24, 1024, 16, 0.35), gpt3("gpt3-760m", 24, 1536, 16, 0.76),
        gpt3("gpt3-1.3b", 24, 2048, 16, 1.3), gpt3("gpt3-2.7b", 32, 2560, 32, 2.7), gpt3("gpt3-6.7b", 32, 4096, 32, 6.7),
        gpt3("gpt3-13b", 40, 5120, 40, 13.0), gpt3("gpt3-175b", 96, 12288, 96, 175.0),
        // Llama 2 (vocabulary 32000, context 4096) and Llama 3 / 3.1 (vocabulary 128256, 8192).
        llama("llama2-7b", 32, 4096, 32, 32, 11008, 32000, 4096, 6.74),
        llama("llama2-13b", 40, 5120, 40, 40, 13824, 32000, 4096, 13.0),
        llama("llama2-70b", 80, 8192, 64, 8, 28672, 32000, 4096, 69.0),
        llama("llama3-8b", 32, 4096, 32, 8, 14336, 128256, 8192, 8.03),
        llama("llama3-70b", 80, 8192, 64, 8, 28672, 128256, 8192, 70.6),
        llama("llama3-405b", 126, 16384, 128, 8, 53248, 128256, 8192, 405.0),
        // Megatron-LM, Narayanan et al. 2021 (vocabulary 51200, sequence 2048).
        megatron("megatron-1.7b", 24, 2304, 24, 51200, 2048, 1.7), megatron("megatron-3.6b", 30, 3072, 32, 51200, 2048, 3.6),
        megatron("megatron-7.5b", 36, 4096, 32, 51200, 2048, 7.5), megatron("megatron-18b", 40, 6144, 48, 51200, 2048, 18.4),
        megatron("megatron-39b", 48, 8192, 64, 51200, 2048, 39.1), megatron("megatron-76b", 60, 10240, 80, 51200, 2048, 76.1),
        megatron("megatron-145b", 80, 12288, 96, 51200, 2048, 145.6),
        megatron("megatron-310b", 96, 16384, 128, 51200, 2048, 310.1),
        megatron("megatron-530b", 105, 20480, 128, 51200, 2048, 529.6),
        megatron("megatron-1t", 128, 25600, 160, 51200, 2048, 1008.0)};
    // Nemotron-4 (NVIDIA 2024: the 15B and 340B technical reports; dgxc-benchmarking's recipes):
    // squared ReLU, rotary embeddings, no biases, untied, GQA with 8 KV heads, 256k vocabulary.
    for (ModelDims n : {llama("nemotron4-15b", 32, 6144, 48, 8, 24576, 256000, 4096, 15.0),
                        llama("nemotron4-340b", 96, 18432, 96, 8, 73728, 256000, 4096, 340.0)}) {
      n.activation = Activation::squared_relu;
      n.norm = Norm::layernorm;  // LayerNorm1p: zero-centred gamma, a LayerNorm kernel all the same
      p.push_back(n);
    }
    // Mixtral 8x7B: 8 experts of SwiGLU width 14336, two per token, GQA with 8 KV heads.
    ModelDims mixtral = llama("mixtral-8x7b", 32, 4096, 32, 8, 14336, 32000, 4096, 46.7);
    mixtral.experts = 8;
    mixtral.top_k = 2;
    mixtral.expert_ffn_hidden = 14336;
    p.push_back(mixtral);
    return p;
  }();
  return presets;
}

std::optional<ModelDims> model_preset(const std::string& name) {
  for (const ModelDims& m : model_presets())
    if (m.name == name)
      return m;
  return std::nullopt;
}

double parameter_count(const ModelDims& m) {
  const double h = m.hidden, kv = static_cast<double>(m.hidden) * m.kv_heads / m.heads;
  const double attention = h * (h + 2 * kv) + h * h;  // QKV projection, then the output projection
  const double matrices = gated(m.activation) ? 3.0 : 2.0;
  const double mlp = m.experts > 0 ? m.experts * matrices * h * m.expert_ffn_hidden + h * m.experts
                                   : matrices * h * m.ffn_hidden;
  const double norms = 2 * h;
  const double embeddings = static_cast<double>(m.vocab) * h * (m.tied_embeddings ? 1 : 2);
  return m.layers * (attention + mlp + norms) + embeddings + h;
}

} // namespace echo::workloads
