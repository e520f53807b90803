#include "cli/commands.hpp"
#include "report/csv_cell.hpp"
#include "cli/job_file.hpp"
#include "cli/sweep_space.hpp"
#include "sweep/sweep_report.hpp"
#include "sweep/sweep_mpi.hpp"
#include "sweep/sweep_runner.hpp"

#include "base/atomic_write.hpp"
#include "base/file_text.hpp"
#include "base/user_error.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <regex>
#include <sstream>
#include <thread>

namespace echo::cli {

namespace {

namespace fs = std::filesystem;

struct SweepOptions {
  std::string job, space, out = "sweep";
  std::vector<std::string> overrides;  // --set: applied to the job before every point's own keys
  unsigned workers = std::max(1u, std::thread::hardware_concurrency());
  bool resume = false, quiet = false, json = false;
  std::string fold = "all";
};

std::string number(const sweep::SweepRecord& r, const char* key, int decimals, double scale = 1) {
  if (!r.contains(key))
    return "";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, r[key].get<double>() * scale);
  return buf;
}

void write_text_atomically(const fs::path& path, const std::string& text) {
  write_atomically(path, [&](std::ostream& out) { out << text; }, "the sweep results");
}

std::string results_csv(const std::vector<sweep::SweepRecord>& records, const std::vector<SweepAxis>& axes) {
  std::string out = "index";
  for (const SweepAxis& a : axes)
    out += "," + a.key;
  out += ",status,iteration_time_s,tokens_per_s,tflops_per_gpu,mfu,peak_memory_gib,limit,reason\n";
  for (const auto& r : records) {
    out += std::to_string(r["index"].get<std::size_t>());
    for (const SweepAxis& a : axes)
      out += "," + report::csv_cell(r["point"].value(a.key, ""));
    out += "," + r["status"].get<std::string>() + "," + number(r, "iteration_time_s", 9) + "," + number(r, "tokens_per_s", 1) +
           "," + number(r, "tflops_per_gpu", 2) + "," + number(r, "mfu", 4) + "," +
           number(r, "peak_memory_bytes", 2, 1.0 / (1024.0 * 1024 * 1024)) + "," + report::csv_cell(r.value("limit", "")) + "," +
           report::csv_cell(r.value("reason", "")) + "\n";
  }
  return out;
}

// "tp (3) does not divide heads (96)" -> "tp (N) does not divide heads (N)": one line per rule.
std::string reason_kind(const std::string& reason) { return std::regex_replace(reason, std::regex("[0-9]+(\\.[0-9]+)?"), "N"); }

std::string ranked_table(const std::vector<sweep::SweepRecord>& records) {
  std::map<std::string, std::size_t> counts;
  std::map<std::string, std::map<std::string, std::size_t>> reasons;
  std::vector<const sweep::SweepRecord*> ok;
  for (const auto& r : records) {
    const std::string status = r["status"];
    ++counts[status];
    if (status == "ok")
      ok.push_back(&r);
    else
      ++reasons[status][reason_kind(r.value("reason", ""))];
  }
  std::string out = std::to_string(records.size()) + " points: " + std::to_string(counts["ok"]) + " simulated, " +
                    std::to_string(counts["invalid"]) + " invalid, " + std::to_string(counts["does_not_fit"]) +
                    " do not fit in memory, " + std::to_string(counts["failed"]) + " failed\n";
  for (const auto& [status, kinds] : reasons)
    for (const auto& [kind, n] : kinds)
      out += "  " + std::to_string(n) + " x " + status + ": " + kind + "\n";
  std::stable_sort(ok.begin(), ok.end(), [](const sweep::SweepRecord* a, const sweep::SweepRecord* b) {
    const double ta = a->value("tokens_per_s", 0.0), tb = b->value("tokens_per_s", 0.0);
    if (ta != tb)
      return ta > tb;
    return a->value("iteration_time_s", 0.0) < b->value("iteration_time_s", 0.0);
  });
  if (ok.empty())
    return out;
  char line[512];
  std::snprintf(line, sizeof line, "\n%4s %14s %12s %7s %12s  %-16s %s\n", "rank", "tokens/s", "iteration_s", "MFU", "memory_GiB",
                "limited by", "point");
  out += line;
  for (std::size_t i = 0; i < ok.size() && i < 10; ++i) {
    const auto& r = *ok[i];
    std::snprintf(line, sizeof line, "%4zu %14s %12s %6s%% %12s  %-16s %s\n", i + 1, number(r, "tokens_per_s", 0).c_str(),
                  number(r, "iteration_time_s", 3).c_str(), number(r, "mfu", 1, 100).c_str(),
                  number(r, "peak_memory_bytes", 1, 1.0 / (1024.0 * 1024 * 1024)).c_str(), r.value("limit", "").c_str(),
                  r["label"].get<std::string>().c_str());
    out += line;
  }
  return out;
}

} // namespace

Action add_sweep_command(CLI::App& app) {
  auto opts = std::make_shared<SweepOptions>();
  CLI::App* sweep = app.add_subcommand("sweep", "Simulate every point of a space of job settings and rank them");
  sweep->footer("Example:\n  echo-des sweep examples/sweep/job.yaml --space examples/sweep/space.yaml -j 2 --out sweep");
  sweep->add_option("job", opts->job, "Job file (YAML): the settings every point starts from")->required();
  sweep->add_option("--space", opts->space, "Space file (YAML): job keys and their values, lists or ranges")->required();
  sweep->add_option("-j,--jobs", opts->workers, "Points simulated at once, each in its own process (default: the cores)")
      ->check(CLI::Range(1u, 4096u));
  sweep->add_option("-o,--out", opts->out, "Folder for results.jsonl (the log), results.json, results.csv and sweep.html (default: sweep)");
  sweep->add_option("--fold", opts->fold,
                    "Which interchangeable ranks run once (as `run --fold`); default all: data- and expert-parallel "
                    "replicas simulated once, the other replicas' traffic left out")
      ->check(CLI::IsMember({"none", "tp", "exact", "all"}));
  sweep->add_flag("--resume", opts->resume, "Continue the sweep whose log is in --out: simulate only points without a result");
  sweep->add_flag("-q,--quiet", opts->quiet, "No line per finished point on stderr");
  sweep->add_flag("--json", opts->json, "Print every point's record (results.json) on stdout instead of the ranked table");
  sweep->add_option("--set", opts->overrides,
                    "Override a job key for every point, e.g. platform.nic_bw=100Gbps (as `run --set`; a key the space "
                    "sweeps is refused)")
      ->take_all()
      ->allow_extra_args(false);
  return [sweep, opts]() -> int {
    if (!sweep->parsed())
      return -1;
    const std::vector<SweepAxis> axes = read_sweep_space(opts->space);
    const std::vector<SweepPoint> points = sweep_points(axes);
    const std::string yaml = read_file_text(opts->job, "job file", "check the path");
    const std::string base_dir = fs::path(opts->job).parent_path().string();
    // A --set of a key the space sweeps would be silently overridden at every point.
    for (const std::string& o : opts->overrides) {
      const std::string key = o.substr(0, o.find('='));
      for (const SweepAxis& axis : axes)
        if (axis.key == key || axis.key == "workload." + key)
          throw UserError("--set " + o, 0, "`" + axis.key + "` is swept by the space (" + opts->space + ")",
                          "drop it from --set, or from the space");
    }
    // A job file that is broken on its own is the user's error, not 1,000 invalid points.
    (void)parse_job(yaml, opts->job, base_dir, opts->overrides);

    std::vector<sweep::SweepJob> jobs;
    std::set<std::string> labels;
    for (std::size_t i = 0; i < points.size(); ++i) {
      sweep::SweepJob job;
      job.index = i;
      job.label = point_label(points[i]);
      job.point = points[i];
      std::vector<std::string> overrides = opts->overrides;
      for (const auto& [key, value] : points[i])
        overrides.push_back(key + "=" + value);
      try {
        job.job = parse_job(yaml, opts->job, base_dir, overrides);
        job.job->out_dir.clear();  // a point writes nothing but its record
        job.job->rank_folding = *core::parse_rank_folding(opts->fold);
      } catch (const UserError& e) {
        job.error = e.problem();
      }
      labels.insert(job.label);
      jobs.push_back(std::move(job));
    }

    // Under mpirun only rank 0 touches the output folder; the other ranks simulate.
    const bool across_ranks = sweep::launched_by_mpi();
    const bool coordinator = !across_ranks || sweep::mpi_coordinator_rank();
    const fs::path out(opts->out);
    if (coordinator)
      fs::create_directories(out);
    const std::string log = (out / "results.jsonl").string();
    if (coordinator && fs::exists(log) && fs::file_size(log) > 0 && !opts->resume)
      throw UserError(opts->out, 0, "the folder already holds a sweep's results (results.jsonl)",
                      "add --resume to continue that sweep, or pick another --out");
    std::vector<sweep::SweepRecord> records = opts->resume ? sweep::read_sweep_log(log, labels) : std::vector<sweep::SweepRecord>{};
    std::set<std::string> done;
    for (const auto& r : records)
      done.insert(r["label"].get<std::string>());
    if (!opts->quiet && coordinator && !done.empty())
      std::cerr << "resuming: " << done.size() << " of " << jobs.size() << " points already have a result\n";

    std::size_t finished = done.size();
    const auto report = [&](const sweep::SweepRecord& r) {
      ++finished;
      if (!opts->quiet)
        std::cerr << "[" << finished << "/" << jobs.size() << "] " << r["label"].get<std::string>() << ": "
                  << r["status"].get<std::string>()
                  << (r.contains("iteration_time_s") ? " " + number(r, "iteration_time_s", 3) + " s" : "")
                  << (r.contains("reason") ? " (" + r["reason"].get<std::string>() + ")" : "") << "\n";
    };
    std::vector<sweep::SweepRecord> fresh;
    if (across_ranks) {
      auto mine = sweep::run_sweep_mpi(jobs, done, log, report);
      if (!mine)
        return 0;  // a simulating rank: rank 0 writes the results
      fresh = std::move(*mine);
    } else {
      fresh = sweep::run_sweep(jobs, done, opts->workers, log, report);
    }
    records.insert(records.end(), fresh.begin(), fresh.end());
    std::sort(records.begin(), records.end(),
              [](const sweep::SweepRecord& a, const sweep::SweepRecord& b) {
                return a["index"].get<std::size_t>() < b["index"].get<std::size_t>();
              });

    nlohmann::ordered_json all = nlohmann::ordered_json::array();
    for (const auto& r : records)
      all.push_back(r);
    write_text_atomically(out / "results.json", all.dump(2) + "\n");
    write_text_atomically(out / "results.csv", results_csv(records, axes));
    std::ostringstream html;
    sweep::write_sweep_report(html, records);
    write_text_atomically(out / "sweep.html", html.str());
    if (opts->json)
      std::cout << all.dump(2) << "\n";
    else
      std::cout << ranked_table(records);
    // A sweep with no simulated point has no answer: say so (the reasons are listed above, the
    // records written) rather than end as a success with an empty chart.
    if (std::none_of(records.begin(), records.end(), [](const sweep::SweepRecord& r) { return r.value("status", "") == "ok"; }))
      throw UserError(opts->space, 0, "no point of the space could be simulated (" + std::to_string(records.size()) +
                                          " points; their reasons are listed above and in " + (out / "results.csv").string() + ")",
                      "widen the space, or change the job so that some layouts are valid and fit in memory");
    return 0;
  };
}

} // namespace echo::cli
