// Batch buffers: how one batch of results is laid out in memory.
//
// A batch is a set of arrays ("fields"), each with one row per env in the batch:
//   obs fields..., reward, terminated, truncated, env_id, elapsed_step, info fields...
// and, for same-step autoreset, the finished episode's last values:
//   final_<obs fields>..., final_elapsed_step, final_<info fields>...
// The memory is owned outside the core (by NumPy arrays in the Python module) and lent to
// the pool one batch at a time through BatchBuffers, so workers write results exactly where
// the user will read them and nothing is copied.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/spec.h"

namespace envpool {

struct FieldLayout {
  std::string name;
  DType dtype;
  std::vector<int> shape;  // per row
  std::size_t row_bytes;
};

struct BatchLayout {
  std::vector<FieldLayout> fields;
  std::size_t num_obs = 0;  // fields [0, num_obs) are observations
  std::size_t reward = 0, terminated = 0, truncated = 0, env_id = 0, elapsed_step = 0;
  std::size_t first_info = 0;  // fields [first_info, first_info + num_info) are the env's info
  std::size_t num_info = 0;
  bool has_final = false;  // same-step autoreset: the final_* fields below exist
  std::size_t first_final_obs = 0, final_elapsed_step = 0, first_final_info = 0;

  static BatchLayout For(const EnvSpec& spec, bool with_final) {
    BatchLayout layout;
    auto add = [&layout](const std::string& name, DType dtype, std::vector<int> shape) {
      std::size_t n = DTypeSize(dtype);
      for (int d : shape) n *= static_cast<std::size_t>(d);
      layout.fields.push_back({name, dtype, std::move(shape), n});
      return layout.fields.size() - 1;
    };
    for (const auto& o : spec.obs) add(o.name, o.dtype, o.shape);
    layout.num_obs = spec.obs.size();
    layout.reward = add("reward", DType::kFloat64, {});
    layout.terminated = add("terminated", DType::kBool, {});
    layout.truncated = add("truncated", DType::kBool, {});
    layout.env_id = add("env_id", DType::kInt32, {});
    layout.elapsed_step = add("elapsed_step", DType::kInt32, {});
    layout.first_info = layout.fields.size();
    for (const auto& i : spec.info) add(i.name, i.dtype, i.shape);
    layout.num_info = spec.info.size();
    if (with_final) {
      layout.has_final = true;
      layout.first_final_obs = layout.fields.size();
      for (const auto& o : spec.obs) add("final_" + o.name, o.dtype, o.shape);
      layout.final_elapsed_step = add("final_elapsed_step", DType::kInt32, {});
      layout.first_final_info = layout.fields.size();
      for (const auto& i : spec.info) add("final_" + i.name, i.dtype, i.shape);
    }
    return layout;
  }
};

// Where one batch's fields live: data[f] points at row 0 of field f (rows are contiguous).
struct BatchBuffers {
  std::vector<char*> data;

  template <typename T>
  T* Row(const BatchLayout& layout, std::size_t field, std::size_t row) const {
    return reinterpret_cast<T*>(data[field] + row * layout.fields[field].row_bytes);
  }
};

// The fields an env step writes, as plain row-0 pointers and row sizes: resolved once for a run
// of envs stepped into one batch (a chunk), not per env. Per env, BatchBuffers::Row reads two
// vectors, and every store through a row's char or bool pointer (which may alias anything) made
// the compiler read them again: ~40 instructions of a CartPole step (callgrind).
struct BatchRows {
  BatchRows(const BatchLayout& layout, const BatchBuffers& buf)
      : num_obs(layout.num_obs),
        num_info(layout.num_info),
        reward(buf.Row<double>(layout, layout.reward, 0)),
        terminated(buf.Row<bool>(layout, layout.terminated, 0)),
        truncated(buf.Row<bool>(layout, layout.truncated, 0)),
        env_id(buf.Row<int32_t>(layout, layout.env_id, 0)),
        elapsed_step(buf.Row<int32_t>(layout, layout.elapsed_step, 0)) {
    for (std::size_t f = 0; f < num_obs; ++f) {
      obs[f] = buf.data[f];
      obs_bytes[f] = layout.fields[f].row_bytes;
    }
    for (std::size_t f = 0; f < num_info; ++f) {
      info[f] = buf.data[layout.first_info + f];
      info_bytes[f] = layout.fields[layout.first_info + f].row_bytes;
    }
  }

  std::size_t num_obs, num_info;
  double* reward;
  bool* terminated;
  bool* truncated;
  int32_t* env_id;
  int32_t* elapsed_step;
  char* obs[kMaxArraysPerKind];
  std::size_t obs_bytes[kMaxArraysPerKind];
  char* info[kMaxArraysPerKind];
  std::size_t info_bytes[kMaxArraysPerKind];
};

}  // namespace envpool
