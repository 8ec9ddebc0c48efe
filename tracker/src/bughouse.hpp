// Playing a move on a pair of boards as a bughouse game does, without the end-of-game
// checks of rules::Game (a recorder must follow whatever happens on the table).
#pragma once

#include <array>

#include "bugcam/rules.hpp"
#include "bugcam/tracker.hpp"

namespace bugcam::tracker::detail {

// A seat as an index 0..3: board * 2 + colour.
inline int seat_index(Seat s) {
  return static_cast<int>(s.board) * 2 + static_cast<int>(s.color);
}

// The type that `m`, a move of the side to move in `p`, passes to the mover's partner by a
// capture (a promoted pawn as a pawn), or kNone.
inline rules::PieceType passed_by(const rules::Position& p, rules::Move m) {
  if (m.is_drop() || m.kind() == rules::Move::Kind::kCastle) return rules::PieceType::kNone;
  if (m.kind() == rules::Move::Kind::kEnPassant) return rules::PieceType::kPawn;
  const rules::Piece victim = p.piece_at(m.to());
  if (victim.empty() || victim.color == p.side_to_move()) return rules::PieceType::kNone;
  return p.is_promoted(m.to()) ? rules::PieceType::kPawn : victim.type;
}

// Plays `m` on board `b`; a captured piece goes to the partner (a promoted pawn as a
// pawn). Returns the type passed, or kNone.
inline rules::PieceType play_on_boards(std::array<rules::Position, 2>& boards, rules::BoardId b,
                                       rules::Move m, const rules::RuleSet& rules) {
  rules::Position& p = boards[static_cast<int>(b)];
  const rules::Color mover = p.side_to_move();
  const rules::PieceType passed = passed_by(p, m);
  p.make(m, rules);
  if (passed != rules::PieceType::kNone) {
    boards[static_cast<int>(rules::other(b))].add_holding(!mover, passed);
  }
  return passed;
}

}  // namespace bugcam::tracker::detail
