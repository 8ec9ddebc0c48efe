// A seeded random source whose numbers are the same on every platform: std::mt19937_64 is
// specified exactly, but the std:: distributions are not, so they are written out here.
#pragma once

#include <cmath>
#include <cstdint>
#include <random>

namespace bugcam::samples {

class Random {
 public:
  explicit Random(std::uint64_t seed) : engine_(seed) {}

  std::uint64_t bits() { return engine_(); }
  // Uniform in [0, 1) with 53 random bits.
  double unit() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }
  double uniform(double lo, double hi) { return lo + (hi - lo) * unit(); }
  float uniformf(float lo, float hi) { return static_cast<float>(uniform(lo, hi)); }
  // Uniform integer in [lo, hi]; the modulo bias is below 2^-50 for the small ranges used.
  int integer(int lo, int hi) {
    const auto span = static_cast<std::uint64_t>(hi - lo + 1);
    return lo + static_cast<int>(engine_() % span);
  }
  bool chance(double p) { return unit() < p; }
  // Standard normal by Box-Muller (one value per call; simple beats fast here).
  double normal() {
    double u1 = unit();
    while (u1 <= 0) u1 = unit();
    const double u2 = unit();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * 3.141592653589793 * u2);
  }
  // Draws what `count` calls of normal() would, without computing them.
  void skip_normals(std::uint64_t count) {
    for (std::uint64_t i = 0; i < count; ++i) {
      double u1 = unit();
      while (u1 <= 0) u1 = unit();
      unit();
    }
  }
  // A child source for one part of the scene, so adding draws in one part leaves the others
  // unchanged.
  Random fork(std::uint64_t salt) { return Random(engine_() ^ (salt * 0x9E3779B97F4A7C15ull)); }

 private:
  std::mt19937_64 engine_;
};

}  // namespace bugcam::samples
