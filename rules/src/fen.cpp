// FEN and BFEN (SPEC.md section 5). Reads the 2024 layout ("<ranks>/<holdings> w KQkq - 45 56"),
// the older one ("<ranks>/<holdings> KQkq - w 45 56"), the bracket form ("<ranks>[Qn] w ...")
// and plain FEN; writes the 2024 layout.
#include <algorithm>
#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bugcam/rules.hpp"

namespace bugcam::rules {

namespace {

constexpr unsigned kWhiteKingSide = 1;
constexpr unsigned kWhiteQueenSide = 2;
constexpr unsigned kBlackKingSide = 4;
constexpr unsigned kBlackQueenSide = 8;

// Holdings are written strongest piece first.
constexpr std::array<PieceType, 5> kHoldingOrder = {
    PieceType::kQueen, PieceType::kRook, PieceType::kBishop, PieceType::kKnight, PieceType::kPawn};

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

char letter_of(Piece p) {
  const char upper = piece_letter(p.type);
  return p.color == Color::kWhite ? upper : static_cast<char>(upper - 'A' + 'a');
}

std::string_view side_word(Color c) {
  return c == Color::kWhite ? "White" : "Black";
}

struct Field {
  std::string_view text;
  std::size_t offset = 0;  // in the whole text
};

class FenReader {
 public:
  FenReader(std::string_view text, const SourceLocation& where) : text_(text), where_(where) {}

  BoardFen read() {
    std::vector<Field> fields = split();
    if (fields.empty()) fail(0, "expected a FEN board description, found nothing");
    BoardFen result;
    Position& pos = result.position;
    read_placement(fields[0], pos);

    std::size_t next = 1;
    const auto field_at = [&](std::size_t i) -> const Field* {
      return i < fields.size() ? &fields[i] : nullptr;
    };
    const Field* side_field = nullptr;
    const Field* castling_field = nullptr;
    const Field* ep_field = nullptr;
    const Field* first = field_at(1);
    if (first == nullptr) {
      fail(text_.size(), "expected the side to move ('w' or 'b') after the board");
    }
    if (first->text == "w" || first->text == "b") {
      // 2024 layout and plain FEN: side, castling, en passant.
      side_field = first;
      castling_field = field_at(2);
      ep_field = field_at(3);
      next = 4;
    } else {
      // Older layout of the English rules: castling, en passant, side.
      castling_field = first;
      ep_field = field_at(2);
      side_field = field_at(3);
      if (side_field == nullptr || (side_field->text != "w" && side_field->text != "b")) {
        const std::size_t at = side_field ? side_field->offset : text_.size();
        fail(first->offset,
             "expected the side to move ('w' or 'b') after the board, or "
             "castling, en passant and then the side to move; found '" +
                 std::string(side_field ? side_field->text : first->text) + "'" +
                 (at == text_.size() ? " and nothing after it" : ""));
      }
      next = 4;
    }
    pos.set_side_to_move(side_field->text == "w" ? Color::kWhite : Color::kBlack);
    if (castling_field) pos.set_castling_rights(read_castling(*castling_field, pos));
    if (ep_field) read_en_passant(*ep_field, pos);
    for (std::size_t i = next; i < fields.size(); ++i) {
      const Field& field = fields[i];
      if (result.trailing.size() == 2) {
        fail(field.offset,
             "unexpected '" + std::string(field.text) + "' after the two numbers that end a FEN");
      }
      if (!is_number(field.text)) {
        fail(field.offset,
             "expected a number (a time or move counter), found '" + std::string(field.text) + "'");
      }
      result.trailing.emplace_back(field.text);
    }
    check_sane(pos);
    return result;
  }

 private:
  [[noreturn]] void fail(std::size_t offset, const std::string& what) const {
    SourceLocation at = where_;
    at.column = (where_.column > 0 ? where_.column : 1) + static_cast<int>(offset);
    if (at.line == 0) at.line = 1;
    throw ParseError(at, what);
  }

  std::vector<Field> split() const {
    std::vector<Field> fields;
    std::size_t i = 0;
    while (i < text_.size()) {
      while (i < text_.size() && is_space(text_[i])) ++i;
      const std::size_t start = i;
      while (i < text_.size() && !is_space(text_[i])) ++i;
      if (i > start) fields.push_back({text_.substr(start, i - start), start});
    }
    return fields;
  }

  static bool is_number(std::string_view s) {
    if (!s.empty() && s.front() == '-') s.remove_prefix(1);
    if (s.empty()) return false;
    bool digit = false;
    for (const char c : s) {
      if (c >= '0' && c <= '9') {
        digit = true;
      } else if (c != '.' && c != ':') {
        return false;
      }
    }
    return digit;
  }

  void read_placement(const Field& field, Position& pos) const {
    const std::string_view s = field.text;
    int rank = 7;
    int file = 0;
    std::size_t i = 0;
    for (; i < s.size(); ++i) {
      const char c = s[i];
      const std::size_t at = field.offset + i;
      if (c == '/') {
        if (file != 8) {
          fail(at, "rank " + std::to_string(rank + 1) + " has " + std::to_string(file) +
                       " squares, expected 8");
        }
        file = 0;
        if (--rank < 0) {
          // An eighth '/': the holdings follow, up to the end of the field.
          read_holdings(s.substr(i + 1), field.offset + i + 1, pos);
          return;
        }
        continue;
      }
      if (c == '[') {
        if (rank != 0 || file != 8) fail(at, "holdings '[' before the board is complete");
        const std::size_t close = s.find(']', i);
        if (close == std::string_view::npos) fail(at, "expected ']' to close the holdings");
        if (close + 1 != s.size()) {
          fail(field.offset + close + 1, "expected a space after the holdings ']'");
        }
        read_holdings(s.substr(i + 1, close - i - 1), at + 1, pos);
        return;
      }
      if (c >= '1' && c <= '8') {
        file += c - '0';
        if (file > 8) fail(at, "rank " + std::to_string(rank + 1) + " has more than 8 squares");
        continue;
      }
      const std::optional<PieceType> type = piece_from_letter(c);
      if (!type) {
        fail(at, std::string("expected a piece letter, a digit or '/' in the board, found '") + c +
                     "'");
      }
      if (file >= 8) fail(at, "rank " + std::to_string(rank + 1) + " has more than 8 squares");
      const Piece piece{c >= 'a' ? Color::kBlack : Color::kWhite, *type};
      const bool promoted = i + 1 < s.size() && s[i + 1] == '~';
      if (promoted) {
        if (*type == PieceType::kPawn || *type == PieceType::kKing) {
          fail(at + 1, "'~' marks a promoted pawn; it cannot follow a pawn or king");
        }
        ++i;
      }
      const Square square = make_square(file, rank);
      if (*type == PieceType::kPawn && (rank == 0 || rank == 7)) {
        fail(at, "a pawn cannot stand on " + square_name(square));
      }
      if (*type == PieceType::kKing && pos.pieces(piece.color, PieceType::kKing) != 0) {
        fail(at,
             "a second " + std::string(piece.color == Color::kWhite ? "white" : "black") + " king");
      }
      pos.put(square, piece, promoted);
      ++file;
    }
    if (rank != 0 || file != 8) {
      fail(field.offset + s.size(), "the board ends after " + std::to_string(8 - rank) +
                                        " ranks; expected 8 ranks of 8 squares");
    }
  }

  void read_holdings(std::string_view s, std::size_t offset, Position& pos) const {
    if (s == "-") return;
    for (std::size_t i = 0; i < s.size(); ++i) {
      const std::optional<PieceType> type = piece_from_letter(s[i]);
      if (!type || *type == PieceType::kKing) {
        fail(offset + i,
             std::string("expected a held piece (PNBRQ or pnbrq), found '") + s[i] + "'");
      }
      pos.add_holding(s[i] >= 'a' ? Color::kBlack : Color::kWhite, *type);
    }
  }

  unsigned read_castling(const Field& field, const Position& pos) const {
    if (field.text == "-") return 0;
    unsigned rights = 0;
    for (std::size_t i = 0; i < field.text.size(); ++i) {
      const char c = field.text[i];
      unsigned right = 0;
      Square king = kNoSquare;
      Square rook = kNoSquare;
      Color color = Color::kWhite;
      switch (c) {
        case 'K':
          right = kWhiteKingSide, king = make_square(4, 0), rook = make_square(7, 0);
          break;
        case 'Q':
          right = kWhiteQueenSide, king = make_square(4, 0), rook = make_square(0, 0);
          break;
        case 'k':
          right = kBlackKingSide, king = make_square(4, 7), rook = make_square(7, 7);
          color = Color::kBlack;
          break;
        case 'q':
          right = kBlackQueenSide, king = make_square(4, 7), rook = make_square(0, 7);
          color = Color::kBlack;
          break;
        default:
          fail(field.offset + i,
               std::string("expected castling rights (KQkq or '-'), found '") + c + "'");
      }
      if (rights & right) fail(field.offset + i, std::string("castling right '") + c + "' twice");
      if (pos.piece_at(king) != Piece{color, PieceType::kKing} ||
          pos.piece_at(rook) != Piece{color, PieceType::kRook}) {
        fail(field.offset + i, std::string("castling right '") + c + "' needs the king on " +
                                   square_name(king) + " and a rook on " + square_name(rook));
      }
      rights |= right;
    }
    return rights;
  }

  void read_en_passant(const Field& field, Position& pos) const {
    if (field.text == "-") return;
    const std::optional<Square> square =
        field.text.size() == 2 ? parse_square(field.text) : std::nullopt;
    if (!square) {
      fail(field.offset,
           "expected an en passant square or '-', found '" + std::string(field.text) + "'");
    }
    // The square a pawn of the side not to move just passed over.
    const Color mover = !pos.side_to_move();
    const int rank = mover == Color::kWhite ? 2 : 5;
    const int step = mover == Color::kWhite ? 8 : -8;
    if (rank_of(*square) != rank || !pos.piece_at(*square).empty() ||
        pos.piece_at(*square + step) != Piece{mover, PieceType::kPawn} ||
        !pos.piece_at(*square - step).empty()) {
      fail(field.offset, "en passant square " + std::string(field.text) +
                             " does not follow a two-square move of a " +
                             (mover == Color::kWhite ? "white" : "black") + " pawn");
    }
    pos.set_en_passant(*square);
  }

  void check_sane(const Position& pos) const {
    const Color waiting = !pos.side_to_move();
    if (pos.pieces(waiting, PieceType::kKing) != 0 &&
        pos.attacked_by(pos.side_to_move(), pos.king_square(waiting))) {
      fail(0, std::string(side_word(waiting)) + " is in check but it is " +
                  std::string(side_word(pos.side_to_move())) + "'s move");
    }
  }

  std::string_view text_;
  SourceLocation where_;
};

}  // namespace

BoardFen parse_fen(std::string_view text, SourceLocation where) {
  return FenReader(text, where).read();
}

std::string to_fen(const Position& pos, const std::vector<std::string>& trailing) {
  std::string out;
  for (int rank = 7; rank >= 0; --rank) {
    int empty = 0;
    for (int file = 0; file < 8; ++file) {
      const Square s = make_square(file, rank);
      const Piece p = pos.piece_at(s);
      if (p.empty()) {
        ++empty;
        continue;
      }
      if (empty > 0) out += static_cast<char>('0' + empty);
      empty = 0;
      out += letter_of(p);
      if (pos.is_promoted(s)) out += '~';
    }
    if (empty > 0) out += static_cast<char>('0' + empty);
    if (rank > 0) out += '/';
  }
  std::string holdings;
  for (const Color c : {Color::kWhite, Color::kBlack}) {
    for (const PieceType t : kHoldingOrder) {
      holdings.append(static_cast<std::size_t>(std::max(0, pos.holding(c, t))),
                      letter_of(Piece{c, t}));
    }
  }
  // The 2024 layout leaves out the slash when nobody holds anything.
  if (!holdings.empty()) out += "/" + holdings;
  out += pos.side_to_move() == Color::kWhite ? " w " : " b ";
  const unsigned rights = pos.castling_rights();
  if (rights == 0) out += '-';
  if (rights & kWhiteKingSide) out += 'K';
  if (rights & kWhiteQueenSide) out += 'Q';
  if (rights & kBlackKingSide) out += 'k';
  if (rights & kBlackQueenSide) out += 'q';
  out += ' ';
  out += pos.en_passant() == kNoSquare ? std::string("-") : square_name(pos.en_passant());
  for (const std::string& field : trailing) out += " " + field;
  return out;
}

Bfen parse_bfen(std::string_view text, SourceLocation where) {
  const std::size_t bar = text.find('|');
  Bfen bfen;
  if (bar == std::string_view::npos) {
    bfen.a = parse_fen(text, where);
    return bfen;
  }
  if (const std::size_t second = text.find('|', bar + 1); second != std::string_view::npos) {
    SourceLocation at = where;
    at.column = (where.column > 0 ? where.column : 1) + static_cast<int>(second);
    if (at.line == 0) at.line = 1;
    throw ParseError(at, "expected at most two boards separated by one '|'");
  }
  bfen.a = parse_fen(text.substr(0, bar), where);
  SourceLocation b_where = where;
  b_where.column = (where.column > 0 ? where.column : 1) + static_cast<int>(bar + 1);
  bfen.b = parse_fen(text.substr(bar + 1), b_where);
  return bfen;
}

std::string to_bfen(const Bfen& bfen) {
  std::string out = to_fen(bfen.a.position, bfen.a.trailing);
  if (bfen.b) out += " | " + to_fen(bfen.b->position, bfen.b->trailing);
  return out;
}

std::string to_bfen(const Position& a, const Position& b) {
  return to_fen(a) + " | " + to_fen(b);
}

}  // namespace bugcam::rules
