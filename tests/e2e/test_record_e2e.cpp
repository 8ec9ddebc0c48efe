// End to end: a short clip rendered on the fly is recorded by the real `bugcam record`
// (real video, real calibration, vision and tracker) and compared with its truth; and a
// recording killed mid-way keeps its committed moves and finishes with --resume.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "bugcam/evaluation.hpp"
#include "bugcam/recorder.hpp"
#include "bugcam/rules.hpp"
#include "bugcam/samples.hpp"
#include "bugcam/vision.hpp"
#include "temp_dir.hpp"

extern char** environ;

namespace bugcam {
namespace {

namespace fs = std::filesystem;

std::string read_text(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// A child process running bugcam, its standard output to `stdout_file`; killed and reaped
// when it goes out of scope.
class Child {
 public:
  explicit Child(std::vector<std::string> args, const std::string& stdout_file = "/dev/null") {
    args.insert(args.begin(), BUGCAM_BINARY);
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, stdout_file.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int error = posix_spawn(&pid_, BUGCAM_BINARY, &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (error != 0) pid_ = -1;
  }
  ~Child() {
    if (pid_ > 0 && !exited_) {
      ::kill(pid_, SIGKILL);
      wait();
    }
  }
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;

  bool started() const { return pid_ > 0; }
  // Whether it has ended (without blocking).
  bool exited() {
    if (exited_) return true;
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      exited_ = true;
      status_ = status;
    }
    return exited_;
  }
  int wait() {
    if (!exited_) {
      ::waitpid(pid_, &status_, 0);
      exited_ = true;
    }
    return status_;
  }
  void kill_now() { ::kill(pid_, SIGKILL); }

 private:
  pid_t pid_ = -1;
  bool exited_ = false;
  int status_ = 0;
};

// A uniform grey 24-bit BMP: a picture without boards.
void write_grey_bmp(const fs::path& file, int width, int height) {
  const int row = (3 * width + 3) / 4 * 4;
  const int size = 54 + row * height;
  std::string bytes(static_cast<std::size_t>(size), '\x80');
  const auto put = [&](int at, int value, int count) {
    for (int i = 0; i < count; ++i) {
      bytes[static_cast<std::size_t>(at + i)] = static_cast<char>((value >> (8 * i)) & 255);
    }
  };
  std::fill(bytes.begin(), bytes.begin() + 54, '\0');
  bytes[0] = 'B';
  bytes[1] = 'M';
  put(2, size, 4);
  put(10, 54, 4);
  put(14, 40, 4);
  put(18, width, 4);
  put(22, height, 4);
  put(26, 1, 2);
  put(28, 24, 2);
  put(34, row * height, 4);
  std::ofstream(file, std::ios::binary) << bytes;
}

int run_bugcam(const std::vector<std::string>& args, const std::string& stdout_file = "/dev/null") {
  Child child(args, stdout_file);
  if (!child.started()) return -1;
  const int status = child.wait();
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// One short clip for the whole suite: the first 12 plies of the bundled real game (its first
// capture is ply 13), and a player's hand held over the partner's board (partner_board_touched).
class RecordEndToEnd : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    clip_temp_ = new test_support::TempDir("e2e");
    clip_ = new fs::path(clip_temp_->path());
    const std::vector<rules::BpgnGame> games = rules::parse_bpgn(
        read_text(fs::path(BUGCAM_SOURCE_DIR) / "samples/games/fics_1934301.bpgn"));
    ASSERT_EQ(games.size(), 1u);
    samples::SynthOptions options;
    options.seed = 23;
    options.max_plies = 12;
    options.incidents = {"partner_board_touched@8"};
    // The acceptance size: vision misreads many squares of this scene at 800x450 and below.
    options.width = 1280;
    options.height = 720;
    video_ = new fs::path(samples::synthesize(games[0], *clip_, options).video);
  }
  static void TearDownTestSuite() {
    delete clip_temp_;
    delete clip_;
    delete video_;
  }
  static test_support::TempDir* clip_temp_;
  static fs::path* clip_;
  static fs::path* video_;
};
test_support::TempDir* RecordEndToEnd::clip_temp_ = nullptr;
fs::path* RecordEndToEnd::clip_ = nullptr;
fs::path* RecordEndToEnd::video_ = nullptr;

TEST_F(RecordEndToEnd, RecordsTheGameAsTruthSays) {
  const fs::path out = *clip_ / "recorded";
  // The clock log is found beside the video (SPEC section 2 default).
  ASSERT_EQ(
      run_bugcam({"record", video_->string(), "--out", out.string(), "--tag", "WhiteA=Alice"}), 0);
  const pipeline::Accuracy a = pipeline::evaluate(out, *clip_);
  EXPECT_EQ(a.truth_moves, 12);
  EXPECT_EQ(a.moves_right, a.moves_compared) << pipeline::to_text(a);
  EXPECT_TRUE(a.exact) << pipeline::to_text(a);
  EXPECT_LE(a.press_error_max, 0.2);
  EXPECT_LE(a.clock_error_max, 0.1);
  EXPECT_EQ(a.clocks_missing, 0);
  // `bugcam record` watches arms by default.
  EXPECT_EQ(a.incidents_found, 1) << pipeline::to_text(a);
  EXPECT_TRUE(a.incidents_false.empty()) << pipeline::to_text(a);

  const std::string bpgn = read_text(out / "game.bpgn");
  EXPECT_NE(bpgn.find("[WhiteA \"Alice\"]"), std::string::npos);
  EXPECT_NE(bpgn.find("[Variant \"Bughouse\"]"), std::string::npos);
  EXPECT_TRUE(fs::is_regular_file(out / "calibration.pbtxt"));
  EXPECT_NE(read_text(out / "review.html").find("1A. d4"), std::string::npos);
  EXPECT_EQ(read_text(out / "incidents.json").substr(0, 1), "[");
  const std::vector<std::string> kinds = recorder::read_event_kinds(out / "events.pb");
  EXPECT_EQ(std::count(kinds.begin(), kinds.end(), "move"), 12);
  EXPECT_EQ(kinds.front(), "started");
  // The holding areas go to the tracker by default (hidden_piece, capture_not_passed).
  EXPECT_EQ(nlohmann::json::parse(read_text(out / "session.json")).at("holdings_to_tracker"), true);
}

TEST_F(RecordEndToEnd, KilledRecordingKeepsCommittedMovesAndResumes) {
  const fs::path out = *clip_ / "killed";
  std::size_t committed = 0;
  {
    // With settings that are not the defaults: the resumed run must keep them. (Holding areas
    // unread also keeps this test's two readings of the footage cheaper under the sanitizers.)
    Child child({"record", video_->string(), "--out", out.string(), "--squares", "hand",
                 "--no-holdings-to-tracker", "--tag", "WhiteA=Alice"});
    ASSERT_TRUE(child.started());
    // Kill it as soon as a move is committed, while it still has frames to read.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(5);
    while (std::chrono::steady_clock::now() < deadline && !child.exited()) {
      if (fs::exists(out / "game.bpgn")) {
        const std::vector<rules::BpgnGame> games = rules::parse_bpgn(read_text(out / "game.bpgn"));
        if (games.size() == 1 && !games[0].moves.empty()) break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    ASSERT_FALSE(child.exited()) << "the recording ended before a move was committed";
    child.kill_now();
    const int status = child.wait();
    ASSERT_TRUE(WIFSIGNALED(status));
  }
  // Whatever moment the kill hit, game.bpgn is a whole, valid game: the committed moves are
  // the true game's first moves.
  const std::vector<rules::BpgnGame> killed = rules::parse_bpgn(read_text(out / "game.bpgn"));
  ASSERT_EQ(killed.size(), 1u);
  ASSERT_FALSE(rules::replay(killed[0]).error.has_value());
  committed = killed[0].moves.size();
  ASSERT_GE(committed, 1u);
  const std::vector<rules::BpgnGame> truth = rules::parse_bpgn(read_text(*clip_ / "truth.bpgn"));
  ASSERT_LT(committed, truth[0].moves.size());
  for (std::size_t i = 0; i < committed; ++i) {
    EXPECT_EQ(killed[0].moves[i].san, truth[0].moves[i].san) << "ply " << i;
    EXPECT_EQ(killed[0].moves[i].board, truth[0].moves[i].board) << "ply " << i;
  }
  // The events log reads back, a record cut short at the end included.
  EXPECT_NO_THROW(recorder::read_event_kinds(out / "events.pb"));

  // The settings are kept for the resumed run, which goes over the footage again and must
  // read it as the first run did: another one given is a usage error that changes nothing.
  const nlohmann::json session = nlohmann::json::parse(read_text(out / "session.json"));
  EXPECT_EQ(session.at("squares"), "hand");
  EXPECT_EQ(session.at("rules"), "otb");
  EXPECT_EQ(session.at("vision_every"), 1);
  EXPECT_EQ(session.at("holdings_to_tracker"), false);
  EXPECT_EQ(session.at("partner_touches"), true);
  const std::string bpgn_killed = read_text(out / "game.bpgn");
  EXPECT_EQ(run_bugcam({"record", "--resume", out.string(), "--squares", "network"}), 2);
  EXPECT_EQ(run_bugcam({"record", "--resume", out.string(), "--rules", "online"}), 2);
  EXPECT_EQ(run_bugcam({"record", "--resume", out.string(), "--lens"}), 2);
  EXPECT_EQ(run_bugcam({"record", "--resume", out.string(), "--no-partner-touches"}), 2);
  EXPECT_EQ(run_bugcam({"record", "--resume", out.string(), "--holdings-to-tracker"}), 2);
  EXPECT_EQ(read_text(out / "game.bpgn"), bpgn_killed);

  // Resumed without the setting, which it keeps (session.json is written again with what the
  // run went with), and with a tag more, kept beside the saved one.
  ASSERT_EQ(run_bugcam({"record", "--resume", out.string(), "--tag", "Event=Club"}), 0);
  const nlohmann::json resumed = nlohmann::json::parse(read_text(out / "session.json"));
  EXPECT_EQ(resumed.at("squares"), "hand");
  EXPECT_EQ(resumed.at("tags").at("WhiteA"), "Alice");
  EXPECT_EQ(resumed.at("tags").at("Event"), "Club");
  const std::string bpgn = read_text(out / "game.bpgn");
  EXPECT_NE(bpgn.find("[WhiteA \"Alice\"]"), std::string::npos);
  EXPECT_NE(bpgn.find("[Event \"Club\"]"), std::string::npos);
  const pipeline::Accuracy a = pipeline::evaluate(out, *clip_);
  EXPECT_TRUE(a.exact) << pipeline::to_text(a);
  EXPECT_LE(a.press_error_max, 0.2);
  EXPECT_LE(a.clock_error_max, 0.1);
}

// eval-vision reports each board's reader, its start-position misreads and how it read the
// clip, and the boards' squares add up to the clip's.
TEST_F(RecordEndToEnd, EvalVisionReportsEachBoard) {
  const fs::path report_file = *clip_ / "eval-vision.json";
  ASSERT_EQ(
      run_bugcam({"eval-vision", clip_->string(), "--step", "15", "--json"}, report_file.string()),
      0);
  const nlohmann::json report = nlohmann::json::parse(read_text(report_file));
  ASSERT_EQ(report.at("boards").size(), 2u);
  long wrong = 0;
  for (std::size_t b = 0; b < 2; ++b) {
    const nlohmann::json& board = report.at("boards").at(b);
    EXPECT_EQ(board.at("name"), b == 0 ? "A" : "B");
    const std::string reader = board.at("squares");
    const int hand_misreads = board.at("start_misreads_hand").get<int>();
    const int network_misreads = board.at("start_misreads_network").get<int>();
    EXPECT_GE(hand_misreads, 0);
    EXPECT_GE(network_misreads, 0);
    // The default reader: the network where it read the start clearly better, else fused
    // where it misread no more of it than the hand-written reader (or one square), else by hand.
    const std::string expected =
        vision::network_reads_start_better(hand_misreads, network_misreads) ? "network"
        : vision::network_fuses_start(hand_misreads, network_misreads)      ? "fused"
                                                                            : "hand";
    EXPECT_EQ(reader, expected);
    EXPECT_GT(board.at("squares_total").get<long>(), 0);
    EXPECT_GT(board.at("squares_right_pct").get<double>(), 90.0);
    wrong += board.at("squares_wrong").get<long>();
  }
  EXPECT_EQ(wrong, report.at("squares_wrong").get<long>());
  // Holdings where the area's own player has no hand in view: some, and fewer than all four
  // areas of every scored frame, since players' hands come and go in the clip.
  const long own_hand_away = report.at("holdings_own_hand_away_total").get<long>();
  EXPECT_GT(own_hand_away, 0);
  EXPECT_LT(own_hand_away, 4 * report.at("frames_scored").get<long>());
  EXPECT_TRUE(report.contains("holdings_own_hand_away_exact_pct"));
}

TEST_F(RecordEndToEnd, ErrorsHaveTheSpecExitStatuses) {
  // A source that does not exist: I/O error.
  EXPECT_EQ(run_bugcam({"record", (*clip_ / "missing.mp4").string(), "--clocks", "none", "--out",
                        (*clip_ / "err1").string()}),
            2);
  // A malformed clock log: the input was read but is wrong.
  const fs::path bad_log = *clip_ / "bad_clocks.jsonl";
  std::ofstream(bad_log) << "{\"t\": 0, \"board\": \"A\", \"event\": \"start\"}\nnot json\n";
  EXPECT_EQ(run_bugcam({"record", video_->string(), "--clocks", bad_log.string(), "--out",
                        (*clip_ / "err2").string()}),
            1);
  // A file that is not a video: read, but wrong.
  EXPECT_EQ(run_bugcam({"record", (*clip_ / "truth.json").string(), "--clocks", "none", "--out",
                        (*clip_ / "err3").string()}),
            1);
  // A time control the clocks cannot run by: a usage error, before any frame is read.
  EXPECT_EQ(run_bugcam({"record", video_->string(), "--tag", "TimeControl=3m", "--out",
                        (*clip_ / "err5").string()}),
            2);
  EXPECT_FALSE(fs::exists(*clip_ / "err5" / "game.bpgn"));
  // A recording's session.json whose settings are wrong: read, but wrong. (One of an older
  // version, with only source and clocks, resumes with the defaults.)
  const fs::path bad_session = *clip_ / "err6";
  fs::create_directories(bad_session);
  std::ofstream(bad_session / "session.json") << nlohmann::json{
      {"source", video_->string()},
      {"clocks", "none"},
      {"squares", "sideways"}}.dump();
  EXPECT_EQ(run_bugcam({"record", "--resume", bad_session.string()}), 1);
  EXPECT_FALSE(fs::exists(bad_session / "game.bpgn"));
  // Pictures with no boards: read, but wrong.
  const fs::path images = *clip_ / "no_boards";
  fs::create_directories(images);
  write_grey_bmp(images / "0001.bmp", 160, 90);
  EXPECT_EQ(run_bugcam({"record", images.string(), "--clocks", "none", "--out",
                        (*clip_ / "err4").string()}),
            1);
}

}  // namespace
}  // namespace bugcam
