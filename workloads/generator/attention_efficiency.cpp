#include "workloads/generator/attention_efficiency.hpp"

#include <algorithm>
#include <array>
#include <cmath>

namespace echo::workloads {

namespace {

// TFLOP/s at 512, 1k, 2k, 4k, 8k and 16k tokens, head dim 128 (FlashAttention-3 paper, H100 SXM5).
using Sweep = std::array<double, 6>;
constexpr Sweep kCudnnForward = {497, 574, 617, 609, 600, 595};
constexpr Sweep kCudnnForwardCausal = {315, 410, 484, 518, 529, 539};
constexpr Sweep kCudnnBackward = {305, 408, 465, 499, 518, 516};
constexpr Sweep kFlash2Forward = {309, 350, 362, 368, 370, 370};
constexpr Sweep kFlash2ForwardCausal = {191, 260, 298, 319, 333, 335};
constexpr Sweep kFlash2Backward = {214, 260, 291, 310, 318, 322};
constexpr double kSweepFirstLength = 512;
// The best bf16 GEMM an H100 SXM reaches in a short benchmark (stas00's "Maximum Achievable Matmul
// FLOPS", ../shared/data/compute): what the figures above are read against.
constexpr double kHopperBestGemmTflops = 794.5;
// The sweeps ran 2048 CTAs of 128 query rows on 132 SMs: their last wave was 97% full.
constexpr double kSweepWaveFill = 2048.0 / (16 * 132);
// Forward at 16k tokens without a mask, head dim 64 and 256 against 128 (same paper).
constexpr double kCudnnHead64 = 413.0 / 595, kCudnnHead256 = 581.0 / 595;
constexpr double kFlash2Head64 = 324.0 / 370, kFlash2Head256 = 326.0 / 370;

constexpr double kAmpereForwardShare = 0.85, kAmpereBackwardShare = 0.70, kAmpereKeyHalf = 256;
constexpr double kCudnnOnAmpere = 0.82;
constexpr double kFlash1Relative = 0.5;

// Linear in log2(length) between the sweep's points; below 512 the first segment's slope goes on,
// above 16k the last figure holds.
double at_length(const Sweep& s, double length) {
  const double x = std::log2(std::max(length, 1.0) / kSweepFirstLength);
  if (x >= s.size() - 1)
    return s.back();
  const std::size_t i = x < 0 ? 0 : static_cast<std::size_t>(x);
  const double v = s[i] + (x - i) * (s[i + 1] - s[i]);
  return std::max(v, 0.05 * s.front());
}

double head_factor(double head_dim, double head64, double head256) {
  const double x = std::clamp(std::log2(head_dim / 128), -1.0, 1.0);
  return x < 0 ? 1 + x * (1 - head64) : 1 + x * (head256 - 1);
}

double hopper_share(bool cudnn, const AttentionShape& a) {
  const Sweep& forward = cudnn ? kCudnnForward : kFlash2Forward;
  const Sweep& forward_causal = cudnn ? kCudnnForwardCausal : kFlash2ForwardCausal;
  const Sweep& backward = cudnn ? kCudnnBackward : kFlash2Backward;
  const double tflops = a.forward ? at_length(a.causal ? forward_causal : forward, a.key_length) : at_length(backward, a.key_length);
  const double head = cudnn ? head_factor(a.head_dim, kCudnnHead64, kCudnnHead256)
                            : head_factor(a.head_dim, kFlash2Head64, kFlash2Head256);
  return tflops * head / kSweepWaveFill / kHopperBestGemmTflops;
}

} // namespace

AttentionKernel effective_attention_kernel(AttentionKernel k, const GpuSpec& gpu) {
  if (k == AttentionKernel::te_flash)
    return AttentionKernel::flash;
  if (k != AttentionKernel::te)
    return k;
  return gpu.arch == GpuArch::hopper ? AttentionKernel::cudnn : AttentionKernel::flash;
}

double attention_efficiency(const GpuSpec& gpu, AttentionKernel kernel, const AttentionShape& a) {
  kernel = effective_attention_kernel(kernel, gpu);
  if (kernel == AttentionKernel::unfused)
    return 0;
  const double relative = kernel == AttentionKernel::flash1 ? kFlash1Relative : 1.0;
  if (gpu.arch == GpuArch::hopper)
    return relative * hopper_share(kernel == AttentionKernel::cudnn, a);
  const double share = a.forward ? kAmpereForwardShare : kAmpereBackwardShare;
  const double library = kernel == AttentionKernel::cudnn ? kCudnnOnAmpere : 1.0;
  return relative * library * share * a.key_length / (a.key_length + kAmpereKeyHalf);
}

} // namespace echo::workloads
