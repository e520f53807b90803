#include "sweep/sweep_runner.hpp"

#include "report/json_text.hpp"

#include "core/generated_workload.hpp"
#include "core/simulation.hpp"
#include "report/summary_report.hpp"
#include "report/training_report.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace echo::sweep {

namespace {

SweepRecord base_record(const SweepJob& job) {
  SweepRecord r;
  r["index"] = job.index;
  r["label"] = job.label;
  auto& point = r["point"] = nlohmann::ordered_json::object();
  for (const auto& [key, value] : job.point)
    point[key] = value;
  return r;
}

// Runs in the child process.
SweepRecord simulate(const SweepJob& job) {
  SweepRecord r = base_record(job);
  bool built = false;
  try {
    core::Simulation simulation(*job.job);
    built = true;
    simulation.set_rank_folding(job.job->rank_folding);
    const core::SimulationResult result = simulation.run(false);
    r["status"] = "ok";
    r["rank_folding"] = core::rank_folding_name(job.job->rank_folding);
    r["iteration_time_s"] = result.iteration_time_s;
    if (const auto f = report::training_figures(result)) {
      r["tokens_per_s"] = f->tokens_per_s;
      r["tflops_per_gpu"] = f->tflops_per_gpu;
      r["mfu"] = f->mfu;
      r["peak_memory_bytes"] = f->peak_memory_bytes;
      r["memory_capacity_bytes"] = f->memory_capacity_bytes;
    }
    r["breakdown"] = report::breakdown_json(report::iteration_breakdown(result));
    r["limit"] = sweep_limit(r);
  } catch (const core::DoesNotFit& e) {
    r["status"] = "does_not_fit";
    r["reason"] = e.problem();
  } catch (const UserError& e) {
    r["status"] = built ? "failed" : "invalid";
    r["reason"] = e.problem();
  } catch (const std::exception& e) {
    r["status"] = "failed";
    r["reason"] = e.what();
  }
  return r;
}

void append_line(const std::string& log, const std::string& line) {
  const int fd = ::open(log.c_str(), O_WRONLY | O_APPEND | O_CREAT, 0644);
  if (fd < 0)
    throw UserError(log, 0, std::string("cannot write the sweep log: ") + std::strerror(errno), "check that --out is writable");
  // One write per record: an interruption leaves whole lines, and at worst one cut-short last line.
  const std::string text = line + "\n";
  const ssize_t n = ::write(fd, text.data(), text.size());
  ::fdatasync(fd);
  ::close(fd);
  if (n != static_cast<ssize_t>(text.size()))
    throw UserError(log, 0, "writing the sweep log failed", "check the free disk space");
}

struct Running {
  pid_t pid = -1;
  int fd = -1;
  const SweepJob* job = nullptr;
};

Running start_child(const SweepJob& job) {
  int fds[2];
  if (::pipe(fds) != 0)
    throw std::runtime_error("pipe failed");
  std::cout.flush();
  std::cerr.flush();
  const pid_t pid = ::fork();
  if (pid < 0)
    throw std::runtime_error("fork failed");
  if (pid == 0) {
    ::close(fds[0]);
    const std::string text = report::json_text(simulate(job));
    for (std::size_t written = 0; written < text.size();) {
      const ssize_t n = ::write(fds[1], text.data() + written, text.size() - written);
      if (n <= 0)
        break;
      written += static_cast<std::size_t>(n);
    }
    ::_exit(0);  // no parent's atexit handlers, no SimGrid teardown
  }
  ::close(fds[1]);
  return {pid, fds[0], &job};
}

// The record a finished child left in its pipe (records are far below a pipe's capacity, so the
// child never blocks on writing before it is reaped).
SweepRecord finish_child(const Running& child, int status) {
  std::string text;
  char buf[65536];
  for (ssize_t n; (n = ::read(child.fd, buf, sizeof buf)) > 0;)
    text.append(buf, static_cast<std::size_t>(n));
  ::close(child.fd);
  SweepRecord r = SweepRecord::parse(text, nullptr, false);
  if (r.is_discarded()) {
    r = base_record(*child.job);
    r["status"] = "failed";
    r["reason"] = WIFSIGNALED(status) ? "the simulation process was killed by signal " + std::to_string(WTERMSIG(status))
                                      : "the simulation process ended without a result";
  }
  return r;
}

} // namespace

std::string sweep_limit(const SweepRecord& r) {
  if (r.value("status", "") != "ok")
    return "";
  const double t = r["iteration_time_s"];
  std::string limit = "compute";
  double worst = 0.05 * t;
  const auto& b = r["breakdown"];
  if (b["bubble_s"].get<double>() > worst) {
    worst = b["bubble_s"];
    limit = "bubble";
  }
  for (const auto& [slot, s] : b["exposed_comm_s"].items())
    if (s.get<double>() > worst) {
      worst = s;
      limit = slot;
    }
  if (r.contains("peak_memory_bytes") && r["peak_memory_bytes"].get<double>() > 0.9 * r["memory_capacity_bytes"].get<double>())
    limit += ", memory";
  return limit;
}

std::vector<SweepRecord> read_sweep_log(const std::string& log, const std::set<std::string>& labels) {
  std::vector<SweepRecord> out;
  std::ifstream in(log);
  std::set<std::string> seen;
  for (std::string line; std::getline(in, line);) {
    const SweepRecord r = SweepRecord::parse(line, nullptr, false);
    if (r.is_discarded() || !r.contains("label") || !r.contains("status"))
      continue;  // cut short by an interruption
    const std::string label = r["label"];
    if (labels.count(label) && seen.insert(label).second)
      out.push_back(r);
  }
  return out;
}

SweepRecord rejected_record(const SweepJob& job) {
  SweepRecord r = base_record(job);
  r["status"] = "invalid";
  r["reason"] = job.error;
  return r;
}

SweepRecord simulate_in_child(const SweepJob& job) {
  if (!job.job)
    return rejected_record(job);
  const Running child = start_child(job);
  int status = 0;
  ::waitpid(child.pid, &status, 0);
  return finish_child(child, status);
}

void append_sweep_log(const std::string& log, const SweepRecord& record) { append_line(log, record.dump()); }

void SweepSink::add(SweepRecord r) {
  append_sweep_log(log, r);
  if (on_record)
    on_record(r);
  records.push_back(std::move(r));
}

std::vector<SweepRecord> run_sweep(const std::vector<SweepJob>& jobs, const std::set<std::string>& done, unsigned workers,
                                   const std::string& log, const std::function<void(const SweepRecord&)>& on_record) {
  SweepSink sink{log, on_record, {}};
  auto finish = [&](SweepRecord r) { sink.add(std::move(r)); };
  std::map<pid_t, Running> running;
  auto reap_one = [&] {
    int status = 0;
    const pid_t pid = ::waitpid(-1, &status, 0);
    const auto it = running.find(pid);
    if (it == running.end())
      return;
    SweepRecord r = finish_child(it->second, status);
    running.erase(it);
    finish(std::move(r));
  };
  for (const SweepJob& job : jobs) {
    if (done.count(job.label))
      continue;
    if (!job.job) {  // the job file rejected these values: nothing to simulate
      finish(rejected_record(job));
      continue;
    }
    while (running.size() >= std::max(1u, workers))
      reap_one();
    const Running child = start_child(job);
    running[child.pid] = child;
  }
  while (!running.empty())
    reap_one();
  return std::move(sink.records);
}

} // namespace echo::sweep
