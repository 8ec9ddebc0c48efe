// A simple synthetic bughouse table for unit tests of calibration and vision: two flat
// checkerboards with borders on a table, pieces as discs, an optional "hand", seen through a
// pinhole camera with tilt and roll. Everything is drawn on the table plane and warped into
// the image, so the truth (board corners, squares covered) is exact.
#pragma once

#include <array>
#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include <opencv2/imgproc.hpp>

namespace bugcam::testing {

// Table plane units: one square = kPlaneSquare pixels of the plane image.
inline constexpr double kPlaneSquare = 40.0;

struct SceneBoard {
  // Eight strings, rank 8 first, files a..h: '.', 'w', 'b' (the vision's alphabet).
  std::array<std::string, 8> occupancy{"bbbbbbbb", "bbbbbbbb", "........", "........",
                                       "........", "........", "wwwwwwww", "wwwwwwww"};
  bool white_at_bottom = true;  // of the table plane (board B sits the other way round)
};

struct Scene {
  cv::Size image_size{1280, 720};
  double tilt_deg = 0;
  double roll_deg = 0;
  cv::Scalar light{200, 225, 235};  // BGR
  cv::Scalar dark{60, 110, 150};
  cv::Scalar table{90, 110, 125};
  std::array<SceneBoard, 2> boards{};
  int board_count = 2;
  // A skin-coloured hand: an ellipse on the table plane in board-A square units, centre and
  // half-axes; none when the half-axes are zero.
  cv::Point2d hand_centre{0, 0};
  cv::Size2d hand_axes{0, 0};
  // Pieces lying in White A's holding area: 'w' or 'b' each.
  std::string holding_a_white;
};

struct SceneTruth {
  cv::Mat image;
  // Per board: a1, h1, h8, a8 outer corners in image pixels.
  std::vector<std::array<cv::Point2d, 4>> corners;
  // Per board, per square (rank * 8 + file): covered by the hand.
  std::vector<std::array<bool, 64>> covered;
  double square_px = 0;  // approximate square size in the image
};

namespace detail {

// Plane layout: board A's playing area from (x0, y0), board B three squares (plus borders)
// to its right; a margin of table all round.
inline constexpr double kMarginSquares = 4.5;
inline constexpr double kGapSquares = 4.0;

inline cv::Point2d board_origin(int board) {
  return {kMarginSquares + board * (8 + kGapSquares), kMarginSquares};
}

// Plane point (in squares) of a board point (x along files, y along ranks, a1 corner = 0),
// with White at the bottom of the plane image (large y) or at the top.
inline cv::Point2d plane_point(int board, bool white_at_bottom, cv::Point2d p) {
  const cv::Point2d o = board_origin(board);
  if (white_at_bottom) return {o.x + p.x, o.y + 8 - p.y};
  return {o.x + 8 - p.x, o.y + p.y};
}

inline cv::Matx33d camera_homography(const Scene& scene, cv::Size plane_size) {
  // Plane pixels -> world (centred, plane units), then a pinhole camera.
  const double w = plane_size.width;
  const double h = plane_size.height;
  const cv::Matx33d centre(1, 0, -w / 2, 0, 1, -h / 2, 0, 0, 1);
  const double tilt = scene.tilt_deg * std::numbers::pi / 180;
  const double roll = scene.roll_deg * std::numbers::pi / 180;
  const cv::Matx33d rx(1, 0, 0, 0, std::cos(tilt), -std::sin(tilt), 0, std::sin(tilt),
                       std::cos(tilt));
  const cv::Matx33d rz(std::cos(roll), -std::sin(roll), 0, std::sin(roll), std::cos(roll), 0, 0, 0,
                       1);
  const cv::Matx33d r = rz * rx;
  const double distance = 1.1 * w;
  const double f = 0.95 * scene.image_size.width * distance / w;
  const cv::Matx33d k(f, 0, scene.image_size.width / 2.0, 0, f, scene.image_size.height / 2.0, 0, 0,
                      1);
  const cv::Matx33d rt(r(0, 0), r(0, 1), 0, r(1, 0), r(1, 1), 0, r(2, 0), r(2, 1), distance);
  return k * rt * centre;
}

inline cv::Point2d apply(const cv::Matx33d& m, cv::Point2d p) {
  const cv::Vec3d q = m * cv::Vec3d(p.x, p.y, 1);
  return {q[0] / q[2], q[1] / q[2]};
}

}  // namespace detail

inline SceneTruth render_scene(const Scene& scene) {
  using namespace detail;
  const double s = kPlaneSquare;
  const int boards = scene.board_count;
  const cv::Size plane_size(
      static_cast<int>(s * (2 * kMarginSquares + boards * 8 + (boards - 1) * kGapSquares)),
      static_cast<int>(s * (2 * kMarginSquares + 8)));
  cv::Mat plane(plane_size, CV_8UC3, scene.table);
  auto px = [&](cv::Point2d squares) {
    return cv::Point(cvRound(squares.x * s), cvRound(squares.y * s));
  };
  SceneTruth truth;
  for (int b = 0; b < boards; ++b) {
    const SceneBoard& board = scene.boards[static_cast<size_t>(b)];
    const cv::Point2d o = board_origin(b);
    // Border half a square wide, a little lighter than the light squares.
    cv::rectangle(plane, px(o - cv::Point2d(0.6, 0.6)), px(o + cv::Point2d(8.6, 8.6)),
                  scene.light * 0.85 + scene.dark * 0.15, cv::FILLED);
    for (int rank = 0; rank < 8; ++rank) {
      for (int file = 0; file < 8; ++file) {
        const bool dark_square = (rank + file) % 2 == 0;
        const cv::Point2d a = plane_point(b, board.white_at_bottom, {double(file), double(rank)});
        const cv::Point2d c =
            plane_point(b, board.white_at_bottom, {double(file + 1), double(rank + 1)});
        cv::rectangle(plane, cv::Rect(px(a), px(c)), dark_square ? scene.dark : scene.light,
                      cv::FILLED);
      }
    }
    for (int rank = 0; rank < 8; ++rank) {
      for (int file = 0; file < 8; ++file) {
        const char piece =
            board.occupancy[static_cast<size_t>(7 - rank)][static_cast<size_t>(file)];
        if (piece == '.') continue;
        const cv::Point centre =
            px(plane_point(b, board.white_at_bottom, {file + 0.5, rank + 0.5}));
        const bool white = piece == 'w';
        cv::circle(plane, centre, cvRound(0.36 * s),
                   white ? cv::Scalar(150, 155, 160) : cv::Scalar(70, 70, 70), cv::FILLED,
                   cv::LINE_AA);
        cv::circle(plane, centre, cvRound(0.3 * s),
                   white ? cv::Scalar(235, 240, 242) : cv::Scalar(25, 25, 28), cv::FILLED,
                   cv::LINE_AA);
      }
    }
  }
  // White A's holding area: pieces in a row in front of board A's first rank.
  for (size_t i = 0; i < scene.holding_a_white.size(); ++i) {
    const cv::Point2d at =
        plane_point(0, scene.boards[0].white_at_bottom, {1.0 + 1.2 * static_cast<double>(i), -1.9});
    const bool white = scene.holding_a_white[i] == 'w';
    cv::circle(plane, px(at), cvRound(0.33 * s),
               white ? cv::Scalar(235, 240, 242) : cv::Scalar(25, 25, 28), cv::FILLED, cv::LINE_AA);
  }
  const bool has_hand = scene.hand_axes.width > 0 && scene.hand_axes.height > 0;
  if (has_hand) {
    const cv::Point2d centre = board_origin(0) + scene.hand_centre;
    cv::ellipse(plane, px(centre),
                cv::Size(cvRound(scene.hand_axes.width * s), cvRound(scene.hand_axes.height * s)),
                0, 0, 360, cv::Scalar(120, 160, 225), cv::FILLED, cv::LINE_AA);
  }
  const cv::Matx33d h = camera_homography(scene, plane_size);
  cv::warpPerspective(plane, truth.image, cv::Mat(h), scene.image_size, cv::INTER_AREA,
                      cv::BORDER_CONSTANT, cv::Scalar(40, 40, 40));
  for (int b = 0; b < boards; ++b) {
    const bool up = scene.boards[static_cast<size_t>(b)].white_at_bottom;
    std::array<cv::Point2d, 4> corners;
    const std::array<cv::Point2d, 4> board_points{cv::Point2d(0, 0), cv::Point2d(8, 0),
                                                  cv::Point2d(8, 8), cv::Point2d(0, 8)};
    for (size_t i = 0; i < 4; ++i) {
      corners[i] = apply(h, plane_point(b, up, board_points[i]) * s);
    }
    truth.corners.push_back(corners);
    std::array<bool, 64> covered{};
    if (has_hand && b == 0) {
      const cv::Point2d centre = board_origin(0) + scene.hand_centre;
      for (int sq = 0; sq < 64; ++sq) {
        // Covered when the square's centre lies inside the hand.
        const cv::Point2d c = plane_point(b, up, {sq % 8 + 0.5, sq / 8 + 0.5});
        const double dx = (c.x - centre.x) / scene.hand_axes.width;
        const double dy = (c.y - centre.y) / scene.hand_axes.height;
        covered[static_cast<size_t>(sq)] = dx * dx + dy * dy < 1.0;
      }
    }
    truth.covered.push_back(covered);
  }
  truth.square_px = std::hypot(truth.corners[0][1].x - truth.corners[0][0].x,
                               truth.corners[0][1].y - truth.corners[0][0].y) /
                    8.0;
  return truth;
}

}  // namespace bugcam::testing
