// An XGBoost slowdown model (JSON): checked by echo-des, then loaded into libxgboost and asked
// for one prediction, as a job's `slowdown: {model: xgboost, path: ...}` does.
#include "fuzz_support.hpp"
#include "slowdown/model_check.hpp"
#include "slowdown/predictor.hpp"
#include "slowdown/xgboost_model.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace echo;
  static const bool quiet = (slowdown::silence_xgboost_logging(), true);
  (void)quiet;
  fuzz::clear_scratch();
  const std::string path = fuzz::write_file("model.json", std::string_view(reinterpret_cast<const char*>(data), size));
  return fuzz::expect_clean_outcome([&] {
    slowdown::check_model_structure(path);
    const auto predictor = slowdown::make_xgboost(path);
    (void)predictor->slowdown(slowdown::Kernel{});
  });
}
