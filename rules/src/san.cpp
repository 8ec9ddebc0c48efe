// SAN with drops. Reading is lenient about what people and servers write (n@f3, @e4, $146@g4,
// e8Q, 0-0, a missing or redundant 'x', +/#/!/? marks) but strict about what the move is:
// the text must match exactly one legal move. Writing follows FIDE with N@f3 and e8=Q.
#include <algorithm>
#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "bugcam/rules.hpp"

namespace bugcam::rules {

namespace {

std::string_view color_word(Color c) {
  return c == Color::kWhite ? "white" : "black";
}
std::string_view side_word(Color c) {
  return c == Color::kWhite ? "White" : "Black";
}

std::string_view piece_word(PieceType t) {
  switch (t) {
    case PieceType::kPawn:
      return "pawn";
    case PieceType::kKnight:
      return "knight";
    case PieceType::kBishop:
      return "bishop";
    case PieceType::kRook:
      return "rook";
    case PieceType::kQueen:
      return "queen";
    case PieceType::kKing:
      return "king";
    case PieceType::kNone:
      break;
  }
  return "piece";
}

bool is_file_char(char c) {
  return c >= 'a' && c <= 'h';
}
bool is_rank_char(char c) {
  return c >= '1' && c <= '8';
}
bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

// What the text says about the move, before looking at the position.
struct SanPattern {
  enum class Kind { kCastleShort, kCastleLong, kDrop, kMove };
  Kind kind = Kind::kMove;
  PieceType piece = PieceType::kPawn;
  int from_file = -1;
  int from_rank = -1;
  Square to = kNoSquare;
  PieceType promotion = PieceType::kNone;
};

class SanReader {
 public:
  explicit SanReader(std::string_view text) : text_(text) {}

  // The move text without surrounding space and trailing marks, for messages.
  std::string_view written() const { return text_.substr(begin_, written_end_ - begin_); }

  SanPattern read() {
    while (begin_ < text_.size() && is_space(text_[begin_])) ++begin_;
    end_ = text_.size();
    while (end_ > begin_ && is_space(text_[end_ - 1])) --end_;
    written_end_ = end_;
    if (begin_ == end_) fail(begin_, "expected a move, found nothing");
    strip_marks();
    if (begin_ == end_) fail(begin_, "expected a move before '" + std::string(written()) + "'");
    const std::string_view body = text_.substr(begin_, end_ - begin_);

    if (const std::optional<SanPattern> castle = read_castle(body)) return *castle;
    if (const std::size_t at = body.find('@'); at != std::string_view::npos) {
      return read_drop(body, at);
    }
    return read_move(body);
  }

  [[noreturn]] void fail(std::size_t offset, const std::string& what) const {
    throw ParseError(SourceLocation{{}, 0, static_cast<int>(offset) + 1}, what);
  }

 private:
  // "+", "#", "!", "?" in any mix, and an "e.p." suffix.
  void strip_marks() {
    while (true) {
      const std::size_t before = end_;
      while (end_ > begin_ &&
             std::string_view("+#!?").find(text_[end_ - 1]) != std::string_view::npos) {
        --end_;
      }
      const std::string_view body = text_.substr(begin_, end_ - begin_);
      if (body.size() > 4 && body.substr(body.size() - 4) == "e.p.") {
        end_ -= 4;
        while (end_ > begin_ && is_space(text_[end_ - 1])) --end_;
      }
      if (end_ == before) return;
    }
  }

  static std::optional<SanPattern> read_castle(std::string_view body) {
    std::string normal(body);
    for (char& c : normal) {
      if (c == '0' || c == 'o') c = 'O';
    }
    SanPattern pattern;
    if (normal == "O-O") {
      pattern.kind = SanPattern::Kind::kCastleShort;
    } else if (normal == "O-O-O") {
      pattern.kind = SanPattern::Kind::kCastleLong;
    } else {
      return std::nullopt;
    }
    pattern.piece = PieceType::kKing;
    return pattern;
  }

  SanPattern read_drop(std::string_view body, std::size_t at) {
    SanPattern pattern;
    pattern.kind = SanPattern::Kind::kDrop;
    const std::string_view piece = body.substr(0, at);
    if (piece.empty()) {
      pattern.piece = PieceType::kPawn;  // "@e4"
    } else if (piece == "$146") {
      pattern.piece = PieceType::kKnight;  // chess.com writes N as NAG 146 ("novelty")
    } else if (piece.size() == 1 && piece_from_letter(piece[0])) {
      pattern.piece = *piece_from_letter(piece[0]);
      if (pattern.piece == PieceType::kKing) fail(begin_, "a king cannot be dropped");
    } else {
      fail(begin_, "expected a piece letter (P, N, B, R, Q) before '@', found '" +
                       std::string(piece) + "'");
    }
    const std::string_view square = body.substr(at + 1);
    const std::optional<Square> to = square.size() == 2 ? parse_square(square) : std::nullopt;
    if (!to) {
      fail(begin_ + at + 1, "expected a square after '@', found '" + std::string(square) + "'");
    }
    pattern.to = *to;
    return pattern;
  }

  SanPattern read_move(std::string_view body) {
    SanPattern pattern;
    std::size_t first = 0;
    std::size_t last = body.size();
    if (std::string_view("PNBRQK").find(body[0]) != std::string_view::npos) {
      pattern.piece = *piece_from_letter(body[0]);
      first = 1;
    }
    // Promotion piece at the end: e8=Q, e8Q, e8=q, e8(Q).
    if (last >= first + 3 && body[last - 1] == ')' && body[last - 3] == '(') {
      if (const auto t = promotion_letter(body[last - 2])) {
        pattern.promotion = *t;
        last -= 3;
      }
    } else if (last >= first + 2 &&
               (is_rank_char(body[last - 2]) || body[last - 2] == '=' || body[last - 2] == '/')) {
      if (const auto t = promotion_letter(body[last - 1])) {
        pattern.promotion = *t;
        --last;
        if (body[last - 1] == '=' || body[last - 1] == '/') --last;
      }
    }
    if (last < first + 2 || !is_file_char(body[last - 2]) || !is_rank_char(body[last - 1])) {
      fail(begin_ + (last > first + 2 ? last - 2 : first),
           "expected a destination square in '" + std::string(written()) + "'");
    }
    pattern.to = make_square(body[last - 2] - 'a', body[last - 1] - '1');
    last -= 2;
    // The capture mark is optional and, when present, not trusted: the position decides.
    if (last > first && (body[last - 1] == 'x' || body[last - 1] == ':' || body[last - 1] == '-')) {
      --last;
    }
    const std::string_view from = body.substr(first, last - first);
    std::size_t i = 0;
    if (i < from.size() && is_file_char(from[i])) pattern.from_file = from[i++] - 'a';
    if (i < from.size() && is_rank_char(from[i])) pattern.from_rank = from[i++] - '1';
    if (i != from.size()) {
      fail(begin_ + first + i,
           "unexpected '" + std::string(from.substr(i)) + "' in '" + std::string(written()) + "'");
    }
    if (pattern.promotion != PieceType::kNone && pattern.piece != PieceType::kPawn) {
      fail(begin_, "only a pawn can promote, in '" + std::string(written()) + "'");
    }
    return pattern;
  }

  static std::optional<PieceType> promotion_letter(char c) {
    const std::optional<PieceType> t = piece_from_letter(c);
    if (t && *t != PieceType::kPawn && *t != PieceType::kKing) return t;
    return std::nullopt;
  }

  std::string_view text_;
  std::size_t begin_ = 0;
  std::size_t end_ = 0;
  std::size_t written_end_ = 0;
};

bool matches(const Position& pos, Move m, const SanPattern& pattern) {
  switch (pattern.kind) {
    case SanPattern::Kind::kCastleShort:
      return m.kind() == Move::Kind::kCastle && file_of(m.to()) > file_of(m.from());
    case SanPattern::Kind::kCastleLong:
      return m.kind() == Move::Kind::kCastle && file_of(m.to()) < file_of(m.from());
    case SanPattern::Kind::kDrop:
      return m.is_drop() && m.piece() == pattern.piece && m.to() == pattern.to;
    case SanPattern::Kind::kMove:
      break;
  }
  if (m.is_drop() || m.to() != pattern.to) return false;
  if (pos.piece_at(m.from()).type != pattern.piece) return false;
  if (pattern.from_file >= 0 && file_of(m.from()) != pattern.from_file) return false;
  if (pattern.from_rank >= 0 && rank_of(m.from()) != pattern.from_rank) return false;
  if (pattern.promotion == PieceType::kNone) return true;  // "e8" alone: any promotion
  return m.kind() == Move::Kind::kPromotion && m.piece() == pattern.promotion;
}

// Long form naming the origin square, used to list the candidates of an ambiguous move.
std::string long_form(const Position& pos, Move m) {
  if (m.is_drop()) return std::string(1, piece_letter(m.piece())) + "@" + square_name(m.to());
  std::string out;
  const PieceType mover = pos.piece_at(m.from()).type;
  if (mover != PieceType::kPawn) out += piece_letter(mover);
  out += square_name(m.from()) + square_name(m.to());
  if (m.kind() == Move::Kind::kPromotion) {
    out += '=';
    out += piece_letter(m.piece());
  }
  return out;
}

// Sorted, so that messages do not depend on the order of move generation.
std::string joined(std::vector<std::string> items) {
  std::sort(items.begin(), items.end());
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

std::string why_nothing_matches(const Position& pos, const SanPattern& pattern,
                                const RuleSet& rules) {
  const Color us = pos.side_to_move();
  std::string why;
  switch (pattern.kind) {
    case SanPattern::Kind::kCastleShort:
    case SanPattern::Kind::kCastleLong:
      why = std::string(side_word(us)) + " cannot castle " +
            (pattern.kind == SanPattern::Kind::kCastleShort ? "king side" : "queen side");
      break;
    case SanPattern::Kind::kDrop: {
      const std::string piece =
          std::string(color_word(us)) + " " + std::string(piece_word(pattern.piece));
      if (pos.holding(us, pattern.piece) == 0) {
        why = std::string(side_word(us)) + " holds no " + std::string(piece_word(pattern.piece));
      } else if (!pos.piece_at(pattern.to).empty()) {
        why = "cannot drop on " + square_name(pattern.to) + ": it is occupied";
      } else if (pattern.piece == PieceType::kPawn &&
                 (rank_of(pattern.to) == 0 || rank_of(pattern.to) == 7)) {
        why = "a pawn cannot be dropped on the first or last rank";
      } else {
        why = "a " + piece + " cannot be dropped on " + square_name(pattern.to);
      }
      break;
    }
    case SanPattern::Kind::kMove: {
      if (pattern.promotion != PieceType::kNone && !rules.may_promote_to(pattern.promotion)) {
        why = "promotion to a " + std::string(piece_word(pattern.promotion)) +
              " is not allowed under the '" + std::string(rules.name) + "' rules";
        break;
      }
      why = "no " + std::string(color_word(us)) + " " + std::string(piece_word(pattern.piece));
      if (pattern.from_file >= 0 && pattern.from_rank >= 0) {
        why += " on " + square_name(make_square(pattern.from_file, pattern.from_rank));
      } else if (pattern.from_file >= 0) {
        why += std::string(" on the ") + static_cast<char>('a' + pattern.from_file) + "-file";
      } else if (pattern.from_rank >= 0) {
        why += " on rank " + std::to_string(pattern.from_rank + 1);
      }
      why += " can reach " + square_name(pattern.to);
      if (pattern.promotion != PieceType::kNone) {
        why += std::string(" and promote to a ") + std::string(piece_word(pattern.promotion));
      }
      break;
    }
  }
  if (pos.in_check()) why += " (" + std::string(side_word(us)) + " is in check)";
  return why;
}

}  // namespace

Move parse_san(const Position& pos, std::string_view san, const RuleSet& rules) {
  SanReader reader(san);
  const SanPattern pattern = reader.read();
  const std::string written(reader.written());

  std::vector<Move> candidates;
  for (const Move m : pos.legal_moves(rules)) {
    if (matches(pos, m, pattern)) candidates.push_back(m);
  }
  if (candidates.size() == 1) return candidates.front();
  if (candidates.empty()) {
    reader.fail(
        0, "no legal move matches '" + written + "': " + why_nothing_matches(pos, pattern, rules));
  }
  if (pattern.kind == SanPattern::Kind::kMove && pattern.promotion == PieceType::kNone &&
      candidates.front().kind() == Move::Kind::kPromotion) {
    std::vector<std::string> forms;
    for (const Move m : candidates) forms.push_back(written + "=" + piece_letter(m.piece()));
    reader.fail(0, "'" + written + "' needs a promotion piece: " + joined(forms));
  }
  std::vector<std::string> forms;
  for (const Move m : candidates) forms.push_back(long_form(pos, m));
  reader.fail(0, "ambiguous '" + written + "': " + joined(forms));
}

std::string to_san(const Position& pos, Move m, const RuleSet& rules) {
  const MoveList legal = pos.legal_moves(rules);
  if (!legal.contains(m)) {
    throw std::invalid_argument("to_san: " + m.uci() + " is not a legal move here");
  }
  std::string out;
  if (m.is_drop()) {
    out += piece_letter(m.piece());
    out += '@';
    out += square_name(m.to());
  } else if (m.kind() == Move::Kind::kCastle) {
    out = file_of(m.to()) > file_of(m.from()) ? "O-O" : "O-O-O";
  } else {
    const PieceType mover = pos.piece_at(m.from()).type;
    const bool capture = !pos.piece_at(m.to()).empty() || m.kind() == Move::Kind::kEnPassant;
    if (mover == PieceType::kPawn) {
      if (capture) {
        out += static_cast<char>('a' + file_of(m.from()));
        out += 'x';
      }
      out += square_name(m.to());
      if (m.kind() == Move::Kind::kPromotion) {
        out += '=';
        out += piece_letter(m.piece());
      }
    } else {
      out += piece_letter(mover);
      // Minimal disambiguation: file if it tells the pieces apart, else rank, else both.
      bool clash = false;
      bool same_file = false;
      bool same_rank = false;
      for (const Move other : legal) {
        if (other.is_drop() || other == m || other.to() != m.to() ||
            pos.piece_at(other.from()).type != mover) {
          continue;
        }
        clash = true;
        same_file = same_file || file_of(other.from()) == file_of(m.from());
        same_rank = same_rank || rank_of(other.from()) == rank_of(m.from());
      }
      if (clash) {
        if (!same_file) {
          out += static_cast<char>('a' + file_of(m.from()));
        } else if (!same_rank) {
          out += static_cast<char>('1' + rank_of(m.from()));
        } else {
          out += square_name(m.from());
        }
      }
      if (capture) out += 'x';
      out += square_name(m.to());
    }
  }
  Position after = pos;
  after.make(m, rules);
  if (after.in_check()) out += board_status(after, rules) == BoardStatus::kCheckmate ? '#' : '+';
  return out;
}

}  // namespace bugcam::rules
