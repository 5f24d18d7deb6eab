// The state layout every MuJoCo task exposes through GetState/SetState (docs/tasks.md):
//   concat(qpos, qvel, act, qacc_warmstart, time)
// (nq + nv + na + nv + 1 values), enough to reproduce a step exactly: MuJoCo's constraint solver
// starts from qacc_warmstart. Shorter prefixes are what the oracles' own setters take
// (gymnasium's set_state(qpos, qvel); dm_control's physics.set_state(qpos, qvel, act)): each task
// family says which prefixes it accepts and checks the size before WriteState.
#pragma once

#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include "envs/mujoco/loader.h"

namespace envpool::mujoco {

inline std::size_t FullStateSize(const mjModel* m) { return static_cast<std::size_t>(m->nq + 2 * m->nv + m->na + 1); }

inline std::vector<double> ReadState(const mjModel* m, const mjData* d) {
  std::vector<double> s;
  s.reserve(FullStateSize(m));
  s.insert(s.end(), d->qpos, d->qpos + m->nq);
  s.insert(s.end(), d->qvel, d->qvel + m->nv);
  s.insert(s.end(), d->act, d->act + m->na);
  s.insert(s.end(), d->qacc_warmstart, d->qacc_warmstart + m->nv);
  s.push_back(d->time);
  return s;
}

// Writes the prefix of the layout that `state` holds: qpos and qvel always, act when it reaches
// past them, qacc_warmstart and time only when it is the full layout. The caller has checked
// that state.size() is one of the prefixes it accepts (at least nq + nv).
inline void WriteState(const mjModel* m, mjData* d, const std::vector<double>& state) {
  const std::size_t nq = m->nq, nv = m->nv, na = m->na, n = state.size();
  const double* p = state.data();
  std::copy(p, p + nq, d->qpos);
  std::copy(p + nq, p + nq + nv, d->qvel);
  if (n >= nq + nv + na) std::copy(p + nq + nv, p + nq + nv + na, d->act);
  if (n == FullStateSize(m)) {
    std::copy(p + nq + nv + na, p + nq + 2 * nv + na, d->qacc_warmstart);
    d->time = p[nq + 2 * nv + na];
  }
}

// gymnasium MujocoEnv's set_state: concat(qpos, qvel) (the rest left as it is) or the full
// layout, then mj_forward as gymnasium does; the SetState of the tasks built on MujocoEnv.
inline void SetMujocoEnvState(const mjModel* m, mjData* d, const std::vector<double>& state) {
  const std::size_t nq = m->nq, nv = m->nv, full = FullStateSize(m);
  if (state.size() != nq + nv && state.size() != full) {
    throw std::invalid_argument("state must have nq + nv = " + std::to_string(nq + nv) + " values (qpos, qvel) or " +
                                std::to_string(full) + " (qpos, qvel, act, qacc_warmstart, time), got " +
                                std::to_string(state.size()));
  }
  WriteState(m, d, state);
  Mj().forward(m, d);
}

}  // namespace envpool::mujoco
