#include "base/user_error.hpp"
#include "cli/commands.hpp"
#include "report/slowdown_table.hpp"
#include "slowdown/cross_validation.hpp"
#include "slowdown/features.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <cmath>
#include <iostream>
#include <memory>

namespace echo::cli {

namespace {

struct SlowdownOptions {
  std::vector<std::string> csv;
  std::string out, model;
  slowdown::TrainParams params;
  int folds = 5;
  double constant = 0.020;  // the documented median slowdown of overlapped kernels
  std::string objective = "kernels";
  int shuffles = 0;
  bool json = false, by_kernel = false;
  report::SlowdownTableOptions table;
};

void add_slowdown_table_options(CLI::App& table, report::SlowdownTableOptions& o) {
  table.add_option("--overlapped", o.overlapped, "Kineto trace (.json / .json.gz) of a run with communication beside the computation")
      ->required();
  table.add_option("--isolated", o.isolated, "Kineto trace of the same program without it (one GPU, or communication off)")
      ->required();
  table.add_option("--ncu", o.ncu, "Nsight Compute report (`ncu --csv`) of the program's kernels: their metrics")->required();
  table.add_option("--step", o.step, "ProfilerStep#N to read in both traces (default: the last)");
  table.add_option("-o,--out", o.out, "Where to write the table (CSV, the columns `slowdown train` reads)")->required();
}

std::vector<slowdown::KernelRow> read_tables(const std::vector<std::string>& paths) {
  std::vector<slowdown::KernelRow> rows;
  for (const auto& p : paths) {
    auto more = slowdown::read_kernel_table(p);
    rows.insert(rows.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
  }
  return rows;
}

std::string line(const char* label, const slowdown::Scores& s) {
  char buf[200];
  std::snprintf(buf, sizeof buf, "%-10s %9.3f %9.3f %9.3f %+13.2f%% %8zu\n", label, s.within_5, s.within_10, s.within_15,
                100 * s.summed_error, s.kernels);
  return buf;
}

std::string table(const slowdown::Scores& model, const slowdown::Scores& none, const slowdown::Scores& constant) {
  return std::string("           within 5% within10% within15%  summed error  kernels\n") + line("model", model) +
         line("none", none) + line("constant", constant);
}

nlohmann::ordered_json as_json(const slowdown::Scores& s) {
  return {{"within_5", s.within_5}, {"within_10", s.within_10}, {"within_15", s.within_15},
          {"summed_error", s.summed_error}, {"kernels", s.kernels}};
}

// Per kernel name: its kernels, their within-10% share and summed error, and its part of the error
// of everyone's summed duration.
std::string by_kernel_table(const std::vector<slowdown::NamedScores>& named) {
  std::string out = "\nby kernel name, the largest part of the summed error first:\n";
  char buf[300];
  std::snprintf(buf, sizeof buf, "%-40s %8s %9s %13s %13s\n", "kernel", "kernels", "within10%", "summed error", "of the total");
  out += buf;
  for (const auto& n : named) {
    const std::string name = n.name.size() > 40 ? n.name.substr(0, 37) + "..." : n.name;
    std::snprintf(buf, sizeof buf, "%-40s %8zu %9.3f %+12.2f%% %+12.2f%%\n", name.c_str(), n.scores.kernels, n.scores.within_10,
                  100 * n.scores.summed_error, 100 * n.error_of_total);
    out += buf;
  }
  return out;
}

// The model's within-10% share and summed error over `shuffles` shuffled fold assignments.
std::string shuffled_summary(const std::vector<slowdown::KernelRow>& rows, const slowdown::TrainParams& params, int folds,
                             int shuffles) {
  double within_sum = 0, within_min = 1, within_max = 0, error_sum = 0, error_min = 1e300, error_max = -1e300;
  for (int seed = 1; seed <= shuffles; ++seed) {
    const auto oof = slowdown::out_of_fold_slowdowns(rows, params, folds, static_cast<std::uint64_t>(seed));
    const auto s = slowdown::score(rows, [&](std::size_t i) { return oof[i]; });
    within_sum += s.within_10;
    within_min = std::min(within_min, s.within_10);
    within_max = std::max(within_max, s.within_10);
    error_sum += s.summed_error;
    error_min = std::min(error_min, s.summed_error);
    error_max = std::max(error_max, s.summed_error);
  }
  char buf[300];
  std::snprintf(buf, sizeof buf, "model over %d shuffled fold assignments: within 10%% %.3f (%.3f .. %.3f), summed error %+.2f%% (%+.2f%% .. %+.2f%%)\n",
                shuffles, within_sum / shuffles, within_min, within_max, 100 * error_sum / shuffles, 100 * error_min, 100 * error_max);
  return buf;
}

} // namespace

Action add_slowdown_command(CLI::App& app) {
  auto o = std::make_shared<SlowdownOptions>();
  CLI::App* cmd = app.add_subcommand("slowdown", "Train and evaluate the XGBoost model of compute slowdown under overlap");
  cmd->footer("Example:\n  echo-des slowdown train --csv ../shared/data/slowdown/a100-overlap-train.csv -o slowdown.json\n"
              "  then in a job: slowdown: {model: xgboost, file: slowdown.json}");
  cmd->require_subcommand(1);
  CLI::App* train = cmd->add_subcommand("train", "Train on measured kernels; print a k-fold cross-validation report");
  train->add_option("--csv", o->csv, "Kernel tables (columns as in ../shared/data/slowdown)")->required()->take_all();
  train->add_option("-o,--out", o->out, "Where to write the model (XGBoost JSON)")->required();
  train->add_option("--objective", o->objective,
                    "What to fit: `kernels` (default), each kernel's typical slowdown among its look-alikes -- best "
                    "share within 10%; `total`, the summed overlapped duration, unbiased -- what an iteration time needs")
      ->check(CLI::IsMember({"kernels", "total"}));
  train->add_option("--rounds", o->params.rounds, "Boosting rounds (default 200)");
  train->add_option("--depth", o->params.max_depth, "Tree depth (default 6)");
  train->add_option("--eta", o->params.eta, "Learning rate (default 0.1)");
  train->add_option("--folds", o->folds, "Cross-validation folds (default 5)");
  train->add_option("--shuffles", o->shuffles,
                    "Also cross-validate over this many shuffled fold assignments (seeds 1..N) and print the "
                    "model's mean and range (default 0)")
      ->check(CLI::Range(0, 1000));
  train->add_option("--constant", o->constant, "Factor of the constant baseline (default 0.02)");
  train->footer("Example:\n  echo-des slowdown train --csv ../shared/data/slowdown/a100-overlap-train.csv -o slowdown.json");
  CLI::App* eval = cmd->add_subcommand("eval", "Score a model on measured kernels, next to the none and constant baselines");
  eval->footer("Example:\n  echo-des slowdown eval --model slowdown.json --csv held-out-kernels.csv --json");
  eval->add_option("--model", o->model, "XGBoost JSON model")->required();
  eval->add_option("--csv", o->csv, "Kernel table")->required()->take_all();
  eval->add_option("--constant", o->constant, "Factor of the constant baseline (default 0.02)");
  eval->add_flag("--json", o->json, "Print one JSON object {model, none, constant}");
  eval->add_flag("--by-kernel", o->by_kernel,
                 "Also score the model per kernel name, the largest share of the summed error first (JSON: by_kernel)");
  CLI::App* make_table = cmd->add_subcommand(
      "table", "Make a training table from two Kineto traces of one program (with and without communication) and its ncu report");
  make_table->footer("Example:\n  echo-des slowdown table --overlapped ddp.json.gz --isolated alone.json.gz --ncu prof.csv -o kernels.csv");
  add_slowdown_table_options(*make_table, o->table);
  return [cmd, train, eval, make_table, o]() -> int {
    if (!cmd->parsed())
      return -1;
    if (make_table->parsed())
      return report::write_slowdown_table(o->table);
    const auto rows = read_tables(o->csv);
    const auto none = slowdown::score(rows, [](std::size_t) { return 0.0; });
    const auto constant = slowdown::score(rows, [&](std::size_t) { return o->constant; });
    if (train->parsed()) {
      o->params.objective = o->objective == "total" ? slowdown::Objective::total : slowdown::Objective::kernels;
      const auto oof = slowdown::out_of_fold_slowdowns(rows, o->params, o->folds);
      const auto cv = slowdown::score(rows, [&](std::size_t i) { return oof[i]; });
      std::cout << o->folds << "-fold cross-validation on " << rows.size() << " kernels (scores on held-out folds):\n"
                << table(cv, none, constant);
      if (o->shuffles > 0)
        std::cout << shuffled_summary(rows, o->params, o->folds, o->shuffles);
      const auto impossible = std::count_if(rows.begin(), rows.end(), slowdown::impossible_measurement);
      if (impossible > 0)
        std::cout << "not trained on " << impossible << " kernel(s) measured shorter than their non-overlapped part alone "
                  << "(s < -1; scored all the same)\n";
      slowdown::XGBoostModel::train(rows, o->params).save(o->out);
      std::cout << "model trained on all kernels: " << o->out << "\n";
      return 0;
    }
    const auto model = slowdown::XGBoostModel::load(o->model);
    // A table and a model may differ in the collective's columns: unknown ones are missing values,
    // ones the model does not use are dropped.
    std::vector<std::vector<float>> features;
    const std::size_t width = model.with_collective() ? slowdown::extended_feature_names().size() : slowdown::feature_names().size();
    for (const auto& r : rows) {
      std::vector<float> f = r.features;
      f.resize(width, std::nanf(""));
      features.push_back(std::move(f));
    }
    const auto s = model.predict(features);
    const auto scored = slowdown::score(rows, [&](std::size_t i) { return s[i]; });
    const auto named = o->by_kernel ? slowdown::score_by_name(rows, [&](std::size_t i) { return s[i]; })
                                    : std::vector<slowdown::NamedScores>{};
    if (o->json) {
      nlohmann::ordered_json j{{"model", as_json(scored)}, {"none", as_json(none)}, {"constant", as_json(constant)}};
      if (o->by_kernel) {
        auto& list = j["by_kernel"] = nlohmann::ordered_json::array();
        for (const auto& n : named) {
          nlohmann::ordered_json entry{{"name", n.name}};
          entry.update(as_json(n.scores));
          entry["error_of_total"] = n.error_of_total;
          list.push_back(entry);
        }
      }
      std::cout << j.dump() << "\n";
    } else {
      std::cout << table(scored, none, constant);
      if (o->by_kernel)
        std::cout << by_kernel_table(named);
    }
    (void)eval;
    return 0;
  };
}

} // namespace echo::cli
