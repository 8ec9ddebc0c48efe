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

// Plays `m` on board `b`; a captured piece goes to the partner (a promoted pawn as a
// pawn). Returns the type passed, or kNone.
inline rules::PieceType play_on_boards(std::array<rules::Position, 2>& boards, rules::BoardId b,
                                       rules::Move m, const rules::RuleSet& rules) {
  rules::Position& p = boards[static_cast<int>(b)];
  const rules::Color mover = p.side_to_move();
  rules::Square captured_square = rules::kNoSquare;
  if (m.kind() == rules::Move::Kind::kEnPassant) {
    captured_square = m.to() + (mover == rules::Color::kWhite ? -8 : 8);
  } else if (!m.is_drop() && m.kind() != rules::Move::Kind::kCastle) {
    captured_square = m.to();
  }
  rules::PieceType passed = rules::PieceType::kNone;
  if (captured_square != rules::kNoSquare) {
    const rules::Piece victim = p.piece_at(captured_square);
    if (!victim.empty() && victim.color != mover) {
      passed = p.is_promoted(captured_square) ? rules::PieceType::kPawn : victim.type;
    }
  }
  p.make(m, rules);
  if (passed != rules::PieceType::kNone) {
    boards[static_cast<int>(rules::other(b))].add_holding(!mover, passed);
  }
  return passed;
}

}  // namespace bugcam::tracker::detail
