// envpool._core.Rng: the per-env generator (core/rng.h) from Python, so tests can hold its
// draws against numpy's Generator(PCG64(seed)) and users can check what an env of a pool seeded
// with s will draw. Each method draws `n` values into a new array, in the order the C++ calls
// would draw them.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <stdexcept>
#include <string>

#include "core/rng.h"

namespace py = pybind11;

namespace envpool {
namespace {

template <typename T, typename Draw>
py::array_t<T> Draws(py::ssize_t n, Draw draw) {
  if (n < 0) throw std::invalid_argument("n must be >= 0, got " + std::to_string(n));
  py::array_t<T> out(n);
  T* data = out.mutable_data();
  for (py::ssize_t i = 0; i < n; ++i) data[i] = draw();
  return out;
}

py::object Join(uint64_t high, uint64_t low) {  // high * 2**64 + low as a Python int
  return py::int_(high).attr("__lshift__")(64).attr("__or__")(py::int_(low));
}

}  // namespace

void BindRng(py::module_& m) {
  py::class_<Rng>(m, "Rng",
                  "The generator each env of a pool owns: np.random.default_rng(seed), bit for bit "
                  "(docs/seeding.md). Methods draw n values in a row.")
      .def(py::init<uint64_t>(), py::arg("seed"))
      .def("seed", &Rng::Seed, py::arg("seed"), "Restart as np.random.default_rng(seed).")
      .def_property_readonly("last_seed", &Rng::seed)
      .def(
          "random_raw", [](Rng& r, py::ssize_t n) { return Draws<uint64_t>(n, [&] { return r.NextU64(); }); },
          py::arg("n"), "bit_generator.random_raw(n)")
      .def(
          "next_uint32", [](Rng& r, py::ssize_t n) { return Draws<uint32_t>(n, [&] { return r.NextU32(); }); },
          py::arg("n"), "numpy's 32-bit draws (integers(2**32, dtype=np.uint32, size=n))")
      .def(
          "random", [](Rng& r, py::ssize_t n) { return Draws<double>(n, [&] { return r.Uniform(); }); }, py::arg("n"),
          "Generator.random(n)")
      .def(
          "uniform",
          [](Rng& r, double low, double high, py::ssize_t n) {
            return Draws<double>(n, [&] { return r.Uniform(low, high); });
          },
          py::arg("low"), py::arg("high"), py::arg("n"), "Generator.uniform(low, high, n)")
      .def(
          "integers",
          [](Rng& r, uint64_t high, py::ssize_t n) {
            if (high == 0) throw std::invalid_argument("high must be >= 1");
            return Draws<uint64_t>(n, [&] { return r.Below(high); });
          },
          py::arg("high"), py::arg("n"), "Generator.integers(high, size=n) (one call per value)")
      .def(
          "standard_normal", [](Rng& r, py::ssize_t n) { return Draws<double>(n, [&] { return r.Normal(); }); },
          py::arg("n"), "Generator.standard_normal(n)")
      .def(
          "normal",
          [](Rng& r, double mean, double stddev, py::ssize_t n) {
            return Draws<double>(n, [&] { return r.Normal(mean, stddev); });
          },
          py::arg("loc"), py::arg("scale"), py::arg("n"), "Generator.normal(loc, scale, n)")
      .def_property_readonly(
          "state",
          [](const Rng& r) {
            const Pcg64& b = r.bit_generator();
            py::dict inner;
            inner["state"] = Join(b.state_high(), b.state_low());
            inner["inc"] = Join(b.inc_high(), b.inc_low());
            py::dict d;
            d["bit_generator"] = "PCG64";
            d["state"] = inner;
            d["has_uint32"] = b.has_buffered_u32() ? 1 : 0;
            d["uinteger"] = b.buffered_u32();
            return d;
          },
          "The state as numpy's PCG64.state shows it.");
}

}  // namespace envpool
