// One board: representation, legal move and drop generation, make/unmake, perft, status.
#include <stdexcept>

#include "bitboard.hpp"
#include "bugcam/rules.hpp"

namespace bugcam::rules {

using bb::Bitboard;
using bb::square_bb;

namespace {

// Zobrist keys, generated at compile time with splitmix64 from a fixed seed.
struct ZobristKeys {
  std::array<std::array<std::array<std::uint64_t, 64>, 6>, 2> piece{};
  std::array<std::uint64_t, 16> castling{};
  std::array<std::uint64_t, 8> en_passant_file{};
  std::uint64_t black_to_move = 0;
};

constexpr ZobristKeys make_zobrist() {
  std::uint64_t state = 0x2545F4914F6CDD1DULL;
  auto next = [&state]() {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  };
  ZobristKeys k;
  for (auto& colour : k.piece)
    for (auto& type : colour)
      for (auto& key : type) key = next();
  for (auto& key : k.castling) key = next();
  for (auto& key : k.en_passant_file) key = next();
  k.black_to_move = next();
  return k;
}
constexpr ZobristKeys kZobrist = make_zobrist();

constexpr std::uint64_t piece_key(Piece p, Square s) {
  return kZobrist.piece[static_cast<int>(p.color)][static_cast<int>(p.type)][s];
}

constexpr unsigned kWhiteKingSide = 1;
constexpr unsigned kWhiteQueenSide = 2;
constexpr unsigned kBlackKingSide = 4;
constexpr unsigned kBlackQueenSide = 8;
constexpr unsigned kWhiteKingUnmoved = 16;
constexpr unsigned kBlackKingUnmoved = 32;

// castling_ &= kCastlingKeep[from] & kCastlingKeep[to] after every move on the board.
constexpr std::array<unsigned, 64> make_castling_keep() {
  std::array<unsigned, 64> keep{};
  for (auto& k : keep) k = ~0u;
  keep[make_square(4, 0)] = ~(kWhiteKingSide | kWhiteQueenSide | kWhiteKingUnmoved);
  keep[make_square(0, 0)] = ~kWhiteQueenSide;
  keep[make_square(7, 0)] = ~kWhiteKingSide;
  keep[make_square(4, 7)] = ~(kBlackKingSide | kBlackQueenSide | kBlackKingUnmoved);
  keep[make_square(0, 7)] = ~kBlackQueenSide;
  keep[make_square(7, 7)] = ~kBlackKingSide;
  return keep;
}
constexpr std::array<unsigned, 64> kCastlingKeep = make_castling_keep();

constexpr int kDropTypes = 5;  // pawn, knight, bishop, rook, queen

// Pieces of both colours that attack square s, with `occupied` blocking the sliders.
Bitboard all_attackers_to(const Position& p, const bb::SliderTables& sliders, Square s,
                          Bitboard occupied) {
  return (bb::kLeapers.pawn[0][s] & p.pieces(Color::kBlack, PieceType::kPawn)) |
         (bb::kLeapers.pawn[1][s] & p.pieces(Color::kWhite, PieceType::kPawn)) |
         (bb::kLeapers.knight[s] & p.pieces(PieceType::kKnight)) |
         (bb::kLeapers.king[s] & p.pieces(PieceType::kKing)) |
         (sliders.bishop(s, occupied) &
          (p.pieces(PieceType::kBishop) | p.pieces(PieceType::kQueen))) |
         (sliders.rook(s, occupied) & (p.pieces(PieceType::kRook) | p.pieces(PieceType::kQueen)));
}

// Where the rook stands before and after a castling move (encoded as the king's move).
struct CastlingRook {
  Square from;
  Square to;
};
constexpr CastlingRook castling_rook(Move m) {
  const int rank = rank_of(m.from());
  const bool king_side = file_of(m.to()) == 6;
  return {make_square(king_side ? 7 : 0, rank), make_square(king_side ? 5 : 3, rank)};
}

}  // namespace

// Legal move generation for the side to move. A friend of Position so that it reads the
// bitboards directly; one instance per call keeps the derived masks together.
class MoveGenerator {
 public:
  MoveGenerator(const Position& pos, const RuleSet& rules)
      : pos_(pos),
        rules_(rules),
        sliders_(bb::sliders()),
        lines_(bb::lines()),
        us_(pos.side_to_move_),
        them_(!us_),
        occupied_(pos.occupied()),
        ours_(pos.pieces(us_)),
        theirs_(pos.pieces(them_)) {
    const Bitboard kings = pos.pieces(us_, PieceType::kKing);
    king_ = kings ? bb::lsb(kings) : kNoSquare;
    if (king_ != kNoSquare) {
      checkers_ = attackers_to(king_, occupied_) & theirs_;
      pinned_ = compute_pinned();
    }
  }

  Bitboard checkers() const { return checkers_; }

  // Board moves (not drops) into `out`; drops into `out` too unless `count_drops_only`, in
  // which case they are only counted and the count returned.
  int generate(MoveList& out, bool count_drops_only) const {
    generate_king_moves(out);
    if (bb::popcount(checkers_) >= 2) return 0;  // only the king can answer a double check
    // Never onto the other king: after a press without a move the side not to move may be in
    // check, and a king is not taken.
    Bitboard target = ~ours_ & ~pos_.pieces(them_, PieceType::kKing);
    Bitboard drop_target = ~occupied_;
    if (checkers_) {
      const Bitboard block = lines_.between[king_][bb::lsb(checkers_)];
      target = block | checkers_;
      drop_target = block;
    } else {
      generate_castling(out);
    }
    generate_pawn_moves(out, target);
    generate_piece_moves(out, target);
    return generate_drops(out, drop_target, count_drops_only);
  }

 private:
  Bitboard attackers_to(Square s, Bitboard occupied) const {
    return all_attackers_to(pos_, sliders_, s, occupied);
  }

  Bitboard compute_pinned() const {
    const Position& p = pos_;
    const Bitboard queens = p.pieces(them_, PieceType::kQueen);
    Bitboard snipers = (sliders_.rook(king_, 0) & (p.pieces(them_, PieceType::kRook) | queens)) |
                       (sliders_.bishop(king_, 0) & (p.pieces(them_, PieceType::kBishop) | queens));
    Bitboard pinned = 0;
    while (snipers) {
      const Bitboard between = lines_.between[king_][bb::pop_lsb(snipers)] & occupied_;
      if (between && !(between & (between - 1)) && (between & ours_)) pinned |= between;
    }
    return pinned;
  }

  // Squares a pinned piece may still move to: the line through it and its king.
  Bitboard pin_ray(Square s) const {
    return (pinned_ & square_bb(s)) ? lines_.line[king_][s] : ~Bitboard{0};
  }

  void generate_king_moves(MoveList& out) const {
    if (king_ == kNoSquare) return;
    Bitboard targets = bb::kLeapers.king[king_] & ~ours_;
    const Bitboard without_king = occupied_ ^ square_bb(king_);
    while (targets) {
      const Square to = bb::pop_lsb(targets);
      if (!(attackers_to(to, without_king) & theirs_)) out.push(Move::normal(king_, to));
    }
  }

  void generate_castling(MoveList& out) const {
    const unsigned rights = pos_.castling_ & Position::kCastlingRightsMask;
    if (king_ == kNoSquare || !rights) return;
    const int rank = us_ == Color::kWhite ? 0 : 7;
    const Square home = make_square(4, rank);
    if (king_ != home) return;
    const unsigned king_side = us_ == Color::kWhite ? kWhiteKingSide : kBlackKingSide;
    const unsigned queen_side = us_ == Color::kWhite ? kWhiteQueenSide : kBlackQueenSide;
    const Bitboard rooks = pos_.pieces(us_, PieceType::kRook);
    if ((rights & king_side) && (rooks & square_bb(make_square(7, rank))) &&
        !(occupied_ & (square_bb(make_square(5, rank)) | square_bb(make_square(6, rank)))) &&
        !attacked(make_square(5, rank)) && !attacked(make_square(6, rank))) {
      out.push(Move::castle(home, make_square(6, rank)));
    }
    if ((rights & queen_side) && (rooks & square_bb(make_square(0, rank))) &&
        !(occupied_ & (square_bb(make_square(1, rank)) | square_bb(make_square(2, rank)) |
                       square_bb(make_square(3, rank)))) &&
        !attacked(make_square(3, rank)) && !attacked(make_square(2, rank))) {
      out.push(Move::castle(home, make_square(2, rank)));
    }
  }

  bool attacked(Square s) const { return attackers_to(s, occupied_) & theirs_; }

  void push_promotions(MoveList& out, Square from, Square to) const {
    for (PieceType t :
         {PieceType::kQueen, PieceType::kKnight, PieceType::kRook, PieceType::kBishop}) {
      if (rules_.may_promote_to(t)) out.push(Move::promotion(from, to, t));
    }
  }

  void push_pawn_move(MoveList& out, Square from, Square to) const {
    if (rank_of(to) == 0 || rank_of(to) == 7) {
      push_promotions(out, from, to);
    } else {
      out.push(Move::normal(from, to));
    }
  }

  void generate_pawn_moves(MoveList& out, Bitboard target) const {
    const bool white = us_ == Color::kWhite;
    const int forward = white ? 8 : -8;
    const int start_rank = white ? 1 : 6;
    Bitboard pawns = pos_.pieces(us_, PieceType::kPawn);
    while (pawns) {
      const Square from = bb::pop_lsb(pawns);
      if (rank_of(from) == (white ? 7 : 0)) continue;  // impossible, but set-up can make it
      const Bitboard allowed = pin_ray(from) & target;
      const Square one = from + forward;
      if (!(occupied_ & square_bb(one))) {
        if (allowed & square_bb(one)) push_pawn_move(out, from, one);
        // A pawn dropped on its second rank may advance two squares as well.
        if (rank_of(from) == start_rank) {
          const Square two = one + forward;
          if (!(occupied_ & square_bb(two)) && (allowed & square_bb(two))) {
            out.push(Move::normal(from, two));
          }
        }
      }
      Bitboard captures = bb::kLeapers.pawn[static_cast<int>(us_)][from] & theirs_ & allowed;
      while (captures) push_pawn_move(out, from, bb::pop_lsb(captures));
      const Square ep = pos_.en_passant_;
      if (ep != kNoSquare && (bb::kLeapers.pawn[static_cast<int>(us_)][from] & square_bb(ep)) &&
          en_passant_is_legal(from, ep)) {
        out.push(Move::en_passant(from, ep));
      }
    }
  }

  // En passant removes two pieces from one rank, which pin masks do not cover: try it.
  bool en_passant_is_legal(Square from, Square ep) const {
    const Square captured = ep + (us_ == Color::kWhite ? -8 : 8);
    if (!(pos_.pieces(them_, PieceType::kPawn) & square_bb(captured))) return false;
    if (occupied_ & square_bb(ep)) return false;
    if (king_ == kNoSquare) return true;
    const Bitboard occupied_after =
        (occupied_ ^ square_bb(from) ^ square_bb(captured)) | square_bb(ep);
    return !(attackers_to(king_, occupied_after) & theirs_ & ~square_bb(captured));
  }

  void generate_piece_moves(MoveList& out, Bitboard target) const {
    const Position& p = pos_;
    Bitboard knights = p.pieces(us_, PieceType::kKnight) & ~pinned_;  // a pinned knight never moves
    while (knights) {
      const Square from = bb::pop_lsb(knights);
      Bitboard to = bb::kLeapers.knight[from] & target;
      while (to) out.push(Move::normal(from, bb::pop_lsb(to)));
    }
    const Bitboard queens = p.pieces(us_, PieceType::kQueen);
    Bitboard diagonal = p.pieces(us_, PieceType::kBishop) | queens;
    while (diagonal) {
      const Square from = bb::pop_lsb(diagonal);
      Bitboard to = sliders_.bishop(from, occupied_) & target & pin_ray(from);
      while (to) out.push(Move::normal(from, bb::pop_lsb(to)));
    }
    Bitboard straight = p.pieces(us_, PieceType::kRook) | queens;
    while (straight) {
      const Square from = bb::pop_lsb(straight);
      Bitboard to = sliders_.rook(from, occupied_) & target & pin_ray(from);
      while (to) out.push(Move::normal(from, bb::pop_lsb(to)));
    }
  }

  int generate_drops(MoveList& out, Bitboard drop_target, bool count_only) const {
    int counted = 0;
    const auto& held = pos_.holdings_[static_cast<int>(us_)];
    for (int t = 0; t < kDropTypes; ++t) {
      if (held[t] <= 0) continue;
      Bitboard squares = drop_target;
      // No pawn drops on the first or last rank (000 art. 5.10).
      if (t == static_cast<int>(PieceType::kPawn)) squares &= ~(bb::kRank1 | bb::kRank8);
      if (count_only) {
        counted += bb::popcount(squares);
        continue;
      }
      while (squares) out.push(Move::drop(static_cast<PieceType>(t), bb::pop_lsb(squares)));
    }
    return counted;
  }

  const Position& pos_;
  const RuleSet& rules_;
  const bb::SliderTables& sliders_;
  const bb::LineTables& lines_;
  Color us_;
  Color them_;
  Bitboard occupied_;
  Bitboard ours_;
  Bitboard theirs_;
  Square king_ = kNoSquare;
  Bitboard checkers_ = 0;
  Bitboard pinned_ = 0;
};

// ---------------------------------------------------------------------------

Position::Position() {
  key_ = compute_key();
}

Position Position::start() {
  Position p;
  constexpr PieceType kBackRank[8] = {PieceType::kRook,   PieceType::kKnight, PieceType::kBishop,
                                      PieceType::kQueen,  PieceType::kKing,   PieceType::kBishop,
                                      PieceType::kKnight, PieceType::kRook};
  for (int f = 0; f < 8; ++f) {
    p.put_fast(make_square(f, 0), {Color::kWhite, kBackRank[f]});
    p.put_fast(make_square(f, 1), {Color::kWhite, PieceType::kPawn});
    p.put_fast(make_square(f, 6), {Color::kBlack, PieceType::kPawn});
    p.put_fast(make_square(f, 7), {Color::kBlack, kBackRank[f]});
  }
  p.castling_ = 15u | kWhiteKingUnmoved | kBlackKingUnmoved;
  p.key_ = p.compute_key();
  return p;
}

Piece Position::piece_at(Square s) const {
  return board_[s];
}
bool Position::is_promoted(Square s) const {
  return promoted_ & square_bb(s);
}

void Position::put_fast(Square s, Piece p) {
  board_[s] = p;
  by_color_[idx(p.color)] |= square_bb(s);
  by_type_[static_cast<int>(p.type)] |= square_bb(s);
}

void Position::remove_fast(Square s) {
  const Piece p = board_[s];
  const Bitboard clear = ~square_bb(s);
  by_color_[idx(p.color)] &= clear;
  by_type_[static_cast<int>(p.type)] &= clear;
  promoted_ &= clear;
  board_[s] = Piece{};
}

void Position::put(Square s, Piece p, bool promoted) {
  if (s < 0 || s > 63) throw std::out_of_range("square out of range");
  if (!board_[s].empty()) remove(s);
  if (p.empty()) return;
  put_fast(s, p);
  if (promoted) promoted_ |= square_bb(s);
  key_ ^= piece_key(p, s);
}

void Position::remove(Square s) {
  if (s < 0 || s > 63) throw std::out_of_range("square out of range");
  if (board_[s].empty()) return;
  key_ ^= piece_key(board_[s], s);
  remove_fast(s);
}

void Position::set_holding(Color c, PieceType t, int count) {
  if (t == PieceType::kKing || t == PieceType::kNone) {
    throw std::invalid_argument("a king cannot be held");
  }
  if (count < 0) throw std::invalid_argument("negative holding");
  holdings_[idx(c)][static_cast<int>(t)] = count;
}

void Position::add_holding(Color c, PieceType t, int count) {
  set_holding(c, t, holding(c, t) + count);
}

void Position::set_side_to_move(Color c) {
  if (c != side_to_move_) key_ ^= kZobrist.black_to_move;
  side_to_move_ = c;
}

void Position::set_castling_rights(unsigned rights) {
  rights &= kCastlingRightsMask;
  key_ ^= kZobrist.castling[castling_ & kCastlingRightsMask] ^ kZobrist.castling[rights];
  // A side that may still castle has a king that never moved.
  unsigned unmoved = 0;
  if (rights & (kWhiteKingSide | kWhiteQueenSide)) unmoved |= kWhiteKingUnmoved;
  if (rights & (kBlackKingSide | kBlackQueenSide)) unmoved |= kBlackKingUnmoved;
  castling_ = rights | unmoved;
}

void Position::set_en_passant(Square s) {
  if (en_passant_ != kNoSquare) key_ ^= kZobrist.en_passant_file[file_of(en_passant_)];
  en_passant_ = (s >= 0 && s < 64) ? s : kNoSquare;
  if (en_passant_ != kNoSquare) key_ ^= kZobrist.en_passant_file[file_of(en_passant_)];
}

void Position::set_move_counters(int halfmove_clock, int fullmove_number) {
  halfmove_clock_ = halfmove_clock;
  fullmove_number_ = fullmove_number;
}

std::uint64_t Position::compute_key() const {
  std::uint64_t key = 0;
  for (Square s = 0; s < 64; ++s) {
    if (!board_[s].empty()) key ^= piece_key(board_[s], s);
  }
  key ^= kZobrist.castling[castling_ & kCastlingRightsMask];
  if (en_passant_ != kNoSquare) key ^= kZobrist.en_passant_file[file_of(en_passant_)];
  if (side_to_move_ == Color::kBlack) key ^= kZobrist.black_to_move;
  return key;
}

Square Position::king_square(Color c) const {
  const Bitboard kings = pieces(c, PieceType::kKing);
  return kings ? bb::lsb(kings) : kNoSquare;
}

bool Position::attacked_by(Color side, Square s) const {
  return (all_attackers_to(*this, bb::sliders(), s, occupied()) & pieces(side)) != 0;
}

bool Position::in_check() const {
  const Square k = king_square(side_to_move_);
  return k != kNoSquare && attacked_by(!side_to_move_, k);
}

void Position::legal_moves(const RuleSet& rules, MoveList& out) const {
  MoveGenerator(*this, rules).generate(out, false);
}

MoveList Position::legal_moves(const RuleSet& rules) const {
  MoveList list;
  legal_moves(rules, list);
  return list;
}

bool Position::is_legal(Move m, const RuleSet& rules) const {
  return legal_moves(rules).contains(m);
}

Position::Undo Position::make(Move m, const RuleSet& rules) {
  Undo undo;
  undo.castling = castling_;
  undo.en_passant = en_passant_;
  undo.halfmove_clock = halfmove_clock_;
  undo.key = key_;

  const Color us = side_to_move_;
  const Square to = m.to();
  std::uint64_t key = key_ ^ kZobrist.castling[castling_ & kCastlingRightsMask];
  if (en_passant_ != kNoSquare) key ^= kZobrist.en_passant_file[file_of(en_passant_)];
  en_passant_ = kNoSquare;
  ++halfmove_clock_;

  if (m.is_drop()) {
    const Piece dropped{us, m.piece()};
    put_fast(to, dropped);
    key ^= piece_key(dropped, to);
    --holdings_[idx(us)][static_cast<int>(m.piece())];
    if (m.piece() == PieceType::kPawn) halfmove_clock_ = 0;
    // Where the rule set allows it, a rook dropped on its original corner restores the
    // castling right if the king has never moved.
    if (m.piece() == PieceType::kRook && rules.castle_with_dropped_rook) {
      const int rank = us == Color::kWhite ? 0 : 7;
      const unsigned unmoved = us == Color::kWhite ? kWhiteKingUnmoved : kBlackKingUnmoved;
      if ((castling_ & unmoved) && king_square(us) == make_square(4, rank)) {
        if (to == make_square(7, rank)) {
          castling_ |= us == Color::kWhite ? kWhiteKingSide : kBlackKingSide;
        } else if (to == make_square(0, rank)) {
          castling_ |= us == Color::kWhite ? kWhiteQueenSide : kBlackQueenSide;
        }
      }
    }
  } else {
    const Square from = m.from();
    const Piece moving = board_[from];
    undo.moved_promoted = promoted_ & square_bb(from);
    Square captured_square = to;
    if (m.kind() == Move::Kind::kEnPassant) captured_square = to + (us == Color::kWhite ? -8 : 8);
    if (!board_[captured_square].empty()) {
      undo.captured = board_[captured_square];
      undo.captured_promoted = promoted_ & square_bb(captured_square);
      key ^= piece_key(undo.captured, captured_square);
      remove_fast(captured_square);
      halfmove_clock_ = 0;
    }
    remove_fast(from);
    key ^= piece_key(moving, from);
    if (m.kind() == Move::Kind::kPromotion) {
      const Piece promoted{us, m.piece()};
      put_fast(to, promoted);
      promoted_ |= square_bb(to);
      key ^= piece_key(promoted, to);
    } else {
      put_fast(to, moving);
      if (undo.moved_promoted) promoted_ |= square_bb(to);
      key ^= piece_key(moving, to);
    }
    if (m.kind() == Move::Kind::kCastle) {
      const CastlingRook r = castling_rook(m);
      const Piece rook = board_[r.from];
      remove_fast(r.from);
      put_fast(r.to, rook);
      key ^= piece_key(rook, r.from) ^ piece_key(rook, r.to);
    }
    if (moving.type == PieceType::kPawn) {
      halfmove_clock_ = 0;
      // Record en passant only where an enemy pawn could take: positions then repeat
      // exactly when they look the same.
      if ((to ^ from) == 16) {
        const Square passed = (from + to) / 2;
        if (bb::kLeapers.pawn[idx(us)][passed] & pieces(!us, PieceType::kPawn)) {
          en_passant_ = passed;
          key ^= kZobrist.en_passant_file[file_of(passed)];
        }
      }
    }
    castling_ &= kCastlingKeep[from] & kCastlingKeep[to];
  }

  key ^= kZobrist.castling[castling_ & kCastlingRightsMask];
  key ^= kZobrist.black_to_move;
  if (us == Color::kBlack) ++fullmove_number_;
  side_to_move_ = !us;
  key_ = key;
  return undo;
}

void Position::unmake(Move m, const Undo& undo) {
  const Color us = !side_to_move_;
  side_to_move_ = us;
  const Square to = m.to();
  if (m.is_drop()) {
    remove_fast(to);
    ++holdings_[idx(us)][static_cast<int>(m.piece())];
  } else {
    const Square from = m.from();
    if (m.kind() == Move::Kind::kCastle) {
      const CastlingRook r = castling_rook(m);
      const Piece rook = board_[r.to];
      remove_fast(r.to);
      put_fast(r.from, rook);
    }
    const Piece moved =
        m.kind() == Move::Kind::kPromotion ? Piece{us, PieceType::kPawn} : board_[to];
    remove_fast(to);
    put_fast(from, moved);
    if (undo.moved_promoted) promoted_ |= square_bb(from);
    if (!undo.captured.empty()) {
      const Square captured_square =
          m.kind() == Move::Kind::kEnPassant ? to + (us == Color::kWhite ? -8 : 8) : to;
      put_fast(captured_square, undo.captured);
      if (undo.captured_promoted) promoted_ |= square_bb(captured_square);
    }
  }
  castling_ = undo.castling;
  en_passant_ = undo.en_passant;
  halfmove_clock_ = undo.halfmove_clock;
  key_ = undo.key;
  if (us == Color::kBlack) --fullmove_number_;
}

bool operator==(const Position& a, const Position& b) {
  // Move counters are not part of a bughouse position (BFEN stores clock times instead),
  // nor is whether a king that lost its castling rights ever moved.
  return a.board_ == b.board_ && a.promoted_ == b.promoted_ && a.holdings_ == b.holdings_ &&
         a.side_to_move_ == b.side_to_move_ && a.castling_rights() == b.castling_rights() &&
         a.en_passant_ == b.en_passant_;
}

BoardStatus board_status(const Position& pos, const RuleSet& rules) {
  MoveList moves;
  const MoveGenerator generator(pos, rules);
  generator.generate(moves, false);
  if (!moves.empty()) return BoardStatus::kPlaying;
  const Bitboard checkers = generator.checkers();
  if (!checkers) {
    return rules.no_move_without_check == RuleSet::NoMoveWithoutCheck::kDraw
               ? BoardStatus::kStalemate
               : BoardStatus::kMustWait;
  }
  if (rules.mate == RuleSet::Mate::kNoLegalMove) return BoardStatus::kCheckmate;
  // OTB (000 art. 1.5): mate only by a contact check, a knight check or a double check; a
  // single distant check could be parried by dropping a piece the partner may yet pass.
  if (bb::popcount(checkers) >= 2) return BoardStatus::kCheckmate;
  const Square king = pos.king_square(pos.side_to_move());
  const Bitboard between = bb::lines().between[king][bb::lsb(checkers)];
  return between ? BoardStatus::kMustWait : BoardStatus::kCheckmate;
}

namespace {

std::uint64_t perft_recursive(Position& pos, int depth, const RuleSet& rules) {
  MoveList moves;
  const MoveGenerator generator(pos, rules);
  // At the last ply, count without playing; drops are counted without being listed.
  if (depth == 1) {
    const int drops = generator.generate(moves, true);
    return static_cast<std::uint64_t>(moves.size() + drops);
  }
  generator.generate(moves, false);
  std::uint64_t nodes = 0;
  for (const Move m : moves) {
    const Position::Undo undo = pos.make(m, rules);
    nodes += perft_recursive(pos, depth - 1, rules);
    pos.unmake(m, undo);
  }
  return nodes;
}

}  // namespace

std::uint64_t perft(Position pos, int depth, const RuleSet& rules) {
  if (depth <= 0) return 1;
  return perft_recursive(pos, depth, rules);
}

}  // namespace bugcam::rules
