#include "cli/trace_file.hpp"

#include "base/user_error.hpp"

#include <google/protobuf/text_format.h>

#include <cstdio>
#include <fstream>

namespace echo::cli {

void write_trace(const trace::Trace& t, const std::string& path) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary);
    bool ok = static_cast<bool>(out);
    if (ok && path.ends_with(".pbtxt")) {
      std::string text;
      ok = google::protobuf::TextFormat::PrintToString(t, &text);
      out << text;
    } else if (ok) {
      ok = t.SerializeToOstream(&out);
    }
    if (!ok || !out.flush())
      throw UserError(path, 0, "cannot write the trace", "check that the folder exists and is writable");
  }
  std::rename(tmp.c_str(), path.c_str());
}

} // namespace echo::cli
