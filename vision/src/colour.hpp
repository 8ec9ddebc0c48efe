// Colour tests shared by the single-frame square reading and the temporal tracker.
#pragma once

#include <cmath>

#include <opencv2/core.hpp>

namespace bugcam::vision::detail {

// Shadows: the reference colour darkened by a factor from this up to a caller's maximum,
// with its hue kept.
inline constexpr float kShadowMinScale = 0.35f;
inline constexpr float kShadowHueTolerance = 0.12f;  // of the reference's brightness, plus...
inline constexpr float kShadowHueFloor = 8.0f;       // ...this many levels

// Whether `now` is `reference` darkened by a shadow, scaled by `min_scale` to `max_scale`,
// with its hue kept to within `hue_tolerance` of its brightness plus `hue_floor` levels.
inline bool is_shadow(const cv::Vec3f& now, const cv::Vec3f& reference, float min_scale,
                      float max_scale, float hue_tolerance, float hue_floor) {
  const float reference_norm2 = reference.dot(reference);
  if (reference_norm2 < 1.0f) return false;
  const float scale = now.dot(reference) / reference_norm2;
  if (scale < min_scale || scale > max_scale) return false;
  const cv::Vec3f rest = now - reference * scale;
  return std::sqrt(rest.dot(rest)) < hue_floor + hue_tolerance * std::sqrt(reference_norm2) * scale;
}

// Whether `now` is `reference` darkened by a shadow (the same hue, less light), scaled by
// at most `max_scale`.
inline bool is_shadow(const cv::Vec3f& now, const cv::Vec3f& reference, float max_scale) {
  return is_shadow(now, reference, kShadowMinScale, max_scale, kShadowHueTolerance,
                   kShadowHueFloor);
}

// What the umbra of a learnt shadow takes from the lit colour `lit` (BoardLooks::shadow_ratio).
inline cv::Vec3f shadow_depth(const cv::Vec3f& lit, const cv::Vec3f& ratio) {
  return {lit[0] * (1 - ratio[0]), lit[1] * (1 - ratio[1]), lit[2] * (1 - ratio[2])};
}

// A colour under a shadow as learnt from the start position (BoardLooks::shadow_ratio): the lit
// colour `lit` scaled per channel toward lit * ratio (the umbra), anywhere from the penumbra's
// faint edge to `max_depth` times as deep as the umbra seen, with the hue that light gives.
inline bool is_learned_shadow(const cv::Vec3f& now, const cv::Vec3f& lit, const cv::Vec3f& ratio,
                              float max_depth) {
  const cv::Vec3f depth = shadow_depth(lit, ratio);
  const float depth2 = depth.dot(depth);
  if (depth2 < 1.0f) return false;
  const cv::Vec3f lost = lit - now;
  const float t = lost.dot(depth) / depth2;
  if (t < 0.0f || t > max_depth) return false;
  const cv::Vec3f rest = lost - depth * t;
  const cv::Vec3f lit_part = lit - depth * t;
  return std::sqrt(rest.dot(rest)) <
         kShadowHueFloor + kShadowHueTolerance * std::sqrt(lit_part.dot(lit_part));
}

}  // namespace bugcam::vision::detail
