// The transformer generator: pipeline schedules (and their bubbles, simulated), rank layouts,
// the compute and memory models, the generated programs, and every rule a job can break.
#include "support/approx.hpp"
#include "support/child_process.hpp"
#include "support/cli_json.hpp"
#include "support/cli_runner.hpp"
#include "support/kernel_times.hpp"
#include "support/temp_files.hpp"

#include "core/simulation.hpp"
#include "report/training_report.hpp"
#include "workloads/generator/compute_model.hpp"
#include "workloads/generator/memory_model.hpp"
#include "workloads/generator/pipeline_schedule.hpp"
#include "workloads/generator/rank_layout.hpp"
#include "workloads/generator/transformer_generator.hpp"
#include "workloads/trace_reader.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <numeric>
#include <optional>
#include <regex>
#include <set>

using namespace echo;
using namespace echo::workloads;

namespace {

TrainingJob small_job(std::uint32_t tp, std::uint32_t pp, std::uint32_t dp) {
  TrainingJob job;
  job.model = *model_preset("gpt3-1.3b");
  job.training.global_batch = 16;
  job.training.micro_batch = 1;
  job.parallel.tp = tp;
  job.parallel.pp = pp;
  job.parallel.dp = dp;
  job.origin = "job.yaml";
  return job;
}

using test::kernel_us;

std::string check_error(TrainingJob job, std::uint32_t gpus = 64, const std::string& gpu = "A100-SXM4-80GB") {
  try {
    check_training_job(job, gpus, *gpu_preset(gpu));
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

// Passes of fixed length: forward `forward_s`, backward twice that, one kernel each.
class UniformPasses final : public ChunkPasses {
public:
  UniformPasses(ProgramBuilder& b, double forward_s) : b_(b), forward_s_(forward_s) {}
  TaskId forward(const ChunkSpec&, TaskId ready, const ParameterGates&) override { return run("F", forward_s_, ready); }
  TaskId backward(const ChunkSpec& chunk, TaskId ready, std::vector<TaskId>& grads, TaskId& emb, TaskId& head) override {
    const TaskId t = run("B", 2 * forward_s_, ready);
    grads.assign(chunk.layers, t);
    emb = head = kNoTask;
    return t;
  }
  void wait_for(TaskId task) override {
    if (task != kNoTask)
      pending_.push_back(task);
  }

private:
  TaskId run(const char* name, double s, TaskId ready) {
    KernelOp op;
    op.name = name;
    const TaskId t = b_.compute("compute", op, s, {ready});
    for (TaskId p : pending_)
      b_.add_dependency(t, p);
    pending_.clear();
    return t;
  }
  ProgramBuilder& b_;
  double forward_s_;
  std::vector<TaskId> pending_;
};

// Idle share of each rank's iteration for a uniform toy pipeline, simulated on one 8-GPU node.
std::vector<double> toy_bubbles(PipelineSchedule schedule, std::uint32_t pp, std::uint32_t m, std::uint32_t v) {
  const auto outcome = test::in_child_process([&] {
    TrainingJob job;
    job.model.name = "toy";
    job.model.layers = 8;
    job.model.hidden = 64;
    job.model.heads = 1;
    job.model.vocab = 128;
    job.model.seq_len = 64;
    job.model.tied_embeddings = false;
    job.training.global_batch = m;
    job.parallel.pp = pp;
    job.parallel.dp = 1;
    job.parallel.schedule = schedule;
    job.parallel.virtual_stages = v;
    check_training_job(job, 8, *gpu_preset("a100"));
    const ComputeModel model(*gpu_preset("a100"), DataType::bf16);
    const GeneratedJob g = generate_training_job(job, model, [&](ProgramBuilder& b, std::uint32_t, std::uint32_t) {
      return std::make_unique<UniformPasses>(b, 1e-3 / v);
    });
    platforms::PlatformSource platform;
    platform.file = ECHO_SOURCE_DIR "/examples/platforms/one_node_8gpu.xml";
    core::Simulation sim(platform, build_workload(g.trace, "toy"));
    const core::SimulationResult r = sim.run(false);
    nlohmann::json shares = nlohmann::json::array();
    for (const auto& rank : r.per_rank)
      shares.push_back(rank.idle_s / r.iteration_time_s);
    return shares.dump();
  });
  INFO(outcome.text);
  REQUIRE(!outcome.user_error);
  return nlohmann::json::parse(outcome.text).get<std::vector<double>>();
}

} // namespace

TEST_CASE("1F1B runs pp - stage - 1 warm-up forwards, then alternates, every pass once") {
  const auto order = pipeline_order(PipelineSchedule::one_f_one_b, 4, 1, 8, 1);
  REQUIRE(order.size() == 16);
  CHECK(order[0].forward);
  CHECK(order[1].forward);
  CHECK(order[2].forward);  // two warm-up forwards, then the first of the steady pairs
  CHECK_FALSE(order[3].forward);
  CHECK(order[3].micro_batch == 0);
  std::set<std::pair<bool, std::uint32_t>> seen;
  for (const auto& p : order)
    CHECK(seen.insert({p.forward, p.micro_batch}).second);
}

TEST_CASE("interleaved 1F1B visits every (micro-batch, chunk) once each way, backward after forward") {
  for (std::uint32_t stage = 0; stage < 4; ++stage) {
    const auto order = pipeline_order(PipelineSchedule::interleaved, 4, stage, 8, 3);
    REQUIRE(order.size() == 48);
    std::map<std::pair<std::uint32_t, std::uint32_t>, int> forward_at;
    for (std::size_t i = 0; i < order.size(); ++i) {
      const auto key = std::make_pair(order[i].micro_batch, order[i].chunk);
      if (order[i].forward) {
        CHECK(forward_at.count(key) == 0);
        forward_at[key] = static_cast<int>(i);
      } else {
        REQUIRE(forward_at.count(key) == 1);
        CHECK(forward_at[key] < static_cast<int>(i));
      }
    }
    CHECK(forward_at.size() == 24);
  }
  // Stage 0 warms up with (pp - 1) * 2 + (v - 1) * pp = 14 forwards.
  const auto first = pipeline_order(PipelineSchedule::interleaved, 4, 0, 8, 3);
  for (int i = 0; i < 14; ++i)
    CHECK(first[static_cast<std::size_t>(i)].forward);
  CHECK(first[14].forward);
  CHECK_FALSE(first[15].forward);
}

TEST_CASE("1F1B bubble equals (pp - 1) / (m + pp - 1) on a uniform toy model") {
  for (const double share : toy_bubbles(PipelineSchedule::one_f_one_b, 4, 8, 1))
    CHECK(share == test::Approx(3.0 / 11.0).epsilon(0.003));
}

TEST_CASE("GPipe has the same bubble as 1F1B on a uniform toy model") {
  for (const double share : toy_bubbles(PipelineSchedule::gpipe, 4, 8, 1))
    CHECK(share == test::Approx(3.0 / 11.0).epsilon(0.003));
}

TEST_CASE("interleaving divides the bubble by the virtual stages") {
  // (pp - 1) / v of bubble against m of work: (pp - 1) / (v m + pp - 1) of the iteration.
  for (const double share : toy_bubbles(PipelineSchedule::interleaved, 4, 8, 2))
    CHECK(share == test::Approx(3.0 / 19.0).epsilon(0.003));
}

TEST_CASE("rank layout follows Megatron's order, innermost first") {
  ParallelSpec p;
  p.tp = 2;
  p.pp = 2;
  p.dp = 4;
  p.ep = 2;
  const RankLayout layout(p, "job.yaml");
  CHECK(layout.world() == 16);
  const Coordinates c = layout.coordinates(13);  // 13 = tp 1 + 2 * (ep 0 + 2 * (dp 1 + 2 * pp 1))
  CHECK(c.tp == 1);
  CHECK(c.ep == 0);
  CHECK(c.dp == 1);
  CHECK(c.pp == 1);
  const auto tp = layout.groups("tp", {Dim::tp});
  REQUIRE(tp.size() == 8);
  CHECK(tp[0].ranks == std::vector<std::uint32_t>{0, 1});
  const auto dp = layout.groups("dp", {Dim::cp, Dim::ep, Dim::dp});
  REQUIRE(dp.size() == 4);
  CHECK(dp[0].ranks == std::vector<std::uint32_t>{0, 2, 4, 6});
  const auto pp = layout.groups("pp", {Dim::pp});
  CHECK(pp[0].ranks == std::vector<std::uint32_t>{0, 8});
  ParallelSpec q = p;
  q.order = "dp-tp-pp";  // ep goes just inside dp
  const RankLayout outer(q, "job.yaml");
  CHECK(outer.groups("tp", {Dim::tp})[0].ranks == std::vector<std::uint32_t>{0, 4});  // ep 2 x dp 2 inside tp
  q.order = "tp-ep-cp-dp-pp";
  CHECK_THROWS_AS(RankLayout(q, "job.yaml"), UserError);
  q.order = "tp-cp-dp-pp-xx";
  CHECK_THROWS_AS(RankLayout(q, "job.yaml"), UserError);
}

TEST_CASE("GEMM efficiency: a large square GEMM is near the GPU's share, skinny and ragged ones are not") {
  const ComputeModel a100(*gpu_preset("a100"), DataType::bf16);
  const double big = a100.gemm_efficiency(8192, 8192, 8192);
  CHECK(big > 0.95 * a100.gpu().gemm_efficiency);
  CHECK(big <= a100.gpu().gemm_efficiency);
  CHECK(a100.gemm_efficiency(64, 8192, 8192) < 0.5 * big);  // 64 rows fill a fraction of the tiles
  CHECK(a100.gemm_efficiency(8192, 8192, 64) < 0.4 * big);  // a short K is all prologue
  // 8192 x 8200: one more column of tiles than the SMs divide evenly.
  CHECK(a100.gemm_efficiency(8192, 8200, 8192) < big);
  KernelOp op;
  op.shape = KernelShape::gemm;
  op.m = op.n = op.k = 8192;
  const double t = a100.time_s(op);
  CHECK(t == test::Approx(2.0 * 8192 * 8192 * 8192 / (312e12 * big) + ComputeModel::kKernelOverheadS));
  const ComputeModel h100(*gpu_preset("H100-SXM5-80GB"), DataType::bf16);
  CHECK(h100.time_s(op) < 0.5 * t);
  // FP8 doubles the peak but reaches a smaller share of it (the measured best shapes: 73.4% against
  // 80.3%, 0.921 once their K loops are accounted for), and its tile epilogue is worth twice the K
  // (times that share): a large FP8 GEMM takes more than half its 16-bit time.
  const ComputeModel h100_fp8(*gpu_preset("H100-SXM5-80GB"), DataType::fp8);
  const double bf16_steps = h100.epilogue_k_steps(DataType::bf16), fp8_steps = h100.epilogue_k_steps(DataType::fp8);
  CHECK(fp8_steps == test::Approx(2 * 0.921 * bf16_steps).epsilon(1e-4));  // 1978.9 is not quite 2 x 989.4
  const double bf16_s = h100.time_s(op) - ComputeModel::kKernelOverheadS;
  const double fp8_s = h100_fp8.time_s(op) - ComputeModel::kKernelOverheadS;
  CHECK(fp8_s == test::Approx(bf16_s / (2 * 0.921) * (8192 + fp8_steps) / (8192 + bf16_steps)).epsilon(1e-4));
  CHECK(fp8_s > 0.5 * bf16_s);
  // Where K is short the epilogue weighs more in FP8: 8192 x 8192 x 1024.
  KernelOp short_k = op;
  short_k.k = 1024;
  const double bf16_short = h100.time_s(short_k) - ComputeModel::kKernelOverheadS;
  const double fp8_short = h100_fp8.time_s(short_k) - ComputeModel::kKernelOverheadS;
  CHECK(fp8_short == test::Approx(bf16_short / (2 * 0.921) * (1024 + fp8_steps) / (1024 + bf16_steps)).epsilon(1e-4));
  CHECK(fp8_short / bf16_short > fp8_s / bf16_s * 1.05);
  // A GEMM an FP8 recipe keeps in 16 bits (the LM head) runs at the 16-bit share.
  op.fp8_capable = false;
  CHECK(h100_fp8.time_s(op) == test::Approx(h100.time_s(op)));
}

TEST_CASE("a GEMM tile's epilogue costs its output's bytes at the SM's share of HBM, in steps of K") {
  // bytes x achieved FLOP/s / (2 x achieved bytes/s): writing 16 bits.
  const ComputeModel a100(*gpu_preset("A100-SXM4-80GB"), DataType::bf16);
  CHECK(a100.epilogue_k_steps(DataType::bf16) == test::Approx(2 * 312e12 * 0.83 / (2 * 2039e9 * 0.87)));
  CHECK(a100.epilogue_k_steps(DataType::bf16) == test::Approx(146).epsilon(0.01));
  const ComputeModel a100_40(*gpu_preset("A100-SXM4-40GB"), DataType::bf16);
  CHECK(a100_40.epilogue_k_steps(DataType::bf16) == test::Approx(191).epsilon(0.01));  // slower HBM
  const ComputeModel h100(*gpu_preset("H100-SXM5-80GB"), DataType::bf16);
  CHECK(h100.epilogue_k_steps(DataType::bf16) == test::Approx(252).epsilon(0.01));  // the tensor cores outgrew HBM
  // Adding into an fp32 gradient reads and writes it: 8 bytes, four times the 16-bit store.
  CHECK(h100.epilogue_k_steps(DataType::bf16, 8) == test::Approx(4 * h100.epilogue_k_steps(DataType::bf16)));
  // Blackwell overlaps the epilogue with the next tile: the earlier fixed figure.
  const ComputeModel b200(*gpu_preset("b200"), DataType::bf16);
  CHECK(b200.epilogue_k_steps(DataType::bf16) == 128);
  CHECK(b200.epilogue_k_steps(DataType::fp8) == 256);
  // A GEMM with K = 4096 (the tokens of a weight gradient) on an H100.
  KernelOp store;
  store.shape = KernelShape::gemm;
  store.m = store.n = 8192;
  store.k = 4096;
  KernelOp accumulate = store;
  accumulate.epilogue_bytes = 8;
  const double steps = h100.epilogue_k_steps(DataType::bf16);
  CHECK((h100.time_s(accumulate) - ComputeModel::kKernelOverheadS) / (h100.time_s(store) - ComputeModel::kKernelOverheadS) ==
        test::Approx((4096 + 4 * steps) / (4096 + steps)));
}

TEST_CASE("weight gradients add into the gradient buffer in their GEMM's epilogue only under gradient-accumulation fusion") {
  auto wgrad_us = [](bool fusion, std::optional<DataType> grad_dtype, std::uint32_t zero) {
    TrainingJob job = small_job(1, 1, 8);
    job.training.grad_accumulation_fusion = fusion;
    job.training.grad_dtype = grad_dtype;
    job.parallel.zero = zero;
    return kernel_us(job, 8).at("layer0.mlp.up.wgrad");
  };
  const double plain = wgrad_us(false, std::nullopt, 0);
  const double fp32 = wgrad_us(true, std::nullopt, 0);
  const double bf16 = wgrad_us(true, DataType::bf16, 0);
  const double zero3 = wgrad_us(true, std::nullopt, 3);
  CHECK(fp32 > bf16);
  CHECK(bf16 > plain);
  CHECK(zero3 == plain);  // FSDP's GEMM writes a fresh gradient to reduce-scatter
}

TEST_CASE("Megatron-Core's attention into Transformer Engine copies a grouped-query query out of the fused QKV, and concatenates the QKV gradient") {
  auto kernels = [](std::uint32_t kv_heads, AttentionKernel attention) {
    TrainingJob job = small_job(1, 1, 8);
    job.model.kv_heads = kv_heads;
    job.training.attention = attention;
    return kernel_us(job, 8);
  };
  const auto gqa = kernels(4, AttentionKernel::te);  // gpt3-1.3b: 16 heads of 128 over 4 KV groups, 2,048 tokens
  const auto mha = kernels(16, AttentionKernel::te);
  const auto flash = kernels(4, AttentionKernel::flash);
  // The query (2,048 x 2,048 x 2 bytes) read and written; the QKV gradient (2,048 x 3,072) likewise.
  const double hbm = 3350e9 * 0.88;
  CHECK(gqa.at("layer0.attention.query_copy") == test::Approx((2 * 2048.0 * 2048 * 2 / hbm + ComputeModel::kKernelOverheadS) * 1e6).epsilon(1e-3));
  CHECK(gqa.at("layer0.qkv.grad_concat") == test::Approx((2 * 2048.0 * 3072 * 2 / hbm + ComputeModel::kKernelOverheadS) * 1e6).epsilon(1e-3));
  CHECK(gqa.count("layer0.recompute.attention.query_copy") == 0);  // no recomputation here
  CHECK(mha.count("layer0.attention.query_copy") == 0);  // every head its own group: the reshape is a view
  CHECK(mha.count("layer0.qkv.grad_concat") == 1);
  CHECK(flash.count("layer0.attention.query_copy") == 0);  // other frameworks' separate Q, K, V projections
  CHECK(flash.count("layer0.qkv.grad_concat") == 0);
}

TEST_CASE("Transformer Engine with its cuDNN backend off (te_flash) runs FlashAttention-2, fed through the same QKV split") {
  auto kernels = [](AttentionKernel attention) {
    TrainingJob job = small_job(1, 1, 8);
    job.model.kv_heads = 4;
    job.training.attention = attention;
    return kernel_us(job, 8);
  };
  const auto te = kernels(AttentionKernel::te), te_flash = kernels(AttentionKernel::te_flash), flash = kernels(AttentionKernel::flash);
  CHECK(te_flash.at("layer0.attention.query_copy") == te.at("layer0.attention.query_copy"));
  CHECK(te_flash.at("layer0.qkv.grad_concat") == te.at("layer0.qkv.grad_concat"));
  CHECK(te_flash.at("layer0.attention") == flash.at("layer0.attention"));
  CHECK(te_flash.at("layer0.attention") > 1.3 * te.at("layer0.attention"));  // on Hopper cuDNN is 1.6-1.7x FlashAttention-2
}

TEST_CASE("unfused attention: Megatron's fused softmax where its blocks fit, PyTorch's fp32 ops where they do not") {
  // gpt3-1.3b: 16 heads, 2,048 tokens. At TP 8 a GPU holds 2 heads: micro-batch 1 gives 2 score
  // matrices, not a multiple of the kernel's 4 (megatron/model/fused_softmax.py).
  const auto kernels = [](std::uint32_t micro_batch, std::uint32_t seq) {
    TrainingJob job = small_job(8, 1, 1);
    job.training.attention = AttentionKernel::unfused;
    job.training.micro_batch = micro_batch;
    job.model.seq_len = seq;
    return kernel_us(job, 8);
  };
  const auto eager = kernels(1, 2048), fused = kernels(2, 2048);
  CHECK(fused.count("layer0.attention.softmax") == 1);
  CHECK(fused.count("layer0.attention.softmax.float") == 0);
  CHECK(eager.count("layer0.attention.softmax") == 0);
  for (const char* k : {"layer0.attention.softmax.float", "layer0.attention.softmax.scale", "layer0.attention.softmax.mask",
                        "layer0.attention.softmax.softmax", "layer0.attention.softmax.half", "layer0.attention.softmax.bwd.float",
                        "layer0.attention.softmax.bwd.softmax", "layer0.attention.softmax.bwd.mask",
                        "layer0.attention.softmax.bwd.scale", "layer0.attention.softmax.bwd.half"})
    CHECK_MESSAGE(eager.count(k) == 1, k);
  // Forward 6 + 8 + 9 + 8 + 6 bytes a score in fp32 against the fused kernel's 4; micro-batch 2
  // has twice the scores.
  double forward = 0;
  for (const char* k : {"float", "scale", "mask", "softmax", "half"})
    forward += eager.at(std::string("layer0.attention.softmax.") + k);
  CHECK(forward > 37.0 / 4.0 * fused.at("layer0.attention.softmax") / 2 * 0.9);
  // Keys beyond 2,048 do not fit the kernel either, whatever the micro-batch.
  CHECK(kernels(2, 4096).count("layer0.attention.softmax.float") == 1);
  // Without recomputation the fp32 softmax output is kept: 4 + 1 + 2 bytes a score, not 2 + 1 + 2.
  const auto activations = [](std::uint32_t micro_batch) {
    TrainingJob job = small_job(8, 1, 1);
    job.training.attention = AttentionKernel::unfused;
    job.training.recompute = Recompute::none;
    job.training.micro_batch = micro_batch;
    check_training_job(job, 8, *gpu_preset("a100"));
    return stage_memory(Shapes(job), 0).activations;
  };
  const double scores = 2.0 * 2048 * 2048;  // per layer at micro-batch 1: 2 heads of 2,048 x 2,048
  const double per_micro_batch_2 = activations(2) / 2;  // fused at micro-batch 2
  CHECK(activations(1) - per_micro_batch_2 == test::Approx(24 * scores * 2).epsilon(0.01));
}

TEST_CASE("squared ReLU runs eager: a ReLU and a square forward, four kernels backward, rotary and biases follow the model") {
  TrainingJob job = small_job(2, 1, 1);
  job.model.activation = Activation::squared_relu;
  job.model.rotary = true;
  job.model.bias = false;
  const std::map<std::string, double> us = kernel_us(job, 2);
  const Shapes s(job);
  for (const char* k : {"layer0.mlp.relu", "layer0.mlp.square", "layer0.mlp.square.bwd.pow", "layer0.mlp.square.bwd.scale",
                        "layer0.mlp.square.bwd", "layer0.mlp.relu.bwd", "layer0.rotary", "layer0.rotary.bwd"})
    CHECK_MESSAGE(us.count(k) == 1, k);
  CHECK(us.count("layer0.mlp.gelu") == 0);
  CHECK(us.count("layer0.mlp.up.bias_grad") == 0);
  // Ten passes over the MLP's activation backward, four forward, each at the same bandwidth.
  const double pass_us = us.at("layer0.mlp.relu") / 2;
  const double backward = us.at("layer0.mlp.square.bwd.pow") + us.at("layer0.mlp.square.bwd.scale") +
                          us.at("layer0.mlp.square.bwd") + us.at("layer0.mlp.relu.bwd");
  CHECK(backward == test::Approx(10 * pass_us).epsilon(0.05));
  CHECK(us.at("layer0.mlp.square") == test::Approx(2 * pass_us).epsilon(0.05));
  CHECK(pass_us > 0);
  // The MLP has two matrices, as GELU's: the up projection's output is ffn / tp wide.
  job.model.activation = Activation::gelu;
  CHECK(Shapes(job).mlp_params() == test::Approx(s.mlp_params()));
  // GPT-like: biases (a gradient reduction per linear), no rotary embeddings.
  job.model.rotary = false;
  job.model.bias = true;
  const std::map<std::string, double> gpt = kernel_us(job, 2);
  CHECK(gpt.count("layer0.mlp.gelu") == 1);
  CHECK(gpt.count("layer0.mlp.up.bias_grad") == 1);
  CHECK(gpt.count("layer0.rotary") == 0);
}

TEST_CASE("memory-bound kernels run at the achievable HBM bandwidth") {
  const ComputeModel a100(*gpu_preset("A100-SXM4-40GB"), DataType::bf16);
  KernelOp op;
  op.shape = KernelShape::memory;
  op.bytes = 1e9;
  CHECK(a100.time_s(op) == test::Approx(1e9 / (1555e9 * 0.87) + ComputeModel::kKernelOverheadS));
}

TEST_CASE("a profiling database overrides the roofline where it has the kernel") {
  test::TempDir dir;
  const std::string csv = dir.file("db.csv",
                                   "gpu,dtype,kernel,time_us\n"
                                   "A100-SXM4-80GB,bf16,gemm:1x8192x8192x8192,1234.5\n"
                                   "A100-SXM4-80GB,fp16,gemm:1x8192x8192x8192,99\n"
                                   "H100-SXM5-80GB,bf16,gemm:1x8192x8192x8192,77\n");
  const ComputeModel m(*gpu_preset("a100"), DataType::bf16, ProfileDb::load(csv, "A100-SXM4-80GB", DataType::bf16));
  KernelOp op;
  op.shape = KernelShape::gemm;
  op.m = op.n = op.k = 8192;
  CHECK(m.time_s(op) == test::Approx(1234.5e-6));
  op.k = 4096;  // not in the database: the roofline
  CHECK(m.time_s(op) == test::Approx(2.0 * 8192 * 8192 * 4096 / (312e12 * m.gemm_efficiency(8192, 8192, 4096)) +
                                        ComputeModel::kKernelOverheadS));
  CHECK(m.database_hits() == 1);
  const std::string bad = dir.file("bad.csv", "gpu,dtype,kernel\n");
  CHECK_THROWS_AS(ProfileDb::load(bad, "a100", DataType::bf16), UserError);
  const std::string negative = dir.file("neg.csv", "gpu,dtype,kernel,time_us\nA100,bf16,gemm:1x1x1x1,-3\n");
  CHECK_THROWS_AS(ProfileDb::load(negative, "a100", DataType::bf16), UserError);
}

TEST_CASE("every rule a layout can break is named with its values") {
  CHECK(check_error(small_job(8, 1, 8)).empty());
  TrainingJob job = small_job(3, 1, 1);
  CHECK(check_error(job).find("tp (3) does not divide heads (16)") != std::string::npos);
  job = small_job(1, 5, 1);
  CHECK(check_error(job).find("does not divide layers (24)") != std::string::npos);
  job = small_job(1, 1, 3);
  CHECK(check_error(job).find("global_batch (16) is not divisible by micro_batch x dp = 1 x 3") != std::string::npos);
  job = small_job(8, 2, 8);
  CHECK(check_error(job, 64).find("needs tp x pp x dp x cp = 8 x 2 x 8 x 1 = 128 GPUs but the platform has 64") != std::string::npos);
  job = small_job(1, 1, 4);
  job.training.dtype = DataType::fp8;
  CHECK(check_error(job).find("fp8 is not supported by the A100-SXM4-80GB") != std::string::npos);
  CHECK(check_error(job, 64, "H100-SXM5-80GB").empty());
  job = small_job(1, 1, 4);
  job.model = *model_preset("mixtral-8x7b");
  job.parallel.ep = 3;
  CHECK(check_error(job).find("ep (3) does not divide experts (8)") != std::string::npos);
  job = small_job(1, 4, 4);
  job.parallel.schedule = PipelineSchedule::interleaved;
  job.parallel.virtual_stages = 4;
  CHECK(check_error(job).find("pp x virtual_stages = 4 x 4 does not divide layers (24)") != std::string::npos);
  job = small_job(2, 1, 0);  // dp from the GPU count
  CHECK(check_error(job, 16).empty());
}

TEST_CASE("a generated job has one template per stage and groups for every dimension") {
  TrainingJob job = small_job(2, 2, 2);
  job.parallel.sequence_parallel = true;
  check_training_job(job, 8, *gpu_preset("a100"));
  const ComputeModel model(*gpu_preset("a100"), DataType::bf16);
  const GeneratedJob g = generate_training_job(job, model);
  REQUIRE(g.trace.templates_size() == 2);
  std::map<std::string, int> slots;
  for (const auto& c : g.trace.communicators())
    ++slots[c.slot()];
  CHECK(slots["tp"] == 4);
  CHECK(slots["pp"] == 4);
  CHECK(slots["dp"] == 4);
  CHECK(slots["embd"] == 4);  // GPT ties its embedding: first and last stage share the gradient
  // Sequence parallelism: AllGather / ReduceScatter instead of AllReduce in the layers.
  std::map<std::string, int> ops;
  for (const auto& t : g.trace.templates(0).tasks())
    if (t.has_collective() && t.collective().comm() == "tp")
      ++ops[trace::CollectiveOp_Name(t.collective().op())];
  CHECK(ops["ALL_GATHER"] > 0);
  CHECK(ops["REDUCE_SCATTER"] > 0);
  // Forward: 2 gathers per layer; backward: 2 re-gathers and 2 for the row-parallel outputs per
  // layer, for each of the 8 micro-batches and 12 layers of the stage.
  CHECK(ops["ALL_GATHER"] == 8 * 12 * 6);
  const Workload w = build_workload(g.trace, "generated");
  CHECK(w.rank_count() == 8);
  CHECK(w.programs.size() == 2);
}

TEST_CASE("MoE with TP and SP: the EP AllToAll carries the rank's own tokens, the TP group gathers them") {
  // Megatron-Core's all-to-all token dispatcher, per layer and micro-batch: four AllToAlls (two
  // each way) of (tokens / tp) x top_k x hidden, and an AllGather and a ReduceScatter each way of
  // tokens x top_k x hidden.
  TrainingJob job = small_job(4, 1, 2);
  job.model = *model_preset("mixtral-8x7b");
  job.model.layers = 2;
  job.model.seq_len = 2048;
  job.training.global_batch = 2;
  job.parallel.ep = 2;
  job.parallel.sequence_parallel = true;
  check_training_job(job, 8, *gpu_preset("h100"));
  const GeneratedJob g = generate_training_job(job, ComputeModel(*gpu_preset("h100"), DataType::bf16));
  const double routed_bytes = 2048.0 * job.model.top_k * job.model.hidden * 2;  // one micro-batch, bf16
  std::map<std::string, std::vector<double>> bytes;  // by communicator slot and op
  for (const auto& t : g.trace.templates(0).tasks())
    if (t.has_collective() && t.name().find(".moe.") != std::string::npos)
      bytes[t.collective().comm() + " " + trace::CollectiveOp_Name(t.collective().op())].push_back(t.collective().bytes());
  const std::vector<double> own(4 * 2, routed_bytes / 4), all(2 * 2, routed_bytes);  // per layer, times 2 layers
  CHECK(bytes["ep ALL_TO_ALL"] == own);
  CHECK(bytes["tp ALL_GATHER"] == all);
  CHECK(bytes["tp REDUCE_SCATTER"] == all);
  CHECK(bytes.size() == 3);  // no gather of the layer's input nor reduction of its output besides
  // Each TP call moves what the EP exchange delivered, or the exchange what the TP call scattered:
  // the dispatcher runs each pair one after the other, in both passes.
  std::map<std::string, const trace::Task*> by_name;
  for (const auto& t : g.trace.templates(0).tasks())
    by_name[t.name()] = &t;
  const auto follows = [&](const std::string& later, const std::string& earlier) {
    REQUIRE(by_name.count(later) == 1);
    REQUIRE(by_name.count(earlier) == 1);
    const auto& deps = by_name.at(later)->deps();
    return std::find(deps.begin(), deps.end(), by_name.at(earlier)->id()) != deps.end();
  };
  CHECK(follows("layer0.moe.dispatch.allgather", "layer0.moe.dispatch.alltoall"));
  CHECK(follows("layer0.moe.combine.alltoall", "layer0.moe.combine.reducescatter"));
  CHECK(follows("layer0.moe.combine.bwd.allgather", "layer0.moe.combine.bwd.alltoall"));
  CHECK(follows("layer0.moe.dispatch.bwd.alltoall", "layer0.moe.dispatch.bwd.reducescatter"));
}

TEST_CASE("MoE: the dispatcher sorts the received tokens by local expert and back, in both passes, when a rank holds several experts") {
  // Megatron-Core's sort_chunks_by_idxs: a copy of every received token (read and write) after the
  // dispatch and before the combine; in the backward, autograd's copies of their gradients.
  auto sorts = [](std::uint32_t ep) {
    TrainingJob job = small_job(1, 1, 8);
    job.model = *model_preset("mixtral-8x7b");
    job.model.layers = 1;
    job.model.seq_len = 2048;
    job.training.global_batch = 8;
    job.parallel.ep = ep;
    job.merge_kernels = false;
    check_training_job(job, 8, *gpu_preset("h100"));
    const GeneratedJob g = generate_training_job(job, ComputeModel(*gpu_preset("h100"), DataType::bf16));
    std::map<std::string, double> us;
    for (const auto& t : g.trace.templates(0).tasks())
      if (t.name().find("sort_by_expert") != std::string::npos)
        us.emplace(t.name().substr(t.name().find("moe.")), t.compute().duration_ns() / 1e3);
    return us;
  };
  const auto four_experts = sorts(2);  // 8 experts over ep 2: four per rank
  REQUIRE(four_experts.size() == 4);
  const GpuSpec h100 = *gpu_preset("h100");
  const double copy_us = 2 * 2048.0 * 2 * 4096 * 2 / (h100.hbm_Bps * h100.memory_efficiency) * 1e6;  // tokens x top 2 x hidden, bf16
  for (const char* k : {"moe.sort_by_expert", "moe.unsort_by_expert", "moe.unsort_by_expert.bwd", "moe.sort_by_expert.bwd"}) {
    INFO(k);
    REQUIRE(four_experts.count(k) == 1);
    CHECK(four_experts.at(k) - ComputeModel::kKernelOverheadS * 1e6 == test::Approx(copy_us).epsilon(0.01));
  }
  CHECK(sorts(8).empty());  // one expert per rank: nothing to sort
}

TEST_CASE("context parallelism: each ring step copies its halves out, the forward merges, the backward accumulates") {
  // Transformer Engine's AttnFuncWithCPAndKVP2P (TE 1.11) with cp 2: rank 0's step 1 takes the
  // second half of its Q, rank 1's the first half of the KV block it received (gpt3-1.3b has as
  // many KV heads as heads, so a KV block is twice a Q block).
  TrainingJob job = small_job(1, 1, 1);
  job.parallel.cp = 2;
  job.merge_kernels = false;
  check_training_job(job, 2, *gpu_preset("h100"));
  const GeneratedJob g = generate_training_job(job, ComputeModel(*gpu_preset("h100"), DataType::bf16));
  REQUIRE(g.trace.templates_size() == 2);
  std::map<std::string, double> us[2];
  for (int r = 0; r < 2; ++r) {
    CHECK(g.trace.templates(r).name() == "stage0.cp" + std::to_string(r));
    for (const auto& t : g.trace.templates(r).tasks())
      if (t.has_compute() && t.name().rfind("layer0.", 0) == 0)
        us[r].emplace(t.name().substr(7), t.compute().duration_ns() / 1e3);  // the first micro-batch's
  }
  for (int r = 0; r < 2; ++r) {
    CAPTURE(r);
    // Step 0 works on whole local blocks: nothing to copy out in the forward.
    CHECK(!us[r].count("attention.step0.inputs"));
    for (const char* k : {"attention.step1.inputs", "attention.merge", "attention.bwd.kv_copy", "attention.bwd.step0.inputs",
                          "attention.bwd.step0.accumulate", "attention.bwd.step1.inputs", "attention.bwd.step1.accumulate"}) {
      INFO(k);
      CHECK(us[r].count(k) == 1);
    }
  }
  // Memory-bound, so the times follow the bytes: rank 1 copies a KV half-block pair (twice rank
  // 0's Q half), and merges two whole steps where rank 0 merges one and a half.
  const double overhead = ComputeModel::kKernelOverheadS * 1e6;
  CHECK((us[1]["attention.step1.inputs"] - overhead) == test::Approx(2 * (us[0]["attention.step1.inputs"] - overhead)).epsilon(0.01));
  CHECK((us[1]["attention.merge"] - overhead) == test::Approx((1 + 5 * 2.0) / (1 + 5 * 1.5) * (us[0]["attention.merge"] - overhead)).epsilon(0.01));
  // Rank 0's backward step 1 copies three Q halves (q, out, dout) and zeroes a half dq_.
  CHECK((us[0]["attention.bwd.step1.inputs"] - overhead) ==
        test::Approx(3.5 / 1.0 * (us[0]["attention.bwd.step0.inputs"] - overhead)).epsilon(0.01));
  // Step 1 does step 0's causal work unmasked, and FlashAttention-2 on Hopper runs it faster by
  // the measured forward speeds (1k keys causal 260 TFLOP/s; unmasked 512 keys 309, 1k keys 350).
  // Rank 1's step 1 is its whole Q against 512 keys; rank 0's the second half of its Q (512 rows,
  // 64 thread blocks of 128 rows for 16 heads: half of the 132 SMs) against 1,024 keys. The
  // backward's blocks split the keys instead: rank 1's step 1 leaves half the SMs idle there.
  auto compute_us = [&](int r, const char* k) { return us[r][k] - overhead; };
  CHECK(compute_us(1, "attention.step0") == test::Approx(309.0 / 260 * compute_us(1, "attention.step1")).epsilon(0.01));
  CHECK(compute_us(0, "attention.step0") == test::Approx(350.0 / 260 * 0.5 * compute_us(0, "attention.step1")).epsilon(0.01));
  // The backward runs masked or not at the measured unmasked speed (1k keys 260, 512 keys 214).
  CHECK(compute_us(0, "attention.bwd.step0") == test::Approx(compute_us(0, "attention.bwd.step1")).epsilon(0.01));
  CHECK(compute_us(1, "attention.bwd.step0") == test::Approx(214 * 0.5 / 260 * compute_us(1, "attention.bwd.step1")).epsilon(0.01));
}

TEST_CASE("tp_overlap: the SP gathers pass shard by shard beside the GEMM's chunks, the ReduceScatters go in 4 splits") {
  // Per template: the TP collectives' bytes by op, and the GEMMs by name.
  struct Program {
    std::map<std::string, double> bytes;
    std::map<std::string, int> count;
    std::map<std::string, const trace::Task*> by_name;
    GeneratedJob g;
  };
  auto generate = [](bool overlap) {
    TrainingJob job = small_job(4, 1, 2);
    job.parallel.sequence_parallel = true;
    job.parallel.tp_overlap = overlap;
    job.merge_kernels = false;
    check_training_job(job, 8, *gpu_preset("h100"));
    auto p = std::make_unique<Program>();
    p->g = generate_training_job(job, ComputeModel(*gpu_preset("h100"), DataType::bf16));
    for (const auto& t : p->g.trace.templates(0).tasks()) {
      p->by_name[t.name()] = &t;
      if (t.has_collective() && t.collective().comm() == "tp") {
        p->bytes[trace::CollectiveOp_Name(t.collective().op())] += t.collective().bytes();
        ++p->count[trace::CollectiveOp_Name(t.collective().op())];
      }
    }
    return p;
  };
  const auto plain = generate(false), overlapped = generate(true);
  // The same bytes cross the TP group either way.
  CHECK(overlapped->bytes["ALL_GATHER"] == test::Approx(plain->bytes["ALL_GATHER"]));
  CHECK(overlapped->bytes["REDUCE_SCATTER"] == test::Approx(plain->bytes["REDUCE_SCATTER"]));
  // Per layer and micro-batch: 4 gathers (2 forward, 2 row-parallel input gradients) become 3
  // ring passes each; 2 ReduceScatters become 4 splits each; the backward's 2 re-gathers and
  // 2 input-gradient ReduceScatters (already beside their GEMMs) stay.
  const int layer_passes = 8 * 24;  // micro-batches x layers
  CHECK(plain->count["ALL_GATHER"] == layer_passes * 6 + 16);  // and the LM head's input, forward and backward
  CHECK(overlapped->count["ALL_GATHER"] == plain->count["ALL_GATHER"] + layer_passes * 4 * (3 - 1));
  CHECK(overlapped->count["REDUCE_SCATTER"] == plain->count["REDUCE_SCATTER"] + layer_passes * 2 * 3);
  // The QKV GEMM runs in tp chunks of tokens / tp rows: the first at once, each next one after
  // the ring pass that brought its shard.
  const trace::Task* qkv = plain->by_name.at("layer0.qkv");
  CHECK(!overlapped->by_name.count("layer0.qkv"));
  for (int i = 0; i < 4; ++i) {
    const trace::Task* chunk = overlapped->by_name.at("layer0.qkv.chunk" + std::to_string(i));
    CHECK(chunk->compute().duration_ns() < qkv->compute().duration_ns());
    bool waits_for_ring = false;
    for (std::uint64_t d : chunk->deps())
      for (const auto& t : overlapped->g.trace.templates(0).tasks())
        if (t.id() == d && t.name() == "layer0.attention.input.allgather.ring" + std::to_string(i))
          waits_for_ring = true;
    CHECK(waits_for_ring == (i > 0));
  }
  // Simulated, on layers large enough for it to pay (hidden 8192 over TP 8; on small GEMMs the
  // chunks' launches and their smaller tiles cost more than the overlap wins, as on real GPUs): the
  // TP communication the layers wait for shrinks, the forward's most of all.
  const std::string job = "platform: {preset: dgx-h100, nodes: 1}\nworkload:\n"
                          "  model: {layers: 2, hidden: 8192, heads: 64, ffn_hidden: 28672, vocab: 32000, seq_len: 4096}\n"
                          "  training: {global_batch: 4, micro_batch: 1}\n"
                          "  parallel: {tp: 8, dp: 1, sequence_parallel: true}\n";
  const auto without = test::run_job_yaml(job), with = test::run_job_yaml(job, "--set workload.parallel.tp_overlap=true");
  CHECK(with["breakdown"]["exposed_comm_s"]["tp"].get<double>() < 0.75 * without["breakdown"]["exposed_comm_s"]["tp"].get<double>());
  CHECK(with["breakdown"]["compute_s"].get<double>() > without["breakdown"]["compute_s"].get<double>());  // chunked GEMMs
  CHECK(with["iteration_time_s"].get<double>() < without["iteration_time_s"].get<double>());
  CHECK(with["workload"]["settings"]["parallel.tp_overlap"] == "true");
}

TEST_CASE("tp_overlap_fp8_buf: an FP8 run's pipelined ReduceScatters move one byte an element, the other TP collectives keep theirs") {
  auto tp_bytes = [](bool fp8_buf) {
    TrainingJob job = small_job(4, 1, 2);
    job.training.dtype = DataType::fp8;
    job.parallel.sequence_parallel = job.parallel.tp_overlap = true;
    job.parallel.tp_overlap_fp8_buf = fp8_buf;
    job.merge_kernels = false;
    check_training_job(job, 8, *gpu_preset("h100"));
    const GeneratedJob g = generate_training_job(job, ComputeModel(*gpu_preset("h100"), DataType::fp8));
    std::map<std::string, double> bytes;  // the forward's pipelined splits, and everything else on tp
    for (const auto& t : g.trace.templates(0).tasks())
      if (t.has_collective() && t.collective().comm() == "tp")
        bytes[std::regex_search(t.name(), std::regex(R"(\.(attention\.out|mlp\.down)\.reducescatter\d$)")) ? "pipelined" : "other"] +=
            t.collective().bytes();
    return bytes;
  };
  auto plain = tp_bytes(false), fp8 = tp_bytes(true);
  CHECK(plain["pipelined"] > 0);
  CHECK(fp8["pipelined"] == test::Approx(plain["pipelined"] / 2));  // bf16 partial sums, 2 bytes, become 1
  CHECK(fp8["other"] == test::Approx(plain["other"]));
}

TEST_CASE("persistent_gemms: a GEMM with a tile for every SM fills the GPU, and userbuffers' collectives keep SMs of their own") {
  // Which of rank 0's tasks fill the GPU, and which collectives run on reserved SMs, by name.
  auto flags = [](std::uint32_t tp, bool persistent, bool tp_overlap) {
    TrainingJob job = small_job(tp, 1, 8 / tp);
    job.parallel.sequence_parallel = job.parallel.tp_overlap = tp_overlap;
    job.training.persistent_gemms = persistent;
    job.merge_kernels = false;
    check_training_job(job, 8, *gpu_preset("h100"));
    const GeneratedJob g = generate_training_job(job, ComputeModel(*gpu_preset("h100"), DataType::bf16));
    std::map<std::string, bool> fills, reserved;
    for (const auto& t : g.trace.templates(0).tasks()) {
      if (t.has_compute())
        fills[t.name()] = t.compute().fills_gpu();
      if (t.has_collective())
        reserved[t.name()] = t.collective().reserved_sms();
    }
    return std::make_pair(fills, reserved);
  };
  // gpt3-1.3b, 2,048 tokens a micro-batch: the QKV GEMM's output, 2,048 x 6,144, has 16 x 24
  // tiles of 128 x 256 for 132 SMs; split 8 ways (2,048 x 768), 16 x 3. A norm never fills it.
  const auto [whole, none_reserved] = flags(1, true, false);
  CHECK(whole.at("layer0.qkv"));
  CHECK(whole.at("layer0.mlp.up"));
  CHECK_FALSE(whole.at("layer0.norm1"));
  CHECK_FALSE(flags(8, true, false).first.at("layer0.qkv"));
  for (const auto& kernel : flags(1, false, false).first) {
    CAPTURE(kernel.first);  // not a structured binding: clang before 16 cannot capture one
    CHECK_FALSE(kernel.second);  // persistent_gemms: false
  }
  for (const auto& [name, reserved] : none_reserved)
    CHECK_FALSE(reserved);  // NCCL's collectives take SMs like any kernel
  // With userbuffers the ring exchanges and the pipelined ReduceScatters run on their own SMs;
  // the data-parallel gradient reduction does not.
  const auto overlapped = flags(2, true, true).second;
  CHECK(overlapped.at("layer0.attention.input.allgather.ring1"));
  CHECK(overlapped.at("layer0.attention.out.reducescatter0"));
  CHECK(overlapped.at("layer0.qkv.input.allgather"));  // the backward's bulk overlaps
  CHECK(overlapped.at("layer0.qkv.dgrad.reducescatter"));
  // Megatron's output layer is its own ColumnParallelLinear, not a Transformer Engine one: its
  // backward's exchanges are NCCL's, on SMs like any kernel.
  CHECK_FALSE(overlapped.at("lm_head.input.allgather"));
  CHECK_FALSE(overlapped.at("lm_head.dgrad.reducescatter"));
  for (const auto& call : overlapped)
    if (call.first.find("grads") != std::string::npos) {
      CAPTURE(call.first);
      CHECK_FALSE(call.second);
    }
}

TEST_CASE("fp8_params: the distributed optimizer gathers the linear weights in FP8 and the rest in 16-bit") {
  TrainingJob job = small_job(1, 1, 4);
  job.training.dtype = DataType::fp8;
  job.parallel.zero = 1;
  job.parallel.dp_overlap = true;
  job.merge_kernels = false;
  // The bytes of each parameter AllGather named `name` on rank 0, in issue order.
  auto gathers = [&job](bool fp8_params, const std::string& name) {
    job.training.fp8_params = fp8_params;
    check_training_job(job, 4, *gpu_preset("h100"));
    const GeneratedJob g = generate_training_job(job, ComputeModel(*gpu_preset("h100"), DataType::fp8));
    std::vector<double> bytes;
    for (const auto& t : g.trace.templates(0).tasks())
      if (t.has_collective() && t.name() == name)
        bytes.push_back(static_cast<double>(t.collective().bytes()));
    return bytes;
  };
  auto total = [](const std::vector<double>& v) { return std::accumulate(v.begin(), v.end(), 0.0); };
  const double plain = total(gathers(false, "params.allgather")), fp8 = total(gathers(true, "params.allgather"));
  const Shapes s(job);
  CHECK(plain == test::Approx(stage_parameters(s, 0) * 2).epsilon(1e-3));
  // Each linear weight moves one byte instead of two; the embeddings and norms keep theirs.
  CHECK(plain - fp8 == test::Approx(job.model.layers * s.linear_params()).epsilon(1e-3));
  CHECK(fp8 > plain / 2);
  // FSDP's per-layer gathers the same way (torchtitan's float8 all-gather).
  job.parallel.zero = 3;
  const std::vector<double> layer_plain = gathers(false, "layer0.params.allgather");
  REQUIRE(!layer_plain.empty());
  CHECK(layer_plain.front() - gathers(true, "layer0.params.allgather").front() == test::Approx(s.linear_params()).epsilon(1e-6));
}

TEST_CASE("tp_overlap_sms: the chunked output GEMMs run on the SMs the pipelined ReduceScatters leave them") {
  auto chunk_us = [](std::uint32_t proj, std::uint32_t fc2) {
    TrainingJob job = small_job(4, 1, 2);
    job.model.hidden = 8192;
    job.model.heads = 64;
    job.model.ffn_hidden = 28672;
    job.model.seq_len = 4096;
    job.parallel.sequence_parallel = job.parallel.tp_overlap = true;
    job.parallel.tp_overlap_sms = {proj, fc2};
    const auto us = kernel_us(job, 8);
    return std::pair{us.at("layer0.attention.out.chunk0"), us.at("layer0.mlp.down.chunk0")};
  };
  const auto [proj_free, fc2_free] = chunk_us(0, 0);
  const auto [proj_held, fc2_alone] = chunk_us(24, 0);
  const auto [proj_alone, fc2_held] = chunk_us(0, 16);
  // Each knob acts on its own GEMM.
  CHECK(fc2_alone == fc2_free);
  CHECK(proj_alone == proj_free);
  // Fewer SMs for the same tiles. The four splits share their waves (TE launches them on rotating
  // streams): the MLP-down splits (1,024 x 8,192 x 7,168: 256 tiles each, 1,024 together) need 9
  // waves on 116 SMs where 8 fill 132; the attention-output chunk loses 24 of 132.
  CHECK(fc2_held == test::Approx(fc2_free * 9 / 8).epsilon(0.01));
  CHECK(proj_held > proj_free * 132.0 / 108 * 0.97);
}

TEST_CASE("GEMM chunks launched side by side share their waves: each takes its share of the pooled time") {
  const ComputeModel h100(*gpu_preset("h100"), DataType::bf16);
  // A ring-exchange chunk of a TP 8 QKV GEMM (512 of 4,096 tokens, hidden 7,168): one wave, two
  // thirds of the SMs idle when it runs alone.
  KernelOp chunk;
  chunk.shape = KernelShape::gemm;
  chunk.m = 512;
  chunk.n = 2688;
  chunk.k = 7168;
  KernelOp pooled = chunk;
  pooled.side_by_side = 8;
  KernelOp batched = chunk;
  batched.batch = 8;
  const double overhead = ComputeModel::kKernelOverheadS;
  CHECK(h100.time_s(pooled) - overhead == test::Approx((h100.time_s(batched) - overhead) / 8).epsilon(1e-9));
  CHECK(h100.time_s(pooled) < 0.75 * h100.time_s(chunk));
  // A GEMM of many waves has little to gain: its last wave's idle SMs only (2,688 tiles: 20.4 waves).
  KernelOp big = chunk;
  big.m = 32768;
  KernelOp big_pooled = big;
  big_pooled.side_by_side = 4;
  CHECK(h100.time_s(big_pooled) <= h100.time_s(big));
  CHECK(h100.time_s(big_pooled) > 0.95 * h100.time_s(big));
  // Whether the chunk holds the GPU is its own launch's question: its 44 blocks leave SMs free.
  CHECK_FALSE(h100.fills_gpu(pooled));
}

TEST_CASE("a GEMM runs on the SMs a concurrent communication kernel leaves it, and one that fills less than a wave does not notice") {
  const ComputeModel h100(*gpu_preset("h100"), DataType::bf16);
  KernelOp big;
  big.shape = KernelShape::gemm;
  big.m = big.n = big.k = 8192;  // 2,048 tiles: 15.5 waves on 132 SMs, 19 on 108
  KernelOp held = big;
  held.sms_held = 24;
  CHECK(h100.time_s(held) == test::Approx(h100.time_s(big) * 132.0 / 108).epsilon(0.03));
  KernelOp small = big;
  small.m = 256;
  small.n = 1024;  // 8 tiles
  KernelOp small_held = small;
  small_held.sms_held = 24;
  CHECK(h100.time_s(small_held) == test::Approx(h100.time_s(small)).epsilon(1e-9));
}

TEST_CASE("pipeline sends hold the stage until received, unless p2p_overlap") {
  // How many of a stage's sends some computation waits for, and how many sends there are.
  auto held = [](bool overlap, int stage = 0) {
    TrainingJob job = small_job(1, 2, 1);
    job.parallel.p2p_overlap = overlap;
    check_training_job(job, 8, *gpu_preset("a100"));
    const GeneratedJob g = generate_training_job(job, ComputeModel(*gpu_preset("a100"), DataType::bf16));
    std::set<std::uint64_t> sends, awaited;
    for (const auto& t : g.trace.templates(stage).tasks()) {
      if (t.has_send())
        sends.insert(t.id());
      if (t.has_compute())
        awaited.insert(t.deps().begin(), t.deps().end());
    }
    std::size_t n = 0;
    for (std::uint64_t s : sends)
      n += awaited.count(s);
    return std::pair(n, sends.size());
  };
  const auto [blocking, sends] = held(false);
  CHECK(sends == 16);  // stage 0 sends each of its 16 micro-batches' activations on
  CHECK(blocking == sends);
  CHECK(held(true).first == 0);
  // The last stage sends gradients back; its last send holds what follows the backward too.
  const auto [last_blocking, last_sends] = held(false, 1);
  CHECK(last_sends == 16);
  CHECK(last_blocking == last_sends);
}

TEST_CASE("model FLOPs follow Megatron's formula for a GPT model") {
  TrainingJob job = small_job(1, 1, 1);
  job.model = *model_preset("gpt3-175b");
  job.training.global_batch = 1536;
  const double B = 1536, s = 2048, l = 96, h = 12288, V = 50257;
  const double megatron = 72 * B * s * l * h * h * (1 + s / (6 * h) + V / (12 * l * h));
  CHECK(model_flops_per_iteration(job) == test::Approx(megatron).epsilon(1e-9));
}

TEST_CASE("memory: ZeRO shards the optimizer, recomputation shrinks activations, 1F1B's first stage holds most") {
  TrainingJob job = small_job(1, 4, 4);
  job.training.global_batch = 64;
  check_training_job(job, 16, *gpu_preset("a100"));
  const Shapes s(job);
  const MemoryBreakdown first = stage_memory(s, 0), third = stage_memory(s, 2);
  CHECK(first.activations > third.activations);
  CHECK(first.optimizer == test::Approx(stage_parameters(s, 0) * 12));
  job.parallel.zero = 1;
  const Shapes z(job);
  CHECK(stage_memory(z, 0).optimizer == test::Approx(first.optimizer / 4));
  job.parallel.zero = 0;
  job.training.recompute = Recompute::full;
  const Shapes r(job);
  CHECK(stage_memory(r, 0).activations < 0.2 * first.activations);
}

TEST_CASE("memory and traffic follow the gradient and optimizer types (NeMo's bf16 recipes)") {
  TrainingJob job = small_job(1, 1, 4);
  job.parallel.zero = 1;
  check_training_job(job, 4, *gpu_preset("h100"));
  const Shapes fp32(job);
  const double params = stage_parameters(fp32, 0);
  CHECK(stage_memory(fp32, 0).gradients == test::Approx(params * 4));
  CHECK(stage_memory(fp32, 0).optimizer == test::Approx(params * 12 / 4));  // master + two moments, sharded
  job.training.grad_dtype = DataType::bf16;
  job.training.optimizer_dtype = DataType::bf16;
  const Shapes bf16(job);
  CHECK(stage_memory(bf16, 0).gradients == test::Approx(params * 2));
  CHECK(stage_memory(bf16, 0).optimizer == test::Approx(params * 4 / 4));  // two bf16 moments, no master
  // The gradient reduction carries the gradient's type.
  const auto dp_bytes = [](const TrainingJob& j) {
    const GeneratedJob g = generate_training_job(j, ComputeModel(*gpu_preset("h100"), DataType::bf16));
    double bytes = 0;
    for (const auto& t : g.trace.templates(0).tasks())
      if (t.has_collective() && t.collective().comm() == "dp" && t.collective().op() == trace::REDUCE_SCATTER)
        bytes += static_cast<double>(t.collective().bytes());
    return bytes;
  };
  TrainingJob fp32_job = job;
  fp32_job.training.grad_dtype.reset();
  CHECK(dp_bytes(job) > 0);
  CHECK(dp_bytes(job) == test::Approx(dp_bytes(fp32_job) / 2).epsilon(0.01));
}

TEST_CASE("ZeRO-3 gathers a layer's parameters once per pass, also when full recomputation reruns its forward") {
  for (const Recompute recompute : {Recompute::none, Recompute::full}) {
    TrainingJob job = small_job(1, 1, 4);
    job.training.global_batch = 4;  // one micro-batch a rank
    job.training.recompute = recompute;
    job.parallel.zero = 3;
    job.merge_kernels = false;
    check_training_job(job, 4, *gpu_preset("h100"));
    const GeneratedJob g = generate_training_job(job, ComputeModel(*gpu_preset("h100"), DataType::bf16));
    int gathers = 0;
    for (const auto& t : g.trace.templates(0).tasks())
      if (t.has_collective() && t.name().rfind("layer3.", 0) == 0 && t.collective().op() == trace::ALL_GATHER)
        ++gathers;
    CAPTURE(static_cast<int>(recompute));
    CHECK(gathers == 2);  // forward and backward
  }
}

namespace {

// A resolved setting of `job` run under `framework`, as its summary reports it.
std::string framework_setting(const std::string& job, const char* framework, const char* key) {
  return test::run_job_yaml(job, std::string("--set workload.training.framework=") + framework)["workload"]["settings"][key]
      .get<std::string>();
}

} // namespace

TEST_CASE("ZeRO-3's backward gathers the next layer at this layer's start (pre), after its gradients (post) or after its ReduceScatter (none)") {
  for (const BackwardPrefetch mode : {BackwardPrefetch::pre, BackwardPrefetch::post, BackwardPrefetch::none}) {
    TrainingJob job = small_job(1, 1, 4);
    job.training.global_batch = 4;  // one micro-batch a rank
    job.parallel.zero = 3;
    job.parallel.backward_prefetch = mode;
    job.merge_kernels = false;
    check_training_job(job, 4, *gpu_preset("h100"));
    const GeneratedJob g = generate_training_job(job, ComputeModel(*gpu_preset("h100"), DataType::bf16));
    const auto& tasks = g.trace.templates(0).tasks();
    // Positions in issue order (the data-parallel stream runs its calls in that order).
    auto at = [&](const std::string& name) {
      for (int i = 0; i < tasks.size(); ++i)
        if (tasks[i].name() == name)
          return i;
      FAIL("no task " << name);
      return -1;
    };
    const int gather = at("layer2.bwd.params.allgather"), scatter = at("layer3.grads.reducescatter");
    const int first = at("layer3.dropout_add2.bwd"), last = at("layer3.residual1.grad_add");
    const auto& deps = tasks[gather].deps();
    CAPTURE(backward_prefetch_name(mode));
    if (mode == BackwardPrefetch::pre) {
      CHECK(gather < first);
      CHECK(gather < scatter);
    } else if (mode == BackwardPrefetch::post) {
      CHECK(gather > last);
      CHECK(gather < scatter);
      CHECK(std::find(deps.begin(), deps.end(), tasks[last].id()) != deps.end());  // it waits for the layer's gradients
    } else {
      CHECK(gather > scatter);
    }
    // Whenever it was issued, layer 2's backward waits for it.
    const auto& waiter = tasks[at("layer2.dropout_add2.bwd")].deps();
    CHECK(std::find(waiter.begin(), waiter.end(), tasks[gather].id()) != waiter.end());
  }
}

TEST_CASE("backward_prefetch: what overlaps shows in the time (pre < post < none), and each framework has its own") {
  // gpt3-1.3b over two nodes whose NICs are slow enough for the gathers to matter.
  const std::string job = R"(platform: {preset: dgx-a100, nodes: 2, nic_bw: 50Gbps}
workload:
  model: {name: gpt3-1.3b}
  training: {global_batch: 16, micro_batch: 1, recompute: full}
  parallel: {dp: 16, zero: 3}
)";
  auto time_of = [&](const char* mode) {
    return test::run_job_yaml(job, std::string("--set workload.parallel.backward_prefetch=") + mode)["iteration_time_s"].get<double>();
  };
  const double pre = time_of("pre"), post = time_of("post"), none = time_of("none");
  CHECK(pre < post);
  CHECK(post < none);
  auto setting = [&](const char* framework) { return framework_setting(job, framework, "parallel.backward_prefetch"); };
  CHECK(setting("fsdp") == "post");  // Composer's FSDPConfig default (llm-foundry)
  CHECK(setting("torchtitan") == "pre");  // FSDP2's explicit backward prefetch
  CHECK(setting("megatron-lm") == "pre");
}

TEST_CASE("flat_parameters: FSDP1 concatenates each layer's gradient into its flat gradient before the ReduceScatter") {
  for (const bool flat : {true, false}) {
    TrainingJob job = small_job(1, 1, 4);
    job.training.global_batch = 4;
    job.parallel.zero = 3;
    job.parallel.flat_parameters = flat;
    job.merge_kernels = false;
    check_training_job(job, 4, *gpu_preset("h100"));
    const Shapes s(job);
    const GeneratedJob g = generate_training_job(job, ComputeModel(*gpu_preset("h100"), DataType::bf16));
    const auto& tasks = g.trace.templates(0).tasks();
    int copy = -1, scatter = -1;
    for (int i = 0; i < tasks.size(); ++i) {
      if (tasks[i].name() == "layer3.grads.flatten")
        copy = i;
      if (tasks[i].name() == "layer3.grads.reducescatter")
        scatter = i;
    }
    CAPTURE(flat);
    REQUIRE(scatter >= 0);
    if (!flat) {
      CHECK(copy < 0);
      continue;
    }
    REQUIRE(copy >= 0);
    CHECK(copy < scatter);
    const auto& deps = tasks[scatter].deps();
    CHECK(std::find(deps.begin(), deps.end(), tasks[copy].id()) != deps.end());  // it reduces the flat gradient
    // The layer's gradient read and written once, in the training type.
    KernelOp op;
    op.category = trace::MEMCPY;
    op.shape = KernelShape::memory;
    op.bytes = s.layer_params() * 2 * 2;
    const double ns = ComputeModel(*gpu_preset("h100"), DataType::bf16).time_s(op) * 1e9;
    CHECK(static_cast<double>(tasks[copy].compute().duration_ns()) == test::Approx(ns).epsilon(1e-4));  // whole ns
  }
  const std::string job = R"(platform: {preset: dgx-a100, nodes: 1}
workload:
  model: {name: gpt3-1.3b}
  training: {global_batch: 8, micro_batch: 1}
  parallel: {dp: 8, zero: 3}
)";
  auto setting = [&](const char* framework) { return framework_setting(job, framework, "parallel.flat_parameters"); };
  CHECK(setting("fsdp") == "true");
  CHECK(setting("torchtitan") == "false");
}

TEST_CASE("ZeRO-3 over one rank (dp x cp = 1) has nothing to shard: no gathers, no scatters, the weights whole") {
  // It used to gather over a data-parallel communicator that a job of one replica does not have,
  // and the run stopped with an error about the trace's communicators (found by a random sweep).
  TrainingJob job = small_job(2, 1, 1);
  job.training.global_batch = 2;
  job.merge_kernels = false;
  TrainingJob zero0 = job;
  job.parallel.zero = 3;
  check_training_job(job, 2, *gpu_preset("h100"));
  const ComputeModel model(*gpu_preset("h100"), DataType::bf16);
  const GeneratedJob sharded = generate_training_job(job, model), plain = generate_training_job(zero0, model);
  for (const auto& t : sharded.trace.templates(0).tasks())
    if (t.has_collective()) {
      CAPTURE(t.name());
      CHECK(t.collective().op() != trace::ALL_GATHER);
      CHECK(t.collective().op() != trace::REDUCE_SCATTER);
    }
  CHECK(sharded.trace.templates(0).tasks_size() == plain.trace.templates(0).tasks_size());
  CHECK(stage_memory(Shapes(job), 0).weights == stage_memory(Shapes(zero0), 0).weights);
}

TEST_CASE("ZeRO-1 with overlap: the parameters are gathered bucket by bucket, each waited for where the forward first uses it") {
  TrainingJob job = small_job(1, 1, 4);
  job.parallel.zero = 1;
  job.parallel.dp_overlap = true;
  job.parallel.bucket_mb = 100;  // a few layers of gpt3-1.3b's fp32 gradients a bucket
  job.merge_kernels = false;
  check_training_job(job, 4, *gpu_preset("h100"));
  const Shapes s(job);
  const GeneratedJob g = generate_training_job(job, ComputeModel(*gpu_preset("h100"), DataType::bf16));
  const auto& tasks = g.trace.templates(0).tasks();
  std::vector<std::uint64_t> gathers;
  double gathered_bytes = 0;
  for (const auto& t : tasks) {
    if (t.has_collective() && t.name() == "params.allgather") {
      gathers.push_back(t.id());
      gathered_bytes += static_cast<double>(t.collective().bytes());
    }
  }
  // Every parameter once, in 16-bit, in more than one bucket.
  REQUIRE(gathers.size() > 2);
  CHECK(gathered_bytes == test::Approx(stage_parameters(s, 0) * 2).epsilon(1e-3));
  // Each gather is first waited for by a kernel of its own, in the order of the gathers: the
  // embedding waits for the first only, and later layers for the later ones.
  const auto task_count = static_cast<std::size_t>(tasks.size());
  std::vector<std::size_t> waiter(gathers.size(), task_count);
  std::vector<std::string> waiter_name(gathers.size());
  for (std::size_t i = 0; i < task_count; ++i)
    for (std::uint64_t d : tasks[static_cast<int>(i)].deps())
      for (std::size_t b = 0; b < gathers.size(); ++b)
        if (d == gathers[b] && waiter[b] == task_count && !tasks[static_cast<int>(i)].has_collective()) {
          waiter[b] = i;
          waiter_name[b] = tasks[static_cast<int>(i)].name();
        }
  CHECK(waiter_name.front() == "embedding");
  for (std::size_t b = 1; b < gathers.size(); ++b) {
    CAPTURE(waiter_name[b]);
    CHECK(waiter[b] < task_count);
    CHECK(waiter[b] > waiter[b - 1]);
    CHECK(waiter_name[b].rfind("layer", 0) == 0);
  }
  CHECK(waiter_name.back() != "layer0.norm1");
}

namespace {

const char* kSmallJob = R"(platform: {preset: dgx-a100, nodes: 1}
workload:
  model: {name: gpt3-1.3b}
  training: {global_batch: 16, micro_batch: 1}
  parallel: {tp: 2, pp: 2, dp: 2, sequence_parallel: true, zero: 1}
)";


std::string run_error(const std::string& yaml, const std::string& extra = "") {
  test::TempDir dir;
  const auto r = test::run_cli("run " + dir.file("job.yaml", yaml) + " -q " + extra);
  CHECK(r.code == 2);
  return r.err;
}

} // namespace

TEST_CASE("merging kernel runs leaves the iteration time and breakdown exactly as they were") {
  for (const char* slowdown : {"", " --set slowdown.model=constant --set slowdown.factor=0.3",
                               " --set slowdown.model=category"}) {
    INFO(slowdown);
    const auto merged = test::run_job_yaml(kSmallJob, slowdown);
    const auto each = test::run_job_yaml(kSmallJob, std::string(slowdown) + " --set workload.merge_kernels=false");
    CHECK(merged["workload"]["tasks"] < each["workload"]["tasks"]);
    CHECK(merged["iteration_time_ns"] == each["iteration_time_ns"]);
    CHECK(merged["breakdown"]["compute_s"].get<double>() == test::Approx(each["breakdown"]["compute_s"].get<double>()).epsilon(1e-12));
    CHECK(merged["breakdown"]["bubble_s"].get<double>() == test::Approx(each["breakdown"]["bubble_s"].get<double>()).epsilon(1e-9));
  }
}

TEST_CASE("the summary of a generated job has throughput, MFU, memory and a breakdown that adds up") {
  const auto j = test::run_job_yaml(kSmallJob);
  const double t = j["iteration_time_s"];
  const auto& tr = j["training"];
  CHECK(tr["tokens_per_s"].get<double>() == test::Approx(16.0 * 2048 / t));
  CHECK(tr["mfu"].get<double>() == test::Approx(tr["tflops_per_gpu"].get<double>() * 1e12 / 312e12));
  CHECK(tr["mfu"].get<double>() > 0.2);
  CHECK(tr["mfu"].get<double>() < 0.7);
  CHECK(tr["peak_memory_bytes"].get<double>() < tr["memory_capacity_bytes"].get<double>());
  double peak = 0;  // every rank reports its memory; the peak is the largest
  for (const auto& rank : j["ranks"])
    peak = std::max(peak, rank["memory_bytes"].get<double>());
  CHECK(peak == tr["peak_memory_bytes"].get<double>());
  const auto& b = j["breakdown"];
  double sum = b["compute_s"].get<double>() + b["overlap_slowdown_s"].get<double>() + b["bubble_s"].get<double>() +
               b["idle_s"].get<double>();
  for (const auto& [slot, s] : b["exposed_comm_s"].items())
    sum += s.get<double>();
  CHECK(sum == test::Approx(t).epsilon(1e-9));
  CHECK(b["exposed_comm_s"].contains("tp"));
  CHECK(b["exposed_comm_s"].contains("pp"));
}

TEST_CASE("the same generated job gives byte-identical output") {
  test::TempDir dir;
  const std::string job = dir.file("job.yaml", kSmallJob);
  const auto a = test::run_cli("run " + job + " -q --out " + dir.path().string() + "/a");
  const auto b = test::run_cli("run " + job + " -q --out " + dir.path().string() + "/b");
  REQUIRE(a.code == 0);
  CHECK(a.out == b.out);
  for (const char* file : {"/summary.json", "/timeline.json", "/report.html"})
    CHECK(test::slurp(dir.path().string() + "/a" + file) == test::slurp(dir.path().string() + "/b" + file));
}

TEST_CASE("a model given by its dimensions follows its activation: GPT-like with gelu, Llama-like otherwise") {
  const auto resolved = [](const std::string& model) {
    const nlohmann::json j = test::run_job_yaml("platform: {preset: dgx-a100, nodes: 1}\nworkload:\n  model: " + model +
                                                "\n  training: {global_batch: 8}\n  parallel: {tp: 8, dp: 1}\n");
    return j["workload"]["settings"];
  };
  const nlohmann::json relu = resolved("{layers: 2, hidden: 1024, heads: 8, activation: squared_relu}");
  CHECK(relu["model.activation"] == "squared_relu");
  CHECK(relu["model.rotary"] == "true");
  CHECK(relu["model.bias"] == "false");
  CHECK(relu["model.tied_embeddings"] == "false");
  const nlohmann::json gpt = resolved("{layers: 2, hidden: 1024, heads: 8, rotary: true}");
  CHECK(gpt["model.activation"] == "gelu");
  CHECK(gpt["model.rotary"] == "true");
  CHECK(gpt["model.bias"] == "true");
  CHECK(gpt["model.tied_embeddings"] == "true");
  CHECK(run_error(kSmallJob, "--set workload.model.activation=relu").find("must be one of gelu, swiglu, squared_relu, got 'relu'") !=
        std::string::npos);
  CHECK(run_error(kSmallJob, "--set workload.model.bias=maybe").find("bias") != std::string::npos);
  CHECK(run_error(kSmallJob, "--set workload.model.rotary=perhaps").find("`rotary` must be true or false") != std::string::npos);
  CHECK(run_error(kSmallJob, "--set workload.model.norm=batchnorm").find("`norm` must be one of layernorm, rmsnorm") !=
        std::string::npos);
}

TEST_CASE("bad generator jobs: a clear message and exit code 2") {
  CHECK(run_error(kSmallJob, "--set workload.parallel.tp=3").find("tp (3) does not divide heads (16)") != std::string::npos);
  CHECK(run_error(kSmallJob, "--set workload.parallel.pp=5").find("does not divide layers (24)") != std::string::npos);
  CHECK(run_error(kSmallJob, "--set workload.training.global_batch=17").find("global_batch (17) is not divisible") !=
        std::string::npos);
  CHECK(run_error(kSmallJob, "--set workload.parallel.dp=4").find("but the platform has 8") != std::string::npos);
  // A batch that would fill the machine's memory is refused before anything is built.
  CHECK(run_error(kSmallJob, "--set workload.training.global_batch=80000000")
            .find("through 24 layers: simulating it would take about") != std::string::npos);
  CHECK(run_error(kSmallJob, "--set workload.training.dtype=fp8").find("fp8 is not supported by the A100") != std::string::npos);
  CHECK(run_error(kSmallJob, "--set workload.training.dtype=int4").find("must be one of bf16") != std::string::npos);
  CHECK(run_error(kSmallJob, "--set workload.model.name=gpt5").find("unknown model preset 'gpt5'") != std::string::npos);
  CHECK(run_error(kSmallJob, "--set workload.parallel.tensor=2").find("unknown key 'tensor' in `workload.parallel`") !=
        std::string::npos);
  CHECK(run_error(kSmallJob, "--set workload.parallel.ep=2").find("has no experts") != std::string::npos);
  CHECK(run_error(kSmallJob, "--set workload.model.name=mixtral-8x7b --set workload.parallel.ep=3 --set workload.parallel.dp=1 "
                             "--set workload.training.global_batch=4")
            .find("ep (3) does not divide experts (8)") != std::string::npos);
  CHECK(run_error(kSmallJob, "--set workload.trace=x.pb").find("belongs to a traced workload") != std::string::npos);
  CHECK(run_error(kSmallJob, "--set workload.parallel.order=tp-pp-tp").find("parallel.order") != std::string::npos);
  CHECK(run_error(kSmallJob, "--set workload.parallel.p2p_overlap=sometimes").find("p2p_overlap") != std::string::npos);
  CHECK(run_error(kSmallJob, "--set workload.parallel.tp_overlap=sometimes").find("tp_overlap") != std::string::npos);
  CHECK(run_error(kSmallJob, "--set workload.parallel.tp_overlap=true --set workload.parallel.sequence_parallel=false")
            .find("parallel.tp_overlap needs tensor parallelism with sequence parallelism (tp 2, sequence_parallel false)") !=
        std::string::npos);
  CHECK(run_error(kSmallJob, "--set workload.parallel.tp_overlap=true --set workload.parallel.tp=1 --set workload.parallel.dp=4")
            .find("parallel.tp_overlap needs tensor parallelism") != std::string::npos);
  CHECK(run_error(kSmallJob, "--set 'workload.parallel.tp_overlap_sms={proj_fprop: 108}'")
            .find("parallel.tp_overlap_sms gives a communication kernel 108 SMs, but the A100-SXM4-80GB has 108") != std::string::npos);
  CHECK(run_error(kSmallJob, "--set workload.parallel.tp_overlap=true --set workload.parallel.tp_overlap_fp8_buf=true")
            .find("parallel.tp_overlap_fp8_buf needs tp_overlap and training.dtype fp8 (tp_overlap true, dtype") != std::string::npos);
  CHECK(run_error(kSmallJob, "--set workload.parallel.tp_overlap_fp8_buf=maybe").find("tp_overlap_fp8_buf") != std::string::npos);
  CHECK(run_error(kSmallJob, "--set workload.training.fp8_params=true")
            .find("training.fp8_params needs training.dtype fp8 (dtype") != std::string::npos);
  CHECK(run_error(kSmallJob, "--set workload.training.fp8_params=often").find("fp8_params") != std::string::npos);
  CHECK(run_error(kSmallJob, "--set workload.parallel.backward_prefetch=post")
            .find("`backward_prefetch` orders ZeRO-3's parameter gathers, and this job has zero: 1") != std::string::npos);
  CHECK(run_error(kSmallJob, "--set workload.parallel.zero=3 --set workload.parallel.backward_prefetch=early")
            .find("backward_prefetch") != std::string::npos);
  CHECK(run_error(kSmallJob, "--set workload.parallel.flat_parameters=true")
            .find("`flat_parameters` describes ZeRO-3's parameters, and this job has zero: 1") != std::string::npos);
  CHECK(run_error(kSmallJob, "--set workload.parallel.zero=3 --set workload.parallel.flat_parameters=maybe")
            .find("flat_parameters") != std::string::npos);
  CHECK(run_error(kSmallJob, "--set 'workload.parallel.tp_overlap_sms={qkv_wgrad: 24}'")
            .find("unknown key 'qkv_wgrad' in `workload.parallel.tp_overlap_sms`") != std::string::npos);
  CHECK(run_error(kSmallJob, "--set 'workload.parallel.tp_overlap_sms={fc2_fprop: -1}'").find("fc2_fprop") != std::string::npos);
  // The platform's GPU must be one the compute model knows, and the platform must say which.
  CHECK(run_error(kSmallJob, "--set platform.gpu=V100-SXM2-32GB").find("GPU `V100-SXM2-32GB` has no compute preset") !=
        std::string::npos);
  {
    test::TempDir dir;
    std::string xml = test::slurp(ECHO_SOURCE_DIR "/examples/platforms/one_node_8gpu.xml");
    for (std::size_t at; (at = xml.find("<prop id=\"gpu\" value=\"A100-SXM4-80GB\"/>")) != std::string::npos;)
      xml.erase(at, std::string("<prop id=\"gpu\" value=\"A100-SXM4-80GB\"/>").size());
    const std::string platform = dir.file("no_gpu.xml", xml);
    const std::string job = "platform: {file: " + platform + "}\nworkload:\n  model: {name: gpt3-125m}\n";
    CHECK(run_error(job).find("no host carries the property `gpu`") != std::string::npos);
  }
  // A rank that does not fit names itself, its stage and what its memory is made of.
  const std::string big = run_error(kSmallJob, "--set workload.model.name=gpt3-175b --set workload.model.layers=16");
  CHECK(big.find("rank 0 (pipeline stage0) needs") != std::string::npos);
  CHECK(big.find("of 80.0 GiB: weights") != std::string::npos);
}

// Two summaries of the same job, folded and not: every figure equal but what says how it ran.
// `with_collectives`: the collectives' table too (mirrored communicators are tabulated as their
// images), in one order (equal totals may tie differently).
void require_same_summaries(nlohmann::json folded, nlohmann::json every, bool with_collectives = false) {
  for (auto* j : {&folded, &every}) {
    (*j).erase("simulation");
    if (with_collectives) {
      REQUIRE((*j)["collectives"].size() < 100);  // the table keeps the first 100
      std::vector<nlohmann::json> rows((*j)["collectives"].begin(), (*j)["collectives"].end());
      std::sort(rows.begin(), rows.end(), [](const nlohmann::json& a, const nlohmann::json& b) {
        return std::tie(a["communicator"].get_ref<const std::string&>(), a["op"].get_ref<const std::string&>(), a["bytes"].get_ref<const std::uint64_t&>()) <
               std::tie(b["communicator"].get_ref<const std::string&>(), b["op"].get_ref<const std::string&>(), b["bytes"].get_ref<const std::uint64_t&>());
      });
      (*j)["collectives"] = rows;
    } else {
      (*j).erase("collectives");  // --fold all's mirrored calls
    }
    (*j)["workload"].erase("source");  // each run's job file sits in its own temporary folder
    (*j).erase("job");  // the same, and the folding switch itself
    (*j).erase("notes");  // --fold all says what it folded
  }
  // Equal up to rounding: a folded call is timed in closed form, the same sum its steps add up to.
  CHECK(folded["iteration_time_ns"] == every["iteration_time_ns"]);
  std::function<void(const nlohmann::json&, const nlohmann::json&, const std::string&)> same =
      [&](const nlohmann::json& a, const nlohmann::json& b, const std::string& where) {
        INFO(where);
        REQUIRE(a.type() == b.type());
        if (a.is_object() || a.is_array()) {
          REQUIRE(a.size() == b.size());
          for (auto it = a.begin(); it != a.end(); ++it)
            same(it.value(), a.is_object() ? b.at(it.key()) : b.at(static_cast<std::size_t>(std::distance(a.begin(), it))),
                 where + "/" + (a.is_object() ? it.key() : std::to_string(std::distance(a.begin(), it))));
        } else if (a.is_number_float()) {
          CHECK(a.get<double>() == test::Approx(b.get<double>()).epsilon(1e-9));
        } else {
          CHECK(a == b);
        }
      };
  same(folded, every, "");
}

// One job run with one replica simulated (--fold all) and with every rank (--fold none).
std::pair<nlohmann::json, nlohmann::json> run_fold_all_and_none(const std::string& job) {
  return {test::run_job_yaml(job, "--fold all"), test::run_job_yaml(job, "--fold none")};
}

TEST_CASE("folding interchangeable TP siblings leaves every figure of every rank as it was") {
  const char* job = R"(platform: {preset: dgx-a100, nodes: 4}
workload:
  model: {name: gpt3-2.7b}
  training: {global_batch: 16, micro_batch: 1}
  parallel: {tp: 8, pp: 2, dp: 2, sequence_parallel: true, zero: 1}
)";
  auto folded = test::run_job_yaml(job);
  auto every = test::run_job_yaml(job, "--no-folding");
  CHECK(folded["simulation"]["events"] < every["simulation"]["events"]);
  CHECK(test::run_job_yaml(job, "--fold none")["simulation"]["events"] == every["simulation"]["events"]);
  require_same_summaries(folded, every);
}

TEST_CASE("exact folding simulates one replica where that changes nothing, and every figure is as unfolded") {
  // Each job: whether exact folding folds its data- (and expert-) parallel replicas as well as its
  // TP siblings (then far fewer events than --fold tp), and the summaries against every rank
  // simulated. Replicas fold where the calls joining them are timed by one member's steps (a DP
  // ring with one member per node: TP fills the node) and their other traffic stays off the links
  // the run times step by step; not where two of a ring's members share a node (TP siblings on
  // their own GPU links and NICs aside), nor where two GPUs share a NIC (their siblings' traffic
  // would meet), nor on the flow model.
  struct Case {
    std::string job;
    bool replicas_fold;
  };
  // Llama 3 8B, 4 layers, with context-parallel pairs beside TP on four nodes of `platform`.
  const auto cp_job = [](const std::string& platform, int tp) {
    return "platform: {" + platform + ", nodes: 4}\nworkload:\n  model: {name: llama3-8b, layers: 4, seq_len: 4096}\n  training: {global_batch: 8, micro_batch: 1}\n"
           "  parallel: {tp: " + std::to_string(tp) + ", cp: 2, pp: 2, dp: 2, zero: 1, dp_overlap: true, sequence_parallel: true}\n";
  };
  const Case cases[] = {
      {R"(platform: {preset: dgx-a100, nodes: 4}
workload:
  model: {name: gpt3-1.3b, layers: 4}
  training: {global_batch: 16, micro_batch: 1}
  parallel: {tp: 8, pp: 2, dp: 2, zero: 1}
)", true},
      {R"(platform: {preset: dgx-h100, nodes: 4, gpu_speed_spread: 0.05}
workload:
  model: {name: gpt3-1.3b, layers: 4}
  training: {global_batch: 16, micro_batch: 1}
  parallel: {tp: 8, pp: 2, dp: 2, zero: 1, dp_overlap: true, sequence_parallel: true}
)", true},
      {R"(platform: {preset: dgx-h100, nodes: 4}
workload:
  model: {name: gpt3-1.3b, layers: 8}
  training: {global_batch: 16, micro_batch: 1}
  parallel: {tp: 8, pp: 2, dp: 2, schedule: interleaved-1f1b, virtual_stages: 2, zero: 1, dp_overlap: true, sequence_parallel: true}
)", true},
      {R"(platform: {preset: dgx-h100, nodes: 4}
workload:
  model: {name: mixtral-8x7b, layers: 2, seq_len: 2048}
  training: {global_batch: 16}
  parallel: {tp: 8, dp: 4, ep: 4, sequence_parallel: true, zero: 1}
)", true},
      {R"(platform: {preset: aws-p5, nodes: 4}
workload:
  model: {name: gpt3-1.3b, layers: 4}
  training: {global_batch: 16, micro_batch: 1}
  parallel: {tp: 8, pp: 2, dp: 2, zero: 1, dp_overlap: true}
)", true},
      {R"(platform: {preset: dgx-a100, nodes: 4}
workload:
  model: {name: gpt3-1.3b, layers: 4}
  training: {global_batch: 16, micro_batch: 1}
  parallel: {tp: 4, pp: 2, dp: 4, zero: 1, dp_overlap: true}
)", false},
      {R"(platform: {preset: dgx-a100, nodes: 4, nics_per_node: 4}
workload:
  model: {name: gpt3-1.3b, layers: 4}
  training: {global_batch: 16, micro_batch: 1}
  parallel: {tp: 4, dp: 8, zero: 1, dp_overlap: true}
)", false},
      {R"(platform: {preset: dgx-a100, nodes: 4}
workload:
  model: {name: gpt3-1.3b, layers: 4}
  training: {global_batch: 16, micro_batch: 1}
  parallel: {tp: 2, pp: 2, dp: 8, zero: 1}
communication: {fidelity: analytic}
)", true},
      // Context-parallel pairs inside the node beside TP 4: each TP sibling's CP peer is the same
      // sibling of the other TP group, so TP's rings are timed by one member's steps and the
      // siblings and replicas fold (nothing folded here before: `--fold tp` folds nothing).
      {cp_job("preset: dgx-h100", 4), true},
      // The same where two TP siblings share each NIC: a sibling's traffic across nodes is its
      // representative's on the same NIC at the same instants, booked as a copy of it
      // (folded_link_copies.hpp).
      {cp_job("preset: dgx-a100, nics_per_node: 4", 4), true},
      // But not where a NIC carries two TP groups (GPUs 0-3 on one NIC, TP 2): the other group's
      // traffic there is no copy of the representative's.
      {cp_job("preset: dgx-a100, nics_per_node: 2", 2), false},
      // TP 8 with two GPUs a NIC: the siblings' and the replicas' folding, NIC-mates as copies.
      {R"(platform: {preset: dgx-a100, nodes: 4, nics_per_node: 4}
workload:
  model: {name: gpt3-1.3b, layers: 4}
  training: {global_batch: 16, micro_batch: 1}
  parallel: {tp: 8, pp: 2, dp: 2, zero: 1, dp_overlap: true}
)", true},
      // On flow not even the TP siblings fold: their rings' flows meet in the switches.
      {R"(platform: {preset: dgx-a100, nodes: 2}
workload:
  model: {name: gpt3-1.3b, layers: 2}
  training: {global_batch: 8, micro_batch: 1}
  parallel: {tp: 8, dp: 2, zero: 1}
communication: {fidelity: flow}
)", false},
  };
  for (const Case& c : cases) {
    CAPTURE(c.job);
    const nlohmann::json exact = test::run_job_yaml(c.job), every = test::run_job_yaml(c.job, "--no-folding");
    const double events = exact["simulation"]["events"].get<double>();
    const double tp_events = test::run_job_yaml(c.job, "--fold tp")["simulation"]["events"].get<double>();
    if (c.replicas_fold)
      CHECK(events * 1.5 < tp_events);
    else
      CHECK(events == tp_events);
    if (c.job.find("fidelity: flow") != std::string::npos)
      CHECK(events == every["simulation"]["events"].get<double>());
    require_same_summaries(exact, every, true);
  }
}

TEST_CASE("every example comes out of its default folding as with every rank simulated") {
  // custom_algorithm needs its own program (the golden test runs it); gpt3_175b_1024_a100 takes
  // 40 s unfolded (bench/generator.sh compares its 1,024 GPUs folded and not, and the golden test
  // pins its default run's summary byte for byte), llama3_70b_h100_interleaved 4 s (minutes under
  // the sanitizers; the grid above has an interleaved pipeline of the same layout's kind).
  for (const char* example : {"default", "eight_ranks", "llama3_8b_torchtitan", "llama3_8b_zero3", "mixtral_ep", "overlap_slowdown",
                              "sweep", "two_ranks"}) {
    CAPTURE(example);
    const std::string job = std::string(ECHO_SOURCE_DIR "/examples/") + example + "/job.yaml";
    test::TempDir out;
    const auto run = [&](const std::string& extra) {
      return test::run_cli_json("run " + job + " --json -q --force --out " + out.path().string() + " " + extra);
    };
    nlohmann::json folded = run(""), every = run("--no-folding");
    const bool table = folded["collectives"].size() < 100;  // else cut at 100 rows, ties in either order
    require_same_summaries(folded, every, table);
  }
}

TEST_CASE("GPUs whose speeds spread: synchronous training waits for the slowest, the more GPUs the more") {
  // Compute-bound data parallelism on one node, then on 16: the iteration grows by about the
  // slowest GPU's factor, 1 + spread x the standard normal's quantile (N - 0.5) / N.
  const auto run = [](std::uint32_t nodes, const char* spread) {
    const std::string job = "platform: {preset: dgx-h100, nodes: " + std::to_string(nodes) +
                            "}\nworkload:\n  model: {name: llama3-8b, layers: 4, seq_len: 4096}\n"
                            "  training: {global_batch: " + std::to_string(64 * nodes) +
                            ", micro_batch: 1}\n  parallel: {dp: " + std::to_string(8 * nodes) + ", zero: 1}\n";
    return test::run_job_yaml(job, std::string("--set platform.gpu_speed_spread=") + spread);
  };
  const auto alike8 = run(1, "0"), alike128 = run(16, "0");
  const auto spread8 = run(1, "0.02"), spread128 = run(16, "0.02");
  const auto iteration = [](const nlohmann::json& j) { return j["iteration_time_s"].get<double>(); };
  const auto compute = [](const nlohmann::json& j) { return j["breakdown"]["compute_s"].get<double>(); };
  const double slowest8 = 1 + 0.02 * 1.534, slowest128 = 1 + 0.02 * 2.662;  // quantiles 15/16 and 255/256
  CHECK(iteration(spread8) / iteration(alike8) == test::Approx(slowest8).epsilon(0.004));
  CHECK(iteration(spread128) / iteration(alike128) == test::Approx(slowest128).epsilon(0.004));
  // One pipeline stage: every GPU keeps the slowest one's pace, its kernels that much longer.
  CHECK(compute(spread128) / compute(alike128) == test::Approx(slowest128).epsilon(1e-4));
  CHECK(spread128["notes"].dump().find("gpu_speed_spread 0.020") != std::string::npos);
  // Tensor-parallel siblings keep one speed (their stage's slowest), so folding them stays exact.
  const char* tp_job = R"(platform: {preset: dgx-a100, nodes: 2}
workload:
  model: {name: gpt3-1.3b, layers: 4}
  training: {global_batch: 8, micro_batch: 1}
  parallel: {tp: 4, pp: 2, dp: 2, sequence_parallel: true, zero: 1}
)";
  require_same_summaries(test::run_job_yaml(tp_job, "--set platform.gpu_speed_spread=0.05"),
                         test::run_job_yaml(tp_job, "--no-folding --set platform.gpu_speed_spread=0.05"));
  // Out of range: exit 2, naming the figure, whether set on a preset or written in a platform file.
  CHECK(run_error(kSmallJob, "--set platform.gpu_speed_spread=0.5").find("gpu_speed_spread") != std::string::npos);
  CHECK(run_error(kSmallJob, "--set platform.gpu_speed_spread=-0.01").find("gpu_speed_spread") != std::string::npos);
  test::TempDir dir;
  const std::string xml = dir.path().string() + "/cluster.xml";
  REQUIRE(test::run_cli("platform generate --preset dgx-h100 --nodes 1 -o " + xml).code == 0);
  std::ifstream in(xml);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  in.close();
  const std::string prop = R"(<prop id="gpu_speed_spread" value="0.012"/>)";
  REQUIRE(text.find(prop) != std::string::npos);  // the preset's figure travels with its file
  text.replace(text.find(prop), prop.size(), R"(<prop id="gpu_speed_spread" value="lots"/>)");
  std::ofstream(xml) << text;
  const std::string from_file = run_error("platform: {file: " + xml + "}\nworkload:\n  model: {name: gpt3-125m, layers: 2}\n"
                                          "  training: {global_batch: 8}\n  parallel: {dp: 8}\n");
  CHECK(from_file.find("`gpu_speed_spread` = 'lots' is not a fraction in [0, 0.2]") != std::string::npos);
}

TEST_CASE("dgxc's Llama 3.1 8B: the step time grows from 8 to 128 GPUs as measured (+1.5%), within a point") {
  // NVIDIA/dgxc-benchmarking llama3.1/README_8b.md (NeMo 24.09, BF16, CP 2, 32 micro-batches a
  // step at every scale): 12.91 s on 8 H100s, 13.10 s on 128. The work per GPU is the same; what
  // grows is the slowest of more GPUs. Eight of the 32 layers keep the test short (the model gives
  // +1.3% with all 32).
  const auto step_s = [](std::uint32_t nodes, const char* spread) {
    const std::string job = "platform: {preset: dgx-h100, nodes: " + std::to_string(nodes) +
                            "}\nworkload:\n  model: {name: llama3-8b, layers: 8, seq_len: 8192}\n"
                            "  training: {global_batch: " + std::to_string(128 * nodes) +
                            ", micro_batch: 1, framework: nemo, grad_dtype: bf16}\n"
                            "  parallel: {cp: 2, dp: " + std::to_string(4 * nodes) + ", zero: 1, dp_overlap: true}\n";
    return test::run_job_yaml(job, std::string("--set platform.gpu_speed_spread=") + spread)["iteration_time_s"].get<double>();
  };
  const double measured = 13.10 / 12.91 - 1;
  const double predicted = step_s(16, "0.012") / step_s(1, "0.012") - 1;
  CHECK(predicted > measured - 0.01);
  CHECK(predicted < measured + 0.01);
  // With GPUs alike the model had it flat.
  CHECK(step_s(16, "0") / step_s(1, "0") - 1 < 0.002);
}

TEST_CASE("--fold all simulates one replica, and where no link is shared (analytic) nothing changes") {
  // Dense with TP, PP and DP; and a mixture of experts whose EP group spans the DP replicas.
  for (const char* job : {R"(platform: {preset: dgx-a100, nodes: 4}
workload:
  model: {name: gpt3-2.7b}
  training: {global_batch: 32, micro_batch: 1}
  parallel: {tp: 2, pp: 2, dp: 8, zero: 1}
communication: {fidelity: analytic}
)",
                          R"(platform: {preset: dgx-h100, nodes: 2}
workload:
  model: {name: mixtral-8x7b, layers: 4, seq_len: 2048}
  training: {global_batch: 16}
  parallel: {tp: 2, dp: 8, ep: 4, sequence_parallel: true, zero: 1}
communication: {fidelity: analytic}
)"}) {
    CAPTURE(job);
    auto [folded, every] = run_fold_all_and_none(job);
    CHECK(folded["simulation"]["events"].get<double>() * 4 < every["simulation"]["events"].get<double>());
    REQUIRE(folded["notes"].is_array());
    CHECK(folded["notes"].dump().find("folded (--fold all)") != std::string::npos);
    require_same_summaries(folded, every);
  }
}

TEST_CASE("a 16-bit optimizer state must be the weights' type") {
  const std::string job = kSmallJob;
  CHECK(run_error(job, "--set workload.training.dtype=fp16 --set workload.training.optimizer_dtype=bf16")
            .find("optimizer_dtype bf16 is not the weights' type (fp16)") != std::string::npos);
  CHECK(run_error(job, "--set workload.training.grad_dtype=fp8").find("grad_dtype") != std::string::npos);
  const auto ok = test::run_job_yaml(job, "--set workload.training.optimizer_dtype=bf16 --set workload.training.grad_dtype=bf16");
  CHECK(ok["workload"]["settings"]["training.optimizer_dtype"] == "bf16");
}

TEST_CASE("--fold takes none, tp, exact or all, and not beside --no-folding") {
  CHECK(run_error(kSmallJob, "--fold replicas").find("--fold") != std::string::npos);
  CHECK(run_error(kSmallJob, "--fold all --no-folding").find("excludes") != std::string::npos);
}

TEST_CASE("--fold all on the steps fidelity runs the replicas' calls on the links, close to every rank simulated") {
  const char* job = R"(platform: {preset: dgx-a100, nodes: 4}
workload:
  model: {name: gpt3-2.7b}
  training: {global_batch: 32, micro_batch: 1}
  parallel: {tp: 2, pp: 2, dp: 8, zero: 1}
)";
  const auto [folded, every] = run_fold_all_and_none(job);
  CHECK(folded["simulation"]["events"].get<double>() * 4 < every["simulation"]["events"].get<double>());
  // The same compute; the DP calls' steps meet the representative replica's pipeline traffic on
  // its NICs as in the full run, only not the other replicas' (which is not simulated). Here the
  // DP ring has two members a node, so it runs every member's steps, while the TP pairs are timed
  // by one member's (their members own their links): 0.15% slow (0.10% when the TP pairs ran
  // both members' steps, their second member's link then carrying nothing else).
  CHECK(folded["breakdown"]["compute_s"].get<double>() == test::Approx(every["breakdown"]["compute_s"].get<double>()));
  CHECK(folded["iteration_time_s"].get<double>() == test::Approx(every["iteration_time_s"].get<double>()).epsilon(0.002));
  CHECK(folded["notes"].dump().find("folded (--fold all)") != std::string::npos);
}

TEST_CASE("--fold all times a DP ring with one member per node by one member's steps, with every figure as unfolded") {
  // TP 8 fills each node, so each DP ring has one member per node and hops of one cost: its
  // members' timelines are equal, and one member's steps stand for all (member_projection.hpp).
  // Without that, the 16 members' steps would all run: about 3x the events of this run.
  const char* job = R"(platform: {preset: dgx-a100, nodes: 16}
workload:
  model: {name: gpt3-1.3b, layers: 4}
  training: {global_batch: 32, micro_batch: 1}
  parallel: {tp: 8, pp: 1, dp: 16, zero: 1}
)";
  const auto [folded, every] = run_fold_all_and_none(job);
  CHECK(folded["simulation"]["events"].get<double>() * 200 < every["simulation"]["events"].get<double>());
  require_same_summaries(folded, every);
}

TEST_CASE("--fold all counts a mirrored sibling's traffic on the NIC it shares with its representative") {
  // Polaris: two GPUs a NIC. TP 4 fills each node, so GPU 1 is GPU 0's TP sibling, folded onto
  // it, and its data-parallel ring and pipeline sends leave through the same NIC at the same
  // instants: the simulated rank's calls stand for two there (folded_link_copies.hpp). Left out,
  // the NIC carried half its traffic and the iteration came out 22% fast.
  const char* job = R"(platform: {preset: polaris, nodes: 4}
workload:
  model: {name: gpt3-1.3b, layers: 4}
  training: {global_batch: 16, micro_batch: 1}
  parallel: {tp: 4, pp: 2, dp: 2, zero: 1, dp_overlap: true}
)";
  const auto [folded, every] = run_fold_all_and_none(job);
  CHECK(folded["simulation"]["events"].get<double>() * 2 < every["simulation"]["events"].get<double>());
  require_same_summaries(folded, every);
}

TEST_CASE("context parallelism, expert parallelism and a two-stage interleaved pipeline all run to the end") {
  // CP: KV blocks travel around the ring while attention computes.
  const auto cp = test::run_job_yaml(R"(platform: {preset: dgx-h100, nodes: 1}
workload:
  model: {name: llama3-8b, seq_len: 8192}
  training: {global_batch: 8, recompute: full}
  parallel: {tp: 2, cp: 2, dp: 2}
)");
  CHECK(cp["breakdown"]["exposed_comm_s"].contains("cp"));
  // EP: dispatch and combine AllToAll over the expert-parallel group.
  const auto ep = test::run_job_yaml(R"(platform: {preset: dgx-h100, nodes: 1}
workload:
  model: {name: mixtral-8x7b, layers: 4, seq_len: 2048}
  training: {global_batch: 8}
  parallel: {dp: 8, ep: 8, zero: 1}
)");
  CHECK(ep["breakdown"]["exposed_comm_s"].contains("ep"));
  // Two interleaved stages: the last stage sends forward to the first, which also sends it
  // gradients back; transfers are ordered per communicator and direction, so nothing deadlocks.
  const auto two = test::run_job_yaml(R"(platform: {preset: dgx-a100, nodes: 1}
workload:
  model: {name: gpt3-1.3b}
  training: {global_batch: 8}
  parallel: {tp: 2, pp: 2, dp: 2, schedule: interleaved-1f1b, virtual_stages: 3}
)");
  CHECK(two["iteration_time_s"].get<double>() > 0);
}

TEST_CASE("beyond 512 ranks, timeline.json holds one data-parallel replica") {
  test::TempDir dir;
  const std::string job = dir.file("job.yaml", R"(platform: {preset: dgx-a100, nodes: 128}
workload:
  model: {name: gpt3-350m, layers: 4}
  training: {global_batch: 256}
  parallel: {tp: 8, pp: 2, dp: 64}
)");
  const auto r = test::run_cli("run " + job + " -q --out " + dir.path().string() + "/out");
  INFO(r.err);
  REQUIRE(r.code == 0);
  const auto timeline = nlohmann::json::parse(test::slurp(dir.path() / "out" / "timeline.json"));
  CHECK(timeline["otherData"]["ranks"] == "one data-parallel replica of the job's 1024 ranks");
  std::set<int> ranks;
  for (const auto& e : timeline["traceEvents"])
    ranks.insert(e["pid"].get<int>());
  CHECK(ranks.size() == 16);  // tp 8 x pp 2: the ranks that are member 0 of their dp group
}

TEST_CASE("the embedding's backward zeroes a dense gradient of the whole table and adds it to the gradient buffer every micro-batch") {
  TrainingJob job = small_job(2, 1, 1);
  job.merge_kernels = false;
  check_training_job(job, 2, *gpu_preset("h100"));
  const GeneratedJob g = generate_training_job(job, ComputeModel(*gpu_preset("h100"), DataType::bf16));
  std::map<std::string, std::vector<double>> us;
  for (const auto& t : g.trace.templates(0).tasks())
    if (t.has_compute() && t.name().rfind("embedding", 0) == 0)
      us[t.name()].push_back(t.compute().duration_ns() / 1e3);
  // 16 micro-batches, the first one too (the hook adds into a zeroed buffer).
  REQUIRE(us["embedding.bwd.zero"].size() == 16);
  REQUIRE(us["embedding.grad_accumulate"].size() == 16);
  // Table-sized, not token-sized: 50,304 (padded) / 2 rows x 2048 in bf16 zeroed; the fp32 buffer
  // read and written with the bf16 gradient read: 5x the bytes.
  const double overhead = ComputeModel::kKernelOverheadS * 1e6;
  const double zero = us["embedding.bwd.zero"][0] - overhead;
  const GpuSpec h100 = *gpu_preset("h100");
  CHECK(zero == test::Approx(50304.0 / 2 * 2048 * 2 / (h100.hbm_Bps * h100.memory_efficiency) * 1e6).epsilon(0.01));
  CHECK(us["embedding.grad_accumulate"][0] - overhead == test::Approx(5 * zero).epsilon(0.01));
}

TEST_CASE("the Grand Teton H100 (96 GB HBM2e at 500 W): SXM silicon, slower memory, clocks of its power limit") {
  const GpuSpec sxm = *gpu_preset("H100-SXM5-80GB"), teton = *gpu_preset("h100-96gb");
  CHECK(teton.name == "H100-SXM5-96GB-HBM2e");
  CHECK(teton.sms == sxm.sms);
  // A third of the way from the NVL's 400 W datasheet peaks to the SXM's 700 W ones.
  CHECK(teton.peak_bf16 == test::Approx(835e12 + (sxm.peak_bf16 - 835e12) / 3).epsilon(1e-3));
  CHECK(teton.peak_fp8 == test::Approx(1670.5e12 + (sxm.peak_fp8 - 1670.5e12) / 3).epsilon(1e-3));
  // A streaming kernel runs at its memory's pace.
  KernelOp copy;
  copy.bytes = 8e9;
  const ComputeModel slow(teton, DataType::bf16), fast(sxm, DataType::bf16);
  CHECK((slow.time_s(copy) - ComputeModel::kKernelOverheadS) / (fast.time_s(copy) - ComputeModel::kKernelOverheadS) ==
        test::Approx(3350.0 / 2400.0));
}

TEST_CASE("persistent_gemms: true on Hopper and Blackwell platforms, false on Ampere, as a job sets it, and a word it is not") {
  const std::string job = R"(platform: {preset: dgx-h100, nodes: 1}
workload:
  model: {name: gpt3-1.3b}
  training: {global_batch: 8, micro_batch: 1}
  parallel: {dp: 8}
)";
  auto setting = [&](const std::string& extra) {
    return test::run_job_yaml(job, extra)["workload"]["settings"]["training.persistent_gemms"].get<std::string>();
  };
  CHECK(setting("") == "true");
  CHECK(setting("--set platform.preset=dgx-a100") == "false");
  CHECK(setting("--set workload.training.persistent_gemms=false") == "false");
  CHECK(setting("--set platform.preset=dgx-a100 --set workload.training.persistent_gemms=true") == "true");
  CHECK(run_error(job, "--set workload.training.persistent_gemms=sometimes").find("persistent_gemms") != std::string::npos);
}
