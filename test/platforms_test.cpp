// Presets, what-if figures, the generated XML, and the GPU index / routes of a loaded platform.
#include "base/user_error.hpp"
#include "platforms/cluster.hpp"
#include "platforms/cluster_spec.hpp"
#include "platforms/natural_order.hpp"
#include "platforms/platform_loader.hpp"
#include "platforms/platform_precheck.hpp"
#include "platforms/platform_writer.hpp"
#include "support/approx.hpp"
#include "support/child_process.hpp"
#include "support/temp_files.hpp"
#include "support/user_errors.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

using namespace echo;

namespace {

// Loads a platform in a child process and answers with what `ask` makes of its Cluster.
test::ChildOutcome with_cluster(const platforms::PlatformSource& source,
                                const std::function<std::string(const platforms::Cluster&)>& ask) {
  return test::in_child_process([&] {
    int argc = 1;
    char name[] = "test";
    char* argv[] = {name, nullptr};
    simgrid::s4u::Engine engine(&argc, argv);
    platforms::load_platform(engine, source);
    return ask(platforms::Cluster(engine, source.describe()));
  });
}

// The GPU index and a few routes of a platform, as JSON.
nlohmann::json inspect(const platforms::PlatformSource& source, const std::vector<std::pair<int, int>>& pairs) {
  const auto outcome = with_cluster(source, [&](const platforms::Cluster& cluster) {
    nlohmann::json j;
    for (const auto& g : cluster.gpus())
      j["gpus"].push_back(g.host->get_name());
    j["nodes"] = cluster.nodes().size();
    for (auto [a, b] : pairs) {
      const auto r = cluster.route(a, b);
      j["routes"].push_back({{"latency_s", r.latency_s}, {"bandwidth_Bps", r.bandwidth_Bps}, {"kind", platforms::to_string(r.kind)},
                             {"group_exit_Bps", r.group_exit_Bps}, {"same_group", cluster.group_of(cluster.node_of(a)) == cluster.group_of(cluster.node_of(b))},
                             {"exit_narrower_than_nics", cluster.group_exit_narrower_than_nics(cluster.group_of(cluster.node_of(a)), r.group_exit_Bps)}});
    }
    return j.dump();
  });
  if (outcome.user_error)
    throw UserError("", 0, outcome.text, "");
  return nlohmann::json::parse(outcome.text);
}

} // namespace

TEST_CASE("natural order puts gpu2 before gpu10") {
  CHECK(platforms::natural_less("gpu2", "gpu10"));
  CHECK_FALSE(platforms::natural_less("gpu10", "gpu2"));
  CHECK(platforms::natural_less("node1-gpu7", "node10-gpu0"));
  CHECK(platforms::natural_less("a", "b"));
  CHECK(platforms::natural_less("gpu", "gpu0"));
  CHECK_FALSE(platforms::natural_less("gpu007", "gpu7"));
}

TEST_CASE("every preset is known, with its figures, and unknown ones are refused") {
  for (const auto& name : {"dgx-a100", "azure-ndv4-a100", "dgx-h100", "h800"}) {
    const auto spec = platforms::preset(name, 4);
    CHECK(spec.gpus_per_node == 8);
    CHECK(spec.nics_per_node == 8);
    CHECK(spec.nodes == 4);
  }
  CHECK(platforms::preset("dgx-h100", 1).nic_bw == "400Gbps");
  CHECK(platforms::preset("h800", 1).nvlink_bw == "164.8GBps");
  // The clusters of the published nccl-tests tables, from their specs.
  const auto p5 = platforms::preset("aws-p5", 2);
  CHECK(p5.nics_per_node == 32);
  CHECK(p5.nic_bw == "100Gbps");
  const auto a3 = platforms::preset("gcp-a3-mega", 2);
  CHECK(a3.nic_bw == "200Gbps");
  const auto polaris = platforms::preset("polaris", 2);
  CHECK(polaris.gpus_per_node == 4);
  CHECK(polaris.nics_per_node == 2);
  CHECK(polaris.gpu == "A100-SXM4-40GB");
  for (const auto& name : platforms::preset_names()) {
    CHECK_MESSAGE(!platforms::preset(name, 1).source.empty(), name);  // every figure says where it is from
    CHECK_NOTHROW(platforms::validate(platforms::preset(name, 1), name));
  }
  CHECK_THROWS_WITH_AS(platforms::preset("tpu-v5", 1), doctest::Contains("use one of: dgx-a100, azure-ndv4-a100"), UserError);
}

TEST_CASE("what-if figures use SimGrid's units and are checked") {
  auto spec = platforms::preset("dgx-a100", 2);
  platforms::override_figure(spec, "nic_bw", "100Gbps", "test");
  platforms::override_figure(spec, "nvlink_bw", "300GBps", "test");
  platforms::override_figure(spec, "nic_latency", "2us", "test");
  platforms::override_figure(spec, "gpus_per_node", "4", "test");
  platforms::override_figure(spec, "nics_per_node", "2", "test");
  platforms::override_figure(spec, "oversubscription", "2", "test");
  platforms::override_figure(spec, "gpu", "B200", "test");
  CHECK(spec.nic_bw == "100Gbps");
  CHECK(spec.gpus_per_node == 4);
  CHECK_NOTHROW(platforms::validate(spec, "test"));
  CHECK_THROWS_WITH_AS(platforms::override_figure(spec, "nic_bw", "100Gbits", "test"), doctest::Contains("not a valid bandwidth"), UserError);
  CHECK_THROWS_WITH_AS(platforms::override_figure(spec, "nic_latency", "2 parsecs", "test"), doctest::Contains("not a valid latency"), UserError);
  CHECK_THROWS_WITH_AS(platforms::override_figure(spec, "gpus_per_node", "-1", "test"), doctest::Contains("positive integer"), UserError);
  CHECK_THROWS_WITH_AS(platforms::override_figure(spec, "oversubscription", "0.5", "test"), doctest::Contains(">= 1"), UserError);
  CHECK_THROWS_WITH_AS(platforms::override_figure(spec, "nvswitch", "1", "test"), doctest::Contains("unknown platform figure"), UserError);
  // Extra latencies may be negative (below NCCL's figure), a latency something takes may not.
  CHECK_NOTHROW(platforms::override_figure(spec, "nccl.extra_hop_us.net", "-2", "test"));
  CHECK_NOTHROW(platforms::override_figure(spec, "nccl.net_device_latency_us", "75", "test"));
  CHECK(spec.calibration.at("nccl.net_device_latency_us") == "75");
  CHECK_THROWS_WITH_AS(platforms::override_figure(spec, "nccl.net_device_latency_us", "-5", "test"), doctest::Contains("0 or more"), UserError);
  CHECK_THROWS_WITH_AS(platforms::override_figure(spec, "nccl.net_overhead_us", "-1", "test"), doctest::Contains("0 or more"), UserError);
  CHECK_NOTHROW(platforms::override_figure(spec, "nccl.tail_copy_bw.ring", "0", "test"));
  CHECK_THROWS_WITH_AS(platforms::override_figure(spec, "nccl.tail_copy_bw.ring", "-1", "test"),
                       doctest::Contains("a bandwidth in GB/s, 0 or more"), UserError);
  CHECK(echo::test::user_error_of([&] { platforms::override_figure(spec, "nccl.tail_copy_bw.ring", "x", "test"); })
            .find("0: no wait") != std::string::npos);
}

TEST_CASE("generated XML: hosts, NICs shared evenly, pods") {
  auto spec = platforms::preset("dgx-a100", 40);
  spec.nics_per_node = 4;
  std::ostringstream xml;
  platforms::write_platform_xml(spec, xml);
  const std::string s = xml.str();
  auto count = [&](const std::string& needle) {
    std::size_t n = 0;
    for (auto at = s.find(needle); at != std::string::npos; at = s.find(needle, at + 1))
      ++n;
    return n;
  };
  CHECK(count("<prop id=\"gpu\"") == 320);
  CHECK(count("-nic3\" bandwidth") == 40);
  CHECK(count("-nic4\" bandwidth") == 0);
  CHECK(count("<zone id=\"pod") == 2);  // a zone per pod, none per node
  CHECK(count("<prop id=\"node\" value=\"node39\"/>") == 8);
  CHECK(s.find("node0-gpu7\" dst=\"node0-gw\"><link_ctn id=\"node0-nic3\"") != std::string::npos);
}

TEST_CASE("several NICs per GPU are one link of their summed rate, and NIC counts must divide evenly") {
  auto spec = platforms::preset("aws-p5", 2);
  std::ostringstream xml;
  platforms::write_platform_xml(spec, xml);
  const std::string s = xml.str();
  CHECK(s.find("node0-nic7\" bandwidth=\"50000000000Bps\"") != std::string::npos);  // 4 x 100 Gb/s
  CHECK(s.find("node0-nic8\"") == std::string::npos);
  CHECK(s.find("node1-gpu5\" dst=\"node1-gw\"><link_ctn id=\"node1-nic5\"") != std::string::npos);
  platforms::PlatformSource source;
  source.spec = spec;
  CHECK(inspect(source, {{0, 8}})["routes"][0]["bandwidth_Bps"].get<double>() == test::Approx(50e9));
  spec.nics_per_node = 12;
  CHECK_THROWS_WITH_AS(platforms::validate(spec, "test"), doctest::Contains("do not divide each other"), UserError);
}

namespace {

// The same preset twice: as the XML `platform generate` writes (into `dir`), and built in the engine.
std::pair<platforms::PlatformSource, platforms::PlatformSource> xml_and_built(const test::TempDir& dir, const std::string& name,
                                                                              const platforms::ClusterSpec& spec) {
  platforms::PlatformSource from_xml, built;
  from_xml.file = dir / (name + ".xml");
  std::ofstream out(from_xml.file);
  platforms::write_platform_xml(spec, out);
  built.spec = spec;
  return {from_xml, built};
}

} // namespace

TEST_CASE("a preset built in the engine is the platform its XML describes, and nothing is written to disk") {
  test::TempDir dir;
  for (const char* name : {"dgx-h100", "aws-p5", "polaris"}) {
    INFO(name);
    auto spec = platforms::preset(name, 40);  // two pods
    platforms::override_figure(spec, "oversubscription", "2", "test");
    const auto [from_xml, built] = xml_and_built(dir, name, spec);
    const std::vector<std::pair<int, int>> pairs = {{0, 1}, {0, 5}, {1, 12}, {3, 130}, {2, 150}, {150, 2}};
    const auto a = inspect(from_xml, pairs), b = inspect(built, pairs);
    CHECK(a["gpus"] == b["gpus"]);
    CHECK(a["routes"] == b["routes"]);
  }
  // Loading a preset leaves TMPDIR as it was (the XML used to be written there first).
  test::TempDir tmp;
  const auto outcome = test::in_child_process([&] {
    setenv("TMPDIR", tmp.path().c_str(), 1);
    int argc = 1;
    char name[] = "test";
    char* argv[] = {name, nullptr};
    simgrid::s4u::Engine engine(&argc, argv);
    platforms::PlatformSource source;
    source.spec = platforms::preset("dgx-a100", 64);
    platforms::load_platform(engine, source);
    return std::to_string(engine.get_host_count());
  });
  CHECK(outcome.text == "512");
  CHECK(std::filesystem::is_empty(tmp.path()));
}

TEST_CASE("in a generated pod, every pair of a node's GPUs meets over NVLink, every pair across nodes over their NICs") {
  // Through the NVSwitch or through the node's gateway, a route inside a node is two links either
  // way: SimGrid's Dijkstra must keep the NVLink one (platform_writer.hpp says why it does).
  test::TempDir dir;
  for (const char* name : {"dgx-h100", "polaris"}) {
    INFO(name);
    auto spec = platforms::preset(name, 34);  // node 33 sits in a second pod
    const auto [from_xml, built] = xml_and_built(dir, name, spec);
    for (const auto& source : {from_xml, built}) {
      const auto outcome = with_cluster(source, [&](const platforms::Cluster& cluster) {
        std::string wrong;
        const std::uint32_t per_node = spec.gpus_per_node;
        for (std::uint32_t node : {0u, 33u})
          for (std::uint32_t a = 0; a < per_node; ++a)
            for (std::uint32_t b = 0; b < per_node; ++b) {
              if (a == b)
                continue;
              std::vector<simgrid::s4u::Link*> links;
              double latency = 0;
              cluster.gpus()[node * per_node + a].host->route_to(cluster.gpus()[node * per_node + b].host, links, &latency);
              const std::string n = "node" + std::to_string(node);
              if (links.size() != 2 || links[0]->get_name() != n + "-nvlink" + std::to_string(a) + "_UP" ||
                  links[1]->get_name() != n + "-nvlink" + std::to_string(b) + "_DOWN")
                wrong += n + " " + std::to_string(a) + "->" + std::to_string(b) + " ";
            }
        std::vector<simgrid::s4u::Link*> links;
        double latency = 0;
        cluster.gpus()[1].host->route_to(cluster.gpus()[33 * per_node + 1].host, links, &latency);
        std::set<std::string> across;  // SimGrid lists a route's links in no order we rely on
        for (const auto* l : links)
          across.insert(l->get_name());
        std::string names;
        for (const auto& l : across)
          names += l + " ";
        return wrong + "| " + names;
      });
      const std::string nic = std::string(name) == "polaris" ? "0" : "1";  // Polaris: two GPUs per NIC
      CHECK(outcome.text == "| node0-nic" + nic + "_UP node33-nic" + nic + "_DOWN pod0-leafhop pod0-uplink_UP pod1-leafhop pod1-uplink_DOWN ");
    }
  }
}

TEST_CASE("GPUs named by their node property are numbered in natural node order") {
  platforms::PlatformSource source;
  source.spec = platforms::preset("dgx-a100", 12);
  const auto j = inspect(source, {});
  CHECK(j["nodes"] == 12);
  CHECK(j["gpus"][16] == "node2-gpu0");
  CHECK(j["gpus"][80] == "node10-gpu0");
}

TEST_CASE("a loaded preset: rank order, NVLink inside a node, the network across nodes") {
  platforms::PlatformSource source;
  source.spec = platforms::preset("dgx-a100", 2);
  const auto j = inspect(source, {{0, 7}, {0, 8}, {3, 11}});
  REQUIRE(j["gpus"].size() == 16);
  CHECK(j["gpus"][0] == "node0-gpu0");
  CHECK(j["gpus"][9] == "node1-gpu1");
  CHECK(j["nodes"] == 2);
  const auto& intra = j["routes"][0];
  CHECK(intra["kind"] == "nvlink");
  CHECK(intra["latency_s"].get<double>() == test::Approx(700e-9));
  CHECK(intra["bandwidth_Bps"].get<double>() == test::Approx(240e9));
  const auto& inter = j["routes"][1];
  CHECK(inter["kind"] == "network");
  CHECK(inter["latency_s"].get<double>() == test::Approx(2e-6 + 130e-9));
  CHECK(inter["bandwidth_Bps"].get<double>() == test::Approx(25e9));
}

TEST_CASE("routes across pods cross leaf, spine and leaf - oversubscription narrows the spine") {
  platforms::PlatformSource source;
  source.spec = platforms::preset("dgx-h100", 34);  // pods of 32 nodes: node 33 is in the second pod
  platforms::override_figure(*source.spec, "oversubscription", "256", "test");
  const auto j = inspect(source, {{0, 33 * 8}});
  CHECK(j["routes"][0]["latency_s"].get<double>() == test::Approx(2e-6 + 3 * 130e-9));
  // 32 nodes x 8 NICs x 50 GB/s / 256 = 50 GB/s: no narrower than a NIC; at 512 it would be.
  CHECK(j["routes"][0]["bandwidth_Bps"].get<double>() == test::Approx(50e9));
}

TEST_CASE("a route out of a pod names the pod's up-link, which every GPU leaving the pod at once shares") {
  platforms::PlatformSource source;
  source.spec = platforms::preset("dgx-h100", 34);  // pods of 32 nodes: nodes 32 and 33 form the second
  platforms::override_figure(*source.spec, "oversubscription", "4", "test");
  const auto j = inspect(source, {{0, 33 * 8}, {33 * 8 + 3, 5}, {0, 31 * 8}, {32 * 8, 33 * 8 + 1}});
  // 32 nodes x 8 NICs x 50 GB/s / 4; a single route is still NIC-bound.
  CHECK(j["routes"][0]["group_exit_Bps"].get<double>() == test::Approx(3.2e12));
  CHECK(j["routes"][0]["bandwidth_Bps"].get<double>() == test::Approx(50e9));
  CHECK_FALSE(j["routes"][0]["same_group"].get<bool>());
  // The second pod's up-link is sized for a full pod too (the spine was built for it).
  CHECK(j["routes"][1]["group_exit_Bps"].get<double>() == test::Approx(3.2e12));
  // Smaller pods: node 20 is in the second of pods of 16, its up-link 16 x 8 x 50 GB/s / 4.
  auto small = platforms::preset("dgx-h100", 34);
  platforms::override_figure(small, "oversubscription", "4", "test");
  platforms::override_figure(small, "pod_nodes", "16", "test");
  platforms::PlatformSource small_pods;
  small_pods.spec = small;
  const auto k = inspect(small_pods, {{0, 20 * 8}});
  CHECK(k["routes"][0]["group_exit_Bps"].get<double>() == test::Approx(1.6e12));
  // Inside a pod: no way out taken.
  CHECK(j["routes"][2]["group_exit_Bps"].get<double>() == 0.0);
  CHECK(j["routes"][3]["group_exit_Bps"].get<double>() == 0.0);
  CHECK(j["routes"][3]["same_group"].get<bool>());
}

TEST_CASE("a pod's up-link is narrower than its NICs only when oversubscribed") {
  // Two pods of 4 DGX H100 nodes: each pod's NICs carry 4 x 8 x 50 GB/s = 1.6 TB/s.
  const auto exit_of = [](const std::string& ratio) {
    platforms::PlatformSource source;
    source.spec = platforms::preset("dgx-h100", 8);
    platforms::override_figure(*source.spec, "pod_nodes", "4", "test");
    platforms::override_figure(*source.spec, "oversubscription", ratio, "test");
    return inspect(source, {{0, 4 * 8}, {0, 3 * 8}})["routes"];
  };
  const auto full = exit_of("1"), narrow = exit_of("2");
  CHECK(full[0]["group_exit_Bps"].get<double>() == test::Approx(1.6e12));
  CHECK_FALSE(full[0]["exit_narrower_than_nics"].get<bool>());
  CHECK(narrow[0]["group_exit_Bps"].get<double>() == test::Approx(0.8e12));
  CHECK(narrow[0]["exit_narrower_than_nics"].get<bool>());
  // A route inside the pod takes no way out: nothing to be narrow.
  CHECK_FALSE(narrow[1]["exit_narrower_than_nics"].get<bool>());
}

TEST_CASE("a pod per node leaves every GPU its own NIC") {
  // With one node a pod, a route between nodes lists the peer's NIC (as fast as ours) where the
  // slowest link is looked for; every GPU of a node came out on that one NIC, and NCCL's model
  // then ran each ring on one channel, 5x slower.
  for (const std::string pod : {"1", "2"}) {
    CAPTURE(pod);
    platforms::PlatformSource source;
    source.spec = platforms::preset("dgx-a100", 4);
    platforms::override_figure(*source.spec, "pod_nodes", pod, "test");
    const auto outcome = with_cluster(source, [](const platforms::Cluster& cluster) {
      const platforms::NodeNetwork n = cluster.node_network(0);
      return std::to_string(n.nics) + " " + std::to_string(cluster.nic_of(0)) + " " + std::to_string(cluster.nic_of(7)) + " " +
             std::to_string(n.nic_Bps);
    });
    CHECK(outcome.text == "8 0 7 25000000000.000000");
  }
}

TEST_CASE("generated platforms cache routes per pair class, and the classes answer what SimGrid answers") {
  platforms::PlatformSource source;
  source.spec = platforms::preset("dgx-a100", 34);  // two pods, the second one partial
  platforms::override_figure(*source.spec, "nics_per_node", "4", "test");
  const auto outcome = with_cluster(source, [](const platforms::Cluster& cluster) {
    int mismatches = 0, checked = 0;
    // Every source GPU of node 0 and node 33 against a spread of destinations, twice: the second
    // pass is served from the class cache.
    for (int pass = 0; pass < 2; ++pass)
      for (std::uint32_t a : {0u, 5u, 33u * 8u + 2u})
        for (std::uint32_t b = 1; b < cluster.gpu_count(); b += 7)
          if (a != b) {
            const auto cached = cluster.route(a, b), direct = cluster.compute_route(a, b);
            ++checked;
            if (cached.latency_s != direct.latency_s || cached.bandwidth_Bps != direct.bandwidth_Bps || cached.kind != direct.kind ||
                cached.group_exit_Bps != direct.group_exit_Bps)
              ++mismatches;
          }
    return std::to_string(cluster.homogeneous()) + " " + std::to_string(checked) + " " + std::to_string(mismatches);
  });
  REQUIRE_FALSE(outcome.user_error);
  CHECK(outcome.text == "1 234 0");
}

TEST_CASE("a user XML: GPUs are hosts with the `gpu` property, ordered naturally per node") {
  test::TempDir dir;
  platforms::PlatformSource source;
  source.file = dir.file("p.xml", R"(<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <zone id="box" routing="Full">
    <prop id="intra" value="pcie"/>
    <host id="gpu10" speed="1f"><prop id="gpu" value="V100"/></host>
    <host id="gpu2" speed="1f"><prop id="gpu" value="V100"/></host>
    <host id="cpu" speed="1f"/>
    <link id="bus" bandwidth="24GBps" latency="2us"/>
    <route src="gpu2" dst="gpu10"><link_ctn id="bus"/></route>
  </zone>
</platform>
)");
  const auto j = inspect(source, {{0, 1}});
  CHECK(j["gpus"] == nlohmann::json::array({"gpu2", "gpu10"}));
  CHECK(j["routes"][0]["kind"] == "pcie");
  CHECK(j["routes"][0]["bandwidth_Bps"].get<double>() == test::Approx(24e9));
}

TEST_CASE("platform files that are wrong") {
  test::TempDir dir;
  platforms::PlatformSource source;
  source.file = dir / "missing.xml";
  CHECK_THROWS_WITH(inspect(source, {}), doctest::Contains("cannot read the platform file"));
  source.file = dir.file("broken.xml", "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n<platform version=\"4.1\">\n<zone id=\"z\" routing=\"Full\">\n<hots/>\n</zone></platform>\n");
  CHECK_THROWS_WITH(inspect(source, {}), doctest::Contains("broken.xml:5: not a valid SimGrid platform"));
  source.file = dir.file("nogpu.xml", "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n<platform version=\"4.1\"><zone id=\"z\" routing=\"Full\">"
                                      "<host id=\"h\" speed=\"1f\"/></zone></platform>\n");
  CHECK_THROWS_WITH(inspect(source, {}), doctest::Contains("the platform has no GPU"));
  source.file = dir.file("nodoctype.xml", "<?xml version='1.0'?>\n<platform version=\"4.1\"></platform>\n");
  CHECK_THROWS_WITH(inspect(source, {}), doctest::Contains("<!DOCTYPE platform SYSTEM"));
  // A very long attribute value in the parse error: read without recursion (std::regex overflowed the stack).
  source.file = dir.file("long.xml", "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n<platform version=\"4.1\">\n"
                                     "<zone id=\"z\" routing=\"Full\">\n<host id=\"gpu0\" speed=\"" + std::string(300000, 'x') +
                                     "\"/>\n</zone></platform>\n");
  CHECK_THROWS_WITH(inspect(source, {}), doctest::Contains("long.xml:5: not a valid SimGrid platform: cannot parse number"));
  CHECK_THROWS_WITH(inspect(source, {}), doctest::Contains(" characters)"));  // cut short, not 300,000 x
  // A node zone's link kind or NVSwitch written wrong is named, not read as the default.
  for (const auto& [property, value, message] :
       {std::tuple{"intra", "nvlnk", "zone 'box': property intra=\"nvlnk\" is neither nvlink nor pcie"},
        std::tuple{"nvswitch", "true", "zone 'box': property nvswitch=\"true\" is neither no nor yes"}}) {
    source.file = dir.file(std::string(property) + ".xml", std::string(R"(<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <zone id="box" routing="Full">
    <prop id=")") + property + "\" value=\"" + value + R"("/>
    <host id="gpu0" speed="1f"><prop id="gpu" value="A100"/></host>
  </zone>
</platform>
)");
    CHECK_THROWS_WITH_AS(inspect(source, {}), doctest::Contains(message), UserError);
  }
}

TEST_CASE("platform files SimGrid would abort on are refused first, with the element named") {
  test::TempDir dir;
  const std::string head = "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n<platform version=\"4.1\">\n";
  const std::string gpus = "<host id=\"gpu0\" speed=\"1f\"><prop id=\"gpu\" value=\"a100\"/></host>\n"
                           "<host id=\"gpu1\" speed=\"1f\"><prop id=\"gpu\" value=\"a100\"/></host>\n";
  auto error_of = [&](const std::string& name, const std::string& body) {
    platforms::PlatformSource source;
    source.file = dir.file(name, head + body + "</platform>\n");
    try {
      inspect(source, {});
    } catch (const UserError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(error_of("routing.xml", "<zone id=\"z\" routing=\"Bogus\">\n" + gpus + "</zone>\n").find("zone 'z' has routing=\"Bogus\"") !=
        std::string::npos);
  CHECK(error_of("wifi.xml", "<zone id=\"w\" routing=\"Wifi\">\n" + gpus + "</zone>\n")
            .find("zone 'w' has routing=\"Wifi\", which echo-des does not take") != std::string::npos);  // fuzzing: SimGrid aborted
  CHECK(error_of("include.xml", "<include file=\"other.xml\"/>\n").find("an <include> of 'other.xml'") != std::string::npos);
  const std::string link = "<link id=\"l\" bandwidth=\"1GBps\" latency=\"1us\"/>\n";
  CHECK(error_of("links.xml", "<zone id=\"z\" routing=\"Full\">\n" + gpus + link + link + "</zone>\n").find("two <link>s have id 'l'") !=
        std::string::npos);
  const std::string route = "<route src=\"gpu0\" dst=\"gpu1\"><link_ctn id=\"l\"/></route>\n";
  CHECK(error_of("routes.xml", "<zone id=\"z\" routing=\"Full\">\n" + gpus + link + route + route + "</zone>\n")
            .find("zone 'z' has two routes from 'gpu0' to 'gpu1'") != std::string::npos);
  CHECK(error_of("hosts.xml", "<zone id=\"z\" routing=\"full\">\n" + gpus + gpus + "</zone>\n").find("two <host>s have id 'gpu0'") !=
        std::string::npos);  // routing names are read without case, as SimGrid does
  // Fuzzing found: SimGrid's Dijkstra zone crashes (null dereference in its own error message) on
  // a second edge between the same ends: a self-route, or a route back after a symmetrical one.
  const std::string router = "<router id=\"r\"/>\n";
  const std::string graph_zone = "<zone id=\"z\" routing=\"DijkstraCache\">\n" + gpus + router + link;
  CHECK(error_of("self.xml", graph_zone + "<route src=\"r\" dst=\"r\"><link_ctn id=\"l\"/></route>\n</zone>\n")
            .find("zone 'z' has a route from 'r' to itself") != std::string::npos);
  CHECK(error_of("back.xml", graph_zone + route + "<route src=\"gpu1\" dst=\"gpu0\"><link_ctn id=\"l\"/></route>\n</zone>\n")
            .find("two routes from 'gpu1' to 'gpu0' (a symmetrical route") != std::string::npos);
  // SimGrid's Dijkstra reads freed memory for a host no route reaches, and gives wrong routes
  // through a point it cannot reach: a graph zone's routes must join all its points.
  CHECK(error_of("alone.xml", graph_zone + "<route src=\"gpu0\" dst=\"r\"><link_ctn id=\"l\"/></route>\n</zone>\n")
            .find("alone.xml:6: not a valid SimGrid platform: in zone 'z', no route reaches 'gpu1'") != std::string::npos);
  CHECK(error_of("one_way_only.xml", graph_zone + "<route src=\"gpu0\" dst=\"gpu1\" symmetrical=\"NO\"><link_ctn id=\"l\"/></route>\n"
                                                   "<route src=\"r\" dst=\"gpu0\"><link_ctn id=\"l\"/></route>\n</zone>\n")
            .find("no route leaves 'gpu1'") != std::string::npos);
  CHECK(error_of("one_way.xml", graph_zone + "<route src=\"gpu0\" dst=\"gpu1\" symmetrical=\"NO\"><link_ctn id=\"l\"/></route>\n"
                                              "<route src=\"gpu1\" dst=\"gpu0\" symmetrical=\"NO\"><link_ctn id=\"l\"/></route>\n"
                                              "<route src=\"gpu0\" dst=\"r\"><link_ctn id=\"l\"/></route>\n</zone>\n")
            .find("no error") == 0);
  // Fuzzing found: SimGrid aborts on a list of bandwidths outside a Wifi link. It takes a negative
  // or zero bandwidth and a negative latency, and a route through one then reads as -25 GB/s.
  auto link_with = [&](const std::string& name, const std::string& figures) {
    return error_of(name, "<zone id=\"z\" routing=\"Full\">\n" + gpus + "<link id=\"l\" " + figures + "/>\n" + route + "</zone>\n");
  };
  CHECK(link_with("list.xml", "bandwidth=\"1000,000Bps\" latency=\"1us\"").find("list.xml:7: not a valid SimGrid platform: <link> 'l' has bandwidth=\"1000,000Bps\", a list of bandwidths") != std::string::npos);
  CHECK(link_with("semicolon.xml", "bandwidth=\"1;00GBps\" latency=\"1us\"").find("semicolon.xml:7: not a valid SimGrid platform: <link> 'l' has bandwidth=\"1;00GBps\", a list of bandwidths") != std::string::npos);
  for (const std::string bandwidth : {"-200Gbps", "0Bps", "nanBps", "infBps"})
    CHECK(link_with("bandwidth.xml", "bandwidth=\"" + bandwidth + "\" latency=\"1us\"")
              .find("<link> 'l' has bandwidth=\"" + bandwidth + "\", not a bandwidth above zero") != std::string::npos);
  CHECK(link_with("latency.xml", "bandwidth=\"1GBps\" latency=\"-1us\"").find("<link> 'l' has latency=\"-1us\", not a latency of zero or more") !=
        std::string::npos);
  CHECK(link_with("zero.xml", "bandwidth=\"1GBps\" latency=\"0s\"") == "no error");
  CHECK(error_of("cluster.xml", "<cluster id=\"c\" prefix=\"gpu\" suffix=\"\" radical=\"0-1\" speed=\"1f\" bw=\"-1Gbps\" lat=\"1us\"/>\n")
            .find("<cluster> 'c' has bw=\"-1Gbps\", not a bandwidth above zero") != std::string::npos);
  // Fuzzing found: SimGrid's parser reads what XML forbids (here an unquoted attribute), so a file
  // these checks could not read went to SimGrid unchecked, which then aborted on the bad routing.
  // The check streams the file: the first mistake in it is the one named.
  const std::string unquoted = "<route src=oops\"gpu0\" dst=\"gpu1\"/>\n</zone>\n";
  CHECK(error_of("unquoted.xml", "<zone id=\"z\" routing=\"Ful#l\">\n" + gpus + unquoted)
            .find("unquoted.xml:4: not a valid SimGrid platform: zone 'z' has routing=\"Ful#l\"") != std::string::npos);
  CHECK(error_of("unquoted.xml", "<zone id=\"z\" routing=\"Full\">\n" + gpus + unquoted).find("unquoted.xml:7: not well-formed XML") !=
        std::string::npos);
}

TEST_CASE("a generated platform file is well-formed XML (a strict parser reads it)") {
  test::TempDir dir;
  for (const std::string preset : {"dgx-a100", "polaris"}) {
    std::ostringstream xml;
    platforms::write_platform_xml(platforms::preset(preset, 2), xml);
    const std::string text = xml.str();
    const auto comment_start = text.find("<!--"), comment_end = text.find("-->");
    REQUIRE(comment_start != std::string::npos);
    CHECK(text.substr(comment_start + 4, comment_end - comment_start - 4).find("--") == std::string::npos);
    CHECK_NOTHROW(platforms::precheck_platform_file(dir.file(preset + ".xml", text)));
  }
}
