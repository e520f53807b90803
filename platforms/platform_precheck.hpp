#pragma once
// What SimGrid would abort or crash the whole process on (no message of ours) rather than report,
// found in a user's platform XML before SimGrid reads it: XML that is not well-formed, an <include>,
// a zone `routing` SimGrid does not know or echo-des does not take (Wifi, Vivaldi), two links or
// hosts with one id, two routes between the same ends in one zone (a symmetrical route counting
// both ways), and in a graph zone (Dijkstra, Floyd) a route to itself or a point its routes do not
// join, a list of bandwidths outside a Wifi link; and a negative or zero bandwidth or a negative
// latency, which SimGrid takes silently. Each is a UserError naming the file, the line, the element and the fix. Other mistakes are
// left to SimGrid, which reports them with their line. The file is streamed (Expat): 100,000 GPUs
// of XML are checked in a few seconds and little memory.
#include <string>

namespace echo::platforms {

void precheck_platform_file(const std::string& path);

} // namespace echo::platforms
