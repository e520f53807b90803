#pragma once
// Which algorithms and protocols each collective may use, restricted the way NCCL_ALGO and
// NCCL_PROTO restrict NCCL (same syntax, same semantics as NCCL's parser):
//
//   "ring,tree"                     only these, for every function
//   "^LL128"                        everything but these
//   "ring;allreduce:tree,ring"      a default list, then per-function lists ("prefix:list",
//                                   separated by ';'; only the first entry may lack a prefix)
//
// Names and prefixes are case-insensitive; prefixes are NCCL's function names (Broadcast, Reduce,
// AllGather, ReduceScatter, AllReduce). Each entry replaces the whole list of the functions it
// names. Algorithm names beyond NCCL's (a researcher's registered algorithm) are accepted when
// given in `extra_algorithms`; such an algorithm is used only where a list names it explicitly.
#include "collectives/cta_limits.hpp"
#include "collectives/nccl_version.hpp"
#include "collectives/nccl_vocabulary.hpp"
#include "collectives/op.hpp"

#include <array>
#include <set>
#include <string>
#include <vector>

namespace echo::collectives {

class NcclSelection {
public:
  // Throws UserError naming `origin` (e.g. "NCCL_ALGO in the environment") for a bad list.
  void restrict_algorithms(const std::string& list, const std::string& origin,
                           const std::vector<std::string>& extra_algorithms = {});
  void restrict_protocols(const std::string& list, const std::string& origin);
  // The NCCL release: algorithms it does not have are never chosen (nccl_version.hpp).
  void set_nccl_version(NcclVersion version) { version_ = version; }
  NcclVersion nccl_version() const { return version_; }
  // NCCL_MIN_CTAS / NCCL_MAX_CTAS (cta_limits.hpp).
  void set_cta_limits(CtaLimits limits) { ctas_ = limits; }
  const CtaLimits& cta_limits() const { return ctas_; }

  // Ops NCCL has no tuning for (AllToAll, send/recv) are never restricted.
  bool algorithm_enabled(Op op, std::string_view algorithm) const;
  bool protocol_enabled(Op op, Protocol protocol) const;
  // Whether a protocol list names this op's function (NCCL_PROTO given for it). NCCL then takes
  // LL128 as the user's explicit choice and skips the hardware checks that otherwise gate it
  // (tuning.cc: only LL128's default, "2", is checked against the GPUs' and NICs' paths).
  bool protocols_given(Op op) const;
  // Researcher algorithms named for this op, in the order given.
  std::vector<std::string> extra_algorithms_for(Op op) const;

  // The lists as given ("" when unrestricted), for reports.
  const std::string& algorithm_list() const { return algo_text_; }
  const std::string& protocol_list() const { return proto_text_; }

private:
  struct Rule {
    bool given = false;              // a list named this function
    bool exclude = true;             // true: all but `names`; false: only `names`
    std::vector<std::string> names;  // lower case
  };
  using Rules = std::array<Rule, 5>;  // per NCCL function
  static void parse(const std::string& list, const std::string& origin, const std::vector<std::string>& valid,
                    const std::string& what, Rules& rules);
  static bool enabled(const Rules& rules, Op op, std::string_view name);

  Rules algos_, protos_;
  NcclVersion version_ = kNewestNccl;
  CtaLimits ctas_;
  std::string algo_text_, proto_text_;
};

} // namespace echo::collectives
