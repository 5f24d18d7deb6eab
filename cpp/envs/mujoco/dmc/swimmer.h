// dm_control.suite.swimmer: swimmer6, swimmer15 (the n-link body, actuators and sensors are added
// to swimmer.xml as dm_control's _make_model does).
#pragma once

#include "envs/mujoco/dmc/cartpole.h"  // PyFloat, ReplaceOnce
#include "envs/mujoco/dmc/dmc_env.h"

namespace envpool::mujoco::dmc {

class Swimmer : public DmcEnv {
 public:
  static Config DefaultConfig() { return BaseConfig("swimmer6", 15, 30.0); }

  static std::shared_ptr<const mjModel> Model(const Config& config) {
    const int n = TaskName(config, {"swimmer6", "swimmer15"}, "swimmer") == "swimmer6" ? 6 : 15;
    return SuiteModel("swimmer.xml", std::to_string(n) + " links", [n](const std::string& xml) {
      std::string s = xml, bodies, close, motors, sensors;
      const std::string limit = PyFloat(360.0 / n);
      for (int i = 0; i < n - 1; ++i) {
        const std::string k = std::to_string(i);
        bodies += "<body name=\"segment_" + k + "\" pos=\"0 .1 0\"><geom class=\"visual\" name=\"visual_" + k +
                  "\"/><geom class=\"inertial\" name=\"inertial_" + k + "\"/><site name=\"site_" + k +
                  "\"/><joint name=\"joint_" + k + "\" range=\"" + PyFloat(-360.0 / n) + " " + limit + "\"/>";
        close += "</body>";
        motors += "<motor name=\"motor_" + k + "\" joint=\"joint_" + k + "\"/>";
        sensors += "<velocimeter name=\"velocimeter_" + k + "\" site=\"site_" + k + "\"/><gyro name=\"gyro_" + k +
                   "\" site=\"site_" + k + "\"/>";
      }
      ReplaceOnce(s, "<site name=\"head\"/>", "<site name=\"head\"/>" + bodies + close, "swimmer.xml");
      ReplaceOnce(s, "</mujoco>", "<actuator>" + motors + "</actuator><sensor>" + sensors + "</sensor></mujoco>",
                  "swimmer.xml");
      // The tracking cameras move out with the body's length (scale n / 6).
      const double scale = n / 6.0;
      for (const char* pos : {"0 -.2 .5", "-.9 .5 .15"}) {
        std::istringstream in(pos);
        std::string dim, scaled;
        while (in >> dim) {
          if (!scaled.empty()) scaled += ' ';
          scaled += PyFloat(std::stod(dim) * scale);
        }
        ReplaceOnce(s, std::string("pos=\"") + pos + "\"", "pos=\"" + scaled + "\"", "swimmer.xml");
      }
      return s;
    });
  }

  static EnvSpec Spec(const Config& config) {
    auto m = Model(config);
    return MakeSpec(m.get(), config,
                    {{"joints", {m->nq - 3}}, {"to_target", {2}}, {"body_velocities", {3 * (m->nbody - 1)}}});
  }

  explicit Swimmer(const Config& config)
      : DmcEnv(config, Model(config)),
        head_(BodyId("head")),
        target_(GeomId("target")),
        nose_(GeomId("nose")),
        light_(Id(m_, mjOBJ_LIGHT, "target_light")) {}

 protected:
  void InitializeEpisode() override {
    RandomizeLimitedAndRotationalJoints();
    const bool close_target = random_.Uniform() < .2;
    const double box = close_target ? .3 : 2;
    const double x = random_.Uniform(-box, box), y = random_.Uniform(-box, box);
    m_->geom_pos[3 * target_] = x;
    m_->geom_pos[3 * target_ + 1] = y;
    m_->light_pos[3 * light_] = x;
    m_->light_pos[3 * light_ + 1] = y;
  }
  void WriteObservation(ObsWriter& w) const override {
    w.Put(data_->qpos + 3, m_->nq - 3);
    NoseToTarget(w.Next(2));
    const int bodies = m_->nbody - 1;
    double* v = w.Next(3 * bodies);
    const double* s = data_->sensordata + 12;
    for (int b = 0; b < bodies; ++b) {
      v[3 * b] = s[6 * b];
      v[3 * b + 1] = s[6 * b + 1];
      v[3 * b + 2] = s[6 * b + 5];
    }
  }
  double Reward() const override {
    const double target_size = m_->geom_size[3 * target_];
    double d[2];
    NoseToTarget(d);
    return Tolerance(Norm(d, 2), 0, target_size, 5 * target_size, Sigmoid::kLongTail);
  }

 private:
  // (target - nose) in the head's frame (numpy's v.dot(M)), x and y.
  void NoseToTarget(double* out) const {
    double g[3];
    for (int i = 0; i < 3; ++i) g[i] = data_->geom_xpos[3 * target_ + i] - data_->geom_xpos[3 * nose_ + i];
    const double* r = data_->xmat + 9 * head_;
    for (int j = 0; j < 2; ++j) out[j] = g[0] * r[j] + g[1] * r[3 + j] + g[2] * r[6 + j];
  }
  int head_, target_, nose_, light_;
};

}  // namespace envpool::mujoco::dmc
