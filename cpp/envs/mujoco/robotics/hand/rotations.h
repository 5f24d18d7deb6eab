// The quaternion and Euler-angle arithmetic of gymnasium-robotics 1.4.2's
// utils/rotations.py and shadow_dexterous_hand/manipulate.py that the Shadow Hand's
// manipulation goals use, with numpy's rounding: every expression is evaluated in the order
// numpy evaluates it (no fused multiply-adds: the build passes -ffp-contract=off), sums of
// squares are added left to right (numpy's reduction of fewer than 8 values) and sin, cos,
// atan2 and acos come from the C library (docs/tasks.md: what "exact" means here).
#pragma once

#include <array>
#include <cmath>
#include <limits>
#include <vector>

namespace envpool::mujoco::robotics::hand {

using Quat = std::array<double, 4>;  // (w, x, y, z), as MuJoCo and rotations.py order them
using Vec3 = std::array<double, 3>;

// np.linalg.norm of a short vector (BLAS ddot adds the rounded products in order, as
// np.sum(x * x, axis=-1) does for fewer than 8 values).
template <std::size_t N>
inline double Norm(const std::array<double, N>& x) {
  double s = x[0] * x[0];
  for (std::size_t i = 1; i < N; ++i) s += x[i] * x[i];
  return std::sqrt(s);
}

// quat_mul(q0, q1).
inline Quat QuatMul(const Quat& a, const Quat& b) {
  return {a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3], a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
          a[0] * b[2] + a[2] * b[0] + a[3] * b[1] - a[1] * b[3], a[0] * b[3] + a[3] * b[0] + a[1] * b[2] - a[2] * b[1]};
}

// quat_conjugate: -q, then its w negated back.
inline Quat QuatConjugate(const Quat& q) { return {-(-q[0]), -q[1], -q[2], -q[3]}; }

// manipulate.py's quat_from_angle_and_axis: the axis normalised, (cos(a/2), sin(a/2) * axis),
// normalised.
inline Quat QuatFromAngleAndAxis(double angle, Vec3 axis) {
  const double n = Norm(axis);
  for (double& v : axis) v /= n;
  const double s = std::sin(angle / 2.0);
  Quat q{std::cos(angle / 2.0), s * axis[0], s * axis[1], s * axis[2]};
  const double qn = Norm(q);
  for (double& v : q) v /= qn;
  return q;
}

// euler2quat.
inline Quat Euler2Quat(const Vec3& e) {
  const double ai = e[2] / 2, aj = -e[1] / 2, ak = e[0] / 2;
  const double si = std::sin(ai), sj = std::sin(aj), sk = std::sin(ak);
  const double ci = std::cos(ai), cj = std::cos(aj), ck = std::cos(ak);
  const double cc = ci * ck, cs = ci * sk, sc = si * ck, ss = si * sk;
  return {cj * cc + sj * ss, cj * cs - sj * sc, -(cj * ss + sj * cc), cj * sc - sj * cs};
}

// euler2mat (row-major 3x3).
inline std::array<double, 9> Euler2Mat(const Vec3& e) {
  const double ai = -e[2], aj = -e[1], ak = -e[0];
  const double si = std::sin(ai), sj = std::sin(aj), sk = std::sin(ak);
  const double ci = std::cos(ai), cj = std::cos(aj), ck = std::cos(ak);
  const double cc = ci * ck, cs = ci * sk, sc = si * ck, ss = si * sk;
  return {cj * ci, cj * si, -sj, sj * cs - sc, sj * ss + cc, cj * sk, sj * cc + ss, sj * sc - cs, cj * ck};
}

// mat2euler of a row-major 3x3 matrix (np.where's chosen branch).
inline Vec3 Mat2Euler(const std::array<double, 9>& m) {
  constexpr double kEps4 = std::numeric_limits<double>::epsilon() * 4.0;
  const double cy = std::sqrt(m[8] * m[8] + m[5] * m[5]);
  if (cy > kEps4) return {-std::atan2(m[5], m[8]), -std::atan2(-m[2], cy), -std::atan2(m[1], m[0])};
  return {0.0, -std::atan2(-m[2], cy), -std::atan2(-m[3], m[4])};
}

// quat2mat (the identity for a quaternion of squared norm <= eps).
inline std::array<double, 9> Quat2Mat(const Quat& q) {
  const double w = q[0], x = q[1], y = q[2], z = q[3];
  const double nq = ((w * w + x * x) + y * y) + z * z;
  if (!(nq > std::numeric_limits<double>::epsilon())) return {1, 0, 0, 0, 1, 0, 0, 0, 1};
  const double s = 2.0 / nq;
  const double X = x * s, Y = y * s, Z = z * s;
  const double wX = w * X, wY = w * Y, wZ = w * Z;
  const double xX = x * X, xY = x * Y, xZ = x * Z;
  const double yY = y * Y, yZ = y * Z, zZ = z * Z;
  return {1.0 - (yY + zZ), xY - wZ, xZ + wY, xY + wZ, 1.0 - (xX + zZ), yZ - wX, xZ - wY, yZ + wX, 1.0 - (xX + yY)};
}

inline Vec3 Quat2Euler(const Quat& q) { return Mat2Euler(Quat2Mat(q)); }

// euler2quat of each of get_parallel_rotations()' 24 rotations, in its order: the Euler angles
// of multiples of 90 degrees (itertools.product order), brought to a canonical form through
// euler2mat / mat2euler and rounding, the first of each kind kept.
inline std::vector<Quat> ParallelQuats() {
  const double mult90[4] = {0.0, M_PI / 2, -M_PI / 2, M_PI};
  std::vector<Vec3> rotations;
  for (double a : mult90) {
    for (double b : mult90) {
      for (double c : mult90) {
        Vec3 canonical = Mat2Euler(Euler2Mat({a, b, c}));
        for (double& v : canonical) v = std::nearbyint(v / (M_PI / 2));  // np.round: half to even
        if (canonical[0] == -2) canonical[0] = 2;
        if (canonical[2] == -2) canonical[2] = 2;
        for (double& v : canonical) v *= M_PI / 2;
        bool fresh = true;
        for (const Vec3& r : rotations)
          fresh = fresh && !(r[0] == canonical[0] && r[1] == canonical[1] && r[2] == canonical[2]);
        if (fresh) rotations.push_back(canonical);
      }
    }
  }
  std::vector<Quat> quats;
  for (const Vec3& r : rotations) quats.push_back(Euler2Quat(r));
  return quats;
}

}  // namespace envpool::mujoco::robotics::hand
