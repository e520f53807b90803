#pragma once
// What SimGrid would abort the whole process on (exit 134, no message of ours) rather than report,
// found in a user's platform XML before SimGrid reads it: an <include>, a zone `routing` SimGrid does
// not know, two links or hosts with one id, two routes between the same ends in one zone. Each is a
// UserError naming the file, the element and the fix. Parsing mistakes themselves are left to
// SimGrid, which reports them with their line.
#include <string>

namespace echo::platforms {

void precheck_platform_file(const std::string& path);

} // namespace echo::platforms
