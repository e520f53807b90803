// The host thread of generated jobs: launches in issue order at a per-op cost, waits where the
// framework synchronises; a host-bound job follows its host, a GPU-bound one its GPU; the pruned
// launch gates give exactly what gating every task gives; frameworks set their defaults.
#include "support/approx.hpp"
#include "support/child_process.hpp"
#include "support/cli_json.hpp"
#include "support/cli_runner.hpp"
#include "support/temp_files.hpp"

#include "core/simulation.hpp"
#include "workloads/generator/compute_model.hpp"
#include "workloads/generator/host_thread.hpp"
#include "workloads/generator/transformer_generator.hpp"
#include "workloads/trace_reader.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

using namespace echo;
using namespace echo::workloads;

namespace {

// One stream of `n` kernels of `kernel_s` each, launched at `launch_s` each.
trace::RankTemplate kernels(int n, double kernel_s, double launch_s, std::vector<double>& cost) {
  trace::RankTemplate tmpl;
  tmpl.set_name("r");
  ProgramBuilder b(tmpl, trace::FLOAT16);
  b.set_launch_cost(launch_s);
  for (int i = 0; i < n; ++i) {
    KernelOp op;
    op.name = "k" + std::to_string(i);
    b.compute("compute", op, kernel_s);
  }
  cost = b.launch_costs();
  return tmpl;
}

int gated(const trace::RankTemplate& tmpl) {
  int count = 0;
  for (const trace::Task& t : tmpl.tasks())
    count += t.category() != trace::HOST && t.deps_size() > 0;
  return count;
}

int host_tasks(const trace::RankTemplate& tmpl) {
  int count = 0;
  for (const trace::Task& t : tmpl.tasks())
    count += t.category() == trace::HOST;
  return count;
}

const char* kHostBound = R"(platform: {preset: dgx-a100, nodes: 1}
workload:
  model: {layers: 4, hidden: 512, heads: 8, vocab: 8192, seq_len: 256}
  training: {global_batch: 64, micro_batch: 1, framework: megatron-deepspeed}
  parallel: {tp: 1, pp: 2, dp: 4}
)";


std::string error_of(const std::string& yaml, const std::string& extra = "") {
  test::TempDir dir;
  const auto r = test::run_cli("run " + dir.file("job.yaml", yaml) + " -q " + extra);
  CHECK(r.code == 2);
  return r.err;
}

double host_bound_share(const nlohmann::json& j) {
  double sum = 0;
  for (const auto& r : j["ranks"])
    sum += r["host_bound_s"].get<double>();
  return sum / static_cast<double>(j["ranks"].size()) / j["iteration_time_s"].get<double>();
}

} // namespace

TEST_CASE("short kernels wait for each launch, long ones only for the first") {
  std::vector<double> cost;
  trace::RankTemplate fast = kernels(10, 1e-6, 20e-6, cost);
  add_host_thread(fast, cost, {});
  CHECK(gated(fast) == 10);
  CHECK(host_tasks(fast) == 10);  // one launch each; nothing is left after the last

  trace::RankTemplate slow = kernels(10, 1e-3, 20e-6, cost);
  add_host_thread(slow, cost, {});
  CHECK(gated(slow) == 1);
  CHECK(host_tasks(slow) == 2);  // the first launch, then the other nine in one task
  double host_s = 0;
  for (const trace::Task& t : slow.tasks())
    if (t.category() == trace::HOST)
      host_s += static_cast<double>(t.compute().duration_ns()) * 1e-9;
  CHECK(host_s == test::Approx(200e-6));
  for (int i = 0; i < slow.tasks_size(); ++i)  // renumbered in their new order
    CHECK(slow.tasks(i).id() == static_cast<std::uint64_t>(i));
}

TEST_CASE("a device synchronize waits for the last task of every stream issued before it") {
  trace::RankTemplate tmpl;
  tmpl.set_name("r");
  ProgramBuilder b(tmpl, trace::FLOAT16);
  b.set_launch_cost(10e-6);
  b.set_collective_launch_cost(10e-6);
  KernelOp op;
  op.name = "a";
  const TaskId a = b.compute("compute", op, 1e-3);
  const TaskId c = b.collective("dp", "grads", trace::ALL_REDUCE, "dp", 1e6, {a});
  b.host_waits_before_next_kernel();
  op.name = "b";
  b.compute("compute", op, 1e-3);
  add_host_thread(tmpl, b.launch_costs(), b.host_waits());
  const trace::Task* wait = nullptr;
  for (const trace::Task& t : tmpl.tasks())
    if (t.name() == "host synchronizes the device")
      wait = &t;
  REQUIRE(wait != nullptr);
  std::vector<std::string> awaited;
  for (std::uint64_t d : wait->deps())
    awaited.push_back(tmpl.tasks(static_cast<int>(d)).name());
  CHECK(awaited == std::vector<std::string>{"a", "grads"});
  (void)c;
  // The kernel after the wait is launched after it: it waits for a host task that follows the wait.
  const trace::Task& after = tmpl.tasks(tmpl.tasks_size() - 1);
  CHECK(after.name() == "b");
  REQUIRE(after.deps_size() == 1);
  CHECK(after.deps(0) > wait->id());
}

namespace {

// One simulation per process (SimGrid's engine is one per process): iteration, tasks, host-bound time per rank.
nlohmann::json simulate_toy(const std::string& layout, bool gate_every_launch) {
  const auto outcome = test::in_child_process([&] {
    TrainingJob job;
    job.model.name = "toy";
    job.model.layers = 4;  // long GEMMs beside short kernels: some stretches host-bound, some not
    job.model.hidden = 2048;
    job.model.heads = 16;
    job.model.vocab = 8192;
    job.model.seq_len = 1024;
    job.training.global_batch = 8;
    job.parallel.tp = 2;
    job.parallel.pp = layout.rfind("pp2", 0) == 0 ? 2 : 1;
    job.parallel.dp = 0;
    job.parallel.zero = layout == "zero3" ? 3 : 0;
    job.parallel.p2p_overlap = layout == "pp2-overlap";
    job.host = find_framework("megatron-deepspeed")->host;
    job.training.grad_accumulation_fusion = false;
    job.gate_every_launch = gate_every_launch;
    job.origin = "job.yaml";
    check_training_job(job, 8, *gpu_preset("a100"));
    const ComputeModel model(*gpu_preset("a100"), DataType::bf16);
    const GeneratedJob g = generate_training_job(job, model);
    platforms::PlatformSource platform;
    platform.file = ECHO_SOURCE_DIR "/examples/platforms/one_node_8gpu.xml";
    core::Simulation sim(platform, build_workload(g.trace, "toy"));
    const core::SimulationResult r = sim.run(false);
    nlohmann::json out = {{"ns", r.iteration_ns}, {"tasks", r.tasks}, {"host_bound", nlohmann::json::array()}};
    for (const auto& rank : r.per_rank)
      out["host_bound"].push_back(rank.host_bound_s);
    return out.dump();
  });
  INFO(outcome.text);
  REQUIRE(!outcome.user_error);
  return nlohmann::json::parse(outcome.text);
}

} // namespace

TEST_CASE("pruned launch gates give exactly what gating every task gives") {
  for (const char* layout : {"pp1", "pp2", "pp2-overlap", "zero3"}) {
    INFO(layout);
    const nlohmann::json pruned = simulate_toy(layout, false), every = simulate_toy(layout, true);
    CHECK(pruned["ns"] == every["ns"]);
    CHECK(pruned["tasks"] < every["tasks"]);
    for (std::size_t r = 0; r < pruned["host_bound"].size(); ++r)
      CHECK(pruned["host_bound"][r].get<double>() == test::Approx(every["host_bound"][r].get<double>()).epsilon(1e-9));
  }
}

TEST_CASE("a host-bound job follows its host: a faster GPU barely helps, a faster host does") {
  const auto base = test::run_job_yaml(kHostBound);
  CHECK(host_bound_share(base) > 0.3);
  // The host works longer than the GPU waits for it: it also launches while the GPU computes.
  CHECK(base["ranks"][0]["host_busy_s"].get<double>() > base["ranks"][0]["host_bound_s"].get<double>());
  const double t = base["iteration_time_s"];
  const auto faster_gpu = test::run_job_yaml(kHostBound, "--set platform.gpu=H100-SXM5-80GB");
  CHECK(faster_gpu["iteration_time_s"].get<double>() > 0.9 * t);
  const auto faster_host = test::run_job_yaml(kHostBound, "--set workload.training.host.forward_op_us=15 --set workload.training.host.backward_op_us=20 "
                                                "--set workload.training.host.collective_op_us=15");
  CHECK(faster_host["iteration_time_s"].get<double>() < 0.75 * t);
  // No framework: the GPU's time alone.
  const auto none = test::run_job_yaml(kHostBound, "--set workload.training.framework=none");
  CHECK(host_bound_share(none) == 0);
  CHECK(none["iteration_time_s"].get<double>() < 0.6 * t);
}

TEST_CASE("a GPU-bound job follows its GPU and barely notices its host") {
  const std::string big = std::string(kHostBound) + "";
  const std::string yaml = R"(platform: {preset: dgx-a100, nodes: 1}
workload:
  model: {name: gpt3-1.3b}
  training: {global_batch: 32, micro_batch: 4, framework: megatron-lm}
  parallel: {tp: 1, pp: 1, dp: 8}
)";
  const auto host = test::run_job_yaml(yaml);
  const auto none = test::run_job_yaml(yaml, "--set workload.training.framework=none");
  CHECK(host_bound_share(host) < 0.02);
  CHECK(host["iteration_time_s"].get<double>() < 1.02 * none["iteration_time_s"].get<double>());
}

TEST_CASE("a framework sets its defaults and the job overrides them") {
  const std::string yaml = R"(platform: {preset: dgx-a100, nodes: 1}
workload:
  model: {layers: 4, hidden: 512, heads: 8, vocab: 8192, seq_len: 256}
  training: {global_batch: 64, micro_batch: 1, framework: megatron-deepspeed}
  parallel: {tp: 1, pp: 1, dp: 8}
)";
  const auto deepspeed = test::run_job_yaml(yaml, "--set workload.merge_kernels=false");
  // Megatron-DeepSpeed: unfused attention, per-tensor gradient accumulation, timers that
  // synchronize, a heavier host per launch; Megatron-LM none of these.
  const auto megatron = test::run_job_yaml(yaml, "--set workload.merge_kernels=false --set workload.training.framework=megatron-lm");
  CHECK(deepspeed["workload"]["tasks"].get<int>() > megatron["workload"]["tasks"].get<int>());
  const auto overridden = test::run_job_yaml(yaml, "--set workload.merge_kernels=false --set workload.training.attention=te "
                                         "--set workload.training.grad_accumulation_fusion=true --set workload.parallel.dp_overlap=true "
                                         "--set workload.training.host.sync_timers=false --set workload.training.host.forward_op_us=31 "
                                         "--set workload.training.host.backward_op_us=43");
  CHECK(overridden["workload"]["tasks"] == megatron["workload"]["tasks"]);
}

TEST_CASE("bad framework settings: a clear message and exit code 2") {
  const std::string unknown = error_of(kHostBound, "--set workload.training.framework=jax");
  CHECK(unknown.find("unknown framework 'jax'") != std::string::npos);
  CHECK(unknown.find("megatron-lm, megatron-deepspeed, nemo, fsdp, torchtitan, none") != std::string::npos);
  const std::string fsdp = error_of(kHostBound, "--set workload.training.framework=fsdp");
  CHECK(fsdp.find("framework 'fsdp' has no pipeline parallelism, but pp is 2") != std::string::npos);
  CHECK(error_of(kHostBound, "--set workload.training.host.forward_op_us=-3").find("`forward_op_us` must not be negative") !=
        std::string::npos);
  CHECK(error_of(kHostBound, "--set workload.training.host.backward_op_us=fast").find("`backward_op_us` must be a number") !=
        std::string::npos);
  CHECK(error_of(kHostBound, "--set workload.training.host.launch_us=3").find("unknown key 'launch_us'") != std::string::npos);
  CHECK(error_of(kHostBound, "--set workload.training.host.sync_after_p2p=maybe").find("sync_after_p2p") != std::string::npos);
}

TEST_CASE("an fp8 job casts the inputs of its FP8 GEMMs, keeps the LM head in 16 bits and says what its GPU did") {
  const std::string yaml = R"(platform: {preset: dgx-h100, nodes: 1}
workload:
  model: {name: llama3-8b, layers: 2}
  training: {global_batch: 8, micro_batch: 1, dtype: fp8}
  parallel: {tp: 1, pp: 1, dp: 8}
)";
  // GPUs alike: each kernel at its own duration (a speed spread would pace them all).
  const auto fp8 = test::run_job_yaml(yaml, "--set platform.gpu_speed_spread=0");
  const auto bf16 = test::run_job_yaml(yaml, "--set workload.training.dtype=bf16 --set platform.gpu_speed_spread=0");
  const auto& kinds = fp8["training"]["gpu_seconds_by_kind"];
  REQUIRE(kinds.contains("fp8_cast"));
  CHECK(kinds["fp8_cast"].get<double>() > 0);
  CHECK_FALSE(bf16["training"]["gpu_seconds_by_kind"].contains("fp8_cast"));
  double sum = 0;  // the kinds add up to the kernels' time at full speed
  for (const auto& [kind, s] : kinds.items())
    sum += s.get<double>();
  CHECK(sum == test::Approx(fp8["breakdown"]["compute_s"].get<double>()).epsilon(1e-6));
  // FP8 GEMMs are faster than bf16 ones, the casts cost HBM time: the GEMM time falls, not halves.
  CHECK(kinds["gemm"].get<double>() < bf16["training"]["gpu_seconds_by_kind"]["gemm"].get<double>());
  CHECK(kinds["gemm"].get<double>() > 0.5 * bf16["training"]["gpu_seconds_by_kind"]["gemm"].get<double>());
}

TEST_CASE("a GEMM an fp8 recipe keeps in 16 bits takes the bf16 time") {
  const ComputeModel fp8(*gpu_preset("h100"), DataType::fp8), bf16(*gpu_preset("h100"), DataType::bf16);
  KernelOp op;
  op.shape = KernelShape::gemm;
  op.m = 8192;
  op.n = 128256;
  op.k = 4096;
  op.fp8_capable = false;
  CHECK(fp8.time_s(op) == test::Approx(bf16.time_s(op)));
  op.fp8_capable = true;
  CHECK(fp8.time_s(op) < 0.6 * bf16.time_s(op));
}

TEST_CASE("first-generation fused attention runs at half FlashAttention-2's speed") {
  const ComputeModel model(*gpu_preset("a100"), DataType::bf16);
  KernelOp op;
  op.shape = KernelShape::attention_forward;
  op.batch = 32;
  op.m = op.n = 8192;
  op.k = 128;
  const double flash2 = model.time_s(op);
  op.attention = AttentionKernel::flash1;
  CHECK(model.time_s(op) == test::Approx(2 * flash2).epsilon(0.01));  // a 2 us launch overhead aside
  CHECK(error_of(kHostBound, "--set workload.training.attention=flash3").find("flash, cudnn, te, te_flash, flash1, unfused") != std::string::npos);
}

TEST_CASE("a generated job's summary records its settings with every default explicit, and compare diffs them") {
  test::TempDir dir;
  const std::string job = dir.file("job.yaml", kHostBound);
  const auto a = test::run_cli("run " + job + " -q --out " + dir.path().string() + "/a");
  const auto b = test::run_cli("run " + job + " -q --out " + dir.path().string() + "/b --set workload.parallel.pp=1 --set workload.training.framework=nemo");
  REQUIRE(a.code == 0);
  REQUIRE(b.code == 0);
  const auto summary = nlohmann::json::parse(test::slurp(dir.path().string() + "/a/summary.json"));
  const auto& settings = summary["workload"]["settings"];
  CHECK(settings["training.framework"] == "megatron-deepspeed");
  CHECK(settings["training.attention"] == "unfused");  // the framework's default, never written in the job
  CHECK(settings["parallel.dp_overlap"] == "false");
  CHECK(settings["training.host.forward_op_us"] == "40");  // Megatron-DeepSpeed's, fitted on vTrain
  CHECK(settings["training.host.sync_timers"] == "true");
  CHECK(settings["training.fused_cross_entropy"] == "false");
  CHECK(settings["parallel.dp"] == "4");
  CHECK(settings["model.ffn_hidden"] == "2048");  // 4 x hidden, filled in
  const auto compared = test::run_cli("compare " + dir.path().string() + "/a " + dir.path().string() + "/b");
  REQUIRE(compared.code == 0);
  CHECK(compared.out.rfind("settings that differ:", 0) == 0);
  CHECK(compared.out.find("training.framework") != std::string::npos);
  CHECK(compared.out.find("parallel.pp") != std::string::npos);
  CHECK(compared.out.find("parallel.dp_overlap") != std::string::npos);  // the frameworks differ there
  CHECK(compared.out.find("model.layers") == std::string::npos);  // the same on both sides
}

TEST_CASE("Megatron-Core's MoE dispatcher waits on the host for the routing before its all-to-all") {
  // How many host waits for a routing kernel the first stage's program holds.
  auto routing_waits = [](bool sync, int ep) {
    TrainingJob job;
    job.model = *model_preset("mixtral-8x7b");
    job.model.layers = 2;
    job.model.seq_len = 512;
    job.training.global_batch = 8;
    job.parallel.dp = 0;
    job.parallel.ep = ep;
    job.host = find_framework("megatron-lm")->host;
    job.host.sync_moe_dispatch = sync;
    job.origin = "job.yaml";
    check_training_job(job, 8, *gpu_preset("h100"));
    const GeneratedJob g = generate_training_job(job, ComputeModel(*gpu_preset("h100"), DataType::bf16));
    int waits = 0;
    for (const trace::Task& t : g.trace.templates(0).tasks())
      if (t.category() == trace::HOST && t.name().find("host waits for") == 0 && t.name().find("moe.topk") != std::string::npos)
        ++waits;
    return waits;
  };
  CHECK(find_framework("megatron-lm")->host.sync_moe_dispatch);
  CHECK_FALSE(find_framework("megatron-deepspeed")->host.sync_moe_dispatch);
  // One per MoE layer and micro-batch: 2 layers, one micro-batch per rank (global batch 8 over dp 8).
  CHECK(routing_waits(true, 8) == 2);
  CHECK(routing_waits(false, 8) == 0);
  CHECK(routing_waits(true, 1) == 0);  // no all-to-all, nothing to size on the host
}

namespace {

TrainingJob small_deepspeed_job() {
  TrainingJob job;
  job.model.name = "toy";
  job.model.layers = 2;
  job.model.hidden = 1024;
  job.model.heads = 16;
  job.model.vocab = 50257;
  job.model.seq_len = 1024;
  job.training.global_batch = 8;
  job.training.dtype = DataType::fp16;
  job.parallel.dp = 2;
  job.framework = "megatron-deepspeed";
  job.host = find_framework("megatron-deepspeed")->host;
  job.merge_kernels = false;  // every kernel and host task by its own name
  job.origin = "job.yaml";
  return job;
}

GeneratedJob generate(TrainingJob job) {
  check_training_job(job, 2, *gpu_preset("a100"));
  return generate_training_job(job, ComputeModel(*gpu_preset("a100"), DataType::fp16));
}

int count_named(const GeneratedJob& g, const std::string& name) {
  int n = 0;
  for (const trace::Task& t : g.trace.templates(0).tasks())
    n += t.name() == name;
  return n;
}

} // namespace

TEST_CASE("Megatron-DeepSpeed's timers synchronize the device around every forward and backward step") {
  TrainingJob job = small_deepspeed_job();
  REQUIRE(job.host.sync_timers);
  // 4 micro-batches per rank: a device synchronize before each of the 8 passes and one before
  // the gradient reduction and optimizer (the last pass's timer stop).
  CHECK(count_named(generate(job), "host synchronizes the device") == 2 * 4 + 1);
  job.host.sync_timers = false;
  CHECK(count_named(generate(job), "host synchronizes the device") == 0);
  CHECK_FALSE(find_framework("megatron-lm")->host.sync_timers);  // timers sync only at high log levels since 2022-08
}

TEST_CASE("the eager cross entropy makes six passes over fp32 logits forward and three backward, the fused one two and one") {
  auto loss_seconds = [](bool fused, int& kernels) {
    TrainingJob job = small_deepspeed_job();
    job.training.fused_cross_entropy = fused;
    const GeneratedJob g = generate(job);
    double ns = 0;
    kernels = 0;
    for (const trace::Task& t : g.trace.templates(0).tasks())
      if (t.has_compute() && t.name().rfind("cross_entropy", 0) == 0) {
        ns += static_cast<double>(t.compute().duration_ns());
        ++kernels;
      }
    return ns * 1e-9;
  };
  int eager_kernels = 0, fused_kernels = 0;
  const double eager = loss_seconds(false, eager_kernels), fused = loss_seconds(true, fused_kernels);
  // Per logit, eager: cast 2+4, max 4, subtract 8, exp 8, sum 4, softmax 8; backward 8 and the cast
  // back 4+2 = 52 bytes. Fused: max 2, the rest 2+4, backward 4+2 = 14 bytes. The small target and
  // loss kernels are alike on both sides.
  CHECK(eager / fused == test::Approx(52.0 / 14.0).epsilon(0.08));
  CHECK(eager_kernels == 4 * 11);  // per micro-batch: 8 forward (the target and loss kernels too), 3 backward
  CHECK(fused_kernels == 4 * 5);   // max, target, exp-sum, loss; one backward
  CHECK_FALSE(find_framework("megatron-lm")->fused_cross_entropy);  // TransformerConfig's default
  CHECK(find_framework("nemo")->fused_cross_entropy);                // NeMo's GPTConfig
}
