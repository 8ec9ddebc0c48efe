// Watching for drift: a bumped camera or a moved board shows as inner corners no longer
// where the calibration puts them.
#include <algorithm>
#include <cmath>

#include <opencv2/imgproc.hpp>

#include "bugcam/calibration.hpp"

namespace bugcam::calibration {

namespace {

// Squares are looked at about this size when checking, which keeps the check cheap.
constexpr double kCheckSquarePx = 24.0;
// Below this share of inner corners found, a check counts as a miss. Pieces and hands hide
// corners, but in play well over half of the 49 stay visible; a shift of a fifth of a
// square loses nearly all of them.
constexpr double kAgreementNeeded = 0.35;

}  // namespace

double lattice_agreement(const cv::Mat& frame_bgr, const Board& board) {
  std::vector<cv::Point2f> predicted;
  for (int y = 1; y < 8; ++y) {
    for (int x = 1; x < 8; ++x) {
      const cv::Point2d p = board.to_image({double(x), double(y)});
      predicted.emplace_back(static_cast<float>(p.x), static_cast<float>(p.y));
    }
  }
  cv::Rect box = cv::boundingRect(predicted);
  const double square = board.square_size_px();
  const int pad = static_cast<int>(std::ceil(square));
  box = cv::Rect(box.x - pad, box.y - pad, box.width + 2 * pad, box.height + 2 * pad) &
        cv::Rect(0, 0, frame_bgr.cols, frame_bgr.rows);
  if (box.area() <= 0) return 0.0;
  cv::Mat gray;
  if (frame_bgr.channels() == 3) {
    cv::cvtColor(frame_bgr(box), gray, cv::COLOR_BGR2GRAY);
  } else {
    gray = frame_bgr(box).clone();
  }
  const double scale = std::min(1.0, kCheckSquarePx / square);
  if (scale < 1.0) cv::resize(gray, gray, cv::Size(), scale, scale, cv::INTER_AREA);
  const std::vector<cv::Point2f> found = find_x_corners(gray);
  int agreeing = 0;
  const double tolerance = 0.15 * square * scale;
  for (const cv::Point2f& p : predicted) {
    const cv::Point2f q((p.x - static_cast<float>(box.x)) * static_cast<float>(scale),
                        (p.y - static_cast<float>(box.y)) * static_cast<float>(scale));
    for (const cv::Point2f& f : found) {
      if (std::hypot(f.x - q.x, f.y - q.y) < tolerance) {
        ++agreeing;
        break;
      }
    }
  }
  return static_cast<double>(agreeing) / static_cast<double>(predicted.size());
}

DriftWatch::DriftWatch(Calibration calibration, int check_every, int patience)
    : calibration_(std::move(calibration)),
      check_every_(std::max(1, check_every)),
      patience_(std::max(1, patience)) {
  options_.max_boards = std::max(1, static_cast<int>(calibration_.boards.size()));
  // The camera is the same: a renewal fits the boards through the lens the calibration has
  // (none, if it has none), rather than fitting it again on a frame mid-game, where hands and
  // pieces hide the corners that tell it.
  if (!calibration_.boards.empty()) options_.known_lens = calibration_.boards.front().lens;
  // Keep the naming the calibration had: A stays on the side it was found on.
  if (calibration_.boards.size() == 2) {
    options_.board_a_on_right =
        calibration_.boards[0].to_image({4, 4}).x > calibration_.boards[1].to_image({4, 4}).x;
  }
}

const Calibration& DriftWatch::update(const cv::Mat& frame_bgr) {
  if (frames_++ % check_every_ != 0) return calibration_;
  double worst = 1.0;
  for (const Board& board : calibration_.boards) {
    worst = std::min(worst, lattice_agreement(frame_bgr, board));
  }
  last_agreement_ = worst;
  if (worst >= kAgreementNeeded) {
    misses_ = 0;
    return calibration_;
  }
  if (++misses_ < patience_) return calibration_;
  misses_ = 0;
  try {
    Calibration renewed = calibrate(frame_bgr, options_);
    if (renewed.boards.size() == calibration_.boards.size()) {
      renewed.source = calibration_.source + " (renewed)";
      // The pieces and the light are the same as before: keep what was learnt of them (a
      // renewal mid-game has no start position to learn from). But a moved board or camera
      // moves the lamp's hot spot: the squares' own colours are forgotten. The reader chosen
      // on the start position stays.
      for (Board& board : renewed.boards) {
        if (const Board* before = calibration_.board(board.name)) {
          board.looks = before->looks;
          board.looks.empty_square_ratio = {};
          board.squares_by_network = before->squares_by_network;
          board.start_misreads_hand = before->start_misreads_hand;
          board.start_misreads_network = before->start_misreads_network;
        }
      }
      calibration_ = std::move(renewed);
      ++renewals_;
    }
  } catch (const CalibrationError&) {
    // Nothing usable in this frame (a hand over the board): try again at the next check.
  }
  return calibration_;
}

}  // namespace bugcam::calibration
