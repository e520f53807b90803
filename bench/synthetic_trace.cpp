// Writes the synthetic benchmark trace: R ranks that each run T tasks on one stream — compute
// kernels, with an AllReduce every K-th task inside groups of G ranks. One template serves all
// ranks, as the flyweight design intends.
//
//   echo-bench-trace RANKS TASKS GROUP EVERY OUT.pb
#include "proto/trace.pb.h"

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>

int main(int argc, char** argv) {
  if (argc != 6) {
    std::cerr << "usage: echo-bench-trace RANKS TASKS GROUP EVERY OUT.pb\n";
    return 2;
  }
  const std::uint32_t ranks = std::stoul(argv[1]), tasks = std::stoul(argv[2]), group = std::stoul(argv[3]),
                      every = std::stoul(argv[4]);
  if (ranks == 0 || group == 0 || ranks % group != 0 || every == 0) {
    std::cerr << "echo-bench-trace: RANKS must be a positive multiple of GROUP, EVERY positive\n";
    return 2;
  }
  echo::trace::Trace trace;
  trace.set_name("synthetic-" + std::to_string(ranks) + "x" + std::to_string(tasks));
  auto* tmpl = trace.add_templates();
  tmpl->set_name("rank");
  tmpl->add_streams("gpu");
  for (std::uint32_t i = 0; i < tasks; ++i) {
    auto* t = tmpl->add_tasks();
    t->set_id(i);
    t->set_stream(0);
    if ((i + 1) % every == 0) {
      t->set_name("allreduce");
      auto* c = t->mutable_collective();
      c->set_op(echo::trace::ALL_REDUCE);
      c->set_comm("group");
      c->set_bytes(16u << 20);
      c->set_dtype(echo::trace::BFLOAT16);
    } else {
      t->set_name("kernel");
      t->set_category(echo::trace::GEMM);
      // Durations vary a little from kernel to kernel, as real ones do.
      t->mutable_compute()->set_duration_ns(20000 + (i * 7919) % 10000);
    }
  }
  for (std::uint32_t g = 0; g < ranks / group; ++g) {
    auto* c = trace.add_communicators();
    c->set_name("group." + std::to_string(g));
    c->set_slot("group");
    for (std::uint32_t m = 0; m < group; ++m)
      c->add_ranks(g * group + m);
  }
  auto* range = trace.add_ranks();
  range->set_first(0);
  range->set_count(ranks);
  range->set_template_name("rank");
  std::ofstream out(argv[5], std::ios::binary);
  if (!trace.SerializeToOstream(&out)) {
    std::cerr << "echo-bench-trace: cannot write " << argv[5] << "\n";
    return 2;
  }
  return 0;
}
