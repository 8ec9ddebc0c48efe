// bugcam synth end to end: the files it writes, that they agree with each other and with the
// game, incidents on request, and determinism.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/videoio.hpp>

#include "bugcam/rules.hpp"
#include "bugcam/samples.hpp"
#include "temp_dir.hpp"

namespace bugcam::samples {
namespace {

namespace fs = std::filesystem;

const char* const kGame = R"([Event "test"]
[WhiteA "a"][BlackA "b"][WhiteB "c"][BlackB "d"]
[TimeControl "120+0"]
[Result "*"]
1A. e4 {118.0} 1a. d5 {117.0} 1B. d4 {116.5} 2A. exd5 {115.0} 1b. Nf6 {115.0} 2a. Qxd5 {112.0} 2B. P@e5 {113.0} *
)";

rules::BpgnGame test_game() {
  return rules::parse_bpgn(kGame).front();
}

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

SynthOptions small_options(std::uint64_t seed) {
  SynthOptions o;
  o.seed = seed;
  o.width = 320;
  o.height = 180;
  return o;
}

TEST(Synth, WritesConsistentTruthFiles) {
  const bugcam::test_support::TempDir dir_temp("samples-files");
  const fs::path dir = dir_temp.path();
  const SynthResult r = synthesize(test_game(), dir, small_options(4));
  for (const char* f : {"clocks.jsonl", "truth.bpgn", "truth.json", "first_frame.png"}) {
    EXPECT_TRUE(fs::exists(dir / f)) << f;
  }
  ASSERT_TRUE(fs::exists(r.video));
  EXPECT_EQ(r.plies, 7);

  // The video reads back with the frames and size promised.
  cv::VideoCapture cap(r.video.string());
  ASSERT_TRUE(cap.isOpened());
  EXPECT_EQ(static_cast<int>(cap.get(cv::CAP_PROP_FRAME_WIDTH)), 320);
  int frames = 0;
  cv::Mat m;
  while (cap.read(m)) ++frames;
  EXPECT_EQ(frames, r.frames);

  // truth.bpgn replays to the same moves, with increasing timestamps and falling clocks.
  const auto truth = rules::parse_bpgn(read(dir / "truth.bpgn"));
  ASSERT_EQ(truth.size(), 1u);
  const rules::Replay replay = rules::replay(truth.front());
  EXPECT_FALSE(replay.error.has_value());
  ASSERT_EQ(replay.plies.size(), 7u);
  EXPECT_EQ(replay.plies[6].san, "P@e5");
  double last = 0;
  for (const rules::BpgnMove& mv : truth.front().moves) {
    ASSERT_TRUE(mv.timestamp && mv.clock);
    EXPECT_GT(*mv.timestamp, last);
    last = *mv.timestamp;
    EXPECT_LT(*mv.clock, 120.0);
  }

  // clocks.jsonl: one press per ply at the BPGN timestamps, within the video.
  std::ifstream log(dir / "clocks.jsonl");
  std::string line;
  std::vector<double> presses;
  while (std::getline(log, line)) {
    const auto e = nlohmann::json::parse(line);
    if (e["event"] == "press") presses.push_back(e["t"].get<double>());
  }
  ASSERT_EQ(presses.size(), 7u);
  for (std::size_t i = 0; i < presses.size(); ++i) {
    EXPECT_NEAR(presses[i], *truth.front().moves[i].timestamp, 1e-6);
    EXPECT_LT(presses[i], r.duration);
  }

  // truth.json: at the end, White B's pawn (from 2a. Qxd5) stands dropped on e5 of board B,
  // and Black B holds the pawn White A took with 2A. exd5.
  const auto j = nlohmann::json::parse(read(dir / "truth.json"));
  const auto& final_state = j["states"].back();
  EXPECT_EQ(final_state["B"]["pieces"][3].get<std::string>()[4], 'P');  // e5: rank 5 is row 3
  EXPECT_EQ(final_state["B"]["occupancy"][3].get<std::string>()[4], 'w');
  EXPECT_EQ(final_state["holdings"]["B:black"]["visible"]["P"], 1);
  EXPECT_TRUE(final_state["holdings"]["B:white"]["visible"].empty());
  EXPECT_EQ(j["boards"][0]["white_side"], "bottom");
}

TEST(Synth, SameInputsGiveIdenticalFiles) {
  const bugcam::test_support::TempDir a_temp("samples-det-a");
  const bugcam::test_support::TempDir b_temp("samples-det-b");
  const fs::path a = a_temp.path();
  const fs::path b = b_temp.path();
  SynthOptions o = small_options(9);
  o.max_plies = 3;
  synthesize(test_game(), a, o);
  synthesize(test_game(), b, o);
  for (const auto& entry : fs::directory_iterator(a)) {
    const fs::path other = b / entry.path().filename();
    ASSERT_TRUE(fs::exists(other)) << other;
    EXPECT_TRUE(read(entry.path()) == read(other)) << entry.path().filename() << " differs";
  }
  // A different seed changes the pictures.
  const bugcam::test_support::TempDir c_temp("samples-det-c");
  const fs::path c = c_temp.path();
  o.seed = 10;
  synthesize(test_game(), c, o);
  EXPECT_FALSE(read(a / "first_frame.png") == read(c / "first_frame.png"));
}

TEST(Synth, IncidentsOnRequestAppearInTheTruth) {
  const bugcam::test_support::TempDir dir_temp("samples-incidents");
  const fs::path dir = dir_temp.path();
  SynthOptions o = small_options(6);
  o.incidents = {"capture_not_passed@2A", "premove@1a", "position_disturbed@5",
                 "partner_board_touched@1"};
  synthesize(test_game(), dir, o);
  const auto j = nlohmann::json::parse(read(dir / "truth.json"));
  std::multiset<std::string> types;
  for (const auto& inc : j["incidents"]) {
    types.insert(inc["type"].get<std::string>());
    EXPECT_LE(inc["t"].get<double>(), inc["t_end"].get<double>());
  }
  EXPECT_EQ(types.count("capture_not_passed"), 1u);
  EXPECT_EQ(types.count("premove"), 1u);
  EXPECT_EQ(types.count("position_disturbed"), 1u);
  EXPECT_EQ(types.count("partner_board_touched"), 1u);
  // The premove's piece is let go before the opponent's press.
  const auto& plies = j["plies"];
  EXPECT_LT(plies[1]["t_release"].get<double>(), plies[0]["t_press"].get<double>());
}

TEST(Synth, APremoveWhoseHandIsBusyMakesTheOpponentThinkLonger) {
  // 2a. Nc6 is answered at once, and the premove 3A. Nxe5 first passes the pawn to the partner:
  // starting when White A's hand is back from 2A.'s press, it would let go after Black A's
  // press, and the truth would call an ordinary move a premove.
  const auto game = rules::parse_bpgn(R"([Event "test"]
[WhiteA "a"][BlackA "b"][WhiteB "c"][BlackB "d"]
[TimeControl "120+0"]
[Result "*"]
1A. e4 {120.0} 1a. e5 {120.0} 2A. Nf3 {120.0} 2a. Nc6 {120.0} 3A. Nxe5 {120.0} *
)")
                        .front();
  const bugcam::test_support::TempDir dir_temp("samples-busy-premove");
  SynthOptions o = small_options(5);
  o.incidents = {"premove@3A"};
  synthesize(game, dir_temp.path(), o);
  const auto j = nlohmann::json::parse(read(dir_temp.path() / "truth.json"));
  ASSERT_EQ(j["incidents"].size(), 1u);
  const auto& premove = j["incidents"][0];
  EXPECT_EQ(premove["ply"], "3A");
  EXPECT_LT(premove["t"].get<double>(), premove["t_end"].get<double>());
  const auto& plies = j["plies"];
  EXPECT_LT(plies[4]["t_release"].get<double>(), plies[3]["t_press"].get<double>());
  EXPECT_DOUBLE_EQ(plies[3]["t_press"].get<double>(), premove["t_end"].get<double>());
}

TEST(Synth, ClockIncidentsChangeTheClockLog) {
  const bugcam::test_support::TempDir dir_temp("samples-clock-incidents");
  const fs::path dir = dir_temp.path();
  SynthOptions o = small_options(6);
  o.incidents = {"move_without_press@1a", "press_without_move@1B"};
  synthesize(test_game(), dir, o);
  std::ifstream log(dir / "clocks.jsonl");
  std::string line;
  int presses = 0;
  while (std::getline(log, line)) presses += nlohmann::json::parse(line)["event"] == "press";
  // 7 plies; 1a. is not pressed, so 2A.'s press lands on a side already down (no event);
  // press_without_move adds two presses.
  EXPECT_EQ(presses, 7 - 2 + 2);
}

TEST(Synth, FlagFallAndIllegalMoveEndTheGame) {
  const bugcam::test_support::TempDir dir_temp("samples-endings");
  const fs::path dir = dir_temp.path();
  SynthOptions o = small_options(2);
  o.incidents = {"flag_fall@4"};
  synthesize(test_game(), dir, o);
  const std::string clocks = read(dir / "clocks.jsonl");
  EXPECT_NE(clocks.find("\"event\": \"flag\", \"side\": \"white\""), std::string::npos);
  const auto truth = rules::parse_bpgn(read(dir / "truth.bpgn")).front();
  EXPECT_EQ(truth.moves.size(), 3u);
  EXPECT_EQ(truth.result, "0-1");  // White A flagged: team 1 loses

  const bugcam::test_support::TempDir dir2_temp("samples-illegal");
  const fs::path dir2 = dir2_temp.path();
  o.incidents = {"illegal_move@2"};
  synthesize(test_game(), dir2, o);
  const auto j = nlohmann::json::parse(read(dir2 / "truth.json"));
  EXPECT_EQ(j["incidents"][0]["type"], "illegal_move");
  EXPECT_TRUE(j["plies"][1].contains("illegal_to"));
  const auto truth2 = rules::parse_bpgn(read(dir2 / "truth.bpgn")).front();
  EXPECT_EQ(truth2.moves.size(), 1u);
  EXPECT_EQ(truth2.result, "1-0");  // Black A's illegal move: team 2 loses
}

// A game slower than its time control: each clock the moves run below zero is a flag fall
// in the truth (the renderer lets the game go on, so no flag was injected; clip 11417's
// White B ran to -2.9 s and the recorder's flag_fall was counted false).
TEST(Synth, AClockRunOutByTheGamesPaceIsAFlagFallInTheTruth) {
  const bugcam::test_support::TempDir dir_temp("samples-pace");
  const fs::path dir = dir_temp.path();
  std::string slow = kGame;
  slow.replace(slow.find("120+0"), 5, "4+0");
  synthesize(rules::parse_bpgn(slow).front(), dir, small_options(3));
  // Which clocks a press shows below zero.
  std::set<std::pair<std::string, std::string>> negative;
  std::ifstream log(dir / "clocks.jsonl");
  std::string line;
  while (std::getline(log, line)) {
    const auto e = nlohmann::json::parse(line);
    if (e["event"] != "press") continue;
    for (const char* side : {"white", "black"}) {
      if (e[std::string(side) + "_ms"].get<int>() < 0) {
        negative.insert({e["board"].get<std::string>(), side});
      }
    }
  }
  std::set<std::pair<std::string, std::string>> fallen;
  const auto j = nlohmann::json::parse(read(dir / "truth.json"));
  for (const auto& incident : j["incidents"]) {
    if (incident["type"] != "flag_fall") continue;
    const std::pair<std::string, std::string> clock{incident["board"].get<std::string>(),
                                                    incident["side"].get<std::string>()};
    EXPECT_TRUE(fallen.insert(clock).second) << "twice";
    EXPECT_GT(incident["t"].get<double>(), 0.0);
  }
  EXPECT_FALSE(negative.empty());
  for (const auto& clock : negative) {
    EXPECT_TRUE(fallen.count(clock)) << clock.first << " " << clock.second;
  }
}

TEST(Synth, RejectsBadIncidentRequests) {
  const bugcam::test_support::TempDir dir_temp("samples-bad");
  const fs::path dir = dir_temp.path();
  SynthOptions o = small_options(1);
  o.incidents = {"teleport@2"};
  EXPECT_THROW(synthesize(test_game(), dir, o), SynthError);
  o.incidents = {"hidden_piece@1"};  // 1A. e4 captures nothing
  EXPECT_THROW(synthesize(test_game(), dir, o), SynthError);
  o.incidents = {"premove@99"};
  EXPECT_THROW(synthesize(test_game(), dir, o), SynthError);
  o.incidents = {"premove@1B"};  // the first move on board B follows no press there
  EXPECT_THROW(synthesize(test_game(), dir, o), SynthError);
  // 2A. exd5 and 2a. Qxd5 take the piece the opponent has just put down: the premover's hand
  // would take it before it is there.
  o.incidents = {"premove@2A"};
  EXPECT_THROW(synthesize(test_game(), dir, o), SynthError);
  o.incidents = {"premove@2a"};
  EXPECT_THROW(synthesize(test_game(), dir, o), SynthError);
  // 2B. P@e5 made as Black B lets go of 1b. Nf6 would drop the pawn 2a. Qxd5 captures only
  // after it (held-out 11558's rendering took such a piece from the other board).
  o.incidents = {"premove@2B"};
  EXPECT_THROW(synthesize(test_game(), dir, o), SynthError);
  // 2a. Qxd5's pawn kept back, though the partner drops it at 2B. (the timeline once threw a
  // logic_error there instead).
  o.incidents = {"capture_not_passed@6"};
  EXPECT_THROW(synthesize(test_game(), dir, o), SynthError);
}

TEST(Synth, FittingIncidentMovesToTheNearestPlyThatFits) {
  const rules::BpgnGame game = test_game();
  // Plies: 1 e4, 2 d5, 3 (1B) d4, 4 exd5, 5 Nf6, 6 Qxd5, 7 P@e5.
  EXPECT_EQ(fitting_incident(game, -1, "hidden_piece", 3), "hidden_piece@4");
  EXPECT_EQ(fitting_incident(game, -1, "capture_not_passed", 5), "capture_not_passed@4");
  // Not @6: the partner drops 2a. Qxd5's pawn at 2B. before Black A moves again to pass it.
  EXPECT_EQ(fitting_incident(game, -1, "capture_not_passed", 7), "capture_not_passed@4");
  EXPECT_EQ(fitting_incident(game, -1, "capture_not_passed", 4), "capture_not_passed@4");
  EXPECT_EQ(fitting_incident(game, -1, "premove", 3), "premove@2");  // 1B follows no press
  // Not @4: 2A. exd5 takes the pawn 1a. d5 puts down; 1B. follows no press.
  EXPECT_EQ(fitting_incident(game, -1, "premove", 4), "premove@5");
  // Not @7: 2B. P@e5's pawn comes from 2a. Qxd5, after 1b. Nf6; not @6: 2a. Qxd5 takes the
  // pawn 2A. exd5 puts down.
  EXPECT_EQ(fitting_incident(game, -1, "premove", 7), "premove@5");
  EXPECT_EQ(fitting_incident(game, -1, "press_without_move", 3), "press_without_move@3");
  // Nothing stands beside e4 after 1A. e4; after 1a. d5 the pawn on e4 does.
  EXPECT_EQ(fitting_incident(game, -1, "position_disturbed", 1), "position_disturbed@2");
  EXPECT_EQ(fitting_incident(game, 3, "hidden_piece", 2), std::nullopt);  // no capture in 3
  EXPECT_THROW(fitting_incident(game, -1, "teleport", 2), SynthError);
  // What it picks renders.
  const bugcam::test_support::TempDir dir_temp("samples-fitting");
  SynthOptions o = small_options(3);
  o.max_plies = 5;
  o.incidents = {*fitting_incident(game, o.max_plies, "hidden_piece", 2)};
  EXPECT_EQ(o.incidents.front(), "hidden_piece@4");
  EXPECT_NO_THROW(synthesize(game, dir_temp.path(), o));
}

TEST(Synth, ContactSheetTilesTheSeeds) {
  const bugcam::test_support::TempDir dir_temp("samples-sheet");
  const fs::path dir = dir_temp.path();
  fs::create_directories(dir);
  const fs::path png = dir / "sheet.png";
  write_contact_sheet(png, 1, 4, 160);
  const cv::Mat sheet = cv::imread(png.string());
  ASSERT_FALSE(sheet.empty());
  EXPECT_EQ(sheet.cols, 3 * 160);
  EXPECT_EQ(sheet.rows, 2 * 90);
}

}  // namespace
}  // namespace bugcam::samples
