#pragma once
// The generator's part of a job file: `workload: {model, training, parallel, profile}` (see
// docs/generator.md for every key and its default).
#include "workloads/generator/training_job.hpp"

#include <yaml-cpp/yaml.h>

#include <string>

namespace echo::cli {

bool has_training_section(const YAML::Node& workload);
workloads::TrainingJob read_training_job(const YAML::Node& workload, const std::string& file, const std::string& base_dir);

} // namespace echo::cli
