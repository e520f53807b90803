#pragma once
// The one seam every workload format goes through. A format is an Importer: it turns the files of
// a real run (and its options) into a native trace (proto/trace.proto); the registry knows them by
// name, and the job file (`workload: {<job key>: [...]}`), `echo-des import <name>` and the engine
// all go through it. A new format is one class, one file pair here, one line in the registry.
#include "proto/trace.pb.h"
#include "workloads/workload.hpp"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace echo::workloads {

// Where a workload comes from: a format, its files and the options the format takes (each option
// a list of values: `step: 6` is {"step": {"6"}}).
struct WorkloadSource {
  std::string format;
  std::vector<std::string> files;
  std::map<std::string, std::vector<std::string>> options;

  const std::string* option(const std::string& name) const {
    const auto it = options.find(name);
    return it != options.end() && !it->second.empty() ? &it->second.front() : nullptr;
  }
};

struct Imported {
  trace::Trace trace;
  // The ranks the files traced; the others run a traced rank's program. With `replicate` the
  // traced ranks are one data-parallel replica (workloads/replicate.hpp).
  std::vector<std::uint32_t> traced_ranks;
  std::string summary;  // what was imported, one line ("ProfilerStep#6: 2 ranks, ...")
};

struct ImporterOption {
  std::string name;       // job key and `--name` flag
  std::string help;
  bool list = false;      // takes several values
  bool paths = false;     // its values are files (relative to the job file in a job)
};

class Importer {
public:
  virtual ~Importer() = default;
  virtual std::string name() const = 0;        // the `echo-des import` subcommand
  virtual std::string job_key() const = 0;     // the key of the job's `workload` section
  virtual std::string description() const = 0;
  virtual std::string files_help() const = 0;
  virtual std::string example() const = 0;
  virtual std::vector<ImporterOption> options() const { return {}; }
  // Whether `replicate: {dp: N}` applies (the files describe one replica).
  virtual bool replicable() const { return true; }
  virtual Imported import(const WorkloadSource& source) const = 0;
  // The workload, grown to `replicate_dp` replicas when > 0. By default: import, replicate, build.
  virtual Workload load(const WorkloadSource& source, std::uint32_t replicate_dp) const;
};

class ImporterRegistry {
public:
  // The formats echo-des reads: native traces, Kineto (with PyTorch Execution Traces), Chakra,
  // the Echo tracer's output, the echo-des CUPTI tracer's files.
  static const ImporterRegistry& builtin();
  void add(std::unique_ptr<Importer> importer) { importers_.push_back(std::move(importer)); }
  const Importer* find(const std::string& name) const;
  const Importer* find_by_job_key(const std::string& key) const;
  std::vector<const Importer*> all() const;

private:
  std::vector<std::unique_ptr<Importer>> importers_;
};

// How many ranks a trace maps (its rank ranges added up), for what an import says.
std::uint32_t rank_count(const trace::Trace& trace);

// The workload a source describes (UserError names an unknown format).
Workload load_workload(const WorkloadSource& source, std::uint32_t replicate_dp = 0);

} // namespace echo::workloads
