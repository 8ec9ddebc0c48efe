#include <array>

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

std::optional<ClockEvent> LeverPressDetector::add(const LeverObservation& observation) {
  PerBoard& board = boards_[static_cast<int>(observation.board)];
  if (observation.touched && !board.touching) board.touch_start = observation.t;
  board.touching = observation.touched;
  if (!observation.down) return std::nullopt;  // unknown frames neither confirm nor break
  const Color down = *observation.down;
  if (board.settled == down) {
    board.settled_last_t = observation.t;
    board.candidate.reset();
    board.candidate_frames = 0;
    return std::nullopt;
  }
  if (board.candidate != down) {
    board.candidate = down;
    board.candidate_first_t = observation.t;
    board.candidate_frames = 0;
  }
  if (++board.candidate_frames < stable_frames_) return std::nullopt;
  const bool was_settled = board.settled.has_value();
  double press_t = board.candidate_first_t;
  if (was_settled) {
    press_t = 0.5 * (board.settled_last_t + board.candidate_first_t);
    // A hand over the lever may show the old side until it leaves: the press came about a
    // reach after the hand arrived, when that is earlier.
    if (board.touch_start && *board.touch_start >= board.settled_last_t - kTouchLookback &&
        *board.touch_start <= board.candidate_first_t) {
      press_t = std::min(press_t, *board.touch_start + reach_seconds_);
    }
  }
  board.settled = down;
  board.settled_last_t = observation.t;
  board.candidate.reset();
  board.candidate_frames = 0;
  // The first state seen is where the lever stood, not a press.
  if (!was_settled) return std::nullopt;
  ClockEvent press;
  press.t = press_t;
  press.board = observation.board;
  press.kind = ClockEvent::Kind::kPress;
  press.side = down;
  return press;
}

}  // namespace bugcam::tracker
