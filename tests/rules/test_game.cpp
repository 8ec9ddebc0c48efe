// The two-board game: passing captures, results, simultaneous ends (000 art. 1.9-1.10).
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "bugcam/rules.hpp"

namespace bugcam::rules {
namespace {

Square sq(const char* name) {
  return *parse_square(name);
}

Position fen(const std::string& text) {
  return parse_fen(text).position;
}

TEST(Game, CapturedPieceGoesToThePartnerInTheCapturedPiecesColour) {
  Game game;
  game.play(BoardId::kA, Move::normal(sq("e2"), sq("e4")));
  game.play(BoardId::kA, Move::normal(sq("d7"), sq("d5")));
  game.play(BoardId::kA, Move::normal(sq("e4"), sq("d5")));  // White A takes a black pawn
  // White A's partner is Black B, who may now drop a black pawn.
  EXPECT_EQ(game.board(BoardId::kB).holding(Color::kBlack, PieceType::kPawn), 1);
  EXPECT_EQ(game.board(BoardId::kB).holding(Color::kWhite, PieceType::kPawn), 0);
  EXPECT_EQ(game.board(BoardId::kA).holding(Color::kWhite, PieceType::kPawn), 0);
}

TEST(Game, ACapturedPromotedPieceIsPassedAsAPawn) {
  // Black A takes a promoted white queen on b8: Black A's partner (White B) gets a pawn.
  Position a = fen("rQ~6/8/8/8/8/8/k7/7K b - - 0 1");
  Game game(otb_rules(), a, Position::start());
  game.play(BoardId::kA, Move::normal(sq("a8"), sq("b8")));
  EXPECT_EQ(game.board(BoardId::kB).holding(Color::kWhite, PieceType::kPawn), 1);
  EXPECT_EQ(game.board(BoardId::kB).holding(Color::kWhite, PieceType::kQueen), 0);
}

TEST(Game, IllegalMovesAreRefused) {
  Game game;
  EXPECT_THROW(game.play(BoardId::kA, Move::normal(sq("e2"), sq("e5"))), std::invalid_argument);
  EXPECT_THROW(game.play(BoardId::kB, Move::drop(PieceType::kKnight, sq("e4"))),
               std::invalid_argument);  // nothing in hand
}

TEST(Game, MateOnOneBoardEndsTheGameForTheMatingTeam) {
  // Board B: Black B's king g8 boxed in by its own pawns; Q@g7 is protected by the h6 bishop.
  const Position mate_ready = fen("6k1/5p1p/6pB/8/8/8/5PPP/6K1/Q w - - 0 1");
  Game game(otb_rules(), Position::start(), mate_ready);
  game.play(BoardId::kB, Move::drop(PieceType::kQueen, sq("g7")));
  ASSERT_TRUE(game.result().has_value());
  EXPECT_EQ(game.result()->reason, EndReason::kCheckmate);
  EXPECT_EQ(game.result()->board, BoardId::kB);
  EXPECT_EQ(game.result()->loser, Color::kBlack);
  EXPECT_EQ(game.result()->winning_team, 2);  // White B plays for team 2
  EXPECT_EQ(game.result()->result_token(), "0-1");
  EXPECT_THROW(game.play(BoardId::kA, Move::normal(sq("e2"), sq("e4"))), std::invalid_argument);
}

// Board A, Black to move: Rxb2 takes a bishop (passed to White B), then Qg7# by contact.
const char* const kBoardAMatedAfterCapture = "1r5k/7p/5P2/8/8/8/1B6/6QK b - - 0 1";
// Board B, White to move: a bishop dropped on g7 mates by contact (g8 own knight, h7 own
// pawn, g7 protected by f6).
const char* const kBoardBBishopDropMates = "6nk/7p/5P2/8/8/8/8/7K w - - 0 1";

Game game_with_mate_on_a() {
  Game game(otb_rules(), fen(kBoardAMatedAfterCapture), fen(kBoardBBishopDropMates));
  game.play(BoardId::kA, Move::normal(sq("b8"), sq("b2")));
  EXPECT_EQ(game.board(BoardId::kB).holding(Color::kWhite, PieceType::kBishop), 1);
  game.play(BoardId::kA, Move::normal(sq("g1"), sq("g7")));
  return game;
}

TEST(Game, MateAfterACaptureStandsWhenThePartnersDropDoesNotMate) {
  Game game = game_with_mate_on_a();
  ASSERT_TRUE(game.result().has_value());
  EXPECT_EQ(game.result()->winning_team, 1);  // White A
  game.play(BoardId::kB, Move::drop(PieceType::kBishop, sq("c4")));
  EXPECT_EQ(game.result()->winning_team, 1);
  EXPECT_THROW(game.play(BoardId::kB, Move::normal(sq("h8"), sq("g8"))), std::exception);
}

TEST(Game, PartnersDropOfTheCapturedPieceWithMateDrawsTheGame) {
  // 000 art. 1.9 and 1.10.
  Game game = game_with_mate_on_a();
  game.play(BoardId::kB, Move::drop(PieceType::kBishop, sq("g7")));
  ASSERT_TRUE(game.result().has_value());
  EXPECT_EQ(game.result()->winning_team, 0);
  EXPECT_EQ(game.result()->result_token(), "1/2-1/2");
}

TEST(Game, OnlyTheCapturedPieceMayAnswerTheMate) {
  Game game = game_with_mate_on_a();
  EXPECT_THROW(game.play(BoardId::kB, Move::normal(sq("h1"), sq("g1"))), std::invalid_argument);
}

TEST(Game, NoAnswerUnderOnlineRules) {
  Game game(online_rules(), fen(kBoardAMatedAfterCapture), fen(kBoardBBishopDropMates));
  game.play(BoardId::kA, Move::normal(sq("b8"), sq("b2")));
  game.play(BoardId::kA, Move::normal(sq("g1"), sq("g7")));
  ASSERT_TRUE(game.result().has_value());
  EXPECT_THROW(game.play(BoardId::kB, Move::drop(PieceType::kBishop, sq("g7"))),
               std::invalid_argument);
}

TEST(Game, OutsideEndsDecideTheTeam) {
  Game flagged;
  flagged.end(BoardId::kB, EndReason::kFlag, Color::kWhite);  // White B's flag falls
  EXPECT_EQ(flagged.result()->winning_team, 1);
  Game agreed;
  agreed.end(BoardId::kA, EndReason::kAgreement, std::nullopt);
  EXPECT_EQ(agreed.result()->winning_team, 0);
  agreed.end(BoardId::kB, EndReason::kResignation, Color::kBlack);  // too late: already over
  EXPECT_EQ(agreed.result()->winning_team, 0);
}

TEST(Game, RepetitionCountsPositionsWithoutHoldings) {
  Game game;
  const char* shuffle[][2] = {{"g1", "f3"}, {"g8", "f6"}, {"f3", "g1"}, {"f6", "g8"}};
  EXPECT_EQ(game.repetitions(BoardId::kA), 1);
  for (int round = 0; round < 2; ++round) {
    for (const auto& m : shuffle) game.play(BoardId::kA, Move::normal(sq(m[0]), sq(m[1])));
    // A capture on board B changes board A's holdings but not the repetition count.
    if (round == 0) {
      game.play(BoardId::kB, Move::normal(sq("e2"), sq("e4")));
      game.play(BoardId::kB, Move::normal(sq("d7"), sq("d5")));
      game.play(BoardId::kB, Move::normal(sq("e4"), sq("d5")));
      ASSERT_EQ(game.board(BoardId::kA).holding(Color::kBlack, PieceType::kPawn), 1);
    }
  }
  EXPECT_EQ(game.repetitions(BoardId::kA), 3);
}

}  // namespace
}  // namespace bugcam::rules
