// Learnt looks (calibration::BoardLooks): the pieces' colours and the shadows of a scene,
// learnt from a rendered still of the start position and used to read other stills of the
// same scene (same seed: boards, pieces, camera and light).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <stdexcept>

#include <gtest/gtest.h>
#include <opencv2/imgproc.hpp>

#include "bugcam/samples.hpp"
#include "bugcam/vision.hpp"
#include "still_calibration.hpp"

namespace {

using namespace bugcam;
using namespace bugcam::vision;

// The vision's symbol of a still's square truth: '.', 'w' or 'b'.
char truth_symbol(char letter) {
  if (letter == '.') return '.';
  return letter >= 'a' ? 'b' : 'w';
}

struct Tally {
  int right = 0;
  int total = 0;
  int white_right = 0;  // white pieces read white
  int white_total = 0;
  int colour_wrong = 0;  // pieces read as pieces of the other colour
  int empty_right = 0;   // empty squares read empty
  int empty_total = 0;
  int empty_white = 0;  // empty squares read white
  int black_right = 0;  // black pieces read black
  int black_total = 0;
  // Read right by their probabilities alone, whatever the "something covers it" flag says.
  int white_right_unflagged = 0;
  int empty_right_unflagged = 0;

  Tally& operator+=(const Tally& o) {
    right += o.right;
    total += o.total;
    white_right += o.white_right;
    white_total += o.white_total;
    colour_wrong += o.colour_wrong;
    empty_right += o.empty_right;
    empty_total += o.empty_total;
    empty_white += o.empty_white;
    black_right += o.black_right;
    black_total += o.black_total;
    white_right_unflagged += o.white_right_unflagged;
    empty_right_unflagged += o.empty_right_unflagged;
    return *this;
  }
};

FrameObservation read_frame(const samples::TrainingStill& still,
                            const calibration::Calibration& calibration) {
  const FrameReader reader(calibration,
                           {.square_px = 32, .piece_types = nullptr, .bundled_piece_types = false});
  return reader.read(still.image);
}

// What `seen` read right of the still, on both boards or only on board `only` (0 for A, 1
// for B).
Tally tally_read(const samples::TrainingStill& still, const FrameObservation& seen,
                 std::optional<size_t> only = std::nullopt) {
  Tally tally;
  for (size_t b = 0; b < 2; ++b) {
    if (only && b != *only) continue;
    for (size_t sq = 0; sq < 64; ++sq) {
      const char expected = truth_symbol(still.squares[b][sq]);
      const char symbol = seen.boards[b].squares[sq].symbol();
      SquareObservation unflagged = seen.boards[b].squares[sq];
      unflagged.occluded = false;
      const char probable = unflagged.symbol();
      ++tally.total;
      tally.right += symbol == expected ? 1 : 0;
      if ((expected == 'w' && symbol == 'b') || (expected == 'b' && symbol == 'w')) {
        ++tally.colour_wrong;
      }
      if (expected == 'w') {
        ++tally.white_total;
        tally.white_right += symbol == 'w' ? 1 : 0;
        tally.white_right_unflagged += probable == 'w' ? 1 : 0;
      }
      if (expected == 'b') {
        ++tally.black_total;
        tally.black_right += symbol == 'b' ? 1 : 0;
      }
      if (expected == '.') {
        ++tally.empty_total;
        tally.empty_right += symbol == '.' ? 1 : 0;
        tally.empty_right_unflagged += probable == '.' ? 1 : 0;
        tally.empty_white += symbol == 'w' ? 1 : 0;
      }
    }
  }
  return tally;
}

Tally read_still(const samples::TrainingStill& still, const calibration::Calibration& calibration) {
  return tally_read(still, read_frame(still, calibration));
}

// Learns from the start still of `seed`; the calibration is the renderer's lattice.
calibration::Calibration learnt_calibration(std::uint64_t seed) {
  const samples::TrainingStill start = samples::render_start_still(seed, 0, 1280, 720);
  calibration::Calibration calibration = bugcam::testing::still_calibration(start);
  EXPECT_EQ(learn_looks(start.image, calibration), 2);
  return calibration;
}

// The tallies of random positions 1 to 4 of a scene summed, read with the looks learnt from
// its start.
Tally read_variants(std::uint64_t seed) {
  const calibration::Calibration calibration = learnt_calibration(seed);
  Tally sum;
  for (std::uint64_t variant = 1; variant <= 4; ++variant) {
    sum += read_still(samples::render_training_still(seed, variant, 1280, 720), calibration);
  }
  return sum;
}

// Light wooden "white" pieces and dark wooden black ones on a cream and green board (the look
// of dev clip 1005): the fixed white/black split read every piece black there.
TEST(LearntLooks, LightWoodenPiecesReadWhite) {
  constexpr std::uint64_t kSeed = 1005;
  const calibration::Calibration calibration = learnt_calibration(kSeed);
  for (const calibration::Board& board : calibration.boards) {
    const calibration::BoardLooks& looks = board.looks;
    ASSERT_TRUE(looks.learned);
    EXPECT_GT(calibration::luma(looks.white_on_dark), calibration::luma(looks.black_on_light));
  }
  const Tally start = read_still(samples::render_start_still(kSeed, 0, 1280, 720), calibration);
  EXPECT_EQ(start.white_right, start.white_total);
  EXPECT_GE(start.right, 126) << "of 128";
  for (const std::uint64_t variant : {1, 2, 3}) {
    const Tally game =
        read_still(samples::render_training_still(kSeed, variant, 1280, 720), calibration);
    // Crowded random positions leave a few pieces unsure ('?') behind tall ones; none may
    // read as the other colour.
    EXPECT_LE(game.colour_wrong, 1) << "variant " << variant;
    EXPECT_GE(game.white_right, 0.85 * game.white_total)
        << "variant " << variant << ": " << game.white_right << " of " << game.white_total;
    EXPECT_GE(game.right, 0.93 * game.total)
        << "variant " << variant << ": " << game.right << " of " << game.total;
  }
}

// A low light casting long shadows over a wooden board (the look of dev clip 1004): the fixed
// shadow test took the light squares in the pieces' shadows for white pieces.
TEST(LearntLooks, LongShadowsAreNotPieces) {
  constexpr std::uint64_t kSeed = 1004;
  const calibration::Calibration calibration = learnt_calibration(kSeed);
  const Tally start = read_still(samples::render_start_still(kSeed, 0, 1280, 720), calibration);
  EXPECT_EQ(start.empty_right, start.empty_total);
  EXPECT_EQ(start.white_right, start.white_total);
  EXPECT_GE(start.right, 127) << "of 128";
  for (const std::uint64_t variant : {1, 2, 3}) {
    const Tally game =
        read_still(samples::render_training_still(kSeed, variant, 1280, 720), calibration);
    EXPECT_GE(game.empty_right, 0.95 * game.empty_total)
        << "variant " << variant << ": " << game.empty_right << " of " << game.empty_total;
    EXPECT_GE(game.right, 0.93 * game.total)
        << "variant " << variant << ": " << game.right << " of " << game.total;
  }
}

// Empty light squares beside the pieces, whose corners lie in the pieces' shadows while their
// middle is lit (the look of clip 4305: plastic pieces seen from low): the lit middle was
// brighter than the square's shaded corners and read as a white piece's lit side. Random
// positions of that scene, read with the looks learnt from its start position.
TEST(LearntLooks, ShadedCornersOfAnEmptySquareAreNotAWhitePiece) {
  for (const std::uint64_t seed : {4305}) {
    const Tally read = read_variants(seed);
    // Before: 7 of 380.
    EXPECT_LE(read.empty_white, 0.01 * read.empty_total)
        << "seed " << seed << ": of " << read.empty_total;
  }
}

// Dark brown pieces on the dark grey squares of a grey board (the look of dev clip 1000):
// their colour lies within the board's colour threshold of the square's, so only a few lit
// pixels told a piece there, and on board B most of them read empty. Their hue is what
// differs. Random positions of that scene, read with the looks learnt from its start.
TEST(LearntLooks, BrownPiecesOnGreySquaresAreSeenByTheirHue) {
  const Tally read = read_variants(1000);
  // Before: 59 of 76 black pieces and 352 of 369 empty squares; now 67 and 359 (the rest
  // unsure behind crowded pieces).
  EXPECT_GE(read.black_right, 0.85 * read.black_total) << "of " << read.black_total;
  EXPECT_GE(read.empty_right, 0.96 * read.empty_total) << "of " << read.empty_total;
}

// Dark red pieces on the brown squares of a wooden board (the look of clip 9002): such a
// piece is its square's colour darkened with the hue kept, as a shadow is, so it read empty.
// It is what the black pieces of the start position looked like on such squares, and far
// from any shadow's hue.
TEST(LearntLooks, DarkRedPiecesOnBrownSquaresAreNotShadows) {
  const Tally read = read_variants(9002);
  // Before: 37 of 75 black pieces and 282 of 351 empty squares; now 58 and 287 (under this
  // 38 degree tilt, the rest mostly unsure behind the pieces in front).
  EXPECT_GE(read.black_right, 0.7 * read.black_total) << "of " << read.black_total;
  EXPECT_GE(read.empty_right, 0.8 * read.empty_total) << "of " << read.empty_total;
}

// Cream pieces on light wooden squares (the looks of clips 9104 and 9106): a piece's shaded
// side is its square's colour darkened with the hue nearly kept, as a shadow is, so with few
// other pixels unlike the square such a piece read empty or unsure. Those pixels are much
// nearer the look white pieces showed on such squares in the start position than any shadow.
// Random positions 1 to 4 of each scene, read by their probabilities whatever the "something
// covers it" flag says (cream's yellow passes for a hand's in a single frame).
TEST(LearntLooks, ShadedSidesOfCreamPiecesAreNotShadows) {
  struct Scene {
    std::uint64_t seed;
    double white_share;  // of the white pieces, at least
  };
  // Before: 66 of 88 white pieces (9104), 62 of 82 (9106); now 85 and 69. Empty squares
  // read right are unchanged: 335 of 335 and 307 of 333.
  for (const Scene scene : {Scene{9104, 0.93}, Scene{9106, 0.8}}) {
    const Tally read = read_variants(scene.seed);
    EXPECT_GE(read.white_right_unflagged, scene.white_share * read.white_total)
        << "seed " << scene.seed << ": " << read.white_right_unflagged << " of "
        << read.white_total;
    EXPECT_GE(read.empty_right_unflagged, 0.9 * read.empty_total)
        << "seed " << scene.seed << ": " << read.empty_right_unflagged << " of "
        << read.empty_total;
  }
}

// Light added to one square of `board` (a1 = 0), `levels` in each channel, the same all over
// it: a lamp's hot spot on a glossy board.
// `image` with the area of board x (files) from x0 to x1 and y (ranks) from y0 to y1 lit
// `levels` luma levels lighter (darker where negative).
cv::Mat with_area_lit(const cv::Mat& image, const calibration::Board& board, double x0, double y0,
                      double x1, double y1, int levels) {
  std::vector<cv::Point> outline;
  for (const cv::Point2d corner :
       {cv::Point2d{x0, y0}, cv::Point2d{x1, y0}, cv::Point2d{x1, y1}, cv::Point2d{x0, y1}}) {
    const cv::Point2d at = board.to_image(corner);
    outline.emplace_back(cvRound(at.x), cvRound(at.y));
  }
  cv::Mat mask = cv::Mat::zeros(image.size(), CV_8U);
  cv::fillConvexPoly(mask, outline, cv::Scalar(255));
  cv::Mat out = image.clone();
  cv::add(image, cv::Scalar(levels, levels, levels), out, mask);
  return out;
}

cv::Mat with_square_lit(const cv::Mat& image, const calibration::Board& board, int sq, int levels) {
  const double file = sq % 8, rank = sq / 8;
  return with_area_lit(image, board, file, rank, file + 1, rank + 1, levels);
}

// Clip 9506's board B has a lamp's hot spot: its dark squares a3, b4, a5 and c3 show their
// colour lit whiter, unlike both the dark squares' common colour and a shadow of it, so the
// empty a3 read as a white piece in most frames. The start position's empty squares teach
// each square's own colour where it is brighter than its parity's (not where darker: a start
// piece's shadow leaves with it). Here one dark square of board B is lit 15 levels whiter.
TEST(LearntLooks, AHotSpotOnTheBoardIsNotAPiece) {
  constexpr std::uint64_t kSeed = 9506;
  constexpr int kLit = 27, kShaded = 36, kLevels = 15;  // d4 and e5, both dark squares
  samples::TrainingStill start = samples::render_start_still(kSeed, 0, 1280, 720);
  calibration::Calibration calibration = bugcam::testing::still_calibration(start);
  const calibration::Board& board_b = calibration.boards[1];
  start.image = with_square_lit(start.image, board_b, kLit, kLevels);
  start.image = with_square_lit(start.image, board_b, kShaded, -kLevels);
  ASSERT_EQ(learn_looks(start.image, calibration), 2);
  const calibration::BoardLooks& looks = calibration.boards[1].looks;
  EXPECT_GT(calibration::luma(looks.empty_square_ratio[kLit] * 100.0f), 110.0f);
  EXPECT_EQ(looks.empty_square_ratio[kShaded], cv::Vec3f(0, 0, 0));
  // Before: the lit square read right in 4 of 8 random positions (5 but for the "something
  // covers it" flag), the board's empty squares in 355 of 401; now 8 and 374.
  Tally read;
  int lit_right = 0;
  constexpr int kPositions = 8;
  for (std::uint64_t variant = 1; variant <= kPositions; ++variant) {
    samples::TrainingStill still = samples::render_training_still(kSeed, variant, 1280, 720);
    still.image = with_square_lit(still.image, board_b, kLit, kLevels);
    const FrameObservation seen = read_frame(still, calibration);
    const SquareObservation& lit = seen.boards[1].squares[kLit];
    lit_right += lit.symbol() == truth_symbol(still.squares[1][kLit]) ? 1 : 0;
    read += tally_read(still, seen, 1);
  }
  EXPECT_GE(lit_right, kPositions - 1);
  EXPECT_GE(read.empty_right, 0.92 * read.empty_total)
      << read.empty_right << " of " << read.empty_total;
}

// The start frame teaches which way the shadows fall along the ranks: beside the side of
// board A its corner pieces do not lean over, the table darkened beside both ends' two ranks.
TEST(LearntLooks, TheSideTheShadowsFallOnBesideTheBoardIsLearnt) {
  samples::TrainingStill start = samples::render_start_still(9506, 0, 1280, 720);
  calibration::Calibration calibration = bugcam::testing::still_calibration(start);
  const calibration::Board& board_a = calibration.boards[0];
  ASSERT_EQ(learn_looks(start.image, calibration), 2);
  ASSERT_EQ(calibration.boards[0].looks.shadow_file_side, 0);
  // The a-side, unless the corner pieces lean over it in this view.
  const bool a_side = estimate_viewpoints(calibration)[0].lean({0.5, 0.5}, 1.9).x > -0.3;
  const double x0 = a_side ? -0.45 : 8.05, x1 = a_side ? -0.05 : 8.45;
  cv::Mat shaded = with_area_lit(start.image, board_a, x0, 0.0, x1, 2.0, -25);
  shaded = with_area_lit(shaded, board_a, x0, 6.0, x1, 8.0, -25);
  ASSERT_EQ(learn_looks(shaded, calibration), 2);
  EXPECT_EQ(calibration.boards[0].looks.shadow_file_side, a_side ? 1 : -1);
}

// A position that is not the start position teaches nothing: the calibration is left as it
// was and the fixed rules read it.
TEST(LearntLooks, NothingIsLearntFromAGameInProgress) {
  const samples::TrainingStill game = samples::render_training_still(1004, 7, 1280, 720);
  calibration::Calibration calibration = bugcam::testing::still_calibration(game);
  EXPECT_EQ(learn_looks(game.image, calibration), 0);
  for (const calibration::Board& board : calibration.boards) EXPECT_FALSE(board.looks.learned);
}

// A top-down view of an empty board, 32 pixels a square, a1 dark: cream light squares, brown
// dark ones, each rank's squares `falloff` levels darker than the rank above, and the middle
// of the light squares of `shaded_ranks` (0-based) darkened by `drop` luma levels, as a
// piece's shadow from the rank beside darkens them.
cv::Mat board_with_shaded_ranks(std::initializer_list<int> shaded_ranks, double drop,
                                double falloff = 0.0) {
  constexpr int kPx = 32;
  cv::Mat view(8 * kPx, 8 * kPx, CV_8UC3);
  for (int rank = 0; rank < 8; ++rank) {
    for (int file = 0; file < 8; ++file) {
      const bool light = (rank + file) % 2 == 1;
      const cv::Scalar colour = (light ? cv::Scalar(160, 185, 195) : cv::Scalar(60, 90, 130)) +
                                cv::Scalar::all(falloff * rank);
      const cv::Rect square(file * kPx, (7 - rank) * kPx, kPx, kPx);
      view(square).setTo(colour);
      if (light &&
          std::find(shaded_ranks.begin(), shaded_ranks.end(), rank) != shaded_ranks.end()) {
        view(cv::Rect(square.x + 8, square.y + 4, 16, 24)).setTo(colour - cv::Scalar::all(drop));
      }
    }
  }
  return view;
}

// Which way the shadows fall is read from the empty squares of the start position nearest the
// pieces: rank 6 darker than ranks 4 and 5, shadows from rank 7 toward rank 1; rank 3, from
// rank 2 toward rank 8. A drop within what noise and print make is no shadow.
TEST(ShadowSide, RankSixOrThreeDarkerThanTheMiddleSaysWhichWayShadowsFall) {
  EXPECT_EQ(shadow_rank_side(board_with_shaded_ranks({5}, 12.0), 32, true), 1);
  EXPECT_EQ(shadow_rank_side(board_with_shaded_ranks({2}, 12.0), 32, true), -1);
  EXPECT_EQ(shadow_rank_side(board_with_shaded_ranks({}, 0.0), 32, true), 0);
  EXPECT_EQ(shadow_rank_side(board_with_shaded_ranks({5}, kShadowLumaDrop / 2), 32, true), 0);
  // The middle ranks darkened, or both outer ones (a lamp's hot spot between them): no side.
  EXPECT_EQ(shadow_rank_side(board_with_shaded_ranks({3}, 12.0), 32, true), 0);
  EXPECT_EQ(shadow_rank_side(board_with_shaded_ranks({4}, 12.0), 32, true), 0);
  EXPECT_EQ(shadow_rank_side(board_with_shaded_ranks({2, 5}, 12.0), 32, true), 0);
  // Light falling off across the board, 6 levels a rank either way, is no shadow; a deeper
  // shadow on it still is.
  EXPECT_EQ(shadow_rank_side(board_with_shaded_ranks({}, 0.0, 6.0), 32, true), 0);
  EXPECT_EQ(shadow_rank_side(board_with_shaded_ranks({}, 0.0, -6.0), 32, true), 0);
  EXPECT_EQ(shadow_rank_side(board_with_shaded_ranks({5}, 20.0, 6.0), 32, true), 1);
  EXPECT_EQ(shadow_rank_side(board_with_shaded_ranks({2}, 20.0, -6.0), 32, true), -1);
  // Read on the light squares, whichever colour a1 is: with a1 taken for light, the drawn
  // light squares are taken for dark ones and their shade is not seen.
  EXPECT_EQ(shadow_rank_side(board_with_shaded_ranks({5}, 12.0), 32, false), 0);
  // Another view is an error that says what it needs.
  EXPECT_THROW(shadow_rank_side(cv::Mat(100, 100, CV_8UC3), 32, true), std::invalid_argument);
}

// A frame with a board 40 pixels a square whose a1 corner is at (100 + x0, 420), rank 8 up,
// on a grey table, darkened by `drop` levels beyond the a-file (`a_side`) or the h-file beside
// both ends' two ranks, as the shadows of the corner pieces darken it when they fall that way
// (`both_ends` false: beside ranks 1 and 2 only).
struct FramedBoard {
  cv::Mat frame;
  calibration::Board board;
};
FramedBoard board_with_shaded_side(bool a_side, double drop, bool both_ends = true, double x0 = 0) {
  constexpr double kPx = 40;
  FramedBoard out;
  out.board.board_to_image = cv::Matx33d(kPx, 0, 100 + x0, 0, -kPx, 100 + 8 * kPx, 0, 0, 1);
  out.frame = cv::Mat(520, 520, CV_8UC3, cv::Scalar(150, 160, 170));
  const auto image_x = [&](double x) { return static_cast<int>(100 + x0 + kPx * x); };
  const auto image_y = [&](double y) { return static_cast<int>(100 + kPx * (8 - y)); };
  // The board itself: a different colour, so the strip is read off the board.
  out.frame(cv::Rect(cv::Point(image_x(0), image_y(8)), cv::Point(image_x(8), image_y(0))))
      .setTo(cv::Scalar(200, 210, 220));
  const double outer = a_side ? -0.5 : 8.0, inner = a_side ? 0.0 : 8.5;
  for (const double y : {0.0, 6.0}) {
    if (y > 0.0 && !both_ends) continue;
    const cv::Rect shade(cv::Point(image_x(outer), image_y(y + 2)),
                         cv::Point(image_x(inner), image_y(y)));
    out.frame(shade & cv::Rect(0, 0, out.frame.cols, out.frame.rows))
        .setTo(cv::Scalar(150, 160, 170) - cv::Scalar::all(drop));
  }
  return out;
}

// Which way the shadows fall along the ranks is read beyond the board's sides, the only place
// the start position's corner pieces cast sideways onto: the a-file's side darker beside both
// ends than beside the middle ranks, shadows toward the a-file (the caster one file toward h).
TEST(ShadowSide, TheTableBeyondAFileDarkerBesideBothEndsSaysWhichWayShadowsFall) {
  const Viewpoint overhead;  // no lean
  const auto side = [&](const FramedBoard& f, const Viewpoint& view) {
    return shadow_file_side(f.frame, f.board, view, 32);
  };
  EXPECT_EQ(side(board_with_shaded_side(true, 12.0), overhead), 1);
  EXPECT_EQ(side(board_with_shaded_side(false, 12.0), overhead), -1);
  EXPECT_EQ(side(board_with_shaded_side(true, 0.0), overhead), 0);
  EXPECT_EQ(side(board_with_shaded_side(true, kShadowLumaDrop / 2), overhead), 0);
  // Beside one end only: a piece's or a hand's shade, not the light's.
  EXPECT_EQ(side(board_with_shaded_side(true, 12.0, false), overhead), 0);
  // A strip beyond the frame is not read.
  EXPECT_EQ(side(board_with_shaded_side(true, 12.0, true, -90.0), overhead), 0);
  // Seen from far beyond the h-file, the a-file's corner kings lean over the strip beyond it,
  // whose darkening may be their bodies; the h-side is still read.
  Viewpoint beyond_h;
  beyond_h.nadir = {20, 4};
  beyond_h.camera_height = 20;
  EXPECT_EQ(side(board_with_shaded_side(true, 12.0), beyond_h), 0);
  EXPECT_EQ(side(board_with_shaded_side(false, 12.0), beyond_h), -1);
}

}  // namespace
