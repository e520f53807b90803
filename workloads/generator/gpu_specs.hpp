#pragma once
// GPU presets for the compute model: peak dense FLOP/s per data type, HBM bandwidth and size, SM
// count, and the share of those peaks that real kernels reach. Peaks are the vendors' dense
// (no-sparsity) datasheet figures; the achievable shares come from published measurements (see
// gpu_specs.cpp). A platform's `gpu` property ("A100-SXM4-80GB", "H100-SXM5-80GB", ...) picks one.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace echo::workloads {

enum class DataType { fp32, tf32, fp16, bf16, fp8 };

std::optional<DataType> parse_data_type(const std::string& word);
const char* data_type_name(DataType t);

// The generation decides which kernels a library runs (Hopper's wgmma / TMA paths, for one).
enum class GpuArch { ampere, hopper, blackwell, cdna3 };

struct GpuSpec {
  std::string name;
  std::vector<std::string> aliases;   // other spellings matched after normalising (case, '-', '_')
  GpuArch arch = GpuArch::ampere;
  std::uint32_t sms = 0;              // streaming multiprocessors (compute units on AMD)
  double memory_bytes = 0;
  double hbm_Bps = 0;
  double peak_fp32 = 0, peak_tf32 = 0, peak_bf16 = 0, peak_fp8 = 0;  // dense FLOP/s; fp16 = bf16; 0: none
  // Share of the tensor-core peak a large, well-shaped GEMM reaches (cuBLAS / hipBLASLt), and of
  // the HBM bandwidth a streaming kernel reaches.
  double gemm_efficiency = 0, memory_efficiency = 0;
  // Share of the fp32 (CUDA-core, no tensor core) peak an SGEMM reaches: simpler pipelines run
  // closer to their peak.
  double fp32_gemm_efficiency = 0.9;
  // FP8 GEMMs reach a smaller share of their (doubled) peak than 16-bit ones on the same chip: the
  // operands arrive twice as fast for the same memory pipes, and the scaling epilogue costs more.
  // The ratio of the two measured best-shape shares; 1 where no FP8 measurement exists.
  double fp8_gemm_relative = 1.0;

  double peak_flops(DataType t) const;  // 0 when the GPU has no such tensor path
  double gemm_share(DataType t) const {
    return t == DataType::fp32 ? fp32_gemm_efficiency : t == DataType::fp8 ? gemm_efficiency * fp8_gemm_relative : gemm_efficiency;
  }
};

// Whether the vendor's GEMM library runs persistent kernels on this generation, a thread block on
// every SM for the GEMM's whole run: cuBLAS's Hopper (sm90) and Blackwell kernels do (an H100 GEMM
// launches 132 blocks, one wave), Ampere's tile the output into many waves; hipBLASLt's on CDNA 3
// are not known here (false).
inline bool gemms_fill_gpu(GpuArch arch) { return arch == GpuArch::hopper || arch == GpuArch::blackwell; }

const std::vector<GpuSpec>& gpu_presets();
// Finds a preset by name or alias, ignoring case and separators: "a100-80gb", "A100-SXM4-80GB".
std::optional<GpuSpec> gpu_preset(const std::string& name);
// A GPU name as gpu_preset compares it: lower case, letters and digits only.
std::string normalised_gpu_name(const std::string& name);

} // namespace echo::workloads
