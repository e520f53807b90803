#include "core/simulation.hpp"

#include "base/user_error.hpp"
#include "core/call_matcher.hpp"
#include "core/critical_path.hpp"
#include "core/collective_timing.hpp"
#include "core/engine_setup.hpp"
#include "core/kernel_features.hpp"
#include "core/resource_usage.hpp"
#include "core/stream_actor.hpp"
#include "core/generated_workload.hpp"
#include "core/gpu_speed_spread.hpp"
#include "core/latency_floor.hpp"
#include "core/oversized_platform.hpp"
#include "core/rank_folding.hpp"
#include "platforms/cluster_spec.hpp"
#include "workloads/importers/importer.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cmath>
#include <future>
#include <stdexcept>

namespace echo::core {

namespace sg4 = simgrid::s4u;

namespace {

// Three decimals, as the notes print figures (0.012, 1.032).
std::string format_fraction(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3f", v);
  return text;
}

double elapsed_s(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

workloads::Workload scaled(workloads::Workload w, double kernel_time_scale) {
  w.scale_gpu_time(kernel_time_scale);
  return w;
}

} // namespace

struct Simulation::Impl {
  std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
  platforms::PlatformSource platform;
  std::unique_ptr<sg4::Engine> engine;
  std::unique_ptr<platforms::Cluster> cluster;
  workloads::Workload workload;
  CommunicationSpec communication;
  std::unique_ptr<slowdown::Predictor> slowdown;
  bool comm_measured = false;
  RankFolding folding = RankFolding::exact;
  std::optional<JobSpec> job;  // when built from a job: recorded in the result
  collectives::AlgorithmRegistry algorithms = collectives::AlgorithmRegistry::with_builtins();
};

Simulation::Simulation(const JobSpec& job) : impl_(std::make_unique<Impl>()) {
  impl_->job = job;
  if (job.source) {
    init(job.platform, scaled(workloads::load_workload(*job.source, job.replicate_dp), job.kernel_time_scale), job.communication,
         job.slowdown, job.comm_measured);
    return;
  }
  // A generated workload needs the platform first: its GPU count and GPU model.
  const workloads::TrainingJob& t = *job.training;
  const std::uint32_t ranks = t.parallel.dp > 0 ? t.parallel.tp * t.parallel.pp * t.parallel.cp * t.parallel.dp : 0;
  refuse_oversized_platform(job.platform, ranks, job.job_file);  // dp 0: the platform's size is the job's
  impl_->engine = make_engine(ranks > 0 ? ranks : 1u << 16);
  const auto build_platform = [&] {
    platforms::load_platform(*impl_->engine, job.platform);
    impl_->cluster = std::make_unique<platforms::Cluster>(*impl_->engine, job.platform.describe());
  };
  workloads::Workload workload;
  if (job.platform.spec) {
    // A preset knows its GPUs before SimGrid builds it, and the generator never calls SimGrid:
    // generate on a second thread meanwhile (at 16,384 GPUs each takes about half a second). A
    // platform error still comes first, as it would in turn.
    auto generated = std::async(std::launch::async, [&t, &job, gpus = gpus_of(*job.platform.spec)] {
      return generated_workload(t, gpus, job.slowdown.model);
    });
    try {
      build_platform();
    } catch (...) {
      generated.wait();
      throw;
    }
    workload = generated.get();
  } else {
    build_platform();
    workload = generated_workload(t, gpus_of(*impl_->cluster), job.slowdown.model);
  }
  init(job.platform, std::move(workload), job.communication, job.slowdown, job.comm_measured);
}

Simulation::Simulation(const platforms::PlatformSource& platform, workloads::Workload workload,
                       CommunicationSpec communication, SlowdownSpec slowdown, bool comm_measured)
    : impl_(std::make_unique<Impl>()) {
  init(platform, std::move(workload), std::move(communication), std::move(slowdown), comm_measured);
}

void Simulation::init(const platforms::PlatformSource& platform, workloads::Workload workload,
                      CommunicationSpec communication, SlowdownSpec slowdown, bool comm_measured) {
  impl_->comm_measured = comm_measured;
  impl_->platform = platform;
  impl_->communication = std::move(communication);
  impl_->slowdown = slowdown.model == "constant"   ? slowdown::make_constant(slowdown.factor)
                    : slowdown.model == "category" ? slowdown::make_category(slowdown.categories)
                    : slowdown.model == "xgboost"  ? slowdown::make_xgboost(slowdown.file)
                                                   : slowdown::make_none();
  impl_->workload = std::move(workload);
  if (!impl_->engine) {
    refuse_oversized_platform(platform, impl_->workload.rank_count(), impl_->job ? impl_->job->job_file : impl_->workload.source);
    impl_->engine = make_engine(impl_->workload.rank_count());
    platforms::load_platform(*impl_->engine, platform);
    impl_->cluster = std::make_unique<platforms::Cluster>(*impl_->engine, platform.describe());
  }
  const std::uint32_t ranks = impl_->workload.rank_count();
  const std::uint32_t gpus = impl_->cluster->gpu_count();
  if (ranks > gpus)
    throw UserError(impl_->workload.source, 0,
                    "the workload has " + std::to_string(ranks) + " ranks but the platform (" + platform.describe() +
                        ") has only " + std::to_string(gpus) + " GPUs",
                    "use a platform with at least " + std::to_string(ranks) +
                        " GPUs (for a preset: more nodes) or fewer ranks");
}

Simulation::~Simulation() = default;

collectives::AlgorithmRegistry& Simulation::algorithms() { return impl_->algorithms; }
void Simulation::set_rank_folding(RankFolding folding) { impl_->folding = folding; }
const workloads::Workload& Simulation::workload() const { return impl_->workload; }
const platforms::Cluster& Simulation::cluster() const { return *impl_->cluster; }

SimulationResult Simulation::run(bool record_intervals, const ProgressFn& progress) {
  const workloads::Workload& w = impl_->workload;
  const std::uint32_t n_ranks = w.rank_count();

  std::vector<RankRuntime> ranks;
  ranks.reserve(n_ranks);
  for (std::uint32_t r = 0; r < n_ranks; ++r)
    ranks.emplace_back(r, w.program(r), w.slots.size());
  const network::NetworkModelInfo& network =
      network::NetworkModelRegistry::global().require(impl_->communication.fidelity, "communication.fidelity");
  const collectives::CollectiveModel model(*impl_->cluster, impl_->algorithms,
                                          selection_for(impl_->communication, impl_->algorithms),
                                          collectives::calibration_of(*impl_->cluster, impl_->platform.describe()),
                                          network.shares_group_exits);
  CallMatcher matcher(w, model, *impl_->cluster, network);

  RunState state;
  state.workload = &w;
  state.matcher = &matcher;
  state.ranks = &ranks;
  state.mutex = sg4::Mutex::create();
  state.record = record_intervals;
  state.slowdown = impl_->slowdown.get();
  state.comm_measured = impl_->comm_measured;
  if (impl_->comm_measured)
    for (const workloads::RankProgram& p : w.programs)
      for (const workloads::ProgramTask& t : p.tasks)
        if (t.kind == workloads::TaskKind::collective && t.duration_ns == 0)
          throw UserError(w.source, 0,
                          "`comm: measured` needs every collective's traced duration, but task '" + t.name +
                              "' of template '" + p.name + "' has no measured_duration_ns",
                          "use `comm: simulated`, or a trace whose collectives carry their measured durations");
  if (!impl_->slowdown->is_none())
    state.slowdown_of_task = slowdowns_by_task(w.programs, *impl_->slowdown);
  std::optional<SlowdownByCollective> by_collective;
  if (impl_->slowdown->sees_collective()) {
    by_collective.emplace(w.programs, *impl_->slowdown);
    state.slowdown_by_collective = &*by_collective;
  }

  // Interchangeable ranks: simulate one per group (core/rank_folding.hpp).
  const ReplicaFoldingProbe probe{network.runs_steps, network.sender_links_only,
                                  [&](std::uint32_t rank, std::uint32_t comm) { return matcher.projects_every_call(rank, comm); }};
  const FoldedRanks folded = fold_ranks(w, *impl_->cluster, impl_->folding, probe);
  const std::vector<std::uint32_t>& representative = folded.representative;
  const auto simulated = [&](std::uint32_t r) { return representative.empty() || representative[r] == r; };
  matcher.fold_ranks(folded);

  // Generated jobs run on GPUs whose speeds spread (core/gpu_speed_spread.hpp); a trace's kernels
  // keep the durations its own GPUs measured.
  const double spread =
      w.training ? platforms::gpu_speed_spread_value(impl_->cluster->property("gpu_speed_spread"), impl_->platform.describe())
                 : 0.0;
  const GpuPace pace = gpu_pace(w, spread);
  for (std::uint32_t r = 0; r < n_ranks; ++r)
    ranks[r].set_gpu_time_factor(pace.time_factor[r]);

  // Every stream actor lives on the first GPU's host: a stream's time is sleeps, not work on a
  // host, and nothing asks an actor where it runs; SimGrid reads the host's state at every sleep,
  // and thousands of hosts' state, cold in cache, cost 8% of the 8,192-GPU benchmark (results
  // unchanged). The `flow` model's flows do run on their GPUs' hosts: their links start there.
  sg4::Host* const stream_host = impl_->cluster->gpus().front().host;
  for (std::uint32_t r = 0; r < n_ranks; ++r) {
    if (!simulated(r))
      continue;
    const workloads::RankProgram& program = w.program(r);
    for (std::uint32_t s = 0; s < program.streams.size(); ++s)
      if (!program.stream_order[s].empty())
        sg4::Actor::create("rank" + std::to_string(r) + "/" + program.streams[s], stream_host, StreamActor(state, r, s));
  }

  if (auto daemon = matcher.network_daemon())
    sg4::Actor::create("network", impl_->cluster->gpus().front().host, std::move(daemon))->daemonize();

  const auto run_started = std::chrono::steady_clock::now();
  if (progress) {
    // Every time simulated time moves (checking the wall clock only every 64 moves): a report
    // about every quarter of a second once the run has lasted one.
    std::uint64_t moves = 0;
    double last_report_s = 0.0;
    std::uint64_t total_tasks = 0;
    for (std::uint32_t r = 0; r < n_ranks; ++r)
      if (simulated(r))
        total_tasks += w.program(r).tasks.size();
    sg4::Engine::on_time_advance_cb([&, total_tasks](double) {
      if ((++moves & 63) != 0)
        return;
      const double wall = elapsed_s(run_started);
      if (wall < 1.0 || wall - last_report_s < 0.25)
        return;
      last_report_s = wall;
      progress({sg4::Engine::get_clock(), state.tasks_done, total_tasks, state.tasks_done + matcher.steps_timed(), wall});
    });
  }
  impl_->engine->run();
  const double run_wall_s = elapsed_s(run_started);

  if (state.error)
    throw *state.error;
  if (state.internal_error)
    throw std::runtime_error(*state.internal_error);

  // Every stream must have run to its end; otherwise some call never matched.
  std::vector<std::string> stuck;
  for (std::uint32_t r = 0; r < n_ranks && stuck.size() < 8; ++r) {
    if (!simulated(r))
      continue;
    const workloads::RankProgram& program = ranks[r].program();
    for (std::uint32_t s = 0; s < program.streams.size() && stuck.size() < 8; ++s) {
      const auto& order = program.stream_order[s];
      if (ranks[r].done(s) >= order.size())
        continue;
      const workloads::ProgramTask& head = program.tasks[order[ranks[r].done(s)]];
      std::string line = "rank " + std::to_string(r) + " stream '" + program.streams[s] + "' at task '" + head.name + "'";
      // What it waits for on another stream, if anything: the thread to pull on.
      for (std::uint32_t k = head.waits_begin; k < head.waits_end; ++k) {
        const workloads::StreamPosition need = program.waits[k];
        if (ranks[r].done(need.stream) <= need.position) {
          line += ", which waits for stream '" + program.streams[need.stream] + "' to finish '" +
                  program.tasks[program.stream_order[need.stream][need.position]].name + "'";
          break;
        }
      }
      stuck.push_back(line);
    }
  }
  if (!stuck.empty()) {
    // The engine's clock may have run on to the end of time (the `flow` model's receivers sleep
    // until then), so the message names when a stream last got anywhere.
    std::string message = "deadlock: the simulation cannot go on after t = " + std::to_string(state.last_task_end_s) +
                          " s, when a stream last finished a task.";
    for (const std::string& call : matcher.pending_report(8))
      message += "\n  waiting: " + call;
    for (const std::string& s : stuck)
      message += "\n  blocked: " + s;
    if (w.training)
      throw UserError(w.source, 0, message,
                      "none: the job generator built programs that cannot run together, a bug in echo-des. Please "
                      "report it with this job file; another pipeline schedule or framework may avoid it meanwhile");
    throw UserError(w.source, 0, message,
                    "make every member of a communicator issue the same calls in the same order, and match each "
                    "send with a recv. A send waits for its peer's recv (a rendezvous, as NCCL's does): where each "
                    "rank's recv depends on its own send (a ring written for sends that complete when posted), mark the "
                    "sends `eager` (trace.proto; Chakra traces are read so) or post each recv before its send");
  }

  SimulationResult result;
  result.workload_name = w.name;
  result.workload_source = w.source;
  result.platform = impl_->platform.describe();
  result.gpus = impl_->cluster->gpu_count();
  result.ranks = n_ranks;
  result.tasks = w.total_tasks();
  result.measured_iteration_ns = w.measured_iteration_ns;
  result.notes = w.notes;
  result.job = impl_->job;
  if (auto note = latency_floor_note(impl_->platform, *impl_->cluster))
    result.run_notes.push_back(*note);
  if (n_ranks < result.gpus)  // rank r runs on GPU r: the platform's last GPUs take no part
    result.run_notes.push_back("the job has " + std::to_string(n_ranks) + " ranks on GPUs 0.." + std::to_string(n_ranks - 1) +
                           "; the platform's other " + std::to_string(result.gpus - n_ranks) + " GPUs are idle");
  // Only folding beyond the exact kind can change a result: say so (an `all` that fell back to
  // exact folds the symmetric slot alone).
  std::string slots;
  bool beyond_exact = false;
  for (std::uint32_t s = 0; s < w.slots.size(); ++s)
    if (folded.folds(s)) {
      slots += (slots.empty() ? "" : ", ") + w.slots[s];
      beyond_exact = beyond_exact || w.slots[s] != w.symmetric_slot;
    }
  if (impl_->folding == RankFolding::all && beyond_exact) {
    result.run_notes.push_back("folded (--fold all): " + std::to_string(folded.simulated_ranks()) + " of " +
                               std::to_string(n_ranks) + " ranks simulated; the calls on " + slots +
                               " run with every member arriving with its representative, and meet on the links "
                               "only the simulated ranks' traffic (the folded replicas' own is left out)");
  }
  if (pace.slowest > 1.0)
    result.run_notes.push_back("the GPUs' sustained speeds spread (platform gpu_speed_spread " + format_fraction(spread) +
                               "): the slowest, rank " + std::to_string(pace.slowest_rank) + "'s, takes " +
                               format_fraction(pace.slowest) +
                               "x a median GPU's time, and every GPU of its pipeline stage keeps its pace");
  for (const RankRuntime& rt : ranks)
    result.iteration_time_s = std::max(result.iteration_time_s, rt.end_s());
  result.iteration_ns = static_cast<std::uint64_t>(std::llround(result.iteration_time_s * 1e9));
  result.per_rank.reserve(n_ranks);
  result.slots = w.slots;
  // Communication kernels (core/rank_runtime.hpp) are named only where the workload has some.
  const bool comm_kernels = std::any_of(w.programs.begin(), w.programs.end(), [](const workloads::RankProgram& p) {
    return std::any_of(p.tasks.begin(), p.tasks.end(), [](const workloads::ProgramTask& t) {
      return t.kind == workloads::TaskKind::compute && time_kind(t.category) == TimeKind::comm;
    });
  });
  if (comm_kernels)
    result.slots.push_back(kCommKernelsSlot);
  if (w.training) {
    result.training = w.training;
    result.program_of_rank = w.program_of_rank;
  }
  result.slowdown_model = impl_->slowdown->name();
  if (impl_->slowdown->needs_metrics()) {
    const MetricsCoverage coverage = metrics_coverage(w.programs);
    result.kernels_without_metrics = coverage.without;
    result.compute_kernels = coverage.kernels;
  }
  for (const RankRuntime& mirrored : ranks) {
    // A mirrored rank's timeline is its representative's.
    const RankRuntime& rt = ranks[representative.empty() ? mirrored.rank() : representative[mirrored.rank()]];
    RankBreakdown b;
    b.rank = mirrored.rank();
    b.compute_s = rt.compute_s();
    b.exposed_comm_s = rt.exposed_comm_s();
    b.idle_s = std::max(0.0, result.iteration_time_s - b.compute_s - b.exposed_comm_s);
    b.end_s = rt.end_s();
    b.exposed_by_slot_s = rt.exposed_by_slot_s();
    b.slowdown_s = rt.slowdown_s();
    b.host_bound_s = rt.host_bound_s();
    b.host_busy_s = rt.host_busy_s();
    result.per_rank.push_back(b);
  }
  result.representative = representative;
  result.events = state.tasks_done + matcher.steps_timed();
  result.collectives = matcher.calls_completed();
  result.collectives_too_large = matcher.calls_too_large();
  result.collective_stats = matcher.collective_stats();
  result.run_wall_s = run_wall_s;
  result.wall_s = elapsed_s(impl_->started);
  result.peak_rss_mb = peak_rss_mb();
  if (record_intervals) {
    result.intervals = std::move(state.intervals);
    std::sort(result.intervals.begin(), result.intervals.end(), [](const Interval& a, const Interval& b) {
      return std::tie(a.rank, a.stream, a.start_s, a.task) < std::tie(b.rank, b.stream, b.start_s, b.task);
    });
    result.critical_path = critical_path(result, w);
  }
  return result;
}

} // namespace echo::core
