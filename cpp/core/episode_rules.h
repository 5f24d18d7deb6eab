// Episode rules: what one env's order does to its episode, and how that is written as a row.
//
// Time limits (max_episode_steps truncates), elapsed-step counters, and autoreset, as
// gymnasium.vector.AutoresetMode:
//   kNextStep  after an episode ends, the env's next step ignores its action, starts a new
//              episode and returns its first observation with reward 0 and both flags false;
//   kSameStep  an env whose episode ends is reset in the same step: the row holds the new
//              episode's first observation and the final_* fields the finished one's last;
//   kDisabled  never reset automatically (the protocol refuses to step a finished env until
//              it is reset); last observations are kept for rows that repeat them.
//
// The rules are the same for every executor: Run() is given the env's own part as two
// callables (start an episode, take a step), which step a native env in a worker thread or
// copy what a worker process staged. Per-env state (EpisodeState) lives with the env, on the
// cache lines of whoever runs it.
#pragma once

#include <cstdint>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include "core/buffers.h"
#include "core/env.h"
#include "core/exception_text.h"
#include "core/orders.h"
#include "core/row_guard.h"

namespace envpool {

enum class AutoresetMode { kNextStep, kSameStep, kDisabled };

struct EpisodeState {
  int32_t elapsed_step = 0;
  bool episode_over = false;  // the episode ended (kNextStep resets on the next step)
};

class EpisodeRules {
 public:
  EpisodeRules(const BatchLayout& layout, int num_envs, int max_episode_steps, AutoresetMode mode)
      : layout_(layout), max_episode_steps_(max_episode_steps), mode_(mode) {
    if (mode == AutoresetMode::kDisabled) {
      for (std::size_t f = 0; f < layout_.num_obs; ++f) {
        last_obs_.emplace_back(static_cast<std::size_t>(num_envs) * layout_.fields[f].row_bytes);
      }
    }
  }

  AutoresetMode mode() const { return mode_; }
  int max_episode_steps() const { return max_episode_steps_; }

  // What an order really does: a step of an env whose episode ended starts a new episode
  // (kNextStep; after an env error also kSameStep, whose env was not reset).
  Op Effective(const EpisodeState& st, Op op) const {
    return op == Op::kStep && st.episode_over && mode_ != AutoresetMode::kDisabled ? Op::kReset : op;
  }
  // Whether the next step of this env reaches max_episode_steps (an executor whose env runs
  // elsewhere tells it, so that a same-step reset happens there).
  bool StepHitsTimeLimit(const EpisodeState& st) const {
    return max_episode_steps_ > 0 && st.elapsed_step + 1 >= max_episode_steps_;
  }

  // Runs one env's order into row `row` of `buf` and fills every field of the row.
  // `reset(out)` starts a new episode, `step(out)` takes a step (both write obs, info and,
  // for a step, reward and flags). An exception from either still completes the row: the
  // episode is cut short (truncated, and the env restarts like after any episode end) and
  // the exception's text is stored in `*error`.
  template <class Reset, class Step>
  [[gnu::always_inline]] inline void Run(EpisodeState& st, int env_id, Op op, const BatchBuffers& buf, std::size_t row,
                                         Reset&& reset, Step&& step, std::string* error) {
    Run(st, env_id, op, buf, BatchRows(layout_, buf), row, reset, step, error);
  }

  // The same with `buf`'s rows resolved by the caller, once for the envs it steps into one batch.
  // Always inlined: it runs once per env step, and GCC stops inlining it at the first change
  // around it (+7% instructions per step when it is a call, measured with callgrind).
  template <class Reset, class Step>
  [[gnu::always_inline]] inline void Run(EpisodeState& st, int env_id, Op op, const BatchBuffers& buf,
                                         const BatchRows& rows, std::size_t row, Reset&& reset, Step&& step,
                                         std::string* error) {
    void* obs[kMaxArraysPerKind];
    void* info[kMaxArraysPerKind];
    // One observation field is the common case: the loop's setup costs more than its one pass.
    if (rows.num_obs == 1) {
      obs[0] = rows.obs[0] + row * rows.obs_bytes[0];
    } else {
      for (std::size_t f = 0; f < rows.num_obs; ++f) obs[f] = rows.obs[f] + row * rows.obs_bytes[f];
    }
    for (std::size_t f = 0; f < rows.num_info; ++f) info[f] = rows.info[f] + row * rows.info_bytes[f];
    double* reward = rows.reward + row;
    bool* terminated = rows.terminated + row;
    bool* truncated = rows.truncated + row;
    const int max_steps = max_episode_steps_;  // read before the env's step: a register across it
    Output out(obs, info, reward, terminated, truncated);
    *reward = 0.0;
    *terminated = false;
    *truncated = false;

    try {
      op = Effective(st, op);
      if (op == Op::kRepeat) {
        // Not reset: show the last observation again; it has no new info.
        for (std::size_t f = 0; f < layout_.num_obs; ++f) {
          std::memcpy(obs[f], LastObs(f, env_id), layout_.fields[f].row_bytes);
        }
        for (std::size_t f = 0; f < layout_.num_info; ++f) {
          std::memset(info[f], 0, layout_.fields[layout_.first_info + f].row_bytes);
        }
      } else if (op == Op::kReset) {
        Call(reset, out);
        st.elapsed_step = 0;
        st.episode_over = false;
        if (layout_.has_final) WriteFinal(buf, row, 0, false);
      } else {
        Call(step, out);
        const int32_t elapsed = ++st.elapsed_step;
        if (max_steps > 0 && elapsed >= max_steps) *truncated = true;
        st.episode_over = *terminated || *truncated;
        if (layout_.has_final) {
          WriteFinal(buf, row, elapsed, st.episode_over);
          if (st.episode_over) {
            Call(reset, out);
            st.elapsed_step = 0;
            st.episode_over = false;
          }
        }
      }
      if (!last_obs_.empty()) {
        for (std::size_t f = 0; f < layout_.num_obs; ++f) {
          std::memcpy(LastObs(f, env_id), obs[f], layout_.fields[f].row_bytes);
        }
      }
    } catch (const std::exception& e) {
      // The row still completes so the batch accounting holds.
      *truncated = true;
      st.episode_over = true;
      *error = ExceptionText(e);
    }
    rows.env_id[row] = env_id;
    rows.elapsed_step[row] = st.elapsed_step;
  }

  // Ends env `st`'s episode at row `row` after the row was written (its env was lost before
  // the row was returned): the row reads truncated unless it ended the episode already, with
  // final_* fields as for any episode end, and the env starts a new episode on its next order.
  void CutShort(EpisodeState& st, const BatchBuffers& buf, std::size_t row) const {
    bool* terminated = buf.Row<bool>(layout_, layout_.terminated, row);
    bool* truncated = buf.Row<bool>(layout_, layout_.truncated, row);
    if (!*terminated && !*truncated) {
      *truncated = true;
      if (layout_.has_final) WriteFinal(buf, row, st.elapsed_step, true);
    }
    st.episode_over = true;
  }

 private:
  // Runs an env's reset or step on `out`; debug builds check that it writes only its own rows
  // (core/row_guard.h).
  template <class F>
  [[gnu::always_inline]] inline void Call(F& f, Output& out) const {
#if ENVPOOL_ROW_GUARD
    RowGuard::Run(layout_, out, f);
#else
    f(out);
#endif
  }

  // Same-step autoreset: copies the finished episode's obs and info rows into final_* fields;
  // rows of envs that did not finish are zeroed so a batch never shows stale values.
  void WriteFinal(const BatchBuffers& buf, std::size_t row, int32_t elapsed, bool done) const {
    for (std::size_t f = 0; f < layout_.num_obs; ++f) {
      char* dst = buf.Row<char>(layout_, layout_.first_final_obs + f, row);
      if (done) {
        std::memcpy(dst, buf.Row<char>(layout_, f, row), layout_.fields[f].row_bytes);
      } else {
        std::memset(dst, 0, layout_.fields[f].row_bytes);
      }
    }
    *buf.Row<int32_t>(layout_, layout_.final_elapsed_step, row) = done ? elapsed : 0;
    for (std::size_t f = 0; f < layout_.num_info; ++f) {
      const std::size_t src = layout_.first_info + f;
      char* dst = buf.Row<char>(layout_, layout_.first_final_info + f, row);
      if (done) {
        std::memcpy(dst, buf.Row<char>(layout_, src, row), layout_.fields[src].row_bytes);
      } else {
        std::memset(dst, 0, layout_.fields[src].row_bytes);
      }
    }
  }

  char* LastObs(std::size_t field, int env_id) {
    return last_obs_[field].data() + static_cast<std::size_t>(env_id) * layout_.fields[field].row_bytes;
  }

  const BatchLayout& layout_;
  const int max_episode_steps_;
  const AutoresetMode mode_;
  std::vector<std::vector<char>> last_obs_;  // kDisabled: per obs field, each env's last obs
};

}  // namespace envpool
