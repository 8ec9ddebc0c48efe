// Finding a clock beside a board: the largest bar-shaped thing on the table beside the
// board's outer side, and across it the line it mirrors best about, the lever's pivot.
// A clock is a box some centimetres tall, so with a tilted camera its top, where the lever
// is, lies well off any fixed place on the board's plane.
#include <algorithm>
#include <cmath>
#include <optional>

#include <opencv2/imgproc.hpp>

#include "clocks.hpp"
#include "geometry.hpp"

namespace bugcam::calibration {

namespace {

// The table beside the board is looked at top-down, this many pixels per square.
constexpr int kPx = 16;
// The window searched, in squares: from the board's frame outwards, and along the board's
// side beyond both ends.
constexpr double kNear = 0.25;
constexpr double kFar = 6.0;
constexpr double kAlongMin = -1.0;
constexpr double kAlongMax = 9.0;
// A pixel this far (BGR distance) from the table's colour is something on the table.
constexpr float kUnlikeTable = 40.0f;
// A clock covers this many squares on the table's plane (its footprint with the sides and
// top the camera sees); less is a stray piece or the display of a clock whose body looks
// like the table, more a player's arm.
constexpr double kMinArea = 4.0;
constexpr double kMaxArea = 25.0;
// Found with shadows counted, at least this share of it must stand out without them.
constexpr double kLeastSolidShare = 0.05;
// How far either side of the pivot the clock is compared mirrored, as a share of the length
// of what was found (its top, the sides the camera sees, its shadow), and how long each of the
// lever's halves is taken to be. The pivot is looked for where both compared lengths stay
// inside, over the middle fifth: the sides and shadow may add up to a fifth at one end.
// Looking for it only about the middle of what differs from the body (an end of the body in
// shade differs too) put it 13-22 % of the lever off on 14 of 400 rendered clocks, this on 6
// (`calibration_eval --seed 7000 --count 200`, not tuned on).
constexpr double kMirrorReach = 0.4;
// A column of the window that is something on the table over this share of its length is
// the board's frame or the table's edge (a clock is at most half the window long).
constexpr double kAlongWholeWindow = 0.7;

// Darker than the table with its colour's proportions kept: a shadow, not an object. A grey
// or black clock body is darker too, and against a pale wood only its proportions differ,
// by some 0.05 of the sum; a shadow's by less than 0.01.
constexpr float kShadowProportion = 0.025f;
bool shadow_of(const cv::Vec3f& p, const cv::Vec3f& table) {
  const float lp = luma(p), lt = luma(table);
  if (lt <= 1.0f || lp >= lt || lp < 0.35f * lt) return false;
  const float sum_p = p[0] + p[1] + p[2], sum_t = table[0] + table[1] + table[2];
  for (int c = 0; c < 3; ++c) {
    if (std::abs(p[c] / sum_p - table[c] / sum_t) > kShadowProportion) return false;
  }
  return true;
}

}  // namespace

std::optional<Clock> find_clock(const cv::Mat& frame_bgr, const Board& board,
                                bool outer_is_high_file) {
  const double x_lo = outer_is_high_file ? 8 + kNear : -kFar;
  const double x_hi = outer_is_high_file ? 8 + kFar : -kNear;
  const int cols = static_cast<int>(std::lround((x_hi - x_lo) * kPx));
  const int rows = static_cast<int>(std::lround((kAlongMax - kAlongMin) * kPx));
  // Patch pixel (u, v) is board point (x_lo + u / kPx, kAlongMin + v / kPx).
  const cv::Matx33d patch_to_board(1.0 / kPx, 0, x_lo, 0, 1.0 / kPx, kAlongMin, 0, 0, 1);
  const cv::Matx33d patch_to_image = board.board_to_image * patch_to_board;
  const cv::Mat patch = warp_through_lens(frame_bgr, patch_to_image, cv::Size(cols, rows),
                                          board.lens, cv::INTER_AREA, cv::BORDER_CONSTANT);
  const cv::Mat in_view =
      warp_through_lens(cv::Mat(frame_bgr.size(), CV_8U, cv::Scalar(255)), patch_to_image,
                        cv::Size(cols, rows), board.lens, cv::INTER_NEAREST, cv::BORDER_CONSTANT);
  std::vector<cv::Vec3f> seen;
  for (int v = 0; v < rows; ++v) {
    for (int u = 0; u < cols; ++u) {
      if (in_view.at<uchar>(v, u) != 0) seen.emplace_back(patch.at<cv::Vec3b>(v, u));
    }
  }
  if (seen.size() < static_cast<size_t>(rows * cols / 3)) return std::nullopt;
  const cv::Vec3f table = channel_median(seen);
  // What stands out from the table, shadows left out (a clock's own shadow would widen it);
  // failing that, with them: a grey clock on a pale grey table, or a brown one on wood,
  // differs from the table as a shadow does, and only its dark sides were left. Then some of
  // what was found must be more than shadow (a body's or an arm's shadow alone is no clock).
  cv::Mat solid;
  std::optional<cv::RotatedRect> found;
  for (const bool shadows_count : {false, true}) {
    cv::Mat object(rows, cols, CV_8U, cv::Scalar(0));
    for (int v = 0; v < rows; ++v) {
      for (int u = 0; u < cols; ++u) {
        if (in_view.at<uchar>(v, u) == 0) continue;
        const cv::Vec3f p(patch.at<cv::Vec3b>(v, u));
        if (colour_distance(p, table) > kUnlikeTable && (shadows_count || !shadow_of(p, table))) {
          object.at<uchar>(v, u) = 255;
        }
      }
    }
    cv::morphologyEx(object, object, cv::MORPH_OPEN,
                     cv::getStructuringElement(cv::MORPH_RECT, cv::Size(3, 3)));
    cv::morphologyEx(object, object, cv::MORPH_CLOSE,
                     cv::getStructuringElement(cv::MORPH_RECT, cv::Size(5, 5)));
    // The board's frame or the table's edge runs along the whole window, and a clock standing
    // against it would join it into one thing too long to be a clock: such columns are
    // cleared.
    for (int u = 0; u < cols; ++u) {
      if (cv::countNonZero(object.col(u)) > kAlongWholeWindow * rows) object.col(u).setTo(0);
    }
    if (!shadows_count) solid = object.clone();
    cv::Mat labels, stats, centroids;
    const int count = cv::connectedComponentsWithStats(object, labels, stats, centroids, 8);
    int best = -1;
    int best_area = 0;
    for (int k = 1; k < count; ++k) {
      const int area = stats.at<int>(k, cv::CC_STAT_AREA);
      const double squares = double(area) / (kPx * kPx);
      // The board's frame or the table's edge runs along the whole window.
      if (stats.at<int>(k, cv::CC_STAT_HEIGHT) > rows * 8 / 10) continue;
      if (squares < kMinArea || squares > kMaxArea || area <= best_area) continue;
      best = k;
      best_area = area;
    }
    if (best < 0) continue;
    const cv::Mat component = labels == best;
    if (shadows_count && cv::countNonZero(component & solid) < kLeastSolidShare * best_area) {
      continue;
    }
    std::vector<cv::Point> pixels;
    cv::findNonZero(component, pixels);
    const cv::RotatedRect box = cv::minAreaRect(pixels);
    // A clock is a bar, some two to three times as long as wide.
    const double aspect = std::max(box.size.width, box.size.height) /
                          std::max(1.0f, std::min(box.size.width, box.size.height));
    if (aspect >= 1.4 && aspect <= 4.0) {
      found = box;
      break;
    }
  }
  if (!found) return std::nullopt;
  const cv::RotatedRect& box = *found;
  std::array<cv::Point2f, 4> corner;
  box.points(corner.data());
  // The clock's long axis, pointing from White's end (low y) to Black's.
  cv::Point2f side_a = corner[1] - corner[0];
  cv::Point2f side_b = corner[2] - corner[1];
  cv::Point2f along = cv::norm(side_a) >= cv::norm(side_b) ? side_a : side_b;
  cv::Point2f across = cv::norm(side_a) >= cv::norm(side_b) ? side_b : side_a;
  if (along.y < 0) along = -along;
  if (across.x < 0) across = -across;
  const cv::Point2f start = box.center - 0.5f * along - 0.5f * across;  // White's end, low x

  // The lever's pivot: the line across the clock about which it mirrors best onto itself,
  // comparing kMirrorReach of its length either side. The box holds more than the top (the
  // display and the lever about the pivot): the sides the camera sees and the clock's shadow
  // lie at one end of it, and mirror onto nothing like them.
  const auto colour_at = [&](double a, double c) {
    const cv::Point2f p = start + float(a) * along + float(c) * across;
    const int u = std::clamp(static_cast<int>(std::lround(p.x)), 0, cols - 1);
    const int v = std::clamp(static_cast<int>(std::lround(p.y)), 0, rows - 1);
    return cv::Vec3f(patch.at<cv::Vec3b>(v, u));
  };
  double best_pivot = 0.5;
  double best_mismatch = 1e18;
  for (double pivot = kMirrorReach; pivot <= 1 - kMirrorReach + 1e-9; pivot += 0.01) {
    double mismatch = 0;
    for (int i = 1; i <= 24; ++i) {
      const double t = kMirrorReach * i / 24;
      for (int j = 0; j < 12; ++j) {
        const double c = (j + 0.5) / 12;
        mismatch += colour_distance(colour_at(pivot - t, c), colour_at(pivot + t, c));
      }
    }
    if (mismatch < best_mismatch) {
      best_mismatch = mismatch;
      best_pivot = pivot;
    }
  }
  const auto to_image = [&](double a, double c) {
    const cv::Point2f p = start + float(a) * along + float(c) * across;
    return board.lens.to_seen(apply(patch_to_image, cv::Point2d(p)));
  };
  Clock clock;
  clock.board = board.name;
  const double white_end = best_pivot - kMirrorReach, black_end = best_pivot + kMirrorReach;
  clock.region = {to_image(white_end, 0), to_image(white_end, 1), to_image(black_end, 1),
                  to_image(black_end, 0)};
  clock.white_lever = {to_image(white_end, 0), to_image(white_end, 1), to_image(best_pivot, 1),
                       to_image(best_pivot, 0)};
  clock.black_lever = {to_image(best_pivot, 0), to_image(best_pivot, 1), to_image(black_end, 1),
                       to_image(black_end, 0)};
  return clock;
}

}  // namespace bugcam::calibration
