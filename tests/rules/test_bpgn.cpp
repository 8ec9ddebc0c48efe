// BPGN: the dialects of the real records, the dialect written (SPEC.md section 3), round
// trips, replay through the rules, and parse errors that name line and column.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "bugcam/rules.hpp"
#include "support.hpp"

namespace bugcam::rules {
namespace {

using test::read_text;
using test::real_game_files;
using test::shared_bpgn;

TEST(ParseBpgn, ReadsEveryRealFile) {
  // Game counts as the data README lists them.
  const std::map<std::string, std::size_t> counts = {
      {"fics_bughousedb_pychess_5.bpgn", 5},
      {"fics_mbprog_64.bpgn", 64},
      {"chesscom_41_pairs.bpgn", 41},
      {"chesscom_sample_from_pychess_bugchess_pgn.bpgn", 1}};
  for (const auto& [name, count] : counts) {
    const std::vector<BpgnGame> games = parse_bpgn(read_text(shared_bpgn(name)), name);
    EXPECT_EQ(games.size(), count) << name;
    for (const BpgnGame& game : games) {
      EXPECT_EQ(game.where.file, name);
      EXPECT_TRUE(game.tag("Event").has_value()) << name << ":" << game.where.line;
    }
  }
}

TEST(ParseBpgn, FicsBughousedbDialect) {
  const std::string file = shared_bpgn("fics_bughousedb_pychess_5.bpgn");
  const std::vector<BpgnGame> games = parse_bpgn(read_text(file), file);
  ASSERT_EQ(games.size(), 5u);
  const BpgnGame& aborted = games[0];
  EXPECT_EQ(aborted.where.line, 1);
  // Two tags on one line.
  EXPECT_EQ(aborted.tag("WhiteA"), "Gnejs");
  EXPECT_EQ(aborted.tag("WhiteAElo"), "2051");
  EXPECT_EQ(aborted.tag("Lag"), "178 284 242 635 192 177 209 331");
  EXPECT_EQ(aborted.tag("Missing"), std::nullopt);
  ASSERT_EQ(aborted.comments.size(), 1u);
  EXPECT_EQ(aborted.comments[0], "C: This is game number 1283326 at http://www.bughousedb.com");
  ASSERT_EQ(aborted.moves.size(), 8u);
  const BpgnMove& first = aborted.moves[0];
  EXPECT_EQ(first.board, BoardId::kA);
  EXPECT_EQ(first.color, Color::kWhite);
  EXPECT_EQ(first.number, 1);
  EXPECT_EQ(first.san, "e4");
  EXPECT_EQ(first.clock, 118.585);  // written "{118.585}" with no space before it
  EXPECT_EQ(first.where.line, 13);
  EXPECT_EQ(first.where.column, 5);
  EXPECT_EQ(aborted.moves[1].board, BoardId::kB);
  EXPECT_EQ(aborted.moves[2].color, Color::kBlack);
  const BpgnMove& last = aborted.moves.back();
  EXPECT_EQ(last.san, "e5");
  EXPECT_EQ(last.comments, std::vector<std::string>{"R: carlosfenix requests to abort the game."});
  EXPECT_EQ(aborted.result_comment, "Game aborted on move 1");
  EXPECT_EQ(aborted.result, "*");

  EXPECT_EQ(games[1].where.line, 16);
  EXPECT_EQ(games[1].moves[0].clock, 298.21);
  EXPECT_EQ(games[1].result, "1-0");
  EXPECT_EQ(games[1].result_comment, "BobBughouse checkmated");
  EXPECT_EQ(games[4].result, "0-1");
  EXPECT_EQ(games[4].result_comment, "muggg forfeits on time");
}

TEST(ParseBpgn, ChessComExport) {
  const std::string file = shared_bpgn("chesscom_sample_from_pychess_bugchess_pgn.bpgn");
  const std::vector<BpgnGame> games = parse_bpgn(read_text(file), file);
  ASSERT_EQ(games.size(), 1u);
  const BpgnGame& game = games[0];
  EXPECT_EQ(game.tag("FEN"),
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR/ w KQkq - 0 1 | "
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR/ w KQkq - 0 1");
  EXPECT_EQ(game.result, "0-1");
  const auto find = [&game](const std::string& san) {
    return std::find_if(game.moves.begin(), game.moves.end(),
                        [&san](const BpgnMove& m) { return m.san == san; });
  };
  // Board A carries no clocks; board B has [%clk] comments.
  EXPECT_FALSE(game.moves[0].clock.has_value());
  const auto knight_drop = find("$146@g4");
  ASSERT_NE(knight_drop, game.moves.end());
  EXPECT_EQ(knight_drop->clock, 0.8);
  EXPECT_EQ(find("e4")->board, BoardId::kA);
  // "5a.\nNf6": the number ends one line and its move begins the next.
  const auto split = find("Nf6");
  ASSERT_NE(split, game.moves.end());
  EXPECT_EQ(split->number, 5);
  EXPECT_EQ(split->where.column, 1);
  // "{[%clk\n0:00:01.6]}": a clock comment across two lines.
  const auto d4 = std::find_if(game.moves.begin(), game.moves.end(), [](const BpgnMove& m) {
    return m.san == "d4" && m.board == BoardId::kB;
  });
  ASSERT_NE(d4, game.moves.end());
  EXPECT_EQ(d4->clock, 1.6);
  EXPECT_TRUE(d4->comments.empty());
}

TEST(ParseBpgn, TolerantForms) {
  const std::string text =
      "[Event \"x\"] [WhiteA \"Say \\\"hi\\\"\"]\n"
      "1A.e4 {[%clk 0:02:59.5] [%ts 0.5]} 1a. e5 {[179.25]} {[%ts 1.25]} $1\n"
      "; a line comment\n"
      "2A. Nf3 (2A. Nc3 {a variation}) {[%clk 1:00:00]} {plain text} 2a. Nc6 {100} {101}\n"
      "[Event \"second game, the first had no result\"]\n"
      "1B. d4\n";
  const std::vector<BpgnGame> games = parse_bpgn(text, "mem.bpgn");
  ASSERT_EQ(games.size(), 2u);
  const BpgnGame& game = games[0];
  EXPECT_EQ(game.tag("WhiteA"), "Say \"hi\"");
  ASSERT_EQ(game.moves.size(), 4u);
  EXPECT_EQ(game.moves[0].san, "e4");
  EXPECT_EQ(game.moves[0].where.column, 4);
  EXPECT_EQ(game.moves[0].clock, 179.5);
  EXPECT_EQ(game.moves[0].timestamp, 0.5);
  EXPECT_EQ(game.moves[1].clock, 179.25);
  EXPECT_EQ(game.moves[1].timestamp, 1.25);
  EXPECT_EQ(game.moves[2].clock, 3600.0);
  EXPECT_EQ(game.moves[2].comments, std::vector<std::string>{"plain text"});
  EXPECT_EQ(game.moves[3].clock, 100.0);
  EXPECT_EQ(game.moves[3].comments, std::vector<std::string>{"101"});  // one clock per move
  EXPECT_EQ(game.result, "*");
  EXPECT_EQ(games[1].moves.at(0).board, BoardId::kB);
  EXPECT_EQ(games[1].where.line, 5);
}

struct BpgnFailure {
  std::string message;
  SourceLocation where;
};
BpgnFailure bpgn_failure(const std::string& text) {
  try {
    parse_bpgn(text, "bad.bpgn");
    ADD_FAILURE() << "read without error: " << text;
  } catch (const ParseError& e) {
    EXPECT_EQ(std::string(e.what()), e.where().str() + ": " + e.message());
    return {e.message(), e.where()};
  }
  return {};
}

TEST(ParseBpgnErrors, NameFileLineAndColumn) {
  const BpgnFailure unnumbered = bpgn_failure("[Event \"x\"]\n\n1A. e4 e5 *\n");
  EXPECT_EQ(unnumbered.where.file, "bad.bpgn");
  EXPECT_EQ(unnumbered.where.line, 3);
  EXPECT_EQ(unnumbered.where.column, 8);
  EXPECT_EQ(unnumbered.message,
            "expected a move number such as '1A.', '1a.', '1B.' or '1b.', or a result, found 'e5'");

  const BpgnFailure pgn_number = bpgn_failure("1. e4 *");
  EXPECT_EQ(pgn_number.message,
            "expected a move number with a board letter, such as '1A.', found '1.'");
  EXPECT_EQ(pgn_number.where.column, 1);

  const BpgnFailure open_comment = bpgn_failure("1A. e4\n  {never closed\n");
  EXPECT_EQ(open_comment.where.line, 2);
  EXPECT_EQ(open_comment.where.column, 3);
  EXPECT_EQ(open_comment.message, "comment opened here is never closed: expected '}'");

  const BpgnFailure open_tag = bpgn_failure("[Event \"x\"]\n[Site \"nowhere]\n");
  EXPECT_EQ(open_tag.where.line, 2);
  EXPECT_EQ(open_tag.where.column, 7);
  EXPECT_EQ(open_tag.message, "tag Site: expected '\"' to close the value on the same line");

  const BpgnFailure no_move = bpgn_failure("1A. e4 1a. {oops} *");
  EXPECT_EQ(no_move.where.column, 12);
  EXPECT_EQ(no_move.message, "expected a move after '1a.'");

  const BpgnFailure result_as_move = bpgn_failure("1A. 1-0");
  EXPECT_EQ(result_as_move.message, "expected a move after '1A.', found the result '1-0'");

  EXPECT_EQ(bpgn_failure("[Event x]").message, "expected '\"' to open the value of tag Event");
  EXPECT_EQ(bpgn_failure("[Event \"x\" \n").message,
            "tag Event: expected ']' to close the tag opened at 1:1");
  EXPECT_EQ(bpgn_failure("1A. e4 } *").message, "unexpected '}'");
  EXPECT_EQ(bpgn_failure("1A. e4 (1A. d4 *").message,
            "variation opened here is never closed: expected ')'");
}

TEST(WriteBpgn, WritesTheSpecDialect) {
  BpgnGame game;
  game.set_tag("WhiteB", "Carol");
  game.set_tag("Event", "Club night");
  game.set_tag("WhiteA", "Ann");
  game.set_tag("BlackA", "Bob \"B\"");
  game.set_tag("BlackB", "Dan");
  game.set_tag("Round", "3");
  game.set_tag("WhiteA", "Anna");  // replaces, keeps its place
  game.result = "1-0";
  game.result_comment = "BlackA checkmated";
  BpgnMove e4;
  e4.san = "e4";
  e4.clock = 179.412;
  e4.timestamp = 12.345;
  BpgnMove e5;
  e5.color = Color::kBlack;
  e5.san = "e5";
  e5.clock = 178.0;
  e5.comments = {"a comment"};
  BpgnMove d4;
  d4.board = BoardId::kB;
  d4.san = "d4";
  game.moves = {e4, e5, d4};
  EXPECT_EQ(write_bpgn(game),
            "[Event \"Club night\"]\n"
            "[Site \"?\"]\n"
            "[Date \"????.??.??\"]\n"
            "[Time \"??:??:??\"]\n"
            "[WhiteA \"Anna\"]\n"
            "[BlackA \"Bob \\\"B\\\"\"]\n"
            "[WhiteB \"Carol\"]\n"
            "[BlackB \"Dan\"]\n"
            "[TimeControl \"?\"]\n"
            "[Result \"1-0\"]\n"
            "[Variant \"Bughouse\"]\n"
            "[Round \"3\"]\n"
            "\n"
            "1A. e4 {179.412} {[%ts 12.345]} 1a. e5 {178} {a comment} 1B. d4\n"
            "{BlackA checkmated} 1-0\n");
}

TEST(WriteBpgn, LongMovetextIsWrappedAndClocksKeepEveryDigit) {
  BpgnGame game;
  for (int i = 0; i < 40; ++i) {
    BpgnMove move;
    move.number = i / 2 + 1;
    move.color = i % 2 == 0 ? Color::kWhite : Color::kBlack;
    move.san = move.color == Color::kWhite ? "Nf3" : "Nf6";
    move.clock = 180.0 - 0.1 * i - 1e-9 * i;  // no short decimal is exact
    move.timestamp = 0.1 + 0.2 * i;
    game.moves.push_back(move);
  }
  const std::string text = write_bpgn(game);
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) EXPECT_LE(line.size(), 79u) << line;
  const std::vector<BpgnGame> back = parse_bpgn(text);
  ASSERT_EQ(back.size(), 1u);
  ASSERT_EQ(back[0].moves.size(), game.moves.size());
  for (std::size_t i = 0; i < game.moves.size(); ++i) {
    EXPECT_EQ(back[0].moves[i].clock, game.moves[i].clock);
    EXPECT_EQ(back[0].moves[i].timestamp, game.moves[i].timestamp);
  }
}

TEST(WriteBpgn, CommentOnTheLastMoveIsNotTakenForTheReasonTheGameEnded) {
  // The record ends without a result token; its last comment belongs to the move.
  const BpgnGame game = parse_bpgn("1A. e4 {a note}").at(0);
  ASSERT_EQ(game.moves.at(0).comments, std::vector<std::string>{"a note"});
  EXPECT_EQ(game.result_comment, "");
  const std::string written = write_bpgn(game);
  EXPECT_NE(written.find("1A. e4 {a note}\n{} *\n"), std::string::npos) << written;
  const BpgnGame again = parse_bpgn(written).at(0);
  EXPECT_EQ(again.moves.at(0).comments, std::vector<std::string>{"a note"});
  EXPECT_EQ(again.result_comment, "");
}

// Every real game, written and read again, has the same moves, clocks, timestamps, tags,
// comments and result; and replays to the same moves.
TEST(WriteBpgn, EveryRealGameRoundTrips) {
  std::size_t games_checked = 0;
  for (const std::string& file : real_game_files()) {
    for (const BpgnGame& game : parse_bpgn(read_text(file), file)) {
      const std::string written = write_bpgn(game);
      const std::vector<BpgnGame> back = parse_bpgn(written, "written");
      ASSERT_EQ(back.size(), 1u) << file << ":" << game.where.line;
      const BpgnGame& again = back[0];
      ASSERT_EQ(again.moves.size(), game.moves.size()) << file << ":" << game.where.line;
      for (std::size_t i = 0; i < game.moves.size(); ++i) {
        const BpgnMove& a = game.moves[i];
        const BpgnMove& b = again.moves[i];
        EXPECT_EQ(b.san, a.san);
        EXPECT_EQ(b.board, a.board);
        EXPECT_EQ(b.color, a.color);
        EXPECT_EQ(b.number, a.number);
        EXPECT_EQ(b.clock, a.clock) << file << ":" << a.where.line << ":" << a.where.column;
        EXPECT_EQ(b.timestamp, a.timestamp);
        EXPECT_EQ(b.comments, a.comments);
      }
      for (const auto& [name, value] : game.tags) EXPECT_EQ(again.tag(name), value) << name;
      EXPECT_EQ(again.tag("Variant").has_value(), true);
      EXPECT_EQ(again.comments, game.comments);
      EXPECT_EQ(again.result, game.result);
      EXPECT_EQ(again.result_comment, game.result_comment);

      const Replay first = replay(game);
      const Replay second = replay(again);
      ASSERT_EQ(second.plies.size(), first.plies.size());
      for (std::size_t i = 0; i < first.plies.size(); ++i) {
        EXPECT_EQ(second.plies[i].san, first.plies[i].san);
        EXPECT_EQ(second.plies[i].move, first.plies[i].move);
      }
      EXPECT_EQ(second.error_ply, first.error_ply);
      // Written again, the text is the same: nothing drifts.
      EXPECT_EQ(write_bpgn(again), written);
      ++games_checked;
    }
  }
  EXPECT_EQ(games_checked, 111u);
}

// The engine's SAN of every replayed move reads back as the same move, and a record
// rewritten with the engine's SAN replays identically.
TEST(Replay, EngineSanOfEveryRealMoveReadsBack) {
  for (const std::string& file : real_game_files()) {
    for (const BpgnGame& game : parse_bpgn(read_text(file), file)) {
      const Replay replayed = replay(game);
      BpgnGame rewritten = game;
      rewritten.moves.resize(replayed.plies.size());
      for (std::size_t i = 0; i < replayed.plies.size(); ++i) {
        const ReplayedPly& ply = replayed.plies[i];
        EXPECT_EQ(parse_san(ply.before, ply.san, otb_rules()), ply.move) << ply.san;
        rewritten.moves[i].san = ply.san;
      }
      const Replay again = replay(parse_bpgn(write_bpgn(rewritten)).at(0));
      EXPECT_FALSE(again.error.has_value()) << again.error->what();
      ASSERT_EQ(again.plies.size(), replayed.plies.size());
      for (std::size_t i = 0; i < again.plies.size(); ++i) {
        EXPECT_EQ(again.plies[i].move, replayed.plies[i].move);
      }
    }
  }
}

TEST(Replay, EveryRealGameIsLegalButTheTruncatedRecord) {
  std::size_t legal = 0;
  std::vector<std::string> failures;
  for (const std::string& file : real_game_files()) {
    for (const BpgnGame& game : parse_bpgn(read_text(file), file)) {
      const Replay replayed = replay(game);
      if (replayed.error) {
        failures.push_back(replayed.error->what());
        EXPECT_TRUE(game.tag("ReplayNote").has_value()) << replayed.error->what();
        continue;
      }
      EXPECT_EQ(replayed.plies.size(), game.moves.size());
      ++legal;
    }
  }
  EXPECT_EQ(legal, 110u);
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_EQ(failures[0], shared_bpgn("fics_mbprog_64.bpgn") +
                             ":674:5: illegal move at ply 1 (1A. Qe7+): no legal move matches "
                             "'Qe7+': no white queen can reach e7");
}

TEST(Replay, TruncatedRecordStopsAtPlyOne) {
  const std::string file = shared_bpgn("fics_mbprog_64.bpgn");
  const std::vector<BpgnGame> games = parse_bpgn(read_text(file), file);
  const BpgnGame& truncated = games.at(23);
  ASSERT_TRUE(truncated.tag("ReplayNote").has_value());
  const Replay replayed = replay(truncated);
  ASSERT_TRUE(replayed.error.has_value());
  EXPECT_EQ(replayed.error_ply, 0);
  EXPECT_TRUE(replayed.plies.empty());
  EXPECT_EQ(replayed.error->where().file, file);
  EXPECT_EQ(replayed.error->where().line, 674);
  EXPECT_EQ(replayed.error->where().column, 5);
  EXPECT_EQ(replayed.final_game.board(BoardId::kA), Position::start());
}

TEST(Replay, CapturesGoToThePartnerAndSanIsTheEngines) {
  const BpgnGame game = parse_bpgn("1A. e4 1a. d5 2A. e4xd5+ 1B. Nf3 *").at(0);
  const Replay replayed = replay(game);
  ASSERT_FALSE(replayed.error.has_value());
  ASSERT_EQ(replayed.plies.size(), 4u);
  EXPECT_EQ(replayed.plies[2].san, "exd5");
  EXPECT_EQ(replayed.plies[2].before.piece_at(*parse_square("d5")),
            (Piece{Color::kBlack, PieceType::kPawn}));
  // White A took a black pawn: Black B, White A's partner, may drop it.
  EXPECT_EQ(replayed.final_game.board(BoardId::kB).holding(Color::kBlack, PieceType::kPawn), 1);
  EXPECT_EQ(replayed.final_game.board(BoardId::kA).holding(Color::kWhite, PieceType::kPawn), 0);
}

TEST(Replay, WrongTurnAndUnplayableMovesStopWithTheMoveNamed) {
  const Replay wrong_turn = replay(parse_bpgn("1A. e4 2A. d4 *", "t.bpgn").at(0));
  ASSERT_TRUE(wrong_turn.error.has_value());
  EXPECT_EQ(wrong_turn.error_ply, 1);
  EXPECT_EQ(wrong_turn.plies.size(), 1u);
  EXPECT_EQ(std::string(wrong_turn.error->what()),
            "t.bpgn:1:12: illegal move at ply 2 (2A. d4): it is Black's turn on board A");

  const Replay no_holding = replay(parse_bpgn("1B. N@f3 *", "t.bpgn").at(0));
  ASSERT_TRUE(no_holding.error.has_value());
  EXPECT_EQ(std::string(no_holding.error->what()),
            "t.bpgn:1:5: illegal move at ply 1 (1B. N@f3): no legal move matches 'N@f3': White "
            "holds no knight");
}

TEST(Replay, StartsFromTheFenTag) {
  BpgnGame game = parse_bpgn("1A. N@f3 1B. P@e4 *").at(0);
  game.set_tag("FEN",
               "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR/N w KQkq - 0 1 | "
               "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR/P w KQkq - 0 1");
  const Replay replayed = replay(game);
  EXPECT_FALSE(replayed.error.has_value());
  EXPECT_EQ(replayed.plies.size(), 2u);

  game.set_tag("FEN", "not a position");
  const Replay bad = replay(game);
  ASSERT_TRUE(bad.error.has_value());
  EXPECT_FALSE(bad.error_ply.has_value());
  EXPECT_NE(std::string(bad.error->what()).find("FEN tag: "), std::string::npos);
}

TEST(Replay, MoveOnTheOtherBoardAfterAMateIsKeptAndTheResultStands) {
  // chesscom_41_pairs game 1: 42A. R@e8# and then 33B. Bf6+ (the boards' moves are ordered by
  // their clocks).
  const std::string file = shared_bpgn("chesscom_41_pairs.bpgn");
  const BpgnGame game = parse_bpgn(read_text(file), file).at(0);
  const Replay replayed = replay(game);
  ASSERT_FALSE(replayed.error.has_value()) << replayed.error->what();
  EXPECT_EQ(replayed.plies.size(), game.moves.size());
  EXPECT_EQ(replayed.plies[replayed.plies.size() - 2].san, "R@e8#");
  EXPECT_EQ(replayed.plies.back().board, BoardId::kB);
  ASSERT_TRUE(replayed.final_game.result().has_value());
  const GameResult result = *replayed.final_game.result();
  EXPECT_EQ(result.winning_team, 1);
  EXPECT_EQ(result.board, BoardId::kA);
  EXPECT_EQ(result.reason, EndReason::kCheckmate);
  EXPECT_EQ(result.loser, Color::kBlack);
  EXPECT_EQ(result.result_token(), game.result);
  // The boards are as the record leaves them: the late move was played.
  const Position& b = replayed.final_game.board(BoardId::kB);
  EXPECT_EQ(b.side_to_move(), Color::kBlack);
}

TEST(TimeControl, SuddenDeathAndIncrementFormsAreRead) {
  const std::optional<TimeControl> blitz = parse_time_control("180+2");
  ASSERT_TRUE(blitz.has_value());
  EXPECT_EQ(blitz->base_seconds, 180.0);
  EXPECT_EQ(blitz->increment_seconds, 2.0);
  const std::optional<TimeControl> sudden = parse_time_control("120");
  ASSERT_TRUE(sudden.has_value());
  EXPECT_EQ(sudden->base_seconds, 120.0);
  EXPECT_EQ(sudden->increment_seconds, 0.0);
  // Unknown, none, and forms bughouse clocks do not use.
  for (const char* tag : {"?", "-", "", "0", "40/9000", "*180", "180+", "+2", "3m", "-5+0"}) {
    EXPECT_FALSE(parse_time_control(tag).has_value()) << tag;
  }
}

}  // namespace
}  // namespace bugcam::rules
