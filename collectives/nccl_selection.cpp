#include "collectives/nccl_selection.hpp"

#include "base/user_error.hpp"

#include <algorithm>
#include <cctype>
#include <optional>
#include <sstream>

namespace echo::collectives {

namespace {

constexpr std::array<std::string_view, 5> kFunctions = {"Broadcast", "Reduce", "AllGather", "ReduceScatter",
                                                        "AllReduce"};

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

std::optional<std::size_t> function_index(Op op) {
  switch (op) {
  case Op::broadcast: return 0;
  case Op::reduce: return 1;
  case Op::all_gather: return 2;
  case Op::reduce_scatter: return 3;
  case Op::all_reduce: return 4;
  default: return std::nullopt;
  }
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, sep))
    out.push_back(item);
  return out;
}

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names)
    out += (out.empty() ? "" : ", ") + n;
  return out;
}

} // namespace

void NcclSelection::parse(const std::string& list, const std::string& origin, const std::vector<std::string>& valid,
                          const std::string& what, Rules& rules) {
  const auto entries = split(list, ';');
  if (entries.empty())
    throw UserError(origin, 0, "empty " + what + " list", "give e.g. \"ring,tree\" or \"^LL128\"");
  for (std::size_t i = 0; i < entries.size(); ++i) {
    std::string entry = entries[i];
    std::string prefix;
    if (auto colon = entry.find(':'); colon != std::string::npos) {
      prefix = entry.substr(0, colon);
      entry = entry.substr(colon + 1);
    } else if (i != 0) {
      throw UserError(origin, 0, "in '" + list + "', every entry after the first needs a function prefix",
                      "write e.g. \"ring;allreduce:tree\" (prefixes: " +
                          joined(std::vector<std::string>(kFunctions.begin(), kFunctions.end())) + ")");
    }
    Rule rule;
    rule.given = true;
    if (!entry.empty() && entry.front() == '^') {
      rule.exclude = true;
      entry.erase(0, 1);
    } else {
      rule.exclude = false;
    }
    for (const std::string& name : split(entry, ',')) {
      const bool known = std::any_of(valid.begin(), valid.end(), [&](const std::string& v) { return lower(v) == lower(name); });
      if (!known)
        throw UserError(origin, 0, "unknown " + what + " '" + name + "' in '" + list + "'", "use: " + joined(valid));
      rule.names.push_back(lower(name));
    }
    bool matched = false;
    for (std::size_t f = 0; f < kFunctions.size(); ++f)
      if (prefix.empty() || lower(prefix) == lower(kFunctions[f])) {
        rules[f] = rule;
        matched = true;
      }
    if (!matched)
      throw UserError(origin, 0, "unknown function '" + prefix + "' in '" + list + "'",
                      "prefixes are NCCL's function names: " +
                          joined(std::vector<std::string>(kFunctions.begin(), kFunctions.end())));
  }
}

void NcclSelection::restrict_algorithms(const std::string& list, const std::string& origin,
                                        const std::vector<std::string>& extra_algorithms) {
  std::vector<std::string> valid;
  for (NcclAlgo a : kNcclAlgos)
    valid.emplace_back(to_string(a));
  // The registry's algorithms include NCCL's own (ring, tree, ...): list each name once.
  for (const std::string& extra : extra_algorithms)
    if (std::none_of(valid.begin(), valid.end(), [&](const std::string& v) { return lower(v) == lower(extra); }))
      valid.push_back(extra);
  parse(list, origin, valid, "algorithm", algos_);
  algo_text_ = list;
}

void NcclSelection::restrict_protocols(const std::string& list, const std::string& origin) {
  std::vector<std::string> valid;
  for (Protocol p : kProtocols)
    valid.emplace_back(to_string(p));
  parse(list, origin, valid, "protocol", protos_);
  proto_text_ = list;
}

bool NcclSelection::enabled(const Rules& rules, Op op, std::string_view name) {
  const auto f = function_index(op);
  if (!f)
    return true;
  const Rule& r = rules[*f];
  const bool listed = std::find(r.names.begin(), r.names.end(), lower(name)) != r.names.end();
  return r.exclude ? !listed : listed;
}

bool NcclSelection::algorithm_enabled(Op op, std::string_view algorithm) const {
  return enabled(algos_, op, algorithm);
}

bool NcclSelection::protocol_enabled(Op op, Protocol protocol) const { return enabled(protos_, op, to_string(protocol)); }

bool NcclSelection::protocols_given(Op op) const {
  const auto f = function_index(op);
  return f && protos_[*f].given;
}

std::vector<std::string> NcclSelection::extra_algorithms_for(Op op) const {
  const auto f = function_index(op);
  std::vector<std::string> out;
  if (!f || algos_[*f].exclude)
    return out;
  for (const auto& name : algos_[*f].names)
    if (!nccl_algo_from_string(name))
      out.push_back(name);
  return out;
}

} // namespace echo::collectives
