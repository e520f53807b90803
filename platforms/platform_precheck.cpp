#include "platforms/platform_precheck.hpp"

#include "base/user_error.hpp"
#include "platforms/link_figures.hpp"

#include <expat.h>

#include <array>
#include <cstring>
#include <fstream>
#include <memory>
#include <set>
#include <strings.h>
#include <unordered_map>
#include <utility>
#include <vector>

namespace echo::platforms {

namespace {

// Streamed (Expat), not read into a tree: a platform of 100,000 GPUs is about 90 MB of XML.
class Checker {
public:
  Checker(const std::string& path, XML_Parser parser) : path_(path), parser_(parser) {}

  void start(const char* tag_c, const char** attributes) {
    const std::string tag = tag_c;
    auto attribute = [&](const char* name) {
      for (const char** a = attributes; *a != nullptr; a += 2)
        if (std::strcmp(a[0], name) == 0)
          return std::string(a[1]);
      return std::string();
    };
    if (tag == "include")
      fail("an <include> of '" + attribute("file") + "'",
           "paste the included file's content in its place: SimGrid cannot report a mistake in an included file");
    const bool zone = tag == "zone" || tag == "AS";
    if (zone) {
      // SimGrid 3.32 compares these without case. Its wireless and coordinate-based zones abort
      // the process on details of their own (a Wifi zone with two links) and model no GPU cluster.
      static const std::array<const char*, 6> known = {"Full", "Floyd", "Dijkstra", "DijkstraCache", "None", "Cluster"};
      const std::string routing = attribute("routing");
      bool ok = false;
      for (const char* k : known)
        ok |= strcasecmp(routing.c_str(), k) == 0;
      const bool unsupported = strcasecmp(routing.c_str(), "Wifi") == 0 || strcasecmp(routing.c_str(), "Vivaldi") == 0;
      if (!ok)
        fail("zone '" + attribute("id") + "' has routing=\"" + routing + "\"" +
                 (unsupported ? ", which echo-des does not take (GPU clusters are wired and routed)" : ""),
             "use one of: Full, Floyd, Dijkstra, DijkstraCache, None, Cluster");
    }
    check_figures(tag, attribute("id"), attributes);
    if (tag == "link" || tag == "host") {
      const std::string id = attribute("id");
      if (!(tag == "link" ? links_ : hosts_).insert(id).second)
        fail("two <" + tag + ">s have id '" + id + "'", "give each " + tag + " an id of its own");
    }
    if (!zones_.empty() && zones_.back().graph >= 0 &&
        (tag == "host" || tag == "router" || tag == "cluster" || tag == "zone" || tag == "AS"))
      graphs_[zones_.back().graph].add_vertex(attribute("id"), line());
    if (tag == "route" || tag == "zoneRoute" || tag == "ASroute") {
      const std::string src = attribute("src"), dst = attribute("dst");
      const std::string in = zones_.empty() ? std::string() : zones_.back().id;
      // A symmetrical route (SimGrid's default) declares both directions. SimGrid's graph zones
      // (Dijkstra, Floyd) crash on a second edge between the same ends, a self-route included.
      const bool graph = !zones_.empty() && zones_.back().graph >= 0;
      if (graph && src == dst)
        fail("zone '" + in + "' has a route from '" + src + "' to itself",
             "drop it: a Dijkstra or Floyd zone needs no route from a point to itself");
      const bool symmetrical = strcasecmp(attribute("symmetrical").c_str(), "NO") != 0;
      const bool taken = !routes_.insert({in, src, dst}).second || (symmetrical && src != dst && !routes_.insert({in, dst, src}).second);
      if (taken)
        fail("zone '" + in + "' has two routes from '" + src + "' to '" + dst + "'" +
                 (symmetrical ? " (a symmetrical route, SimGrid's default, declares both directions)" : ""),
             "keep one route per pair of ends in a zone, or write symmetrical=\"NO\" on routes of one direction");
      if (graph)
        graphs_[zones_.back().graph].add_edge(src, dst, symmetrical);
    }
    // Every element pushes, so that its end pops the right entry.
    if (zone) {
      const std::string routing = attribute("routing");
      const bool graph = strncasecmp(routing.c_str(), "Dijkstra", 8) == 0 || strcasecmp(routing.c_str(), "Floyd") == 0;
      if (graph)
        graphs_.emplace_back();
      zones_.push_back({attribute("id"), graph ? static_cast<int>(graphs_.size()) - 1 : -1});
    } else {
      zones_.push_back(zones_.empty() ? Zone{} : zones_.back());
    }
  }

  void end(const std::string& tag) {
    if ((tag == "zone" || tag == "AS") && zones_.back().graph >= 0) {
      // SimGrid's Dijkstra reads freed memory for a point no route reaches, and gives routes
      // through unreachable points as if their cost were zero: every point must reach every other.
      const auto [unreached, where] = graphs_[zones_.back().graph].unreached();
      if (!unreached.empty())
        fail_at(where, "in zone '" + zones_.back().id + "', no route " + unreached,
                "give it a route to the zone's other hosts and routers (a Dijkstra or Floyd zone routes along its routes only)");
      graphs_.pop_back();
    }
    zones_.pop_back();
  }

  // The first mistake stops the parse; it is thrown once Expat has returned.
  std::unique_ptr<UserError> error;

private:
  // The routes of a graph zone: its hosts, routers and sub-zones, and who routes to whom.
  struct Graph {
    std::unordered_map<std::string, int> index;
    std::vector<std::string> names;
    std::vector<int> lines;
    std::vector<std::vector<int>> out, in;

    void add_vertex(const std::string& name, int line) {
      if (!index.emplace(name, static_cast<int>(names.size())).second)
        return;
      names.push_back(name);
      lines.push_back(line);
      out.emplace_back();
      in.emplace_back();
    }
    void add_edge(const std::string& src, const std::string& dst, bool both_ways) {
      const auto a = index.find(src), b = index.find(dst);
      if (a == index.end() || b == index.end())
        return;  // a route to a point declared elsewhere: SimGrid names it
      out[a->second].push_back(b->second);
      in[b->second].push_back(a->second);
      if (both_ways) {
        out[b->second].push_back(a->second);
        in[a->second].push_back(b->second);
      }
    }
    // The first point the first one cannot reach or be reached from ("reaches 'x'" / "leaves
    // 'x'"), with its line; empty when every point reaches every other.
    std::pair<std::string, int> unreached() const {
      for (const auto* edges : {&out, &in}) {
        std::vector<bool> seen(names.size(), false);
        std::vector<int> todo;
        if (!names.empty()) {
          seen[0] = true;
          todo.push_back(0);
        }
        while (!todo.empty()) {
          const int v = todo.back();
          todo.pop_back();
          for (int u : (*edges)[v])
            if (!seen[u]) {
              seen[u] = true;
              todo.push_back(u);
            }
        }
        for (std::size_t v = 0; v < names.size(); ++v)
          if (!seen[v])
            return {(edges == &out ? "reaches '" : "leaves '") + names[v] + "'", lines[v]};
      }
      return {};
    }
  };

  // Bandwidths and latencies of links, clusters, cabinets, backbones and peers. SimGrid aborts on
  // a list of bandwidths outside a Wifi link and takes a negative or zero one, which then reads
  // as a negative bottleneck: a figure SimGrid cannot read is left to its own message.
  void check_figures(const std::string& tag, const std::string& id, const char** attributes) {
    static const std::set<std::string> bandwidths = {"bandwidth", "bw", "bb_bw", "loopback_bw", "limiter_link", "bw_in", "bw_out"};
    static const std::set<std::string> latencies = {"latency", "lat", "bb_lat", "loopback_lat"};
    for (const char** a = attributes; *a != nullptr; a += 2) {
      const std::string name = a[0], value = a[1];
      const bool bandwidth = bandwidths.count(name) != 0;
      if (!bandwidth && latencies.count(name) == 0)
        continue;
      const std::string where = "<" + tag + "> '" + id + "' has " + name + "=\"" + value + "\"";
      // SimGrid splits a bandwidth at ',' and at ';' (found by fuzzing: "1;00GBps" aborted).
      if (bandwidth && value.find_first_of(",;") != std::string::npos) {
        fail(where + ", a list of bandwidths (SimGrid reads one only on a Wifi link, which echo-des does not model)",
             "write one figure with its unit, e.g. 200Gbps (bits) or 25GBps (bytes)");
        return;
      }
      const auto figure = bandwidth ? read_bandwidth(value) : read_latency(value);
      if (figure && bandwidth && !is_physical_bandwidth(*figure))
        fail(where + ", not a bandwidth above zero", "write a finite figure above zero with its unit, e.g. 200Gbps or 25GBps");
      if (figure && !bandwidth && !is_physical_latency(*figure))
        fail(where + ", not a latency of zero or more", "write a finite figure of zero or more with its unit, e.g. 1us or 350ns");
    }
  }

  int line() const { return static_cast<int>(XML_GetCurrentLineNumber(parser_)); }

  void fail(const std::string& what, const std::string& fix) { fail_at(line(), what, fix); }
  void fail_at(int at, const std::string& what, const std::string& fix) {
    if (!error)
      error = std::make_unique<UserError>(path_, at, "not a valid SimGrid platform: " + what, fix);
    XML_StopParser(parser_, XML_FALSE);
  }

  const std::string& path_;
  XML_Parser parser_;
  struct Zone {
    std::string id;
    int graph = -1;  // Dijkstra, DijkstraCache or Floyd: its routes' graph in graphs_
  };
  std::vector<Graph> graphs_;  // of the open graph zones
  std::vector<Zone> zones_;  // the zone each open element is in
  std::set<std::string> links_, hosts_;
  std::set<std::array<std::string, 3>> routes_;
};

} // namespace

void precheck_platform_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return;  // the loader says the file cannot be read
  const std::unique_ptr<XML_ParserStruct, decltype(&XML_ParserFree)> parser(XML_ParserCreate(nullptr), &XML_ParserFree);
  Checker checker(path, parser.get());
  XML_SetUserData(parser.get(), &checker);
  XML_SetElementHandler(
      parser.get(), [](void* c, const char* tag, const char** a) { static_cast<Checker*>(c)->start(tag, a); },
      [](void* c, const char* tag) { static_cast<Checker*>(c)->end(tag); });
  std::vector<char> buffer(1 << 16);
  for (bool last = false; !last;) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    last = in.gcount() < static_cast<std::streamsize>(buffer.size());
    if (XML_Parse(parser.get(), buffer.data(), static_cast<int>(in.gcount()), last) != XML_STATUS_OK) {
      if (checker.error)
        throw *checker.error;
      // SimGrid's own parser accepts some of what XML forbids, and then aborts on what these checks
      // would have caught: a file that is not well-formed never reaches it.
      throw UserError(path, static_cast<int>(XML_GetCurrentLineNumber(parser.get())),
                      std::string("not well-formed XML: ") + XML_ErrorString(XML_GetErrorCode(parser.get())),
                      "fix the XML at that line (an XML comment may not contain \"--\"; quote every attribute)");
    }
  }
}

} // namespace echo::platforms
