// The calibration drawn over the frame: each board's lattice, a1/h1/h8/a8, White's edge,
// holding areas and clocks.
#include <opencv2/imgproc.hpp>

#include "bugcam/calibration.hpp"

namespace bugcam::calibration {

namespace {

cv::Point to_pixel(cv::Point2d p) {
  return {cvRound(p.x), cvRound(p.y)};
}

void draw_polygon(cv::Mat& canvas, const std::vector<cv::Point2d>& polygon, cv::Scalar colour,
                  int thickness) {
  std::vector<cv::Point> points;
  for (const cv::Point2d& p : polygon) points.push_back(to_pixel(p));
  if (!points.empty()) cv::polylines(canvas, points, true, colour, thickness, cv::LINE_AA);
}

void label(cv::Mat& canvas, const std::string& text, cv::Point2d at, double scale,
           cv::Scalar colour) {
  const int thickness = std::max(1, cvRound(scale * 2));
  cv::putText(canvas, text, to_pixel(at), cv::FONT_HERSHEY_SIMPLEX, scale, cv::Scalar(0, 0, 0),
              thickness + 2, cv::LINE_AA);
  cv::putText(canvas, text, to_pixel(at), cv::FONT_HERSHEY_SIMPLEX, scale, colour, thickness,
              cv::LINE_AA);
}

}  // namespace

cv::Mat draw_calibration(const cv::Mat& frame_bgr, const Calibration& calibration) {
  cv::Mat canvas = frame_bgr.clone();
  const int thickness = std::max(1, canvas.cols / 800);
  for (const Board& board : calibration.boards) {
    const double square = board.square_size_px();
    const double text_scale = std::max(0.4, square / 60.0);
    // Lattice lines in short pieces: a lens bends them.
    const auto board_line = [&](cv::Point2d from, cv::Point2d to, const cv::Scalar& colour,
                                int width) {
      constexpr int kPieces = 16;
      for (int i = 0; i < kPieces; ++i) {
        cv::line(canvas, to_pixel(board.to_image(from + (to - from) * (double(i) / kPieces))),
                 to_pixel(board.to_image(from + (to - from) * (double(i + 1) / kPieces))), colour,
                 width, cv::LINE_AA);
      }
    };
    for (int k = 0; k <= 8; ++k) {
      const cv::Scalar colour = (k == 0 || k == 8) ? cv::Scalar(0, 0, 255) : cv::Scalar(0, 255, 0);
      board_line({double(k), 0}, {double(k), 8}, colour, thickness);
      board_line({0, double(k)}, {8, double(k)}, colour, thickness);
    }
    // White's first rank drawn thick.
    board_line({0, 0}, {8, 0}, cv::Scalar(255, 255, 255), 3 * thickness);
    const std::array<const char*, 4> names{"a1", "h1", "h8", "a8"};
    const std::array<cv::Point2d, 4> inset{cv::Point2d(0.1, 0.3), cv::Point2d(7.1, 0.3),
                                           cv::Point2d(7.1, 7.3), cv::Point2d(0.1, 7.3)};
    for (size_t i = 0; i < 4; ++i) {
      label(canvas, names[i], board.to_image(inset[i]), text_scale * 0.8, cv::Scalar(0, 255, 255));
    }
    label(canvas, board.name, board.to_image({3.7, 3.7}), text_scale * 2.5,
          cv::Scalar(255, 0, 255));
  }
  for (const HoldingArea& area : calibration.holdings) {
    draw_polygon(canvas, area.region, cv::Scalar(255, 160, 0), thickness);
    if (!area.region.empty()) {
      label(canvas, area.player, area.region[0] * 0.5 + area.region[2] * 0.5, 0.6,
            cv::Scalar(255, 200, 80));
    }
  }
  for (const Clock& clock : calibration.clocks) {
    draw_polygon(canvas, clock.white_lever, cv::Scalar(255, 255, 255), thickness);
    draw_polygon(canvas, clock.black_lever, cv::Scalar(40, 40, 40), thickness);
    if (!clock.region.empty()) {
      label(canvas, "clock " + clock.board, clock.region[0], 0.6, cv::Scalar(200, 255, 255));
    }
  }
  return canvas;
}

}  // namespace bugcam::calibration
