// Arithmetic as NumPy / Python does it, for envs that must agree bit for bit with gymnasium.
//
// Reasons these helpers exist:
//  * `x ** 2` in NumPy calls libm pow, which differs from x * x in the last bit now and then;
//    compilers rewrite pow(x, 2) as x * x, so the exponent is read through a volatile.
//  * GCC 12.2 at -O2 (its SLP vectorizer) can turn `d = static_cast<float>(x)` stores into
//    stores of the unrounded doubles; rounding through a volatile float keeps the rounding.
#pragma once

#include <cmath>

namespace envpool::classic_control::numpy_math {

// x ** 2 for a float64 scalar (libm pow).
inline double Pow2(double x) {
  volatile double two = 2.0;
  return std::pow(x, static_cast<double>(two));
}

// x ** 2 for a float32 scalar (libm powf).
inline float Pow2(float x) {
  volatile float two = 2.0f;
  return std::pow(x, static_cast<float>(two));
}

// The float64 value of float32(x): what storing x in a float32 array and reading it back gives.
inline double RoundToFloat32(double x) {
  volatile float f = static_cast<float>(x);
  return f;
}

}  // namespace envpool::classic_control::numpy_math
