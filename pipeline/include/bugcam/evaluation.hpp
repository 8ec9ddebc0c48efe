// Scores a recording against the ground truth of a synthetic clip (`bugcam synth` writes
// truth.bpgn and truth.json beside the video): moves right, press-time and clock errors,
// incidents found and false. Used by `bugcam demo`, the evaluation bench and the tests; and
// the lattice and square misreads `bugcam eval-vision` measures vision by.
#pragma once

#include <array>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "bugcam/capture.hpp"

namespace bugcam::pipeline {

struct IncidentMatch {
  std::string type;
  std::string board;
  std::string ply;
  double t = 0.0;
};

struct Accuracy {
  int truth_moves = 0;     // plies in truth.bpgn
  int recorded_moves = 0;  // plies in game.bpgn
  // Per board, the recorded move sequence against the true one: the length of their
  // longest common subsequence of SAN, so that a missed or added move costs one move, not
  // every move after it. Compared: max(true, recorded) per board, summed.
  int moves_right = 0;
  int moves_compared = 0;
  bool exact = false;  // every move right, same count, same order across boards
  // Over moves right: |recorded %ts - true %ts| and |recorded clock - true clock| seconds.
  double press_error_mean = 0.0;
  double press_error_max = 0.0;
  double clock_error_max = 0.0;
  int clocks_missing = 0;  // right moves without a clock reading
  // Incidents: true ones found (same type and board, overlapping in time within a few
  // seconds) and recorded ones that match no true incident.
  int incidents_true = 0;
  int incidents_found = 0;
  std::vector<IncidentMatch> incidents_missed;
  std::vector<IncidentMatch> incidents_false;
  // The first wrong move on each board, for the report ("A 7: Nf3 for Ne5").
  std::vector<std::string> first_errors;

  double moves_right_fraction() const {
    return moves_compared == 0 ? 1.0 : static_cast<double>(moves_right) / moves_compared;
  }
};

// Compares recorded_dir (game.bpgn, incidents.json) with truth_dir (truth.bpgn,
// truth.json). Throws std::runtime_error naming the file that cannot be read.
Accuracy evaluate(const std::filesystem::path& recorded_dir,
                  const std::filesystem::path& truth_dir);

// A few lines for a person.
std::string to_text(const Accuracy& accuracy);

// The squares vision read wrong over a clip, by kind, and the runs of one misread: a piece
// seen for seconds on an empty square (a long shadow) outweighs a press's evidence, where a
// flicker does not. `bugcam eval-vision` reports them.
class SquareMisreads {
 public:
  // Readings: '.' empty, 'w' white, 'b' black; seen may also be '?' (unsure).
  struct Kinds {
    long phantom = 0;  // a piece seen on an empty square
    long missed = 0;   // a piece seen as empty
    long colour = 0;   // a piece seen as the other colour
    long unsure = 0;   // '?' on a square no hand covers
  };
  struct Run {
    std::string board;
    int square = 0;  // a1 = 0
    char seen = '.';
    char truth = '.';
    int first_frame = 0;
    int last_frame = 0;
    double from_seconds = 0.0;  // the run's first frame's time
    double seconds = 0.0;       // from the first frame of the run to the end of its last
  };

  explicit SquareMisreads(double fps);

  // One uncovered square's reading; frames come in increasing order. A run of one misread
  // ends at a reading of anything else on the square but '?', and goes on over '?' and over
  // frames not given (covered, or not scored): neither says what stands there.
  void add(int frame, const std::string& board, int square, char seen, char truth);

  const Kinds& kinds() const { return kinds_; }
  // Runs lasting at least `min_seconds`, the longest first (then by board, square, frame).
  std::vector<Run> runs_at_least(double min_seconds) const;

 private:
  double fps_;
  Kinds kinds_;
  std::vector<Run> ended_;
  std::vector<Run> open_;  // the runs still going on, at most one per board and square
};

// A position in a frame, in pixels.
struct ImagePoint {
  double x = 0.0;
  double y = 0.0;
};

// A synthetic clip's lens as its truth.json states it ("camera": fx, fy, cx, cy, and k1, k2
// of x_undistorted = x_distorted (1 + k1 r^2 + k2 r^4), normalised by fx, fy about cx, cy;
// without them, none).
struct TruthLens {
  double fx = 1.0;
  double fy = 1.0;
  double cx = 0.0;
  double cy = 0.0;
  double k1 = 0.0;
  double k2 = 0.0;

  ImagePoint undistort(ImagePoint pixel) const;
  ImagePoint distort(ImagePoint pixel) const;  // the inverse of undistort()
};

// A board's true 9x9 lattice (index rank_line * 9 + file_line, a1's corner first) from its
// four outer corners as the camera saw them (a1 h1 h8 a8). The board's plane maps to the
// undistorted image by a homography, so the lattice is interpolated there and distorted
// again: a homography of the seen corners themselves misplaces the inner points under a
// barrel lens (by 3-5 % of a square at k1 = -0.1).
std::array<ImagePoint, 81> true_lattice(const std::array<ImagePoint, 4>& corners,
                                        const TruthLens& lens);

// What a clock's two displays (White's, Black's) showed at `t` by a clock log: whole seconds,
// rounded down as the synthetic clips' displays write them; and how far the running clock then
// was from its next tick, in seconds (a reading that near may show either). Nullopt before the
// board's start.
struct ShownClocks {
  std::array<int, 2> seconds{};
  double to_tick = 1.0;
  int running = -1;  // the side whose clock runs (0 White, 1 Black); -1: neither
};
std::optional<ShownClocks> shown_clocks(const std::vector<capture::ClockEvent>& log,
                                        rules::BoardId board, double t);

}  // namespace bugcam::pipeline
