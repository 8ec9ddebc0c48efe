// The tracker's decisions written by the recorder, on a simulated real game with an illegal
// move: game.bpgn stays valid BPGN (every game in it replays), and a recording killed after
// the illegal move resumes from the position after it without logging anything twice.
#include <algorithm>
#include <cctype>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <tuple>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "bugcam/recorder.hpp"
#include "bugcam/tracker_simulation.hpp"
#include "temp_dir.hpp"

namespace {

namespace fs = std::filesystem;
using namespace bugcam;
using tracker::SimulatedInput;

std::string read(const fs::path& file) {
  std::ifstream in(file);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

struct Simulated {
  std::vector<SimulatedInput> inputs;
  std::size_t legal_moves = 0;  // what was really played, the illegal move left out
};

rules::BpgnGame first_game() {
  const std::string path = std::string(BUGCAM_SHARED_DIR) + "/data/bpgn/fics_mbprog_64.bpgn";
  return rules::parse_bpgn(read(path), path).at(0);
}

// The game's first `plies` plies, ply `ply` replaced by an illegal move: `illegal`, else one
// the simulation picks.
Simulated game_with_illegal_move(int ply, int plies = 50,
                                 std::optional<rules::Move> illegal = std::nullopt) {
  const rules::BpgnGame game = first_game();
  tracker::SimulationOptions options;
  options.misread = 0.01;
  options.seed = 7;
  options.max_plies = plies;
  tracker::Injection injection{tracker::IncidentType::kIllegalMove, ply};
  injection.illegal = illegal;
  options.injections = {injection};
  Simulated out;
  const tracker::Simulation sim = tracker::simulate(
      game, options, [&](const SimulatedInput& input) { out.inputs.push_back(input); });
  out.legal_moves = sim.truth.size();
  return out;
}

double time_of(const SimulatedInput& input) {
  return std::visit([](const auto& item) { return item.t; }, input);
}

// Records `inputs` into `dir` as `bugcam record` does: tracker events and clock events go
// to the recorder. Resuming, the tracker starts where game.bpgn's last game starts, and the
// inputs start where the killed run's last committed move was (clock events after it,
// observations from it on, as a video seeks there). Stops without finishing (a kill) once
// `kill_after` moves are committed, or after the event that `killed_when` says so.
void record(const fs::path& dir, const std::vector<SimulatedInput>& inputs, bool resume,
            std::size_t kill_after = 0, const std::function<bool()>& killed_when = {}) {
  recorder::Recorder rec({dir, {}, resume});
  tracker::TrackerConfig config;
  config.start_a = rec.resume_boards()[0];
  config.start_b = rec.resume_boards()[1];
  tracker::Tracker tracker(config);
  for (const tracker::TrackedMove& move : rec.resume_moves()) {
    tracker.replay_committed(move.board, move.move, move.t, move.clock);
  }
  const double resume_t = rec.resume_time();
  for (const SimulatedInput& input : inputs) {
    if (resume) {
      const bool clock = std::holds_alternative<capture::ClockEvent>(input);
      // The record has times to the millisecond.
      if (clock ? time_of(input) <= resume_t + 0.0005 : time_of(input) < resume_t) continue;
    }
    if (const auto* clock = std::get_if<capture::ClockEvent>(&input)) rec.record(*clock);
    std::visit([&](const auto& item) { tracker.add(item); }, input);
    for (const tracker::TrackerEvent& event : tracker.take_events()) {
      rec.record(event);
      if (killed_when && killed_when()) return;
    }
    if (kill_after > 0 && rec.moves().size() >= kill_after) return;
  }
  tracker.finish();
  for (const tracker::TrackerEvent& event : tracker.take_events()) {
    rec.record(event);
    if (killed_when && killed_when()) return;
  }
}

// Every game of game.bpgn replays under the rules; returns them.
std::vector<rules::BpgnGame> valid_games(const fs::path& dir) {
  const std::vector<rules::BpgnGame> games =
      rules::parse_bpgn(read(dir / "game.bpgn"), (dir / "game.bpgn").string());
  for (std::size_t g = 0; g < games.size(); ++g) {
    const rules::Replay replayed = rules::replay(games[g]);
    EXPECT_FALSE(replayed.error.has_value())
        << "game " << g + 1 << ": " << replayed.error->what() << "\n"
        << read(dir / "game.bpgn");
  }
  return games;
}

std::size_t count_kind(const fs::path& dir, const std::string& kind) {
  const std::vector<std::string> kinds = recorder::read_event_kinds(dir / "events.pb");
  return static_cast<std::size_t>(std::count(kinds.begin(), kinds.end(), kind));
}

std::size_t clock_events(const std::vector<SimulatedInput>& inputs) {
  return static_cast<std::size_t>(std::count_if(inputs.begin(), inputs.end(), [](const auto& i) {
    return std::holds_alternative<capture::ClockEvent>(i);
  }));
}

TEST(RecorderWithTracker, AnIllegalMoveEndsAGameAndTheNextIsSetUpAfterIt) {
  const bugcam::test_support::TempDir dir("recorder-illegal");
  const Simulated simulated = game_with_illegal_move(24);
  const std::vector<SimulatedInput>& inputs = simulated.inputs;
  record(dir.path(), inputs, false);

  const std::vector<rules::BpgnGame> games = valid_games(dir.path());
  ASSERT_EQ(games.size(), 2u) << read(dir / "game.bpgn");
  EXPECT_NE(games[0].result_comment.find("illegal_move"), std::string::npos)
      << games[0].result_comment;
  EXPECT_EQ(games[0].result, "*");
  EXPECT_EQ(games[1].tag("SetUp"), "1");
  ASSERT_TRUE(games[1].tag("FEN").has_value());
  ASSERT_FALSE(games[1].comments.empty());
  // The illegal move is named, with its clock and press time, before the set-up game's moves.
  const std::string named = games[1].comments.back();
  EXPECT_NE(named.find("Bf1-f3"), std::string::npos) << named;
  EXPECT_NE(named.find("pressed at"), std::string::npos) << named;
  // The set-up game goes on with the move numbers of the game (not from 1 again).
  ASSERT_FALSE(games[1].moves.empty());
  EXPECT_GT(games[1].moves.front().number, 5);
  EXPECT_GE(games[0].moves.size() + games[1].moves.size() + 2, simulated.legal_moves)
      << read(dir / "game.bpgn");
  // Times to the millisecond, as the clock log has them.
  EXPECT_EQ(read(dir / "game.bpgn").find("000000"), std::string::npos) << read(dir / "game.bpgn");

  const auto incidents = nlohmann::json::parse(read(dir / "incidents.json"));
  EXPECT_TRUE(std::any_of(incidents.begin(), incidents.end(),
                          [](const auto& i) { return i["type"] == "illegal_move"; }));
  EXPECT_EQ(count_kind(dir.path(), "illegal"), 1u);
  EXPECT_EQ(count_kind(dir.path(), "clock"), clock_events(inputs));
}

// A pawn dropped on the last rank (10b. P@e8 for P@g6), ending the game as the renderer
// stages it: no BPGN game can be set up with a pawn there, so the next game starts without
// it, and the incident says so.
TEST(RecorderWithTracker, AfterAnIllegalPawnDropOnTheLastRankTheNextGameIsSetUpWithoutThePawn) {
  const bugcam::test_support::TempDir dir("recorder-illegal-drop");
  record(dir.path(), game_with_illegal_move(45, 46).inputs, false);

  const std::vector<rules::BpgnGame> games = valid_games(dir.path());
  ASSERT_EQ(games.size(), 2u) << read(dir / "game.bpgn");
  ASSERT_FALSE(games[1].comments.empty());
  EXPECT_NE(games[1].comments.back().find("P@e8"), std::string::npos) << read(dir / "game.bpgn");
  const rules::Bfen set_up = rules::parse_bfen(games[1].tag("FEN").value_or(""));
  ASSERT_TRUE(set_up.b.has_value());
  EXPECT_TRUE(set_up.b->position.piece_at(rules::make_square(4, 7)).empty())
      << *games[1].tag("FEN");
  const auto incidents = nlohmann::json::parse(read(dir / "incidents.json"));
  const auto illegal = std::find_if(incidents.begin(), incidents.end(),
                                    [](const auto& i) { return i["type"] == "illegal_move"; });
  ASSERT_NE(illegal, incidents.end()) << incidents.dump(1);
  EXPECT_NE((*illegal)["detail"].get<std::string>().find("the pawn on e8 is left out"),
            std::string::npos)
      << (*illegal)["detail"];
}

TEST(RecorderWithTracker, ResumesAfterAnIllegalMoveWithoutLoggingTwice) {
  const bugcam::test_support::TempDir whole("recorder-whole");
  const bugcam::test_support::TempDir killed("recorder-killed");
  const std::vector<SimulatedInput> inputs = game_with_illegal_move(24).inputs;
  record(whole.path(), inputs, false);
  record(killed.path(), inputs, false, 34);  // killed 10 moves after the illegal one
  ASSERT_EQ(valid_games(killed.path()).size(), 2u) << "killed before the illegal move";
  record(killed.path(), inputs, true);

  const std::vector<rules::BpgnGame> games = valid_games(killed.path());
  ASSERT_EQ(games.size(), 2u) << read(killed / "game.bpgn");
  const std::vector<rules::BpgnGame> want = valid_games(whole.path());
  std::size_t moves = 0;
  std::size_t want_moves = 0;
  for (const rules::BpgnGame& g : games) moves += g.moves.size();
  for (const rules::BpgnGame& g : want) want_moves += g.moves.size();
  EXPECT_GE(moves + 2, want_moves);
  EXPECT_LE(moves, want_moves + 2);
  EXPECT_EQ(games[1].tag("FEN"), want[1].tag("FEN"));

  // Every clock event once, every incident once.
  EXPECT_EQ(count_kind(killed.path(), "clock"), clock_events(inputs));
  const auto incidents = nlohmann::json::parse(read(killed / "incidents.json"));
  std::set<std::tuple<std::string, std::string, std::string, double>> seen;
  for (const auto& i : incidents) {
    const auto key = std::make_tuple(i["type"].get<std::string>(), i["board"].get<std::string>(),
                                     i["ply"].get<std::string>(), i["t"].get<double>());
    EXPECT_TRUE(seen.insert(key).second) << i.dump();
  }
  EXPECT_EQ(count_kind(killed.path(), "incident"), incidents.size());
  EXPECT_EQ(count_kind(killed.path(), "illegal"), 1u);
}

// As held-out 11508's 7A. Ke3, into a knight's check, but mid-game: no game can be set up from
// the position after it (the side not to move is in check), so the record's game ends there,
// and the illegal move and the moves recorded after it follow its last move as comments until
// the opponent's answer, after which the record continues in a game set up from the position.
// Every game still replays. Killed while broken off, the recording resumes without writing any
// move twice, in the record or in events.pb.
TEST(RecorderWithTracker, AnIllegalMoveIntoCheckBreaksTheRecordOffUntilItsAnswer) {
  const rules::Replay replayed = rules::replay(first_game());
  int ply = 20;
  std::optional<rules::Move> step;
  for (; ply < 60; ++ply) {
    step = tracker::king_step_into_check(replayed.plies[static_cast<std::size_t>(ply)].before);
    if (step) break;
  }
  ASSERT_TRUE(step.has_value());
  const std::vector<SimulatedInput> inputs = game_with_illegal_move(ply, ply + 9, step).inputs;
  const bugcam::test_support::TempDir whole("recorder-into-check");
  record(whole.path(), inputs, false);

  const std::vector<rules::BpgnGame> games = valid_games(whole.path());
  ASSERT_EQ(games.size(), 2u) << read(whole / "game.bpgn");
  EXPECT_NE(games[0].result_comment.find("No game can be set up"), std::string::npos)
      << games[0].result_comment;
  ASSERT_FALSE(games[0].moves.empty());
  const std::vector<std::string>& after = games[0].moves.back().comments;
  ASSERT_FALSE(after.empty()) << read(whole / "game.bpgn");
  const std::string from_to =
      rules::square_name(step->from()) + "-" + rules::square_name(step->to());
  EXPECT_NE(after.front().find(from_to + " (breaks the rules"), std::string::npos) << after.front();
  // The last comment is the answer that made a position a game can be set up from again.
  const std::string answer = after.back();
  EXPECT_NE(answer.find("after the record broke off"), std::string::npos) << answer;
  // ... the opponent's, on the illegal move's board: "7a." answered by "8A.".
  const auto board_and_side = [](const std::string& comment) {
    const std::size_t dot = comment.find('.');
    return dot == std::string::npos || dot == 0 ? '?' : comment[dot - 1];
  };
  const char illegal_side = board_and_side(after.front());
  const char answer_side = board_and_side(answer);
  EXPECT_NE(illegal_side, answer_side) << answer;
  EXPECT_EQ(std::toupper(illegal_side), std::toupper(answer_side)) << answer;
  ASSERT_FALSE(games[1].comments.empty());
  EXPECT_NE(games[1].comments.front().find("the first after it that a game can be set up from"),
            std::string::npos)
      << games[1].comments.front();
  EXPECT_EQ(games[1].tag("SetUp"), "1");
  EXPECT_FALSE(games[1].moves.empty()) << read(whole / "game.bpgn");
  EXPECT_EQ(count_kind(whole.path(), "illegal"), 1u);

  const auto incidents = nlohmann::json::parse(read(whole / "incidents.json"));
  const auto illegal = std::find_if(incidents.begin(), incidents.end(),
                                    [](const auto& i) { return i["type"] == "illegal_move"; });
  ASSERT_NE(illegal, incidents.end()) << incidents.dump(1);

  // Killed while the record is broken off (as soon as it broke off, or once a move after the
  // illegal one is written as a comment), or as the game after the answer is set up, before
  // its first move; then resumed. A run killed while broken off tells it from the file read
  // back (the resumed run does not log the incident again); one killed after the answer starts
  // after it (the ContinuesAt tag).
  for (const std::string written : {"No game can be set up", "after the record broke off",
                                    "the first after it that a game can be set up from"}) {
    const bugcam::test_support::TempDir killed("recorder-into-check-killed");
    record(killed.path(), inputs, false, 0,
           [&] { return read(killed / "game.bpgn").find(written) != std::string::npos; });
    ASSERT_FALSE(valid_games(killed.path()).empty()) << written;
    record(killed.path(), inputs, true);
    const std::vector<rules::BpgnGame> resumed = valid_games(killed.path());
    ASSERT_EQ(resumed.size(), 2u) << written << "\n" << read(killed / "game.bpgn");
    EXPECT_EQ(resumed[0].moves.size(), games[0].moves.size()) << written;
    EXPECT_EQ(resumed[0].moves.back().comments, after) << written;
    EXPECT_EQ(resumed[0].result_comment, games[0].result_comment) << written;
    EXPECT_EQ(resumed[1].tag("FEN"), games[1].tag("FEN")) << written;
    EXPECT_EQ(nlohmann::json::parse(read(killed / "incidents.json")).size(), incidents.size())
        << written;
    EXPECT_EQ(count_kind(killed.path(), "illegal"), 1u) << written;
    EXPECT_EQ(count_kind(killed.path(), "move"), count_kind(whole.path(), "move")) << written;
  }
}

}  // namespace
