#pragma once
// An XGBoost JSON model checked before libxgboost reads it: the library trusts the numbers in the
// file and crashes (or corrupts its heap) on a child, parent or split index out of range. Every
// tree's arrays must have num_nodes entries, children and parents must name nodes of the tree
// (or none), split features must be features the model has, tree_info must name a group.
#include <string>

namespace echo::slowdown {

// Throws UserError naming the file, the tree and what is out of range.
void check_model_structure(const std::string& path);

} // namespace echo::slowdown
