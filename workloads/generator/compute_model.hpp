#pragma once
// ComputeModel: how long a generated kernel takes on a GPU. A profiling database of measured
// times wins where it has the kernel; otherwise a roofline — the slower of the tensor-core time at
// a shape-dependent efficiency and the HBM time — plus a fixed launch-to-finish overhead.
//
// The GEMM efficiency is the GPU's large-GEMM share (gpu_specs.cpp) times what the shape costs:
//  - tile fill and wave quantisation: the library covers C with output tiles (it picks the best of
//    256x128, 128x128, 128x64, 64x64; smaller tiles reuse less data, so run slower per tile) and runs
//    them in waves of one tile per SM; a last, partial wave idles the rest of the GPU;
//  - the K loop: each tile ends with an epilogue that moves its output to HBM while its tensor
//    cores wait, worth epilogue_k_steps() steps of K (146 on an A100, 252 on an H100).
// So 8192^3 runs near the GPU's peak share and a GEMM with 64 rows or a short K does not.
// Fused attention kernels reach the share of the GEMM share attention_efficiency.hpp gives for
// their implementation, mask and key length (measured on Hopper), times their wave fill.
#include "workloads/generator/gpu_specs.hpp"
#include "workloads/generator/kernel_op.hpp"

#include <map>
#include <string>

namespace echo::workloads {

// Measured kernel times: CSV with the header `gpu,dtype,kernel,time_us`, `kernel` being
// kernel_key() ("gemm:1x8192x2304x768"). Rows of other GPUs or dtypes are ignored.
class ProfileDb {
public:
  static ProfileDb load(const std::string& path, const std::string& gpu, DataType dtype);
  // Seconds, or a negative value when the database has no entry.
  double find_s(const std::string& key) const;
  std::size_t size() const { return times_s_.size(); }

private:
  std::map<std::string, double> times_s_;
};

class ComputeModel {
public:
  ComputeModel(GpuSpec gpu, DataType dtype, ProfileDb db = {});

  double time_s(const KernelOp& op) const;
  // Share of peak a GEMM of this shape reaches; `batch` independent GEMMs share the waves, on the
  // GPU's SMs but `sms_held`.
  double gemm_efficiency(double m, double n, double k, double batch = 1, double sms_held = 0, double epilogue_bytes = 2) const;
  // The steps of K a tensor-core tile's epilogue is worth, moving `epilogue_bytes` per output
  // element (2: writing C in 16 bits; 8: reading and writing an fp32 gradient it accumulates into).
  double epilogue_k_steps(DataType t, double epilogue_bytes = 2) const;
  // Whether a GEMM launched as a persistent kernel (a block per output tile, up to one per SM:
  // training.persistent_gemms) has a block on every SM it may use, so fills the GPU.
  bool fills_gpu(const KernelOp& op) const;
  const GpuSpec& gpu() const { return gpu_; }
  DataType dtype() const { return dtype_; }
  std::size_t database_hits() const { return hits_; }

  static constexpr double kKernelOverheadS = 2e-6;

private:
  double roofline_s(const KernelOp& op) const;
  // The type a GEMM's operands are read in: fp32 for an op kept in full precision, bf16 for one
  // that FP8 does not cover.
  DataType operand_type(const KernelOp& op) const;
  // gemm_efficiency without the GPU's share: tiles, waves and the K loop, for operands of type t.
  double shape_efficiency(double m, double n, double k, double batch, double sms_held, DataType t, double epilogue_bytes) const;

  GpuSpec gpu_;
  DataType dtype_;
  ProfileDb db_;
  mutable std::size_t hits_ = 0;
};

} // namespace echo::workloads
