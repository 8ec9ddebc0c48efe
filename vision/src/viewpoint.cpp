// Where the camera stands over each board, from the boards' homographies alone: the
// intrinsics are a pinhole with its principal point at the image centre and one unknown
// focal length, which two or more tilted boards (or one strongly tilted) determine; a camera
// nearly straight down leaves it open and a typical webcam's field of view is assumed.
#include <algorithm>
#include <cmath>

#include "bugcam/vision.hpp"
#include "piece_geometry.hpp"

namespace bugcam::vision {

namespace {

// Focal length in image widths assumed when the homographies do not determine it (a camera
// nearly straight down): a field of view of about 60 degrees across the image.
constexpr double kDefaultFocalWidths = 0.9;
// A focal length outside this range (in image widths) is taken as undetermined.
constexpr double kMinFocalWidths = 0.4;
constexpr double kMaxFocalWidths = 3.0;
// Below this perspective strength (the homography's projective terms times the image
// width), the board is seen too nearly straight down to tell the focal length.
constexpr double kMinPerspective = 0.02;

}  // namespace

cv::Point2d Viewpoint::lean(cv::Point2d board_point, double height_squares) const {
  if (camera_height <= height_squares + 1e-6) return {0, 0};
  return (board_point - nadir) * (height_squares / (camera_height - height_squares));
}

double estimate_focal_px(const calibration::Calibration& calibration) {
  const double width = std::max(1, calibration.image_size.width);
  const double cx = 0.5 * (calibration.image_size.width - 1);
  const double cy = 0.5 * (calibration.image_size.height - 1);
  // Homographies with the principal point at the origin and pixels in image widths; each
  // gives two linear equations in w = 1 / f^2 (f in image widths): its first two columns,
  // K^-1 h1 and K^-1 h2, are orthogonal and equally long.
  const cv::Matx33d centre(1 / width, 0, -cx / width, 0, 1 / width, -cy / width, 0, 0, 1);
  double aa = 0, ab = 0;
  for (const calibration::Board& board : calibration.boards) {
    cv::Matx33d h = centre * board.board_to_image;
    // Scale so that the first two columns' image parts are about one.
    const double scale = std::hypot(h(0, 0), h(1, 0)) + std::hypot(h(0, 1), h(1, 1));
    if (scale <= 0) continue;
    h *= 2 / scale;
    const double a1 = h(0, 0), b1 = h(1, 0), c1 = h(2, 0);
    const double a2 = h(0, 1), b2 = h(1, 1), c2 = h(2, 1);
    // The projective terms per square, over the whole board's width.
    const double perspective = 8 * std::hypot(c1, c2) / std::abs(h(2, 2));
    if (perspective < kMinPerspective) continue;
    const double orth_a = a1 * a2 + b1 * b2, orth_b = c1 * c2;
    const double norm_a = a1 * a1 + b1 * b1 - a2 * a2 - b2 * b2, norm_b = c1 * c1 - c2 * c2;
    aa += orth_a * orth_a + norm_a * norm_a;
    ab += orth_a * orth_b + norm_a * norm_b;
  }
  if (aa > 0) {
    const double w = -ab / aa;
    if (w > 0) {
      const double f = 1 / std::sqrt(w);
      if (f >= kMinFocalWidths && f <= kMaxFocalWidths) return f * width;
    }
  }
  return kDefaultFocalWidths * width;
}

std::optional<BoardPose> board_pose(const cv::Matx33d& board_to_image, double focal_px,
                                    cv::Point2d principal) {
  const cv::Matx33d k_inverse(1 / focal_px, 0, -principal.x / focal_px, 0, 1 / focal_px,
                              -principal.y / focal_px, 0, 0, 1);
  const cv::Matx33d g = k_inverse * board_to_image;
  const cv::Vec3d g1(g(0, 0), g(1, 0), g(2, 0)), g2(g(0, 1), g(1, 1), g(2, 1)),
      g3(g(0, 2), g(1, 2), g(2, 2));
  const double norm = 0.5 * (cv::norm(g1) + cv::norm(g2));
  if (norm <= 0) return std::nullopt;
  // The board lies in front of the camera: its origin at positive depth.
  const double lambda = (g3[2] >= 0 ? 1 : -1) / norm;
  return BoardPose{g1 * lambda, g2 * lambda, g3 * lambda};
}

Viewpoint estimate_viewpoint(const calibration::Board& board, double focal_px,
                             cv::Size image_size) {
  Viewpoint view;
  const std::optional<BoardPose> pose =
      board_pose(board.board_to_image, focal_px,
                 {0.5 * (image_size.width - 1), 0.5 * (image_size.height - 1)});
  if (!pose) return view;
  const cv::Vec3d r3 = pose->r1.cross(pose->r2);
  // The camera centre in board coordinates: -R^T t.
  const cv::Vec3d centre(-pose->r1.dot(pose->t), -pose->r2.dot(pose->t), -r3.dot(pose->t));
  view.nadir = {centre[0], centre[1]};
  view.camera_height = std::abs(centre[2]);
  return view;
}

std::vector<Viewpoint> estimate_viewpoints(const calibration::Calibration& calibration) {
  const double focal = estimate_focal_px(calibration);
  std::vector<Viewpoint> views;
  for (const calibration::Board& board : calibration.boards) {
    views.push_back(estimate_viewpoint(board, focal, calibration.image_size));
  }
  return views;
}

std::array<std::uint64_t, 64> leaned_over(const Viewpoint& view, double height_squares,
                                          double radius) {
  std::array<std::uint64_t, 64> over{};
  for (int from = 0; from < 64; ++from) {
    const cv::Point2d base = square_centre(from);
    const cv::Point2d top = base + view.lean(base, height_squares);
    for (int to = 0; to < 64; ++to) {
      if (to != from && segment_distance(square_centre(to), base, top) < radius) {
        over[static_cast<std::size_t>(from)] |= std::uint64_t{1} << to;
      }
    }
  }
  return over;
}

}  // namespace bugcam::vision
