// How a board's view places standing pieces: from the board's homography, the camera's pose
// (focal length estimated, principal point in the middle), so that a point at some height
// above the board can be projected and patches cut upright around pieces.
#pragma once

#include <algorithm>
#include <cmath>
#include <optional>

#include <opencv2/core.hpp>

#include "bugcam/calibration.hpp"

namespace bugcam::vision {

// A board as a pinhole camera (focal length `focal_px`, principal point `principal`) sees
// it: the board's axes r1, r2 (one board unit long) and its origin t in camera coordinates,
// the board in front of the camera. Nullopt for a degenerate homography.
struct BoardPose {
  cv::Vec3d r1, r2, t;
};
std::optional<BoardPose> board_pose(const cv::Matx33d& board_to_image, double focal_px,
                                    cv::Point2d principal);

class ViewGeometry {
 public:
  ViewGeometry(const calibration::Board& board, cv::Size image_size);
  // Image pixel (as the lens sees it) of the board point (x, y) (in squares) raised by
  // `height` squares.
  cv::Point2d project(double x, double y, double height) const;
  // At a board point: its image pixel `base`, and the image vectors one square long of the
  // way a standing piece leans (`up`) and of the direction right of it (`across`).
  void upright_frame(cv::Point2d board_point, double height, cv::Point2d& base, cv::Point2d& up,
                     cv::Point2d& across) const;

 private:
  cv::Matx34d projection_;  // to the pinhole image
  calibration::RadialLens lens_;
};

// The centre of square `square` (a1 = 0) in board coordinates (squares, a1's corner at 0).
inline cv::Point2d square_centre(int square) {
  return {square % 8 + 0.5, square / 8 + 0.5};
}
// The distance from point p to the segment from a to b.
inline double segment_distance(cv::Point2d p, cv::Point2d a, cv::Point2d b) {
  const cv::Point2d ab = b - a;
  const double length2 = ab.dot(ab);
  const double t = length2 > 0 ? std::clamp((p - a).dot(ab) / length2, 0.0, 1.0) : 0.0;
  const cv::Point2d q = a + t * ab;
  return std::hypot(p.x - q.x, p.y - q.y);
}

cv::Mat square_patch(const cv::Mat& frame_bgr, const ViewGeometry& view, int square);
cv::Mat holding_patch(const cv::Mat& frame_bgr, const ViewGeometry& view,
                      const calibration::Board& board, cv::Point2d image_point);

}  // namespace bugcam::vision
