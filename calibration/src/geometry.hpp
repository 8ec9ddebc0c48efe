// Small geometric helpers shared by the calibration sources.
#pragma once

#include <opencv2/core.hpp>

namespace bugcam::calibration {

inline cv::Point2d apply(const cv::Matx33d& h, cv::Point2d p) {
  const cv::Vec3d q = h * cv::Vec3d(p.x, p.y, 1.0);
  return {q[0] / q[2], q[1] / q[2]};
}

}  // namespace bugcam::calibration
