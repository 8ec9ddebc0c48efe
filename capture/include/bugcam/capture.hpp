// Where frames and clock events come from: video files, directories of numbered images,
// cameras, and clock logs (SPEC.md section 4). Every frame and event carries its time in
// seconds on the video's timeline (first frame at t = 0).
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <opencv2/core/mat.hpp>

#include "bugcam/rules.hpp"

namespace bugcam::capture {

using rules::BoardId;
using rules::Color;

// ---------------------------------------------------------------------------
// Clock events

struct ClockEvent {
  enum class Kind : std::uint8_t { kStart, kPress, kFlag, kStop };
  double t = 0.0;
  BoardId board = BoardId::kA;
  Kind kind = Kind::kPress;
  // On a press: who pressed, finishing their move. On a flag: whose time ran out.
  std::optional<Color> side;
  // Remaining times after the event, where the source knows them.
  std::optional<int> white_ms;
  std::optional<int> black_ms;
  // On a press read from the levers (`--clocks vision`): the opponent's clock was set from its
  // display since their last press, so the time that press carried was wrong and this one's
  // time for them is right.
  bool sets_opponents_clock = false;
};
std::string_view kind_name(ClockEvent::Kind kind);  // "start", "press", "flag", "stop"

// A clock log or a frame source could not be read; the message names the file and where.
class CaptureError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Reads a clock log (JSON Lines, SPEC.md section 4). Blank lines are skipped, unknown fields
// ignored; a malformed line throws CaptureError naming the file and line. Events are
// returned sorted by time (stable, so equal times keep file order).
std::vector<ClockEvent> read_clock_log(const std::filesystem::path& file);
// The same for text already in memory; `file_name` is used in error messages.
std::vector<ClockEvent> parse_clock_log(std::string_view text, const std::string& file_name);
// One event as one JSON line (no newline), in the log's format.
std::string to_json_line(const ClockEvent& event);

// ---------------------------------------------------------------------------
// Frame sources

struct Frame {
  int index = 0;   // 0-based, counted from the first frame of the source
  double t = 0.0;  // seconds on the source's timeline
  cv::Mat image;   // BGR, 8 bits per channel
};

class FrameSource {
 public:
  virtual ~FrameSource() = default;
  // The next frame, or nullopt at the end. Throws CaptureError when the source fails.
  virtual std::optional<Frame> next() = 0;
  // Frames per second as the source reports it (0 when unknown).
  virtual double fps() const = 0;
  // Skips forward so that the next frame is the first with t >= `t` (resuming a recording).
  virtual void seek(double t) = 0;
  // What was opened, for messages: the path or the camera name.
  virtual const std::string& name() const = 0;
};

// A video file (t = frame index / fps), a directory of numbered images (t = index / fps,
// `fps` default 30; files sorted by the number in their name), or a camera ("/dev/video0",
// "camera:0"; t = seconds since opening). Throws CaptureError when it cannot be opened.
std::unique_ptr<FrameSource> open_frame_source(const std::string& source, double image_fps = 30.0);

// Whether `source` names a camera rather than a file or directory.
bool is_camera(std::string_view source);

}  // namespace bugcam::capture
