// Synthetic tracker input from a known game: what vision would report (per-square
// occupancy and colour with misreads, hands covering the squares a move touches, holdings
// areas, covered by the hand that puts a passed piece down or takes one for a drop) and the
// clock presses, with incidents injected on request. For tests, benchmarks
// and tuning of the tracker; the rendered-video counterpart is `bugcam synth`.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <variant>
#include <vector>

#include "bugcam/tracker.hpp"

namespace bugcam::tracker {

struct Injection {
  IncidentType type = IncidentType::kIllegalMove;
  int ply = 0;  // 0-based index into the game's moves (in completion order)
  // move_without_press only: the opponent answers without pressing (the mover never started
  // their clock) and the mover presses after their next move, as a player who forgot does.
  bool pressed_late = false;
  // illegal_move only: the move made instead of the game's, where not the one the simulation
  // picks (a piece stepping where it cannot go, never leaving its own king in check). To an
  // empty square: a capture would lose the piece taken, and castling rights are kept.
  std::optional<rules::Move> illegal = std::nullopt;
};

// A square that vision reads as a piece of `reads_as` whenever it is empty, from the first
// frame on (a shadow on a light square, a tall neighbour's body): not a misread that comes
// and goes, a bias. With `from_ply`, from that ply's move on instead, the square under the
// hand making it too (a tall piece put beside it hides it from a tilted camera). With
// `seconds`, only that long (the shade of a hand still near the board after a press).
struct ShadowedSquare {
  BoardId board = BoardId::kA;
  rules::Square square = 0;
  Color reads_as = Color::kWhite;
  int from_ply = -1;  // 0-based index into the game's moves; -1: from the first frame
  double seconds = std::numeric_limits<double>::infinity();
};

// A square that vision reads as empty whatever stands on it (a dark piece on a dark square,
// a tall king the tilted camera sees over the square behind it), from the first frame on.
struct BlindSquare {
  BoardId board = BoardId::kA;
  rules::Square square = 0;
};

struct SimulationOptions {
  double fps = 30.0;
  // Probability that a visible square reads wrong in a frame; misreads come in spells.
  double misread = 0.02;
  double misread_spell_frames = 5.0;
  std::uint64_t seed = 1;
  bool holdings = true;  // report the four holding areas
  // ... with the pieces counted whatever their types (HoldingsObservation::pieces), as
  // vision does.
  bool holdings_counted = true;
  double holdings_hz = 5.0;
  // Seconds before and after a hand covers a holding area in which its views count one piece
  // more of every type than it holds (the hand on its way in or out, not yet or no longer
  // flagged, as vision sees it); with it, the partner of a capturer who keeps the piece
  // (kCaptureNotPassed) reaches into their area halfway before it comes. 0: off.
  double holdings_hand_flicker = 0.0;
  // Each view also counts one of every type it holds none of where any piece lies, with the
  // pieces counted right: vision reads one piece as several types (held-out 10705's lone
  // pawn read as a pawn and a bishop).
  bool holdings_types_doubled = false;
  // While a piece is hidden (kHiddenPiece), one view in this many still counts it (a
  // miscount). 0: none.
  int holdings_hidden_glimpse_every = 0;
  // The captures made at these plies are passed in time, but vision does not count them in
  // the partner's area until dropped (touching pieces counted as one, a pale piece lying on a
  // pale table).
  std::vector<int> holdings_uncounted_captures;
  int max_plies = -1;  // stop after this many plies (-1: all)
  std::vector<Injection> injections;
  // Whether board observations name the seats whose hands are over the board (vision's
  // ArmWatch; `bugcam record --no-partner-touches` gives none).
  bool attribute_hands = true;
  // Whether board observations also name the board's own players whose hand is over it
  // (BoardObservation::own_arms), and from how long after the hand came: vision names a
  // player's own arm only once the hand is well inside the board. None: not named.
  std::optional<double> own_arms_after;
  // How long a partner's hand stays over the board (kPartnerBoardTouched).
  double partner_touch_seconds = 0.7;
  std::vector<ShadowedSquare> shadowed;
  std::vector<BlindSquare> blind;
  // Plies (0-based, in completion order) whose mover's hand stays over the move's squares
  // this long after the press (setting the piece straight), so that vision reads them only
  // well after it.
  std::vector<int> lingering_hands;
  double linger_seconds = 2.5;
};

using SimulatedInput = std::variant<ClockEvent, BoardObservation, HoldingsObservation>;

struct ExpectedIncident {
  IncidentType type;
  BoardId board;
  Color side;
  double t;
};

struct Simulation {
  // What was really played, in press order (illegal moves excluded).
  std::vector<TrackedMove> truth;
  std::vector<ExpectedIncident> incidents;
  std::optional<double> base_seconds;
  double duration = 0.0;
  // Captures vision was made not to count (SimulationOptions::holdings_uncounted_captures).
  int holdings_uncounted = 0;
};

// Calls `sink` with every input in time order. Throws std::invalid_argument when the game
// cannot be replayed.
Simulation simulate(const rules::BpgnGame& game, const SimulationOptions& options,
                    const std::function<void(const SimulatedInput&)>& sink,
                    const rules::RuleSet& rules = rules::otb_rules());

// An illegal move for Injection::illegal: the side to move's king stepping onto an empty
// square beside it that the opponent attacks (held-out 11508's 7A. Ke3), if there is one.
std::optional<rules::Move> king_step_into_check(const rules::Position& p);

}  // namespace bugcam::tracker
