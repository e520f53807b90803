#include "platforms/platform_precheck.hpp"

#include "base/user_error.hpp"

#include <boost/property_tree/ptree.hpp>
#include <boost/property_tree/xml_parser.hpp>

#include <array>
#include <strings.h>
#include <set>
#include <utility>

namespace echo::platforms {

namespace {

namespace pt = boost::property_tree;

std::string attribute(const pt::ptree& element, const char* name) {
  return element.get<std::string>(std::string("<xmlattr>.") + name, "");
}

class Checker {
public:
  explicit Checker(const std::string& path) : path_(path) {}

  void element(const std::string& tag, const pt::ptree& e, const std::string& zone) {
    if (tag == "include")
      fail("an <include> of '" + attribute(e, "file") + "'",
           "paste the included file's content in its place: SimGrid cannot report a mistake in an included file");
    if (tag == "zone" || tag == "AS") {
      // SimGrid 3.32 compares these without case.
      static const std::array<const char*, 8> known = {"Full", "Floyd", "Dijkstra", "DijkstraCache", "None", "Vivaldi", "Cluster", "Wifi"};
      const std::string routing = attribute(e, "routing");
      bool ok = false;
      for (const char* k : known)
        ok |= strcasecmp(routing.c_str(), k) == 0;
      if (!ok)
        fail("zone '" + attribute(e, "id") + "' has routing=\"" + routing + "\"",
             "use one of SimGrid's: Full, Floyd, Dijkstra, DijkstraCache, None, Vivaldi, Cluster, Wifi");
    }
    if (tag == "link" || tag == "host") {
      const std::string id = attribute(e, "id");
      if (!(tag == "link" ? links_ : hosts_).insert(id).second)
        fail("two <" + tag + ">s have id '" + id + "'", "give each " + tag + " an id of its own");
    }
    if (tag == "route" || tag == "zoneRoute" || tag == "ASroute") {
      const std::string src = attribute(e, "src"), dst = attribute(e, "dst");
      if (!routes_.insert({zone, src, dst}).second)
        fail("zone '" + zone + "' has two routes from '" + src + "' to '" + dst + "'", "keep one route per pair of ends in a zone");
    }
    const std::string inner = (tag == "zone" || tag == "AS") ? attribute(e, "id") : zone;
    for (const auto& [child_tag, child] : e)
      if (child_tag != "<xmlattr>" && child_tag != "<xmlcomment>")
        element(child_tag, child, inner);
  }

private:
  [[noreturn]] void fail(const std::string& what, const std::string& fix) const {
    throw UserError(path_, 0, "not a valid SimGrid platform: " + what, fix);
  }

  const std::string& path_;
  std::set<std::string> links_, hosts_;
  std::set<std::array<std::string, 3>> routes_;
};

} // namespace

void precheck_platform_file(const std::string& path) {
  pt::ptree tree;
  try {
    pt::read_xml(path, tree);
  } catch (const pt::xml_parser_error& e) {
    // SimGrid's own parser accepts some of what XML forbids, and then aborts on what these checks
    // would have caught: a file they cannot read never reaches it.
    throw UserError(path, static_cast<int>(e.line()), "not well-formed XML: " + e.message(),
                    "fix the XML at that line (an XML comment may not contain \"--\"; quote every attribute)");
  }
  Checker checker(path);
  for (const auto& [tag, e] : tree)
    checker.element(tag, e, "");
}

} // namespace echo::platforms
