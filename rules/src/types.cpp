// Small value types of the public API: squares, pieces, moves, errors, rule sets.
#include <algorithm>

#include "bugcam/rules.hpp"

namespace bugcam::rules {

std::string square_name(Square s) {
  if (s < 0 || s > 63) return "-";
  return {static_cast<char>('a' + file_of(s)), static_cast<char>('1' + rank_of(s))};
}

std::optional<Square> parse_square(std::string_view text) {
  if (text.size() != 2) return std::nullopt;
  const char f = text[0];
  const char r = text[1];
  if (f < 'a' || f > 'h' || r < '1' || r > '8') return std::nullopt;
  return make_square(f - 'a', r - '1');
}

char piece_letter(PieceType t) {
  constexpr std::string_view kLetters = "PNBRQK?";
  return kLetters[static_cast<std::size_t>(t)];
}

std::optional<PieceType> piece_from_letter(char c) {
  switch (c) {
    case 'P':
    case 'p':
      return PieceType::kPawn;
    case 'N':
    case 'n':
      return PieceType::kKnight;
    case 'B':
    case 'b':
      return PieceType::kBishop;
    case 'R':
    case 'r':
      return PieceType::kRook;
    case 'Q':
    case 'q':
      return PieceType::kQueen;
    case 'K':
    case 'k':
      return PieceType::kKing;
    default:
      return std::nullopt;
  }
}

std::string Move::uci() const {
  if (is_null()) return "0000";
  if (is_drop()) return std::string(1, piece_letter(piece())) + "@" + square_name(to());
  std::string text = square_name(from()) + square_name(to());
  if (kind() == Kind::kPromotion) {
    text += static_cast<char>(piece_letter(piece()) - 'A' + 'a');
  }
  return text;
}

bool MoveList::contains(Move m) const {
  return std::find(begin(), end(), m) != end();
}

std::string SourceLocation::str() const {
  std::string text = file.empty() ? std::string("<input>") : file;
  if (line > 0) {
    text += ":" + std::to_string(line);
    if (column > 0) text += ":" + std::to_string(column);
  } else if (column > 0) {
    text += ": column " + std::to_string(column);
  }
  return text;
}

ParseError::ParseError(SourceLocation where, const std::string& what)
    : std::runtime_error(where.str() + ": " + what), where_(std::move(where)), message_(what) {}

char board_letter(BoardId b) {
  return b == BoardId::kA ? 'A' : 'B';
}

std::string GameResult::result_token() const {
  switch (winning_team) {
    case 1:
      return "1-0";
    case 2:
      return "0-1";
    default:
      return "1/2-1/2";
  }
}

namespace {

constexpr RuleSet make_otb() {
  RuleSet r;
  r.name = "otb";
  r.castle_with_dropped_rook = false;                      // 000 art. 5.8 (1) 3
  r.promotion_pieces = {false, true, false, false, true};  // 000 art. 5.7e: queen or knight
  r.mate = RuleSet::Mate::kNoParryByAnyDrop;               // 000 art. 1.5
  r.no_move_without_check = RuleSet::NoMoveWithoutCheck::kWait;
  r.repetition_count = 3;            // 000 art. 2.2b
  r.partner_may_answer_mate = true;  // 000 art. 1.9
  return r;
}

constexpr RuleSet make_online() {
  RuleSet r;
  r.name = "online";
  r.castle_with_dropped_rook = false;
  r.promotion_pieces = {false, true, true, true, true};
  r.mate = RuleSet::Mate::kNoLegalMove;
  r.no_move_without_check = RuleSet::NoMoveWithoutCheck::kDraw;
  r.repetition_count = 3;
  return r;
}

constexpr RuleSet kOtb = make_otb();
constexpr RuleSet kOnline = make_online();

}  // namespace

const RuleSet& otb_rules() {
  return kOtb;
}
const RuleSet& online_rules() {
  return kOnline;
}

const RuleSet* find_rule_set(std::string_view name) {
  if (name == kOtb.name) return &kOtb;
  if (name == kOnline.name) return &kOnline;
  return nullptr;
}

std::vector<std::string_view> rule_set_names() {
  return {kOtb.name, kOnline.name};
}

}  // namespace bugcam::rules
