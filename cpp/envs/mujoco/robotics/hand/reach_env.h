// gymnasium-robotics 1.4.2's HandReach (envs/shadow_dexterous_hand/reach.py's
// MujocoHandReachEnv), native: bring the thumb and one other fingertip to a meeting point.
//
// Upstream, in order:
//   construction (_env_setup): DEFAULT_INITIAL_QPOS written into the 24 joints; mj_forward; the
//     five fingertip sites' positions (initial_goal) and the palm body's position recorded.
//   reset: mj_resetData; time, qpos, qvel of the end of construction; mj_forward; the goal
//     (_sample_goal, np_random in this order): choice of one of the four fingers; the meeting
//     point palm + (0, -0.09, 0.05) + normal(scale=0.005, size=3); the thumb's and that finger's
//     goals 0.005 short of it on the line from their initial tips; with probability 0.1 (a
//     uniform() < 0.1) the initial tips instead.
//   step: hand_env.h's action, 20 mj_steps; observation (robot qpos, qvel, the 15 fingertip
//     coordinates = achieved_goal); is_success = (d < 0.01) as float32; reward sparse
//     -(d > 0.01) as float32 (-1 or -0), dense -d, d = np.linalg.norm(achieved - desired).
#pragma once

#include <array>
#include <string>
#include <vector>

#include "envs/mujoco/robotics/hand/hand_env.h"

namespace envpool::mujoco::robotics::hand {

class HandReachEnv : public Env {
  static constexpr int kGoal = 15;
  static constexpr double kThreshold = 0.01;

 public:
  static Config DefaultConfig() {
    Config c{{"reward_type", std::string("sparse")}};
    AddHandRenderConfig(c);
    return c;
  }

  // Dict(achieved_goal (15,), desired_goal (15,), observation (63,)).
  static EnvSpec Spec(const Config& config) {
    ParseRewardType(config);
    EnvSpec spec;
    AddGoalObs(spec, 24 * 2 + kGoal, kGoal);
    AddHandSpec(spec, config);
    return spec;
  }

  explicit HandReachEnv(const Config& config) : type_(ParseRewardType(config)), sim_(config, "hand/reach.xml") {
    static constexpr const char* kTips[5] = {"robot0:S_fftip", "robot0:S_mftip", "robot0:S_rftip", "robot0:S_lftip",
                                             "robot0:S_thtip"};
    for (int k = 0; k < 5; ++k) {
      tips_[k] = sim_.Id(mjOBJ_SITE, kTips[k]);
      target_sites_[k] = sim_.Id(mjOBJ_SITE, ("target" + std::to_string(k)).c_str());
      finger_sites_[k] = sim_.Id(mjOBJ_SITE, ("finger" + std::to_string(k)).c_str());
    }
    if (sim_.RobotJoints() != 24) throw std::runtime_error("the HandReach model has no 24 robot joints");
    for (const auto& [name, value] : kInitialQpos) {
      sim_.data_->qpos[sim_.m_->jnt_qposadr[sim_.Id(mjOBJ_JOINT, name)]] = value;
    }
    Mj().forward(sim_.m_, sim_.data_);
    WriteTips(initial_goal_.data());
    const double* palm = sim_.data_->xpos + 3 * sim_.Id(mjOBJ_BODY, "robot0:palm");
    std::copy(palm, palm + 3, palm_.begin());
    sim_.RecordInitialState();
  }

  void Reset(Rng& rng, Output& out) override {
    Mj().resetData(sim_.m_, sim_.data_);
    sim_.RestoreInitialState();
    Mj().forward(sim_.m_, sim_.data_);
    SampleGoal(rng);
    WriteObs(out);
    *out.Info<float>(0) = 0.0f;  // upstream's reset info is empty
  }

  void Step(const Action& action, Rng& /*rng*/, Output& out) override {
    sim_.Step(action.Get<float>());
    WriteObs(out);
    const double d = GoalRowDistance(GoalObsOf(out).achieved_goal, goal_.data(), kGoal);
    *out.Info<float>(0) = d < kThreshold ? 1.0f : 0.0f;
    out.terminated() = false;
    out.reward() = Reward(d, type_);
  }

  // _render_callback: the target sites moved to the goal, the finger sites to the fingertips
  // (each site_pos = position - (site_xpos - site_pos) of the moment), mj_forward, then the frame.
  void Render(uint8_t* rgb) const override {
    mjModel* m = sim_.RenderModel();
    mjData* d = sim_.data_;
    double tips[kGoal];
    WriteTips(tips);
    for (int k = 0; k < 5; ++k) {
      const int t = target_sites_[k], f = finger_sites_[k];
      for (int j = 0; j < 3; ++j) {
        const double target_offset = d->site_xpos[3 * t + j] - m->site_pos[3 * t + j];
        const double finger_offset = d->site_xpos[3 * f + j] - m->site_pos[3 * f + j];
        m->site_pos[3 * t + j] = goal_[3 * k + j] - target_offset;
        m->site_pos[3 * f + j] = tips[3 * k + j] - finger_offset;
      }
    }
    Mj().forward(m, d);
    sim_.Draw(rgb);
  }

  static int GoalSize(const Config& /*config*/) { return kGoal; }
  static std::vector<std::string> GoalConfigKeys() { return {"reward_type"}; }
  static void ComputeReward(const Config& config, const double* achieved, const double* desired, std::size_t n,
                            double* out) {
    const RewardType type = ParseRewardType(config);
    for (std::size_t i = 0; i < n; ++i) {
      out[i] = Reward(GoalRowDistance(achieved + kGoal * i, desired + kGoal * i, kGoal), type);
    }
  }
  static void ComputeTerminated(const Config& /*config*/, const double* /*achieved*/, const double* /*desired*/,
                                std::size_t n, double* out) {
    std::fill(out, out + n, 0.0);
  }
  static void ComputeTruncated(const Config& config, const double* achieved, const double* desired, std::size_t n,
                               double* out) {
    ComputeTerminated(config, achieved, desired, n, out);
  }

 private:
  static double Reward(double d, RewardType type) {
    if (type == RewardType::kDense) return -d;
    return d > kThreshold ? -1.0 : -0.0;
  }

  void WriteTips(double* out) const {
    for (int k = 0; k < 5; ++k) {
      const double* p = sim_.data_->site_xpos + 3 * tips_[k];
      std::copy(p, p + 3, out + 3 * k);
    }
  }

  void SampleGoal(Rng& rng) {
    const auto finger = static_cast<int>(rng.Below(4));  // choice of the four non-thumb tips
    std::array<double, 3> meeting{palm_[0] + 0.0, palm_[1] + -0.09, palm_[2] + 0.05};
    for (double& v : meeting) v += rng.Normal(0.0, 0.005);
    goal_ = initial_goal_;
    for (int idx : {4, finger}) {
      std::array<double, 3> direction;
      for (int j = 0; j < 3; ++j) direction[j] = meeting[j] - goal_[3 * idx + j];
      const double norm = Norm(direction);
      for (double& v : direction) v /= norm;
      for (int j = 0; j < 3; ++j) goal_[3 * idx + j] = meeting[j] - 0.005 * direction[j];
    }
    if (rng.Uniform() < 0.1) goal_ = initial_goal_;
  }

  void WriteObs(Output& out) const {
    const GoalObs o = GoalObsOf(out);
    double* obs = sim_.WriteRobotObs(o.observation);
    WriteTips(obs);
    WriteTips(o.achieved_goal);
    std::copy(goal_.begin(), goal_.end(), o.desired_goal);
  }

  // reach.py's DEFAULT_INITIAL_QPOS.
  static constexpr std::pair<const char*, double> kInitialQpos[24] = {
      {"robot0:WRJ1", -0.16514339750464327},   {"robot0:WRJ0", -0.31973286565062153},
      {"robot0:FFJ3", 0.14340512546557435},    {"robot0:FFJ2", 0.32028208333591573},
      {"robot0:FFJ1", 0.7126053607727917},     {"robot0:FFJ0", 0.6705281001412586},
      {"robot0:MFJ3", 0.000246444303701037},   {"robot0:MFJ2", 0.3152655251085491},
      {"robot0:MFJ1", 0.7659800313729842},     {"robot0:MFJ0", 0.7323156897425923},
      {"robot0:RFJ3", 0.00038520700007378114}, {"robot0:RFJ2", 0.36743546201985233},
      {"robot0:RFJ1", 0.7119514095008576},     {"robot0:RFJ0", 0.6699446327514138},
      {"robot0:LFJ4", 0.0525442258033891},     {"robot0:LFJ3", -0.13615534724474673},
      {"robot0:LFJ2", 0.39872030433433003},    {"robot0:LFJ1", 0.7415570009679252},
      {"robot0:LFJ0", 0.704096378652974},      {"robot0:THJ4", 0.003673823825070126},
      {"robot0:THJ3", 0.5506291436028695},     {"robot0:THJ2", -0.014515151997119306},
      {"robot0:THJ1", -0.0015229223564485414}, {"robot0:THJ0", -0.7894883021600622},
  };

  RewardType type_;
  HandSim sim_;
  std::array<int, 5> tips_{}, target_sites_{}, finger_sites_{};  // fingertips; render's sites
  std::array<double, kGoal> initial_goal_{}, goal_{};
  std::array<double, 3> palm_{};
};

}  // namespace envpool::mujoco::robotics::hand
