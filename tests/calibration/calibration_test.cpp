#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <opencv2/imgproc.hpp>

#include "bugcam/calibration.hpp"
#include "synthetic_table.hpp"
#include "temp_dir.hpp"

namespace bugcam::calibration {
namespace {

using testing::Scene;
using testing::SceneTruth;

Scene bughouse_scene() {
  Scene scene;
  scene.boards[1].white_at_bottom = false;  // Black B sits beside White A
  return scene;
}

// Worst distance between found and true corners, in squares.
double corner_error(const Board& board, const std::array<cv::Point2d, 4>& truth, double square) {
  double worst = 0;
  const std::array<cv::Point2d, 4> found = board.corners();
  for (size_t i = 0; i < 4; ++i) {
    worst = std::max(worst, std::hypot(found[i].x - truth[i].x, found[i].y - truth[i].y));
  }
  return worst / square;
}

void expect_scene_calibrated(const Scene& scene, double max_error_squares) {
  const SceneTruth truth = testing::render_scene(scene);
  const Calibration calibration = calibrate(truth.image);
  ASSERT_EQ(calibration.boards.size(), static_cast<size_t>(scene.board_count));
  for (int b = 0; b < scene.board_count; ++b) {
    const Board& board = calibration.boards[static_cast<size_t>(b)];
    EXPECT_EQ(board.name, b == 0 ? "A" : "B");
    EXPECT_LT(corner_error(board, truth.corners[static_cast<size_t>(b)], truth.square_px),
              max_error_squares)
        << "board " << board.name << " tilt " << scene.tilt_deg << " roll " << scene.roll_deg;
  }
}

TEST(XCorners, FindsTheInnerCornersOfAPlainBoard) {
  Scene scene;
  scene.board_count = 1;
  for (std::string& row : scene.boards[0].occupancy) row = "........";
  const SceneTruth truth = testing::render_scene(scene);
  cv::Mat gray;
  cv::cvtColor(truth.image, gray, cv::COLOR_BGR2GRAY);
  const std::vector<cv::Point2f> found = find_x_corners(gray);
  // The 49 inner corners, from the true outer corners (no tilt: an affine map).
  const auto& c = truth.corners[0];
  int matched = 0;
  for (int y = 1; y < 8; ++y) {
    for (int x = 1; x < 8; ++x) {
      const cv::Point2d p = c[0] + (c[1] - c[0]) * (x / 8.0) + (c[3] - c[0]) * (y / 8.0);
      const bool near = std::any_of(found.begin(), found.end(), [&](const cv::Point2f& f) {
        return std::hypot(f.x - p.x, f.y - p.y) < 0.05 * truth.square_px;
      });
      matched += near ? 1 : 0;
    }
  }
  EXPECT_EQ(matched, 49);
}

TEST(Calibrate, StartPositionStraightDown) {
  expect_scene_calibrated(bughouse_scene(), 0.03);
}

TEST(Calibrate, TiltAndRoll) {
  for (const auto& [tilt, roll] :
       std::vector<std::pair<double, double>>{{20, 10}, {35, -25}, {40, 5}, {15, 170}, {30, 95}}) {
    Scene scene = bughouse_scene();
    scene.tilt_deg = tilt;
    scene.roll_deg = roll;
    // Roll beyond 90 degrees turns the table round: board A is still the left one in the
    // image, which is then the other physical board; the check below names boards by image.
    if (std::cos(roll * std::numbers::pi / 180) < 0) continue;
    expect_scene_calibrated(scene, 0.05);
  }
}

TEST(Calibrate, DarkBoardAndGameInProgress) {
  Scene scene = bughouse_scene();
  scene.light = cv::Scalar(120, 130, 140);
  scene.dark = cv::Scalar(30, 40, 50);
  scene.table = cv::Scalar(160, 160, 160);
  scene.boards[0].occupancy = {"b.bbkb.b", "pp...ppp", "..n..n..", "...pp...",
                               "...PP...", "..N..N..", "PP...PPP", "R.BQKB.R"};
  for (std::string& row : scene.boards[0].occupancy) {
    for (char& c : row)
      c = c == '.' ? '.' : (std::isupper(static_cast<unsigned char>(c)) ? 'w' : 'b');
  }
  scene.tilt_deg = 25;
  expect_scene_calibrated(scene, 0.05);
}

TEST(Calibrate, WhiteEdgeFromThePiecesAndBoardNames) {
  Scene scene = bughouse_scene();
  scene.roll_deg = 90;  // White A now sits on the image's left or right side
  const SceneTruth truth = testing::render_scene(scene);
  const Calibration calibration = calibrate(truth.image);
  ASSERT_EQ(calibration.boards.size(), 2u);
  for (const Board& board : calibration.boards) EXPECT_TRUE(board.white_edge_from_pieces);
  // Board A is the left one in the image.
  EXPECT_LT(calibration.boards[0].to_image({4, 4}).x, calibration.boards[1].to_image({4, 4}).x);
  // Told that A is on the right, the names swap.
  CalibrateOptions right;
  right.board_a_on_right = true;
  const Calibration swapped = calibrate(truth.image, right);
  ASSERT_EQ(swapped.boards.size(), 2u);
  EXPECT_GT(swapped.boards[0].to_image({4, 4}).x, swapped.boards[1].to_image({4, 4}).x);
}

TEST(Calibrate, EmptyBoardsUseSquareColoursAndSeating) {
  Scene scene = bughouse_scene();
  for (auto& board : scene.boards) {
    for (std::string& row : board.occupancy) row = "........";
  }
  const SceneTruth truth = testing::render_scene(scene);
  const Calibration calibration = calibrate(truth.image);
  ASSERT_EQ(calibration.boards.size(), 2u);
  for (const Board& board : calibration.boards) EXPECT_FALSE(board.white_edge_from_pieces);
  // a1 dark leaves two turns; White A nearest the image bottom, White B opposite.
  EXPECT_LT(corner_error(calibration.boards[0], truth.corners[0], truth.square_px), 0.03);
}

TEST(Calibrate, NoBoardIsAnError) {
  const cv::Mat blank(480, 640, CV_8UC3, cv::Scalar(100, 120, 130));
  EXPECT_THROW(calibrate(blank), CalibrationError);
}

TEST(Calibrate, HoldingsAndClocksAreAroundTheBoards) {
  const SceneTruth truth = testing::render_scene(bughouse_scene());
  const Calibration calibration = calibrate(truth.image);
  ASSERT_EQ(calibration.holdings.size(), 4u);
  ASSERT_EQ(calibration.clocks.size(), 2u);
  // White A's holding lies beyond White A's edge; the clocks beyond the outer sides.
  const Board& a = calibration.boards[0];
  const HoldingArea& white_a = calibration.holdings[0];
  EXPECT_EQ(white_a.player, "A:white");
  for (const cv::Point2d& p : white_a.region) EXPECT_LT(a.to_board(p).y, 0.0);
  for (const Clock& clock : calibration.clocks) {
    const Board* board = calibration.board(clock.board);
    ASSERT_NE(board, nullptr);
    const cv::Point2d centre = board->to_board(clock.region[0] * 0.5 + clock.region[2] * 0.5);
    const cv::Point2d other =
        board->to_board(calibration.boards[clock.board == "A" ? 1 : 0].to_image({4, 4}));
    // On the side away from the partner board.
    EXPECT_LT((centre.x - 4) * (other.x - 4), 0.0);
  }
}

// The warp worked out once gives each frame what warping it anew gives, on tilted and rolled
// boards whose warps reach beyond the frame's edge (the border is repeated).
TEST(BoardWarp, GivesWhatWarpBoardGives) {
  Scene scene = bughouse_scene();
  scene.tilt_deg = 35;
  scene.roll_deg = 20;
  const SceneTruth truth = testing::render_scene(scene);
  const Calibration calibration = calibrate(truth.image);
  ASSERT_EQ(calibration.boards.size(), 2u);
  for (const Board& board : calibration.boards) {
    for (const int square_px : {32, 20}) {
      // Beyond the board too: a lattice widened past the frame's edge.
      const cv::Matx33d wide = board.board_to_image * cv::Matx33d(2.5, 0, -6, 0, 2.5, -6, 0, 0, 1);
      const cv::Rect frame(cv::Point(0, 0), truth.image.size());
      bool beyond = false;
      for (const cv::Point2d corner :
           {cv::Point2d(0, 0), cv::Point2d(8, 0), cv::Point2d(8, 8), cv::Point2d(0, 8)}) {
        const cv::Vec3d p = wide * cv::Vec3d(corner.x, corner.y, 1);
        beyond |= !frame.contains(cv::Point(cvFloor(p[0] / p[2]), cvFloor(p[1] / p[2])));
      }
      EXPECT_TRUE(beyond) << "board " << board.name << ": the widened lattice stays in the frame";
      for (const cv::Matx33d& to_image : {board.board_to_image, wide}) {
        const cv::Mat once = BoardWarp(to_image, square_px)(truth.image);
        const cv::Mat anew = warp_board(truth.image, to_image, square_px);
        ASSERT_EQ(once.size(), anew.size());
        ASSERT_EQ(once.type(), anew.type());
        cv::Mat differs;
        cv::compare(once.reshape(1), anew.reshape(1), differs, cv::CMP_NE);
        EXPECT_EQ(cv::countNonZero(differs), 0)
            << "board " << board.name << " square_px " << square_px;
      }
    }
  }
}

TEST(CalibrationFile, RoundTripsThroughText) {
  const SceneTruth truth = testing::render_scene(bughouse_scene());
  Calibration calibration = calibrate(truth.image);
  calibration.source = "synthetic";
  const std::string text = to_pbtxt(calibration);
  const Calibration back = from_pbtxt(text, "test.pbtxt");
  ASSERT_EQ(back.boards.size(), calibration.boards.size());
  EXPECT_EQ(back.source, "synthetic");
  EXPECT_EQ(back.image_size, calibration.image_size);
  for (size_t b = 0; b < back.boards.size(); ++b) {
    EXPECT_EQ(back.boards[b].name, calibration.boards[b].name);
    for (int i = 0; i < 9; ++i) {
      EXPECT_DOUBLE_EQ(back.boards[b].board_to_image.val[i],
                       calibration.boards[b].board_to_image.val[i]);
    }
  }
  EXPECT_EQ(back.holdings.size(), 4u);
  EXPECT_EQ(back.clocks.size(), 2u);
  EXPECT_NE(text.find("corners"), std::string::npos);
  // Through a file too.
  const bugcam::test_support::TempDir dir("calibration");
  const std::string path = (dir / "calibration.pbtxt").string();
  save_calibration(calibration, path);
  EXPECT_EQ(load_calibration(path).boards.size(), calibration.boards.size());
}

// A lens round-trips; files without one (older, or a lens too slight to fit) have none; a
// lens that would fold back inside the frame is refused, naming the file and board.
TEST(CalibrationFile, LensRoundTripsAndOldFilesHaveNone) {
  const SceneTruth truth = testing::render_scene(bughouse_scene());
  Calibration calibration = calibrate(truth.image);
  for (Board& board : calibration.boards) board.lens = {};
  EXPECT_EQ(to_pbtxt(calibration).find("lens"), std::string::npos);
  EXPECT_EQ(from_pbtxt(to_pbtxt(calibration), "old.pbtxt").boards[0].lens.k1, 0.0);
  for (Board& board : calibration.boards) board.lens = {{639.5, 359.5}, 734.4, -0.07};
  const Calibration back = from_pbtxt(to_pbtxt(calibration), "lens.pbtxt");
  ASSERT_EQ(back.boards.size(), calibration.boards.size());
  for (const Board& board : back.boards) {
    EXPECT_EQ(board.lens.centre, cv::Point2d(639.5, 359.5));
    EXPECT_DOUBLE_EQ(board.lens.scale, 734.4);
    EXPECT_DOUBLE_EQ(board.lens.k1, -0.07);
  }
  calibration.boards[0].lens.k1 = -0.4;
  try {
    from_pbtxt(to_pbtxt(calibration), "folded.pbtxt");
    ADD_FAILURE() << "a folding lens was read";
  } catch (const CalibrationError& e) {
    EXPECT_NE(std::string(e.what()).find("folded.pbtxt: board A: lens"), std::string::npos)
        << e.what();
  }
}

// The lens's two directions undo each other over the whole frame.
TEST(RadialLens, ToSeenUndoesToPinhole) {
  const RadialLens lens{{639.5, 359.5}, 734.4, -0.12};
  for (double x = 0; x <= 1280; x += 128) {
    for (double y = 0; y <= 720; y += 72) {
      const cv::Point2d back = lens.to_seen(lens.to_pinhole({x, y}));
      EXPECT_NEAR(back.x, x, 1e-6);
      EXPECT_NEAR(back.y, y, 1e-6);
    }
  }
  // By hand: r = 0.5 at (1006.7, 359.5); 1 - 0.12 * 0.25 = 0.97.
  EXPECT_NEAR(lens.to_pinhole({639.5 + 367.2, 359.5}).x, 639.5 + 367.2 * 0.97, 1e-9);
}

TEST(CalibrationFile, LearntLooksRoundTripAndOldFilesHaveNone) {
  const SceneTruth truth = testing::render_scene(bughouse_scene());
  Calibration calibration = calibrate(truth.image);
  // A file written before the looks existed: the boards read, nothing learnt.
  const Calibration old = from_pbtxt(to_pbtxt(calibration), "old.pbtxt");
  ASSERT_EQ(old.boards.size(), 2u);
  EXPECT_FALSE(old.boards[0].looks.learned);
  EXPECT_EQ(to_pbtxt(calibration).find("looks"), std::string::npos);

  BoardLooks& looks = calibration.boards[1].looks;
  looks.learned = true;
  looks.white_on_light = {200, 210, 220};
  looks.white_on_dark = {190, 200, 215};
  looks.black_on_light = {40, 45, 50};
  looks.black_on_dark = {20, 25, 30};
  looks.shadow_ratio = {0.7f, 0.68f, 0.66f};
  looks.solid_share = 0.04f;
  looks.bright_margin = 12.5f;
  looks.empty_square_ratio[16] = {1.37f, 1.27f, 1.14f};  // a3
  looks.empty_square_ratio[47] = {1.05f, 1.04f, 1.02f};  // h6
  looks.shadow_rank_side = -1;
  looks.shadow_file_side = 1;
  const Calibration back = from_pbtxt(to_pbtxt(calibration), "looks.pbtxt");
  EXPECT_FALSE(back.boards[0].looks.learned);
  const BoardLooks& read = back.boards[1].looks;
  ASSERT_TRUE(read.learned);
  EXPECT_EQ(read.white_on_light, looks.white_on_light);
  EXPECT_EQ(read.white_on_dark, looks.white_on_dark);
  EXPECT_EQ(read.black_on_light, looks.black_on_light);
  EXPECT_EQ(read.black_on_dark, looks.black_on_dark);
  EXPECT_EQ(read.shadow_ratio, looks.shadow_ratio);
  EXPECT_FLOAT_EQ(read.solid_share, looks.solid_share);
  EXPECT_FLOAT_EQ(read.bright_margin, looks.bright_margin);
  EXPECT_EQ(read.empty_square_ratio, looks.empty_square_ratio);
  EXPECT_EQ(read.shadow_rank_side, -1);
  EXPECT_EQ(read.shadow_file_side, 1);
  EXPECT_NE(to_pbtxt(calibration).find("square: \"a3\""), std::string::npos);
}

TEST(CalibrationFile, SquareReaderRoundTripsAndOldFilesReadByHand) {
  const SceneTruth truth = testing::render_scene(bughouse_scene());
  Calibration calibration = calibrate(truth.image);
  const Calibration old = from_pbtxt(to_pbtxt(calibration), "old.pbtxt");
  ASSERT_EQ(old.boards.size(), 2u);
  EXPECT_FALSE(old.boards[0].squares_by_network);
  EXPECT_EQ(old.boards[0].start_misreads_hand, -1);
  EXPECT_EQ(old.boards[0].start_misreads_network, -1);

  calibration.boards[1].squares_by_network = true;
  calibration.boards[1].start_misreads_hand = 8;
  calibration.boards[1].start_misreads_network = 0;  // a count of 0 is kept, not taken as absent
  const std::string text = to_pbtxt(calibration);
  EXPECT_NE(text.find("square_reader: SQUARE_READER_NETWORK"), std::string::npos) << text;
  const Calibration back = from_pbtxt(text, "readers.pbtxt");
  EXPECT_FALSE(back.boards[0].squares_by_network);
  EXPECT_EQ(back.boards[0].start_misreads_hand, -1);
  EXPECT_TRUE(back.boards[1].squares_by_network);
  EXPECT_EQ(back.boards[1].start_misreads_hand, 8);
  EXPECT_EQ(back.boards[1].start_misreads_network, 0);
}

// A square's own colour learnt on one frame of the start may be a hand passing over it: kept
// only where most frames that learnt looks saw one, as their median.
TEST(LearntLooks, SquareColoursAreThoseMostFramesSaw) {
  const auto frame = [](cv::Vec3f a3, cv::Vec3f d4) {
    BoardLooks looks;
    looks.learned = true;
    looks.empty_square_ratio[16] = a3;
    looks.empty_square_ratio[27] = d4;
    return looks;
  };
  const cv::Vec3f none(0, 0, 0);
  const std::vector<BoardLooks> frames = {frame({1.3f, 1.2f, 1.1f}, none),
                                          frame({1.4f, 1.3f, 1.1f}, {1.5f, 1.2f, 1.0f}),
                                          frame({1.2f, 1.25f, 1.2f}, none), BoardLooks{}};
  std::vector<const BoardLooks*> seen;
  for (const BoardLooks& looks : frames) seen.push_back(&looks);
  BoardLooks chosen = frames[1];
  agree_square_colours(chosen, seen);
  EXPECT_EQ(chosen.empty_square_ratio[16], cv::Vec3f(1.3f, 1.25f, 1.1f));  // 3 of 3 learnt
  EXPECT_EQ(chosen.empty_square_ratio[27], none);                          // 1 of 3: a hand
  // Looks not learnt keep no square colour.
  BoardLooks unlearnt;
  unlearnt.empty_square_ratio[16] = {1.3f, 1.2f, 1.1f};
  agree_square_colours(unlearnt, seen);
  EXPECT_EQ(unlearnt.empty_square_ratio[16], none);
}

// Which way the shadows fell, learnt on one frame of the start, may be a hand over rank 3 or
// 6, or beside the board: each side kept where more than half of the frames that learnt looks
// saw it.
TEST(LearntLooks, ShadowSidesAreTheOnesMostFramesSaw) {
  const auto frame = [](int side, bool learned = true) {
    BoardLooks looks;
    looks.learned = learned;
    looks.shadow_rank_side = side;
    looks.shadow_file_side = -side;
    return looks;
  };
  const auto agreed = [](const std::vector<BoardLooks>& frames) {
    std::vector<const BoardLooks*> seen;
    for (const BoardLooks& looks : frames) seen.push_back(&looks);
    BoardLooks chosen = frames.front();
    agree_shadow_sides(chosen, seen);
    EXPECT_EQ(chosen.shadow_file_side, -chosen.shadow_rank_side);
    return chosen.shadow_rank_side;
  };
  EXPECT_EQ(agreed({frame(1), frame(1), frame(0), frame(-1, false)}), 1);  // 2 of 3 learnt
  EXPECT_EQ(agreed({frame(-1), frame(0), frame(-1)}), -1);
  EXPECT_EQ(agreed({frame(1), frame(0)}), 0);  // 1 of 2: a hand over rank 6 in one frame
  EXPECT_EQ(agreed({frame(1), frame(-1), frame(0)}), 0);
  EXPECT_EQ(agreed({frame(1)}), 1);  // one frame alone keeps its side
  // The two sides agree apart.
  BoardLooks chosen = frame(1);
  const BoardLooks other = frame(1);
  BoardLooks rank_only = frame(1), file_only = frame(0);
  rank_only.shadow_file_side = 0;
  file_only.shadow_file_side = -1;
  agree_shadow_sides(chosen, {&other, &rank_only, &file_only});
  EXPECT_EQ(chosen.shadow_rank_side, 1);
  EXPECT_EQ(chosen.shadow_file_side, -1);
}

// A damaged colour is an error that names the file, the board and the field, not a board
// silently read with nothing learnt.
TEST(CalibrationFile, DamagedColoursAreErrorsNamingTheBoardAndField) {
  const auto error_of = [](const std::string& board_fields) -> std::string {
    try {
      from_pbtxt(
          "boards { name: \"B\" board_to_image: [1, 0, 0, 0, 1, 0, 0, 0, 1] " + board_fields + " }",
          "damaged.pbtxt");
    } catch (const CalibrationError& e) {
      return e.what();
    }
    return "no error";
  };
  EXPECT_EQ(error_of("looks { white_on_light: [1, 2, 3] }"),
            "damaged.pbtxt: board B: looks needs white_on_light, white_on_dark, black_on_light "
            "and black_on_dark");
  EXPECT_EQ(error_of("looks { white_on_light: [1, 2] white_on_dark: [1, 2, 3] "
                     "black_on_light: [1, 2, 3] black_on_dark: [1, 2, 3] }"),
            "damaged.pbtxt: board B: looks.white_on_light needs 3 numbers, has 2");
  const std::string pieces =
      "looks { white_on_light: [1, 2, 3] white_on_dark: [1, 2, 3] "
      "black_on_light: [1, 2, 3] black_on_dark: [1, 2, 3] ";
  EXPECT_EQ(error_of(pieces + "square_colours { square: \"i3\" bgr: [1, 1, 1] } }"),
            "damaged.pbtxt: board B: looks.square_colours has square \"i3\", not a square from "
            "a1 to h8");
  EXPECT_EQ(error_of(pieces + "square_colours { square: \"a3\" bgr: [1, 1] } }"),
            "damaged.pbtxt: board B: looks.square_colours a3 bgr needs 3 numbers, has 2");
  EXPECT_EQ(error_of(pieces + "square_colours { square: \"a3\" } }"),
            "damaged.pbtxt: board B: looks.square_colours a3 bgr is missing");
  EXPECT_EQ(error_of(pieces + "square_colours { square: \"a3\" bgr: [1, 1, 1] } " +
                     "square_colours { square: \"a3\" bgr: [1, 1, 1] } }"),
            "damaged.pbtxt: board B: looks.square_colours has a3 twice");
  EXPECT_EQ(error_of(pieces + "shadow_rank_side: 2 }"),
            "damaged.pbtxt: board B: looks.shadow_rank_side is 2, not -1, 0 or 1");
  EXPECT_EQ(error_of(pieces + "shadow_file_side: -3 }"),
            "damaged.pbtxt: board B: looks.shadow_file_side is -3, not -1, 0 or 1");
  EXPECT_EQ(error_of("light_square_bgr: [1, 2, 3, 4] dark_square_bgr: [1, 2, 3]"),
            "damaged.pbtxt: board B: light_square_bgr needs 3 numbers, has 4");
  EXPECT_EQ(error_of("light_square_bgr: [1, 2, 3]"),
            "damaged.pbtxt: board B: light_square_bgr and dark_square_bgr come together");
  EXPECT_EQ(error_of("light_square_bgr: [200, 201.5, 202] dark_square_bgr: [1, 2, 3]"), "no error");
}

TEST(CalibrationFile, ErrorsNameTheLine) {
  try {
    from_pbtxt("image_width: 10\nboards { name: \"A\" board_to_image: x }\n", "bad.pbtxt");
    FAIL() << "no error";
  } catch (const CalibrationError& e) {
    EXPECT_NE(std::string(e.what()).find("bad.pbtxt:2:"), std::string::npos) << e.what();
  }
  EXPECT_THROW(from_pbtxt("boards { name: \"A\" board_to_image: 1 }", "short.pbtxt"),
               CalibrationError);
  EXPECT_THROW(load_calibration("/nonexistent/calibration.pbtxt"), CalibrationError);
}

TEST(Drift, AMovedCameraIsNoticedAndTheCalibrationRenewed) {
  Scene scene = bughouse_scene();
  const SceneTruth before = testing::render_scene(scene);
  Calibration first = calibrate(before.image);
  first.boards[0].looks.learned = true;
  first.boards[0].looks.white_on_dark = {180, 190, 200};
  first.boards[0].looks.empty_square_ratio[16] = {1.3f, 1.2f, 1.1f};
  first.boards[1].squares_by_network = true;
  first.boards[1].start_misreads_hand = 9;
  first.boards[1].start_misreads_network = 1;
  DriftWatch watch(first, 1, 2);
  for (int i = 0; i < 3; ++i) watch.update(before.image);
  EXPECT_EQ(watch.renewals(), 0);
  EXPECT_GT(watch.last_agreement(), 0.9);
  scene.roll_deg = 4;  // the camera was bumped
  scene.tilt_deg = 8;
  const SceneTruth after = testing::render_scene(scene);
  watch.update(after.image);
  EXPECT_EQ(watch.renewals(), 0);  // one miss is patience, not yet a renewal
  watch.update(after.image);
  EXPECT_EQ(watch.renewals(), 1);
  EXPECT_LT(corner_error(watch.current().boards[0], after.corners[0], after.square_px), 0.03);
  // The pieces did not change: what was learnt of their looks is kept.
  EXPECT_TRUE(watch.current().boards[0].looks.learned);
  EXPECT_EQ(watch.current().boards[0].looks.white_on_dark, cv::Vec3f(180, 190, 200));
  // The board moved under the lamp: its squares' own colours are forgotten.
  EXPECT_EQ(watch.current().boards[0].looks.empty_square_ratio[16], cv::Vec3f(0, 0, 0));
  EXPECT_FALSE(watch.current().boards[1].looks.learned);
  // Nor did who reads the squares, chosen on the start position.
  EXPECT_FALSE(watch.current().boards[0].squares_by_network);
  EXPECT_TRUE(watch.current().boards[1].squares_by_network);
  EXPECT_EQ(watch.current().boards[1].start_misreads_hand, 9);
  EXPECT_EQ(watch.current().boards[1].start_misreads_network, 1);
}

}  // namespace
}  // namespace bugcam::calibration
