// The camera lens's radial distortion, fitted to the inner corners the boards showed.
#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include <opencv2/calib3d.hpp>
#include <opencv2/imgproc.hpp>

#include "bugcam/calibration.hpp"
#include "geometry.hpp"

namespace bugcam::calibration {

namespace {

// The k1 values tried (in units of the half diagonal): from a strong barrel lens to a mild
// pincushion one. Below -1/3 the lens would fold back inside the frame's corners.
constexpr double kLensMin = -0.30;
constexpr double kLensMax = 0.20;
constexpr double kLensStep = 0.005;
// A lens is kept only where what it explains is this many times the corners' own noise
// (their squared distance left per degree of freedom): an F-test of the one more term, far
// past chance (F(1, 100) = 10 at p = 0.002), so that the noise of the corners found (about
// 0.3-0.6 px) does not pass for a lens.
constexpr double kLensSignificance = 10.0;
// Fewer corners than this on a board tell its homography, not the lens.
constexpr size_t kLensMinCorners = 12;

// A board's homography to the pinhole image through `lens`, and the sum of its squared
// distances from the corners seen (pinhole pixels).
struct BoardFit {
  cv::Matx33d board_to_image;
  double squared_error = 0.0;
};

std::optional<BoardFit> fit_board(const FoundBoard& board, const RadialLens& lens) {
  std::vector<cv::Point2d> pinhole;
  pinhole.reserve(board.image_points.size());
  for (const cv::Point2d& p : board.image_points) pinhole.push_back(lens.to_pinhole(p));
  const cv::Mat h = cv::findHomography(board.lattice_points, pinhole, 0);
  if (h.empty()) return std::nullopt;
  BoardFit fit{cv::Matx33d(h), 0.0};
  for (size_t i = 0; i < pinhole.size(); ++i) {
    const cv::Point2d d = apply(fit.board_to_image, board.lattice_points[i]) - pinhole[i];
    fit.squared_error += d.dot(d);
  }
  return fit;
}

// The squared distance left over all boards used, or nothing where a fit fails.
std::optional<double> left_over(const std::vector<FoundBoard>& boards,
                                const std::vector<size_t>& used, const RadialLens& lens) {
  double squared = 0.0;
  for (const size_t b : used) {
    const std::optional<BoardFit> fit = fit_board(boards[b], lens);
    if (!fit) return std::nullopt;
    squared += fit->squared_error;
  }
  return squared;
}

}  // namespace

double seen_radius(double pinhole_radius, double k1, double k2) {
  double r = pinhole_radius;
  for (int i = 0; i < 20; ++i) {
    const double r2 = r * r;
    const double slope = 1.0 + 3.0 * k1 * r2 + 5.0 * k2 * r2 * r2;
    if (slope <= 0.0) break;
    const double step = (r * (1.0 + k1 * r2 + k2 * r2 * r2) - pinhole_radius) / slope;
    r -= step;
    if (std::abs(step) < 1e-12) break;
  }
  return r;
}

cv::Mat warp_through_lens(const cv::Mat& frame, const cv::Matx33d& output_to_pinhole, cv::Size size,
                          const RadialLens& lens, int interpolation, int border) {
  cv::Mat warped;
  if (lens.k1 == 0.0) {
    cv::warpPerspective(frame, warped, cv::Mat(output_to_pinhole), size,
                        interpolation | cv::WARP_INVERSE_MAP, border);
    return warped;
  }
  cv::Mat map_x(size, CV_32FC1), map_y(size, CV_32FC1);
  for (int v = 0; v < size.height; ++v) {
    auto* x = map_x.ptr<float>(v);
    auto* y = map_y.ptr<float>(v);
    for (int u = 0; u < size.width; ++u) {
      const cv::Point2d seen = lens.to_seen(apply(output_to_pinhole, {double(u), double(v)}));
      x[u] = static_cast<float>(seen.x);
      y[u] = static_cast<float>(seen.y);
    }
  }
  // Both warps take INTER_AREA for INTER_LINEAR: the patch is sampled alike with a lens or
  // without.
  cv::remap(frame, warped, map_x, map_y,
            interpolation == cv::INTER_AREA ? cv::INTER_LINEAR : interpolation, border);
  return warped;
}

RadialLens fit_lens(std::vector<FoundBoard>& boards, cv::Size image_size) {
  RadialLens no_lens;
  no_lens.centre = {(image_size.width - 1) / 2.0, (image_size.height - 1) / 2.0};
  no_lens.scale = 0.5 * std::hypot(image_size.width, image_size.height);
  std::vector<size_t> used;
  for (size_t b = 0; b < boards.size(); ++b) {
    if (boards[b].lattice_points.size() >= kLensMinCorners &&
        boards[b].lattice_points.size() == boards[b].image_points.size()) {
      used.push_back(b);
    }
  }
  const std::optional<double> without = left_over(boards, used, no_lens);
  if (used.empty() || !without || *without <= 0.0) return no_lens;
  RadialLens best = no_lens;
  double best_squared = *without;
  const int steps = static_cast<int>(std::lround((kLensMax - kLensMin) / kLensStep));
  for (int i = 0; i <= steps; ++i) {
    RadialLens lens = no_lens;
    lens.k1 = kLensMin + i * kLensStep;
    const std::optional<double> squared = left_over(boards, used, lens);
    if (squared && *squared < best_squared) {
      best_squared = *squared;
      best = lens;
    }
  }
  // Two coordinates per corner, less the homographies' eight parameters each and the lens's.
  size_t corners = 0;
  for (const size_t b : used) corners += boards[b].lattice_points.size();
  const double freedom =
      2.0 * static_cast<double>(corners) - 8.0 * static_cast<double>(used.size()) - 1.0;
  if (best.k1 == 0.0 || freedom <= 0.0 ||
      (*without - best_squared) * freedom < kLensSignificance * best_squared) {
    return no_lens;
  }
  // Between the grid's points: the vertex of the parabola through the best and its two
  // neighbours.
  RadialLens below = best, above = best;
  below.k1 -= kLensStep;
  above.k1 += kLensStep;
  const std::optional<double> at_below = left_over(boards, used, below);
  const std::optional<double> at_above = left_over(boards, used, above);
  if (at_below && at_above) {
    const double curvature = *at_below - 2.0 * best_squared + *at_above;
    if (curvature > 0.0) {
      RadialLens vertex = best;
      vertex.k1 += 0.5 * kLensStep * (*at_below - *at_above) / curvature;
      const std::optional<double> at_vertex = left_over(boards, used, vertex);
      if (at_vertex && *at_vertex < best_squared) best = vertex;
    }
  }
  // Every board gets its homography through the lens, one with too few corners to tell the
  // lens too.
  fit_boards_through(boards, best);
  return best;
}

void fit_boards_through(std::vector<FoundBoard>& boards, const RadialLens& lens) {
  for (FoundBoard& board : boards) {
    if (board.lattice_points.size() < 4) continue;
    if (const std::optional<BoardFit> fit = fit_board(board, lens)) {
      board.board_to_image = fit->board_to_image;
      board.rms_error_px =
          std::sqrt(fit->squared_error / static_cast<double>(board.lattice_points.size()));
    }
  }
}

}  // namespace bugcam::calibration
