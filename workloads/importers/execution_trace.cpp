#include "workloads/importers/execution_trace.hpp"

#include "base/user_error.hpp"

#include <nlohmann/json.hpp>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <map>
#include <set>

namespace echo::workloads::kineto {

namespace {

using nlohmann::json;

std::string read_maybe_gzipped(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");
  if (f == nullptr)
    throw UserError(path, 0, "cannot read the PyTorch Execution Trace", "check the path");
  std::string out;
  std::array<char, 1 << 16> buf{};
  int got = 0;
  while ((got = gzread(f, buf.data(), static_cast<unsigned>(buf.size()))) > 0)
    out.append(buf.data(), static_cast<std::size_t>(got));
  int err = 0;
  gzerror(f, &err);
  gzclose(f);
  if (got < 0 || err < 0)
    throw UserError(path, 0, "the compressed PyTorch Execution Trace is damaged", "export it again");
  return out;
}

// obj[key] when obj is an object and that is a string; else empty (a damaged trace is read as far
// as it makes sense, and named where it does not).
std::string text_of(const json& obj, const char* key) {
  if (!obj.is_object())
    return {};
  const auto it = obj.find(key);
  return it != obj.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// A node field: top level (schema 1.0) or in `attrs` as {name, type, value} (schema 1.1).
const json* field(const json& node, const char* name) {
  if (const auto it = node.find(name); it != node.end())
    return &*it;
  if (const auto attrs = node.find("attrs"); attrs != node.end() && attrs->is_array())
    for (const json& a : *attrs)
      if (text_of(a, "name") == name && a.contains("value"))
        return &a.at("value");
  return nullptr;
}

bool known_collective(const std::string& s) {
  static const std::array<const char*, 14> names = {"allreduce", "all_reduce", "allgather", "all_gather", "_allgather_base",
                                                    "reduce_scatter", "_reduce_scatter_base", "reduce_scatter_tensor",
                                                    "all_to_all", "alltoall", "alltoall_base", "broadcast", "send", "recv"};
  return std::any_of(names.begin(), names.end(), [&](const char* n) { return s == n || s.find(n) != std::string::npos; });
}

std::int64_t elements_of(const json& shape) {
  if (!shape.is_array() || shape.empty() || !shape.front().is_number_integer())
    return -1;
  std::int64_t n = 1;
  for (const json& d : shape) {
    const std::int64_t v = d.is_number_integer() ? d.get<std::int64_t>() : 1;
    if (v < 0 || (v > 0 && n > std::numeric_limits<std::int64_t>::max() / v))
      return -1;  // not a tensor's shape
    n *= v;
  }
  return n;
}

// "Tensor(c10::BFloat16)" -> "c10::BFloat16".
std::string tensor_type(const json& t) {
  if (!t.is_string())
    return {};
  const std::string s = t.get<std::string>();
  const auto open = s.find('('), close = s.rfind(')');
  return s.rfind("Tensor", 0) == 0 && open != std::string::npos && close > open ? s.substr(open + 1, close - open - 1) : std::string();
}

EtCollective describe(const json& node) {
  EtCollective c;
  const json* inputs = field(node, "inputs");
  const json* shapes = field(node, "input_shapes");
  const json* types = field(node, "input_types");
  if (inputs != nullptr && inputs->is_array()) {
    const json& in = *inputs;
    for (std::size_t i = 0; i < in.size(); ++i) {
      if (in[i].is_string() && c.collective.empty() && known_collective(in[i].get<std::string>()))
        c.collective = in[i].get<std::string>();
      // The process group: (name, desc) as a list of two strings, or the name alone.
      if (c.group_name.empty() && in[i].is_array() && in[i].size() == 2 && in[i][0].is_string() && in[i][1].is_string())
        c.group_name = in[i][0].get<std::string>();
    }
    // The last three inputs: global rank start, stride and the group's size.
    if (in.size() >= 3 && in[in.size() - 1].is_number_integer() && in[in.size() - 2].is_number_integer() &&
        in[in.size() - 3].is_number_integer()) {
      const auto start = in[in.size() - 3].get<std::int64_t>(), stride = in[in.size() - 2].get<std::int64_t>(),
                 size = in[in.size() - 1].get<std::int64_t>();
      // Ranks are 32-bit: a group reaching past that is not one (and would overflow here).
      if (start >= 0 && stride > 0 && size > 0 && size < (1 << 24) && start < (std::int64_t{1} << 32) &&
          stride < (std::int64_t{1} << 32) && start + (size - 1) * stride < (std::int64_t{1} << 32))
        for (std::int64_t k = 0; k < size; ++k)
          c.ranks.push_back(static_cast<std::uint32_t>(start + k * stride));
    }
  }
  if (shapes != nullptr && shapes->is_array())
    for (std::size_t i = 0; i < shapes->size(); ++i)
      if (const std::int64_t n = elements_of((*shapes)[i]); n >= 0) {
        c.elements = n;
        if (types != nullptr && types->is_array() && i < types->size())
          c.element_type = tensor_type((*types)[i]);
        break;
      }
  return c;
}

// The tensor ids among an op's inputs or outputs: a tensor is [id, storage, offset, numel,
// itemsize, device] where its type says Tensor(...), a list of those where it says a list.
void tensor_ids(const json* values, const json* types, std::vector<std::int64_t>& out) {
  if (values == nullptr || types == nullptr || !values->is_array() || !types->is_array())
    return;
  auto one = [&](const json& t) {
    if (t.is_array() && t.size() >= 6 && t[0].is_number_integer())
      out.push_back(t[0].get<std::int64_t>());
  };
  for (std::size_t i = 0; i < values->size() && i < types->size(); ++i) {
    const std::string type = (*types)[i].is_string() ? (*types)[i].get<std::string>() : std::string();
    if (type.rfind("Tensor(", 0) == 0)
      one((*values)[i]);
    else if (type.find("Tensor") != std::string::npos && (*values)[i].is_array())
      for (const json& t : (*values)[i])
        one(t);
  }
}

// Which ops read a tensor that an op of another thread wrote, in the trace's execution order.
std::vector<EtThreadDependency> thread_dependencies(const json& nodes) {
  struct Op {
    std::int64_t id, rf_id, tid;
    const json* node;
  };
  std::vector<Op> ops;
  for (const json& node : nodes) {
    const json* rf = field(node, "rf_id");
    const json* tid = field(node, "tid");
    if (rf != nullptr && rf->is_number_integer() && tid != nullptr && tid->is_number_integer() && node.contains("id") &&
        node["id"].is_number_integer())
      ops.push_back({node["id"].get<std::int64_t>(), rf->get<std::int64_t>(), tid->get<std::int64_t>(), &node});
  }
  std::sort(ops.begin(), ops.end(), [](const Op& a, const Op& b) { return a.id < b.id; });
  std::map<std::int64_t, std::pair<std::int64_t, std::int64_t>> writer;  // tensor -> (rf_id, tid)
  std::vector<EtThreadDependency> out;
  std::set<std::pair<std::int64_t, std::int64_t>> seen;
  for (const Op& op : ops) {
    std::vector<std::int64_t> in, produced;
    tensor_ids(field(*op.node, "inputs"), field(*op.node, "input_types"), in);
    for (std::int64_t t : in)
      if (const auto w = writer.find(t); w != writer.end() && w->second.second != op.tid && seen.emplace(w->second.first, op.rf_id).second)
        out.push_back({w->second.first, op.rf_id});
    tensor_ids(field(*op.node, "outputs"), field(*op.node, "output_types"), produced);
    for (std::int64_t t : produced)
      writer[t] = {op.rf_id, op.tid};
  }
  return out;
}

ExecutionTrace read_trace_file(const std::string& path);

} // namespace

// The reader checks the fields it relies on; one of another type that it does not name is still
// the file's fault, and said so, never an internal error.
ExecutionTrace read_execution_trace(const std::string& path) {
  try {
    return read_trace_file(path);
  } catch (const json::exception& e) {
    throw UserError(path, 0, std::string("the PyTorch Execution Trace has a field of the wrong type: ") + e.what(),
                    "give the ExecutionTraceObserver's JSON as PyTorch wrote it");
  }
}

namespace {

ExecutionTrace read_trace_file(const std::string& path) {
  json et;
  try {
    et = json::parse(read_maybe_gzipped(path));
  } catch (const json::exception& e) {  // parse_error, and out_of_range for a number past double
    throw UserError(path, 0, std::string("not JSON: ") + e.what(), "give the JSON torch.profiler.ExecutionTraceObserver wrote");
  }
  if (!et.is_object() || !et.contains("nodes") || !et["nodes"].is_array())
    throw UserError(path, 0,
                    et.is_object() && et.contains("traceEvents") ? "this is a Kineto trace, not a PyTorch Execution Trace"
                                                                  : "no `nodes`: not a PyTorch Execution Trace",
                    "give the ExecutionTraceObserver's JSON as `pytorch_et`, the profiler's as `kineto`");
  ExecutionTrace out;
  out.schema = text_of(et, "schema");
  if (out.schema.rfind("1.", 0) != 0)
    throw UserError(path, 0, "PyTorch Execution Trace schema '" + (et.contains("schema") && !et["schema"].is_string() ? et["schema"].dump() : out.schema) +
                                 "' is not read (1.0.x and 1.1.x are)",
                    "export it with PyTorch 2.0 or later");
  for (const json& node : et["nodes"]) {
    ++out.nodes;
    const std::string name = text_of(node, "name");
    if (name != "record_param_comms" && name.rfind("c10d::", 0) != 0 && name.rfind("nccl:", 0) != 0)
      continue;
    const json* rf = field(node, "rf_id");
    if (rf == nullptr || !rf->is_number_integer())
      continue;
    EtCollective c = describe(node);
    if (c.collective.empty() && name.rfind("c10d::", 0) == 0)
      c.collective = name.substr(6);
    out.by_record[rf->get<std::int64_t>()] = std::move(c);
  }
  out.across_threads = thread_dependencies(et["nodes"]);
  return out;
}

} // namespace

} // namespace echo::workloads::kineto
