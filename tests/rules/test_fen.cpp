// FEN and BFEN: the layouts of the rule documents, what is written, round trips through
// every position of the real games, and errors that point at the offending character.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "bugcam/rules.hpp"
#include "support.hpp"

namespace bugcam::rules {
namespace {

using test::read_text;
using test::real_game_files;

Square sq(const char* name) {
  return *parse_square(name);
}

// The board A of the 2024 example (000, "BFEN příklad") in the 2024 and the older layout.
constexpr const char* kExample2024 =
    "r2k1r2/pbppNppp/1p2p1nb/1P5N/3N4/4Pn1q/PPP1QP1P/2KR2R1/BBBNqrppp w - - 45 56 | "
    "Q~4rk1/8/8/8/8/8/8/R3K2R w KQ - 45 60";
constexpr const char* kExampleOlder =
    "r2k1r2/pbppNppp/1p2p1nb/1P5N/3N4/4Pn1q/PPP1QP1P/2KR2R1/BrpBBqppN - - w 45 56 | "
    "Q~4rk1/8/8/8/8/8/8/R3K2R KQ - w 45 60";

TEST(Fen, ReadsThe2024LayoutOfTheRuleDocuments) {
  const Bfen bfen = parse_bfen(kExample2024);
  const Position& a = bfen.a.position;
  EXPECT_EQ(a.piece_at(sq("d8")), (Piece{Color::kBlack, PieceType::kKing}));
  EXPECT_EQ(a.piece_at(sq("e7")), (Piece{Color::kWhite, PieceType::kKnight}));
  EXPECT_EQ(a.piece_at(sq("c1")), (Piece{Color::kWhite, PieceType::kKing}));
  EXPECT_EQ(a.holding(Color::kWhite, PieceType::kBishop), 3);
  EXPECT_EQ(a.holding(Color::kWhite, PieceType::kKnight), 1);
  EXPECT_EQ(a.holding(Color::kBlack, PieceType::kQueen), 1);
  EXPECT_EQ(a.holding(Color::kBlack, PieceType::kRook), 1);
  EXPECT_EQ(a.holding(Color::kBlack, PieceType::kPawn), 3);
  EXPECT_EQ(a.holding(Color::kWhite, PieceType::kPawn), 0);
  EXPECT_EQ(a.side_to_move(), Color::kWhite);
  EXPECT_EQ(a.castling_rights(), 0u);
  EXPECT_EQ(bfen.a.trailing, (std::vector<std::string>{"45", "56"}));
  ASSERT_TRUE(bfen.b.has_value());
  const Position& b = bfen.b->position;
  EXPECT_EQ(b.piece_at(sq("a8")), (Piece{Color::kWhite, PieceType::kQueen}));
  EXPECT_TRUE(b.is_promoted(sq("a8")));
  EXPECT_FALSE(b.is_promoted(sq("a1")));
  EXPECT_EQ(b.castling_rights(), 3u);  // KQ
  EXPECT_EQ(bfen.b->trailing, (std::vector<std::string>{"45", "60"}));
}

TEST(Fen, OlderLayoutReadsAsTheSamePositions) {
  const Bfen newer = parse_bfen(kExample2024);
  const Bfen older = parse_bfen(kExampleOlder);
  EXPECT_EQ(older.a.position, newer.a.position);
  ASSERT_TRUE(older.b.has_value());
  EXPECT_EQ(older.b->position, newer.b->position);
  EXPECT_EQ(older.a.trailing, newer.a.trailing);
}

TEST(Fen, BracketFormPlainFenAndEmptyHoldingsAgree) {
  const Position with_slash =
      parse_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR/Qn w KQkq - 0 1").position;
  const Position with_brackets =
      parse_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[Qn] w KQkq - 0 1").position;
  EXPECT_EQ(with_slash, with_brackets);
  EXPECT_EQ(with_brackets.holding(Color::kWhite, PieceType::kQueen), 1);
  EXPECT_EQ(with_brackets.holding(Color::kBlack, PieceType::kKnight), 1);

  const Position start = Position::start();
  EXPECT_EQ(parse_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1").position, start);
  // chess.com writes the slash with nothing after it.
  EXPECT_EQ(parse_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR/ w KQkq - 0 1").position, start);
  EXPECT_EQ(parse_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq -").position, start);
  EXPECT_EQ(parse_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w").position.castling_rights(),
            0u);
}

TEST(Fen, EnPassantSquareIsKept) {
  const Position pos =
      parse_fen("rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 3").position;
  EXPECT_EQ(pos.en_passant(), sq("e3"));
  EXPECT_EQ(pos.side_to_move(), Color::kBlack);
}

TEST(Fen, WritesThe2024Layout) {
  EXPECT_EQ(to_fen(Position::start()), "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -");
  Position pos = parse_fen("4k3/8/8/8/8/8/8/Q~3K3 b - - 0 1").position;
  pos.add_holding(Color::kWhite, PieceType::kPawn, 2);
  pos.add_holding(Color::kWhite, PieceType::kQueen);
  pos.add_holding(Color::kBlack, PieceType::kKnight);
  EXPECT_EQ(to_fen(pos, {"45", "56.5"}), "4k3/8/8/8/8/8/8/Q~3K3/QPPn b - - 45 56.5");
  EXPECT_EQ(to_bfen(Bfen{BoardFen{pos, {}}, std::nullopt}), "4k3/8/8/8/8/8/8/Q~3K3/QPPn b - -");
  EXPECT_EQ(
      to_bfen(Position::start(), pos),
      "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - | 4k3/8/8/8/8/8/8/Q~3K3/QPPn b - -");
  // What is written reads back.
  EXPECT_EQ(parse_fen(to_fen(pos)).position, pos);
  const Bfen example = parse_bfen(kExample2024);
  EXPECT_EQ(to_bfen(example),
            "r2k1r2/pbppNppp/1p2p1nb/1P5N/3N4/4Pn1q/PPP1QP1P/2KR2R1/BBBNqrppp w - - 45 56 | "
            "Q~4rk1/8/8/8/8/8/8/R3K2R w KQ - 45 60");
}

// Every position of every real game, written as BFEN, reads back as the same two positions.
TEST(Fen, EveryPositionOfTheRealGamesRoundTrips) {
  int positions = 0;
  for (const auto& path : real_game_files()) {
    for (const BpgnGame& game : parse_bpgn(read_text(path), path)) {
      const Replay replay = bugcam::rules::replay(game);
      for (const ReplayedPly& ply : replay.plies) {
        const Bfen back = parse_bfen(to_bfen(ply.before, ply.before));
        ASSERT_EQ(back.a.position, ply.before) << path << ": " << to_fen(ply.before);
        ASSERT_TRUE(back.b.has_value());
        ASSERT_EQ(back.b->position, ply.before);
        ++positions;
      }
      const Position& a = replay.final_game.board(BoardId::kA);
      const Position& b = replay.final_game.board(BoardId::kB);
      const Bfen back = parse_bfen(to_bfen(a, b));
      EXPECT_EQ(back.a.position, a) << to_bfen(a, b);
      EXPECT_EQ(back.b->position, b) << to_bfen(a, b);
    }
  }
  // The real games hold thousands of positions; fewer means they were not read.
  EXPECT_GT(positions, 10000);
}

struct FenFailure {
  std::string message;
  SourceLocation where;
};
FenFailure fen_failure(const std::string& text, SourceLocation where = {}) {
  try {
    parse_bfen(text, where);
    ADD_FAILURE() << "read without error: " << text;
  } catch (const ParseError& e) {
    const std::string what = e.what();
    const std::string prefix = e.where().str() + ": ";
    EXPECT_EQ(what.rfind(prefix, 0), 0u) << what;
    return {what.substr(prefix.size()), e.where()};
  }
  return {};
}

TEST(FenErrors, NameLineAndColumnFromWhereTheTextStands) {
  // The text stands at line 3, column 10 of some file: the bad 'X' is 13 characters in.
  const FenFailure failure =
      fen_failure("rnbqkbnr/pppXpppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", {"game.bpgn", 3, 10});
  EXPECT_EQ(failure.where.file, "game.bpgn");
  EXPECT_EQ(failure.where.line, 3);
  EXPECT_EQ(failure.where.column, 10 + 12);
  EXPECT_EQ(failure.message, "expected a piece letter, a digit or '/' in the board, found 'X'");
  // Board B's errors count from the start of the whole BFEN.
  const std::string a = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - | ";
  const FenFailure on_b =
      fen_failure(a + "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq -", {"f", 1, 1});
  EXPECT_EQ(on_b.where.column, static_cast<int>(a.size()) + 1 + 44);
}

TEST(FenErrors, SayWhatWasExpected) {
  const auto message = [](const std::string& text) { return fen_failure(text).message; };
  EXPECT_EQ(message(""), "expected a FEN board description, found nothing");
  EXPECT_EQ(message("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq -"),
            "the board ends after 7 ranks; expected 8 ranks of 8 squares");
  EXPECT_EQ(message("rnbqkbnr/ppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -"),
            "rank 7 has 7 squares, expected 8");
  EXPECT_EQ(message("rnbqkbnr/pppppppp/54/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -"),
            "rank 6 has more than 8 squares");
  EXPECT_EQ(message("rnbqkbnP/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -"),
            "a pawn cannot stand on h8");
  EXPECT_EQ(message("k1K1K3/8/8/8/8/8/8/8 w - -"), "a second white king");
  EXPECT_EQ(message("4k3/8/8/8/8/8/8/4K3/K w - -"),
            "expected a held piece (PNBRQ or pnbrq), found 'K'");
  EXPECT_EQ(message("4k3/8/8/8/8/8/8/4K3"),
            "expected the side to move ('w' or 'b') after the board");
  EXPECT_EQ(message("4k3/8/8/8/8/8/8/4K3 w X -"),
            "expected castling rights (KQkq or '-'), found 'X'");
  EXPECT_EQ(message("4k3/8/8/8/8/8/8/4K3 w K -"),
            "castling right 'K' needs the king on e1 and a rook on h1");
  EXPECT_EQ(message("4k3/8/8/8/4P3/8/8/4K3 b - e4"),
            "en passant square e4 does not follow a two-square move of a white pawn");
  EXPECT_EQ(message("4k3/8/8/8/8/8/8/4K3 w - - 0 1 2"),
            "unexpected '2' after the two numbers that end a FEN");
  EXPECT_EQ(message("4k3/8/8/8/8/8/8/4K3 w - - zero"),
            "expected a number (a time or move counter), found 'zero'");
  EXPECT_EQ(message("4k3/8/8/8/8/8/8/P~3K3 w - -"),
            "'~' marks a promoted pawn; it cannot follow a pawn or king");
  EXPECT_EQ(message("4k3/4Q3/8/8/8/8/8/4K3 w - -"), "Black is in check but it is White's move");
  EXPECT_EQ(message("4k3/8/8/8/8/8/8/4K3 w - - | 4k3/8/8/8/8/8/8/4K3 w - - | 8/8/8/8/8/8/8/8 w"),
            "expected at most two boards separated by one '|'");
}

}  // namespace
}  // namespace bugcam::rules
