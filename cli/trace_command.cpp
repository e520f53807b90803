// `echo-des trace -o DIR -- CMD ARGS...`: runs a command under the CUPTI tracer
// (libecho_tracer.so, workloads/tracer/) and merges the files its processes wrote into DIR/trace.pb.
// The command may start several processes (torchrun, mpirun): each traced process writes
// DIR/<host>.<pid>.trace.pb at exit, because the environment that loads the tracer is inherited.
#include "base/user_error.hpp"
#include "cli/commands.hpp"
#include "cli/trace_file.hpp"
#include "workloads/trace_reader.hpp"
#include "workloads/importers/traced_job.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <memory>

namespace echo::cli {

namespace {

namespace fs = std::filesystem;

std::string tracer_library() {
  if (const char* set = std::getenv("ECHO_TRACER_LIBRARY"); set != nullptr && *set != '\0') {
    if (!fs::exists(set))
      throw UserError(set, 0, "ECHO_TRACER_LIBRARY names no file", "point it at libecho_tracer.so, or unset it");
    return fs::absolute(set).string();
  }
  std::error_code ec;
  const fs::path beside = fs::read_symlink("/proc/self/exe", ec).parent_path() / "libecho_tracer.so";
  if (!ec && fs::exists(beside))
    return beside.string();
  throw UserError("", 0, "the CUPTI tracer (libecho_tracer.so) was not built with this echo-des",
                  "build echo-des where the CUDA toolkit with CUPTI and nccl.h is installed (e.g. /usr/local/cuda), "
                  "or set ECHO_TRACER_LIBRARY");
}

// Runs the command with the tracer loaded; returns its exit status.
int run_traced(const std::vector<std::string>& command, const std::string& library, const std::string& dir,
               std::uint64_t max_records) {
  const pid_t child = fork();
  if (child < 0)
    throw UserError("", 0, "cannot start the command (fork failed)", "free some processes or memory and retry");
  if (child == 0) {
    setenv("CUDA_INJECTION64_PATH", library.c_str(), 1);
    const char* preload = std::getenv("LD_PRELOAD");
    const std::string with = preload != nullptr && *preload != '\0' ? library + ":" + preload : library;
    setenv("LD_PRELOAD", with.c_str(), 1);
    setenv("ECHO_TRACE_DIR", dir.c_str(), 1);
    if (max_records > 0)
      setenv("ECHO_TRACE_MAX_RECORDS", std::to_string(max_records).c_str(), 1);
    std::vector<char*> argv;
    for (const std::string& a : command)
      argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execvp(argv[0], argv.data());
    std::cerr << "echo-des trace: cannot run '" << command[0] << "': " << std::strerror(errno) << "\n";
    _exit(127);
  }
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status))
    return WEXITSTATUS(status);
  return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

} // namespace

Action add_trace_command(CLI::App& app) {
  auto out = std::make_shared<std::string>();
  auto command = std::make_shared<std::vector<std::string>>();
  auto max_records = std::make_shared<std::uint64_t>(0);
  CLI::App* cmd = app.add_subcommand("trace", "Run a CUDA / NCCL program under the echo-des CUPTI tracer and write its trace");
  cmd->footer("Example:\n  echo-des trace -o traced -- torchrun --nproc-per-node 8 train.py\n"
              "  then run it: workload: {trace: traced/trace.pb}\n"
              "Bracket one iteration with torch.cuda.profiler.start() / stop() (cudaProfilerStart / Stop) to trace only it.\n"
              "Each traced process writes DIR/<host>.<pid>.trace.pb at exit; `echo-des import tracer DIR` merges them again.");
  cmd->add_option("-o,--out", *out, "Folder for the per-process files and the merged trace.pb")->required();
  cmd->add_option("--max-records", *max_records, "Records each process keeps at most (default 8,000,000); the rest are counted as dropped");
  cmd->add_option("command", *command, "The command to run, after --")->required();
  return [cmd, out, command, max_records]() -> int {
    if (!cmd->parsed())
      return -1;
    const std::string library = tracer_library();
    std::error_code ec;
    fs::create_directories(*out, ec);
    if (ec)
      throw UserError(*out, 0, "cannot create the output folder: " + ec.message(), "pick a writable folder");
    const std::string dir = fs::absolute(*out).string();
    for (const auto& entry : fs::directory_iterator(dir))  // files of an earlier run would be merged too
      if (entry.path().string().ends_with(".trace.pb") || entry.path().string().ends_with(".tmp"))
        fs::remove(entry.path(), ec);
    const int status = run_traced(*command, library, dir, *max_records);
    if (status == 127)
      throw UserError("", 0, "cannot run '" + (*command)[0] + "'", "check the command after `--`");
    if (status != 0)
      throw UserError("", 0, "the traced command failed with exit status " + std::to_string(status),
                      "make the command work without the tracer first; per-process files are in " + dir);
    const trace::Trace job = workloads::read_traced_job(dir);
    const workloads::Workload w = workloads::build_workload(job, dir);
    const std::string merged = dir + "/trace.pb";
    write_trace(job, merged);
    std::uint64_t kernels = 0, nccl = 0;
    for (const auto& t : job.templates())
      for (const auto& task : t.tasks())
        kernels += task.has_compute() && task.category() != trace::HOST, nccl += !task.has_compute();
    std::cout << "traced " << w.rank_count() << " process(es): " << kernels << " GPU kernels / copies, " << nccl
              << " NCCL calls, " << job.communicators_size() << " communicators, measured span "
              << static_cast<double>(job.measured_iteration_ns()) / 1e6 << " ms";
    if (job.dropped_records() > 0)
      std::cout << "; " << job.dropped_records() << " records DROPPED (raise --max-records)";
    std::cout << " -> " << merged << "\n";
    return 0;
  };
}

} // namespace echo::cli
