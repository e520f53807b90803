#pragma once
// Model presets: the transformer dimensions of the models people ask about, named in lower case as
// people write them (`echo-des models` lists them). Sources: the GPT-3 paper (Brown et al. 2020,
// table 2.1), the Llama 2 / Llama 3 papers and model cards, Mixtral's model card, and the
// Megatron-LM papers' tables (Narayanan et al. 2021; the Megatron-LM README's 2024 H100 table).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace echo::workloads {

// The MLP's activation: GELU (GPT), SwiGLU (gated: three matrices; Llama), or squared ReLU
// (Nemotron-4; Megatron-Core runs it eager, a ReLU then a square).
enum class Activation { gelu, swiglu, squared_relu };
const char* activation_name(Activation a);  // as a job spells it
std::optional<Activation> activation_named(const std::string& name);
const std::vector<std::string>& activation_names();
inline bool gated(Activation a) { return a == Activation::swiglu; }

// The block's normalization: LayerNorm (GPT, Nemotron-4's LayerNorm1p) or RMSNorm (Llama).
enum class Norm { layernorm, rmsnorm };
inline const char* norm_name(Norm n) { return n == Norm::rmsnorm ? "rmsnorm" : "layernorm"; }

struct ModelDims {
  std::string name;
  std::uint32_t layers = 0;
  std::uint32_t hidden = 0;
  std::uint32_t heads = 0;
  std::uint32_t kv_heads = 0;    // < heads: grouped-query attention
  std::uint32_t ffn_hidden = 0;  // dense MLP width
  Activation activation = Activation::gelu;
  std::uint32_t vocab = 0;
  std::uint32_t seq_len = 0;
  std::uint32_t experts = 0;     // 0: dense
  std::uint32_t top_k = 0;
  std::uint32_t expert_ffn_hidden = 0;
  bool tied_embeddings = true;   // input embedding shared with the LM head (GPT) or not (Llama)
  bool bias = true;              // linears carry biases (GPT) or not (Llama, Nemotron-4, MoE models)
  bool rotary = false;           // rotary position embeddings on Q and K (Llama, Nemotron-4)
  double nominal_params_b = 0;   // as the model is called (1.3 for gpt3-1.3b)
  Norm norm = Norm::layernorm;
};

const std::vector<ModelDims>& model_presets();
std::optional<ModelDims> model_preset(const std::string& name);

// Parameters of the model (weights of attention, MLP or experts, norms, embeddings; biases left
// out), for listings and the compute model.
double parameter_count(const ModelDims& m);

} // namespace echo::workloads
