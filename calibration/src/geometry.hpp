// Small geometric helpers shared by the calibration sources.
#pragma once

#include <opencv2/core.hpp>

#include "bugcam/calibration.hpp"

namespace bugcam::calibration {

inline cv::Point2d apply(const cv::Matx33d& h, cv::Point2d p) {
  const cv::Vec3d q = h * cv::Vec3d(p.x, p.y, 1.0);
  return {q[0] / q[2], q[1] / q[2]};
}

// A warp of part of the frame: output pixel (u, v) shows the frame where `lens` sees the
// pinhole image point output_to_pinhole (u, v), as cv::warpPerspective with WARP_INVERSE_MAP
// does without a lens (and does here when there is none).
cv::Mat warp_through_lens(const cv::Mat& frame, const cv::Matx33d& output_to_pinhole, cv::Size size,
                          const RadialLens& lens, int interpolation, int border);

}  // namespace bugcam::calibration
