#include "workloads/generator/compute_model.hpp"

#include "base/user_error.hpp"
#include "workloads/generator/attention_efficiency.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <span>
#include <sstream>
#include <vector>

namespace echo::workloads {

namespace {

struct Tile {
  double rows, cols, speed;  // speed: per-tile throughput relative to the largest tile
};
// Tensor-core GEMMs need big tiles to feed the MMA units (a tile's epilogue: epilogue_k_steps).
// CUDA-core (fp32) GEMMs are bound by the FMA pipes: smaller tiles cost little and the prologue and
// epilogue are short (~32 steps of K).
constexpr Tile kTensorTiles[] = {{256, 128, 1.00}, {128, 256, 1.00}, {128, 128, 0.93}, {128, 64, 0.82}, {64, 128, 0.82}, {64, 64, 0.65}};
constexpr Tile kSimtTiles[] = {{128, 128, 1.00}, {128, 64, 0.97}, {64, 128, 0.97}, {64, 64, 0.90}, {32, 64, 0.75}};
constexpr double kSimtKPrologue = 32;

double input_bytes(DataType t) {
  switch (t) {
  case DataType::fp32:
  case DataType::tf32: return 4;
  case DataType::fp16:
  case DataType::bf16: return 2;
  case DataType::fp8: return 1;
  }
  return 2;
}

double wave_fill(double tiles, double sms) { return tiles / (std::ceil(tiles / sms) * sms); }

// The tile a GEMM of m x n (batch of them) runs with on `sms` SMs: the one that does the most
// useful work per SM, its padding and its last wave's idle SMs counted.
struct TileChoice {
  double blocks = 0;  // output tiles over the batch: the blocks the kernel launches
  double share = 0;   // tile speed x padding x wave fill
};
TileChoice pick_tile(double m, double n, double batch, double sms, bool simt) {
  TileChoice best;
  for (const Tile& tile : simt ? std::span<const Tile>(kSimtTiles) : std::span<const Tile>(kTensorTiles)) {
    const double tiles_m = std::ceil(m / tile.rows), tiles_n = std::ceil(n / tile.cols);
    const double fill = (m * n) / (tiles_m * tile.rows * tiles_n * tile.cols);
    const double blocks = tiles_m * tiles_n * batch;
    const double share = tile.speed * fill * wave_fill(blocks, sms);
    if (share > best.share)
      best = {blocks, share};
  }
  return best;
}

} // namespace

ProfileDb ProfileDb::load(const std::string& path, const std::string& gpu, DataType dtype) {
  std::ifstream in(path);
  if (!in)
    throw UserError(path, 0, "cannot open the profiling database", "check workload.profile: a CSV with gpu,dtype,kernel,time_us");
  ProfileDb db;
  std::string line;
  int line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r')
      line.pop_back();
    if (line.empty() || line[0] == '#')
      continue;
    std::vector<std::string> f;
    std::stringstream ss(line);
    for (std::string cell; std::getline(ss, cell, ',');)
      f.push_back(cell);
    if (line_no == 1) {
      if (f != std::vector<std::string>{"gpu", "dtype", "kernel", "time_us"})
        throw UserError(path, 1, "the profiling database's header is not gpu,dtype,kernel,time_us",
                        "write that header; `kernel` is a key such as gemm:1x8192x2304x768 (docs/generator.md)");
      continue;
    }
    if (f.size() != 4)
      throw UserError(path, line_no, "expected 4 fields (gpu,dtype,kernel,time_us), found " + std::to_string(f.size()),
                      "fix the row");
    char* end = nullptr;
    const double us = std::strtod(f[3].c_str(), &end);
    if (end == f[3].c_str() || *end != '\0' || !(us > 0))
      throw UserError(path, line_no, "time_us `" + f[3] + "` is not a positive number", "give the kernel's time in microseconds");
    if (normalised_gpu_name(f[0]) != normalised_gpu_name(gpu) || f[1] != data_type_name(dtype))
      continue;
    db.times_s_[f[2]] = us * 1e-6;
  }
  return db;
}

double ProfileDb::find_s(const std::string& key) const {
  const auto it = times_s_.find(key);
  return it == times_s_.end() ? -1.0 : it->second;
}

ComputeModel::ComputeModel(GpuSpec gpu, DataType dtype, ProfileDb db)
    : gpu_(std::move(gpu)), dtype_(dtype), db_(std::move(db)) {}

double ComputeModel::gemm_efficiency(double m, double n, double k, double batch, double sms_held, double epilogue_bytes) const {
  return gpu_.gemm_share(dtype_) * shape_efficiency(m, n, k, batch, sms_held, dtype_, epilogue_bytes);
}

// A tile's epilogue leaves its accumulators to HBM (and, accumulating, first reads what is there) at
// the tile's SM's share of the bandwidth, while its tensor cores wait: tile rows x cols x bytes /
// (HBM / SMs). One step of K is rows x cols x 2 FLOP at the SM's share of the GEMM throughput, so
// the tile size cancels: bytes x achieved FLOP/s / (2 x achieved bytes/s). Writing 16 bits, that
// is 146 steps on an A100-80GB, 252 on an H100, whose tensor cores outgrew its HBM, and about twice
// as many in FP8, whose main loop runs twice as fast. Blackwell keeps two accumulators in tensor
// memory and runs one tile's epilogue beside the next tile's main loop, so this cost does not apply
// there; what is left of it is not measured here: ~128 steps (twice in FP8), as on an A100.
double ComputeModel::epilogue_k_steps(DataType t, double epilogue_bytes) const {
  if (gpu_.arch == GpuArch::blackwell)
    return t == DataType::fp8 ? 256 : 128;
  return epilogue_bytes * gpu_.peak_flops(t) * gpu_.gemm_share(t) / (2 * gpu_.hbm_Bps * gpu_.memory_efficiency);
}

double ComputeModel::shape_efficiency(double m, double n, double k, double batch, double sms_held, DataType t,
                                      double epilogue_bytes) const {
  const bool simt = t == DataType::fp32;
  const double sms = gpu_.sms - sms_held;
  const double overhead = simt ? kSimtKPrologue : epilogue_k_steps(t, epilogue_bytes);
  return pick_tile(m, n, batch, sms, simt).share * (sms / gpu_.sms) * k / (k + overhead);
}

DataType ComputeModel::operand_type(const KernelOp& op) const {
  if (!op.low_precision)
    return DataType::fp32;
  return dtype_ == DataType::fp8 && !op.fp8_capable ? DataType::bf16 : dtype_;
}

// Persistent kernels are the tensor-core ones (TMA and warpgroup MMA); a CUDA-core fp32 GEMM is
// not. The blocks are those of the tile the time above was worked out with.
bool ComputeModel::fills_gpu(const KernelOp& op) const {
  if (op.shape != KernelShape::gemm || operand_type(op) == DataType::fp32)
    return false;
  const double sms = gpu_.sms - op.sms_held;
  return pick_tile(op.m, op.n, op.batch, sms, false).blocks >= sms;
}

double ComputeModel::roofline_s(const KernelOp& op) const {
  const double hbm = gpu_.hbm_Bps * gpu_.memory_efficiency;
  switch (op.shape) {
  case KernelShape::gemm: {
    const DataType t = operand_type(op);
    const double elem = input_bytes(t), out_elem = std::max({2.0, elem, op.epilogue_bytes});
    const double shape = shape_efficiency(op.m, op.n, op.k, op.batch * op.side_by_side, op.sms_held, t, op.epilogue_bytes);
    const double compute = kernel_flops(op) / (gpu_.peak_flops(t) * gpu_.gemm_share(t) * shape);
    const double memory = op.batch * ((op.m * op.k + op.k * op.n) * elem + op.m * op.n * out_elem) / hbm;
    return std::max(compute, memory);
  }
  case KernelShape::attention_forward:
  case KernelShape::attention_backward: {
    // Attention runs in 16-bit even in fp8 recipes (Transformer Engine's default).
    const DataType t = dtype_ == DataType::fp8 ? DataType::bf16 : dtype_;
    const AttentionShape shape{op.shape == KernelShape::attention_forward, op.causal, op.n, op.k};
    // The forward's thread blocks each take 128 query rows, the backward's 128 keys (FlashAttention-2's
    // split of the backward over K / V blocks).
    const double blocks = op.batch * std::ceil((shape.forward ? op.m : op.n) / 128);
    const double eff = gpu_.gemm_share(t) * attention_efficiency(gpu_, op.attention, shape) * wave_fill(blocks, gpu_.sms);
    const double compute = kernel_flops(op) / (gpu_.peak_flops(t) * eff);
    const double memory = op.bytes / hbm;
    return std::max(compute, memory);
  }
  case KernelShape::memory: return op.bytes / hbm;
  }
  return 0;
}

double ComputeModel::time_s(const KernelOp& op) const {
  if (db_.size() > 0) {
    const double measured = db_.find_s(kernel_key(op));
    if (measured > 0) {
      ++hits_;
      return measured;
    }
  }
  return roofline_s(op) + kKernelOverheadS;
}

} // namespace echo::workloads
