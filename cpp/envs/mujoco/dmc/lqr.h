// dm_control.suite.lqr: lqr_2_1, lqr_6_2.
//
// dm_control builds the LQR model from the task's own RandomState: each joint's stiffness and
// damping are drawn (uniform(15, 25), uniform(0, 0)) when the environment is made, and the
// episodes' draws continue that stream. So here every seed (make, reset(seed=...)) compiles the
// env's model anew from the seed's first draws, as suite.load(..., task_kwargs={'random': seed})
// does. The time limit is dm_control's: none (time_limit=inf); an episode ends (discount 0) when
// the state's norm falls below 1e-6.
#pragma once

#include "envs/mujoco/dmc/cartpole.h"  // ReplaceOnce
#include "envs/mujoco/dmc/dmc_env.h"

namespace envpool::mujoco::dmc {

class Lqr : public DmcEnv {
 public:
  static Config DefaultConfig() { return BaseConfig("lqr_2_1", 1, INFINITY); }

  static std::pair<int, int> Sizes(const Config& config) {
    return TaskName(config, {"lqr_2_1", "lqr_6_2"}, "lqr") == "lqr_2_1" ? std::pair{2, 1} : std::pair{6, 2};
  }

  // lqr.xml with n_bodies bodies, n_actuators motors and the spatial tendons between them;
  // stiffness / damping drawn from `random` as dm_control's _make_model draws them.
  static std::string Xml(const std::string& base, int n_bodies, int n_actuators, LegacyRandomState& random) {
    std::string bodies, close, motors, tendons;
    for (int b = 0; b < n_bodies; ++b) {
      const std::string k = std::to_string(b);
      const double stiffness = random.Uniform(15, 25);
      const double damping = random.Uniform(0, 0);
      bodies += "<body name=\"body_" + k + "\" pos=\"" + (b == 0 ? ".25 0 .1" : ".25 0 0") + "\"><joint name=\"joint_" +
                k + "\" stiffness=\"" + PyFloat(stiffness) + "\" damping=\"" + PyFloat(damping) +
                "\"/><geom name=\"geom_" + k + "\"/><site name=\"site_" + k + "\"/>";
      close += "</body>";
      if (b < n_actuators) motors += "<motor name=\"motor_" + k + "\" joint=\"joint_" + k + "\"/>";
      if (b < n_bodies - 1) {
        tendons += "<spatial name=\"tendon_" + k + "\"><site site=\"site_" + k + "\"/><site site=\"site_" +
                   std::to_string(b + 1) + "\"/></spatial>";
      }
    }
    std::string s = base;
    ReplaceOnce(s, "</worldbody>", bodies + close + "</worldbody>", "lqr.xml");
    ReplaceOnce(s, "</mujoco>", "<actuator>" + motors + "</actuator><tendon>" + tendons + "</tendon></mujoco>",
                "lqr.xml");
    return s;
  }

  static std::shared_ptr<const mjModel> Model(const Config& config) {
    const auto [n_bodies, n_actuators] = Sizes(config);
    return SuiteModel("lqr.xml", std::to_string(n_bodies) + "_" + std::to_string(n_actuators),
                      [n_bodies, n_actuators](const std::string& xml) {
                        LegacyRandomState random(0);  // the spaces do not depend on the stiffness
                        return Xml(xml, n_bodies, n_actuators, random);
                      });
  }

  static EnvSpec Spec(const Config& config) {
    auto m = Model(config);
    return MakeSpec(m.get(), config, {{"position", {m->nq}}, {"velocity", {m->nv}}});
  }

  explicit Lqr(const Config& config) : DmcEnv(config, Model(config)), base_xml_(ReadFile(SuiteDir() + "/lqr.xml")) {
    std::tie(n_bodies_, n_actuators_) = Sizes(config);
  }

  void Seed(uint64_t seed) override {
    random_.Seed(static_cast<uint32_t>(seed));
    ReplaceModel(CompileSuiteXml("lqr.xml", Xml(base_xml_, n_bodies_, n_actuators_, random_)));
  }

 protected:
  void InitializeEpisode() override {
    const int n = m_->nq;
    double unit[16];
    for (int i = 0; i < n; ++i) unit[i] = random_.Normal();
    const double norm = Norm(unit, n);
    for (int i = 0; i < n; ++i) data_->qpos[i] = std::sqrt(2.0) * unit[i] / norm;
  }
  void WriteObservation(ObsWriter& w) const override {
    w.Put(data_->qpos, m_->nq);
    w.Put(data_->qvel, m_->nv);
  }
  double Reward() const override {
    const double state_cost = 0.5 * Dot(data_->qpos, data_->qpos, m_->nq);
    const double control = 0.5 * Dot(data_->ctrl, data_->ctrl, m_->nu);
    return 1 - (state_cost + control * 0.1);
  }
  bool Terminated() const override {
    // norm(physics.state()): qpos, qvel, act (lqr has no activations).
    double s = 0;
    bool first = true;
    for (const double* v : {data_->qpos, data_->qvel}) {
      const int n = v == data_->qpos ? m_->nq : m_->nv;
      for (int i = 0; i < n; ++i) {
        s = first ? v[i] * v[i] : s + v[i] * v[i];
        first = false;
      }
    }
    return std::sqrt(s) < 1e-6;
  }

 private:
  // np.dot of two short vectors: OpenBLAS' ddot, the products added one by one (see gym's Norm).
  static double Dot(const double* a, const double* b, int n) {
    double s = a[0] * b[0];
    for (int i = 1; i < n; ++i) s += a[i] * b[i];
    return s;
  }
  std::string base_xml_;
  int n_bodies_ = 0, n_actuators_ = 0;
};

}  // namespace envpool::mujoco::dmc
