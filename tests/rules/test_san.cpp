// SAN with drops: the forms people and servers write, the messages for moves that do not fit,
// and the FIDE form the engine writes.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "bugcam/rules.hpp"

namespace bugcam::rules {
namespace {

Square sq(const char* name) {
  return *parse_square(name);
}
Position fen(const std::string& text) {
  return parse_fen(text).position;
}

// The message of a ParseError thrown by parse_san, and its column.
struct SanFailure {
  std::string message;
  int column = 0;
};
SanFailure san_failure(const Position& pos, const std::string& san,
                       const RuleSet& rules = otb_rules()) {
  try {
    const Move m = parse_san(pos, san, rules);
    ADD_FAILURE() << "'" << san << "' was read as " << m.uci();
  } catch (const ParseError& e) {
    const std::string what = e.what();
    const std::string prefix = e.where().str() + ": ";
    EXPECT_EQ(what.rfind(prefix, 0), 0u) << what;
    return {what.substr(prefix.size()), e.where().column};
  }
  return {};
}

TEST(ParseSan, PawnAndPieceMovesFromTheStart) {
  const Position start = Position::start();
  EXPECT_EQ(parse_san(start, "e4", otb_rules()), Move::normal(sq("e2"), sq("e4")));
  EXPECT_EQ(parse_san(start, "e3", otb_rules()), Move::normal(sq("e2"), sq("e3")));
  EXPECT_EQ(parse_san(start, "Nf3", otb_rules()), Move::normal(sq("g1"), sq("f3")));
  EXPECT_EQ(parse_san(start, "Ng1f3", otb_rules()), Move::normal(sq("g1"), sq("f3")));
  EXPECT_EQ(parse_san(start, "e2e4", otb_rules()), Move::normal(sq("e2"), sq("e4")));
  EXPECT_EQ(parse_san(start, "e2-e4", otb_rules()), Move::normal(sq("e2"), sq("e4")));
}

TEST(ParseSan, TrailingMarksAndSpacesAreIgnored) {
  const Position start = Position::start();
  const Move nf3 = Move::normal(sq("g1"), sq("f3"));
  for (const char* text : {"Nf3+", "Nf3#", "Nf3!", "Nf3?", "Nf3!?", "Nf3+!!", " Nf3 "}) {
    EXPECT_EQ(parse_san(start, text, otb_rules()), nf3) << text;
  }
}

TEST(ParseSan, DropsInEveryWrittenForm) {
  const Position pos = fen("4k3/8/8/8/8/8/8/4K3/NP w - - 0 1");
  const Move knight = Move::drop(PieceType::kKnight, sq("f3"));
  EXPECT_EQ(parse_san(pos, "N@f3", otb_rules()), knight);
  EXPECT_EQ(parse_san(pos, "n@f3", otb_rules()), knight);
  EXPECT_EQ(parse_san(pos, "$146@f3", otb_rules()), knight);  // chess.com
  EXPECT_EQ(parse_san(pos, "N@f3+", otb_rules()), knight);
  const Move pawn = Move::drop(PieceType::kPawn, sq("e4"));
  EXPECT_EQ(parse_san(pos, "P@e4", otb_rules()), pawn);
  EXPECT_EQ(parse_san(pos, "p@e4", otb_rules()), pawn);
  EXPECT_EQ(parse_san(pos, "@e4", otb_rules()), pawn);
}

TEST(ParseSan, DropThatCannotBeMadeSaysWhy) {
  const Position pos = fen("4k3/8/8/8/8/8/8/4K3/NP w - - 0 1");
  EXPECT_EQ(san_failure(pos, "B@f3").message,
            "no legal move matches 'B@f3': White holds no bishop");
  EXPECT_EQ(san_failure(pos, "N@e1").message,
            "no legal move matches 'N@e1': cannot drop on e1: it is occupied");
  EXPECT_EQ(san_failure(pos, "P@a8").message,
            "no legal move matches 'P@a8': a pawn cannot be dropped on the first or last rank");
  EXPECT_EQ(san_failure(pos, "K@e4").message, "a king cannot be dropped");
  const SanFailure bad_square = san_failure(pos, "N@z9");
  EXPECT_EQ(bad_square.message, "expected a square after '@', found 'z9'");
  EXPECT_EQ(bad_square.column, 3);
  const SanFailure bad_piece = san_failure(pos, "X@e4");
  EXPECT_NE(bad_piece.message.find("expected a piece letter"), std::string::npos);
  EXPECT_EQ(bad_piece.column, 1);
}

TEST(ParseSan, PromotionWithAndWithoutEqualsSign) {
  const Position pos = fen("3r3k/4P3/8/8/8/8/8/K7 w - - 0 1");
  const Move queen = Move::promotion(sq("e7"), sq("e8"), PieceType::kQueen);
  EXPECT_EQ(parse_san(pos, "e8=Q", otb_rules()), queen);
  EXPECT_EQ(parse_san(pos, "e8Q", otb_rules()), queen);
  EXPECT_EQ(parse_san(pos, "e8=q", otb_rules()), queen);
  EXPECT_EQ(parse_san(pos, "e8=Q+", otb_rules()), queen);
  EXPECT_EQ(parse_san(pos, "exd8=N", otb_rules()),
            Move::promotion(sq("e7"), sq("d8"), PieceType::kKnight));
  EXPECT_EQ(parse_san(pos, "ed8N", otb_rules()),
            Move::promotion(sq("e7"), sq("d8"), PieceType::kKnight));
}

TEST(ParseSan, PromotionPieceMustBeNamedAndAllowed) {
  const Position pos = fen("7k/4P3/8/8/8/8/8/K7 w - - 0 1");
  EXPECT_EQ(san_failure(pos, "e8").message, "'e8' needs a promotion piece: e8=N, e8=Q");
  // The 2024 laws allow only a queen or a knight (000 E10); online servers allow any piece.
  EXPECT_EQ(san_failure(pos, "e8=R").message,
            "no legal move matches 'e8=R': promotion to a rook is not allowed under the 'otb' "
            "rules");
  EXPECT_EQ(parse_san(pos, "e8=R", online_rules()),
            Move::promotion(sq("e7"), sq("e8"), PieceType::kRook));
  EXPECT_EQ(san_failure(pos, "Ne8=Q").message, "only a pawn can promote, in 'Ne8=Q'");
}

TEST(ParseSan, CastlingWithLettersOrZeros) {
  const Position pos = fen("r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1");
  const Move short_castle = Move::castle(sq("e1"), sq("g1"));
  const Move long_castle = Move::castle(sq("e1"), sq("c1"));
  EXPECT_EQ(parse_san(pos, "O-O", otb_rules()), short_castle);
  EXPECT_EQ(parse_san(pos, "0-0", otb_rules()), short_castle);
  EXPECT_EQ(parse_san(pos, "O-O+", otb_rules()), short_castle);
  EXPECT_EQ(parse_san(pos, "O-O-O", otb_rules()), long_castle);
  EXPECT_EQ(parse_san(pos, "0-0-0", otb_rules()), long_castle);
  const Position no_rights = fen("r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w - - 0 1");
  EXPECT_EQ(san_failure(no_rights, "O-O").message,
            "no legal move matches 'O-O': White cannot castle king side");
}

TEST(ParseSan, DisambiguationByFileRankOrSquare) {
  const Position knights = fen("rn2k3/8/5n2/8/8/8/8/4K3 b - - 0 1");
  EXPECT_EQ(parse_san(knights, "Nbd7", otb_rules()), Move::normal(sq("b8"), sq("d7")));
  EXPECT_EQ(parse_san(knights, "Nfd7", otb_rules()), Move::normal(sq("f6"), sq("d7")));
  EXPECT_EQ(san_failure(knights, "Nd7").message, "ambiguous 'Nd7': Nb8d7, Nf6d7");

  const Position rooks = fen("7k/8/8/8/8/8/4R3/R3K3 w - - 0 1");
  EXPECT_EQ(parse_san(rooks, "Rea2", otb_rules()), Move::normal(sq("e2"), sq("a2")));
  EXPECT_EQ(parse_san(rooks, "R1a2", otb_rules()), Move::normal(sq("a1"), sq("a2")));

  const Position queens = fen("1k6/8/8/8/4Q2Q/8/8/K6Q w - - 0 1");
  EXPECT_EQ(parse_san(queens, "Qh4e1", otb_rules()), Move::normal(sq("h4"), sq("e1")));
  EXPECT_EQ(san_failure(queens, "Qhe1").message, "ambiguous 'Qhe1': Qh1e1, Qh4e1");
  EXPECT_EQ(san_failure(queens, "Qe1").message, "ambiguous 'Qe1': Qe4e1, Qh1e1, Qh4e1");
}

TEST(ParseSan, CaptureMarkIsNeitherRequiredNorTrusted) {
  const Position pos = fen("4k3/8/8/3p4/8/2N5/8/4K3 w - - 0 1");
  const Move take = Move::normal(sq("c3"), sq("d5"));
  EXPECT_EQ(parse_san(pos, "Nxd5", otb_rules()), take);
  EXPECT_EQ(parse_san(pos, "Nd5", otb_rules()), take);
  EXPECT_EQ(parse_san(pos, "Nxe4", otb_rules()), Move::normal(sq("c3"), sq("e4")));
}

TEST(ParseSan, EnPassant) {
  const Position pos = fen("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1");
  const Move ep = Move::en_passant(sq("e5"), sq("d6"));
  EXPECT_EQ(parse_san(pos, "exd6", otb_rules()), ep);
  EXPECT_EQ(parse_san(pos, "exd6 e.p.", otb_rules()), ep);
  EXPECT_EQ(parse_san(pos, "exd6e.p.", otb_rules()), ep);
}

TEST(ParseSan, NoMatchNamesThePieceAndSquare) {
  const SanFailure failure = san_failure(Position::start(), "Qe7+");
  EXPECT_EQ(failure.message, "no legal move matches 'Qe7+': no white queen can reach e7");
  EXPECT_EQ(failure.column, 1);
  EXPECT_EQ(san_failure(Position::start(), "Nbd2").message,
            "no legal move matches 'Nbd2': no white knight on the b-file can reach d2");
  EXPECT_EQ(san_failure(Position::start(), "e5").message,
            "no legal move matches 'e5': no white pawn can reach e5");
  const Position in_check = fen("4k3/8/8/8/8/8/3q4/4K3 w - - 0 1");
  EXPECT_EQ(san_failure(in_check, "Kf2").message,
            "no legal move matches 'Kf2': no white king can reach f2 (White is in check)");
}

TEST(ParseSan, TextThatIsNoMoveSaysWhereItGoesWrong) {
  const Position start = Position::start();
  EXPECT_EQ(san_failure(start, "").message, "expected a move, found nothing");
  EXPECT_EQ(san_failure(start, "+").message, "expected a move before '+'");
  const SanFailure junk = san_failure(start, "Nzz3");
  EXPECT_NE(junk.message.find("expected a destination square in 'Nzz3'"), std::string::npos);
  const SanFailure extra = san_failure(start, "Ng1hf3");
  EXPECT_EQ(extra.message, "unexpected 'h' in 'Ng1hf3'");
  EXPECT_EQ(extra.column, 4);
}

TEST(ToSan, WritesFideFormWithDropsAndPromotions) {
  const Position start = Position::start();
  EXPECT_EQ(to_san(start, Move::normal(sq("e2"), sq("e4")), otb_rules()), "e4");
  EXPECT_EQ(to_san(start, Move::normal(sq("g1"), sq("f3")), otb_rules()), "Nf3");
  const Position holding = fen("4k3/8/8/8/8/8/8/4K3/NP w - - 0 1");
  EXPECT_EQ(to_san(holding, Move::drop(PieceType::kKnight, sq("f3")), otb_rules()), "N@f3");
  EXPECT_EQ(to_san(holding, Move::drop(PieceType::kPawn, sq("e4")), otb_rules()), "P@e4");
  const Position promote = fen("3r3k/4P3/8/8/8/8/8/K7 w - - 0 1");
  EXPECT_EQ(to_san(promote, Move::promotion(sq("e7"), sq("e8"), PieceType::kQueen), otb_rules()),
            "e8=Q+");
  EXPECT_EQ(to_san(promote, Move::promotion(sq("e7"), sq("d8"), PieceType::kKnight), otb_rules()),
            "exd8=N");
  const Position ep = fen("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1");
  EXPECT_EQ(to_san(ep, Move::en_passant(sq("e5"), sq("d6")), otb_rules()), "exd6");
  const Position castle = fen("r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1");
  EXPECT_EQ(to_san(castle, Move::castle(sq("e1"), sq("g1")), otb_rules()), "O-O");
  EXPECT_EQ(to_san(castle, Move::castle(sq("e1"), sq("c1")), otb_rules()), "O-O-O");
}

TEST(ToSan, MinimalDisambiguation) {
  const Position knights = fen("rn2k3/8/5n2/8/8/8/8/4K3 b - - 0 1");
  EXPECT_EQ(to_san(knights, Move::normal(sq("b8"), sq("d7")), otb_rules()), "Nbd7");
  EXPECT_EQ(to_san(knights, Move::normal(sq("f6"), sq("e4")), otb_rules()), "Ne4");
  const Position rooks = fen("7k/8/8/8/8/8/4R3/R3K3 w - - 0 1");
  EXPECT_EQ(to_san(rooks, Move::normal(sq("a1"), sq("a2")), otb_rules()), "Raa2");
  const Position file_rooks = fen("R7/8/8/8/8/8/8/R3K2k w - - 0 1");
  EXPECT_EQ(to_san(file_rooks, Move::normal(sq("a1"), sq("a4")), otb_rules()), "R1a4");
  const Position queens = fen("1k6/8/8/8/4Q2Q/8/8/K6Q w - - 0 1");
  EXPECT_EQ(to_san(queens, Move::normal(sq("h4"), sq("e1")), otb_rules()), "Qh4e1");
}

TEST(ToSan, MateMarkFollowsTheRuleSetsDefinitionOfMate) {
  // Ra1+ checks along the first rank; White holds nothing. Online that is mate (no legal
  // move); under the OTB laws a drop on b1..g1 would parry it, so it is only check.
  const Position pos = fen("6k1/5ppp/8/8/8/8/r5PP/7K b - - 0 1");
  const Move rook_check = Move::normal(sq("a2"), sq("a1"));
  EXPECT_EQ(to_san(pos, rook_check, online_rules()), "Ra1#");
  EXPECT_EQ(to_san(pos, rook_check, otb_rules()), "Ra1+");
  // A smothered knight check cannot be parried by any drop: mate under both.
  const Position smother = fen("6rk/6pp/8/6N1/8/8/8/K7 w - - 0 1");
  EXPECT_EQ(to_san(smother, Move::normal(sq("g5"), sq("f7")), otb_rules()), "Nf7#");
}

TEST(ToSan, RefusesAnIllegalMove) {
  EXPECT_THROW(to_san(Position::start(), Move::normal(sq("e2"), sq("e5")), otb_rules()),
               std::invalid_argument);
}

// Every legal move, written and read back, is the same move, in positions with drops,
// promotions, castling and several pieces able to reach one square.
TEST(SanRoundTrip, EveryLegalMoveReadsBackAsItself) {
  const std::vector<std::string> fens = {
      "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R/NBqp w KQkq - 0 1",
      "4k3/1P6/8/8/8/8/6p1/R3K2R/QRBNPqrbnp w KQ - 0 1",
      "4k3/8/8/3N1N2/2N3N1/8/2N1N3/4K3 w - - 0 1",
      "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR/Pp w KQkq f6 0 3",
  };
  for (const RuleSet* rules : {&otb_rules(), &online_rules()}) {
    for (const std::string& text : fens) {
      const Position pos = fen(text);
      const MoveList moves = pos.legal_moves(*rules);
      ASSERT_FALSE(moves.empty()) << text;
      for (const Move m : moves) {
        const std::string san = to_san(pos, m, *rules);
        EXPECT_EQ(parse_san(pos, san, *rules), m) << text << ": " << san;
      }
    }
  }
}

}  // namespace
}  // namespace bugcam::rules
