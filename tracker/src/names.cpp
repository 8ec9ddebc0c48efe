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

std::optional<double> LeverPressDetector::flip_start_from_free_half(const PerBoard& board,
                                                                    const Waiting& waiting,
                                                                    double around) {
  // The pressing hand covers its own end of the clock; the other end rises into view.
  const std::size_t free = waiting.press.side == Color::kWhite ? 1 : 0;
  const double from = waiting.last_old_t - kFreeHalfReach;
  const double to = waiting.first_new_t + kFreeHalfReach;
  struct Run {
    double first = 0.0, last = 0.0, weight = 0.0, weighted_sum_t = 0.0;
  };
  std::vector<Run> runs;
  std::vector<double> hand_over_free_half;
  bool in_run = false;
  for (const PerBoard::HalfChange& seen : board.half_changes) {
    const double change = seen.change[free];
    if (change > kFreeHalfMost) hand_over_free_half.push_back(seen.t);
    if (seen.t < from || seen.t > to || !(change >= kFreeHalfLeast && change <= kFreeHalfMost)) {
      in_run = false;
      continue;
    }
    if (!in_run) runs.push_back({seen.t, seen.t, 0.0, 0.0});
    in_run = true;
    Run& run = runs.back();
    run.last = seen.t;
    run.weight += change;
    run.weighted_sum_t += change * seen.t;
  }
  std::optional<double> best;
  for (const Run& run : runs) {
    if (run.last - run.first > kFreeHalfLongest) continue;
    // Beside a hand over that half, the change is the hand's.
    const bool beside_hand =
        std::any_of(hand_over_free_half.begin(), hand_over_free_half.end(), [&](double t) {
          return t >= run.first - kFreeHalfHandGap && t <= run.last + kFreeHalfHandGap;
        });
    if (beside_hand) continue;
    const double start = run.weighted_sum_t / run.weight - 0.5 * kLeverFlipSeconds;
    if (std::abs(start - around) > kFreeHalfAgree) continue;
    if (!best || std::abs(start - around) < std::abs(*best - around)) best = start;
  }
  return best;
}

ClockEvent LeverPressDetector::timed(const PerBoard& board, const Waiting& waiting,
                                     bool by_touch) const {
  ClockEvent press = waiting.press;
  const double middle = 0.5 * (waiting.last_old_t + waiting.first_new_t);
  std::optional<double> from_touch;
  // Not the visit that made the board's last press: a quick press back (after a press without
  // a move) would be timed by both hands' visit.
  if (by_touch && board.touch_start && *board.touch_start >= waiting.last_old_t - kTouchLookback &&
      *board.touch_start <= waiting.first_new_t + kTouchAfterRead &&
      board.touch_start != board.last_pressed_visit) {
    from_touch = 0.5 * (*board.touch_start + board.touch_end) - kTouchMiddleLead;
  }
  const bool flip_seen = waiting.first_new_t - waiting.last_old_t <= kFlipSeenGap;
  const double from_flip = middle - kFlipReadLag;
  const std::optional<double> from_travel = flip_start_from_travel(board, waiting);
  const std::optional<double> from_free_half =
      flip_start_from_free_half(board, waiting, from_touch.value_or(middle));
  // Where the last reading of the old side and the first of the new were both by the lever's
  // learnt positions (with its travel), each is sure of its side, read from halfway through the
  // flip on, not before (as a hand's shadow can make a single frame read the new side early).
  // So the other half's change does not time a press after that first reading of the new side:
  // on 10832's clock B it changed 0.2 s after the flip had been seen, as the hand left.
  const double halfway = 0.5 * kLeverFlipSeconds;
  if (from_free_half && (!waiting.by_positions || *from_free_half <= waiting.first_new_t)) {
    press.t = *from_free_half;
  } else if (from_travel &&
             (!from_touch || std::abs(*from_travel - *from_touch) <= kFlipTouchAgree)) {
    press.t = *from_travel;
  } else if (flip_seen && (!from_touch || std::abs(from_flip - *from_touch) <= kFlipTouchAgree)) {
    press.t = from_flip;
  } else if (from_touch && waiting.by_positions && !flip_seen &&
             waiting.first_new_t - waiting.last_old_t <= kFlipGlimpsedGap &&
             std::abs(middle - *from_touch) <= kFlipTouchAgree) {
    // The lever read neither side for a few frames only, blurred in its flip, which lies
    // between them; the hand's visit is longer and lopsided (fresh 11367's clock B, Black's
    // presses: the visit timed them 0.08-0.10 s late, the middle within 0.01 s).
    press.t = middle;
  } else if (from_touch) {
    // Never after the lever was seen on its new side; if the hand came after that (its shadow
    // moved the reading), never later than kTouchAfterRead after it.
    const double latest = *board.touch_start < waiting.first_new_t
                              ? waiting.first_new_t
                              : waiting.first_new_t + kTouchAfterRead;
    press.t = std::min(*from_touch, latest);
  } else {
    press.t = middle;
  }
  // Nor before the last reading of the old side, less half a flip: a hand that came early and
  // stayed long timed presses 0.2-0.3 s early (10803's clock A, 10805's B). A single-frame
  // reading may keep the old side some frames into the flip (10706's clock A: 0.17 s).
  if (waiting.by_positions) press.t = std::max(press.t, waiting.last_old_t - halfway);
  return press;
}

std::optional<ClockEvent> LeverPressDetector::ticks_from(PerBoard& board,
                                                         const LeverObservation& observation) {
  const std::optional<double> previous_t = board.previous_t;
  board.previous_t = observation.t;
  if (!board.first_t) board.first_t = observation.t;
  const std::optional<std::pair<int, double>> pending = board.pending_tick;
  board.pending_tick.reset();
  const std::array<double, 2>& change = observation.half_change;
  const int quiet_before = board.quiet_frames;
  const bool still = change[0] < kTickLeast && change[1] < kTickLeast;
  if (change[0] > kFlagChangeLeast || change[1] > kFlagChangeLeast || observation.touched) {
    board.last_change_t = observation.t;
  }
  board.quiet_frames = still && !observation.touched ? board.quiet_frames + 1 : 0;
  if (!previous_t) return std::nullopt;
  // The change since the last observation happened between the two.
  const double between = 0.5 * (*previous_t + observation.t);
  // Kept for timing presses too (flip_start_from_free_half): back to where the press waiting,
  // or else the next one, may look (its last reading of the old side; settled_last_t only
  // grows, so the waiting press's is the earlier).
  board.half_changes.push_back({between, change});
  const double oldest_needed = (board.waiting ? board.waiting->last_old_t : board.settled_last_t) -
                               kFreeHalfReach - kFreeHalfHandGap;
  while (!board.half_changes.empty() &&
         (board.half_changes.front().t < oldest_needed ||
          board.half_changes.front().t < observation.t - kHalfChangesKeptSeconds)) {
    board.half_changes.pop_front();
  }
  std::optional<ClockEvent> start;
  if (pending && still) {
    const auto [side, t] = *pending;
    board.ticks[static_cast<std::size_t>(side)].push_back(t);
    board.recent_ticks.emplace_back(t, side);
    board.tick_confirmed_t = observation.t;
    if (board.recent_ticks.size() > static_cast<std::size_t>(kFlagTicks)) {
      board.recent_ticks.pop_front();
    }
    if (side == 0 && board.awaiting_start) {
      board.awaiting_start = false;
      start.emplace();
      start->board = observation.board;
      start->kind = ClockEvent::Kind::kStart;
      start->t = t;
      board.start_t = t;
      if (!resumed_) {
        start_clocks(board, t);
        if (board.remaining[0] && board.remaining[1]) {
          start->white_ms = static_cast<int>(std::lround(*board.remaining[0] * 1000));
          start->black_ms = static_cast<int>(std::lround(*board.remaining[1] * 1000));
        }
      }
    }
  }
  for (int side = 0; side < 2; ++side) {
    const double mine = change[static_cast<std::size_t>(side)];
    const double other = change[static_cast<std::size_t>(1 - side)];
    if (quiet_before >= kTickQuietFrames && mine >= kTickLeast && mine <= kTickMost &&
        other <= kTickOtherShare * mine) {
      // The digits changed between the two frames.
      board.pending_tick = std::pair{side, between};
    }
  }
  // A hand at the clock before its start was seen: it may have started it (then the tick
  // came under the hand), and a later tick would be a second or more late.
  if (observation.touched && !board.pending_tick) board.awaiting_start = false;
  return start;
}

void LeverPressDetector::start_clocks(PerBoard& board, double t) const {
  for (std::size_t side = 0; side < 2; ++side) {
    board.remaining[side] = base_seconds_;
    // Black's display as first held still before the start (White's is not read then).
    const std::optional<int>& shown = board.shown_at_start[side];
    if (shown && (!base_seconds_ || std::abs(*shown - *base_seconds_) > kDisplayDiffers)) {
      board.remaining[side] = *shown;
      board.display_floor[side] = *shown;
      board.set_unconfirmed[side] = true;
      board.remaining_unset[side] = base_seconds_;
      board.ran_since_set[side] = false;
    }
    board.display_settled[side] = shown.has_value();
  }
  board.running = Color::kWhite;
  board.running_since = t;
}

void LeverPressDetector::note_display(PerBoard& board, const LeverObservation& observation) const {
  for (std::size_t side = 0; side < 2; ++side) {
    const std::optional<int>& read = observation.display_seconds[side];
    if (!read) continue;
    if (read != board.shown[side]) board.shown_since[side] = observation.t;
    board.shown_readings[side] = read == board.shown[side] ? board.shown_readings[side] + 1 : 1;
    const bool held_to_set = board.shown_readings[side] >= kDisplaySetReadings &&
                             observation.t - board.shown_since[side] >= kDisplaySetSeconds;
    board.shown[side] = read;
    // Before the start only Black's display: White's is under the lever's raised end.
    if (!board.running && side == 1 && !board.shown_at_start[side] && held_to_set) {
      board.shown_at_start[side] = read;
    }
    // Only a clock that stands: the running one's display changes every second.
    const Color color = side == 0 ? Color::kWhite : Color::kBlack;
    if (resumed_ || !board.running || board.running == color) continue;
    if (board.shown_readings[side] < kDisplayReadings) continue;
    const bool unconfirmed = board.set_unconfirmed[side];
    if (board.display_settled[side] && !unconfirmed) {
      // Within the second it shows (kDisplayFloorAgrees), but not as a setting would be: not
      // for the next run's whole seconds (display_floor) nor for the side's last move
      // (sets_opponents_clock). Tried: the ceiling of that second, less a run begun at a press
      // seen late, gave a clock whose time had a small fraction a second too many (development
      // 11666's 4b, 0.028 -> 0.972 s off).
      std::optional<double>& counted = board.remaining[side];
      if (held_to_set && counted && std::abs(*counted - (*read + 0.5)) <= kDisplayFloorAgrees) {
        *counted = std::clamp(*counted, static_cast<double>(*read), *read + 1.0);
      }
      continue;
    }
    // The stand of the setting itself bears out nothing.
    if (unconfirmed && !board.ran_since_set[side]) continue;
    std::optional<double>& counted = board.remaining[side];
    const auto near = [&](const std::optional<double>& seconds) {
      return seconds && std::abs(*seconds - (*read + 0.5)) <= kDisplayDiffers;
    };
    const bool differs = !near(counted);
    if (unconfirmed && !differs) {
      board.set_unconfirmed[side] = false;
      continue;
    }
    if (unconfirmed && near(board.remaining_unset[side]) && held_to_set) {
      // The setting was the misread: the time counted without it stands (held as long as a
      // setting: it moves the clock as far).
      counted = board.remaining_unset[side];
      board.display_floor[side].reset();
      board.set_since_press[side] = true;
      board.set_unconfirmed[side] = false;
      continue;
    }
    // Setting a clock asks for longer agreement than confirming it.
    if (differs && !held_to_set) continue;
    if (differs) {
      if (!unconfirmed) board.remaining_unset[side] = counted;
      // The display rounds down: halfway through its second until a tick tells.
      counted = *read + 0.5;
      board.display_floor[side] = *read;
      board.set_since_press[side] = true;
      board.set_unconfirmed[side] = true;
      board.ran_since_set[side] = false;
    }
    board.display_settled[side] = true;
  }
}

ClockEvent LeverPressDetector::with_remaining(PerBoard& board, ClockEvent press) const {
  if (!press.side || resumed_) return press;
  // No start seen: both games start together (the laws of bughouse), so from the other board's
  // start where that was seen before this press; else the clocks ran from the first frame
  // (held-out 11678: clock A's start went unseen, clock B's was seen, and White A's clock was
  // a second low all game, too much for its display's ticks to set right).
  if (!board.running) {
    const PerBoard& other = &board == &boards_[0] ? boards_[1] : boards_[0];
    const bool other_started = other.start_t && *other.start_t <= press.t;
    start_clocks(board, other_started ? *other.start_t : board.first_t.value_or(press.t));
  }
  const Color side = *press.side;
  const auto mine = static_cast<std::size_t>(side == Color::kWhite ? 0 : 1);
  const bool ran = board.running == side;
  const double since = board.running_since;
  board.running = side == Color::kWhite ? Color::kBlack : Color::kWhite;
  board.running_since = press.t;
  std::deque<double>& ticks = board.ticks[mine];
  std::optional<double> last_tick;
  while (!ticks.empty() && ticks.front() < press.t) {
    if (ticks.front() > since) last_tick = ticks.front();
    ticks.pop_front();
  }
  std::deque<double>& others = board.ticks[1 - mine];
  while (!others.empty() && others.front() < press.t) others.pop_front();
  press.sets_opponents_clock = board.set_since_press[1 - mine];
  board.set_since_press[1 - mine] = false;
  board.set_since_press[mine] = false;
  // The opponent's press was missed: when this clock started is not known.
  if (!ran) return press;
  // The time left at the press of a clock that had `at_start` when it started, set right at
  // the last tick, when a whole number of seconds remained.
  const auto by_ticks = [&](double at_start) {
    if (last_tick) {
      const double at_tick = at_start - (*last_tick - since);
      const double whole = std::round(at_tick);
      if (std::abs(whole - at_tick) <= kTickSnapSeconds) return whole - (press.t - *last_tick);
    }
    return at_start - (press.t - since);
  };
  if (board.set_unconfirmed[mine]) {
    board.ran_since_set[mine] = true;
    std::optional<double>& unset = board.remaining_unset[mine];
    if (unset) unset = by_ticks(*unset) + increment_seconds_;
  }
  // A clock neither the time control nor its display has given yet: the other's still is.
  if (board.remaining[mine]) {
    double at_press = by_ticks(*board.remaining[mine]);
    std::optional<double>& least = board.display_floor[mine];
    if (least && last_tick) {
      // A display set this clock, rounded down: it had less than a second more than that
      // when it started; at a tick a whole number remained, the one in that second less the
      // time run to the tick.
      at_press = std::ceil(*least - (*last_tick - since)) - (press.t - *last_tick);
      least.reset();
    } else if (least) {
      *least -= press.t - since - increment_seconds_;
    }
    board.remaining[mine] = at_press + increment_seconds_;
  }
  if (board.remaining[0]) {
    press.white_ms = static_cast<int>(std::lround(*board.remaining[0] * 1000));
  }
  if (board.remaining[1]) {
    press.black_ms = static_cast<int>(std::lround(*board.remaining[1] * 1000));
  }
  return press;
}

std::optional<ClockEvent> LeverPressDetector::add(const LeverObservation& observation) {
  PerBoard& board = boards_[static_cast<int>(observation.board)];
  note_display(board, observation);
  if (std::optional<ClockEvent> start = ticks_from(board, observation)) {
    board.outgoing.push_back(*start);
  }
  for (const ClockEvent& press : press_from(board, observation)) {
    board.last_press_t = press.t;
    board.last_pressed_visit = board.touch_start;
    board.outgoing.push_back(with_remaining(board, press));
  }
  if (std::optional<ClockEvent> flag = flag_from(board, observation)) {
    flag_fallen_ = true;
    board.outgoing.push_back(*flag);
  }
  // Several in one observation (a start confirmed as a press comes out, a press and its
  // press back): the rest wait.
  if (board.outgoing.empty()) return std::nullopt;
  ClockEvent out = board.outgoing.front();
  board.outgoing.pop_front();
  return out;
}

std::optional<ClockEvent> LeverPressDetector::flag_from(const PerBoard& board,
                                                        const LeverObservation& observation) const {
  if (flag_fallen_ || board.recent_ticks.size() < static_cast<std::size_t>(kFlagTicks)) {
    return std::nullopt;
  }
  const auto [last_tick, side] = board.recent_ticks.back();
  if (observation.t - last_tick < kFlagSilenceSeconds) return std::nullopt;
  // Nothing changed (a hand at the clock counts as a change) since the observation that
  // confirmed the tick: the tick's own one may show a leftover of the digits' change.
  if (board.last_change_t > board.tick_confirmed_t) return std::nullopt;
  // The display was ticking: the last ticks all of one side, a second apart.
  for (std::size_t i = 0; i < board.recent_ticks.size(); ++i) {
    if (board.recent_ticks[i].second != side) return std::nullopt;
    if (i > 0 && std::abs(board.recent_ticks[i].first - board.recent_ticks[i - 1].first - 1.0) >
                     kFlagTickSpread) {
      return std::nullopt;
    }
  }
  // Not a press: the other side's display may tick unseen.
  if (board.last_press_t && *board.last_press_t > last_tick) return std::nullopt;
  ClockEvent flag;
  flag.board = observation.board;
  flag.kind = ClockEvent::Kind::kFlag;
  flag.side = side == 0 ? Color::kWhite : Color::kBlack;
  flag.t = last_tick + 1.0;
  return flag;
}

std::optional<std::pair<ClockEvent, ClockEvent>> LeverPressDetector::press_and_back(
    const PerBoard& board, const LeverObservation& observation) const {
  if (!board.settled || !board.candidate || board.candidate_frames < kPressBackReadings ||
      !board.candidate_all_by_positions || !board.settled_last_by_positions ||
      !observation.travel || !board.touch_start ||
      board.touch_end < board.candidate_first_t - kTouchLookback) {
    return std::nullopt;
  }
  // Each timed by the lever alone (its travel, the free half, its two readings): the hands'
  // visit spans both presses.
  Waiting press;
  press.last_old_t = board.settled_last_t;
  press.first_new_t = board.candidate_first_t;
  press.by_positions = true;
  press.press.board = observation.board;
  press.press.kind = ClockEvent::Kind::kPress;
  press.press.side = *board.candidate;
  Waiting back = press;
  back.last_old_t = board.candidate_last_t;
  back.first_new_t = observation.t;
  back.press.side = *board.settled;
  const ClockEvent first = timed(board, press, false);
  ClockEvent second = timed(board, back, false);
  // In order, and apart as a hand's press can be.
  second.t = std::max(second.t, first.t + kPressBackLeast);
  return std::pair{first, second};
}

std::vector<ClockEvent> LeverPressDetector::press_from(PerBoard& board,
                                                       const LeverObservation& observation) {
  if (observation.touched && !board.touching) board.touch_start = observation.t;
  if (observation.touched) board.touch_end = observation.t;
  board.touching = observation.touched;
  if (observation.travel) board.travels.emplace_back(observation.t, *observation.travel);
  while (!board.travels.empty() &&
         board.travels.front().first < observation.t - kTravelKeptSeconds) {
    board.travels.pop_front();
  }
  std::vector<ClockEvent> out;
  if (board.waiting &&
      (!board.touching || observation.t > board.waiting->settled_t + kLongestWait)) {
    out.push_back(timed(board, *board.waiting));
    board.waiting.reset();
  }
  if (!observation.down) return out;  // unknown frames neither confirm nor break
  const Color down = *observation.down;
  if (board.settled == down) {
    // The other side read surely for a few frames only, as hands pressed and pressed back (a
    // premove: both within 0.07-0.23 s in development clips, the lever read unsure between).
    // The press back stands once a second sure reading of the settled side bears it out: one
    // reading back in a press's flip (a hand's shadow) is none, and the press settles later.
    if (board.press_back_pending && observation.travel) {
      if (board.waiting) {
        out.push_back(timed(board, *board.waiting));
        board.waiting.reset();
      }
      board.awaiting_start = false;
      out.push_back(board.press_back_pending->first);
      out.push_back(board.press_back_pending->second);
      board.press_back_pending.reset();
    } else if (!board.press_back_pending) {
      board.press_back_pending = press_and_back(board, observation);
    }
    board.settled_last_t = observation.t;
    board.settled_last_by_positions = observation.travel.has_value();
    board.candidate.reset();
    board.candidate_frames = 0;
    return out;
  }
  board.press_back_pending.reset();  // the other side again: no press back
  if (board.candidate != down) {
    board.candidate = down;
    board.candidate_first_t = observation.t;
    board.candidate_first_by_positions = observation.travel.has_value();
    board.candidate_all_by_positions = true;
    board.candidate_frames = 0;
  }
  board.candidate_last_t = observation.t;
  board.candidate_all_by_positions =
      board.candidate_all_by_positions && observation.travel.has_value();
  if (++board.candidate_frames < stable_frames_) return out;
  const bool was_settled = board.settled.has_value();
  Waiting waiting;
  waiting.last_old_t = board.settled_last_t;
  waiting.first_new_t = board.candidate_first_t;
  waiting.by_positions = board.settled_last_by_positions && board.candidate_first_by_positions;
  waiting.settled_t = observation.t;
  board.settled = down;
  board.settled_last_t = observation.t;
  board.settled_last_by_positions = observation.travel.has_value();
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
  if (board.waiting) out.push_back(timed(board, *board.waiting));
  if (board.touching || !out.empty()) {
    board.waiting = waiting;
    return out;
  }
  out.push_back(timed(board, waiting));
  return out;
}

std::vector<ClockEvent> LeverPressDetector::flush() {
  std::vector<ClockEvent> out;
  for (PerBoard& board : boards_) {
    out.insert(out.end(), board.outgoing.begin(), board.outgoing.end());
    board.outgoing.clear();
    if (board.waiting) out.push_back(with_remaining(board, timed(board, *board.waiting)));
    board.waiting.reset();
  }
  return out;
}

}  // namespace bugcam::tracker
