#pragma once
// UserError: the one exception type for mistakes a user can make and fix (bad file, unknown
// preset, mismatched collectives, ...). It carries where (file, line), what is wrong and how to
// fix it; `cli` prints message() and exits with code 2. Internal bugs use other exception types.
#include <stdexcept>
#include <string>
#include <utility>

namespace echo {

class UserError : public std::runtime_error {
public:
  // line <= 0 means "no line": the file as a whole is meant (or no file at all when file is empty).
  UserError(std::string file, int line, std::string problem, std::string fix)
      : std::runtime_error(compose(file, line, problem, fix)), file_(std::move(file)), line_(line),
        problem_(std::move(problem)), fix_(std::move(fix)) {}

  const std::string& file() const { return file_; }
  int line() const { return line_; }
  const std::string& problem() const { return problem_; }
  const std::string& fix() const { return fix_; }

private:
  static std::string compose(const std::string& file, int line, const std::string& problem, const std::string& fix);

  std::string file_;
  int line_;
  std::string problem_;
  std::string fix_;
};

} // namespace echo
