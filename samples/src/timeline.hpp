// The footage's timeline: a game's plies turned into hand motions, piece moves and clock
// presses at known times, with incidents inserted on request. Evaluating it at a time gives
// the World to render and the truth of that moment.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "scene.hpp"

namespace bugcam::samples {

enum class IncidentType : std::uint8_t {
  kHiddenPiece,
  kCaptureNotPassed,
  kPremove,
  kIllegalMove,
  kMoveWithoutPress,
  kPressWithoutMove,
  kFlagFall,
  kPositionDisturbed,  // a knocked-over piece
  kPartnerBoardTouched,
};
const char* incident_name(IncidentType type);
std::optional<IncidentType> parse_incident_name(const std::string& name);

struct IncidentRequest {
  IncidentType type;
  int ply = 0;  // 0-based index into the plies
};

// One ply as the timeline needs it: which piece goes where, what it captures. Squares as
// rules squares (a1 = 0). Types as rules::PieceType values.
struct PlyInput {
  int board = 0;
  int color = 0;
  int from = -1;  // -1 for a drop
  int to = 0;
  int piece = 0;                     // type of the moving or dropped piece
  int captured = -1;                 // type of the captured piece, -1 none (a promoted pawn: pawn)
  int captured_square = -1;          // differs from `to` for en passant
  int rook_from = -1, rook_to = -1;  // castling
  double think = 2.0;                // seconds the player used in the source game
  std::string san;
  int illegal_to = -1;  // for an illegal-move incident: where the piece goes instead
};

struct TimedPly {
  int index = 0;       // into the plies
  double press = 0;    // clock press time (or the moment the move was complete)
  double release = 0;  // when the moved piece was let go on its square
  int clock_ms = 0;    // mover's remaining time after the move
  bool pressed = true;
};

struct ClockEvent {
  double t = 0;
  int board = 0;
  enum Kind : std::uint8_t { kStart, kPress, kFlag, kStop } kind = kPress;
  int side = 0;  // press: who pressed; flag: whose flag fell
  int white_ms = 0, black_ms = 0;
};

struct Incident {
  IncidentType type;
  int board = 0;
  int side = 0;
  double t = 0, t_end = 0;
  int ply = -1;
  std::string detail;
};

// A piece's state change at a moment.
struct PieceEvent {
  double t = 0;
  int uid = 0;
  enum Kind : std::uint8_t { kAttach, kPlace, kKnock, kHide } kind = kPlace;
  int hand = -1;
  PlacedPiece placement;  // for kPlace (and kKnock: the piece lying there)
};

struct HandKey {
  double t = 0;
  Vec3 pinch;
  float grip = 0;
};

struct TimelineOptions {
  double max_think = 1.2;   // long thinks are shortened to this (seconds beyond the motion)
  double min_think = 0.25;  // reaction time before the hand starts
  double lead_in = 1.0;     // seconds of still footage before the clocks start
  double tail = 1.5;        // after the last press
  int initial_ms = 180000;
  std::vector<IncidentRequest> incidents;
};

class Timeline {
 public:
  Timeline(const Style& style, const Layout& layout, const std::vector<PlyInput>& plies,
           const TimelineOptions& options);

  double duration() const { return end_; }
  // The world at time t, and how many piece events have happened by then (the static scene
  // changes only when that count does).
  World world_at(double t, int* piece_event_count = nullptr) const;
  const std::vector<TimedPly>& timed_plies() const { return timed_; }
  const std::vector<ClockEvent>& clock_events() const { return clock_events_; }
  const std::vector<Incident>& incidents() const { return incidents_; }
  const std::vector<PlyInput>& plies() const { return plies_; }
  int initial_ms(int player) const { return initial_ms_[static_cast<std::size_t>(player)]; }
  // Set when an incident ended the game (illegal move, flag): reason text and losing player.
  std::optional<std::pair<std::string, int>> ending() const { return ending_; }
  // Hand pose of a player at t (present false when out of the scene).
  HandPose hand_at(int player, double t) const;
  float grasp_offset(int type) const { return grasp_offset_[static_cast<std::size_t>(type)]; }

 private:
  struct Action {
    int player = 0;
    std::vector<HandKey> keys;
  };
  const Style& style_;
  const Layout& layout_;
  std::vector<PlyInput> plies_;
  World initial_;
  std::vector<Action> actions_;
  std::vector<PieceEvent> piece_events_;  // sorted by time once built
  std::vector<ClockEvent> clock_events_;
  std::vector<TimedPly> timed_;
  std::vector<Incident> incidents_;
  std::array<int, kPlayerCount> initial_ms_{};
  std::array<float, kPieceTypeCount> grasp_offset_{};
  std::optional<std::pair<std::string, int>> ending_;
  double end_ = 0;

  friend class TimelineBuilder;
};

}  // namespace bugcam::samples
