// Per-square evidence over time. A square's content can change only while a hand covers
// it, so each square's timeline is a list of runs: stretches of frames where the square was
// visible, each showing one content. A run also ends when the square's reading changes and
// stays changed without a hand having been seen (vision missed the hand).
#pragma once

#include <array>
#include <deque>
#include <optional>

#include "bugcam/tracker.hpp"

namespace bugcam::tracker::detail {

// Empty, white piece, black piece.
enum class SquareState : std::uint8_t { kEmpty = 0, kWhite = 1, kBlack = 2 };

struct Run {
  double start = 0.0;  // time of its first frame
  double end = 0.0;    // time of its last frame
  int first_frame = 0;
  int last_frame = 0;
  int frames = 0;
  std::array<double, 3> sum{};  // summed normalised probabilities per state
  SquareState mean_state() const;
};

// Log-likelihoods of the three states for one square (0 for all: no evidence).
using SquareLikelihood = std::array<double, 3>;
using BoardLikelihood = std::array<SquareLikelihood, 64>;

class BoardEvidence {
 public:
  void add(const BoardObservation& observation);
  double latest_t() const { return latest_t_; }
  int latest_frame() const { return latest_frame_; }
  bool seen() const { return seen_; }

  // The evidence for the position standing at time `t` (a press): per square the run that
  // covers `t`, else the first run starting after `t` and before `before`.
  BoardLikelihood likelihood_at(double t, double before) const;
  // The run used for square `s` at time `t` (as likelihood_at chooses), if any.
  const Run* run_at(int square, double t, double before) const;
  // When the square last took on `state`: the start of the earliest of the consecutive runs
  // that show `state`, going back from the run used at `t`.
  std::optional<double> since(int square, SquareState state, double t, double before) const;
  // When the hand of `seat` last left the board at or before `t` (the end of its last
  // stretch of frames over the board that started before `t`), if vision attributed one.
  std::optional<double> hand_left(Seat seat, double t) const;
  // Drops runs that ended before `t`, keeping each square's last run.
  void forget_before(double t);

 private:
  struct SquareTimeline {
    std::deque<Run> runs;
    bool open = false;  // the last run is still growing (square visible in the last frame)
    Run pending;        // consecutive frames that disagree with the open run
  };
  std::array<SquareTimeline, 64> squares_{};
  struct HandStretch {
    double start = 0.0;
    double end = 0.0;
  };
  std::array<std::deque<HandStretch>, 4> hands_{};  // per seat (board * 2 + colour)
  double previous_t_ = 0.0;
  double latest_t_ = 0.0;
  int latest_frame_ = 0;
  bool seen_ = false;
};

}  // namespace bugcam::tracker::detail
