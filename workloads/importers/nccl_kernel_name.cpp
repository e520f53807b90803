#include "workloads/importers/nccl_kernel_name.hpp"

#include "workloads/kernel_category.hpp"

#include <array>
#include <map>
#include <sstream>
#include <utility>
#include <vector>

namespace echo::workloads {

namespace {

std::vector<std::string> words_of(const std::string& kernel) {
  std::vector<std::string> words;
  std::string word;
  std::istringstream in(kernel.substr(0, kernel.find('(')));
  while (std::getline(in, word, '_'))
    words.push_back(word);
  return words;
}

} // namespace

NcclKernelName parse_nccl_kernel_name(const std::string& kernel) {
  NcclKernelName out;
  const std::vector<std::string> words = words_of(kernel);
  if (words.size() < 2 || lowercase(words[0]).rfind("nccl", 0) != 0)
    return out;
  out.nccl = true;
  static const std::map<std::string, trace::CollectiveOp> ops = {
      {"AllReduce", trace::ALL_REDUCE}, {"AllGather", trace::ALL_GATHER}, {"ReduceScatter", trace::REDUCE_SCATTER},
      {"Broadcast", trace::BROADCAST},  {"Reduce", trace::REDUCE},        {"AllToAll", trace::ALL_TO_ALL}};
  if (const auto it = ops.find(words[1]); it != ops.end())
    out.op = it->second;
  out.point_to_point = words[1] == "SendRecv" || words[1] == "Send" || words[1] == "Recv";
  static const std::array<const char*, 7> algorithms = {"COLLNET_DIRECT", "COLLNET_CHAIN", "NVLS_TREE", "NVLS", "RING", "TREE", "PAT"};
  static const std::array<const char*, 3> protocols = {"LL128", "LL", "SIMPLE"};
  for (std::size_t i = 2; i < words.size(); ++i) {
    const std::string two = i + 1 < words.size() ? words[i] + "_" + words[i + 1] : "";
    for (const char* a : algorithms)
      if (out.algorithm.empty() && (words[i] == a || two == a))
        out.algorithm = a;
    for (const char* p : protocols)
      if (out.protocol.empty() && words[i] == p)
        out.protocol = p;
    // The element type follows the reduction (Sum, Prod, MinMax, PreMulSum, SumPostDiv); NCCL
    // writes int8_t and friends with an underscore, which the split cut off.
    if (out.element_type.empty() && element_type(words[i])) {
      const bool suffixed = i + 1 < words.size() && words[i + 1] == "t";
      out.element_type = suffixed ? words[i] + "_t" : words[i];
    }
  }
  return out;
}

std::optional<ElementType> element_type(const std::string& spelling) {
  std::string s = spelling;
  if (s.rfind("c10::", 0) == 0)
    s = s.substr(5);
  if (s.size() > 2 && s.compare(s.size() - 2, 2, "_t") == 0)
    s = s.substr(0, s.size() - 2);
  static const std::map<std::string, ElementType> types = {
      {"Float", {trace::FLOAT32, 4}},      {"float", {trace::FLOAT32, 4}},        {"f32", {trace::FLOAT32, 4}},
      {"Half", {trace::FLOAT16, 2}},       {"half", {trace::FLOAT16, 2}},         {"f16", {trace::FLOAT16, 2}},
      {"BFloat16", {trace::BFLOAT16, 2}},  {"bf16", {trace::BFLOAT16, 2}},        {"__nv_bfloat16", {trace::BFLOAT16, 2}},
      {"Double", {trace::FLOAT64, 8}},     {"double", {trace::FLOAT64, 8}},       {"f64", {trace::FLOAT64, 8}},
      {"Long", {trace::INT64, 8}},         {"long", {trace::INT64, 8}},           {"long int", {trace::INT64, 8}},
      {"int64", {trace::INT64, 8}},        {"i64", {trace::INT64, 8}},            {"uint64", {trace::INT64, 8}},
      {"u64", {trace::INT64, 8}},          {"Int", {trace::INT32, 4}},            {"int", {trace::INT32, 4}},
      {"int32", {trace::INT32, 4}},        {"i32", {trace::INT32, 4}},            {"uint32", {trace::INT32, 4}},
      {"u32", {trace::INT32, 4}},          {"UInt32", {trace::INT32, 4}},         {"UInt64", {trace::INT64, 8}},
      // No 16-bit integer or boolean type in trace.proto: the size is what the replay needs.
      {"Short", {trace::DTYPE_UNSPECIFIED, 2}}, {"short", {trace::DTYPE_UNSPECIFIED, 2}}, {"short int", {trace::DTYPE_UNSPECIFIED, 2}},
      {"UInt16", {trace::DTYPE_UNSPECIFIED, 2}}, {"Bool", {trace::INT8, 1}},     {"bool", {trace::INT8, 1}},
      {"Byte", {trace::INT8, 1}},          {"unsigned char", {trace::INT8, 1}},   {"uint8", {trace::INT8, 1}},
      {"u8", {trace::INT8, 1}},            {"Char", {trace::INT8, 1}},            {"signed char", {trace::INT8, 1}},
      {"int8", {trace::INT8, 1}},          {"i8", {trace::INT8, 1}},              {"QInt8", {trace::INT8, 1}},
      {"QUInt8", {trace::INT8, 1}},
      {"Float8_e4m3fn", {trace::FLOAT8, 1}}, {"Float8_e5m2", {trace::FLOAT8, 1}}, {"Float8_e4m3fnuz", {trace::FLOAT8, 1}},
      {"Float8_e5m2fnuz", {trace::FLOAT8, 1}}, {"Float8_e8m0fnu", {trace::FLOAT8, 1}}, {"f8e4m3", {trace::FLOAT8, 1}},
      {"f8e5m2", {trace::FLOAT8, 1}},      {"__nv_fp8_e4m3", {trace::FLOAT8, 1}}, {"__nv_fp8_e5m2", {trace::FLOAT8, 1}}};
  const auto it = types.find(s);
  if (it == types.end())
    return std::nullopt;
  return it->second;
}

} // namespace echo::workloads
