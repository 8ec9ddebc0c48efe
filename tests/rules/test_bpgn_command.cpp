// `bugcam bpgn check` and `bugcam bpgn replay`, run as the real binary: output lines and exit
// statuses of SPEC.md section 2.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "bugcam/rules.hpp"
#include "support.hpp"

namespace bugcam::rules {
namespace {

using test::CommandResult;
using test::read_text;
using test::real_game_files;
using test::run_bugcam;
using test::shared_bpgn;

// A file in a fresh temporary folder, removed with the object.
class TempFile {
 public:
  TempFile(const std::string& name, const std::string& content) {
    dir_ = std::filesystem::temp_directory_path() /
           ("bugcam_bpgn_command_" + std::to_string(::getpid()) + "_" + name);
    std::filesystem::create_directories(dir_);
    path_ = (dir_ / name).string();
    std::ofstream(path_, std::ios::binary) << content;
  }
  ~TempFile() {
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::filesystem::path dir_;
  std::string path_;
};

const std::string kTruncatedRecordLine =
    ":674:5: game 24: illegal move at ply 1 (1A. Qe7+): no legal move matches 'Qe7+': no white "
    "queen can reach e7";

TEST(BpgnCheckCommand, EveryRealFileAloneIsLegalButTheOneWithTheTruncatedRecord) {
  for (const std::string& file : real_game_files()) {
    const CommandResult result = run_bugcam({"bpgn", "check", file});
    const std::size_t games = parse_bpgn(read_text(file), file).size();
    ASSERT_EQ(result.lines.size(), games) << file;
    const bool has_truncated_record = file.ends_with("fics_mbprog_64.bpgn");
    EXPECT_EQ(result.exit_status, has_truncated_record ? 1 : 0) << file;
    const std::size_t ok_lines = std::count_if(
        result.lines.begin(), result.lines.end(),
        [](const std::string& line) { return line.find(" plies: ok, ") != std::string::npos; });
    EXPECT_EQ(ok_lines, has_truncated_record ? games - 1 : games) << file;
    // Each line starts with the file and the line of its game.
    for (const std::string& line : result.lines) EXPECT_EQ(line.rfind(file + ":", 0), 0u) << line;
  }
}

TEST(BpgnCheckCommand, AllFilesTogetherNameTheTruncatedRecord) {
  std::vector<std::string> args = {"bpgn", "check"};
  const std::vector<std::string> files = real_game_files();
  args.insert(args.end(), files.begin(), files.end());
  const CommandResult result = run_bugcam(args);
  EXPECT_EQ(result.exit_status, 1);
  std::vector<std::string> failures;
  for (const std::string& line : result.lines) {
    if (line.find(" plies: ok, ") == std::string::npos) failures.push_back(line);
  }
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_EQ(failures[0], shared_bpgn("fics_mbprog_64.bpgn") + kTruncatedRecordLine);
}

TEST(BpgnCheckCommand, OkLineNamesGamePlayersPliesAndResult) {
  const std::string file = shared_bpgn("fics_bughousedb_pychess_5.bpgn");
  const CommandResult result = run_bugcam({"bpgn", "check", file});
  ASSERT_EQ(result.lines.size(), 5u);
  EXPECT_EQ(result.lines[0], file +
                                 ":1: game 1: Gnejs - carlosfenix (A), burpcow - JKiller (B): 8 "
                                 "plies: ok, * {Game aborted on move 1}");
  EXPECT_EQ(result.lines[1].rfind(file + ":16: game 2: Rabbos - Stesox (A), Giomaxxim - "
                                         "BobBughouse (B): ",
                                  0),
            0u)
      << result.lines[1];
  EXPECT_NE(result.lines[1].find("ok, 1-0 {BobBughouse checkmated}; checkmate on board B"),
            std::string::npos)
      << result.lines[1];
}

TEST(BpgnCheckCommand, IllegalMoveAndParseErrorsExitOne) {
  const TempFile illegal("illegal.bpgn", "[Event \"t\"]\n\n1A. e4 1a. e5 2A. Ke3 *\n");
  const CommandResult checked = run_bugcam({"bpgn", "check", illegal.path()});
  EXPECT_EQ(checked.exit_status, 1);
  ASSERT_EQ(checked.lines.size(), 1u);
  EXPECT_EQ(checked.lines[0], illegal.path() +
                                  ":3:19: game 1: illegal move at ply 3 (2A. Ke3): no legal move "
                                  "matches 'Ke3': no white king can reach e3");

  const TempFile broken("broken.bpgn", "[Event \"t\"]\n1A. e4 {never closed\n");
  const CommandResult parsed = run_bugcam({"bpgn", "check", broken.path()});
  EXPECT_EQ(parsed.exit_status, 1);
  ASSERT_EQ(parsed.lines.size(), 1u);
  EXPECT_EQ(parsed.lines[0],
            broken.path() + ":2:8: comment opened here is never closed: expected '}'");
}

TEST(BpgnCheckCommand, UnreadableFileAndUsageErrorsExitTwo) {
  const CommandResult missing =
      run_bugcam({"bpgn", "check", "/nonexistent/bugcam/game.bpgn"}, true);
  EXPECT_EQ(missing.exit_status, 2);
  ASSERT_FALSE(missing.lines.empty());
  EXPECT_NE(missing.lines[0].find("/nonexistent/bugcam/game.bpgn: cannot open"), std::string::npos);
  // A readable file beside an unreadable one is still checked; the worse status wins.
  const CommandResult mixed = run_bugcam(
      {"bpgn", "check", shared_bpgn("fics_mbprog_64.bpgn"), "/nonexistent/bugcam/game.bpgn"});
  EXPECT_EQ(mixed.exit_status, 2);
  EXPECT_EQ(mixed.lines.size(), 64u);
  EXPECT_EQ(run_bugcam({"bpgn", "check"}).exit_status, 2);
  EXPECT_EQ(run_bugcam({"bpgn"}).exit_status, 2);
  EXPECT_EQ(run_bugcam({"bpgn", "check", "--rules", "nosuch", shared_bpgn("fics_mbprog_64.bpgn")})
                .exit_status,
            2);
}

TEST(BpgnCheckCommand, OnlineRulesToo) {
  const CommandResult result =
      run_bugcam({"bpgn", "check", "--rules", "online", shared_bpgn("chesscom_41_pairs.bpgn")});
  EXPECT_EQ(result.exit_status, 0);
  EXPECT_EQ(result.lines.size(), 41u);
}

TEST(BpgnReplayCommand, PrintsBothBoardsAfterEveryHalfMove) {
  const std::string file = shared_bpgn("fics_bughousedb_pychess_5.bpgn");
  const CommandResult result = run_bugcam({"bpgn", "replay", file, "--game", "2"});
  EXPECT_EQ(result.exit_status, 0);
  const BpgnGame game = parse_bpgn(read_text(file), file).at(1);
  const Replay replayed = replay(game);
  ASSERT_EQ(result.lines.size(), replayed.plies.size());
  // Line i shows, on the board moved at ply i+1, the position before that next move.
  for (std::size_t i = 0; i + 1 < replayed.plies.size(); ++i) {
    const Bfen bfen = parse_bfen(result.lines[i]);
    ASSERT_TRUE(bfen.b.has_value()) << result.lines[i];
    const ReplayedPly& next = replayed.plies[i + 1];
    const Position& shown = next.board == BoardId::kA ? bfen.a.position : bfen.b->position;
    ASSERT_EQ(shown, next.before) << "line " << i + 1 << ": " << result.lines[i];
  }
  const Bfen last = parse_bfen(result.lines.back());
  EXPECT_EQ(last.a.position, replayed.final_game.board(BoardId::kA));
  EXPECT_EQ(last.b->position, replayed.final_game.board(BoardId::kB));
  // Clock times follow the moves: the first move, 1A. d4 {298.21}, of a 300+0 game.
  EXPECT_EQ(parse_bfen(result.lines[0]).a.trailing, (std::vector<std::string>{"298.21", "300"}));
}

TEST(BpgnReplayCommand, DefaultsToTheFirstGameAndStopsAtAnIllegalMove) {
  const std::string file = shared_bpgn("chesscom_sample_from_pychess_bugchess_pgn.bpgn");
  const CommandResult first = run_bugcam({"bpgn", "replay", file});
  EXPECT_EQ(first.exit_status, 0);
  EXPECT_EQ(first.lines.size(), parse_bpgn(read_text(file)).at(0).moves.size());

  const CommandResult truncated =
      run_bugcam({"bpgn", "replay", shared_bpgn("fics_mbprog_64.bpgn"), "--game", "24"}, true);
  EXPECT_EQ(truncated.exit_status, 1);
  ASSERT_EQ(truncated.lines.size(), 1u);
  EXPECT_EQ(truncated.lines[0], shared_bpgn("fics_mbprog_64.bpgn") + kTruncatedRecordLine);

  EXPECT_EQ(run_bugcam({"bpgn", "replay", file, "--game", "2"}).exit_status, 2);
  EXPECT_EQ(run_bugcam({"bpgn", "replay", file, "--game", "0"}).exit_status, 2);
  EXPECT_EQ(run_bugcam({"bpgn", "replay", "/nonexistent/bugcam/game.bpgn"}).exit_status, 2);
}

}  // namespace
}  // namespace bugcam::rules
