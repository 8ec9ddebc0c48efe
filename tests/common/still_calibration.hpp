// The calibration of a samples::TrainingStill, from the renderer's truth: each board's lattice
// fitted by a homography (moved by `jitter` squares, as a real calibration errs), the holding
// areas where calibrate() places them. Shared by the piece-type training program and tests.
#pragma once

#include <string>
#include <vector>

#include <opencv2/calib3d.hpp>

#include "bugcam/calibration.hpp"
#include "bugcam/samples.hpp"

namespace bugcam::testing {

inline calibration::Calibration still_calibration(const samples::TrainingStill& still,
                                                  cv::Point2d jitter = {0, 0}) {
  calibration::Calibration c;
  c.image_size = still.image.size();
  for (std::size_t b = 0; b < 2; ++b) {
    std::vector<cv::Point2f> board_points, image_points;
    for (int r = 0; r <= 8; ++r) {
      for (int f = 0; f <= 8; ++f) {
        board_points.emplace_back(static_cast<float>(f + jitter.x),
                                  static_cast<float>(r + jitter.y));
        image_points.emplace_back(still.lattice[b][static_cast<std::size_t>(r * 9 + f)]);
      }
    }
    calibration::Board board;
    board.name.assign(1, b == 0 ? 'A' : 'B');
    board.board_to_image = cv::Matx33d(cv::findHomography(board_points, image_points));
    c.boards.push_back(board);
  }
  for (const calibration::Board& board : c.boards) {
    const auto strip = [&](double x0, double y0, double x1, double y1) {
      return std::vector<cv::Point2d>{board.to_image({x0, y0}), board.to_image({x1, y0}),
                                      board.to_image({x1, y1}), board.to_image({x0, y1})};
    };
    // (Built with append: GCC 12 warns falsely on operator+ here.)
    std::string white = board.name, black = board.name;
    white.append(":white");
    black.append(":black");
    c.holdings.push_back({white, strip(0.0, -3.2, 8.0, -0.6)});
    c.holdings.push_back({black, strip(0.0, 8.6, 8.0, 11.2)});
  }
  return c;
}

}  // namespace bugcam::testing
