#include "platforms/platform_precheck.hpp"

#include "base/user_error.hpp"

#include <expat.h>

#include <array>
#include <cstring>
#include <fstream>
#include <memory>
#include <set>
#include <strings.h>
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
      // SimGrid 3.32 compares these without case.
      static const std::array<const char*, 8> known = {"Full", "Floyd", "Dijkstra", "DijkstraCache", "None", "Vivaldi", "Cluster", "Wifi"};
      const std::string routing = attribute("routing");
      bool ok = false;
      for (const char* k : known)
        ok |= strcasecmp(routing.c_str(), k) == 0;
      if (!ok)
        fail("zone '" + attribute("id") + "' has routing=\"" + routing + "\"",
             "use one of SimGrid's: Full, Floyd, Dijkstra, DijkstraCache, None, Vivaldi, Cluster, Wifi");
    }
    if (tag == "link" || tag == "host") {
      const std::string id = attribute("id");
      if (!(tag == "link" ? links_ : hosts_).insert(id).second)
        fail("two <" + tag + ">s have id '" + id + "'", "give each " + tag + " an id of its own");
    }
    if (tag == "route" || tag == "zoneRoute" || tag == "ASroute") {
      const std::string src = attribute("src"), dst = attribute("dst");
      if (!routes_.insert({zones_.empty() ? std::string() : zones_.back(), src, dst}).second)
        fail("zone '" + (zones_.empty() ? std::string() : zones_.back()) + "' has two routes from '" + src + "' to '" + dst + "'",
             "keep one route per pair of ends in a zone");
    }
    // Every element pushes, so that its end pops the right entry.
    zones_.push_back(zone ? attribute("id") : (zones_.empty() ? std::string() : zones_.back()));
  }

  void end() { zones_.pop_back(); }

  // The first mistake stops the parse; it is thrown once Expat has returned.
  std::unique_ptr<UserError> error;

private:
  void fail(const std::string& what, const std::string& fix) {
    if (!error)
      error = std::make_unique<UserError>(path_, static_cast<int>(XML_GetCurrentLineNumber(parser_)),
                                          "not a valid SimGrid platform: " + what, fix);
    XML_StopParser(parser_, XML_FALSE);
  }

  const std::string& path_;
  XML_Parser parser_;
  std::vector<std::string> zones_;  // the zone each open element is in
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
      [](void* c, const char*) { static_cast<Checker*>(c)->end(); });
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
