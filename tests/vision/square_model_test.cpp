// The square network (vision/models/squares.onnx): its input as the training script builds
// it, its loading, and how well it reads the squares of rendered stills of looks it never
// learnt from (random positions, tall pieces, tilted cameras) beside the hand-written reader.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "bugcam/samples.hpp"
#include "bugcam/vision.hpp"
#include "still_calibration.hpp"
#include "temp_dir.hpp"

namespace {

using namespace bugcam;
using namespace bugcam::vision;

char truth_symbol(char letter) {
  if (letter == '.') return '.';
  return letter >= 'a' ? 'b' : 'w';
}

TEST(SquareNetInput, ColoursStandardisedOnAZeroMarginAndLeanAwayFromTheCamera) {
  cv::Mat board(8 * kSquareNetPx, 8 * kSquareNetPx, CV_8UC3);
  cv::randu(board, cv::Scalar(20, 60, 100), cv::Scalar(120, 200, 160));
  const int n = kSquareNetSide;
  std::vector<float> input(static_cast<size_t>(5 * n * n));
  Viewpoint view;
  view.nadir = {4, -6};  // beyond rank 1, off the board
  view.camera_height = 11;
  square_net_input(board, view, input.data());
  const auto at = [&](int c, int y, int x) {
    return input[static_cast<size_t>((c * n + y) * n + x)];
  };
  double spread = 0;
  for (int c = 0; c < 3; ++c) {
    double sum = 0, squares = 0;
    for (int y = kSquareNetMargin; y < n - kSquareNetMargin; ++y) {
      for (int x = kSquareNetMargin; x < n - kSquareNetMargin; ++x) {
        sum += at(c, y, x);
        squares += at(c, y, x) * at(c, y, x);
      }
    }
    const double count = 64.0 * kSquareNetPx * kSquareNetPx;
    EXPECT_NEAR(sum / count, 0.0, 1e-4) << "channel " << c;
    spread += squares / count;
    EXPECT_EQ(at(c, 0, 0), 0.0f);
    EXPECT_EQ(at(c, n - 1, n / 2), 0.0f);
  }
  EXPECT_NEAR(std::sqrt(spread / 3), 1.0, 1e-3);
  // The camera stands beyond rank 1 (the bottom of the view): pieces lean up the view, more
  // the farther they stand, and to the right on the right half.
  EXPECT_LT(at(4, n / 2, n / 2), 0.0f);
  EXPECT_LT(at(4, 0, n / 2), at(4, n - 1, n / 2));
  EXPECT_GT(at(3, n / 2, n - 1), 0.0f);
  EXPECT_LT(at(3, n / 2, 0), 0.0f);
  // A piece one square tall at board point p leans (p - nadir) / (height - 1).
  const double bx = (n - 1 - kSquareNetMargin + 0.5) / kSquareNetPx;
  EXPECT_NEAR(at(3, n / 2, n - 1), kSquareNetLeanScale * (bx - 4) / 10, 1e-5);
  // Straight overhead or unknown: no lean anywhere.
  square_net_input(board, Viewpoint{}, input.data());
  for (int y = 0; y < n; ++y) {
    for (int x = 0; x < n; ++x) {
      ASSERT_EQ(at(3, y, x), 0.0f);
      ASSERT_EQ(at(4, y, x), 0.0f);
    }
  }
}

TEST(SquareModel, MissingFileIsAnErrorNamingIt) {
  try {
    SquareModel model("/nonexistent/squares.onnx");
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/squares.onnx"), std::string::npos);
  }
}

TEST(SquareModel, AFileThatIsNotANetworkIsAnErrorNamingIt) {
  const test_support::TempDir temp("square-model");
  const std::filesystem::path file = temp.path() / "squares.onnx";
  std::ofstream(file) << "not a network\n";
  try {
    SquareModel model(file);
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(file.string()), std::string::npos) << e.what();
  }
}

TEST(SquareModel, BundledNetworkLoadsAndReadsBoardsAlikeAloneOrTogether) {
  const std::shared_ptr<const SquareModel> model = SquareModel::load_bundled();
  ASSERT_NE(model, nullptr) << "vision/models/squares.onnx";
  const samples::TrainingStill still = samples::render_training_still(1003, 1, 1280, 720);
  const calibration::Calibration calibration = bugcam::testing::still_calibration(still);
  const std::vector<Viewpoint> views = estimate_viewpoints(calibration);
  std::vector<cv::Mat> warps;
  for (const calibration::Board& board : calibration.boards) {
    warps.push_back(calibration::warp_board(still.image, board.board_to_image, 32));
  }
  const std::vector<SquareProbabilities> both = model->read(warps, views);
  ASSERT_EQ(both.size(), 2u);
  for (size_t b = 0; b < 2; ++b) {
    const std::vector<SquareProbabilities> alone = model->read({warps[b]}, {views[b]});
    for (size_t sq = 0; sq < 64; ++sq) {
      float total = 0;
      for (size_t c = 0; c < 3; ++c) {
        EXPECT_NEAR(alone[0][sq][c], both[b][sq][c], 1e-6f);
        total += both[b][sq][c];
      }
      EXPECT_NEAR(total, 1.0f, 1e-5f);
    }
  }
}

struct Tally {
  int right = 0;
  int total = 0;
};

// Squares read right ('.', 'w', 'b' as the truth; '?' is wrong) on `still`, the looks
// learnt from the same scene's start position as recording does: by the network ([0]) and by
// the hand-written reader ([1]).
std::array<Tally, 2> read_still(std::uint64_t seed, const samples::TrainingStill& still) {
  const samples::TrainingStill start = samples::render_start_still(seed, 0, 1280, 720);
  calibration::Calibration calibration = bugcam::testing::still_calibration(start);
  learn_looks(start.image, calibration);
  std::array<Tally, 2> tally;
  for (size_t reader_index = 0; reader_index < 2; ++reader_index) {
    VisionOptions options;
    options.bundled_piece_types = false;
    options.read_holdings = false;
    options.squares = reader_index == 0 ? SquareReader::kNetwork : SquareReader::kHand;
    const FrameReader reader(calibration, options);
    EXPECT_EQ(reader.reads_by_network(0), reader_index == 0);
    const FrameObservation seen = reader.read(still.image);
    for (size_t b = 0; b < 2; ++b) {
      for (size_t sq = 0; sq < 64; ++sq) {
        ++tally[reader_index].total;
        tally[reader_index].right +=
            seen.boards[b].squares[sq].symbol() == truth_symbol(still.squares[b][sq]);
      }
    }
  }
  return tally;
}

// A tilted camera over tall pieces (the look of seed 1003), a crowded random position. The
// hand-written reader took pieces leaning over the squares behind them for pieces there (117
// of 128 right) while the network read them from the squares around (127); since the
// hand-written reader takes covered corners' colour from the board and tells pieces by hue,
// both read 122 (the network's occlusion flags are the hand-written reader's).
TEST(SquareModel, ReadsTheSquaresBehindTallLeaningPieces) {
  const std::array<Tally, 2> tally =
      read_still(1003, samples::render_training_still(1003, 1, 1280, 720));
  EXPECT_GE(tally[0].right, 121) << "network, of " << tally[0].total;
  EXPECT_GE(tally[1].right, 121) << "hand-written reader, of " << tally[1].total;
}

// The start position of held-out clip 9806's look: white pieces on white squares, which the
// hand-written reader takes for empty ones on board B (on the clip's first frame it misread 8
// of the 64 squares, the network 2). The network is chosen for board B, and by default reads
// it; on a look the hand-written reader reads well (seed 1003's), it keeps both boards.
TEST(SquareModel, ChosenPerBoardWhereItReadsTheStartPositionClearlyBetter) {
  const std::shared_ptr<const SquareModel> model = SquareModel::load_bundled();
  ASSERT_NE(model, nullptr) << "vision/models/squares.onnx";
  const samples::TrainingStill start = samples::render_start_still(9806, 0, 1280, 720);
  calibration::Calibration calibration = bugcam::testing::still_calibration(start);
  learn_looks(start.image, calibration);
  EXPECT_EQ(choose_square_readers(start.image, calibration, *model), 1);
  const calibration::Board& a = calibration.boards[0];
  const calibration::Board& b = calibration.boards[1];
  EXPECT_FALSE(a.squares_by_network);
  ASSERT_TRUE(b.squares_by_network);
  EXPECT_GE(b.start_misreads_hand, b.start_misreads_network + kNetworkClearlyFewer);
  EXPECT_GE(a.start_misreads_hand, 0);

  VisionOptions options;
  options.bundled_piece_types = false;
  options.read_holdings = false;
  const FrameReader by_default(calibration, options);
  EXPECT_FALSE(by_default.reads_by_network(0));
  EXPECT_TRUE(by_default.reads_by_network(1));
  options.squares = SquareReader::kHand;
  const FrameReader by_hand(calibration, options);
  EXPECT_FALSE(by_hand.reads_by_network(1));
  // Board B's white pieces read as such by default, not by hand.
  const auto white_read = [&](const FrameReader& reader) {
    const FrameObservation seen = reader.read(start.image);
    int white = 0;
    for (size_t sq = 0; sq < 16; ++sq) white += seen.boards[1].squares[sq].symbol() == 'w';
    return white;
  };
  EXPECT_GE(white_read(by_default), 14);
  EXPECT_LE(white_read(by_hand), 10);
  // Checked: board A read by hand is checked, board B stays the network's as by default.
  options.squares = SquareReader::kChecked;
  const FrameReader checked(calibration, options);
  EXPECT_TRUE(checked.checks_by_network(0));
  EXPECT_FALSE(checked.reads_by_network(0));
  EXPECT_TRUE(checked.reads_by_network(1));
  EXPECT_FALSE(checked.checks_by_network(1));
  const FrameObservation seen_default = by_default.read(start.image);
  const FrameObservation seen_checked = checked.read(start.image);
  for (size_t sq = 0; sq < 64; ++sq) {
    EXPECT_EQ(seen_checked.boards[1].squares[sq].symbol(),
              seen_default.boards[1].squares[sq].symbol())
        << sq;
  }

  const samples::TrainingStill plain = samples::render_start_still(1003, 0, 1280, 720);
  calibration::Calibration plain_calibration = bugcam::testing::still_calibration(plain);
  learn_looks(plain.image, plain_calibration);
  EXPECT_EQ(choose_square_readers(plain.image, plain_calibration, *model), 0);
  EXPECT_GE(plain_calibration.boards[0].start_misreads_network, 0);
}

// Its weakness, kept from getting worse: looks it did not learn from. On stills of four
// unseen looks (random positions) it reads 480 of 512 squares right (485 before the
// hand-written reader's occlusion flags changed with its hue rule) where the hand-written
// reader, with the looks learnt from the start position, reads 494 (486); on seed 1005's
// light wooden pieces it takes some white pieces on light squares for empty ones.
TEST(SquareModel, UnseenLooksAreReadNearlyAsWellAsByHand) {
  std::array<Tally, 2> total;
  for (const std::uint64_t seed : {1003, 1005, 3500, 4500}) {
    const std::array<Tally, 2> tally =
        read_still(seed, samples::render_training_still(seed, 1, 1280, 720));
    for (size_t i = 0; i < 2; ++i) {
      total[i].right += tally[i].right;
      total[i].total += tally[i].total;
    }
  }
  ASSERT_EQ(total[0].total, 512);
  EXPECT_GE(total[0].right, 478) << "network";
  EXPECT_GE(total[1].right, 492) << "hand-written reader";
  EXPECT_GE(total[0].right, total[1].right - 16) << "network against the hand-written reader";
}

TEST(SquareReader, NamedOnTheCommandLineBothWays) {
  const std::vector<std::string> names = square_reader_names();
  ASSERT_EQ(names, (std::vector<std::string>{"auto", "hand", "network", "checked", "fused"}));
  for (const std::string& name : names) {
    const std::optional<SquareReader> reader = square_reader_named(name);
    ASSERT_TRUE(reader.has_value()) << name;
    EXPECT_EQ(square_reader_name(*reader), name);
  }
  EXPECT_EQ(square_reader_named("checked"), SquareReader::kChecked);
  EXPECT_EQ(square_reader_named("fused"), SquareReader::kFused);
  EXPECT_FALSE(square_reader_named("both").has_value());
}

// The hand-written reader takes a light square in a piece's shadow, or under a pale piece's
// body leaning over it, for a white piece; checked by the network, the pieces it sees on
// squares the network is sure are empty are taken as empty. On stills of random positions
// (looks learnt from each scene's start position): fewer such phantoms. The cost: pieces the
// network misses. Here phantoms went 4 -> 1 and squares right 747 -> 742 of 768 (in the clips
// of stops 34-35, phantom square-frames 8066 -> 1319 and missed pieces 1151 -> 1251).
TEST(SquareReader, CheckedByTheNetworkTheHandWrittenReadersPhantomsGo) {
  int phantoms_by_hand = 0, phantoms_checked = 0, right_by_hand = 0, right_checked = 0;
  int total = 0;
  for (const std::uint64_t seed : {1003, 1005, 3500, 4500, 2500, 3700}) {
    const samples::TrainingStill start = samples::render_start_still(seed, 0, 1280, 720);
    calibration::Calibration calibration = bugcam::testing::still_calibration(start);
    learn_looks(start.image, calibration);
    const samples::TrainingStill still = samples::render_training_still(seed, 1, 1280, 720);
    std::array<FrameObservation, 2> seen;
    for (const SquareReader squares : {SquareReader::kHand, SquareReader::kChecked}) {
      VisionOptions options;
      options.bundled_piece_types = false;
      options.read_holdings = false;
      options.squares = squares;
      const FrameReader reader(calibration, options);
      EXPECT_EQ(reader.checks_by_network(0), squares == SquareReader::kChecked);
      seen[squares == SquareReader::kChecked ? 1 : 0] = reader.read(still.image);
    }
    for (size_t b = 0; b < 2; ++b) {
      for (size_t sq = 0; sq < 64; ++sq) {
        const char truth = truth_symbol(still.squares[b][sq]);
        const SquareObservation& hand_square = seen[0].boards[b].squares[sq];
        const char by_hand = hand_square.symbol();
        const char checked = seen[1].boards[b].squares[sq].symbol();
        ++total;
        right_by_hand += by_hand == truth;
        right_checked += checked == truth;
        phantoms_by_hand += truth == '.' && (by_hand == 'w' || by_hand == 'b');
        phantoms_checked += truth == '.' && (checked == 'w' || checked == 'b');
        // Only the hand-written reader's pieces change (flagged or not), and only to empty
        // (or unsure, where a hand's flag stays).
        const char probable = hand_square.probable_symbol();
        if (probable == 'w' || probable == 'b') {
          EXPECT_TRUE(checked == by_hand || checked == '.' || checked == '?')
              << seed << " " << by_hand << " -> " << checked;
        } else {
          EXPECT_EQ(checked, by_hand) << seed;
        }
      }
    }
  }
  std::cout << "phantoms " << phantoms_by_hand << " -> " << phantoms_checked << ", right "
            << right_by_hand << " -> " << right_checked << " of " << total << "\n";
  EXPECT_LT(phantoms_checked, phantoms_by_hand);
  EXPECT_GE(right_checked, right_by_hand - 6);
}

// The state a reading finds likeliest, sure or not.
char most_likely_symbol(const SquareObservation& o) {
  if (o.p_empty >= o.p_white && o.p_empty >= o.p_black) return '.';
  return o.p_white >= o.p_black ? 'w' : 'b';
}

// Fused, a board read by hand takes the network's reading wherever the network is very sure
// of another state: its empties (as checked) and its pieces, which the hand-written reader
// misses as pale pieces on light squares; only where the network read the start position no
// worse (learn_start_position). There every square reads as by hand, as the network surely
// does, or, where the network finds another state than the hand-written reader's likely but
// not surely, in doubt: the mean of the two readings. Elsewhere as auto. On these stills,
// squares right (and those in doubt, which single stills lose by): see the counts printed.
TEST(SquareReader, FusedTakesTheNetworksSureReadings) {
  int right_auto = 0, right_checked = 0, right_fused = 0, total = 0, boards_fused = 0;
  int undoubted_right_auto = 0, undoubted_right_fused = 0;
  int doubted = 0, doubted_hand_right = 0, doubted_network_right = 0;
  for (const std::uint64_t seed : {1003, 1005, 3500, 4500, 2500, 3700}) {
    const samples::TrainingStill start = samples::render_start_still(seed, 0, 1280, 720);
    calibration::Calibration calibration = bugcam::testing::still_calibration(start);
    learn_start_position(start.image, calibration, SquareModel::load_bundled().get());
    const samples::TrainingStill still = samples::render_training_still(seed, 1, 1280, 720);
    const std::array<SquareReader, 5> readers = {SquareReader::kHand, SquareReader::kNetwork,
                                                 SquareReader::kAsCalibrated,
                                                 SquareReader::kChecked, SquareReader::kFused};
    std::array<FrameObservation, 5> seen;
    std::array<bool, 2> fusing{};
    for (size_t r = 0; r < readers.size(); ++r) {
      VisionOptions options;
      options.bundled_piece_types = false;
      options.read_holdings = false;
      options.squares = readers[r];
      const FrameReader reader(calibration, options);
      for (size_t b = 0; b < 2; ++b) {
        const calibration::Board& board = calibration.boards[b];
        const bool fuses =
            readers[r] == SquareReader::kFused && !board.squares_by_network &&
            network_fuses_start(board.start_misreads_hand, board.start_misreads_network);
        EXPECT_EQ(reader.fuses_with_network(b), fuses) << seed << " board " << b;
        if (readers[r] == SquareReader::kFused) fusing[b] = fuses;
      }
      seen[r] = reader.read(still.image);
    }
    for (size_t b = 0; b < 2; ++b) {
      boards_fused += fusing[b] ? 1 : 0;
      for (size_t sq = 0; sq < 64; ++sq) {
        const char truth = truth_symbol(still.squares[b][sq]);
        const SquareObservation& by_hand = seen[0].boards[b].squares[sq];
        const SquareObservation& by_network = seen[1].boards[b].squares[sq];
        const SquareObservation& as_calibrated = seen[2].boards[b].squares[sq];
        const SquareObservation& fused = seen[4].boards[b].squares[sq];
        ++total;
        right_auto += as_calibrated.symbol() == truth;
        right_checked += seen[3].boards[b].squares[sq].symbol() == truth;
        right_fused += fused.symbol() == truth;
        if (!fusing[b]) {
          EXPECT_EQ(fused.symbol(), as_calibrated.symbol()) << seed << " " << sq;
          continue;
        }
        EXPECT_EQ(fused.occluded, by_hand.occluded) << seed;
        const float network_sure =
            std::max({by_network.p_empty, by_network.p_white, by_network.p_black});
        const char hand_state = by_hand.probable_symbol();
        if (network_sure >= kFusedSureAtLeast) {
          EXPECT_EQ(fused.probable_symbol(), by_network.probable_symbol()) << seed << " " << sq;
        } else if (network_sure >= kFusedDoubtAtLeast &&
                   most_likely_symbol(by_network) != hand_state) {
          // In doubt: the mean of the two readings.
          ++doubted;
          doubted_hand_right += hand_state == truth;
          doubted_network_right += most_likely_symbol(by_network) == truth;
          EXPECT_FLOAT_EQ(fused.p_empty, 0.5f * (by_hand.p_empty + by_network.p_empty))
              << seed << " " << sq;
          EXPECT_FLOAT_EQ(fused.p_white, 0.5f * (by_hand.p_white + by_network.p_white))
              << seed << " " << sq;
          EXPECT_FLOAT_EQ(fused.p_black, 0.5f * (by_hand.p_black + by_network.p_black))
              << seed << " " << sq;
          if (hand_state != '?') {  // a sure reading by hand: never surely the network's
            EXPECT_TRUE(fused.probable_symbol() == hand_state || fused.probable_symbol() == '?')
                << seed << " " << sq;
          }
          continue;
        } else {
          EXPECT_EQ(fused.probable_symbol(), hand_state) << seed << " " << sq;
        }
        // Not in doubt: squares right by the network's sure readings.
        undoubted_right_auto += as_calibrated.symbol() == truth;
        undoubted_right_fused += fused.symbol() == truth;
      }
    }
  }
  std::cout << "boards fused " << boards_fused << " of 12; squares right auto " << right_auto
            << ", checked " << right_checked << ", fused " << right_fused << " of " << total
            << "; in doubt " << doubted << " (by hand right " << doubted_hand_right
            << ", by network right " << doubted_network_right << ")\n";
  EXPECT_GE(boards_fused, 6);
  EXPECT_GT(undoubted_right_fused, undoubted_right_auto);
  EXPECT_GT(doubted, 0);
}

// On a board the network reads as calibrated, where it finds a square empty but not surely
// (kFusedDoubtAtLeast up to kFusedSureAtLeast) and the hand-written reader finds a piece, the
// square is in doubt: the mean of the two readings, the piece no likelier than empty (held-out
// 11420: B's bishop on d3, network empty, read so for 8 s). Elsewhere as the network reads.
// Both boards of these stills taken as the network's; the counts are printed.
TEST(SquareReader, ANetworkBoardsUnsureEmptyWhereTheHandSeesAPieceIsInDoubt) {
  int doubted = 0, doubted_piece = 0, total = 0;
  for (const std::uint64_t seed : {1003, 1005, 3500, 4500, 2500, 3700}) {
    const samples::TrainingStill start = samples::render_start_still(seed, 0, 1280, 720);
    calibration::Calibration calibration = bugcam::testing::still_calibration(start);
    learn_start_position(start.image, calibration, SquareModel::load_bundled().get());
    for (calibration::Board& board : calibration.boards) board.squares_by_network = true;
    const samples::TrainingStill still = samples::render_training_still(seed, 1, 1280, 720);
    std::array<FrameObservation, 3> seen;
    const std::array<SquareReader, 3> readers = {SquareReader::kHand, SquareReader::kNetwork,
                                                 SquareReader::kAsCalibrated};
    for (size_t r = 0; r < readers.size(); ++r) {
      VisionOptions options;
      options.bundled_piece_types = false;
      options.read_holdings = false;
      options.squares = readers[r];
      seen[r] = FrameReader(calibration, options).read(still.image);
    }
    for (size_t b = 0; b < 2; ++b) {
      for (size_t sq = 0; sq < 64; ++sq) {
        ++total;
        const SquareObservation& by_hand = seen[0].boards[b].squares[sq];
        const SquareObservation& by_network = seen[1].boards[b].squares[sq];
        const SquareObservation& read = seen[2].boards[b].squares[sq];
        const char hand_state = by_hand.probable_symbol();
        const bool in_doubt = (hand_state == 'w' || hand_state == 'b') &&
                              by_network.p_empty >= kFusedDoubtAtLeast &&
                              by_network.p_empty < kFusedSureAtLeast;
        if (!in_doubt) {
          EXPECT_FLOAT_EQ(read.p_empty, by_network.p_empty) << seed << " " << sq;
          EXPECT_FLOAT_EQ(read.p_white, by_network.p_white) << seed << " " << sq;
          continue;
        }
        ++doubted;
        const float piece = hand_state == 'w' ? read.p_white : read.p_black;
        EXPECT_LE(piece, read.p_empty + 1e-6f) << seed << " " << sq;
        EXPECT_NEAR(read.p_empty + read.p_white + read.p_black, 1.0f, 0.02f) << seed << " " << sq;
        EXPECT_EQ(read.probable_symbol(), '?') << seed << " " << sq;  // neither state
        EXPECT_LT(read.p_empty, by_network.p_empty) << seed << " " << sq;
        doubted_piece += truth_symbol(still.squares[b][sq]) == hand_state ? 1 : 0;
      }
    }
  }
  std::cout << "in doubt " << doubted << " of " << total << " squares, a piece in " << doubted_piece
            << "\n";
  EXPECT_GT(doubted, 0);
  EXPECT_GE(doubted_piece * 10, doubted * 8);  // mostly pieces the network missed
}

// Fused only where both readers were tried on the start position, the network misread no
// more of it than the hand-written reader (or one square), and at most kNetworkStartMisreadsAtMost;
// a board the network reads whole is not fused.
TEST(SquareReader, FusedOnlyWhereTheNetworkReadTheStartNoWorseOrButForASquare) {
  EXPECT_FALSE(network_fuses_start(-1, -1));  // not tried: an older calibration file
  EXPECT_FALSE(network_fuses_start(3, -1));
  EXPECT_FALSE(network_fuses_start(-1, 0));  // the hand-written reader's count unknown
  EXPECT_TRUE(network_fuses_start(0, 0));
  EXPECT_TRUE(network_fuses_start(3, 2));
  EXPECT_TRUE(network_fuses_start(0, 1));  // one square is tolerated
  EXPECT_FALSE(network_fuses_start(0, 2));
  EXPECT_FALSE(network_fuses_start(2, 3));
  EXPECT_TRUE(network_fuses_start(kNetworkStartMisreadsAtMost, kNetworkStartMisreadsAtMost));
  EXPECT_FALSE(network_fuses_start(20, kNetworkStartMisreadsAtMost + 1));  // not the start
  const samples::TrainingStill start = samples::render_start_still(3500, 0, 1280, 720);
  calibration::Calibration calibration = bugcam::testing::still_calibration(start);
  struct Case {
    int hand, network;
    bool by_network, fused;
  };
  for (const Case& c :
       {Case{-1, -1, false, false}, Case{2, 2, false, true}, Case{2, 3, false, false},
        Case{3, 2, false, true}, Case{0, 1, false, true}, Case{5, 0, true, false}}) {
    calibration.boards[0].start_misreads_hand = c.hand;
    calibration.boards[0].start_misreads_network = c.network;
    calibration.boards[0].squares_by_network = c.by_network;
    VisionOptions options;
    options.bundled_piece_types = false;
    options.read_holdings = false;
    const FrameReader reader(calibration, options);  // fused: the default
    EXPECT_EQ(reader.fuses_with_network(0), c.fused) << c.hand << " " << c.network;
    EXPECT_EQ(reader.reads_by_network(0), c.by_network);
  }
}

}  // namespace
