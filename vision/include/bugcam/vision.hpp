// Vision: what one camera frame shows, given the calibration. Per board and square, the
// probabilities of empty / white piece / black piece and whether something (a hand, an arm,
// a piece in flight) covers it; per holding area, the visible pieces; per clock, which
// lever is down. Knows nothing of chess rules.
#pragma once

#include <array>
#include <map>
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
  const calibration::Calibration& calibration() const { return calibration_; }

 private:
  calibration::Calibration calibration_;
  VisionOptions options_;
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
// its middle: seen from above, its raised end (the side not pressed) shows more of it. The
// lever is found as bright yellow-to-orange pixels; a lever of another colour (grey, red)
// or a clock out of view reads unknown.
ClockObservation read_clock(const cv::Mat& frame_bgr, const calibration::Clock& clock);

// The observation as the JSON object of SPEC section 7.
std::string to_json(const FrameObservation& observation);
// The same for a person.
std::string to_text(const FrameObservation& observation);
// The observation drawn over the frame.
cv::Mat draw_observation(const cv::Mat& frame_bgr, const FrameObservation& observation,
                         const calibration::Calibration& calibration);

}  // namespace bugcam::vision
