#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "bugcam/tracker.hpp"

namespace bugcam::tracker {
namespace {

constexpr std::array<std::string_view, 9> kIncidentNames = {
    "illegal_move", "hidden_piece",       "capture_not_passed",
    "premove",      "move_without_press", "press_without_move",
    "flag_fall",    "position_disturbed", "partner_board_touched"};

}  // namespace

std::string_view incident_name(IncidentType type) {
  return kIncidentNames[static_cast<std::size_t>(type)];
}

std::optional<IncidentType> incident_from_name(std::string_view name) {
  for (std::size_t i = 0; i < kIncidentNames.size(); ++i) {
    if (kIncidentNames[i] == name) return static_cast<IncidentType>(i);
  }
  return std::nullopt;
}

std::string ply_label(BoardId board, Color side, int number) {
  const char letter = rules::board_letter(board);
  return std::to_string(number) +
         (side == Color::kWhite ? letter : static_cast<char>(letter - 'A' + 'a'));
}

std::optional<double> LeverPressDetector::flip_start_from_travel(const PerBoard& board,
                                                                 const Waiting& waiting) {
  // Readings of both sides far apart: the lever was hidden (a hand over it) through its
  // flip, and a reading part way is the hand coming or going.
  if (waiting.first_new_t - waiting.last_old_t > kLeverFlipSeconds + kFlipSeenGap) {
    return std::nullopt;
  }
  const bool to_white = waiting.press.side == Color::kWhite;
  std::vector<double> starts;
  for (const auto& [t, travel] : board.travels) {
    if (t < waiting.last_old_t - kLeverFlipSeconds || t > waiting.first_new_t + kLeverFlipSeconds) {
      continue;
    }
    const double toward_new = to_white ? travel : 1.0 - travel;
    if (toward_new <= kPartWay || toward_new >= 1.0 - kPartWay) continue;
    const double start = t - kLeverFlipSeconds * toward_new;
    // A hand over the lever also shifts the reading: only starts the two sides' readings
    // allow count (each side is read from halfway through the flip).
    const double halfway = 0.5 * kLeverFlipSeconds;
    if (start < waiting.last_old_t - halfway - kTravelSlack ||
        start > waiting.first_new_t - halfway + kTravelSlack) {
      continue;
    }
    starts.push_back(start);
  }
  if (starts.empty()) return std::nullopt;
  std::sort(starts.begin(), starts.end());
  const std::size_t n = starts.size();
  return n % 2 == 1 ? starts[n / 2] : 0.5 * (starts[n / 2 - 1] + starts[n / 2]);
}

ClockEvent LeverPressDetector::timed(const PerBoard& board, const Waiting& waiting) const {
  ClockEvent press = waiting.press;
  const double middle = 0.5 * (waiting.last_old_t + waiting.first_new_t);
  std::optional<double> from_touch;
  if (board.touch_start && *board.touch_start >= waiting.last_old_t - kTouchLookback &&
      *board.touch_start <= waiting.first_new_t) {
    from_touch = 0.5 * (*board.touch_start + board.touch_end) - kTouchMiddleLead;
  }
  const bool flip_seen = waiting.first_new_t - waiting.last_old_t <= kFlipSeenGap;
  const double from_flip = middle - kFlipReadLag;
  const std::optional<double> from_travel = flip_start_from_travel(board, waiting);
  if (from_travel && (!from_touch || std::abs(*from_travel - *from_touch) <= kFlipTouchAgree)) {
    press.t = *from_travel;
  } else if (flip_seen && (!from_touch || std::abs(from_flip - *from_touch) <= kFlipTouchAgree)) {
    press.t = from_flip;
  } else if (from_touch) {
    // Never after the lever was seen on its new side.
    press.t = std::min(*from_touch, waiting.first_new_t);
  } else {
    press.t = middle;
  }
  return press;
}

std::optional<ClockEvent> LeverPressDetector::start_from_tick(PerBoard& board,
                                                              const LeverObservation& observation) {
  const std::optional<double> previous_t = board.previous_t;
  board.previous_t = observation.t;
  const std::optional<double> tick_t = board.tick_t;
  board.tick_t.reset();
  const double white = observation.half_change[0];
  const double black = observation.half_change[1];
  const int quiet_before = board.quiet_frames;
  const bool quiet = white < kTickLeast && black < kTickLeast && !observation.touched;
  board.quiet_frames = quiet ? board.quiet_frames + 1 : 0;
  if (!board.awaiting_start || !previous_t || board.waiting) return std::nullopt;
  if (tick_t && white < kTickLeast && black < kTickLeast) {
    board.awaiting_start = false;
    ClockEvent start;
    start.board = observation.board;
    start.kind = ClockEvent::Kind::kStart;
    start.t = *tick_t;
    return start;
  }
  if (quiet_before >= kTickQuietFrames && white >= kTickLeast && white <= kTickMost &&
      black <= kTickOtherShare * white) {
    // The digits changed between the two frames.
    board.tick_t = 0.5 * (*previous_t + observation.t);
  }
  return std::nullopt;
}

std::optional<ClockEvent> LeverPressDetector::add(const LeverObservation& observation) {
  PerBoard& board = boards_[static_cast<int>(observation.board)];
  const std::optional<ClockEvent> start = start_from_tick(board, observation);
  const std::optional<ClockEvent> press = press_from(board, observation);
  // A frame cannot show both: a lever's flip changes both halves more than a tick does.
  return start ? start : press;
}

std::optional<ClockEvent> LeverPressDetector::press_from(PerBoard& board,
                                                         const LeverObservation& observation) {
  if (observation.touched && !board.touching) board.touch_start = observation.t;
  if (observation.touched) board.touch_end = observation.t;
  board.touching = observation.touched;
  if (observation.travel) board.travels.emplace_back(observation.t, *observation.travel);
  while (!board.travels.empty() &&
         board.travels.front().first < observation.t - kTravelKeptSeconds) {
    board.travels.pop_front();
  }
  std::optional<ClockEvent> out;
  if (board.waiting &&
      (!board.touching || observation.t > board.waiting->settled_t + kLongestWait)) {
    out = timed(board, *board.waiting);
    board.waiting.reset();
  }
  if (!observation.down) return out;  // unknown frames neither confirm nor break
  const Color down = *observation.down;
  if (board.settled == down) {
    board.settled_last_t = observation.t;
    board.candidate.reset();
    board.candidate_frames = 0;
    return out;
  }
  if (board.candidate != down) {
    board.candidate = down;
    board.candidate_first_t = observation.t;
    board.candidate_frames = 0;
  }
  if (++board.candidate_frames < stable_frames_) return out;
  const bool was_settled = board.settled.has_value();
  Waiting waiting;
  waiting.last_old_t = board.settled_last_t;
  waiting.first_new_t = board.candidate_first_t;
  waiting.settled_t = observation.t;
  board.settled = down;
  board.settled_last_t = observation.t;
  board.candidate.reset();
  board.candidate_frames = 0;
  // The first state seen is where the lever stood, not a press.
  if (!was_settled) return out;
  // No hand came to the clock: the reading changed, not the lever (a display's digits
  // ticking beside a lever read by its halves' likeness).
  const bool hand_came = board.touching || (board.touch_start.has_value() &&
                                            board.touch_end >= waiting.last_old_t - kTouchLookback);
  if (!hand_came) return out;
  board.awaiting_start = false;
  waiting.press.board = observation.board;
  waiting.press.kind = ClockEvent::Kind::kPress;
  waiting.press.side = down;
  // One press waits at a time: an earlier one still waiting goes now.
  if (board.waiting) out = timed(board, *board.waiting);
  if (board.touching) {
    board.waiting = waiting;
    return out;
  }
  if (out) {
    board.waiting = waiting;
    return out;
  }
  return timed(board, waiting);
}

std::vector<ClockEvent> LeverPressDetector::flush() {
  std::vector<ClockEvent> out;
  for (PerBoard& board : boards_) {
    if (board.waiting) out.push_back(timed(board, *board.waiting));
    board.waiting.reset();
  }
  return out;
}

}  // namespace bugcam::tracker
