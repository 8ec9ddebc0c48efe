// The holding network (vision/models/holdings.onnx): its input as the training script builds
// it, its loading, and how well it finds the pieces held beside the boards of rendered stills
// of looks it never learnt from, beside the blobs read_holding counts.
#include <array>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include <gtest/gtest.h>
#include <opencv2/imgproc.hpp>

#include "bugcam/samples.hpp"
#include "bugcam/vision.hpp"
#include "still_calibration.hpp"
#include "temp_dir.hpp"

namespace {

using namespace bugcam;
using namespace bugcam::vision;

TEST(HoldingNetInput, ColoursAgainstTheTablesMedianInViewAndZeroBeyond) {
  HoldingStrip strip;
  // A table of one colour with a pale piece on it, 30 x 50 (rounded up to 32 x 52), the
  // last 10 columns out of view.
  strip.bgr = cv::Mat(30, 50, CV_8UC3, cv::Scalar(40, 90, 150));
  cv::circle(strip.bgr, {20, 15}, 6, cv::Scalar(200, 210, 220), cv::FILLED);
  strip.in_view = cv::Mat(strip.bgr.size(), CV_8U, cv::Scalar(0));
  strip.in_view(cv::Rect(0, 0, 40, 30)).setTo(255);
  const cv::Mat input = holding_net_input(strip);
  ASSERT_EQ(input.dims, 4);
  EXPECT_EQ(input.size[0], 1);
  EXPECT_EQ(input.size[1], 4);
  EXPECT_EQ(input.size[2], 32);
  EXPECT_EQ(input.size[3], 52);
  const auto at = [&](int c, int y, int x) {
    return input.at<float>(std::array{0, c, y, x}.data());
  };
  // The table reads zero; the piece, its difference over the pooled spread about the table.
  double squares = 0;
  int in_view = 0;
  for (int y = 0; y < 30; ++y) {
    for (int x = 0; x < 40; ++x) {
      for (int c = 0; c < 3; ++c) squares += at(c, y, x) * at(c, y, x);
      ++in_view;
    }
  }
  EXPECT_NEAR(std::sqrt(squares / (3.0 * in_view)), 1.0, 1e-3);
  for (int c = 0; c < 3; ++c) {
    EXPECT_EQ(at(c, 2, 2), 0.0f) << "table, channel " << c;
    EXPECT_GT(at(c, 15, 20), 0.0f) << "piece, channel " << c;
    EXPECT_EQ(at(c, 15, 45), 0.0f) << "out of view, channel " << c;
    EXPECT_EQ(at(c, 31, 10), 0.0f) << "padding, channel " << c;
  }
  EXPECT_NEAR(at(0, 15, 20) / at(2, 15, 20), (200.0 - 40) / (220.0 - 150), 1e-4);
  EXPECT_EQ(at(3, 15, 20), 1.0f);
  EXPECT_EQ(at(3, 15, 45), 0.0f);
  EXPECT_EQ(at(3, 31, 10), 0.0f);
}

TEST(HoldingModel, MissingFileIsAnErrorNamingIt) {
  try {
    HoldingModel model("/nonexistent/holdings.onnx");
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/holdings.onnx"), std::string::npos);
  }
}

TEST(HoldingModel, AFileThatIsNotANetworkIsAnErrorNamingIt) {
  const test_support::TempDir temp("holding-model");
  const std::filesystem::path file = temp.path() / "holdings.onnx";
  std::ofstream(file) << "not a network\n";
  try {
    HoldingModel model(file);
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(file.string()), std::string::npos) << e.what();
  }
}

TEST(HoldingModel, AnotherNetworkIsAnErrorNamingIt) {
  // The square network loads with OpenCV, but its output is not one of cells a stride apart.
  const std::filesystem::path squares = SquareModel::bundled_file();
  ASSERT_FALSE(squares.empty());
  try {
    HoldingModel model(squares);
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(squares.string()), std::string::npos) << e.what();
  }
}

// Holding areas of rendered stills of looks the network never learnt from (its training
// stills are seeds 1-2999): how many are counted exactly by the network alone and by the
// blobs read_holding counts without an empty look (a single frame, as `bugcam see` reads).
TEST(HoldingModel, CountsTheHeldPiecesOfUnseenStillsBetterThanTheBlobs) {
  const std::shared_ptr<const HoldingModel> model = HoldingModel::load_bundled();
  ASSERT_NE(model, nullptr);
  int areas = 0, network_exact = 0, blobs_exact = 0;
  for (const std::uint64_t seed : {3101, 3202, 3303, 3404, 3505, 3606}) {
    const samples::TrainingStill still = samples::render_training_still(seed, 1, 1280, 720);
    const calibration::Calibration c = bugcam::testing::still_calibration(still, {0.02, -0.02});
    for (std::size_t player = 0; player < 4; ++player) {
      const calibration::Board& board = c.boards[player / 2];
      const std::optional<HoldingStrip> strip =
          holding_strip(still.image, c.holdings[player], board.square_size_px());
      ASSERT_TRUE(strip.has_value());
      const auto truth = static_cast<int>(still.holdings[player].size());
      ++areas;
      network_exact += static_cast<int>(model->read(*strip).size()) == truth ? 1 : 0;
      const HoldingObservation blobs =
          read_holding(still.image, c.holdings[player], board, c.image_size, 128.0f, nullptr);
      blobs_exact += blobs.white_pieces + blobs.black_pieces == truth ? 1 : 0;
    }
  }
  std::cout << "holding areas counted exactly: network " << network_exact << ", blobs "
            << blobs_exact << " of " << areas << "\n";
  // Measured with the network of stop 47: 16 against 11 of 24.
  EXPECT_GE(network_exact, 15);
  EXPECT_GE(network_exact, blobs_exact + 3);
}

// An area of an unseen still (seed, player) and the start still of the same look, read with the
// holding network as a recording reads them: against the empty look learnt from the start still.
struct StillArea {
  samples::TrainingStill start;
  samples::TrainingStill still;
  calibration::Calibration calibration;
  std::size_t player = 0;

  StillArea(std::uint64_t seed, std::size_t area)
      : start(samples::render_start_still(seed, 1, 1280, 720)),
        still(samples::render_training_still(seed, 1, 1280, 720)),
        calibration(bugcam::testing::still_calibration(still, {0.02, -0.02})),
        player(area) {}
  HoldingObservation read(const cv::Mat& image, HoldingAreaMemory& memory,
                          const HoldingModel& model) const {
    return read_holding(image, calibration.holdings[player], calibration.boards[player / 2],
                        calibration.image_size, 128.0f, nullptr, &memory, &model);
  }
  // A memory that has read the start still: the empty look learnt.
  HoldingAreaMemory learnt(const HoldingModel& model) const {
    HoldingAreaMemory memory;
    read(start.image, memory, model);
    return memory;
  }
  // The pieces counted on the still.
  int count(HoldingAreaMemory& memory, const HoldingModel& model) const {
    const HoldingObservation seen = read(still.image, memory, model);
    return seen.white_pieces + seen.black_pieces;
  }
  int held() const { return static_cast<int>(still.holdings[player].size()); }
};

// An area of an unseen still (seed, player) read with the holding network against its empty
// look, learnt from the start still of the same look as a recording learns it: counted
// exactly, and not taken for an arm.
void expect_counted_exactly_against_the_empty_look(std::uint64_t seed, std::size_t player) {
  const std::shared_ptr<const HoldingModel> model = HoldingModel::load_bundled();
  ASSERT_NE(model, nullptr);
  const StillArea area(seed, player);
  HoldingAreaMemory memory = area.learnt(*model);
  const HoldingObservation seen = area.read(area.still.image, memory, *model);
  EXPECT_FALSE(seen.occluded) << "seed " << seed << ", area " << player;
  EXPECT_EQ(seen.white_pieces + seen.black_pieces, area.held())
      << "seed " << seed << ", area " << player;
}

// Pale pieces on a pale table leave hardly a blob against the empty look: only their lit tops
// and their own shadows differ from it. Areas where the blob gate had dropped most of the
// network's pieces (read before as 2, 0, 1 and 4 of 8, 3, 4 and 7).
TEST(HoldingModel, SurePiecesOnNoBlobAreCountedWhereTheTableDiffersFromItsEmptyLook) {
  for (const auto& [seed, player] : std::array<std::pair<std::uint64_t, std::size_t>, 4>{
           {{3011, 0}, {3021, 2}, {3064, 0}, {3089, 2}}}) {
    expect_counted_exactly_against_the_empty_look(seed, player);
  }
}

// The network is sure of pieces on no blob where there are none too: on seed 3003's area 3,
// empty, two such, where the table reads as its empty look (read as 2 of 0 without the check
// that the table differs from its look there).
TEST(HoldingModel, SurePiecesOnNoBlobAreNotCountedWhereTheTableIsAsItsEmptyLook) {
  expect_counted_exactly_against_the_empty_look(3003, 3);
}

// The network read the strip again as a hand left, and is less sure (0.6) of pieces on no
// blob it had been sure of: those counted lately stay counted, and the same pieces are not
// counted where they were not (held-out 11532: a pale bishop at 0.95, 0.84, then 0.77 for 5 s,
// taken for a hidden piece). The areas of SurePiecesOnNoBlobAre...DiffersFromItsEmptyLook.
TEST(HoldingModel, APieceCountedOnNoBlobStaysCountedWhileTheNetworkIsLessSureOfIt) {
  const std::shared_ptr<const HoldingModel> model = HoldingModel::load_bundled();
  ASSERT_NE(model, nullptr);
  int held = 0, kept = 0, first_seen_unsure = 0;
  for (const auto& [seed, player] : std::array<std::pair<std::uint64_t, std::size_t>, 4>{
           {{3011, 0}, {3021, 2}, {3064, 0}, {3089, 2}}}) {
    const StillArea area(seed, player);
    const auto count = [&](HoldingAreaMemory& memory) { return area.count(memory, *model); };
    HoldingAreaMemory memory = area.learnt(*model);
    held += count(memory);
    // The strip unchanged, the network's reading is kept: made less sure.
    for (HoldingNetPiece& piece : memory.network.pieces) {
      piece.confidence = std::min(piece.confidence, 0.6f);
    }
    HoldingAreaMemory never_counted = memory;
    never_counted.counted_alone.clear();
    kept += count(memory);
    first_seen_unsure += count(never_counted);
  }
  std::cout << "pieces counted: " << held << ", kept while less sure " << kept
            << ", first seen less sure " << first_seen_unsure << "\n";
  EXPECT_EQ(kept, held);
  EXPECT_LT(first_seen_unsure, held);
}

// The areas of SurePiecesOnNoBlobAre...DiffersFromItsEmptyLook, read against their empty look
// (learnt from the start still) after `edit` changed what was learnt: the pieces counted on a
// first read of the still, and on a second read of it unchanged (the strip stood still since
// the network read it), and how many lie there.
struct CountedTwice {
  int first = 0;
  int again = 0;
  int held = 0;
};
CountedTwice counted_on_areas_with_pieces_on_no_blob(
    const HoldingModel& model, const std::function<void(EmptyHoldingLook&)>& edit) {
  CountedTwice counted;
  for (const auto& [seed, player] : std::array<std::pair<std::uint64_t, std::size_t>, 4>{
           {{3011, 0}, {3021, 2}, {3064, 0}, {3089, 2}}}) {
    const StillArea area(seed, player);
    HoldingAreaMemory memory = area.learnt(model);
    edit(memory.empty_look);
    counted.first += area.count(memory, model);
    counted.again += area.count(memory, model);
    counted.held += area.held();
  }
  return counted;
}

// Where the look is known under a third of the pieces' bases (the first frame showed the board's
// shadows there, held-out 11563's pale pawn over the h1 rook's): most of that part differs, and
// the network's sure pieces are counted once the strip stood still since the network read it
// (the first read of a strip may be of a hand's shadow passing).
TEST(HoldingModel, SurePiecesOnNoBlobWhereLittleOfTheLookIsKnownAreCountedOnAStillStrip) {
  const std::shared_ptr<const HoldingModel> model = HoldingModel::load_bundled();
  ASSERT_NE(model, nullptr);
  const CountedTwice counted =
      counted_on_areas_with_pieces_on_no_blob(*model, [](EmptyHoldingLook& look) {
        for (int y = 0; y < look.known.rows; ++y) {
          if (y % 3 != 0) look.known.row(y).setTo(0);
        }
      });
  std::cout << "pieces counted with a third of the look known: first read " << counted.first
            << ", again " << counted.again << " of " << counted.held << "\n";
  // Measured: 3 on the first read, 20 of 22 again (22 with the whole look known).
  EXPECT_GE(counted.again, counted.held - 2);
  EXPECT_LT(counted.first, counted.again);
}

// A piece the network is less sure of on no blob, never counted before, is counted on a strip
// that stood still since the network read it where the look changed under most of its base and
// some of it as more than a shadow (held-out 11560: White A's
// knight beside a bishop, read at 0.70, uncounted for 5 s). Of 480 areas of unseen stills (seeds
// 3001-3120) two have such a piece: 3101's area 0 at 0.66 (96 % of its base changed, 15 %
// solid) and 3114's area 2 at 0.61 (90 %, 18 %). Both areas still miss others: read as 5 of 7
// and 6 of 9 (4 and 5 without).
TEST(HoldingModel, LessSurePiecesOnNoBlobAreCountedWhereMostOfTheirBaseChanged) {
  const std::shared_ptr<const HoldingModel> model = HoldingModel::load_bundled();
  ASSERT_NE(model, nullptr);
  int first = 0, again = 0;
  for (const auto& [seed, player] :
       std::array<std::pair<std::uint64_t, std::size_t>, 2>{{{3101, 0}, {3114, 2}}}) {
    const StillArea area(seed, player);
    HoldingAreaMemory memory = area.learnt(*model);
    first += area.count(memory, *model);
    again += area.count(memory, *model);
  }
  // Not on the first read of the still: the strip had just changed (a hand's shadow passing).
  EXPECT_EQ(first, 9);
  EXPECT_EQ(again, 11);
}

// A piece whose lit top and shaded base fell into two blobs: the network's piece went to one
// and the other was counted again by its own parts (read before as 3 of 2).
TEST(HoldingModel, APieceReadAsTwoBlobsIsCountedOnce) {
  expect_counted_exactly_against_the_empty_look(3086, 2);
}

// The network reads a strip again only when it changed more than the video's noise, and the
// pieces' types are kept with its reading: a still with noise added is not read again, and
// gives the same counts by type; the empty start still, read after it, is read again.
TEST(HoldingModel, AStripIsReadAgainOnlyWhenItChanged) {
  const std::shared_ptr<const HoldingModel> model = HoldingModel::load_bundled();
  const std::shared_ptr<const PieceTypeModel> types = PieceTypeModel::load_bundled();
  ASSERT_NE(model, nullptr);
  ASSERT_NE(types, nullptr);
  const std::uint64_t seed = 3011;
  const std::size_t player = 0;
  const samples::TrainingStill start = samples::render_start_still(seed, 1, 1280, 720);
  const samples::TrainingStill still = samples::render_training_still(seed, 1, 1280, 720);
  ASSERT_FALSE(still.holdings[player].empty());
  const calibration::Calibration c = bugcam::testing::still_calibration(still, {0.02, -0.02});
  const calibration::Board& board = c.boards[player / 2];
  const auto read = [&](const cv::Mat& image, HoldingAreaMemory& memory) {
    return read_holding(image, c.holdings[player], board, c.image_size, 128.0f, types.get(),
                        &memory, model.get());
  };
  HoldingAreaMemory memory;
  read(start.image, memory);
  const HoldingObservation seen = read(still.image, memory);
  const int held = seen.white_pieces + seen.black_pieces;
  EXPECT_EQ(held, static_cast<int>(still.holdings[player].size()));
  const cv::Mat read_strip = memory.network.strip.clone();
  ASSERT_FALSE(read_strip.empty());
  EXPECT_EQ(memory.network.typed_pieces.size(), static_cast<std::size_t>(held));

  cv::Mat noise(still.image.size(), CV_16SC3);
  cv::RNG(7).fill(noise, cv::RNG::NORMAL, 0, 3);
  cv::Mat noisy;
  still.image.convertTo(noisy, CV_16SC3);
  noisy += noise;
  noisy.convertTo(noisy, CV_8UC3);
  const HoldingObservation noisy_seen = read(noisy, memory);
  EXPECT_EQ(noisy_seen.white_pieces, seen.white_pieces);
  EXPECT_EQ(noisy_seen.black_pieces, seen.black_pieces);
  EXPECT_EQ(noisy_seen.counts, seen.counts);
  // Each piece kept its type: none was typed again.
  EXPECT_EQ(memory.network.typed_pieces.size(), static_cast<std::size_t>(held));
  ASSERT_EQ(noisy_seen.pieces.size(), seen.pieces.size());
  for (std::size_t k = 0; k < seen.pieces.size(); ++k) {
    EXPECT_EQ(noisy_seen.pieces[k].probabilities, seen.pieces[k].probabilities) << "piece " << k;
  }
  EXPECT_EQ(cv::norm(memory.network.strip, read_strip, cv::NORM_INF), 0.0)
      << "the noisy still was read again";

  const HoldingObservation empty = read(start.image, memory);
  EXPECT_EQ(empty.white_pieces + empty.black_pieces, 0);
  EXPECT_GT(cv::norm(memory.network.strip, read_strip, cv::NORM_INF), 0.0)
      << "the start still was not read again";
  EXPECT_TRUE(memory.network.typed_pieces.empty());
}

// A band across `area`'s edge farthest from `board`'s middle, `wide` squares wide, from a
// square beyond that edge's middle to `in` squares inside it: where an arm comes in.
std::vector<cv::Point> band_from_far_edge(const calibration::HoldingArea& area,
                                          const calibration::Board& board, double wide, double in) {
  const cv::Point2d board_middle = board.to_image({4, 4});
  cv::Point2d area_middle(0, 0);
  for (const cv::Point2d& p : area.region) area_middle += p * 0.25;
  std::size_t far_edge = 0;
  double farthest = -1;
  for (std::size_t e = 0; e < 4; ++e) {
    const cv::Point2d m = (area.region[e] + area.region[(e + 1) % 4]) * 0.5;
    const double d = cv::norm(m - board_middle);
    if (d > farthest) {
      farthest = d;
      far_edge = e;
    }
  }
  const cv::Point2d edge_middle = (area.region[far_edge] + area.region[(far_edge + 1) % 4]) * 0.5;
  const cv::Point2d along_edge = area.region[(far_edge + 1) % 4] - area.region[far_edge];
  const cv::Point2d along = along_edge * (1.0 / cv::norm(along_edge));
  const cv::Point2d inwards =
      (area_middle - edge_middle) * (1.0 / cv::norm(area_middle - edge_middle));
  const double square = board.square_size_px();
  const cv::Point2d outer = edge_middle - inwards * square;
  const cv::Point2d inner = edge_middle + inwards * (in * square);
  const cv::Point2d half_width = along * (0.5 * wide * square);
  return {outer - half_width, outer + half_width, inner + half_width, inner - half_width};
}

// An area an arm covers is not read by the network: its counts say nothing then, and hands
// over the areas were what made the network read most often. A dark sleeve painted in over the
// area's edge farthest from the board flags it covered, and the network's reading of the
// still before stays as it was.
TEST(HoldingModel, AnAreaAnArmCoversIsNotReadByTheNetwork) {
  const std::shared_ptr<const HoldingModel> model = HoldingModel::load_bundled();
  ASSERT_NE(model, nullptr);
  const std::uint64_t seed = 3011;
  const std::size_t player = 0;
  const samples::TrainingStill start = samples::render_start_still(seed, 1, 1280, 720);
  const samples::TrainingStill still = samples::render_training_still(seed, 1, 1280, 720);
  const calibration::Calibration c = bugcam::testing::still_calibration(still, {0.02, -0.02});
  const calibration::HoldingArea& area = c.holdings[player];
  const calibration::Board& board = c.boards[player / 2];
  ASSERT_EQ(area.region.size(), 4u);
  HoldingAreaMemory memory;
  const auto read = [&](const cv::Mat& image) {
    return read_holding(image, area, board, c.image_size, 128.0f, nullptr, &memory, model.get());
  };
  read(start.image);
  EXPECT_FALSE(read(still.image).occluded);
  const cv::Mat read_strip = memory.network.strip.clone();
  ASSERT_FALSE(read_strip.empty());

  // The sleeve: 1.2 squares wide, from a square beyond the far edge's middle to 1.5 squares in.
  const std::vector<cv::Point> sleeve = band_from_far_edge(area, board, 1.2, 1.5);
  cv::Mat covered = still.image.clone();
  cv::fillConvexPoly(covered, sleeve, cv::Scalar(45, 40, 38), cv::LINE_AA);

  EXPECT_TRUE(read(covered).occluded);
  EXPECT_EQ(cv::norm(memory.network.strip, read_strip, cv::NORM_INF), 0.0)
      << "the network read the covered area";
}

// A hand over an area whose skin reads as the table, as a pale hand on a tan table does,
// shows by its shadow: shade coming in over the area's far edge, far larger than a held
// piece's, flags the area occluded (held-out 11572: White A's hand passing a pawn to Black B's
// area, and Black B's taking it, read as 2 to 6 pieces for 3.5 s, never flagged; the pawn's
// drop was reported as of a hidden piece): here the table darkened to 70 % over 2.5 squares
// along the edge and 1.5 in. A shadow across the edge as wide as an arm but the size of a held
// piece's (1.2 by 0.4) does not, but for one area of six.
TEST(HoldingModel, AHandsShadowComingInOverTheFarEdgeFlagsTheAreaOccluded) {
  const std::shared_ptr<const HoldingModel> model = HoldingModel::load_bundled();
  ASSERT_NE(model, nullptr);
  for (const std::uint64_t seed : {3011u, 3021u, 3064u}) {
    for (const std::size_t player : {0u, 2u}) {
      const StillArea area(seed, player);
      const calibration::HoldingArea& region = area.calibration.holdings[player];
      const calibration::Board& board = area.calibration.boards[player / 2];
      ASSERT_EQ(region.region.size(), 4u);
      const auto shaded = [&](double wide, double in) {
        cv::Mat mask = cv::Mat::zeros(area.still.image.size(), CV_8U);
        cv::fillConvexPoly(mask, band_from_far_edge(region, board, wide, in), cv::Scalar(255),
                           cv::LINE_AA);
        cv::Mat dark;
        area.still.image.convertTo(dark, -1, 0.7);
        cv::Mat image = area.still.image.clone();
        dark.copyTo(image, mask);
        return image;
      };
      // Each read with a memory that has read the start still alone.
      const auto occluded = [&](const cv::Mat& image) {
        HoldingAreaMemory memory = area.learnt(*model);
        return area.read(image, memory, *model).occluded;
      };
      EXPECT_FALSE(occluded(area.still.image)) << "seed " << seed << ", area " << player;
      EXPECT_TRUE(occluded(shaded(2.5, 1.5))) << "seed " << seed << ", area " << player;
      // Where the board's pieces' shadows by the board-side edge join it, it is taken for a
      // hand (seed 3021's area 2: 3.9 pieces' worth of shade).
      const bool joined_by_the_boards_shadows = seed == 3021 && player == 2;
      EXPECT_EQ(occluded(shaded(1.2, 0.4)), joined_by_the_boards_shadows)
          << "seed " << seed << ", area " << player << ": a piece's shadow";
    }
  }
}

}  // namespace
