#include "evidence.hpp"

#include <algorithm>
#include <cmath>

namespace bugcam::tracker::detail {
namespace {

// A reading this sure of a different state, this many frames in a row, starts a new run
// even without a hand.
constexpr double kChangeConfidence = 0.7;
constexpr int kChangeFrames = 10;
// Floor of a state's probability: one square's evidence can cost a hypothesis at most
// log(kFloor), so a single stubborn misread never outweighs the rules.
constexpr double kFloor = 0.01;
// A run counts as one independent reading per this many frames (misreads come in spells
// of a few frames, so frames within one are not independent), up to kMaxReadings: a
// disagreement that lasts the whole run is no misread, and must be able to outweigh the
// low prior of an illegal move or a disturbed position.
constexpr double kFramesPerReading = 5.0;
constexpr double kMaxReadings = 6.0;

std::array<double, 3> normalised(const SquareEvidence& e) {
  const double total = std::max(1e-9, double{e.empty} + e.white + e.black);
  return {e.empty / total, e.white / total, e.black / total};
}

void accumulate(Run& run, const BoardObservation& o, const std::array<double, 3>& p) {
  if (run.frames == 0) {
    run.start = o.t;
    run.first_frame = o.frame;
  }
  run.end = o.t;
  run.last_frame = o.frame;
  ++run.frames;
  for (int i = 0; i < 3; ++i) run.sum[i] += p[i];
}

int argmax(const std::array<double, 3>& p) {
  return static_cast<int>(std::max_element(p.begin(), p.end()) - p.begin());
}

}  // namespace

SquareState Run::mean_state() const {
  return static_cast<SquareState>(argmax(sum));
}

void BoardEvidence::add(const BoardObservation& observation) {
  for (const Seat& seat : observation.hands) {
    auto& stretches = hands_[static_cast<int>(seat.board) * 2 + static_cast<int>(seat.color)];
    // A stretch goes on while the hand is seen in consecutive frames.
    if (!stretches.empty() && stretches.back().end >= previous_t_ - 1e-9 && seen_) {
      stretches.back().end = observation.t;
    } else {
      stretches.push_back({observation.t, observation.t});
    }
  }
  previous_t_ = observation.t;
  seen_ = true;
  latest_t_ = observation.t;
  latest_frame_ = observation.frame;
  for (int s = 0; s < 64; ++s) {
    SquareTimeline& line = squares_[s];
    const SquareEvidence& e = observation.squares[s];
    if (e.occluded) {
      line.open = false;
      line.pending = Run{};
      continue;
    }
    const std::array<double, 3> p = normalised(e);
    if (!line.open) {
      line.runs.push_back(Run{});
      line.open = true;
      line.pending = Run{};
      accumulate(line.runs.back(), observation, p);
      continue;
    }
    Run& run = line.runs.back();
    const int reading = argmax(p);
    const bool differs =
        reading != static_cast<int>(run.mean_state()) && p[reading] >= kChangeConfidence;
    if (!differs) {
      // Frames held back as a possible change rejoin the run when the change does not last.
      if (line.pending.frames > 0) {
        for (int i = 0; i < 3; ++i) run.sum[i] += line.pending.sum[i];
        run.frames += line.pending.frames;
        line.pending = Run{};
      }
      accumulate(run, observation, p);
      continue;
    }
    if (line.pending.frames > 0 && argmax(line.pending.sum) != reading) line.pending = Run{};
    accumulate(line.pending, observation, p);
    if (line.pending.frames >= kChangeFrames) {
      line.runs.push_back(line.pending);
      line.pending = Run{};
    }
  }
}

const Run* BoardEvidence::run_at(int square, double t, double before) const {
  const std::deque<Run>& runs = squares_[square].runs;
  // Half a frame of slack: a press falls between frames.
  constexpr double kSlack = 0.02;
  for (auto it = runs.rbegin(); it != runs.rend(); ++it) {
    if (it->start <= t + kSlack && it->end >= t - kSlack) return &*it;
    if (it->end < t - kSlack) break;
  }
  for (const Run& run : runs) {
    if (run.start > t && run.start < before) return &run;
  }
  return nullptr;
}

BoardLikelihood BoardEvidence::likelihood_at(double t, double before) const {
  BoardLikelihood out{};
  for (int s = 0; s < 64; ++s) {
    const Run* run = run_at(s, t, before);
    if (run == nullptr || run->frames == 0) continue;
    const double weight = std::min(kMaxReadings, run->frames / kFramesPerReading);
    for (int i = 0; i < 3; ++i) {
      const double mean = run->sum[i] / run->frames;
      out[s][i] = weight * std::log(kFloor + (1.0 - 3.0 * kFloor) * mean);
    }
  }
  return out;
}

std::optional<double> BoardEvidence::since(int square, SquareState state, double t,
                                           double before) const {
  const Run* used = run_at(square, t, before);
  if (used == nullptr || used->mean_state() != state) return std::nullopt;
  const std::deque<Run>& runs = squares_[square].runs;
  auto it = std::find_if(runs.begin(), runs.end(), [&](const Run& r) { return &r == used; });
  // Back across runs split without a hand (contiguous in time), not across a hand: a
  // misread just before the hand came must not count as the piece being there.
  constexpr double kContiguous = 0.1;
  double start = it->start;
  while (it != runs.begin()) {
    const double this_start = it->start;
    --it;
    if (it->mean_state() != state || it->end < this_start - kContiguous) break;
    start = it->start;
  }
  return start;
}

std::optional<double> BoardEvidence::hand_left(Seat seat, double t) const {
  const auto& stretches = hands_[static_cast<int>(seat.board) * 2 + static_cast<int>(seat.color)];
  for (auto it = stretches.rbegin(); it != stretches.rend(); ++it) {
    if (it->start <= t) return std::min(it->end, t);
  }
  return std::nullopt;
}

void BoardEvidence::forget_before(double t) {
  for (auto& stretches : hands_) {
    while (stretches.size() > 1 && stretches.front().end < t) stretches.pop_front();
  }
  for (SquareTimeline& line : squares_) {
    while (line.runs.size() > 1 && line.runs.front().end < t) line.runs.pop_front();
  }
}

}  // namespace bugcam::tracker::detail
