// Synthetic observations of a known game (see tracker_simulation.hpp).
#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>

#include "bugcam/tracker_simulation.hpp"
#include "bughouse.hpp"

namespace bugcam::tracker {
namespace {

using detail::seat_index;
using rules::Move;
using rules::PieceType;
using rules::Position;
using rules::Square;

int index(BoardId b) {
  return static_cast<int>(b);
}

using BoardState = std::array<std::uint8_t, 64>;  // 0 empty, 1 white, 2 black

BoardState state_of(const Position& p) {
  BoardState out{};
  for (int s = 0; s < 64; ++s) {
    const rules::Piece piece = p.piece_at(s);
    out[s] = piece.empty() ? 0 : (piece.color == Color::kWhite ? 1 : 2);
  }
  return out;
}

struct StateChange {
  double t;
  BoardState state;
};
struct Cover {
  double t0;
  double t1;
  std::uint64_t mask;
  std::vector<Seat> hands;
};
struct HoldingsChange {
  double t;
  int type;
  int delta;
};
struct Interval {
  double t0;
  double t1;
};

// A piece of `type` in a holding area that vision does not count from t0 until the player
// drops it (t1, infinite until then).
struct UncountedPiece {
  double t0;
  double t1;
  int type;
};

std::uint64_t bit(Square s) {
  return std::uint64_t{1} << s;
}

// The squares a hand covers making a move: both ends, the path between them, and the arm
// reaching in from the mover's edge of the board.
std::uint64_t hand_mask(const Position& before, Move m) {
  std::uint64_t mask = bit(m.to());
  const Color mover = before.side_to_move();
  if (!m.is_drop()) {
    mask |= bit(m.from());
    const int df = rules::file_of(m.to()) - rules::file_of(m.from());
    const int dr = rules::rank_of(m.to()) - rules::rank_of(m.from());
    if (df == 0 || dr == 0 || std::abs(df) == std::abs(dr)) {
      const int steps = std::max(std::abs(df), std::abs(dr));
      for (int i = 1; i < steps; ++i) {
        const int file = rules::file_of(m.from()) + (df > 0 ? i : df < 0 ? -i : 0);
        const int rank = rules::rank_of(m.from()) + (dr > 0 ? i : dr < 0 ? -i : 0);
        mask |= bit(rules::make_square(file, rank));
      }
    }
    if (m.kind() == Move::Kind::kCastle) {
      const int rank = rules::rank_of(m.from());
      mask |= bit(rules::make_square(rules::file_of(m.to()) == 6 ? 7 : 0, rank));
      mask |= bit(rules::make_square(rules::file_of(m.to()) == 6 ? 5 : 3, rank));
    }
    if (m.kind() == Move::Kind::kEnPassant) {
      mask |= bit(m.to() + (mover == Color::kWhite ? -8 : 8));
    }
  }
  const int step = mover == Color::kWhite ? -1 : 1;
  for (int i = 1; i <= 2; ++i) {
    const int rank = rules::rank_of(m.to()) + step * i;
    if (rank >= 0 && rank < 8) mask |= bit(rules::make_square(rules::file_of(m.to()), rank));
  }
  return mask;
}

// A move that breaks the rules: where the game drops a pawn, the pawn dropped on the nearest
// empty square of the first or last rank (as the renderer stages it: held-out 11454's P@c8
// for P@e6); else a piece of the side to move stepping to a nearby empty square it cannot
// legally reach, not leaving its own king in check.
std::optional<Move> illegal_move_for(const Position& p, Move played, const rules::RuleSet& rules) {
  const Color mover = p.side_to_move();
  if (played.is_drop() && played.piece() == PieceType::kPawn) {
    std::optional<Move> nearest;
    int nearest_distance = 99;
    for (int file = 0; file < 8; ++file) {
      for (const int rank : {0, 7}) {
        const Square to = rules::make_square(file, rank);
        const int distance = std::max(std::abs(file - rules::file_of(played.to())),
                                      std::abs(rank - rules::rank_of(played.to())));
        if (!p.piece_at(to).empty() || distance >= nearest_distance) continue;
        Position after = p;
        after.put(to, {mover, PieceType::kPawn});
        if (after.attacked_by(!mover, after.king_square(mover))) continue;
        nearest = Move::drop(PieceType::kPawn, to);
        nearest_distance = distance;
      }
    }
    // None where the drop blocks a check: a piece's move instead.
    if (nearest) return nearest;
  }
  const rules::MoveList legal = p.legal_moves(rules);
  for (int pass = 0; pass < 2; ++pass) {
    for (Square from = 0; from < 64; ++from) {
      const rules::Piece piece = p.piece_at(from);
      if (piece.empty() || piece.color != mover) continue;
      const bool preferred = piece.type != PieceType::kPawn && piece.type != PieceType::kKing;
      if (preferred != (pass == 0)) continue;
      for (Square to = 0; to < 64; ++to) {
        const int df = std::abs(rules::file_of(to) - rules::file_of(from));
        const int dr = std::abs(rules::rank_of(to) - rules::rank_of(from));
        if (std::max(df, dr) != 2 || std::min(df, dr) != 0 || !p.piece_at(to).empty()) continue;
        const Move m = Move::normal(from, to);
        if (legal.contains(m) || piece.type == PieceType::kRook ||
            piece.type == PieceType::kQueen) {
          continue;
        }
        Position after = p;
        after.remove(from);
        after.put(to, piece, p.is_promoted(from));
        if (after.attacked_by(!mover, after.king_square(mover))) continue;
        return m;
      }
    }
  }
  return std::nullopt;
}

class Noise {
 public:
  explicit Noise(std::uint64_t seed) : engine_(seed) {}
  double uniform() { return std::uniform_real_distribution<double>(0.0, 1.0)(engine_); }
  int below(int n) { return std::uniform_int_distribution<int>(0, n - 1)(engine_); }

 private:
  std::mt19937_64 engine_;
};

}  // namespace

std::optional<Move> king_step_into_check(const Position& p) {
  const Color mover = p.side_to_move();
  const Square king = p.king_square(mover);
  if (king == rules::kNoSquare) return std::nullopt;
  for (int df = -1; df <= 1; ++df) {
    for (int dr = -1; dr <= 1; ++dr) {
      const int file = rules::file_of(king) + df;
      const int rank = rules::rank_of(king) + dr;
      if ((df == 0 && dr == 0) || file < 0 || file > 7 || rank < 0 || rank > 7) continue;
      const Square to = rules::make_square(file, rank);
      if (!p.piece_at(to).empty()) continue;
      Position after = p;
      after.remove(king);
      after.put(to, {mover, PieceType::kKing});
      if (after.attacked_by(!mover, to)) return Move::normal(king, to);
    }
  }
  return std::nullopt;
}

Simulation simulate(const rules::BpgnGame& game, const SimulationOptions& options,
                    const std::function<void(const SimulatedInput&)>& sink,
                    const rules::RuleSet& rules) {
  const rules::Replay replayed = rules::replay(game, rules);
  if (replayed.plies.empty() && replayed.error) throw std::invalid_argument(replayed.error->what());
  Simulation sim;
  if (const auto tc = game.tag("TimeControl")) {
    if (const std::optional<rules::TimeControl> control = rules::parse_time_control(*tc)) {
      sim.base_seconds = control->base_seconds;
    }
  }

  // Press times from the clocks: on each board, the time both players have used so far.
  const std::size_t plies = options.max_plies >= 0
                                ? std::min<std::size_t>(options.max_plies, replayed.plies.size())
                                : replayed.plies.size();
  std::vector<double> press_t(plies);
  {
    std::array<std::array<double, 2>, 2> remaining{};
    for (auto& r : remaining) r = {sim.base_seconds.value_or(0.0), sim.base_seconds.value_or(0.0)};
    std::array<double, 2> last_same_board = {0.0, 0.0};
    std::array<int, 2> count = {0, 0};
    double last = 0.0;
    for (std::size_t i = 0; i < plies; ++i) {
      const rules::BpgnMove& record = game.moves[i];
      const int b = index(record.board);
      double t = 0.0;
      if (sim.base_seconds && record.clock) {
        remaining[b][static_cast<int>(record.color)] = *record.clock;
        t = 1.0 + 2.0 * *sim.base_seconds - remaining[b][0] - remaining[b][1];
      } else {
        t = 1.0 + 2.0 * ++count[b];
      }
      t = std::max({t, last + 0.05, last_same_board[b] + 0.6});
      press_t[i] = t;
      last = t;
      last_same_board[b] = t;
    }
  }
  // The injection of `type` at `ply`, if any.
  const auto injection = [&](IncidentType type, std::size_t ply) -> const Injection* {
    const auto found = std::find_if(
        options.injections.begin(), options.injections.end(),
        [&](const Injection& j) { return j.type == type && j.ply == static_cast<int>(ply); });
    return found == options.injections.end() ? nullptr : &*found;
  };
  const auto injected = [&](IncidentType type, std::size_t ply) {
    return injection(type, ply) != nullptr;
  };

  std::array<Position, 2> boards = {Position::start(), Position::start()};
  if (const auto fen = game.tag("FEN"); fen && !fen->empty()) {
    const rules::Bfen bfen = rules::parse_bfen(*fen);
    boards[0] = bfen.a.position;
    if (bfen.b) boards[1] = bfen.b->position;
  }
  std::array<std::vector<StateChange>, 2> changes;
  std::array<std::vector<Cover>, 2> covers;
  // When each shadowed square begins to read as a piece.
  std::vector<double> shadow_from;
  for (const ShadowedSquare& shadow : options.shadowed) {
    shadow_from.push_back(shadow.from_ply < 0 ? -std::numeric_limits<double>::infinity()
                                              : std::numeric_limits<double>::infinity());
  }
  std::array<std::vector<HoldingsChange>, 4> holdings;
  std::array<std::vector<Interval>, 4> holdings_covers;
  std::array<std::vector<Interval>, 4> holdings_hidden;
  std::array<std::vector<UncountedPiece>, 4> holdings_uncounted;
  std::vector<ClockEvent> clock_events;
  for (int b = 0; b < 2; ++b) changes[b].push_back({0.0, state_of(boards[b])});
  const auto counts_of = [&](Seat seat) {
    std::array<int, 5> c{};
    for (int t = 0; t < 5; ++t) {
      c[t] = boards[index(seat.board)].holding(seat.color, static_cast<PieceType>(t));
    }
    return c;
  };
  std::array<std::array<int, 5>, 4> initial_holdings{};
  for (int s = 0; s < 4; ++s) {
    initial_holdings[s] = counts_of(Seat{static_cast<BoardId>(s / 2), static_cast<Color>(s % 2)});
  }

  std::array<double, 2> previous_press = {0.0, 0.0};
  // Per board: the next move answers one whose clock was not pressed (Injection::pressed_late).
  std::array<bool, 2> answers_unpressed = {false, false};
  double shift = 0.0;
  Noise timing(options.seed ^ 0x5eedu);
  std::array<std::array<std::vector<double>, 5>, 4> arrivals;  // per seat and type
  std::array<double, 2> previous_change = {0.0, 0.0};
  bool diverged =
      false;  // after an injected illegal move or disturbance, the record may stop fitting
  for (std::size_t i = 0; i < plies; ++i) {
    const rules::BpgnMove& record = game.moves[i];
    const BoardId board = record.board;
    const int b = index(board);
    Position& p = boards[b];
    if (p.side_to_move() != record.color) break;
    Move move;
    try {
      move = rules::parse_san(p, record.san, rules);
    } catch (const rules::ParseError&) {
      if (diverged) break;
      throw std::invalid_argument("cannot replay " + record.san);
    }
    const Seat mover{board, record.color};
    // A drop waits for its piece to arrive; later presses keep their spacing.
    double t = std::max({press_t[i] + shift, previous_press[0] + 0.05, previous_press[1] + 0.05});
    if (move.is_drop()) {
      // The partner may grab a piece as it arrives or leave it lying a while.
      auto& waiting = arrivals[seat_index(mover)][static_cast<int>(move.piece())];
      if (!waiting.empty()) {
        t = std::max(t, waiting.front() + 0.3 + 1.7 * timing.uniform());
        waiting.erase(waiting.begin());
      }
    }
    if (injected(IncidentType::kPremove, i) && previous_press[b] > 0.0) {
      // The opponent finished their move but pressed only 1.2 s later; this player moves
      // in between. The opponent's press (already listed) is moved.
      for (auto it = clock_events.rbegin(); it != clock_events.rend(); ++it) {
        if (it->board != board || it->kind != ClockEvent::Kind::kPress) continue;
        const double delayed = it->t + 1.2;
        for (TrackedMove& m : sim.truth) {
          if (m.board == board && m.t == it->t) m.t = delayed;
        }
        it->t = delayed;
        previous_press[b] = delayed;
        break;
      }
      t = std::max(t, previous_press[b] + 0.3);
    }
    if (injected(IncidentType::kPressWithoutMove, i) && previous_press[b] > 0.0) {
      // The player presses without having moved and the opponent, whose clock now runs,
      // presses back (a press without a move too); then the player moves and presses.
      ClockEvent early;
      early.t = std::max(previous_press[b], previous_press[1 - b]) + 0.4;
      early.board = board;
      early.side = record.color;
      ClockEvent back = early;
      back.t = early.t + 0.5;
      back.side = !record.color;
      clock_events.push_back(early);
      clock_events.push_back(back);
      // Each arm on its way to the clock passes over its player's corner of the board, where
      // a move by the rook or a pawn there would read alike (nothing seen to change).
      for (const ClockEvent& press : {early, back}) {
        const int home = press.side == Color::kWhite ? 0 : 7;
        const int forward = press.side == Color::kWhite ? 1 : -1;
        std::uint64_t corner = 0;
        for (int file = 0; file < 4; ++file) corner |= bit(rules::make_square(file, home));
        for (int rank = 1; rank <= 2; ++rank) {
          corner |= bit(rules::make_square(0, home + forward * rank));
        }
        covers[b].push_back({press.t - 0.3, press.t + 0.05, corner, {Seat{board, *press.side}}});
      }
      sim.incidents.push_back({IncidentType::kPressWithoutMove, board, record.color, early.t});
      sim.incidents.push_back({IncidentType::kPressWithoutMove, board, !record.color, back.t});
      previous_press[b] = back.t;
      t = std::max(t, back.t + 0.8);
    }
    shift = t - press_t[i];
    const double gap = t - previous_press[b];
    const double duration = std::clamp(0.5 * gap, 0.25, 0.9);
    double hand0 = t - duration - 0.1;
    double hand1 = t - 0.1;
    double change_t = 0.5 * (hand0 + hand1);
    if (injected(IncidentType::kPremove, i) && previous_press[b] > 0.0) {
      // Placed while the opponent's press was still to come, the hand over the move's
      // squares from well before that press until just after it.
      change_t = std::max(previous_change[b] + 0.35, previous_press[b] - 0.15);
      hand0 = std::max(previous_change[b] + 0.3, previous_press[b] - 0.9);
      hand1 = previous_press[b] + 0.15;
      if (change_t < previous_press[b] && hand0 < previous_press[b] - 0.4) {
        sim.incidents.push_back({IncidentType::kPremove, board, record.color, change_t});
      }
    }
    change_t = std::max(change_t, previous_change[b] + 0.02);
    std::uint64_t mask = hand_mask(p, move);

    // A drop's piece leaves the mover's holding area as the hand reaches for it.
    const auto take_from_holdings = [&](PieceType type) {
      const int s = seat_index(mover);
      holdings_covers[s].push_back({hand0 - 0.3, hand0 + 0.1});
      holdings[s].push_back({hand0, static_cast<int>(type), -1});
      for (UncountedPiece& uncounted : holdings_uncounted[s]) {
        if (uncounted.type == static_cast<int>(type) && uncounted.t0 <= hand0 &&
            uncounted.t1 == std::numeric_limits<double>::infinity()) {
          uncounted.t1 = hand0;
          break;
        }
      }
    };
    bool illegal = false;
    if (const Injection* made = injection(IncidentType::kIllegalMove, i)) {
      if (const std::optional<Move> wrong =
              made->illegal ? made->illegal : illegal_move_for(p, move, rules)) {
        if (wrong->is_drop()) {
          p.add_holding(record.color, wrong->piece(), -1);
          p.put(wrong->to(), {record.color, wrong->piece()});
          mask = bit(wrong->to());
          take_from_holdings(wrong->piece());
        } else {
          const rules::Piece piece = p.piece_at(wrong->from());
          const bool promoted = p.is_promoted(wrong->from());
          p.remove(wrong->from());
          p.put(wrong->to(), piece, promoted);
          mask = bit(wrong->from()) | bit(wrong->to());
        }
        p.set_en_passant(rules::kNoSquare);
        p.set_move_counters(0, p.fullmove_number() + (record.color == Color::kBlack ? 1 : 0));
        p.set_side_to_move(!record.color);
        illegal = true;
        diverged = true;
        sim.incidents.push_back({IncidentType::kIllegalMove, board, record.color, t});
      }
    }
    PieceType passed = PieceType::kNone;
    TrackedMove truth;
    if (!illegal) {
      truth.board = board;
      truth.side = record.color;
      truth.number = p.fullmove_number();
      truth.ply = ply_label(board, record.color, truth.number);
      truth.san = rules::to_san(p, move, rules);
      truth.move = move;
      truth.t = t;
      if (move.is_drop()) take_from_holdings(move.piece());
      passed = detail::play_on_boards(boards, board, move, rules);
    }
    if (injected(IncidentType::kPositionDisturbed, i)) {
      // A hand knocks an untouched piece of the opponent to a neighbouring empty square.
      Position& q = boards[b];
      for (Square s = 0; s < 64 && !diverged; ++s) {
        const rules::Piece piece = q.piece_at(s);
        if (piece.empty() || piece.color == record.color || piece.type == PieceType::kKing ||
            (mask & bit(s))) {
          continue;
        }
        for (int d : {1, -1, 8, -8}) {
          const Square to = s + d;
          if (to < 0 || to >= 64 || std::abs(rules::file_of(to) - rules::file_of(s)) > 1) continue;
          if (!q.piece_at(to).empty() || (mask & bit(to))) continue;
          if (piece.type == PieceType::kPawn &&
              (rules::rank_of(to) == 0 || rules::rank_of(to) == 7))
            continue;
          Position trial = q;
          trial.remove(s);
          trial.put(to, piece, q.is_promoted(s));
          if (trial.attacked_by(!trial.side_to_move(), trial.king_square(trial.side_to_move()))) {
            continue;
          }
          q = trial;
          mask |= bit(s) | bit(to);
          diverged = true;
          sim.incidents.push_back({IncidentType::kPositionDisturbed, board, record.color, t});
          break;
        }
      }
    }
    changes[b].push_back({change_t, state_of(boards[b])});
    for (std::size_t j = 0; j < options.shadowed.size(); ++j) {
      const ShadowedSquare& shadow = options.shadowed[j];
      if (shadow.from_ply == static_cast<int>(i) && index(shadow.board) == b) {
        mask |= bit(shadow.square);
        shadow_from[j] = change_t;
      }
    }
    if (std::find(options.lingering_hands.begin(), options.lingering_hands.end(),
                  static_cast<int>(i)) != options.lingering_hands.end()) {
      hand1 = t + options.linger_seconds;
    }
    covers[b].push_back({hand0, hand1, mask, {mover}});
    previous_change[b] = change_t;

    if (passed != PieceType::kNone) {
      const Seat partner{rules::other(board), !record.color};
      double arrival = t + 0.6;
      if (injected(IncidentType::kCaptureNotPassed, i)) {
        // Passed only after the capturer's next move on the board.
        double next = t + 8.0;
        for (std::size_t j = i + 1; j < plies; ++j) {
          if (game.moves[j].board == board && game.moves[j].color == record.color) {
            next = press_t[j];
            break;
          }
        }
        arrival = next + 1.0;
        sim.incidents.push_back({IncidentType::kCaptureNotPassed, board, record.color, t});
        if (options.holdings_hand_flicker > 0.0) {
          const double reach = 0.5 * (t + arrival);
          holdings_covers[seat_index(partner)].push_back({reach - 0.2, reach + 0.2});
        }
      }
      if (std::find(options.holdings_uncounted_captures.begin(),
                    options.holdings_uncounted_captures.end(),
                    static_cast<int>(i)) != options.holdings_uncounted_captures.end()) {
        holdings_uncounted[seat_index(partner)].push_back(
            {arrival, std::numeric_limits<double>::infinity(), static_cast<int>(passed)});
        ++sim.holdings_uncounted;
      }
      if (injected(IncidentType::kHiddenPiece, i)) {
        // The partner's hand takes the piece from the area, and it is gone while it covers.
        holdings_covers[seat_index(partner)].push_back({t + 1.8, t + 2.0});
        // Longer than TrackerConfig::hidden_piece_seconds, as a player hides a piece.
        holdings_hidden[seat_index(partner)].push_back({t + 1.8, t + 14.0});
        sim.incidents.push_back(
            {IncidentType::kHiddenPiece, partner.board, partner.color, t + 2.0});
      }
      // The capturer's hand puts the piece down in the area.
      holdings_covers[seat_index(partner)].push_back({arrival - 0.3, arrival + 0.05});
      holdings[seat_index(partner)].push_back({arrival, static_cast<int>(passed), +1});
      arrivals[seat_index(partner)][static_cast<int>(passed)].push_back(arrival);
    }

    const Injection* unpressed = injection(IncidentType::kMoveWithoutPress, i);
    const bool pressed = unpressed == nullptr && !answers_unpressed[b];
    answers_unpressed[b] = unpressed != nullptr && unpressed->pressed_late;
    if (unpressed != nullptr) {
      sim.incidents.push_back({IncidentType::kMoveWithoutPress, board, record.color, t});
    }
    if (pressed) {
      ClockEvent press;
      press.t = t;
      press.board = board;
      press.side = record.color;
      clock_events.push_back(press);
    }
    if (injected(IncidentType::kFlagFall, i)) {
      ClockEvent flag;
      flag.t = t + 0.2;
      flag.board = board;
      flag.kind = ClockEvent::Kind::kFlag;
      flag.side = !record.color;
      clock_events.push_back(flag);
      sim.incidents.push_back({IncidentType::kFlagFall, board, !record.color, flag.t});
    }
    if (injected(IncidentType::kPartnerBoardTouched, i)) {
      const Seat partner{rules::other(board),
                         record.color == Color::kWhite ? Color::kBlack : Color::kWhite};
      covers[b].push_back(
          {t + 0.2, t + 0.2 + options.partner_touch_seconds, bit(0) | bit(1) | bit(8), {partner}});
      sim.incidents.push_back({IncidentType::kPartnerBoardTouched, board, partner.color, t + 0.2});
    }
    if (!illegal) sim.truth.push_back(truth);
    previous_press[b] = t;
    sim.duration = std::max(sim.duration, std::max(t, hand1) + 1.5);
  }
  for (auto& h : holdings) {
    std::stable_sort(h.begin(), h.end(), [](const auto& a, const auto& x) { return a.t < x.t; });
  }
  std::stable_sort(clock_events.begin(), clock_events.end(),
                   [](const ClockEvent& a, const ClockEvent& x) { return a.t < x.t; });

  // Emit everything in time order, frame by frame.
  Noise noise(options.seed);
  std::array<std::array<int, 64>, 2> misread_as{};  // -1 when reading right
  for (auto& board : misread_as) board.fill(-1);
  const double enter = options.misread / std::max(1.0, options.misread_spell_frames);
  const double leave = 1.0 / std::max(1.0, options.misread_spell_frames);
  std::size_t next_clock = 0;
  std::array<std::size_t, 2> change_index = {0, 0};
  double next_holdings_t = 0.0;
  int holdings_view = 0;  // views of the holding areas so far
  const int frames = static_cast<int>(std::ceil(sim.duration * options.fps));
  for (int frame = 0; frame <= frames; ++frame) {
    const double t = frame / options.fps;
    while (next_clock < clock_events.size() && clock_events[next_clock].t <= t) {
      sink(clock_events[next_clock++]);
    }
    if (options.holdings && t >= next_holdings_t) {
      next_holdings_t += 1.0 / options.holdings_hz;
      ++holdings_view;
      for (int s = 0; s < 4; ++s) {
        HoldingsObservation o;
        o.seat = Seat{static_cast<BoardId>(s / 2), static_cast<Color>(s % 2)};
        o.t = t;
        o.frame = frame;
        o.visible = initial_holdings[s];
        for (const HoldingsChange& c : holdings[s]) {
          if (c.t > t) break;
          o.visible[c.type] = std::max(0, o.visible[c.type] + c.delta);
        }
        bool flicker = false;
        for (const Interval& cover : holdings_covers[s]) {
          if (t >= cover.t0 && t <= cover.t1) o.occluded = true;
          flicker = flicker || (t >= cover.t0 - options.holdings_hand_flicker &&
                                t <= cover.t1 + options.holdings_hand_flicker);
        }
        const bool glimpse = options.holdings_hidden_glimpse_every > 0 &&
                             holdings_view % options.holdings_hidden_glimpse_every == 0;
        for (const Interval& hidden : holdings_hidden[s]) {
          if (t >= hidden.t0 && t <= hidden.t1 && !glimpse) {
            // The hidden piece is the last one that arrived.
            for (int type = 4; type >= 0; --type) {
              if (o.visible[type] > 0) {
                --o.visible[type];
                break;
              }
            }
          }
        }
        for (const UncountedPiece& uncounted : holdings_uncounted[s]) {
          int& count = o.visible[static_cast<std::size_t>(uncounted.type)];
          if (t >= uncounted.t0 && t < uncounted.t1 && count > 0) --count;
        }
        if (flicker && !o.occluded) {
          for (int& count : o.visible) ++count;
        }
        if (options.holdings_counted) {
          o.pieces = o.visible[0] + o.visible[1] + o.visible[2] + o.visible[3] + o.visible[4];
        }
        if (options.holdings_types_doubled &&
            std::any_of(o.visible.begin(), o.visible.end(), [](int n) { return n > 0; })) {
          for (int& count : o.visible) count = std::max(count, 1);
        }
        sink(o);
      }
    }
    for (int b = 0; b < 2; ++b) {
      while (change_index[b] + 1 < changes[b].size() && changes[b][change_index[b] + 1].t <= t) {
        ++change_index[b];
      }
      const BoardState& truth = changes[b][change_index[b]].state;
      BoardObservation o;
      o.board = static_cast<BoardId>(b);
      o.t = t;
      o.frame = frame;
      std::uint64_t covered = 0;
      for (const Cover& cover : covers[b]) {
        if (t >= cover.t0 && t <= cover.t1) {
          covered |= cover.mask;
          if (!options.attribute_hands) continue;
          for (const Seat& seat : cover.hands) {
            if (std::find(o.hands.begin(), o.hands.end(), seat) == o.hands.end()) {
              o.hands.push_back(seat);
            }
            if (options.own_arms_after && seat.board == o.board &&
                t >= cover.t0 + *options.own_arms_after &&
                std::find(o.own_arms.begin(), o.own_arms.end(), seat) == o.own_arms.end()) {
              o.own_arms.push_back(seat);
            }
          }
        }
      }
      for (int s = 0; s < 64; ++s) {
        SquareEvidence& e = o.squares[s];
        if (covered & bit(s)) {
          e.occluded = true;
          continue;
        }
        int& wrong = misread_as[b][s];
        if (wrong < 0 && noise.uniform() < enter) {
          wrong = (truth[s] + 1 + noise.below(2)) % 3;
        } else if (wrong >= 0 && noise.uniform() < leave) {
          wrong = -1;
        }
        int reading = wrong >= 0 ? wrong : truth[s];
        for (std::size_t j = 0; j < options.shadowed.size(); ++j) {
          const ShadowedSquare& shadow = options.shadowed[j];
          if (index(shadow.board) == b && shadow.square == s && truth[s] == 0 && wrong < 0 &&
              t >= shadow_from[j] &&
              (std::isinf(shadow.seconds) || t - shadow_from[j] < shadow.seconds)) {
            reading = shadow.reads_as == Color::kWhite ? 1 : 2;
          }
        }
        for (const BlindSquare& blind : options.blind) {
          if (index(blind.board) == b && blind.square == s && wrong < 0) reading = 0;
        }
        std::array<float, 3> p{};
        const double sure = 0.55 + 0.4 * noise.uniform();
        const double rest = (1.0 - sure) * noise.uniform();
        p[reading] = static_cast<float>(sure);
        p[(reading + 1) % 3] = static_cast<float>(rest);
        p[(reading + 2) % 3] = static_cast<float>(1.0 - sure - rest);
        e.empty = p[0];
        e.white = p[1];
        e.black = p[2];
      }
      sink(o);
    }
  }
  while (next_clock < clock_events.size()) sink(clock_events[next_clock++]);
  std::stable_sort(sim.incidents.begin(), sim.incidents.end(),
                   [](const ExpectedIncident& a, const ExpectedIncident& x) { return a.t < x.t; });
  return sim;
}

}  // namespace bugcam::tracker
