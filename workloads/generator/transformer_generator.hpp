#pragma once
// The transformer generator: a training job (model, training, parallel layout) on a GPU becomes a
// native trace — one rank template per pipeline stage (and context-parallel rank), the process
// groups of every parallel dimension, and the facts the summary needs (tokens, model FLOPs, memory).
//
// A stage's program: its pipeline passes in schedule order (pipeline_schedule.hpp), each pass's
// kernels and TP / CP / EP communication (pass_emitter.hpp), activations and gradients sent to the
// neighbouring stages, data-parallel gradient buckets in reverse layer order issued as the last
// micro-batch's backward completes them (AllReduce; ReduceScatter with ZeRO), the tied-embedding
// gradient AllReduce between the first and last stage, and the optimizer step. With ZeRO-1/2 and
// dp_overlap, the parameter AllGather that follows the optimizer is overlapped with the next
// iteration's forward, as Megatron-LM does — simulated here as gathers at the start of the
// iteration that the first forward of each chunk waits for (the steady state of a training run).
#include "proto/trace.pb.h"
#include "workloads/generator/compute_model.hpp"
#include "workloads/generator/pass_emitter.hpp"
#include "workloads/generator/training_job.hpp"
#include "workloads/training_facts.hpp"

#include <functional>
#include <memory>

namespace echo::workloads {

struct GeneratedJob {
  trace::Trace trace;
  TrainingFacts facts;  // memory_by_program follows trace.templates()
};

// Makes the passes of one rank template; the default is the transformer's PassEmitter.
using PassFactory = std::function<std::unique_ptr<ChunkPasses>(ProgramBuilder& builder, std::uint32_t stage, std::uint32_t cp_rank)>;

// `job` must have passed check_training_job().
GeneratedJob generate_training_job(const TrainingJob& job, const ComputeModel& model, const PassFactory& passes = {});

// Model FLOPs of one iteration: 3 x (2 x active matmul parameters per token + 4 x seq x heads x
// head_dim per layer for attention scores and values) x tokens, plus the LM head — Megatron-LM's
// formula, generalised to grouped-query attention, SwiGLU and mixtures of experts.
double model_flops_per_iteration(const TrainingJob& job);

} // namespace echo::workloads
