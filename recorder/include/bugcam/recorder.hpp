// Writes a recording as SPEC.md section 3 says: game.bpgn rewritten atomically after every
// committed move, events.pb appended and flushed per event, incidents.json, and the
// calibration used. A killed recording keeps every committed move; a new Recorder on the
// same directory with `resume` continues it.
//
// game.bpgn stays valid BPGN (every game in it replays under the rules): where the tracker
// continues from a position no legal move leads to (an illegal move, a disturbed position:
// incidents that carry Incident::position), the game so far ends there with the incident as
// its closing comment and result "*", and the file goes on with a new game set up from that
// position (tags SetUp "1" and FEN, as FICS and pychess-variants write them), whose first
// comment names the illegal move with its clock and press time.
#pragma once

#include <array>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "bugcam/capture.hpp"
#include "bugcam/tracker.hpp"

namespace bugcam::recorder {

class RecorderError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct RecorderOptions {
  std::filesystem::path dir;
  // Tags in addition to (or replacing) the defaults: Event Site Date Time WhiteA BlackA
  // WhiteB BlackB TimeControl Result Variant.
  std::vector<std::pair<std::string, std::string>> tags;
  bool resume = false;  // read back game.bpgn in `dir` and continue it
};

class Recorder {
 public:
  // Creates `dir` (or reads it back when resuming). Throws RecorderError naming the file.
  explicit Recorder(RecorderOptions options);
  ~Recorder();
  Recorder(const Recorder&) = delete;
  Recorder& operator=(const Recorder&) = delete;

  // Committed moves go into game.bpgn (rewritten atomically) and events.pb; provisional
  // moves and corrections into events.pb; incidents into events.pb and incidents.json.
  void record(const tracker::TrackerEvent& event);
  void record(const capture::ClockEvent& event);
  // The game's end, e.g. "1-0" with "BlackA checkmated".
  void set_result(const std::string& result, const std::string& reason);
  void write_calibration(const std::string& pbtxt);

  // The committed moves, including those read back when resuming, in order.
  const std::vector<tracker::TrackedMove>& moves() const;
  // When resuming: the time of the last committed move (0 when none), to the millisecond as
  // game.bpgn has it.
  double resume_time() const;
  // When resuming: the boards the last game of game.bpgn starts from and its moves, which is
  // what a tracker replays to stand where the recording stopped. Clock events and incidents
  // the killed run logged are not logged again when the resumed run meets them.
  const std::array<rules::Position, 2>& resume_boards() const;
  std::span<const tracker::TrackedMove> resume_moves() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Writes DIR/review.html, the arbiter's review of a recording: every incident of
// incidents.json with its snapshot frames, then the game as game.bpgn has it. Throws
// RecorderError naming the file that cannot be read or written.
void write_review(const std::filesystem::path& dir);

// Where the snapshot of frame `frame` goes, relative to the output directory, as
// incidents.json names it: "frames/0412.jpg".
std::string frame_file_name(int frame);

// Reads events.pb back (for tests and tools). Throws RecorderError naming the file and the
// byte offset of a damaged record; a record cut short at the end (a killed writer) is
// ignored.
std::vector<std::string> read_event_kinds(const std::filesystem::path& events_file);

}  // namespace bugcam::recorder
