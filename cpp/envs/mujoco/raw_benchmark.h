// The raw physics limit of a MuJoCo task: env steps per second of a plain C++ loop of mj_step,
// without the pool, observations, rewards or Python (bench/mujoco_throughput.py compares the
// pool against it).
#pragma once

#include <string>

namespace envpool::mujoco {

// Loads `xml_path` through LoadModel (resolved as gymnasium does: a bare name is one of its
// asset files), makes one mjData per env and steps them for `seconds` on `num_threads` threads,
// each owning num_envs / num_threads of the datas (made on that thread): per env step, a
// random ctrl within actuator_ctrlrange (drawn ahead of time), `frame_skip` mj_step calls and,
// with `rne_post_constraint`, one mj_rnePostConstraint (as gymnasium's do_simulation); an env
// whose sim time passes 10 s is reset to qpos0 (mj_resetData). Returns env steps per second
// over the time all threads ran. Call it without holding the GIL.
double RawStepsPerSecond(const std::string& xml_path, int num_envs, int num_threads, double seconds, int frame_skip,
                         bool rne_post_constraint = false);

}  // namespace envpool::mujoco
