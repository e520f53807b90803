// `echo-des import chakra`: Chakra execution traces written here with the schema's field numbers
// (proto/chakra_et.proto), size-delimited as Chakra writes them.
#include "support/cli_runner.hpp"

#include "proto/chakra_et.pb.h"
#include "proto/trace.pb.h"

#include <doctest/doctest.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/text_format.h>
#include <nlohmann/json.hpp>

#include <random>

using namespace echo;
using namespace echo::test;

namespace {

std::string delimited(const std::vector<const google::protobuf::MessageLite*>& messages) {
  std::string out;
  {
    google::protobuf::io::StringOutputStream raw(&out);
    google::protobuf::io::CodedOutputStream coded(&raw);
    for (const auto* m : messages) {
      coded.WriteVarint32(static_cast<std::uint32_t>(m->ByteSizeLong()));
      m->SerializeToCodedStream(&coded);
    }
  }
  return out;
}

chakra::Node node(std::uint64_t id, const std::string& name, chakra::NodeType type, std::uint64_t duration_us,
                  std::vector<std::uint64_t> deps = {}) {
  chakra::Node n;
  n.set_id(id);
  n.set_name(name);
  n.set_type(type);
  n.set_duration_micros(duration_us);
  for (auto d : deps)
    n.add_data_deps(d);
  return n;
}

void attr(chakra::Node& n, const std::string& name, std::int64_t v) {
  auto& a = *n.add_attr();
  a.set_name(name);
  a.set_int64_val(v);
}

void text_attr(chakra::Node& n, const std::string& name, const std::string& v) {
  auto& a = *n.add_attr();
  a.set_name(name);
  a.set_string_val(v);
}

// One rank of a two-rank job: a kernel, an AllReduce on process group "0" that needs it, host time,
// and a send to / recv from the other rank.
std::string rank_file(int rank, const std::string& version = "1.0.0", std::int64_t comm_type = 0) {
  chakra::GlobalMetadata meta;
  meta.set_version(version);
  chakra::Node gemm = node(0, "ampere_sgemm_128x64_nn", chakra::COMP_NODE, 100);
  attr(gemm, "stream", 7);
  chakra::Node ar = node(1, "ncclDevKernel_AllReduce", chakra::COMM_COLL_NODE, 40, {0});
  attr(ar, "comm_type", comm_type);
  attr(ar, "comm_size", 8 << 20);
  text_attr(ar, "pg_name", "0");
  chakra::Node cpu = node(2, "aten::add", chakra::COMP_NODE, 5);
  auto& flag = *cpu.add_attr();
  flag.set_name("is_cpu_op");
  flag.set_bool_val(true);
  chakra::Node send = node(3, "send", chakra::COMM_SEND_NODE, 0, {1});
  attr(send, "comm_dst", 1 - rank);
  attr(send, "comm_size", 4096);
  chakra::Node recv = node(4, "recv", chakra::COMM_RECV_NODE, 0, {1});
  attr(recv, "comm_src", 1 - rank);
  attr(recv, "comm_size", 4096);
  chakra::Node meta_node = node(5, "marker", chakra::METADATA_NODE, 0, {3, 4});
  return delimited({&meta, &gemm, &ar, &cpu, &send, &recv, &meta_node});
}

trace::Trace read_text(const std::string& path) {
  trace::Trace t;
  REQUIRE(google::protobuf::TextFormat::ParseFromString(slurp(path), &t));
  return t;
}

} // namespace

TEST_CASE("a Chakra trace becomes kernels, host time, collectives on their process group, and transfers") {
  TempDir dir;
  const std::string r0 = dir.file("job.0.et", rank_file(0)), r1 = dir.file("job.1.et", rank_file(1));
  const auto r = run_cli("import chakra " + r1 + " " + r0 + " -o " + (dir / "t.pbtxt"));  // ranks from the names
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(r.out.find("imported Chakra 1.0.0: 2 ranks, 2 GPU kernels, 2 CPU ops, 2 collectives, 4 sends / recvs") != std::string::npos);
  const trace::Trace t = read_text(dir / "t.pbtxt");
  REQUIRE(t.templates_size() == 2);
  CHECK(t.ranks(0).template_name() == "rank1");
  const auto& tmpl = t.templates(1);
  CHECK(tmpl.name() == "rank0");
  std::map<std::string, const trace::Task*> by_name;
  for (const auto& task : tmpl.tasks())
    by_name[task.name()] = &task;
  const auto& gemm = *by_name.at("ampere_sgemm_128x64_nn");
  CHECK(gemm.category() == trace::GEMM);
  CHECK(gemm.compute().duration_ns() == 100'000);
  CHECK(tmpl.streams(gemm.stream()) == "stream 7");
  const auto& ar = *by_name.at("ncclDevKernel_AllReduce");
  CHECK(ar.collective().op() == trace::ALL_REDUCE);
  CHECK(ar.collective().bytes() == 8u << 20);
  CHECK(ar.collective().comm() == "pg0");
  CHECK(ar.collective().measured_duration_ns() == 40'000);
  CHECK(std::vector<std::uint64_t>(ar.deps().begin(), ar.deps().end()) == std::vector<std::uint64_t>{gemm.id()});
  CHECK(by_name.at("aten::add")->category() == trace::HOST);
  CHECK(by_name.at("send")->send().peer() == 1);
  CHECK(by_name.at("recv")->recv().peer() == 1);
  CHECK(by_name.at("marker")->deps_size() == 2);
  REQUIRE(t.communicators_size() == 1);
  CHECK(t.communicators(0).ranks_size() == 2);

  // A job names the files directly; the same job, and the clear mistakes.
  const auto direct = run_cli("run " + dir.file("direct.yaml", "platform: {preset: dgx-a100, nodes: 1}\nworkload: {chakra: [job.0.et, job.1.et], comm: measured}\n") +
                              " --json -q");
  INFO(direct.err);
  REQUIRE(direct.code == 0);
  const auto rep = run_cli("run " + dir.file("rep.yaml", "platform: {preset: dgx-a100, nodes: 1}\nworkload: {chakra: [job.0.et], replicate: {dp: 2}}\n") + " -q");
  CHECK(rep.code == 2);
  CHECK(rep.err.find("`replicate` does not apply to `chakra` workloads") != std::string::npos);
  const auto both = run_cli("run " + dir.file("both.yaml", "platform: {preset: dgx-a100, nodes: 1}\nworkload: {chakra: [job.0.et], kineto: [x.json]}\n") + " -q");
  CHECK(both.code == 2);
  CHECK(both.err.find("names both `kineto` and `chakra` files") != std::string::npos);
  const auto generated = run_cli("run " + dir.file("gen.yaml", "platform: {preset: dgx-a100, nodes: 1}\nworkload: {chakra: [job.0.et], model: {name: gpt3-1.3b}}\n") + " -q");
  CHECK(generated.code == 2);
  CHECK(generated.err.find("`workload.chakra` belongs to a traced workload") != std::string::npos);
  // The imported job runs; `comm: measured` keeps the traced 40 us AllReduce.
  const auto run = run_cli("run " + dir.file("job.yaml", "platform: {preset: dgx-a100, nodes: 1}\nworkload: {trace: t.pbtxt, comm: measured}\n") +
                           " --json -q");
  INFO(run.err);
  REQUIRE(run.code == 0);
  CHECK(nlohmann::json::parse(run.out)["iteration_time_ns"].get<double>() >= 140'000);
  CHECK(nlohmann::json::parse(direct.out)["iteration_time_ns"] == nlohmann::json::parse(run.out)["iteration_time_ns"]);
}

TEST_CASE("bad Chakra input: a clear message and exit code 2") {
  TempDir dir;
  auto error = [&](const std::string& bytes) {
    const auto r = run_cli("import chakra " + dir.file("x.0.et", bytes) + " -o " + (dir / "o.pb"));
    CHECK(r.code == 2);
    return r.err;
  };
  CHECK(error(rank_file(0, "0.0.2")).find("Chakra schema version '0.0.2' is not supported") != std::string::npos);
  CHECK(error(rank_file(0, "")).find("does not say its Chakra schema version") != std::string::npos);
  CHECK(error(rank_file(0, "1.0.0", 3)).find("collective type 3 (Gather / Scatter) is not modelled") != std::string::npos);
  CHECK(error("").find("empty") != std::string::npos);
  CHECK(error("\x05hello world").find("does not parse") != std::string::npos);
  const std::string whole = rank_file(0);
  CHECK(error(whole.substr(0, whole.size() - 3)).find("truncated") != std::string::npos);
  chakra::GlobalMetadata meta;
  meta.set_version("0.0.4");
  chakra::Node lonely = node(9, "k", chakra::COMP_NODE, 1, {42});
  CHECK(error(delimited({&meta, &lonely})).find("node 9 ('k') depends on node 42, which is not in the file") != std::string::npos);
  chakra::Node coll = node(1, "ar", chakra::COMM_COLL_NODE, 1);
  attr(coll, "comm_size", 64);
  CHECK(error(delimited({&meta, &coll})).find("has no `comm_type` attribute") != std::string::npos);
  // Only rank 0 of two: the send names a rank no file covers.
  CHECK(error(rank_file(0)).find("names rank 1, but 1 rank file(s) were given") != std::string::npos);
}

TEST_CASE("fuzz: randomly truncated Chakra and Kineto files give clean errors, never a crash or a hang") {
  TempDir dir;
  const std::string chakra = rank_file(0);
  const std::string kineto =
      R"({"traceEvents": [{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "ts": 0, "dur": 500, "tid": 1},)"
      R"({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": 10, "dur": 5, "tid": 1, "args": {"correlation": 1}},)"
      R"({"ph": "X", "cat": "kernel", "name": "sgemm", "ts": 20, "dur": 100, "tid": 7, "args": {"correlation": 1, "stream": 7}}]})";
  std::mt19937 random(20261122);  // fixed: the same cuts on every run
  auto cut_and_import = [&](const std::string& importer, const std::string& name, const std::string& whole) {
    for (int i = 0; i < 12; ++i) {
      const std::size_t cut = std::uniform_int_distribution<std::size_t>(0, whole.size() - 1)(random);
      const auto r = run_cli("import " + importer + " " + dir.file(name, whole.substr(0, cut)) + " -o " + (dir / "o.pb"));
      INFO(importer << " file cut at byte " << cut << ": " << r.err);
      CHECK(r.code == 2);
      CHECK(r.err.find("echo-des: error: ") == 0);
    }
  };
  cut_and_import("chakra", "c.0.et", chakra);
  cut_and_import("kineto", "k.json", kineto);
}
