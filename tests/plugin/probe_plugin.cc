// A test plugin (tests/registry/test_plugins.py builds it with CMake against envpool's SDK): one small
// env that fails on request, registered under ids chosen at compile time so the tests can also
// build refused variants (a taken id, an invalid id, a registration that throws).
//
//   observation  float32 [steps in this episode, a uniform draw from the env's Rng at reset]
//   action       Discrete(2); reward = action; terminated after `terminate_at` steps
//   fail_in      "ctor", "reset" or "step": throw there ("": never); reset / step throw on the
//                `fail_at`-th call of the env's life (and every fail_at-th after it)
//   info "seed"  the last seed the pool gave the env through Env::Seed (-1: none yet)
#include <stdexcept>
#include <string>

#include "core/plugin.h"

namespace probe {

class Probe : public envpool::Env {
 public:
  static envpool::Config DefaultConfig() {
    return {{"fail_in", std::string()}, {"fail_at", int64_t{1}}, {"terminate_at", int64_t{4}}};
  }
  static envpool::EnvSpec Spec(const envpool::Config& /*config*/) {
    return {{envpool::ArraySpec::Box("obs", envpool::DType::kFloat32, {2}, {0.0}, {1e9})},
            {envpool::ArraySpec::Discrete("action", 2)},
            {envpool::ArraySpec::Box("seed", envpool::DType::kInt64, {}, {}, {})}};
  }
  explicit Probe(const envpool::Config& config)
      : fail_in_(config.Get<std::string>("fail_in")),
        fail_at_(config.Get<int64_t>("fail_at")),
        terminate_at_(config.Get<int64_t>("terminate_at")) {
    if (fail_in_ == "ctor") throw std::runtime_error("Probe failed on purpose in its constructor");
    if (fail_at_ < 1) throw std::invalid_argument("Probe: fail_at must be >= 1");
  }
  void Seed(uint64_t seed) override { seed_ = static_cast<int64_t>(seed); }
  void Reset(envpool::Rng& rng, envpool::Output& out) override {
    if (fail_in_ == "reset" && ++resets_ % fail_at_ == 0) {
      throw std::runtime_error("Probe failed on purpose in reset " + std::to_string(resets_));
    }
    steps_ = 0;
    draw_ = static_cast<float>(rng.Uniform());
    Write(out);
  }
  void Step(const envpool::Action& action, envpool::Rng& /*rng*/, envpool::Output& out) override {
    if (fail_in_ == "step" && ++step_calls_ % fail_at_ == 0) {
      throw std::runtime_error("Probe failed on purpose in step " + std::to_string(step_calls_));
    }
    ++steps_;
    out.reward() = static_cast<double>(action.Get<int64_t>()[0]);
    out.terminated() = steps_ >= terminate_at_;
    Write(out);
  }

 private:
  void Write(envpool::Output& out) const {
    float* obs = out.Obs<float>();
    obs[0] = static_cast<float>(steps_);
    obs[1] = draw_;
    *out.Info<int64_t>(0) = seed_;
  }
  std::string fail_in_;
  int64_t fail_at_, terminate_at_;
  int64_t steps_ = 0, resets_ = 0, step_calls_ = 0;
  float draw_ = 0.0f;
  int64_t seed_ = -1;
};

}  // namespace probe

ENVPOOL_PLUGIN(PROBE_NAME) {
#ifdef PROBE_THROW
  throw std::runtime_error("probe registration failed on purpose");
#endif
  registry.Add(envpool::Task<probe::Probe>(PROBE_ID, 0));
#ifdef PROBE_SECOND_ID
  registry.Add(envpool::Task<probe::Probe>(PROBE_SECOND_ID, 10, 1.5, {{"terminate_at", int64_t{3}}}));
#endif
}
