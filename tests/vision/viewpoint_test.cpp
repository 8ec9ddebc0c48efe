// Where the camera stands, estimated from the boards' homographies, and reading squares
// under a strongly tilted camera with tall pieces leaning over the squares behind them.
#include <cmath>
#include <filesystem>
#include <numbers>

#include <gtest/gtest.h>
#include <opencv2/imgcodecs.hpp>

#include "bugcam/calibration.hpp"
#include "bugcam/samples.hpp"
#include "bugcam/vision.hpp"
#include "synthetic_table.hpp"

namespace bugcam::vision {
namespace {

TEST(Viewpoint, FocalLengthAndCameraHeightFromTwoTiltedBoards) {
  testing::Scene scene;
  scene.boards[1].white_at_bottom = false;
  scene.tilt_deg = 30;
  scene.roll_deg = 10;
  const testing::SceneTruth truth = testing::render_scene(scene);
  const calibration::Calibration calibration = calibration::calibrate(truth.image);
  ASSERT_EQ(calibration.boards.size(), 2u);
  // The test table's pinhole: f = 0.95 * width * 1.1, standing 1.1 plane widths (of 29
  // squares) from the table's centre along the tilted axis.
  const double focal = 0.95 * scene.image_size.width * 1.1;
  EXPECT_NEAR(estimate_focal_px(calibration), focal, 0.05 * focal);
  const double height = 1.1 * 29 * std::cos(scene.tilt_deg * std::numbers::pi / 180);
  const std::vector<Viewpoint> views = estimate_viewpoints(calibration);
  ASSERT_EQ(views.size(), 2u);
  for (size_t b = 0; b < 2; ++b) {
    EXPECT_NEAR(views[b].camera_height, height, 0.05 * height) << "board " << b;
  }
  // Both boards lie on one table: the point under the camera is the same image point.
  const cv::Point2d a = calibration.boards[0].to_image(views[0].nadir);
  const cv::Point2d b = calibration.boards[1].to_image(views[1].nadir);
  EXPECT_LT(std::hypot(a.x - b.x, a.y - b.y), 0.02 * scene.image_size.width);
  // A standing piece leans away from that point, more the farther the square is from it.
  const cv::Point2d near_square(views[0].nadir.x, 0.5), far_square(views[0].nadir.x, 7.5);
  const bool camera_beyond_rank_8 = views[0].nadir.y > 4;
  const cv::Point2d near = camera_beyond_rank_8 ? far_square : near_square;
  const cv::Point2d far = camera_beyond_rank_8 ? near_square : far_square;
  EXPECT_GT(std::hypot(views[0].lean(far, 1.5).x, views[0].lean(far, 1.5).y),
            std::hypot(views[0].lean(near, 1.5).x, views[0].lean(near, 1.5).y));
}

// Which squares a standing piece hides: those behind it, away from the point under the
// camera, as far as its height reaches; none under a camera straight overhead.
TEST(Viewpoint, PiecesHideTheSquaresBehindThem) {
  const auto bit = [](int file, int rank) { return std::uint64_t{1} << (rank * 8 + file); };
  // Beyond rank 8, 10 squares up: a piece on e2 leans towards rank 1.
  Viewpoint beyond_rank_8{{4.5, 14.0}, 10.0};
  const std::array<std::uint64_t, 64> over = leaned_over(beyond_rank_8, 1.4, 0.4);
  EXPECT_EQ(over[1 * 8 + 4], bit(4, 0));  // e2 hides e1
  EXPECT_EQ(over[6 * 8 + 4] & bit(4, 7), 0u) << "nothing leans towards the camera";
  // Lower pieces, or a camera higher up, reach less far: nothing at all for a short one.
  EXPECT_EQ(leaned_over(beyond_rank_8, 0.3, 0.4)[1 * 8 + 4], 0u);
  // A piece on a corner far to the side of the camera hides the diagonal neighbour.
  Viewpoint beyond_h8{{14.0, 14.0}, 10.0};
  EXPECT_NE(leaned_over(beyond_h8, 1.4, 0.4)[1 * 8 + 1] & bit(0, 0), 0u);  // b2 hides a1
  // Straight overhead and far up: no square is hidden.
  Viewpoint overhead{{4.0, 4.0}, 200.0};
  for (const std::uint64_t hidden : leaned_over(overhead, 1.9, 0.4)) EXPECT_EQ(hidden, 0u);
  // Unknown height: no lean.
  for (const std::uint64_t hidden : leaned_over(Viewpoint{}, 1.9, 0.4)) EXPECT_EQ(hidden, 0u);
}

// The start position rendered in 3D under a camera tilted 20 and 33 degrees (pieces 1.5 to
// 1.8 squares tall, a hand lifting one piece per board): read from where each piece's base
// stands, the squares behind the pieces are not taken for occupied or covered.
TEST(TallPieces, StartPositionUnderAStronglyTiltedCamera) {
  const std::array<std::string, 8> start{"bbbbbbbb", "bbbbbbbb", "........", "........",
                                         "........", "........", "wwwwwwww", "wwwwwwww"};
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / "bugcam_vision_tall_pieces";
  std::filesystem::create_directories(dir);
  int right = 0, wrong = 0;
  for (const std::uint64_t seed : {1002u, 1003u}) {
    const std::filesystem::path png = dir / ("seed_" + std::to_string(seed) + ".png");
    samples::write_contact_sheet(png, seed, 1, 1280);
    const cv::Mat still = cv::imread(png.string())(cv::Rect(0, 0, 1280, 720)).clone();
    ASSERT_FALSE(still.empty());
    const FrameReader reader(calibration::calibrate(still));
    const FrameObservation seen = reader.read(still);
    ASSERT_EQ(seen.boards.size(), 2u) << "seed " << seed;
    for (const BoardObservation& board : seen.boards) {
      const std::array<std::string, 8> rows = board.occupancy();
      for (size_t r = 0; r < 8; ++r) {
        for (size_t f = 0; f < 8; ++f) {
          if (rows[r][f] == start[r][f]) {
            ++right;
          } else if (rows[r][f] != '?') {
            ++wrong;
          }
        }
      }
    }
  }
  std::filesystem::remove_all(dir);
  // Of 256 squares: the hands cover a few and each lifts one piece off its square. Reading
  // whole squares on the board plane got 138 right.
  EXPECT_GE(right, 200);
  EXPECT_LE(wrong, 6);
}

}  // namespace
}  // namespace bugcam::vision
