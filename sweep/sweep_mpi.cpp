#include "sweep/sweep_mpi.hpp"

#include <mpi.h>

#include <cstdint>
#include <cstdlib>

namespace echo::sweep {

namespace {

constexpr int kResultTag = 1, kWorkTag = 2;
constexpr std::int64_t kNoMoreWork = -1;

// Ends MPI however the sweep ends (an exception on rank 0 included).
struct MpiSession {
  MpiSession() {
    // Points run in forked children that never touch MPI: nothing to warn about.
    ::setenv("OMPI_MCA_mpi_warn_on_fork", "0", 0);
    int initialised = 0;
    MPI_Initialized(&initialised);
    if (!initialised)
      MPI_Init(nullptr, nullptr);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
  }
  ~MpiSession() { MPI_Finalize(); }
  int rank = 0, size = 1;
};

std::string receive_text(int& source) {
  MPI_Status status;
  MPI_Probe(MPI_ANY_SOURCE, kResultTag, MPI_COMM_WORLD, &status);
  int count = 0;
  MPI_Get_count(&status, MPI_CHAR, &count);
  std::string text(static_cast<std::size_t>(count), '\0');
  MPI_Recv(text.data(), count, MPI_CHAR, status.MPI_SOURCE, kResultTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  source = status.MPI_SOURCE;
  return text;
}

} // namespace

std::optional<std::vector<SweepRecord>> run_sweep_mpi(const std::vector<SweepJob>& jobs, const std::set<std::string>& done,
                                                      const std::string& log,
                                                      const std::function<void(const SweepRecord&)>& on_record) {
  MpiSession mpi;
  if (mpi.rank != 0) {
    std::string result;  // empty: the first request
    for (;;) {
      MPI_Send(result.data(), static_cast<int>(result.size()), MPI_CHAR, 0, kResultTag, MPI_COMM_WORLD);
      std::int64_t index = kNoMoreWork;
      MPI_Recv(&index, 1, MPI_INT64_T, 0, kWorkTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      if (index == kNoMoreWork)
        return std::nullopt;
      result = simulate_in_child(jobs[static_cast<std::size_t>(index)]).dump();
    }
  }
  SweepSink sink{log, on_record, {}};
  auto finish = [&](SweepRecord r) { sink.add(std::move(r)); };
  std::vector<std::int64_t> pending;
  for (const SweepJob& job : jobs) {
    if (done.count(job.label))
      continue;
    if (job.job)
      pending.push_back(static_cast<std::int64_t>(job.index));
    else
      finish(simulate_in_child(job));  // rejected by the job file: recorded at once
  }
  std::size_t next = 0;
  for (int active = mpi.size - 1; active > 0;) {
    int source = 0;
    const std::string text = receive_text(source);
    if (!text.empty())
      finish(SweepRecord::parse(text));
    std::int64_t index = kNoMoreWork;
    if (next < pending.size())
      index = pending[next++];
    else
      --active;
    MPI_Send(&index, 1, MPI_INT64_T, source, kWorkTag, MPI_COMM_WORLD);
  }
  return std::move(sink.records);
}

} // namespace echo::sweep
