#pragma once
// TrainingJob: the `workload: {model, training, parallel}` part of a job file — a transformer, how
// it is trained and how it is laid out over the GPUs. Every field has the default the job-file
// documentation gives. check_training_job() enforces the rules Megatron-LM enforces.
#include "workloads/generator/attention_kernel.hpp"
#include "workloads/generator/frameworks.hpp"
#include "workloads/generator/gpu_specs.hpp"
#include "workloads/model_presets.hpp"

#include <cstdint>
#include <optional>
#include <string>

namespace echo::workloads {

enum class Recompute { none, selective, full };
enum class PipelineSchedule { gpipe, one_f_one_b, interleaved };

struct TrainingSpec {
  std::uint32_t global_batch = 0;  // sequences per iteration
  std::uint32_t micro_batch = 1;
  DataType dtype = DataType::bf16;
  Recompute recompute = Recompute::none;
  SelectiveRecompute selective = SelectiveRecompute::attention;  // with recompute: selective
  // true: a block's norms, rotary embeddings and activation are single fused kernels (Transformer
  // Engine's, Apex's, Megatron's fusions, or torch.compile's Inductor); false: PyTorch runs them op
  // by op (torchtitan without torch.compile; pass_emitter.cpp has the chains).
  bool compile = true;
  AttentionKernel attention = AttentionKernel::flash;
  // true: the weight-gradient GEMM adds into the fp32 gradient buffer (Megatron's
  // --gradient-accumulation-fusion); false: one add kernel per parameter tensor per micro-batch.
  bool grad_accumulation_fusion = true;
  // true: one fused kernel computes the loss from the 16-bit logits and one its gradient
  // (Megatron-Core's cross_entropy_loss_fusion); false: the eager fp32 recipe, six passes over the
  // logits forward and three backward (pass_emitter.cpp).
  bool fused_cross_entropy = false;
  // The main-gradient buffer and its data-parallel reduction: empty = Megatron-LM's rule (fp32
  // for bf16 / fp8 training, `accumulate_allreduce_grads_in_fp32`; fp16 for fp16 training).
  // NeMo recipes set `grad_sync_dtype: bf16`.
  std::optional<DataType> grad_dtype;
  // Adam's moments: fp32, with an fp32 master copy of 16-bit weights (12 bytes per parameter); or
  // the weights' own 16-bit type, with no master copy (4 bytes; NeMo's distributed_fused_adam with
  // `optim.dtype: bf16`, Apex's store_params off when the state matches the weights).
  DataType optimizer_dtype = DataType::fp32;
  // FP8 runs only: the linear layers' weights are stored as FP8 tensors (Transformer Engine's
  // fp8_model_init; NeMo's `fp8_params`), so the distributed optimizer gathers them in FP8, one
  // byte an element (NeMo's distributed Adam: param_sync_dtype uint8 for FP8 params; Megatron-Core
  // 0.9: fp8_param_gather). Norms, the router and the embeddings stay 16-bit.
  bool fp8_params = false;
  // true: the GEMM library's kernels are persistent, one thread block per SM for the whole GEMM
  // (cuBLAS on Hopper and Blackwell), so a GEMM and a communication kernel do not share the GPU:
  // the one launched second waits for SMs (trace.proto Compute.fills_gpu). Empty: the GPU's
  // (gemms_fill_gpu in gpu_specs.hpp), resolved when the platform is known.
  std::optional<bool> persistent_gemms;
};

// SMs Transformer Engine's userbuffers hold for the pipelined ReduceScatters after the
// attention-output and MLP-down GEMMs (TE's ub_cfg names proj_fprop and fc2_fprop, `num_sm`): the
// ReduceScatter of one chunk runs on them while the next chunk's GEMM runs on the rest (with
// `set_sm_margin`, as the recipes set it, TE launches the GEMM on the rest), so the chunked GEMMs
// run on the GPU's SMs but these. The ring exchanges use copy engines and hold none. The bulk
// overlaps beside the QKV / MLP-up gradient GEMMs hold SMs only while their transfer runs, part of
// the GEMM: not modelled (docs/generator.md). Defaults: TE 1.11's (16).
struct TpOverlapSms {
  std::uint32_t proj_fprop = 16, fc2_fprop = 16;
};

struct ParallelSpec {
  std::uint32_t tp = 1, pp = 1, dp = 0, cp = 1, ep = 1;  // dp 0: GPUs / (tp * pp * cp)
  bool sequence_parallel = false;
  PipelineSchedule schedule = PipelineSchedule::one_f_one_b;
  std::uint32_t virtual_stages = 1;
  std::uint32_t zero = 0;          // 0 | 1 (distributed optimizer) | 2 | 3 (FSDP-style)
  BackwardPrefetch backward_prefetch = BackwardPrefetch::pre;  // ZeRO-3's backward gathers (frameworks.hpp)
  // ZeRO-3 keeps a layer's parameters as one flat tensor (FSDP1's FlatParameter) and hands its
  // modules views of it: autograd makes each view's gradient, then concatenates them into the
  // flat gradient the ReduceScatter takes (the views' split, run backward): one copy of the
  // layer's gradient on the compute stream after its backward. FSDP2 (torchtitan) keeps the
  // parameters apart and copies them into its ReduceScatter buffer on its own stream.
  bool flat_parameters = false;
  bool dp_overlap = true;
  // Megatron's pipeline exchanges (batch_isend_irecv, then waiting on the requests and, by
  // default, a device synchronize) hold a stage until its sends are received: the next pass starts
  // only after the neighbour took the tensor. true: `--overlap-p2p-communication`, sends run beside.
  bool p2p_overlap = false;
  // Transformer Engine's userbuffers (Megatron's `--tp-comm-overlap`, NeMo's `ub_tp_comm_overlap`):
  // the sequence-parallel AllGather before a column-parallel GEMM (and before a row-parallel
  // input-gradient GEMM) runs as a ring exchange beside the GEMM's chunks, and the ReduceScatter
  // after a row-parallel GEMM is pipelined over its chunks. Needs sequence parallelism.
  bool tp_overlap = false;
  TpOverlapSms tp_overlap_sms;
  // With FP8 and tp_overlap: the pipelined ReduceScatters' userbuffers hold FP8 (TE's ub_cfg
  // `fp8_buf` on proj_fprop and fc2_fprop): the row-parallel GEMMs write their partial sums in FP8
  // and the ReduceScatters move one byte an element, reduced in higher precision as they arrive.
  bool tp_overlap_fp8_buf = false;
  double bucket_mb = 25;           // MiB of gradients per DP bucket
  std::string order = "tp-cp-ep-dp-pp";
};

struct TrainingJob {
  ModelDims model;
  TrainingSpec training;
  ParallelSpec parallel;
  // A job file that names no framework gets kDefaultFramework (cli/training_section.cpp); a job
  // built in code starts with none: no host thread.
  std::string framework = "none";
  HostModel host;                  // the framework's host thread, with the job's overrides
  bool gate_every_launch = false;  // tests: every GPU task waits for its own launch (host_thread.hpp)
  std::string profile_db;          // CSV of measured kernel times overriding the roofline; may be empty
  // Fold runs of kernels into one task where that cannot change the result (kernel_merge.hpp):
  // fewer events, less timeline detail. `merge_same_category_only` when kernels of different
  // categories slow down differently under overlap.
  bool merge_kernels = true;
  bool merge_same_category_only = false;
  std::string origin;              // job file, for messages
};

// Fills defaults that depend on others (dp from the GPU count, ffn_hidden, kv_heads) and checks
// every divisibility and fit rule; a broken rule is a UserError naming the values and the rule.
void check_training_job(TrainingJob& job, std::uint32_t platform_gpus, const GpuSpec& gpu);

std::uint32_t micro_batches(const TrainingJob& job);  // per pipeline, per iteration
std::uint32_t world_size(const TrainingJob& job);     // tp * cp * dp * pp

} // namespace echo::workloads
