// Piece types: the bundled networks on synthetic stills of seeds never used in training
// (training uses seeds 1-2999), holding areas counted by type and colour.
#include <cmath>
#include <map>

#include <gtest/gtest.h>
#include <opencv2/core.hpp>
#include <opencv2/core/utility.hpp>

#include "bugcam/samples.hpp"
#include "bugcam/vision.hpp"
#include "still_calibration.hpp"

namespace {

using namespace bugcam;
using namespace bugcam::vision;

std::shared_ptr<const PieceTypeModel> model() {
  std::shared_ptr<const PieceTypeModel> m = PieceTypeModel::load_bundled();
  EXPECT_TRUE(m != nullptr) << "no bundled piece-type model (vision/models)";
  return m;
}

std::size_t best_of(const TypeProbabilities& p) {
  return static_cast<std::size_t>(std::max_element(p.begin(), p.end()) - p.begin());
}

// Stills of held-apart seeds (3000-3999), a few looks: straight down to strongly tilted.
constexpr int kStillSeeds[] = {3901, 3947, 3973};

// Calls `visit(still, calibration, board, square, letter)` for every piece on the boards of
// the stills of kStillSeeds.
template <typename Visit>
void for_each_board_piece(Visit&& visit) {
  for (const int seed : kStillSeeds) {
    const samples::TrainingStill still =
        samples::render_training_still(static_cast<std::uint64_t>(seed), 1, 1280, 720);
    const calibration::Calibration c = bugcam::testing::still_calibration(still);
    for (std::size_t b = 0; b < 2; ++b) {
      for (int sq = 0; sq < 64; ++sq) {
        const char letter = still.squares[b][static_cast<std::size_t>(sq)];
        if (letter != '.') visit(still, c, b, sq, letter);
      }
    }
  }
}

TEST(PieceTypes, BoardPiecesOfUnseenSeedsAreMostlyRead) {
  const auto m = model();
  ASSERT_TRUE(m);
  int right = 0, total = 0;
  for_each_board_piece([&](const samples::TrainingStill& still, const calibration::Calibration& c,
                           std::size_t b, int sq, char letter) {
    const TypeProbabilities p =
        m->board_piece(square_patch(still.image, c.boards[b], c.image_size, sq));
    const char read = kPieceTypeLetters[best_of(p)];
    ++total;
    right += read == std::toupper(static_cast<unsigned char>(letter));
  });
  ASSERT_GT(total, 40);
  // Six types, chance is 1/6; the training program reports the full per-type figures:
  // 95 % over 120 held-apart stills (the HOG + MLP networks before the convolutional ones:
  // 73 %). Here 144 / 154.
  EXPECT_GE(static_cast<double>(right) / total, 0.85) << right << " / " << total;
}

// The networks give the same probabilities, bit for bit, however many threads OpenCV uses:
// recordings must not depend on the machine.
TEST(PieceTypes, OutputsDoNotDependOnThreadCount) {
  const auto m = model();
  ASSERT_TRUE(m);
  const samples::TrainingStill still = samples::render_training_still(3947, 1, 1280, 720);
  const calibration::Calibration c = bugcam::testing::still_calibration(still);
  std::vector<cv::Mat> squares, held;
  for (int sq = 0; sq < 64; ++sq) {
    if (still.squares[1][static_cast<std::size_t>(sq)] != '.') {
      squares.push_back(square_patch(still.image, c.boards[1], c.image_size, sq));
    }
  }
  for (std::size_t player = 0; player < 4; ++player) {
    for (const auto& piece : still.holdings[player]) {
      held.push_back(holding_patch(still.image, c.boards[player / 2], c.image_size,
                                   (piece.base + piece.top) * 0.5));
    }
  }
  ASSERT_FALSE(squares.empty());
  ASSERT_FALSE(held.empty());
  const int threads = cv::getNumThreads();
  const auto read_all = [&](int n) {
    cv::setNumThreads(n);
    std::vector<TypeProbabilities> out;
    for (const cv::Mat& patch : squares) out.push_back(m->board_piece(patch));
    for (const cv::Mat& patch : held) out.push_back(m->holding_piece(patch));
    return out;
  };
  const std::vector<TypeProbabilities> one = read_all(1), four = read_all(4);
  cv::setNumThreads(threads);
  EXPECT_EQ(one, four);
}

TEST(PieceTypes, CandidatesRestrictTheAnswer) {
  const auto m = model();
  ASSERT_TRUE(m);
  const samples::TrainingStill still = samples::render_training_still(3901, 1, 1280, 720);
  const calibration::Calibration c = bugcam::testing::still_calibration(still);
  for (int sq = 0; sq < 64; ++sq) {
    if (still.squares[0][static_cast<std::size_t>(sq)] == '.') continue;
    const std::optional<TypeProbabilities> p =
        square_piece_types(still.image, c, "A", sq, "NB", *m);
    ASSERT_TRUE(p.has_value());
    EXPECT_NEAR((*p)[1] + (*p)[2], 1.0f, 1e-4f);
    EXPECT_EQ((*p)[0] + (*p)[3] + (*p)[4] + (*p)[5], 0.0f);
  }
  EXPECT_FALSE(square_piece_types(still.image, c, "C", 0, "NB", *m).has_value());
  EXPECT_FALSE(square_piece_types(still.image, c, "A", 0, "", *m).has_value());
}

// The tracker's questions are answered in six looks at the square's patch (itself, scaled
// by 0.9 and 1.1 about the piece's base, and the three mirrored), as the network learnt from
// such variants: a piece misread in one look is mostly read right in the others. A patch and
// its mirror image then read the same, where the network alone reads them differently.
TEST(PieceTypes, SquaresAreReadInSeveralLooks) {
  const auto m = model();
  ASSERT_TRUE(m);
  int right = 0, right_alone = 0, total = 0;
  float alone_differs = 0.0f, looks_differ = 0.0f;
  for_each_board_piece([&](const samples::TrainingStill& still, const calibration::Calibration& c,
                           std::size_t b, int sq, char letter) {
    const cv::Mat patch = square_patch(still.image, c.boards[b], c.image_size, sq);
    cv::Mat mirror;
    cv::flip(patch, mirror, 1);
    const TypeProbabilities alone = m->board_piece(patch);
    const TypeProbabilities alone_mirrored = m->board_piece(mirror);
    const TypeProbabilities looks = m->board_piece_looks(patch);
    const TypeProbabilities looks_mirrored = m->board_piece_looks(mirror);
    const std::optional<TypeProbabilities> asked =
        square_piece_types(still.image, c, c.boards[b].name, sq, kPieceTypeLetters, *m);
    ASSERT_TRUE(asked.has_value());
    for (std::size_t k = 0; k < 6; ++k) {
      alone_differs = std::max(alone_differs, std::abs(alone[k] - alone_mirrored[k]));
      looks_differ = std::max(looks_differ, std::abs(looks[k] - looks_mirrored[k]));
      EXPECT_NEAR((*asked)[k], looks[k], 1e-5f);
    }
    const char truth = static_cast<char>(std::toupper(static_cast<unsigned char>(letter)));
    ++total;
    right += kPieceTypeLetters[best_of(*asked)] == truth;
    right_alone += kPieceTypeLetters[best_of(alone)] == truth;
  });
  ASSERT_GT(total, 40);
  EXPECT_GT(alone_differs, 0.1f);
  // Mirroring and scaling about the patch's middle column commute up to rounding (here the
  // same to the bit; the network alone: up to 0.85 apart).
  EXPECT_LT(looks_differ, 0.01f);
  // On 120 held-apart stills: 95.0 % alone, 96.5 % in six looks (train_piece_types). Here
  // 146 / 154 against 144.
  EXPECT_GT(right, right_alone) << right << " vs " << right_alone << " of " << total;
}

TEST(PieceTypes, HoldingAreasAreCountedByTypeAndColour) {
  const auto m = model();
  ASSERT_TRUE(m);
  int pieces = 0, typed_right = 0, colour_right = 0;
  for (const int seed : kStillSeeds) {
    const samples::TrainingStill still =
        samples::render_training_still(static_cast<std::uint64_t>(seed), 1, 1280, 720);
    const calibration::Calibration c = bugcam::testing::still_calibration(still);
    for (std::size_t player = 0; player < 4; ++player) {
      const HoldingObservation seen = read_holding(
          still.image, c.holdings[player], c.boards[player / 2], c.image_size, 128.0f, m.get());
      std::map<char, int> truth;
      int white = 0;
      for (const auto& piece : still.holdings[player]) {
        ++truth[static_cast<char>(std::toupper(static_cast<unsigned char>(piece.letter)))];
        white += std::isupper(static_cast<unsigned char>(piece.letter)) != 0;
      }
      const int count = static_cast<int>(still.holdings[player].size());
      pieces += count;
      colour_right +=
          std::min(seen.white_pieces, white) + std::min(seen.black_pieces, count - white);
      // Pieces whose type was read right, area by area (the counts' overlap).
      for (const auto& [letter, n] : truth) {
        const auto it = seen.counts.find(letter);
        typed_right += std::min(n, it == seen.counts.end() ? 0 : it->second);
      }
      for (const HeldPiece& piece : seen.pieces) {
        EXPECT_NE(piece.letter, '?');
        EXPECT_NE(std::toupper(static_cast<unsigned char>(piece.letter)), 'K');
        EXPECT_GT(piece.confidence, 0.0f);
      }
    }
  }
  ASSERT_GT(pieces, 10);
  // Measured 69 %: loose, lying and touching pieces (these stills have many) are often split
  // or merged wrongly; pieces in their slots, as in the clips, are counted far better.
  EXPECT_GE(static_cast<double>(colour_right) / pieces, 0.6) << colour_right << " / " << pieces;
  // Chance is 1/5; the training program measures 65 % of the pieces found over 120
  // held-apart stills (many loose, lying or touching; the MLP before: 43 %). Here 27 / 54,
  // pieces not found or merged included.
  EXPECT_GE(static_cast<double>(typed_right) / pieces, 0.42) << typed_right << " / " << pieces;
}

}  // namespace

// Holding areas counted right (all pieces found, none split in two) on stills of every tilt.
// A standing piece seen tilted is a long silhouette (its base and its body leaning away from
// the camera): counted by the area a piece has in that view, not a fixed one, it is one piece.
TEST(PieceTypes, HoldingAreasAreCountedAtEveryTilt) {
  int areas = 0, counted_right = 0, tilted_areas = 0, tilted_right = 0;
  for (int seed = 3100; seed < 3400; seed += 25) {
    const samples::TrainingStill still =
        samples::render_training_still(static_cast<std::uint64_t>(seed), 1, 1280, 720);
    const calibration::Calibration c = bugcam::testing::still_calibration(still);
    for (std::size_t player = 0; player < 4; ++player) {
      const HoldingObservation seen = read_holding(
          still.image, c.holdings[player], c.boards[player / 2], c.image_size, 128.0f, nullptr);
      const bool right =
          seen.white_pieces + seen.black_pieces == static_cast<int>(still.holdings[player].size());
      ++areas;
      counted_right += right;
      if (still.tilt_degrees > 20) {
        ++tilted_areas;
        tilted_right += right;
      }
    }
  }
  ASSERT_GT(tilted_areas, 8);
  // Measured here: 36 / 48 areas, 30 / 40 of views tilted more than 20 degrees (this comment
  // gave 32 / 48 and 26 / 40 before stop 43's board-edge band and notch rule; with a fixed
  // area per piece, split along the blob's length: 17 / 48 and 13 / 40).
  EXPECT_GE(counted_right * 5, areas * 3) << counted_right << " / " << areas;
  EXPECT_GE(tilted_right, tilted_areas / 2) << tilted_right << " / " << tilted_areas;
}
