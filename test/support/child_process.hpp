#pragma once
// SimGrid keeps one engine per process, so every test that simulates runs in a forked child.
// The child's function returns a string (usually JSON) or throws; the parent gets both back.
#include "base/user_error.hpp"

#include <functional>
#include <string>

#include <sys/wait.h>
#include <unistd.h>

namespace echo::test {

struct ChildOutcome {
  bool user_error = false;  // the child threw UserError; `text` is its message
  std::string text;
};

inline ChildOutcome in_child_process(const std::function<std::string()>& work) {
  int fds[2];
  if (pipe(fds) != 0)
    throw std::runtime_error("pipe failed");
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    std::string out;
    char tag = 'O';
    try {
      out = work();
    } catch (const UserError& e) {
      tag = 'E';
      out = e.what();
    } catch (const std::exception& e) {
      tag = 'X';
      out = e.what();
    }
    std::string message = tag + out;
    for (std::size_t written = 0; written < message.size();) {
      const ssize_t n = write(fds[1], message.data() + written, message.size() - written);
      if (n <= 0)
        break;
      written += static_cast<std::size_t>(n);
    }
    close(fds[1]);
    _exit(0);  // skip the parent's doctest teardown and SimGrid's exit handlers
  }
  close(fds[1]);
  std::string message;
  char buf[65536];
  for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;)
    message.append(buf, static_cast<std::size_t>(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (message.empty())
    throw std::runtime_error("the child process died without an answer (status " + std::to_string(status) + ")");
  if (message[0] == 'X')
    throw std::runtime_error("the child process failed: " + message.substr(1));
  return {message[0] == 'E', message.substr(1)};
}

} // namespace echo::test
