#include "workloads/importers/chakra_reader.hpp"

#include "workloads/kernel_category.hpp"

#include "base/file_text.hpp"
#include "base/user_error.hpp"
#include "proto/chakra_et.pb.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <algorithm>
#include <map>
#include <optional>
#include <queue>
#include <regex>
#include <set>
#include <unordered_map>

namespace echo::workloads {

namespace {

struct ChakraFile {
  std::string path;
  std::string version;
  std::vector<chakra::Node> nodes;
};

std::string schema_of(const chakra::GlobalMetadata& m) {
  if (!m.version().empty())
    return m.version();
  for (const auto& a : m.attr())
    if (a.name() == "schema")
      return a.string_val();
  return {};
}

// 0.0.4 and 1.0.x share the node layout read here; the schema attribute reads "1.0.2-chakra.0.0.4".
bool supported(const std::string& v) {
  const std::string chakra = v.find("chakra.") != std::string::npos ? v.substr(v.find("chakra.") + 7) : v;
  return chakra == "0.0.4" || chakra.rfind("1.0.", 0) == 0;
}

ChakraFile read_file(const std::string& path) {
  const std::string bytes = read_file_text(path, "Chakra trace", "check the path");
  google::protobuf::io::ArrayInputStream raw(bytes.data(), static_cast<int>(bytes.size()));
  google::protobuf::io::CodedInputStream in(&raw);
  in.SetTotalBytesLimit(std::numeric_limits<int>::max());
  ChakraFile f{path, {}, {}};
  auto next = [&](google::protobuf::MessageLite& message, const char* what) {
    std::uint32_t size = 0;
    const int at = in.CurrentPosition();
    if (!in.ReadVarint32(&size))
      throw UserError(path, 0, std::string("truncated at byte ") + std::to_string(at) + " (inside the size of a " + what + ")",
                      "the file is cut short; copy or convert it again");
    if (static_cast<std::uint64_t>(in.CurrentPosition()) + size > bytes.size())
      throw UserError(path, 0,
                      std::string("truncated: a ") + what + " at byte " + std::to_string(at) + " says it has " + std::to_string(size) +
                          " bytes, but the file ends before",
                      "the file is cut short; copy or convert it again");
    const auto limit = in.PushLimit(static_cast<int>(size));
    if (!message.ParseFromCodedStream(&in) || !in.ConsumedEntireMessage())
      throw UserError(path, 0, std::string("not a Chakra execution trace: the ") + what + " at byte " + std::to_string(at) +
                                   " does not parse",
                      "give a Chakra .et file (size-delimited protobuf messages of et_def.proto)");
    in.PopLimit(limit);
  };
  if (bytes.empty())
    throw UserError(path, 0, "the Chakra trace is empty", "give a Chakra .et file");
  chakra::GlobalMetadata meta;
  next(meta, "global metadata");
  f.version = schema_of(meta);
  if (f.version.empty())
    throw UserError(path, 0, "the file does not say its Chakra schema version (no GlobalMetadata version or `schema`)",
                    "convert the trace with Chakra 0.0.4 or 1.0 (chakra_converter), which writes it");
  if (!supported(f.version))
    throw UserError(path, 0, "Chakra schema version '" + f.version + "' is not supported (0.0.4 and 1.0.x are)",
                    "convert the trace again with Chakra 0.0.4 or 1.0 (chakra_converter)");
  while (in.CurrentPosition() < static_cast<int>(bytes.size())) {
    chakra::Node node;
    next(node, "node");
    f.nodes.push_back(std::move(node));
  }
  return f;
}

const chakra::Attribute* attribute(const chakra::Node& n, const char* name) {
  for (const auto& a : n.attr())
    if (a.name() == name)
      return &a;
  return nullptr;
}

std::optional<std::int64_t> integer(const chakra::Node& n, const char* name) {
  const chakra::Attribute* a = attribute(n, name);
  if (a == nullptr)
    return std::nullopt;
  switch (a->value_case()) {
  case chakra::Attribute::kInt32Val: return a->int32_val();
  case chakra::Attribute::kInt64Val: return a->int64_val();
  case chakra::Attribute::kUint32Val: return a->uint32_val();
  case chakra::Attribute::kUint64Val: return static_cast<std::int64_t>(a->uint64_val());
  case chakra::Attribute::kSint32Val: return a->sint32_val();
  case chakra::Attribute::kSint64Val: return a->sint64_val();
  case chakra::Attribute::kBoolVal: return a->bool_val() ? 1 : 0;
  case chakra::Attribute::kDoubleVal: return static_cast<std::int64_t>(a->double_val());
  default: return std::nullopt;
  }
}

std::string text(const chakra::Node& n, const char* name) {
  const chakra::Attribute* a = attribute(n, name);
  return a != nullptr && a->value_case() == chakra::Attribute::kStringVal ? a->string_val() : std::string();
}

std::string node_label(const chakra::Node& n) { return "node " + std::to_string(n.id()) + " ('" + n.name() + "')"; }

std::int64_t required(const ChakraFile& f, const chakra::Node& n, const char* name, const char* why) {
  const auto v = integer(n, name);
  if (!v || *v < 0)
    throw UserError(f.path, 0, node_label(n) + " has no `" + name + "` attribute (" + why + ")",
                    "convert the trace with a Chakra version that records it");
  return *v;
}

trace::CollectiveOp collective_op(const ChakraFile& f, const chakra::Node& n, std::int64_t type) {
  switch (type) {
  case chakra::ALL_REDUCE: return trace::ALL_REDUCE;
  case chakra::REDUCE: return trace::REDUCE;
  case chakra::ALL_GATHER: return trace::ALL_GATHER;
  case chakra::BROADCAST: return trace::BROADCAST;
  case chakra::ALL_TO_ALL: return trace::ALL_TO_ALL;
  case chakra::REDUCE_SCATTER:
  case chakra::REDUCE_SCATTER_BLOCK: return trace::REDUCE_SCATTER;
  case chakra::BARRIER: return trace::ALL_REDUCE;  // as PyTorch runs it on NCCL: a one-element AllReduce
  default: break;
  }
  throw UserError(f.path, 0, node_label(n) + ": collective type " + std::to_string(type) +
                                 (type == chakra::GATHER || type == chakra::SCATTER ? " (Gather / Scatter)" : "") + " is not modelled",
                  "echo-des models AllReduce, Reduce, AllGather, ReduceScatter, Broadcast, AllToAll and Barrier");
}

// The trace's rank in a name such as `llama.3.et`, if it has one.
std::optional<std::uint32_t> rank_in_name(const std::string& path) {
  static const std::regex pattern(R"(\.(\d+)\.et$)");
  std::smatch m;
  const std::string name = path.substr(path.find_last_of('/') + 1);
  if (std::regex_search(name, m, pattern))
    return static_cast<std::uint32_t>(std::stoul(m[1].str()));
  return std::nullopt;
}

std::string slot_of(const chakra::Node& n) {
  const std::string pg = text(n, "pg_name");
  return pg.empty() ? "world" : "pg" + pg;
}

// Dependency order: a node comes after everything it depends on; start time, then id, break ties.
std::vector<const chakra::Node*> dependency_order(const ChakraFile& f) {
  std::unordered_map<std::uint64_t, const chakra::Node*> by_id;
  for (const auto& n : f.nodes)
    if (!by_id.emplace(n.id(), &n).second)
      throw UserError(f.path, 0, "two nodes have id " + std::to_string(n.id()), "give each node its own id");
  std::unordered_map<std::uint64_t, std::vector<std::uint64_t>> dependents;
  std::unordered_map<std::uint64_t, std::size_t> waiting;
  for (const auto& n : f.nodes) {
    std::set<std::uint64_t> deps(n.ctrl_deps().begin(), n.ctrl_deps().end());
    deps.insert(n.data_deps().begin(), n.data_deps().end());
    for (std::uint64_t d : deps) {
      if (!by_id.count(d))
        throw UserError(f.path, 0, node_label(n) + " depends on node " + std::to_string(d) + ", which is not in the file",
                        "give the whole trace of the rank (a Chakra trace must be closed under its dependencies)");
      dependents[d].push_back(n.id());
    }
    waiting[n.id()] = deps.size();
  }
  auto later = [](const chakra::Node* a, const chakra::Node* b) {
    return std::make_pair(a->start_time_micros(), a->id()) > std::make_pair(b->start_time_micros(), b->id());
  };
  std::priority_queue<const chakra::Node*, std::vector<const chakra::Node*>, decltype(later)> ready(later);
  for (const auto& n : f.nodes)
    if (waiting[n.id()] == 0)
      ready.push(&n);
  std::vector<const chakra::Node*> order;
  while (!ready.empty()) {
    const chakra::Node* n = ready.top();
    ready.pop();
    order.push_back(n);
    for (std::uint64_t d : dependents[n->id()])
      if (--waiting[d] == 0)
        ready.push(by_id[d]);
  }
  // Nodes on a cycle are left: appended in id order, the trace checks name the cycle.
  if (order.size() < f.nodes.size())
    for (const auto& n : f.nodes)
      if (waiting[n.id()] > 0)
        order.push_back(&n);
  return order;
}

} // namespace

ChakraImport read_chakra(const std::vector<std::string>& paths) {
  ChakraImport result;
  std::vector<ChakraFile> files;
  for (const std::string& p : paths)
    files.push_back(read_file(p));
  // Ranks: from the names when every file has a distinct one, else the list's order.
  std::vector<std::uint32_t> rank(files.size());
  std::set<std::uint32_t> named;
  for (std::size_t i = 0; i < files.size(); ++i)
    if (const auto r = rank_in_name(files[i].path))
      named.insert(rank[i] = *r);
  if (named.size() != files.size() || *named.rbegin() != files.size() - 1)
    for (std::size_t i = 0; i < files.size(); ++i)
      rank[i] = static_cast<std::uint32_t>(i);

  trace::Trace& t = result.trace;
  t.set_name("chakra");
  std::map<std::string, std::set<std::uint32_t>> members;  // communicator slot -> ranks
  for (std::size_t i = 0; i < files.size(); ++i) {
    const ChakraFile& f = files[i];
    result.version = f.version;
    trace::RankTemplate& tmpl = *t.add_templates();
    tmpl.set_name("rank" + std::to_string(rank[i]));
    std::map<std::string, std::uint32_t> streams;
    auto stream = [&](const std::string& name) {
      const auto [it, fresh] = streams.emplace(name, static_cast<std::uint32_t>(tmpl.streams_size()));
      if (fresh)
        tmpl.add_streams(name);
      return it->second;
    };
    for (const chakra::Node* n : dependency_order(f)) {
      trace::Task& task = *tmpl.add_tasks();
      task.set_id(n->id() + 1);  // trace ids start at 1 by convention; Chakra's may be 0
      task.set_name(n->name());
      std::set<std::uint64_t> deps(n->ctrl_deps().begin(), n->ctrl_deps().end());
      deps.insert(n->data_deps().begin(), n->data_deps().end());
      for (std::uint64_t d : deps)
        task.add_deps(d + 1);
      const std::uint64_t duration_ns = n->duration_micros() * 1000;
      const auto on_stream = integer(*n, "stream");
      const bool cpu = integer(*n, "is_cpu_op").value_or(0) != 0;
      switch (n->type()) {
      case chakra::COMP_NODE:
        task.set_stream(stream(cpu ? "host" : on_stream ? "stream " + std::to_string(*on_stream) : "compute"));
        task.set_category(cpu ? trace::HOST : kernel_category(n->name()));
        task.mutable_compute()->set_duration_ns(duration_ns);
        ++(cpu ? result.host : result.compute);
        break;
      case chakra::COMM_COLL_NODE: {
        const trace::CollectiveOp op = collective_op(f, *n, required(f, *n, "comm_type", "which collective it is"));
        const std::string slot = slot_of(*n);
        task.set_stream(stream(on_stream ? "stream " + std::to_string(*on_stream) : "comm " + slot));
        task.set_category(trace::COMMUNICATION);
        auto& c = *task.mutable_collective();
        c.set_op(op);
        c.set_comm(slot);
        c.set_bytes(static_cast<std::uint64_t>(required(f, *n, "comm_size", "its size in bytes")));
        c.set_measured_duration_ns(duration_ns);
        members[slot].insert(rank[i]);
        ++result.collectives;
        break;
      }
      case chakra::COMM_SEND_NODE:
      case chakra::COMM_RECV_NODE: {
        const bool send = n->type() == chakra::COMM_SEND_NODE;
        const auto peer = required(f, *n, send ? "comm_dst" : "comm_src", send ? "the rank it sends to" : "the rank it receives from");
        const auto size = integer(*n, "comm_size") ? integer(*n, "comm_size") : integer(*n, "tensor_size");
        if (!size)
          throw UserError(f.path, 0, node_label(*n) + " has no `comm_size` attribute (its size in bytes)",
                          "convert the trace with a Chakra version that records it");
        if (static_cast<std::uint64_t>(peer) >= files.size())
          throw UserError(f.path, 0, node_label(*n) + " names rank " + std::to_string(peer) + ", but " +
                                         std::to_string(files.size()) + " rank file(s) were given",
                          "give one file per rank of the job");
        task.set_stream(stream(on_stream ? "stream " + std::to_string(*on_stream) : send ? "send" : "recv"));
        task.set_category(trace::COMMUNICATION);
        auto& p = send ? *task.mutable_send() : *task.mutable_recv();
        p.set_comm("world");
        p.set_peer(static_cast<std::uint32_t>(peer));
        p.set_bytes(static_cast<std::uint64_t>(*size));
        // ASTRA-sim's semantics: a send does not wait for its peer's recv to be posted.
        p.set_eager(send);
        ++result.transfers;
        break;
      }
      case chakra::MEM_LOAD_NODE:
      case chakra::MEM_STORE_NODE:
        task.set_stream(stream("memory"));
        task.set_category(trace::MEMCPY);
        task.mutable_compute()->set_duration_ns(duration_ns);
        ++result.other;
        break;
      default:  // metadata: an empty step that keeps the dependencies through it
        task.set_stream(stream("host"));
        task.set_category(trace::HOST);
        task.mutable_compute()->set_duration_ns(0);
        ++result.other;
        break;
      }
    }
    trace::RankRange& range = *t.add_ranks();
    range.set_first(rank[i]);
    range.set_template_name(tmpl.name());
  }
  for (const auto& [slot, ranks] : members) {
    if (slot == "world")
      continue;  // every rank in rank order, without a declaration
    trace::Communicator& c = *t.add_communicators();
    c.set_name(slot);
    c.set_slot(slot);
    for (std::uint32_t r : ranks)
      c.add_ranks(r);
  }
  return result;
}

} // namespace echo::workloads
