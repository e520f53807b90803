#include "core/generated_workload.hpp"

#include "base/user_error.hpp"
#include "workloads/generator/compute_model.hpp"
#include "workloads/generator/transformer_generator.hpp"
#include "workloads/trace_reader.hpp"

#include <algorithm>
#include <cstdio>

namespace echo::core {

namespace {

std::string gigabytes(double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f GiB", bytes / (1024.0 * 1024 * 1024));
  return buf;
}

std::string known_gpus() {
  std::string list;
  for (const auto& g : workloads::gpu_presets())
    list += (list.empty() ? "" : ", ") + g.name;
  return list;
}

workloads::GpuSpec gpu_of(const std::string& model, const std::string& origin) {
  const auto gpu = workloads::gpu_preset(model);
  if (!gpu)
    throw UserError(origin, 0, "the platform's GPU `" + model + "` has no compute preset",
                    "use a platform whose `gpu` property names one of: " + known_gpus());
  return *gpu;
}

// The first rank that runs template `name`, for messages.
std::uint32_t first_rank_of(const trace::Trace& t, const std::string& name) {
  std::uint32_t best = ~0u;
  for (const trace::RankRange& r : t.ranks())
    if (r.template_name() == name && r.first() < best)
      best = r.first();
  return best;
}

void check_memory_fits(const workloads::GeneratedJob& g, const std::string& origin) {
  const double capacity = g.facts.memory_capacity_bytes;
  for (int i = 0; i < g.trace.templates_size(); ++i) {
    const workloads::MemoryBreakdown& m = g.facts.memory_by_program[static_cast<std::size_t>(i)];
    if (m.total() <= capacity)
      continue;
    const std::string& name = g.trace.templates(i).name();
    throw DoesNotFit(origin, 0,
                    "rank " + std::to_string(first_rank_of(g.trace, name)) + " (pipeline " + name + ") needs " +
                        gigabytes(m.total()) + " of " + gigabytes(capacity) + ": weights " + gigabytes(m.weights) +
                        ", gradients " + gigabytes(m.gradients) + ", optimizer " + gigabytes(m.optimizer) +
                        ", activations " + gigabytes(m.activations) + ", buffers " + gigabytes(m.buffers),
                    "shard more: raise tp or pp, use zero: 1-3, recompute: selective or full, or a smaller micro_batch");
  }
}

} // namespace

// The platform loader already refuses hosts without a `gpu` property: every GPU has a model.
GpusOfPlatform gpus_of(const platforms::Cluster& cluster) { return {std::string(cluster.gpu_model(0)), cluster.gpu_count()}; }

// As the preset's platform will be built (platforms/platform_builder.cpp): every node alike.
GpusOfPlatform gpus_of(const platforms::ClusterSpec& spec) { return {spec.gpu, spec.nodes * spec.gpus_per_node}; }

workloads::Workload generated_workload(workloads::TrainingJob job, const GpusOfPlatform& gpus,
                                       const std::string& slowdown_model) {
  // Merged kernels must slow down alike: the category model answers per category (merge within
  // one), and so does xgboost here — generated kernels have no Nsight metrics, so it gives them
  // their category's default (slowdown/predictor.hpp).
  job.merge_same_category_only = slowdown_model == "category" || slowdown_model == "xgboost";
  const workloads::GpuSpec gpu = gpu_of(gpus.model, job.origin);
  workloads::check_training_job(job, gpus.count, gpu);
  if (!job.training.persistent_gemms)
    job.training.persistent_gemms = workloads::gemms_fill_gpu(gpu.arch);
  workloads::ProfileDb db;
  if (!job.profile_db.empty())
    db = workloads::ProfileDb::load(job.profile_db, gpu.name, job.training.dtype);
  const workloads::ComputeModel model(gpu, job.training.dtype, std::move(db));
  workloads::GeneratedJob g = workloads::generate_training_job(job, model);
  check_memory_fits(g, job.origin);
  workloads::Workload w = workloads::build_workload(g.trace, job.origin.empty() ? "generated workload" : job.origin);
  w.training = std::move(g.facts);
  if (job.parallel.tp > 1)
    w.symmetric_slot = "tp";  // every TP sibling runs its stage's program in lockstep
  for (const char* slot : {"tp", "dp"})
    if (std::find(w.slots.begin(), w.slots.end(), slot) != w.slots.end())
      w.paced_slots.push_back(slot);
  return w;
}

} // namespace echo::core
