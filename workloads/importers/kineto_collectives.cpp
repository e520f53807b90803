#include "workloads/importers/kineto_collectives.hpp"

#include "workloads/kernel_category.hpp"

#include "base/user_error.hpp"

#include <algorithm>
#include <filesystem>
#include <cctype>

namespace echo::workloads::kineto {

namespace {

// From a `Collective name` arg or an `nccl:<op>` annotation.
trace::CollectiveOp op_of(const std::string& described) {
  const std::string lower = lowercase(described);
  auto has = [&](const char* a, const char* b) {
    return lower.find(a) != std::string::npos || lower.find(b) != std::string::npos;
  };
  if (has("allreduce", "all_reduce"))
    return trace::ALL_REDUCE;
  if (has("allgather", "all_gather"))
    return trace::ALL_GATHER;
  if (has("reducescatter", "reduce_scatter"))
    return trace::REDUCE_SCATTER;
  if (has("alltoall", "all_to_all"))
    return trace::ALL_TO_ALL;
  if (lower.find("broadcast") != std::string::npos)
    return trace::BROADCAST;
  if (lower.find("reduce") != std::string::npos)
    return trace::REDUCE;
  return trace::OP_UNSPECIFIED;
}

PointToPoint p2p_of(const std::string& described) {
  std::string lower = lowercase(described);
  if (lower.rfind("nccl:", 0) == 0)
    lower = lower.substr(5);
  if (lower == "send")
    return PointToPoint::send;
  if (lower == "recv" || lower == "recv_anysource")
    return PointToPoint::recv;
  return PointToPoint::none;
}

std::vector<std::uint32_t> ranks_of(const std::string& list) {
  std::vector<std::uint32_t> out;
  std::string digits;
  for (char c : list + ",") {
    if (std::isdigit(static_cast<unsigned char>(c)) != 0)
      digits += c;
    else if (!digits.empty()) {
      out.push_back(static_cast<std::uint32_t>(std::stoul(digits)));
      digits.clear();
    }
  }
  return out;
}

std::vector<std::uint32_t> consecutive(std::uint32_t first, std::uint32_t count) {
  std::vector<std::uint32_t> out(count);
  for (std::uint32_t i = 0; i < count; ++i)
    out[i] = first + i;
  return out;
}

std::int64_t member_of(const std::vector<std::uint32_t>& ranks, std::int64_t global) {
  const auto it = std::find(ranks.begin(), ranks.end(), static_cast<std::uint32_t>(std::max<std::int64_t>(0, global)));
  return global >= 0 && it != ranks.end() ? it - ranks.begin() : -1;
}

// The size of the group a c10d all-gather / reduce-scatter ran on, from its output and input
// tensors (`Input Dims` lists the output first); 0 when the op does not tell.
std::int64_t group_size_shown(const CommRange& op) {
  if (op.elements.size() < 2 || op.elements[0] <= 0 || op.elements[1] <= 0)
    return 0;
  const std::string& n = op.name;
  const bool gather = n.find("allgather_base") != std::string::npos || n.find("all_gather_into_tensor") != std::string::npos;
  const bool scatter = n.find("reduce_scatter_base") != std::string::npos || n.find("reduce_scatter_tensor") != std::string::npos;
  const std::int64_t big = gather ? op.elements[0] : op.elements[1], small = gather ? op.elements[1] : op.elements[0];
  if ((!gather && !scatter) || big % small != 0)
    return 0;
  return big / small;
}

} // namespace

CommResolver::CommResolver(const std::string& path, const FileEvents& f, int rank, int world, const ExecutionTrace* et)
    : path_(path), f_(f), rank_(rank), world_(std::max(world, rank + 1)), et_(et) {
  for (const RuntimeCall& c : f.calls)
    call_of_correlation_.emplace(c.correlation, &c);
  for (const CommRange& r : f.comm_ranges) {
    if (r.name.rfind("nccl:", 0) == 0)
      annotations_[r.thread].push_back(&r);
    else if (r.name.rfind("c10d::", 0) == 0)
      c10d_ops_[r.thread].push_back(&r);
    else if (r.name == "record_param_comms")
      param_comms_[r.thread].push_back(&r);
  }
  for (auto* ranges : {&annotations_, &c10d_ops_, &param_comms_})
    for (auto& [thread, list] : *ranges)
      std::stable_sort(list.begin(), list.end(), [](const CommRange* a, const CommRange* b) { return a->start_ns < b->start_ns; });
  // A stream's group size, where a c10d all-gather or reduce-scatter on it shows one.
  for (const GpuEvent& g : f.gpu) {
    if (g.category != "kernel" || !g.collective.empty() || !parse_nccl_kernel_name(g.name).nccl)
      continue;
    if (const CommRange* op = enclosing(c10d_ops_, g.correlation))
      if (const std::int64_t size = group_size_shown(*op); size > 1)
        group_size_of_stream_.emplace(g.stream, size);
  }
}

const CommRange* CommResolver::enclosing(const std::map<std::int64_t, std::vector<const CommRange*>>& ranges,
                                         std::int64_t correlation) const {
  const auto call = call_of_correlation_.find(correlation);
  if (call == call_of_correlation_.end())
    return nullptr;
  const auto on_thread = ranges.find(call->second->thread);
  if (on_thread == ranges.end())
    return nullptr;
  const auto& list = on_thread->second;
  const std::int64_t t = call->second->start_ns;
  auto it = std::upper_bound(list.begin(), list.end(), t, [](std::int64_t x, const CommRange* r) { return x < r->start_ns; });
  // The innermost range holding the launch: ranges of one kind nest only a few deep.
  for (int looked = 0; it != list.begin() && looked < 8; ++looked) {
    --it;
    if ((*it)->end_ns >= t)
      return *it;
  }
  return nullptr;
}

std::optional<CommCall> CommResolver::resolve(const GpuEvent& kernel) {
  return kernel.collective.empty() ? inferred(kernel) : from_process_group_fields(kernel);
}

ElementType CommResolver::element_type_or_note(const std::string& spelling, const std::string& kernel) {
  if (const auto t = element_type(spelling))
    return *t;
  if (const auto t = element_type(parse_nccl_kernel_name(kernel).element_type))
    return *t;
  ++unknown_types_[spelling.empty() ? "(none given)" : spelling];
  return {trace::FLOAT32, 4};
}

std::optional<CommCall> CommResolver::from_process_group_fields(const GpuEvent& g) {
  CommCall c;
  c.op = op_of(g.collective);
  c.p2p = p2p_of(g.collective);
  if (c.op == trace::OP_UNSPECIFIED && c.p2p == PointToPoint::none) {
    ++unknown_op_;
    return std::nullopt;
  }
  c.in_nelems = g.in_nelems;
  c.out_nelems = g.out_nelems;
  c.dtype = element_type_or_note(g.dtype, g.name);
  c.slot = "pg" + (g.group_name.empty() ? std::string("0") : g.group_name);
  c.ranks = ranks_of(g.group_ranks);
  if (c.ranks.empty()) {
    const auto known = f_.group_ranks.find(g.group_name);
    c.ranks = known != f_.group_ranks.end() ? known->second : std::vector<std::uint32_t>{};
  }
  if (c.ranks.empty())
    c.ranks = g.group_size > 0 ? consecutive(0, static_cast<std::uint32_t>(g.group_size)) : consecutive(0, static_cast<std::uint32_t>(world_));
  if (std::find(c.ranks.begin(), c.ranks.end(), static_cast<std::uint32_t>(rank_)) == c.ranks.end())
    throw UserError(path_, 0,
                    "process group " + g.group_name + " does not hold this file's rank " + std::to_string(rank_) +
                        " (its kernel '" + g.name.substr(0, 60) + "' lists ranks " + g.group_ranks + ")",
                    "check that distributedInfo.rank is this file's rank");
  if (c.p2p != PointToPoint::none) {
    c.peer_global = g.p2p_global;
    c.peer_member = member_of(c.ranks, g.p2p_global);
    if (c.peer_member < 0 && g.peer_rank >= 0)
      c.peer_member = g.peer_rank;
    if (c.peer_member < 0) {
      ++unknown_peer_;
      return std::nullopt;
    }
  }
  return c;
}

std::vector<std::uint32_t> CommResolver::inferred_group(std::int64_t stream) {
  const auto shown = group_size_of_stream_.find(stream);
  const auto size = static_cast<std::uint32_t>(shown != group_size_of_stream_.end() ? shown->second : world_);
  const auto first = static_cast<std::uint32_t>(rank_) / size * size;
  auto ranks = consecutive(first, size);
  streams_used_.emplace(stream, ranks);
  return ranks;
}

// record_param_comms says the group and the collective's name, the c10d op around it its tensors:
// each fills in what the other leaves out.
std::optional<EtCollective> CommResolver::from_execution_trace(const GpuEvent& g) const {
  if (et_ == nullptr)
    return std::nullopt;
  std::optional<EtCollective> out;
  for (const auto* ranges : {&param_comms_, &c10d_ops_}) {
    const CommRange* r = enclosing(*ranges, g.correlation);
    const auto it = r != nullptr ? et_->by_record.find(r->record_id) : et_->by_record.end();
    if (it == et_->by_record.end())
      continue;
    const EtCollective& e = it->second;
    if (!out) {
      out = e;
      continue;
    }
    if (out->collective.empty())
      out->collective = e.collective;
    if (out->group_name.empty())
      out->group_name = e.group_name;
    if (out->ranks.empty())
      out->ranks = e.ranks;
    if (out->elements < 0) {
      out->elements = e.elements;
      out->element_type = e.element_type;
    }
  }
  if (out && out->collective.empty())
    return std::nullopt;
  return out;
}

std::optional<CommCall> CommResolver::inferred(const GpuEvent& g) {
  const NcclKernelName spelled = parse_nccl_kernel_name(g.name);
  const CommRange* annotation = enclosing(annotations_, g.correlation);
  const std::optional<EtCollective> et = from_execution_trace(g);
  CommCall c;
  if (annotation != nullptr) {
    c.op = op_of(annotation->name);
    c.p2p = p2p_of(annotation->name);
  }
  if (et && c.op == trace::OP_UNSPECIFIED && c.p2p == PointToPoint::none) {
    c.op = op_of(et->collective);
    c.p2p = p2p_of(et->collective);
  }
  if (c.op == trace::OP_UNSPECIFIED && c.p2p == PointToPoint::none) {
    c.op = spelled.op;
    if (c.op == trace::OP_UNSPECIFIED) {
      ++unknown_op_;
      return std::nullopt;
    }
    ++from_kernel_name_;
  }
  const bool et_group = et && !et->ranks.empty() &&
                        std::find(et->ranks.begin(), et->ranks.end(), static_cast<std::uint32_t>(rank_)) != et->ranks.end();
  if (et_group) {
    ++from_execution_trace_;
    c.slot = "pg" + (et->group_name.empty() ? "-stream-" + std::to_string(g.stream) : et->group_name);
    c.ranks = et->ranks;
  } else {
    ++inferred_;
    c.slot = "nccl-stream-" + std::to_string(g.stream);
    c.ranks = inferred_group(g.stream);
  }
  const auto size = static_cast<std::int64_t>(c.ranks.size());
  const bool annotated = annotation != nullptr && !annotation->elements.empty() && annotation->elements[0] > 0;
  const bool tensors_known = annotated || (et && et->elements > 0);
  const std::string& type = annotated && !annotation->types.empty() ? annotation->types[0]
                            : et && !et->element_type.empty() ? et->element_type
                                                                         : spelled.element_type;
  c.dtype = element_type_or_note(type, g.name);
  if (!tensors_known) {
    ++unknown_size_;
  } else {
    // The annotation (or the Execution Trace's op) holds the tensor this rank handed NCCL: its
    // input, except that a reduce-scatter's input is the whole buffer, an all-gather's the per-rank part.
    const std::int64_t n = annotated ? annotation->elements[0] : et->elements;
    c.in_nelems = n;
    c.out_nelems = c.op == trace::ALL_GATHER ? n * size : c.op == trace::REDUCE_SCATTER ? n / std::max<std::int64_t>(1, size) : n;
  }
  if (c.p2p != PointToPoint::none) {
    ++unknown_peer_;  // PyTorch <= 2.3 does not record a send's or recv's peer
    return std::nullopt;
  }
  return c;
}

std::vector<std::string> CommResolver::notes() const {
  std::vector<std::string> out;
  const std::string file = std::filesystem::path(path_).filename().string();
  if (inferred_ > 0) {
    std::string groups;
    for (const auto& [stream, ranks] : streams_used_)
      groups += (groups.empty() ? "" : ", ") + std::string("stream ") + std::to_string(stream) + ": ranks " +
                std::to_string(ranks.front()) + "-" + std::to_string(ranks.back());
    out.push_back(file + ": " + std::to_string(inferred_) +
                  " NCCL kernels carry no process-group fields (PyTorch <= 2.1); their calls were inferred from the "
                  "nccl:<op> annotations and kernel names, one process group per NCCL stream (" + groups +
                  ", from distributedInfo.world_size " + std::to_string(world_) +
                  " or the c10d op's tensors; a smaller group is taken as consecutive ranks)");
  }
  auto counted = [&](std::uint64_t count, const char* what) {
    if (count > 0)
      out.push_back(file + ": " + std::to_string(count) + what);
  };
  counted(from_execution_trace_, " NCCL kernels carry no process-group fields; their process groups came from the PyTorch Execution Trace");
  counted(from_kernel_name_, " NCCL kernels have no nccl:<op> annotation; their op was read from the kernel name");
  counted(unknown_size_,
          " collectives say no element count (no nccl:<op> annotation with Input Dims); they move 0 bytes in a simulated "
          "replay and keep their traced time with comm: measured");
  counted(unknown_op_, " NCCL kernels name no op that can be told; they replay as kernels with their traced time");
  counted(unknown_peer_,
          " NCCL send / recv kernels do not say their peer (recorded from PyTorch 2.4 on); they replay as kernels with their "
          "traced time, not as transfers");
  for (const auto& [spelling, count] : unknown_types_)
    out.push_back(file + ": element type '" + spelling + "' of " + std::to_string(count) +
                  " collectives is unknown; 4-byte elements assumed");
  return out;
}

} // namespace echo::workloads::kineto
