// Vision: what one camera frame shows, given the calibration. Per board and square, the
// probabilities of empty / white piece / black piece and whether something (a hand, an arm,
// a piece in flight) covers it; per holding area, the visible pieces; per clock, which
// lever is down. Knows nothing of chess rules.
#pragma once

#include <array>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <opencv2/core.hpp>

#include "bugcam/calibration.hpp"

namespace bugcam::vision {

struct SquareObservation {
  float p_empty = 1.0f;
  float p_white = 0.0f;
  float p_black = 0.0f;
  bool occluded = false;

  // '.', 'w', 'b', or '?' when occluded or unsure (SPEC section 7).
  char symbol() const;
};

struct BoardObservation {
  std::string name;                           // "A" or "B"
  std::array<cv::Point2d, 4> corners{};       // a1, h1, h8, a8 in image pixels
  std::array<SquareObservation, 64> squares;  // rank * 8 + file, a1 = 0
  // Eight strings, rank 8 first, files a to h (SPEC section 7).
  std::array<std::string, 8> occupancy() const;
};

struct HoldingObservation {
  std::string player;  // "A:white" ...
  // Piece letter (P N B R Q) -> how many are visible; '?' counts pieces whose type is not
  // read (no type classifier yet).
  std::map<char, int> counts;
  int white_pieces = 0;  // visible pieces by colour, whatever their type
  int black_pieces = 0;
  float confidence = 0.0f;
};

enum class Lever { kWhite, kBlack, kUnknown };
const char* lever_name(Lever lever);  // "white", "black", "unknown"

struct ClockObservation {
  std::string board;
  Lever lever_down = Lever::kUnknown;  // whose side of the clock is pressed
  float confidence = 0.0f;
  // Something moves over the clock (a hand coming to press it): LeverReader only.
  bool touched = false;
};

struct FrameObservation {
  std::vector<BoardObservation> boards;
  std::vector<HoldingObservation> holdings;
  std::vector<ClockObservation> clocks;
};

struct VisionOptions {
  // Pixels per square of the top-down warp the squares are read from.
  int square_px = 32;
};

// Reads frames against one calibration. Holds only the calibration and buffers: the same
// frame always gives the same observation.
class FrameReader {
 public:
  explicit FrameReader(calibration::Calibration calibration, VisionOptions options = {});

  FrameObservation read(const cv::Mat& frame_bgr) const;
  // The same, also handing out each board's top-down warp (8 * square_px square, rank 8 at
  // the top), in the order of calibration().boards.
  FrameObservation read(const cv::Mat& frame_bgr, std::vector<cv::Mat>* warped_boards) const;
  const calibration::Calibration& calibration() const { return calibration_; }
  const VisionOptions& options() const { return options_; }

 private:
  calibration::Calibration calibration_;
  VisionOptions options_;
};

// --- Temporal evidence ------------------------------------------------------------------

struct TrackerOptions {
  // A square's appearance is compared at this many pixels per square (the warp is shrunk).
  int compare_px = 16;
  // Frames a new reading must hold, with nothing moving nearby, before it replaces the
  // confirmed one.
  int confirm_frames = 2;
  // Frames without motion nearby after which a covered square that stopped matching its
  // still view may be read again; override_frames when the single frame flags it covered
  // (a hand at rest, or a tall piece leaning over the square's corners).
  int release_frames = 2;
  // Frames a confident single-frame reading must disagree with the confirmed one, on a
  // square whose still view barely changed, before the confirmed one is replaced (a black
  // piece put on a dark square can look like a shadow to the still-view comparison).
  int override_frames = 12;
};

// Follows one board through a video. Each square keeps a reference "still view" and its
// last confirmed reading. A square is covered ('?') from the frame something new moves over
// it (differs from both the previous frame and its still view) until it matches its still
// view again or, nothing having moved nearby, the single-frame reading sees it clear. A
// square that stopped matching its still view with nothing over it changes its reading once
// the new reading has held for a few frames. Shadows (the still view darkened, hue kept)
// are not changes. Deterministic: the same frames in the same order give the same output.
class BoardTracker {
 public:
  explicit BoardTracker(TrackerOptions options = {});

  // warped_bgr: this frame's top-down warp of the board (as FrameReader hands out);
  // single_frame: this frame's per-square reading from its appearance alone. Returns the
  // squares as followed over time.
  std::array<SquareObservation, 64> update(const cv::Mat& warped_bgr,
                                           const std::array<SquareObservation, 64>& single_frame);
  // Forget everything (camera moved, new calibration).
  void reset();
  // The last confirmed reading of each square ('.', 'w', 'b', '?' before the first).
  const std::array<char, 64>& confirmed() const { return confirmed_; }

 private:
  TrackerOptions options_;
  cv::Mat previous_;   // last frame, CV_32FC3, compare_px per square
  cv::Mat reference_;  // still view, CV_32FC3
  std::array<char, 64> confirmed_{};
  std::array<bool, 64> covered_{};
  std::array<int, 64> still_frames_{};  // frames since something moved in the 3x3 around
  std::array<char, 64> candidate_{};
  std::array<int, 64> candidate_frames_{};
  bool started_ = false;
};

// Reads a video frame by frame against one calibration: FrameReader plus one BoardTracker
// per board; a clock lever that cannot be read (a hand over the clock) keeps its last
// reading. Feed frames in order; the state makes the output depend on the frames before.
class TrackingReader {
 public:
  explicit TrackingReader(calibration::Calibration calibration, VisionOptions options = {},
                          TrackerOptions tracker_options = {});

  FrameObservation read(const cv::Mat& frame_bgr);
  // Forget all frames read so far.
  void reset();
  const calibration::Calibration& calibration() const { return reader_.calibration(); }

 private:
  FrameReader reader_;
  std::vector<BoardTracker> trackers_;
  std::vector<Lever> last_levers_;
};

// Classifies the 64 squares of several boards seen in the same frame, from their
// appearance: the white/black split is learnt from the frame's own pieces.
struct SquareClassification {
  std::vector<std::array<SquareObservation, 64>> boards;
  float white_black_luma = 128.0f;  // the luma that splits white from black pieces
};
SquareClassification classify_squares(const std::vector<calibration::BoardAppearance>& boards);

// Counts the pieces lying in a holding area, by colour: blobs that differ from the table,
// split by the frame's white/black luma threshold.
HoldingObservation read_holding(const cv::Mat& frame_bgr, const calibration::HoldingArea& area,
                                double square_px_in_image, float white_black_luma);

// Which side of a clock is pressed down. The lever is a bar along the clock, tilted about
// its middle; beside the display only its raised end (the side not pressed) shows much of
// it. The two halves of the clock's area are mirrored onto each other across the middle:
// where they differ along a band of the clock's width, the half showing the rarer colour
// there (lever, not body, display or table) is the raised end. Any lever colour; a clock
// out of view, or halves alike, read unknown.
ClockObservation read_clock(const cv::Mat& frame_bgr, const calibration::Clock& clock);

// Reads the clock levers of a video frame by frame (`--clocks vision`): read_clock, except
// that a frame where something covers part of the clock (a hand pressing it or reaching
// past) reads unknown, since the covered lever end then looks lower than it is. Covered
// means: much of the clock's area differs from how it looked in the last uncovered frames.
// Feed frames in order.
class LeverReader {
 public:
  explicit LeverReader(calibration::Calibration calibration);
  ~LeverReader();
  LeverReader(LeverReader&&) noexcept;
  LeverReader& operator=(LeverReader&&) noexcept;
  // One observation per calibrated clock, in calibration order.
  std::vector<ClockObservation> read(const cv::Mat& frame_bgr);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The observation as the JSON object of SPEC section 7.
std::string to_json(const FrameObservation& observation);
// The same for a person.
std::string to_text(const FrameObservation& observation);
// The observation drawn over the frame.
cv::Mat draw_observation(const cv::Mat& frame_bgr, const FrameObservation& observation,
                         const calibration::Calibration& calibration);

}  // namespace bugcam::vision
