#include "workloads/importers/traced_job.hpp"

#include "base/user_error.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

namespace echo::workloads {

namespace {

// Global rank per file, by the rule in the header.
std::vector<std::uint32_t> global_ranks(const std::vector<TracedProcessFile>& files) {
  const std::size_t n = files.size();
  std::vector<std::uint32_t> rank(n);
  bool launcher = true;
  std::set<std::int32_t> distinct;
  for (const auto& f : files) {
    launcher = launcher && f.trace.process().launcher_rank() >= 0;
    distinct.insert(f.trace.process().launcher_rank());
  }
  if (launcher && distinct.size() == n && static_cast<std::size_t>(*distinct.rbegin()) == n - 1) {
    for (std::size_t i = 0; i < n; ++i)
      rank[i] = static_cast<std::uint32_t>(files[i].trace.process().launcher_rank());
    return rank;
  }
  // A communicator every process joined, with as many members as there are processes.
  std::map<std::string, std::vector<std::pair<std::size_t, std::uint32_t>>> members;  // id -> (file, rank)
  for (std::size_t i = 0; i < n; ++i)
    for (const auto& m : files[i].trace.process().comms())
      if (m.size() == n)
        members[m.id()].push_back({i, m.rank()});
  for (const auto& [id, list] : members) {
    if (list.size() != n)
      continue;
    for (const auto& [file, r] : list)
      rank[file] = r;
    return rank;
  }
  for (std::size_t i = 0; i < n; ++i)
    rank[i] = static_cast<std::uint32_t>(i);
  return rank;
}

} // namespace

trace::Trace merge_process_traces(std::vector<TracedProcessFile> files) {
  if (files.empty())
    throw UserError("", 0, "no traced process to merge", "run the program under `echo-des trace -o DIR -- ...` first");
  for (const auto& f : files) {
    if (!f.trace.has_process())
      throw UserError(f.path, 0, "not a per-process file of the echo-des tracer (it has no `process` section)",
                      "merge only the <host>.<pid>.trace.pb files `echo-des trace` wrote");
    if (f.trace.templates_size() != 1)
      throw UserError(f.path, 0, "a per-process file must hold one rank template", "give the tracer's own files");
  }
  std::stable_sort(files.begin(), files.end(), [](const TracedProcessFile& a, const TracedProcessFile& b) {
    return std::make_pair(a.trace.process().host(), a.trace.process().pid()) <
           std::make_pair(b.trace.process().host(), b.trace.process().pid());
  });
  const std::vector<std::uint32_t> rank = global_ranks(files);
  std::vector<int> file_of_rank(files.size(), -1);
  for (std::size_t i = 0; i < files.size(); ++i) {
    if (rank[i] >= files.size() || file_of_rank[rank[i]] >= 0)
      throw UserError(files[i].path, 0, "two traced processes claim rank " + std::to_string(rank[i]),
                      "give each process its own RANK in the launcher, or trace each process once");
    file_of_rank[rank[i]] = static_cast<int>(i);
  }

  trace::Trace job;
  job.set_name("cupti");
  std::map<std::string, std::vector<std::pair<std::uint32_t, std::uint32_t>>> members;  // id -> (comm rank, global)
  std::map<std::string, std::uint32_t> size_of;
  std::map<std::string, std::string> first_file;
  for (std::uint32_t r = 0; r < files.size(); ++r) {
    const TracedProcessFile& f = files[static_cast<std::size_t>(file_of_rank[r])];
    trace::RankTemplate& tmpl = *job.add_templates();
    tmpl = f.trace.templates(0);
    tmpl.set_name("rank" + std::to_string(r));
    trace::RankRange& range = *job.add_ranks();
    range.set_first(r);
    range.set_count(1);
    range.set_template_name(tmpl.name());
    job.set_measured_iteration_ns(std::max(job.measured_iteration_ns(), f.trace.measured_iteration_ns()));
    job.set_dropped_records(job.dropped_records() + f.trace.dropped_records());
    for (const auto& m : f.trace.process().comms()) {
      const auto [it, fresh] = size_of.emplace(m.id(), m.size());
      if (!fresh && it->second != m.size())
        throw UserError(f.path, 0,
                        "communicator " + m.id() + " has " + std::to_string(m.size()) + " members here but " +
                            std::to_string(it->second) + " in " + first_file[m.id()],
                        "merge files of one run only");
      first_file.emplace(m.id(), f.path);
      members[m.id()].push_back({m.rank(), r});
    }
  }
  for (auto& [id, list] : members) {
    std::sort(list.begin(), list.end());
    std::vector<std::uint32_t> missing;
    for (std::uint32_t member = 0, k = 0; member < size_of[id]; ++member) {
      if (k < list.size() && list[k].first == member) {
        ++k;
        if (k < list.size() && list[k].first == member)
          throw UserError(first_file[id], 0, "two traced processes are rank " + std::to_string(member) + " of communicator " + id,
                          "merge files of one run only");
      } else {
        missing.push_back(member);
      }
    }
    if (!missing.empty()) {
      std::string names;
      for (std::size_t i = 0; i < missing.size() && i < 8; ++i)
        names += (i ? ", " : "") + std::to_string(missing[i]);
      if (missing.size() > 8)
        names += ", ...";
      throw UserError(first_file[id], 0,
                      "communicator " + id + " has " + std::to_string(size_of[id]) + " members, but member(s) " + names +
                          " were not traced",
                      "trace every process of the job into the same folder (one file per process)");
    }
    trace::Communicator& c = *job.add_communicators();
    c.set_name(id);
    c.set_slot(id);
    for (const auto& [member, global] : list)
      c.add_ranks(global);
  }
  return job;
}

trace::Trace read_traced_job(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw UserError(dir, 0, "not a folder of traced processes", "give the folder `echo-des trace -o DIR` wrote");
  std::vector<std::string> paths;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.size() > 9 && name.compare(name.size() - 9, 9, ".trace.pb") == 0)
      paths.push_back(entry.path().string());
  }
  std::sort(paths.begin(), paths.end());
  if (paths.empty())
    throw UserError(dir, 0, "the folder holds no <host>.<pid>.trace.pb file",
                    "the traced command wrote none: did it use CUDA or NCCL, and did it exit normally?");
  std::vector<TracedProcessFile> files;
  for (const std::string& p : paths) {
    std::ifstream in(p, std::ios::binary);
    TracedProcessFile f{p, {}};
    if (!in || !f.trace.ParseFromIstream(&in))
      throw UserError(p, 0, "not a readable trace file (truncated or not protobuf)",
                      "trace again; a process killed while writing leaves a .tmp file, never a damaged .trace.pb");
    files.push_back(std::move(f));
  }
  return merge_process_traces(std::move(files));
}

} // namespace echo::workloads
