// The bughouse rules engine: positions with holdings, legal moves and drops, check and
// mate under named rule sets, the two-board game, and the SAN, BFEN and BPGN formats.
// Knows nothing of images or clocks beyond the times written in game records.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace bugcam::rules {

// ---------------------------------------------------------------------------
// Basic types

enum class Color : std::uint8_t { kWhite = 0, kBlack = 1 };
constexpr Color operator!(Color c) {
  return c == Color::kWhite ? Color::kBlack : Color::kWhite;
}

// Order matters: holdings index by the first five; promotion/drop pieces are kKnight..kQueen
// (plus kPawn for drops).
enum class PieceType : std::uint8_t {
  kPawn = 0,
  kKnight = 1,
  kBishop = 2,
  kRook = 3,
  kQueen = 4,
  kKing = 5,
  kNone = 6
};

struct Piece {
  Color color = Color::kWhite;
  PieceType type = PieceType::kNone;
  bool empty() const { return type == PieceType::kNone; }
  friend bool operator==(const Piece&, const Piece&) = default;
};

// Squares 0..63: a1 = 0, b1 = 1, ..., h8 = 63.
using Square = int;
constexpr Square kNoSquare = -1;
constexpr Square make_square(int file, int rank) {
  return rank * 8 + file;
}
constexpr int file_of(Square s) {
  return s & 7;
}
constexpr int rank_of(Square s) {
  return s >> 3;
}
std::string square_name(Square s);
std::optional<Square> parse_square(std::string_view text);

// Upper-case letter for a piece type ("PNBRQK"), and back.
char piece_letter(PieceType t);
std::optional<PieceType> piece_from_letter(char c);  // accepts either case

// A move or a drop, packed into 32 bits so move lists stay small.
class Move {
 public:
  enum class Kind : std::uint8_t { kNormal, kPromotion, kEnPassant, kCastle, kDrop };
  constexpr Move() = default;
  static constexpr Move normal(Square from, Square to) { return Move(from, to, Kind::kNormal); }
  static constexpr Move promotion(Square from, Square to, PieceType piece) {
    return Move(from, to, Kind::kPromotion, piece);
  }
  static constexpr Move en_passant(Square from, Square to) {
    return Move(from, to, Kind::kEnPassant);
  }
  // Castling is encoded as the king's move (e1g1, e1c1, ...).
  static constexpr Move castle(Square from, Square to) { return Move(from, to, Kind::kCastle); }
  static constexpr Move drop(PieceType piece, Square to) { return Move(0, to, Kind::kDrop, piece); }

  constexpr Square from() const { return static_cast<Square>(bits_ & 63u); }
  constexpr Square to() const { return static_cast<Square>((bits_ >> 6) & 63u); }
  constexpr Kind kind() const { return static_cast<Kind>((bits_ >> 12) & 7u); }
  // The promotion piece or the dropped piece; kNone otherwise.
  constexpr PieceType piece() const { return static_cast<PieceType>((bits_ >> 15) & 7u); }
  constexpr bool is_drop() const { return kind() == Kind::kDrop; }
  constexpr bool is_null() const { return bits_ == kNullBits; }
  constexpr std::uint32_t bits() const { return bits_; }
  friend constexpr bool operator==(Move, Move) = default;

  // Coordinate form: e2e4, e7e8q, N@f3.
  std::string uci() const;

 private:
  static constexpr std::uint32_t kNullBits = 0xffffffffu;
  constexpr Move(Square from, Square to, Kind kind, PieceType piece = PieceType::kNone)
      : bits_(static_cast<std::uint32_t>(from) | (static_cast<std::uint32_t>(to) << 6) |
              (static_cast<std::uint32_t>(kind) << 12) |
              (static_cast<std::uint32_t>(piece) << 15)) {}
  std::uint32_t bits_ = kNullBits;
};

// A fixed-capacity list; a bughouse position can have several hundred legal drops.
class MoveList {
 public:
  static constexpr int kCapacity = 1024;
  void push(Move m) { moves_[size_++] = m; }
  int size() const { return size_; }
  bool empty() const { return size_ == 0; }
  Move operator[](int i) const { return moves_[i]; }
  const Move* begin() const { return moves_.data(); }
  const Move* end() const { return moves_.data() + size_; }
  bool contains(Move m) const;

 private:
  std::array<Move, kCapacity> moves_;
  int size_ = 0;
};

// ---------------------------------------------------------------------------
// Rule sets: the points on which the laws disagree, as data (DESIGN.md, "Rule documents").

struct RuleSet {
  enum class Mate : std::uint8_t {
    // Not mate while dropping *some* piece on an interposition square would parry the
    // check, whether or not the player holds one (OTB laws: 000 art. 1.5).
    kNoParryByAnyDrop,
    // Mate when the player has no legal move with the holdings they have now.
    kNoLegalMove,
  };
  enum class NoMoveWithoutCheck : std::uint8_t {
    kWait,  // no stalemate: the player waits for material (OTB)
    kDraw,  // stalemate is a draw
  };

  std::string_view name;
  bool castle_with_dropped_rook = false;
  // Indexed by PieceType; only kKnight..kQueen are meaningful.
  std::array<bool, 5> promotion_pieces{};
  Mate mate = Mate::kNoParryByAnyDrop;
  NoMoveWithoutCheck no_move_without_check = NoMoveWithoutCheck::kWait;
  // Repetition: the same position on one board this many times (holdings excluded).
  int repetition_count = 3;
  // A player mated right after capturing may be answered by the partner dropping that
  // piece, if the partner is to move; a mate by that drop too draws the game (000 art. 1.9).
  bool partner_may_answer_mate = false;

  bool may_promote_to(PieceType t) const {
    return t >= PieceType::kKnight && t <= PieceType::kQueen &&
           promotion_pieces[static_cast<int>(t)];
  }
};

// The rule set of the laws in rules-docs 000 (2024): the default.
const RuleSet& otb_rules();
// FICS / chess.com practice: any promotion piece, mate = no legal move now.
const RuleSet& online_rules();
// By name ("otb", "online"); nullptr when unknown.
const RuleSet* find_rule_set(std::string_view name);
std::vector<std::string_view> rule_set_names();

// ---------------------------------------------------------------------------
// One board with both players' holdings.

class Position {
 public:
  // Empty board, no holdings, White to move, no castling rights.
  Position();
  static Position start();

  Piece piece_at(Square s) const;
  bool is_promoted(Square s) const;  // a pawn moving as the piece it promoted to
  Color side_to_move() const { return side_to_move_; }
  int holding(Color c, PieceType t) const { return holdings_[idx(c)][static_cast<int>(t)]; }
  // Castling rights as KQkq bits: 1 = white king side, 2 = white queen side, 4, 8 for Black.
  unsigned castling_rights() const { return castling_ & kCastlingRightsMask; }
  Square en_passant() const { return en_passant_; }  // kNoSquare when none
  int halfmove_clock() const { return halfmove_clock_; }
  int fullmove_number() const { return fullmove_number_; }

  // Setup (for readers and tests). Keeps the derived state consistent.
  void put(Square s, Piece p, bool promoted = false);
  void remove(Square s);
  void set_holding(Color c, PieceType t, int count);
  void add_holding(Color c, PieceType t, int count = 1);
  void set_side_to_move(Color c);
  void set_castling_rights(unsigned rights);
  void set_en_passant(Square s);
  void set_move_counters(int halfmove_clock, int fullmove_number);

  bool in_check() const;
  // Whether `side`'s pieces attack square s in this position.
  bool attacked_by(Color side, Square s) const;
  Square king_square(Color c) const;

  // Every legal move and drop for the side to move.
  void legal_moves(const RuleSet& rules, MoveList& out) const;
  MoveList legal_moves(const RuleSet& rules) const;
  bool is_legal(Move m, const RuleSet& rules) const;

  // What make() changed, for unmake().
  struct Undo {
    Piece captured;
    bool captured_promoted = false;
    bool moved_promoted = false;
    unsigned castling = 0;
    Square en_passant = kNoSquare;
    int halfmove_clock = 0;
    std::uint64_t key = 0;
  };
  // Plays a legal move. The captured piece leaves the board (in a bughouse game it goes to
  // the partner: see Game); holdings change only by the drop itself.
  Undo make(Move m, const RuleSet& rules);
  void unmake(Move m, const Undo& undo);

  // Hash of the board, side to move, castling and en passant; holdings excluded, as the
  // repetition rule counts positions without them.
  std::uint64_t key() const { return key_; }

  friend bool operator==(const Position& a, const Position& b);

  // Internal representation, exposed read-only for fast code in this library.
  std::uint64_t pieces(Color c) const { return by_color_[idx(c)]; }
  std::uint64_t pieces(PieceType t) const { return by_type_[static_cast<int>(t)]; }
  std::uint64_t pieces(Color c, PieceType t) const { return pieces(c) & pieces(t); }
  std::uint64_t occupied() const { return by_color_[0] | by_color_[1]; }
  std::uint64_t promoted_mask() const { return promoted_; }

 private:
  static constexpr int idx(Color c) { return static_cast<int>(c); }
  // castling_ holds the KQkq rights in its low four bits and, above them, whether each king
  // has never moved (needed where castling with a dropped rook is allowed).
  static constexpr unsigned kCastlingRightsMask = 15u;
  friend class MoveGenerator;
  void put_fast(Square s, Piece p);
  void remove_fast(Square s);
  std::uint64_t compute_key() const;

  std::array<std::uint64_t, 2> by_color_{};
  std::array<std::uint64_t, 6> by_type_{};
  std::array<Piece, 64> board_{};
  std::uint64_t promoted_ = 0;
  std::array<std::array<int, 5>, 2> holdings_{};
  Color side_to_move_ = Color::kWhite;
  unsigned castling_ = 0;
  Square en_passant_ = kNoSquare;
  int halfmove_clock_ = 0;
  int fullmove_number_ = 1;
  std::uint64_t key_ = 0;
};

// What the side to move faces on one board.
enum class BoardStatus : std::uint8_t {
  kPlaying,    // has a legal move
  kCheckmate,  // mated under the rule set's definition
  kStalemate,  // no legal move, not in check, and the rule set calls that a draw
  kMustWait,   // no legal move now, but not mated: waits for a piece from the partner
};
BoardStatus board_status(const Position& pos, const RuleSet& rules);

// Leaf count of the legal move tree to `depth` plies (SPEC.md section 5: captured pieces
// leave the board). Takes the position by value and leaves the caller's untouched.
std::uint64_t perft(Position pos, int depth, const RuleSet& rules);

// ---------------------------------------------------------------------------
// Errors that point into their input.

struct SourceLocation {
  std::string file;         // may be empty for in-memory text
  int line = 0;             // 1-based; 0 when unknown
  int column = 0;           // 1-based; 0 when unknown
  std::string str() const;  // "file:line:column"
};

class ParseError : public std::runtime_error {
 public:
  ParseError(SourceLocation where, const std::string& what);
  const SourceLocation& where() const { return where_; }
  // What went wrong, without the location that what() starts with.
  const std::string& message() const { return message_; }

 private:
  SourceLocation where_;
  std::string message_;
};

// ---------------------------------------------------------------------------
// SAN with drops: reads N@f3, P@e4, @e4, n@f3, chess.com's $146@g4 (knight), e8=Q and e8Q,
// O-O and 0-0, with or without +/#/!/? marks; writes the FIDE form with N@f3 and e8=Q.

// Throws ParseError (location: column within the text, line 0) when the text is no move or
// no legal move matches; the message says which.
Move parse_san(const Position& pos, std::string_view san, const RuleSet& rules);
std::string to_san(const Position& pos, Move m, const RuleSet& rules);

// ---------------------------------------------------------------------------
// The two-board game.

enum class BoardId : std::uint8_t { kA = 0, kB = 1 };
constexpr BoardId other(BoardId b) {
  return b == BoardId::kA ? BoardId::kB : BoardId::kA;
}
char board_letter(BoardId b);  // 'A' or 'B'

// Team 1 is WhiteA and BlackB, team 2 BlackA and WhiteB.
constexpr int team_of(BoardId b, Color c) {
  return (b == BoardId::kA) == (c == Color::kWhite) ? 1 : 2;
}

enum class EndReason : std::uint8_t {
  kCheckmate,
  kFlag,
  kResignation,
  kIllegalMoveClaim,
  kAgreement,
  kRepetition,
  kStalemate,
};

// How the bughouse game ended. winning_team 0 is a draw.
struct GameResult {
  int winning_team = 0;
  BoardId board = BoardId::kA;  // where it ended
  EndReason reason = EndReason::kCheckmate;
  // The player who lost (mated, flagged, resigned, made the illegal move), if any.
  std::optional<Color> loser;
  std::string result_token() const;  // "1-0", "0-1", "1/2-1/2"
};

class Game {
 public:
  explicit Game(const RuleSet& rules = otb_rules());
  Game(const RuleSet& rules, Position a, Position b);

  const RuleSet& rules() const { return *rules_; }
  const Position& board(BoardId b) const { return boards_[static_cast<int>(b)]; }

  // Plays a legal move on one board; a captured piece goes to the partner's holdings
  // (a promoted pawn as a pawn). Throws std::invalid_argument if the move is not legal.
  // After a mate, the partner may still answer with one last move (000 art. 1.9), and that
  // is accepted; anything later throws.
  void play(BoardId b, Move m);

  // Checks the position of both boards after the last move: mate, stalemate where a draw.
  // Simultaneous ends resolve as in 000 art. 1.9-1.10.
  std::optional<GameResult> result() const { return result_; }
  // Ends by an outside event (flag, resignation, agreement, illegal-move claim).
  void end(BoardId b, EndReason reason, std::optional<Color> loser);

  // Times a position (holdings excluded) has stood on a board, counting the current one.
  int repetitions(BoardId b) const;

 private:
  void after_move(BoardId b);
  const RuleSet* rules_;
  std::array<Position, 2> boards_;
  std::array<std::vector<std::uint64_t>, 2> history_;
  std::optional<GameResult> result_;
  // Board whose mate may still be answered on the other board (art. 1.9), and the piece
  // type the answering drop must be.
  std::optional<BoardId> pending_mate_;
  PieceType pending_drop_ = PieceType::kNone;
  // Per board and colour: the type that player's last move captured (kNone if none).
  std::array<std::array<PieceType, 2>, 2> last_capture_{};
};

// ---------------------------------------------------------------------------
// FEN and BFEN (SPEC.md section 5).

// One board: "<8 ranks>/<holdings> w KQkq - <white s> <black s>" (2024 layout), also
// "<8 ranks>/<holdings> KQkq - w ...", the bracket form "<8 ranks>[Qn] w KQkq - 0 1", and a
// plain FEN. Trailing numbers are kept as written in `clocks`.
struct BoardFen {
  Position position;
  std::vector<std::string> trailing;  // fields after en passant (times or move counters)
};
BoardFen parse_fen(std::string_view text, SourceLocation where = {});
// Written in the 2024 layout: holdings after an eighth '/', then side, castling, en passant,
// then `trailing` if any.
std::string to_fen(const Position& pos, const std::vector<std::string>& trailing = {});

struct Bfen {
  BoardFen a;
  std::optional<BoardFen> b;  // absent for a one-board BFEN
};
Bfen parse_bfen(std::string_view text, SourceLocation where = {});
std::string to_bfen(const Bfen& bfen);
std::string to_bfen(const Position& a, const Position& b);

// ---------------------------------------------------------------------------
// BPGN (SPEC.md section 3).

struct BpgnMove {
  BoardId board = BoardId::kA;
  Color color = Color::kWhite;
  int number = 1;                     // the move number as written (per board)
  std::string san;                    // as written, e.g. "N@f3" or "$146@g4"
  std::optional<double> clock;        // mover's remaining time in seconds after the move
  std::optional<double> timestamp;    // {[%ts S]}: seconds from the start of the game
  std::vector<std::string> comments;  // other comments after the move, braces stripped
  SourceLocation where;               // of the move text
};

struct BpgnGame {
  std::vector<std::pair<std::string, std::string>> tags;  // in file order
  std::vector<BpgnMove> moves;                            // in the order completed
  std::string result = "*";
  std::string result_comment;         // e.g. "BlackA checkmated"
  std::vector<std::string> comments;  // comments before the first move
  SourceLocation where;               // of the first tag

  std::optional<std::string> tag(std::string_view name) const;
  void set_tag(std::string_view name, std::string value);
};

// Reads every game in a BPGN text. Throws ParseError naming file, line and column.
std::vector<BpgnGame> parse_bpgn(std::string_view text, const std::string& file_name = {});
// Writes the bughousedb/FICS dialect of SPEC.md section 3 (clock after each move, then
// {[%ts S]} where known).
std::string write_bpgn(const BpgnGame& game);

// A PGN TimeControl tag's sudden-death or incremental form: "180" or "180+2" (seconds).
struct TimeControl {
  double base_seconds = 0.0;
  double increment_seconds = 0.0;
};
// std::nullopt for "?" and "-" (unknown, none) and for any other form (moves-per-period,
// sandclock), which the clocks of a bughouse game do not use.
std::optional<TimeControl> parse_time_control(std::string_view tag);

// A game record replayed through the rules.
struct ReplayedPly {
  BoardId board;
  Move move;
  std::string san;  // as the engine writes it
  Position before;  // the board the move was played on, before it
};
struct Replay {
  std::vector<ReplayedPly> plies;
  Game final_game;
  // Set when a move could not be played: which ply (0-based) and why.
  std::optional<ParseError> error;
  std::optional<int> error_ply;
};
// Starting positions come from the FEN tag where there is one. Never throws for an illegal
// move: the replay stops there and says why.
Replay replay(const BpgnGame& game, const RuleSet& rules = otb_rules());

}  // namespace bugcam::rules
