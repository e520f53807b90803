// Reading and checking native traces: every mistake is a UserError naming file, line and fix.
#include "base/user_error.hpp"
#include "support/temp_files.hpp"
#include "workloads/model_presets.hpp"
#include "workloads/dependency_cycle.hpp"
#include "workloads/trace_reader.hpp"

#include <google/protobuf/text_format.h>

#include <doctest/doctest.h>

using namespace echo;

namespace {

// A valid two-rank trace; tests break one thing at a time.
const std::string kGood = R"(name: "good"
templates {
  name: "t"
  streams: "compute"
  streams: "comm"
  tasks { id: 1 stream: 0 name: "a" compute { duration_ns: 10 } }
  tasks { id: 2 stream: 1 name: "ar" deps: 1 collective { op: ALL_REDUCE comm: "dp" bytes: 64 } }
  tasks { id: 3 stream: 0 name: "b" deps: 2 compute { duration_ns: 5 } }
}
communicators { name: "dp.0" slot: "dp" ranks: [0, 1] }
ranks { first: 0 count: 2 template_name: "t" }
)";

std::string error_of(const std::string& trace_text, const std::string& name = "trace.pbtxt") {
  test::TempDir dir;
  const std::string path = dir.file(name, trace_text);
  try {
    workloads::read_trace(path);
  } catch (const UserError& e) {
    return std::string(e.what()).replace(0, path.size(), name);
  }
  return "no error";
}

std::string replace(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

} // namespace

TEST_CASE("a valid trace becomes shared programs and indexed communicators") {
  test::TempDir dir;
  const auto w = workloads::read_trace(dir.file("trace.pbtxt", kGood));
  CHECK(w.rank_count() == 2);
  CHECK(w.programs.size() == 1);  // flyweight: both ranks share one program
  CHECK(w.total_tasks() == 6);
  const auto& p = w.program(1);
  CHECK(p.stream_order[0].size() == 2);
  CHECK(p.tasks[0].observed);        // the comm stream waits for it
  CHECK_FALSE(p.tasks[2].observed);
  CHECK(w.communicator(1, 0) == 0);
  CHECK(w.member_index(1, 0) == 1);
}

TEST_CASE("binary and text traces read the same") {
  test::TempDir dir;
  const auto text = workloads::read_trace(dir.file("t.pbtxt", kGood));
  trace::Trace t;
  REQUIRE(google::protobuf::TextFormat::ParseFromString(kGood, &t));
  const auto binary = workloads::read_trace(dir.file("t.pb", t.SerializeAsString()));
  CHECK(binary.total_tasks() == text.total_tasks());
  CHECK(binary.programs[0].tasks[1].bytes == 64);
}

TEST_CASE("missing or unreadable trace file") {
  CHECK_THROWS_WITH_AS(workloads::read_trace("/nonexistent/trace.pbtxt"),
                       doctest::Contains("/nonexistent/trace.pbtxt: cannot read the trace file"), UserError);
}

TEST_CASE("malformed text trace names the line") {
  const std::string e = error_of(replace(kGood, "tasks { id: 3", "tasks { idd: 3"));
  CHECK(e.find("trace.pbtxt:8: malformed text-format trace") == 0);
  CHECK(e.find("idd") != std::string::npos);
}

TEST_CASE("malformed binary trace") {
  CHECK(error_of("\xff\xff\xff garbage", "trace.pb").find("not a valid binary echo-des trace") != std::string::npos);
}

TEST_CASE("a dependency on a task that does not exist") {
  const std::string e = error_of(replace(kGood, "deps: 2 compute", "deps: 9 compute"));
  CHECK(e.find("trace.pbtxt:8:") == 0);
  CHECK(e.find("task 3 ('b') depends on task 9, which does not exist") != std::string::npos);
}

TEST_CASE("a dependency cycle is reported with its tasks") {
  // a runs before b on the compute stream, and a now also depends on b.
  const std::string e = error_of(replace(kGood, R"(name: "a" compute)", R"(name: "a" deps: 3 compute)"));
  CHECK(e.find("dependency cycle: ") != std::string::npos);
  CHECK(e.find("task 1 ('a')") != std::string::npos);
  CHECK(e.find("task 3 ('b')") != std::string::npos);
  CHECK(e.find("how to fix: ") != std::string::npos);
}

TEST_CASE("find_cycle: acyclic, self loop, longer cycle") {
  CHECK(workloads::find_cycle(3, {{0, 1}, {1, 2}}).empty());
  CHECK(workloads::find_cycle(2, {{1, 1}}) == std::vector<std::uint32_t>{1});
  CHECK(workloads::find_cycle(4, {{0, 1}, {1, 2}, {2, 3}, {3, 1}}) == std::vector<std::uint32_t>{1, 2, 3});
}

TEST_CASE("a task on a stream that does not exist") {
  const std::string e = error_of(replace(kGood, "tasks { id: 3 stream: 0", "tasks { id: 3 stream: 4"));
  CHECK(e.find("runs on stream 4 but the template has 2 stream(s)") != std::string::npos);
}

TEST_CASE("duplicate task ids") {
  CHECK(error_of(replace(kGood, "tasks { id: 3", "tasks { id: 1")).find("two tasks have the id 1") != std::string::npos);
}

TEST_CASE("ranks not covered, or mapped twice, or to an unknown template") {
  CHECK(error_of(replace(kGood, "ranks { first: 0 count: 2", "ranks { first: 1 count: 1"))
            .find("ranks 0 to 0 are mapped to no template") != std::string::npos);
  CHECK(error_of(kGood + "ranks { first: 1 count: 1 template_name: \"t\" }\n").find("rank 1 is mapped to a template twice") !=
        std::string::npos);
  CHECK(error_of(replace(kGood, "template_name: \"t\"", "template_name: \"x\"")).find("template 'x', which the trace does not define") !=
        std::string::npos);
}

TEST_CASE("communicator problems") {
  CHECK(error_of(replace(kGood, "ranks: [0, 1]", "ranks: [0, 5]")).find("lists rank 5, but the trace has only 2 ranks") !=
        std::string::npos);
  CHECK(error_of(replace(kGood, "ranks: [0, 1]", "ranks: [0]")).find("rank 1 (template 't') uses communicator slot 'dp'") !=
        std::string::npos);
  CHECK(error_of(kGood + "communicators { name: \"dp.1\" slot: \"dp\" ranks: [1] }\n")
            .find("rank 1 is in two 'dp' communicators") != std::string::npos);
}

TEST_CASE("send/recv peers must be other members") {
  const std::string p2p = R"(templates { name: "t" streams: "s"
  tasks { id: 1 stream: 0 name: "x" send { comm: "world" peer: PEER bytes: 8 } } }
ranks { first: 0 count: 1 template_name: "t" }
ranks { first: 1 count: 1 template_name: "u" }
templates { name: "u" streams: "s" tasks { id: 1 stream: 0 name: "y" recv { comm: "world" peer: 0 bytes: 8 } } }
)";
  CHECK(error_of(replace(p2p, "PEER", "7")).find("names member 7 of communicator 'world', which has 2 members") !=
        std::string::npos);
  CHECK(error_of(replace(p2p, "PEER", "0")).find("sends to or receives from itself") != std::string::npos);
  test::TempDir dir;
  CHECK(workloads::read_trace(dir.file("ok.pbtxt", replace(p2p, "PEER", "1"))).communicators.size() == 1);  // implicit world
}

TEST_CASE("model presets: every preset's dimensions give the parameter count it is named for") {
  for (const auto& m : echo::workloads::model_presets()) {
    CAPTURE(m.name);
    CHECK(echo::workloads::parameter_count(m) / 1e9 == doctest::Approx(m.nominal_params_b).epsilon(0.05));
    CHECK(m.hidden % m.heads == 0);
    CHECK(m.heads % m.kv_heads == 0);
  }
  REQUIRE(echo::workloads::model_preset("llama3-70b").has_value());
  CHECK(echo::workloads::model_preset("llama3-70b")->kv_heads == 8);
  CHECK_FALSE(echo::workloads::model_preset("llama3-71b").has_value());
}
