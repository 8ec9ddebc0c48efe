// The two-board bughouse game: captured pieces pass to the partner; the game ends on
// either board.
#include <algorithm>
#include <stdexcept>

#include "bugcam/rules.hpp"

namespace bugcam::rules {

namespace {
constexpr int index_of(BoardId b) {
  return static_cast<int>(b);
}
constexpr int index_of(Color c) {
  return static_cast<int>(c);
}
}  // namespace

Game::Game(const RuleSet& rules) : Game(rules, Position::start(), Position::start()) {}

Game::Game(const RuleSet& rules, Position a, Position b)
    : rules_(&rules), boards_{std::move(a), std::move(b)} {
  for (auto& per_board : last_capture_) per_board.fill(PieceType::kNone);
  for (int i = 0; i < 2; ++i) history_[i].push_back(boards_[i].key());
}

void Game::play(BoardId b, Move m) {
  const bool answering_mate = pending_mate_ && b == other(*pending_mate_);
  if (result_ && !answering_mate) throw std::invalid_argument("the game is over");
  if (answering_mate && !(m.is_drop() && m.piece() == pending_drop_)) {
    throw std::invalid_argument("the game is over (only the captured piece may still be dropped)");
  }
  Position& pos = boards_[index_of(b)];
  if (!pos.is_legal(m, *rules_)) throw std::invalid_argument("illegal move " + m.uci());
  const Color mover = pos.side_to_move();
  const Position::Undo undo = pos.make(m, *rules_);
  PieceType passed = PieceType::kNone;
  if (!undo.captured.empty()) {
    // The captured piece goes to the mover's partner, who plays the captured piece's colour
    // on the other board; a promoted pawn goes back as a pawn.
    passed = undo.captured_promoted ? PieceType::kPawn : undo.captured.type;
    boards_[index_of(other(b))].add_holding(undo.captured.color, passed);
  }
  last_capture_[index_of(b)][index_of(mover)] = passed;
  history_[index_of(b)].push_back(pos.key());
  after_move(b);
}

void Game::after_move(BoardId b) {
  const Position& pos = board(b);
  const BoardStatus status = board_status(pos, *rules_);
  if (pending_mate_ && b == other(*pending_mate_)) {
    // The partner's answer to a mate (art. 1.9): mate on both boards is a draw (art. 1.10).
    if (status == BoardStatus::kCheckmate) {
      result_ = GameResult{0, b, EndReason::kCheckmate, std::nullopt};
    }
    pending_mate_.reset();
    return;
  }
  if (status == BoardStatus::kCheckmate) {
    const Color mated = pos.side_to_move();
    result_ = GameResult{team_of(b, !mated), b, EndReason::kCheckmate, mated};
    const PieceType captured = last_capture_[index_of(b)][index_of(mated)];
    // The mated player's partner plays !mated on the other board.
    if (rules_->partner_may_answer_mate && captured != PieceType::kNone &&
        board(other(b)).side_to_move() == !mated) {
      pending_mate_ = b;
      pending_drop_ = captured;
    }
  } else if (status == BoardStatus::kStalemate) {
    result_ = GameResult{0, b, EndReason::kStalemate, std::nullopt};
  }
}

void Game::end(BoardId b, EndReason reason, std::optional<Color> loser) {
  pending_mate_.reset();
  // The game ends at the first end on either board (art. 1.3); later ends do not change it.
  if (result_) return;
  const int winner = loser ? team_of(b, !*loser) : 0;
  result_ = GameResult{winner, b, reason, loser};
}

int Game::repetitions(BoardId b) const {
  const auto& history = history_[index_of(b)];
  return static_cast<int>(std::count(history.begin(), history.end(), history.back()));
}

}  // namespace bugcam::rules
