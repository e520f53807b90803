#include "workloads/generator/gpu_specs.hpp"

#include <algorithm>
#include <cctype>

namespace echo::workloads {

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

} // namespace

std::string normalised_gpu_name(const std::string& s) {
  std::string out;
  for (char c : s)
    if (std::isalnum(static_cast<unsigned char>(c)))
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::optional<DataType> parse_data_type(const std::string& word) {
  for (DataType t : {DataType::fp32, DataType::tf32, DataType::fp16, DataType::bf16, DataType::fp8})
    if (word == data_type_name(t))
      return t;
  return std::nullopt;
}

const char* data_type_name(DataType t) {
  switch (t) {
  case DataType::fp32: return "fp32";
  case DataType::tf32: return "tf32";
  case DataType::fp16: return "fp16";
  case DataType::bf16: return "bf16";
  case DataType::fp8: return "fp8";
  }
  return "?";
}

double GpuSpec::peak_flops(DataType t) const {
  switch (t) {
  case DataType::fp32: return peak_fp32;
  case DataType::tf32: return peak_tf32;
  case DataType::fp16:
  case DataType::bf16: return peak_bf16;
  case DataType::fp8: return peak_fp8;
  }
  return 0;
}

// Datasheet peaks (dense): NVIDIA A100 / H100 / H200 / B200 datasheets, AMD MI300X datasheet.
// Achievable shares, from published measurements of large bf16 GEMMs and of stream copies:
//  - A100: cuBLAS reaches ~250-270 of 312 TFLOP/s on 8192^3 (NVIDIA's "Matrix Multiplication
//    Background" guide, MLPerf-era reports) -> 0.83; STREAM-like copies ~1.35 of 1.55 TB/s -> 0.87;
//    SGEMM ~18 of 19.5 TFLOP/s -> 0.93 (also what the GPT-2 fp32 profile in docs/validation.md shows).
//  - H100 SXM / H800: ~700-760 of 989 TFLOP/s on large GEMMs under the 700 W cap -> 0.75; copies
//    ~2.9-3.0 of 3.35 TB/s -> 0.88. H200 as H100 (same SMs and clocks, faster HBM).
//  - B200: early measurements ~1.6-1.7 of 2.25 PFLOP/s -> 0.72.
//  - MI300X: hipBLASLt ~650-750 of 1307 TFLOP/s on large bf16 GEMMs -> 0.55; copies ~4.0 of
//    5.3 TB/s -> 0.75.
// FP8 relative to 16 bits, from the best measured shapes of ../shared/data/compute (stas00's
// "Maximum Achievable Matmul FLOPS"), each share divided by the compute model's K-loop factor at
// its shape's K, on the GPU it was measured on (K / (K + epilogue steps), ComputeModel::
// epilogue_k_steps: the epilogue takes the same time in FP8, whose main loop runs twice as fast):
// Hopper fp8 73.4% of 1979 at K 12,032 (H200: 324 steps) against bf16 80.3% of 989 at K 13,312
// (H100: 252 steps; "H200 is the same") -> 0.921; B200 76.3% against 77.6%, both at K 3,072
// (256 and 128 steps) -> 1.023; MI300X unmeasured -> 1.
const std::vector<GpuSpec>& gpu_presets() {
  static const std::vector<GpuSpec> presets = {
      {"A100-PCIE-40GB", {"a100-pcie", "a100-pcie-40gb"}, GpuArch::ampere, 108, 40 * kGiB, 1555e9, 19.5e12, 156e12, 312e12, 0, 0.83, 0.87, 0.93},
      {"A100-SXM4-40GB", {"a100-40gb", "a100-40g", "a100-sxm-40gb"}, GpuArch::ampere, 108, 40 * kGiB, 1555e9, 19.5e12, 156e12, 312e12, 0,
       0.83, 0.87, 0.93},
      {"A100-SXM4-80GB", {"a100", "a100-80gb", "a100-80g", "a100-sxm-80gb"}, GpuArch::ampere, 108, 80 * kGiB, 2039e9, 19.5e12, 156e12,
       312e12, 0, 0.83, 0.87, 0.93},
      {"H100-SXM5-80GB", {"h100", "h100-sxm", "h100-80gb", "h100-sxm-80gb"}, GpuArch::hopper, 132, 80 * kGiB, 3350e9, 67e12, 494.7e12,
       989.4e12, 1978.9e12, 0.75, 0.88, 0.9, 0.921},
      // Meta's Grand Teton H100 (torchtitan's benchmark machine): the SXM part with 96 GB of HBM2e at
      // 2.4 TB/s, run at its default 500 W limit. torchtitan: "the actual peak TFLOPs number is
      // between SXM and NVL". Same 132 SMs as both, so the peaks scale with the clock the power
      // limit allows: interpolated in board power between the H100 NVL datasheet (400 W: 835 /
      // 1670.5 dense bf16 / fp8, 417.5 tf32, 60 fp32) and the SXM's (700 W): a third of the way.
      {"H100-SXM5-96GB-HBM2e", {"h100-96gb", "h100-hbm2e", "h100-grand-teton"}, GpuArch::hopper, 132, 96e9, 2400e9, 62.3e12,
       443.2e12, 886.5e12, 1773.3e12, 0.75, 0.88, 0.9, 0.921},
      {"H800-SXM5-80GB", {"h800", "h800-sxm", "h800-80gb"}, GpuArch::hopper, 132, 80 * kGiB, 3350e9, 67e12, 494.7e12, 989.4e12, 1978.9e12,
       0.75, 0.88, 0.9, 0.921},
      {"H200-SXM-141GB", {"h200", "h200-sxm", "h200-141gb"}, GpuArch::hopper, 132, 141e9, 4800e9, 67e12, 494.7e12, 989.4e12, 1978.9e12,
       0.75, 0.88, 0.9, 0.921},
      {"B200-SXM-180GB", {"b200", "b200-180gb", "b200-sxm"}, GpuArch::blackwell, 148, 180e9, 7700e9, 75e12, 1100e12, 2250e12, 4500e12, 0.72,
       0.88, 0.9, 1.023},
      {"MI300X", {"mi300x-192gb", "amd-mi300x"}, GpuArch::cdna3, 304, 192e9, 5300e9, 163.4e12, 653.7e12, 1307.4e12, 2614.9e12, 0.55,
       0.75},
  };
  return presets;
}

std::optional<GpuSpec> gpu_preset(const std::string& name) {
  const std::string key = normalised_gpu_name(name);
  for (const GpuSpec& g : gpu_presets()) {
    if (normalised_gpu_name(g.name) == key)
      return g;
    if (std::any_of(g.aliases.begin(), g.aliases.end(), [&](const std::string& a) { return normalised_gpu_name(a) == key; }))
      return g;
  }
  return std::nullopt;
}

} // namespace echo::workloads
