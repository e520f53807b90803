#include "workloads/importers/json_array_stream.hpp"

#include <stdexcept>
#include <vector>

namespace echo::workloads {

namespace {

class Splitter {
public:
  Splitter(std::string_view key, std::size_t batch_bytes, const std::function<void(const simdjson::padded_string&)>& on_batch)
      : key_(key), batch_bytes_(batch_bytes), on_batch_(on_batch) {}

  void feed(const char* data, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i)
      step(data[i]);
  }

  JsonArrayStreamResult finish(std::size_t bytes) {
    if (in_string_ || depth_ != 0 || !started_)
      throw std::runtime_error(!started_ ? "no JSON object" : "the text ends inside " + std::string(in_string_ ? "a string" : "an object or array") +
                                               " (the file is cut short)");
    flush();
    return {std::move(rest_), found_, bytes};
  }

private:
  void step(char c) {
    if (in_string_) {
      keep(c);
      if (escape_)
        escape_ = false;
      else if (c == '\\')
        escape_ = true;
      else if (c == '"')
        in_string_ = false;
      else if (depth_ == 1 && !in_array_)
        last_string_ += c;
      return;
    }
    switch (c) {
    case '"':
      in_string_ = true;
      if (depth_ == 1 && !in_array_)
        last_string_.clear();
      keep(c);
      return;
    case '{':
    case '[':
      if (depth_ == 0 && c == '{')
        started_ = true;
      if (depth_ == 1 && c == '[' && last_string_ == key_ && !in_array_) {
        in_array_ = true;
        found_ = true;
        rest_ += c;
        ++depth_;
        return;
      }
      if (in_array_ && depth_ == 2)
        element_.clear();
      keep(c);
      ++depth_;
      return;
    case '}':
    case ']':
      if (depth_ == 0)
        throw std::runtime_error(std::string("unbalanced '") + c + "'");
      --depth_;
      if (in_array_ && depth_ == 1) {  // the array closes
        in_array_ = false;
        last_string_.clear();
        rest_ += c;
        return;
      }
      keep(c);
      if (in_array_ && depth_ == 2)
        end_element();
      return;
    default:
      if (in_array_ && depth_ == 2) {
        if (c != ',' && c != ' ' && c != '\n' && c != '\r' && c != '\t')
          element_ += c;  // a scalar element: kept, simdjson judges it
        return;
      }
      keep(c);
    }
  }

  void keep(char c) {
    if (in_array_ && depth_ >= 2)
      element_ += c;
    else if (!in_array_)
      rest_ += c;
  }

  void end_element() {
    if (batch_.size() > 1)
      batch_ += ',';
    batch_ += element_;
    element_.clear();
    if (batch_.size() >= batch_bytes_)
      flush();
  }

  void flush() {
    if (batch_.size() <= 1)
      return;
    batch_ += ']';
    on_batch_(simdjson::padded_string(batch_));
    batch_.assign("[");
  }

  std::string key_;
  std::size_t batch_bytes_;
  const std::function<void(const simdjson::padded_string&)>& on_batch_;
  std::string rest_, last_string_, element_, batch_ = "[";
  int depth_ = 0;
  bool in_string_ = false, escape_ = false, in_array_ = false, found_ = false, started_ = false;
};

} // namespace

JsonArrayStreamResult stream_json_array(const std::function<std::size_t(char*, std::size_t)>& read, std::string_view key,
                                        std::size_t batch_bytes,
                                        const std::function<void(const simdjson::padded_string&)>& on_batch) {
  Splitter splitter(key, batch_bytes, on_batch);
  std::vector<char> chunk(1 << 20);
  std::size_t total = 0;
  for (std::size_t n; (n = read(chunk.data(), chunk.size())) > 0;) {
    splitter.feed(chunk.data(), n);
    total += n;
  }
  return splitter.finish(total);
}

} // namespace echo::workloads
