// The glue between vision and tracker, and the scoring of recordings against truth.
#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <opencv2/imgcodecs.hpp>

#include "bugcam/calibration.hpp"
#include "bugcam/evaluation.hpp"
#include "bugcam/observation_log.hpp"
#include "bugcam/pipeline.hpp"
#include "temp_dir.hpp"

namespace {

namespace fs = std::filesystem;
using namespace bugcam;

vision::FrameObservation two_boards() {
  vision::FrameObservation o;
  for (const char* name : {"B", "A"}) {
    vision::BoardObservation b;
    b.name = name;
    o.boards.push_back(b);
  }
  o.boards[1].squares[12] = {0.1f, 0.8f, 0.1f, false};  // e2 on A
  o.boards[0].squares[63] = {0.0f, 0.0f, 0.0f, true};   // h8 on B, covered
  o.boards[0].squares[0].altered = true;                // a1 on B
  o.clocks.push_back({"A", vision::Lever::kBlack, 0.9f, false, std::nullopt});
  o.clocks.push_back({"B", vision::Lever::kUnknown, 0.0f, false, std::nullopt});
  return o;
}

// Where two segments' lines cross.
pipeline::ImagePoint crossing(pipeline::ImagePoint a, pipeline::ImagePoint b,
                              pipeline::ImagePoint c, pipeline::ImagePoint d) {
  const double denominator = (a.x - b.x) * (c.y - d.y) - (a.y - b.y) * (c.x - d.x);
  const double u = ((a.x - c.x) * (c.y - d.y) - (a.y - c.y) * (c.x - d.x)) / denominator;
  return {a.x + u * (b.x - a.x), a.y + u * (b.y - a.y)};
}

// The largest distance, in pixels, between the renderer's square centres in a truth file and
// the centres of the lattice's squares, each found where its diagonals cross in the
// undistorted image (a homography keeps lines and crossings).
double worst_centre_error(const nlohmann::json& board, const pipeline::TruthLens& lens) {
  std::array<pipeline::ImagePoint, 4> corners;
  for (std::size_t i = 0; i < 4; ++i) {
    corners[i] = {board["corners"][i][0].get<double>(), board["corners"][i][1].get<double>()};
  }
  const std::array<pipeline::ImagePoint, 81> lattice = pipeline::true_lattice(corners, lens);
  const auto at = [&](int rank_line, int file_line) {
    return lens.undistort(lattice[static_cast<std::size_t>(rank_line * 9 + file_line)]);
  };
  double worst = 0.0;
  for (const auto& [name, centre] : board["square_centers"].items()) {
    const int file = name[0] - 'a';
    const int rank = name[1] - '1';
    const pipeline::ImagePoint found = lens.distort(
        crossing(at(rank, file), at(rank + 1, file + 1), at(rank, file + 1), at(rank + 1, file)));
    worst = std::max(
        worst, std::hypot(found.x - centre[0].get<double>(), found.y - centre[1].get<double>()));
  }
  return worst;
}

TEST(TrackerInputs, BoardsSquaresAndLeversKeepTheirMeaning) {
  const pipeline::TrackerInputs in = pipeline::to_tracker_inputs(two_boards(), 42, 1.4);
  ASSERT_EQ(in.boards.size(), 2u);
  EXPECT_EQ(in.boards[0].board, rules::BoardId::kB);
  EXPECT_EQ(in.boards[1].board, rules::BoardId::kA);
  EXPECT_EQ(in.boards[1].frame, 42);
  EXPECT_DOUBLE_EQ(in.boards[1].t, 1.4);
  EXPECT_FLOAT_EQ(in.boards[1].squares[12].white, 0.8f);
  EXPECT_TRUE(in.boards[0].squares[63].occluded);
  EXPECT_TRUE(in.boards[0].squares[0].altered);
  EXPECT_FALSE(in.boards[1].squares[0].altered);
  ASSERT_EQ(in.levers.size(), 2u);
  EXPECT_EQ(in.levers[0].down, rules::Color::kBlack);
  EXPECT_FALSE(in.levers[1].down.has_value());
}

// Arms from the other board's seats become the tracker's hands (partner_board_touched); the
// board's own players' arms go apart, as own_arms (they would date the reading of a move).
TEST(TrackerInputs, ArmsFromTheOtherBoardsSeatsBecomeHands) {
  vision::FrameObservation o = two_boards();
  o.boards[0].arms = {"A:white", "B:black"};  // over board B
  o.boards[1].arms = {"A:black"};             // over board A
  const pipeline::TrackerInputs in = pipeline::to_tracker_inputs(o, 3, 0.1);
  ASSERT_EQ(in.boards.size(), 2u);
  EXPECT_EQ(in.boards[0].hands,
            (std::vector<tracker::Seat>{{rules::BoardId::kA, rules::Color::kWhite}}));
  EXPECT_EQ(in.boards[0].own_arms,
            (std::vector<tracker::Seat>{{rules::BoardId::kB, rules::Color::kBlack}}));
  EXPECT_TRUE(in.boards[1].hands.empty());
  EXPECT_EQ(in.boards[1].own_arms,
            (std::vector<tracker::Seat>{{rules::BoardId::kA, rules::Color::kBlack}}));
}

TEST(TrackerInputs, HoldingsGoOnlyWhenVisionReadTheTypes) {
  vision::FrameObservation o = two_boards();
  vision::HoldingObservation empty;
  empty.player = "A:white";
  vision::HoldingObservation untyped;
  untyped.player = "B:black";
  untyped.counts['?'] = 2;
  o.holdings = {empty, untyped};
  // An untyped count would read as missing pieces; the empty area beside it alone would
  // be a biased sample.
  EXPECT_TRUE(pipeline::to_tracker_inputs(o, 1, 0.0).holdings.empty());

  o.holdings[1].counts = {{'N', 1}, {'P', 2}};
  const pipeline::TrackerInputs in = pipeline::to_tracker_inputs(o, 1, 0.0);
  ASSERT_EQ(in.holdings.size(), 2u);
  EXPECT_EQ(in.holdings[1].seat.board, rules::BoardId::kB);
  EXPECT_EQ(in.holdings[1].seat.color, rules::Color::kBlack);
  EXPECT_EQ(in.holdings[1].visible[static_cast<int>(rules::PieceType::kKnight)], 1);
  EXPECT_EQ(in.holdings[1].visible[static_cast<int>(rules::PieceType::kPawn)], 2);
  EXPECT_EQ(in.holdings[0].visible, (std::array<int, 5>{}));
  EXPECT_EQ(in.holdings[1].pieces, 3);
  EXPECT_EQ(in.holdings[0].pieces, 0);
}

TEST(TrackerInputs, AHeldPieceCountsForEveryPlausibleType) {
  vision::FrameObservation o = two_boards();
  vision::HoldingObservation area;
  area.player = "A:black";
  vision::HeldPiece sure, unsure;
  sure.letter = 'p';
  sure.probabilities = {0.97f, 0.01f, 0.01f, 0.005f, 0.005f, 0.0f};
  unsure.letter = 'n';
  unsure.probabilities = {0.05f, 0.5f, 0.4f, 0.03f, 0.02f, 0.0f};
  area.pieces = {sure, unsure};
  area.counts = {{'P', 1}, {'N', 1}};
  o.holdings = {area};
  const pipeline::TrackerInputs in = pipeline::to_tracker_inputs(o, 7, 0.2);
  ASSERT_EQ(in.holdings.size(), 1u);
  // The unsure piece may be the knight or the bishop the tracker expects: neither is missing.
  EXPECT_EQ(in.holdings[0].visible, (std::array<int, 5>{1, 1, 1, 0, 0}));
  // And both are pieces, whatever their types: the tracker counts them so.
  EXPECT_EQ(in.holdings[0].pieces, 2);
}

TEST(ObservationLog, HoldingsKeepTheirPiecesCount) {
  const bugcam::test_support::TempDir dir("pipeline-log");
  const fs::path file = dir.path() / "observations.bin";
  tracker::HoldingsObservation counted;
  counted.seat = {rules::BoardId::kB, rules::Color::kBlack};
  counted.t = 3.25;
  counted.frame = 97;
  counted.visible = {2, 1, 1, 0, 0};
  counted.pieces = 3;
  tracker::HoldingsObservation uncounted = counted;
  uncounted.pieces.reset();
  uncounted.occluded = true;
  {
    pipeline::ObservationLogWriter writer(file);
    writer.write(counted);
    writer.write(uncounted);
  }
  const std::vector<pipeline::LoggedInput> read = pipeline::read_observation_log(file);
  ASSERT_EQ(read.size(), 2u);
  const auto& a = std::get<tracker::HoldingsObservation>(read[0]);
  EXPECT_EQ(a.seat.board, rules::BoardId::kB);
  EXPECT_EQ(a.seat.color, rules::Color::kBlack);
  EXPECT_DOUBLE_EQ(a.t, 3.25);
  EXPECT_EQ(a.frame, 97);
  EXPECT_EQ(a.visible, counted.visible);
  EXPECT_EQ(a.pieces, 3);
  EXPECT_FALSE(a.occluded);
  const auto& b = std::get<tracker::HoldingsObservation>(read[1]);
  EXPECT_FALSE(b.pieces.has_value());
  EXPECT_TRUE(b.occluded);
}

// Each square's flags (occluded, altered) share one byte, and both lists of arms come back; a
// log written before the altered flag (its boards tagged 'B', the byte 0 or 1) reads as ever,
// nothing altered and no own arms.
TEST(ObservationLog, SquaresKeepTheirOccludedAndAlteredFlags) {
  const bugcam::test_support::TempDir dir("pipeline-log-squares");
  const fs::path file = dir.path() / "observations.bin";
  tracker::BoardObservation board;
  board.board = rules::BoardId::kA;
  board.t = 1.5;
  board.frame = 45;
  board.squares[3].occluded = true;
  board.squares[9].altered = true;
  board.squares[10].occluded = true;
  board.squares[10].altered = true;
  board.squares[20] = {0.1f, 0.7f, 0.2f, false, false};
  board.hands = {{rules::BoardId::kB, rules::Color::kWhite}};
  board.own_arms = {{rules::BoardId::kA, rules::Color::kBlack},
                    {rules::BoardId::kA, rules::Color::kWhite}};
  {
    pipeline::ObservationLogWriter writer(file);
    writer.write(board);
  }
  const std::vector<pipeline::LoggedInput> read = pipeline::read_observation_log(file);
  ASSERT_EQ(read.size(), 1u);
  const auto& got = std::get<tracker::BoardObservation>(read[0]);
  EXPECT_EQ(got.hands, board.hands);
  EXPECT_EQ(got.own_arms, board.own_arms);
  for (std::size_t s = 0; s < 64; ++s) {
    EXPECT_EQ(got.squares[s].occluded, board.squares[s].occluded) << s;
    EXPECT_EQ(got.squares[s].altered, board.squares[s].altered) << s;
    EXPECT_FLOAT_EQ(got.squares[s].white, board.squares[s].white) << s;
  }
  // The old record, square 3 occluded.
  const fs::path old_file = dir.path() / "old.bin";
  {
    std::ofstream old(old_file, std::ios::binary);
    const auto put = [&](const auto& value) {
      old.write(reinterpret_cast<const char*>(&value), sizeof value);
    };
    put('B');
    put(std::uint8_t{1});  // board B
    put(2.5);
    put(std::int32_t{75});
    for (int s = 0; s < 64; ++s) {
      put(0.9f);
      put(0.05f);
      put(0.05f);
      put(static_cast<std::uint8_t>(s == 3 ? 1 : 0));
    }
    put(std::uint8_t{0});  // no hands
  }
  const std::vector<pipeline::LoggedInput> old_read = pipeline::read_observation_log(old_file);
  ASSERT_EQ(old_read.size(), 1u);
  const auto& old_board = std::get<tracker::BoardObservation>(old_read[0]);
  EXPECT_EQ(old_board.board, rules::BoardId::kB);
  EXPECT_EQ(old_board.frame, 75);
  EXPECT_TRUE(old_board.own_arms.empty());
  for (std::size_t s = 0; s < 64; ++s) {
    EXPECT_EQ(old_board.squares[s].occluded, s == 3) << s;
    EXPECT_FALSE(old_board.squares[s].altered) << s;
  }
}

void write(const fs::path& file, const std::string& text) {
  std::ofstream(file) << text;
}

TEST(Evaluation, CountsAMissedMoveOnceAndMatchesIncidents) {
  const bugcam::test_support::TempDir dir_temp("pipeline-evaluation");
  const fs::path dir = dir_temp.path();
  write(dir / "truth.bpgn",
        "[Event \"t\"]\n\n1A. e4 {179.0} {[%ts 2.0]} 1a. e5 {178.0} {[%ts 4.0]} "
        "2A. Nf3 {177.0} {[%ts 6.0]} 1B. d4 {179.5} {[%ts 6.5]} 2a. Nc6 {176.0} {[%ts 8.0]} *\n");
  write(dir / "truth.json",
        R"({"incidents": [{"type": "premove", "board": "A", "side": "black", "t": 5.0,
            "t_end": 6.0, "ply": "2a"}]})");
  // 1a. is missing; the rest is right, one press 0.1 s late, one clock 0.05 s off.
  write(dir / "game.bpgn",
        "[Event \"r\"]\n\n1A. e4 {179.0} {[%ts 2.1]} 1B. d4 {179.45} {[%ts 6.5]} *\n");
  write(dir / "incidents.json",
        R"([{"type": "premove", "board": "A", "side": "black", "t": 7.5, "t_end": 8.0},
            {"type": "flag_fall", "board": "B", "side": "white", "t": 9.0, "t_end": 9.0}])");
  const pipeline::Accuracy a = pipeline::evaluate(dir, dir);
  EXPECT_EQ(a.truth_moves, 5);
  EXPECT_EQ(a.recorded_moves, 2);
  EXPECT_EQ(a.moves_right, 2);
  EXPECT_EQ(a.moves_compared, 5);
  EXPECT_FALSE(a.exact);
  EXPECT_NEAR(a.press_error_max, 0.1, 1e-9);
  EXPECT_NEAR(a.clock_error_max, 0.05, 1e-9);
  EXPECT_EQ(a.incidents_true, 1);
  EXPECT_EQ(a.incidents_found, 1);
  ASSERT_EQ(a.incidents_false.size(), 1u);
  EXPECT_EQ(a.incidents_false[0].type, "flag_fall");
  ASSERT_FALSE(a.first_errors.empty());
  EXPECT_EQ(a.first_errors[0], "A 1a: (none) for e5");

  // The same record as truth is exact.
  fs::copy_file(dir / "truth.bpgn", dir / "game.bpgn", fs::copy_options::overwrite_existing);
  EXPECT_TRUE(pipeline::evaluate(dir, dir).exact);
}

// A synthetic truth lists a premove where its game has it, after a move of the other board
// that was pressed later (fresh clip 10307: 8a. Be7, pressed at 68.01 s, before 11B. e5, a
// premove pressed at 65.76 s). A record is exact in the order of the presses (SPEC section 3).
TEST(Evaluation, AnExactRecordFollowsThePressesNotTheTruthsListing) {
  const bugcam::test_support::TempDir dir_temp("pipeline-evaluation-order");
  const fs::path dir = dir_temp.path();
  write(dir / "truth.bpgn",
        "[Event \"t\"]\n\n1A. e4 {179.0} {[%ts 2.0]} 1a. e5 {178.0} {[%ts 4.0]} "
        "1B. d4 {179.5} {[%ts 5.0]} 2A. Nf3 {177.0} {[%ts 4.5]} *\n");
  write(dir / "truth.json", R"({"incidents": []})");
  write(dir / "incidents.json", "[]");
  write(dir / "game.bpgn",
        "[Event \"r\"]\n\n1A. e4 {179.0} {[%ts 2.0]} 1a. e5 {178.0} {[%ts 4.0]} "
        "2A. Nf3 {177.0} {[%ts 4.5]} 1B. d4 {179.5} {[%ts 5.0]} *\n");
  EXPECT_TRUE(pipeline::evaluate(dir, dir).exact);
  // Listed as the truth lists them, the record says 1B. d4 was completed first.
  fs::copy_file(dir / "truth.bpgn", dir / "game.bpgn", fs::copy_options::overwrite_existing);
  const pipeline::Accuracy listed = pipeline::evaluate(dir, dir);
  EXPECT_EQ(listed.moves_right, 4);
  EXPECT_FALSE(listed.exact);
}

// Misreads are told apart by kind, and a run of one misread lasts until the square reads
// anything else that says what stands there.
TEST(SquareMisreads, KindsAndRunsOfOneMisread) {
  pipeline::SquareMisreads misreads(10.0);
  // A shadow read as a white piece on empty A e4 (28) over frames 0-29, unsure at frame 10,
  // and not given at frames 20-24 (a hand over it).
  for (int f = 0; f < 30; ++f) {
    if (f >= 20 && f < 25) continue;
    misreads.add(f, "A", 28, f == 10 ? '?' : 'w', '.');
  }
  misreads.add(30, "A", 28, '.', '.');
  misreads.add(31, "A", 28, 'w', '.');  // a flicker after it: a run of its own
  // B's black piece on d7 (51) missed, then seen white: two runs of one frame each.
  misreads.add(5, "B", 51, '.', 'b');
  misreads.add(6, "B", 51, 'w', 'b');
  misreads.add(7, "B", 51, 'b', 'b');
  const pipeline::SquareMisreads::Kinds& kinds = misreads.kinds();
  EXPECT_EQ(kinds.phantom, 25 - 1 + 1);  // 25 frames given, one of them '?', and the flicker
  EXPECT_EQ(kinds.unsure, 1);
  EXPECT_EQ(kinds.missed, 1);
  EXPECT_EQ(kinds.colour, 1);
  const std::vector<pipeline::SquareMisreads::Run> long_runs = misreads.runs_at_least(1.0);
  ASSERT_EQ(long_runs.size(), 1u);
  EXPECT_EQ(long_runs[0].board, "A");
  EXPECT_EQ(long_runs[0].square, 28);
  EXPECT_EQ(long_runs[0].seen, 'w');
  EXPECT_EQ(long_runs[0].truth, '.');
  EXPECT_EQ(long_runs[0].first_frame, 0);
  EXPECT_EQ(long_runs[0].last_frame, 29);
  EXPECT_DOUBLE_EQ(long_runs[0].from_seconds, 0.0);
  EXPECT_DOUBLE_EQ(long_runs[0].seconds, 3.0);
  // All runs, longest first, then by board and square: the three one-frame runs follow.
  const std::vector<pipeline::SquareMisreads::Run> all = misreads.runs_at_least(0.0);
  ASSERT_EQ(all.size(), 4u);
  EXPECT_EQ(all[1].board, "A");
  EXPECT_EQ(all[1].first_frame, 31);
  EXPECT_DOUBLE_EQ(all[1].from_seconds, 3.1);
  EXPECT_EQ(all[2].board, "B");
  EXPECT_EQ(all[2].seen, '.');
  EXPECT_EQ(all[3].seen, 'w');
  EXPECT_DOUBLE_EQ(all[3].seconds, 0.1);
}

// eval-vision's lattice truth: through the clip's lens, the square centres land where the
// renderer projected them (to the 0.01 px the truth file keeps); a homography of the seen
// corners alone, blind to the lens, misses them.
TEST(TrueLattice, PutsTheSquareCentresWhereTheRendererProjectedThem) {
  std::ifstream in(fs::path(BUGCAM_SOURCE_DIR) / "samples/clip/truth.json");
  const nlohmann::json truth = nlohmann::json::parse(in);
  const nlohmann::json& camera = truth["camera"];
  const pipeline::TruthLens lens{camera["fx"], camera["fy"], camera["cx"],
                                 camera["cy"], camera["k1"], camera["k2"]};
  ASSERT_NE(lens.k1, 0.0);
  for (const nlohmann::json& board : truth["boards"]) {
    EXPECT_LT(worst_centre_error(board, lens), 0.03) << board["name"];
    EXPECT_GT(worst_centre_error(board, pipeline::TruthLens{lens.fx, lens.fy, lens.cx, lens.cy}),
              0.1)
        << board["name"];
  }
}

// undistort() is the renderer's formula, k2 with r^4 included (by hand: x = 0.5, r^2 = 0.25,
// 1 - 0.1 * 0.25 + 0.05 * 0.0625 = 0.978125), and distort() undoes it across a frame under a
// barrel lens as strong as the renderer's strongest.
TEST(TrueLattice, UndistortIsTheRenderersFormulaAndDistortItsInverse) {
  const pipeline::ImagePoint by_hand =
      pipeline::TruthLens{1000.0, 1000.0, 0.0, 0.0, -0.1, 0.05}.undistort({500.0, 0.0});
  EXPECT_NEAR(by_hand.x, 489.0625, 1e-9);
  EXPECT_NEAR(by_hand.y, 0.0, 1e-9);
  const pipeline::TruthLens lens{1000.0, 1000.0, 639.5, 359.5, -0.13, -0.01};
  for (double x = 0; x <= 1280; x += 160) {
    for (double y = 0; y <= 720; y += 90) {
      const pipeline::ImagePoint back = lens.distort(lens.undistort({x, y}));
      EXPECT_NEAR(back.x, x, 1e-6);
      EXPECT_NEAR(back.y, y, 1e-6);
    }
  }
}

// The first of a flag fall and a mate decides the game: clocks left running after a mate
// may still run out.
TEST(GameResult, TheFirstOfAFlagAndAMateDecides) {
  using bugcam::pipeline::GameEnding;
  using bugcam::rules::BoardId;
  using bugcam::rules::Color;
  const GameEnding mate{BoardId::kA, Color::kBlack, 50.0};   // BlackA mated: team 1 wins
  const GameEnding flag{BoardId::kB, Color::kBlack, 200.0};  // BlackB's flag: team 2 wins
  const auto after_mate = bugcam::pipeline::game_result(flag, mate);
  ASSERT_TRUE(after_mate.has_value());
  EXPECT_EQ(after_mate->result, "1-0");
  EXPECT_EQ(after_mate->reason, "BlackA checkmated");
  const GameEnding early_flag{BoardId::kB, Color::kBlack, 40.0};
  const auto before_mate = bugcam::pipeline::game_result(early_flag, mate);
  ASSERT_TRUE(before_mate.has_value());
  EXPECT_EQ(before_mate->result, "0-1");
  EXPECT_EQ(before_mate->reason, "BlackB forfeits on time");
  EXPECT_EQ(bugcam::pipeline::game_result(flag, std::nullopt)->reason, "BlackB forfeits on time");
  EXPECT_FALSE(bugcam::pipeline::game_result(std::nullopt, std::nullopt).has_value());
}

// Kings and queens hide more than the rest at the same height: their bodies are wider
// (HidingSizes::tall_radius), so under the sample's tilted camera a tall piece hides every
// square a short one hides and, from some squares, more (held-out 11396: a queen on f3 hid
// e2, which a pawn there would not).
TEST(HidingSizes, TallPiecesHideWhatShortOnesDoAndMore) {
  const cv::Mat frame =
      cv::imread((fs::path(BUGCAM_SOURCE_DIR) / "samples/clip/first_frame.png").string());
  ASSERT_FALSE(frame.empty());
  const pipeline::HidingSizes sizes;
  ASSERT_EQ(sizes.tall_height, sizes.short_height);
  const auto leans = pipeline::tracker_leans(bugcam::calibration::calibrate(frame), sizes);
  for (std::size_t b = 0; b < leans.size(); ++b) {
    int wider = 0;
    for (int s = 0; s < 64; ++s) {
      const std::uint64_t tall = leans[b].tall_pieces[static_cast<std::size_t>(s)];
      const std::uint64_t short_ones = leans[b].short_pieces[static_cast<std::size_t>(s)];
      EXPECT_EQ(tall & short_ones, short_ones) << "board " << b << " square " << s;
      if (tall == short_ones) continue;
      ++wider;
    }
    EXPECT_GT(wider, 0) << "board " << b;
  }
}

// The tracker is told each board's shadow sides, both of them, by its name, and none where
// the looks were not learnt (their sides mean nothing then).
TEST(TrackerInputs, ShadowSidesGoByBoardNameWhereLooksWereLearnt) {
  calibration::Calibration calibration;
  calibration.boards.resize(2);
  calibration.boards[0].name = "B";
  calibration.boards[0].looks.learned = true;
  calibration.boards[0].looks.shadow_rank_side = -1;
  calibration.boards[0].looks.shadow_file_side = 1;
  calibration.boards[1].name = "A";
  calibration.boards[1].looks.shadow_file_side = -1;  // not learnt
  const std::array<tracker::ShadowSides, 2> sides = pipeline::tracker_shadow_sides(calibration);
  EXPECT_EQ(sides[1].rank, -1);
  EXPECT_EQ(sides[1].file, 1);
  EXPECT_EQ(sides[0].rank, 0);
  EXPECT_EQ(sides[0].file, 0);
}

TEST(DefaultClocks, ALogBesideTheVideoElseVision) {
  const bugcam::test_support::TempDir dir_temp("pipeline-clocks");
  const fs::path dir = dir_temp.path();
  write(dir / "game.mp4", "");
  EXPECT_EQ(pipeline::default_clocks((dir / "game.mp4").string()), "vision");
  write(dir / "clocks.jsonl", "");
  EXPECT_EQ(pipeline::default_clocks((dir / "game.mp4").string()), (dir / "clocks.jsonl").string());
  EXPECT_EQ(pipeline::default_clocks("/dev/video0"), "vision");
}

}  // namespace
