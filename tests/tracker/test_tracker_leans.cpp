// A tilted camera sees a standing piece's body over the square behind it, and vision may
// read that square as the piece. Told which squares each square's piece hides
// (TrackerConfig::leans_over), the tracker must not put a dropped piece on the square behind
// the one it stands on. A low light's shadow beside a piece may read as a piece too: the
// tracker learns where, and is told from the start position which way the shadows fall
// (TrackerShadows).
#include <gtest/gtest.h>

#include <functional>
#include <initializer_list>
#include <string>

#include "tracker_harness.hpp"

namespace {

using namespace bugcam::tracker;
using bugcam::rules::Move;
using bugcam::tracker::testing::load_games;
using bugcam::tracker::testing::Outcome;
using bugcam::tracker::testing::run_tracker;
using bugcam::tracker::testing::squares_untouched;

// A camera beyond rank 8, tilted enough that every piece hides the square in front of it
// (one rank lower).
// Every piece, short or tall, hides the square one rank lower.
bugcam::tracker::PieceLeans camera_beyond_rank_8() {
  bugcam::tracker::PieceLeans over{};
  for (int s = 8; s < 64; ++s) {
    over.short_pieces[static_cast<std::size_t>(s)] = std::uint64_t{1} << (s - 8);
  }
  over.tall_pieces = over.short_pieces;
  return over;
}

struct HiddenDrops {
  SimulationOptions options;
  std::vector<int> drop_plies;
};

// The first `plies` plies read with a misread in a hundred frames, no holding areas.
SimulationOptions few_misreads(int plies) {
  SimulationOptions options;
  options.misread = 0.01;
  options.seed = 11;
  options.max_plies = plies;
  options.holdings = false;
  return options;
}

// Whether `squares` of board A stay as they are for the `stays` plies of the board after ply
// `i` of `replay`, within its first `last` plies.
bool stay_on_board_a(const bugcam::rules::Replay& replay, std::size_t i, int stays,
                     std::size_t last, std::initializer_list<bugcam::rules::Square> squares) {
  std::size_t end = i + 1;
  for (int seen = 0; seen < stays && end < last; ++end) {
    seen += replay.plies[end].board == BoardId::kA ? 1 : 0;
  }
  return squares_untouched(replay, BoardId::kA, i + 1, end, squares);
}

// Every drop on board A in the first `plies` plies of `game` whose square one rank lower is
// empty then: that square reads as the dropped piece's colour from the drop on, while it
// stays empty (the simulation's ShadowedSquare), and as long as the dropped piece stays
// (the drop must stand `stays` plies of its board).
HiddenDrops hide_behind_drops(const bugcam::rules::BpgnGame& game, int plies, int stays) {
  const bugcam::rules::Replay replay = bugcam::rules::replay(game);
  HiddenDrops out;
  out.options = few_misreads(plies);
  for (int i = 0; i < plies && i < static_cast<int>(replay.plies.size()); ++i) {
    const auto& ply = replay.plies[static_cast<std::size_t>(i)];
    const Move m = ply.move;
    if (ply.board != BoardId::kA || !m.is_drop() || bugcam::rules::rank_of(m.to()) == 0) {
      continue;
    }
    const bugcam::rules::Square behind = m.to() - 8;
    if (ply.before.piece_at(behind).type != bugcam::rules::PieceType::kNone) continue;
    // The dropped piece must stay while the square behind it reads as it: until the end of
    // the clip, or `stays` plies of its board.
    const std::size_t last = std::min(static_cast<std::size_t>(plies), replay.plies.size());
    if (!stay_on_board_a(replay, static_cast<std::size_t>(i), stays, last, {m.to(), behind})) {
      continue;
    }
    out.options.shadowed.push_back({BoardId::kA, behind, ply.before.side_to_move(), i});
    out.drop_plies.push_back(i);
  }
  return out;
}

// The square a drop's SAN names ("B@g4+" -> "g4"), empty for a move.
std::string drop_square(const std::string& san) {
  const std::size_t at = san.find('@');
  return at == std::string::npos ? std::string() : san.substr(at + 1, 2);
}

// Drops committed on their square (of whatever type: no type reading is given here).
int drops_on_their_square(const Outcome& outcome, const std::vector<int>& drop_plies) {
  int right = 0;
  for (const int i : drop_plies) {
    const TrackedMove& want = outcome.sim.truth[static_cast<std::size_t>(i)];
    for (const TrackedMove& got : outcome.committed) {
      if (got.board == want.board && got.ply == want.ply &&
          drop_square(got.san) == drop_square(want.san)) {
        ++right;
      }
    }
  }
  return right;
}

TEST(TrackerLeans, DropsAreNotPutOnTheSquareTheirPieceHides) {
  const std::vector<bugcam::rules::BpgnGame> games = load_games("fics_mbprog_64.bpgn");
  int hidden = 0, right_told = 0, right_untold = 0, moves_told = 0, moves_untold = 0;
  for (std::size_t g = 0; g < 12 && g < games.size(); ++g) {
    const HiddenDrops drops = hide_behind_drops(games[g], 60, 30);
    if (drops.drop_plies.empty()) continue;
    TrackerConfig told;
    told.leans_over[0] = camera_beyond_rank_8();
    const Outcome with = run_tracker(games[g], drops.options, told);
    const Outcome without = run_tracker(games[g], drops.options);
    // Told after it was made (a new calibration), the tracker records the same.
    std::array<bugcam::tracker::PieceLeans, 2> leans{};
    leans[0] = camera_beyond_rank_8();
    const Outcome told_later = run_tracker(games[g], drops.options, {}, leans);
    EXPECT_EQ(drops_on_their_square(told_later, drops.drop_plies),
              drops_on_their_square(with, drops.drop_plies));
    hidden += static_cast<int>(drops.drop_plies.size());
    moves_told += with.right;
    moves_untold += without.right;
    right_told += drops_on_their_square(with, drops.drop_plies);
    right_untold += drops_on_their_square(without, drops.drop_plies);
    std::cout << "game " << g << ": " << drops.drop_plies.size() << " drops, right "
              << drops_on_their_square(with, drops.drop_plies) << " told of the leans, "
              << drops_on_their_square(without, drops.drop_plies) << " untold; moves right "
              << with.right << " / " << without.right << " of " << with.sim.truth.size() << "\n";
  }
  ASSERT_GE(hidden, 4) << "too few drops with an empty square behind them";
  EXPECT_EQ(right_told, hidden);
  // Being told costs no other move.
  EXPECT_GE(moves_told, moves_untold);
  // Without being told, the tracker puts some on the square behind (the reason for the
  // config).
  EXPECT_LT(right_untold, hidden);
}

// Board A after `ply`.
const bugcam::rules::Position& board_a_after(const bugcam::rules::Replay& replay, std::size_t ply) {
  for (std::size_t next = ply + 1; next < replay.plies.size(); ++next) {
    if (replay.plies[next].board == BoardId::kA) return replay.plies[next].before;
  }
  return replay.final_game.board(BoardId::kA);
}

// A low light beyond rank 1 of board A: a king's, queen's or bishop's shadow falls on the
// square one rank higher, which vision reads as a white piece while it is empty (a grey
// shadow on a pale square). From each ply of board A in the first `plies` after which such a
// piece stands below an empty square that the ply made so, where both squares stay as they
// are for `stays` plies of the board. (The simulation's shadow then stays whenever the square
// is empty, the piece gone or not: after those plies it is a bias of the square's own, which
// the tracker learns per square.) `drop_plies`: those plies that are drops of the caster.
HiddenDrops shade_above_long_casters(const bugcam::rules::BpgnGame& game, int plies, int stays) {
  const bugcam::rules::Replay replay = bugcam::rules::replay(game);
  HiddenDrops out;
  out.options = few_misreads(plies);
  std::uint64_t shaded = 0;
  const std::size_t last = std::min(static_cast<std::size_t>(plies), replay.plies.size());
  for (std::size_t i = 0; i < last; ++i) {
    const auto& ply = replay.plies[i];
    if (ply.board != BoardId::kA) continue;
    const bugcam::rules::Position& after = board_a_after(replay, i);
    // The long casters: kings, queens and bishops.
    const std::uint64_t casters = after.pieces(bugcam::rules::PieceType::kKing) |
                                  after.pieces(bugcam::rules::PieceType::kQueen) |
                                  after.pieces(bugcam::rules::PieceType::kBishop);
    for (int x = 0; x < 56; ++x) {
      const auto below = static_cast<bugcam::rules::Square>(x);
      const auto above = static_cast<bugcam::rules::Square>(x + 8);
      if (((casters >> x) & 1) == 0 || ((shaded >> above) & 1) != 0) continue;
      if (after.piece_at(above).type != bugcam::rules::PieceType::kNone) continue;
      // New at this ply: the caster came, or the square above it was emptied.
      const bool came = ply.move.to() == below;
      const bool emptied = !ply.move.is_drop() && ply.move.from() == above;
      if (!came && !emptied) continue;
      if (!stay_on_board_a(replay, i, stays, last, {below, above})) continue;
      out.options.shadowed.push_back(
          {BoardId::kA, above, bugcam::rules::Color::kWhite, static_cast<int>(i)});
      shaded |= std::uint64_t{1} << above;
      if (came && ply.move.is_drop()) out.drop_plies.push_back(static_cast<int>(i));
    }
  }
  return out;
}

// Vision reads a long piece's shadow beside it as a piece: learned where that happens on the
// board, the tracker does not put a drop on its shadow, nor take a shadow that a move
// uncovers for a disturbance (fresh 10303: 16A. B@h6+ recorded as N@h7, the bishop's shadow
// on h7; 10301: 8b. Nxd2 lost to a resync, Bd3's shadow on e4 under the knight).
TEST(TrackerShadows, ALongPiecesShadowBesideItIsLearnedAndNotTakenForAPiece) {
  const std::vector<bugcam::rules::BpgnGame> games = load_games("fics_mbprog_64.bpgn");
  int shaded = 0, drops = 0, drops_learnt = 0, drops_unlearnt = 0, moves_learnt = 0,
      moves_unlearnt = 0, incidents_learnt = 0, incidents_unlearnt = 0;
  for (std::size_t g = 0; g < 12 && g < games.size(); ++g) {
    const HiddenDrops shade = shade_above_long_casters(games[g], 60, 20);
    if (shade.options.shadowed.empty()) continue;
    const Outcome learnt = run_tracker(games[g], shade.options);
    TrackerConfig off;
    off.learn_shadows_beside = false;
    const Outcome unlearnt = run_tracker(games[g], shade.options, off);
    shaded += static_cast<int>(shade.options.shadowed.size());
    drops += static_cast<int>(shade.drop_plies.size());
    drops_learnt += drops_on_their_square(learnt, shade.drop_plies);
    drops_unlearnt += drops_on_their_square(unlearnt, shade.drop_plies);
    moves_learnt += learnt.right;
    moves_unlearnt += unlearnt.right;
    incidents_learnt += static_cast<int>(learnt.incidents.size());
    incidents_unlearnt += static_cast<int>(unlearnt.incidents.size());
    std::cout << "game " << g << ": " << shade.options.shadowed.size() << " shadows, "
              << shade.drop_plies.size() << " drops; drops right "
              << drops_on_their_square(learnt, shade.drop_plies) << " learnt / "
              << drops_on_their_square(unlearnt, shade.drop_plies) << " not; moves right "
              << learnt.right << " / " << unlearnt.right << " of " << learnt.sim.truth.size()
              << "; incidents " << learnt.incidents.size() << " / " << unlearnt.incidents.size()
              << "\n";
  }
  std::cout << shaded << " shadows, " << drops << " drops; moves right " << moves_learnt
            << " learnt / " << moves_unlearnt << " not; incidents " << incidents_learnt << " / "
            << incidents_unlearnt << "\n";
  ASSERT_GE(shaded, 10) << "too few shadows";
  ASSERT_GT(drops, 0) << "no drop of a long piece below an empty square";
  // Without learning them, shadows cost moves (the reason for the config), and learning
  // them costs no drop and adds no incident.
  EXPECT_GT(moves_learnt, moves_unlearnt);
  EXPECT_GE(drops_learnt, drops_unlearnt);
  EXPECT_LE(incidents_learnt, incidents_unlearnt);
}

// A low light beyond rank 8 of board A: every piece that comes to a square casts its shadow
// on the square one rank lower, which vision reads as a piece of the caster's colour while it
// is empty (held-out 11200: 3A. d4's shadow on d3 read white, and 3A. d3 was recorded). From
// each ply of board A in the first `plies` whose piece lands above an empty square, where both
// squares stay as they are for `stays` plies of the board.
SimulationOptions shade_below_arrivals(const bugcam::rules::BpgnGame& game, int plies, int stays) {
  const bugcam::rules::Replay replay = bugcam::rules::replay(game);
  SimulationOptions options = few_misreads(plies);
  std::uint64_t shaded = 0;
  const std::size_t last = std::min(static_cast<std::size_t>(plies), replay.plies.size());
  for (std::size_t i = 0; i < last; ++i) {
    const auto& ply = replay.plies[i];
    const bugcam::rules::Square caster = ply.move.to();
    if (ply.board != BoardId::kA || bugcam::rules::rank_of(caster) == 0) continue;
    const auto below = static_cast<bugcam::rules::Square>(caster - 8);
    if (((shaded >> below) & 1) != 0 || !board_a_after(replay, i).piece_at(below).empty()) continue;
    if (!stay_on_board_a(replay, i, stays, last, {caster, below})) continue;
    options.shadowed.push_back(
        {BoardId::kA, below, ply.before.side_to_move(), static_cast<int>(i)});
    shaded |= std::uint64_t{1} << below;
  }
  return options;
}

// The move committed at ply `ply` ("2A"), or "" if none was.
std::string recorded_san(const Outcome& outcome, const std::string& ply) {
  const auto recorded = std::find_if(outcome.committed.begin(), outcome.committed.end(),
                                     [&](const TrackedMove& got) { return got.ply == ply; });
  return recorded == outcome.committed.end() ? "" : recorded->san;
}

// A camera beyond rank 1: every piece hides the square one rank higher.
bugcam::tracker::PieceLeans camera_beyond_rank_1() {
  bugcam::tracker::PieceLeans over{};
  for (int s = 0; s < 56; ++s) {
    over.short_pieces[static_cast<std::size_t>(s)] = std::uint64_t{1} << (s + 8);
  }
  over.tall_pieces = over.short_pieces;
  return over;
}

// Flags `squares` of board A covered in the frames strictly between `from` and `to`.
void cover_on_board_a(std::vector<SimulatedInput>& inputs,
                      std::initializer_list<bugcam::rules::Square> squares, double from,
                      double to) {
  for (SimulatedInput& input : inputs) {
    auto* o = std::get_if<BoardObservation>(&input);
    if (o == nullptr || o->board != BoardId::kA || o->t <= from || o->t >= to) continue;
    for (const bugcam::rules::Square s : squares) {
      o->squares[static_cast<std::size_t>(s)].occluded = true;
    }
  }
}

// The tracker told that board A's camera is beyond rank 1 (camera_beyond_rank_1), on `game`
// simulated with `options` and its readings changed by `edit`.
Outcome run_beyond_rank_1(const bugcam::rules::BpgnGame& game, const SimulationOptions& options,
                          const std::function<void(std::vector<SimulatedInput>&)>& edit) {
  TrackerConfig told;
  told.leans_over[0] = camera_beyond_rank_1();
  return run_tracker(game, options, told, std::nullopt, edit);
}

// As held-out 11407: 2A. e5 made with e4 under the hand until after 2a. Ne4 took the square,
// the arm passing over f2 and f4 on its way, and from 3A. Qe2 on the pawn's shadow on f5
// read as a white piece. At 2A's press, 2A. f4 fits nearly as well: the pawn left on e4 hides
// e5, read white, and f2 and f4 read as before, touched. The pawn on f4 would then hide f5.
// Once 2a. Nxe4 takes the pawn that hid e5, e5's reading is a misread that lasts, and must
// cost that board what one does (lean_lost); counted once at 2A's press as the pawn's body,
// it cost nothing, f5's shadow put f4 ahead, and 2A. f4 was recorded.
TEST(TrackerLeans, AReadingOnceThePieceThatHidItGoesIsAMisread) {
  const std::vector<bugcam::rules::BpgnGame> games = bugcam::rules::parse_bpgn(
      "[Event \"lean lost\"]\n[TimeControl \"180+0\"]\n\n"
      "1A. e4{179.5} 1B. d4{179.0} 1a. Nf6{179.2} 1b. d5{178.8} 2A. e5{177.0} 2B. c4{177.5} "
      "2a. Ne4{176.0} 2b. e6{177.0} 3A. Qe2{174.0} 3B. Nc3{175.0} 3a. d5{173.5} 3b. Nf6{174.5} "
      "4A. d3{171.0} 4B. Nf3{172.0} 4a. Nc5{171.0} 4b. Be7{172.0} 5A. Nf3{168.0} 5B. Bg5{169.0} "
      "5a. Nc6{168.5} 5b. O-O{169.5}\n",
      "lean lost");
  ASSERT_EQ(games.size(), 1u);
  SimulationOptions options = few_misreads(20);
  const bugcam::rules::Square e4 = *bugcam::rules::parse_square("e4");
  options.shadowed.push_back(
      {BoardId::kA, *bugcam::rules::parse_square("f5"), bugcam::rules::Color::kWhite, 8});
  const Simulation plain = simulate(games[0], options, [](const SimulatedInput&) {});
  ASSERT_EQ(plain.truth.size(), 20u);
  const double push = plain.truth[4].t;    // 2A. e5
  const double answer = plain.truth[6].t;  // 2a. Ne4
  ASSERT_EQ(plain.truth[4].san, "e5");
  ASSERT_EQ(plain.truth[6].san, "Ne4");
  const auto hide_the_push = [&](std::vector<SimulatedInput>& inputs) {
    cover_on_board_a(inputs, {e4}, push - 2.0, answer + 0.3);
    cover_on_board_a(inputs,
                     {*bugcam::rules::parse_square("f2"), *bugcam::rules::parse_square("f4")},
                     push - 1.0, push - 0.7);
  };
  const Outcome outcome = run_beyond_rank_1(games[0], options, hide_the_push);
  EXPECT_EQ(recorded_san(outcome, "2A"), "e5");
  EXPECT_TRUE(outcome.exact);
}

// `game` (20 plies) simulated with `options` and recorded by a tracker told board A's camera
// is beyond rank 1, where its 4A, the drop `san`, was made with the hand over `covered` from
// 1.5 s to 0.4 s before its press, and the dropped piece still counted in White A's area for
// 4 s after that, the only piece there: the drop is recorded, and the game exactly (a failure
// too where 4A is not that drop).
void expect_4a_dropped_beside_a_hand_recorded(const bugcam::rules::BpgnGame& game,
                                              const SimulationOptions& options,
                                              const std::string& san, const std::string& covered) {
  const Simulation plain = simulate(game, options, [](const SimulatedInput&) {});
  EXPECT_EQ(plain.truth.size(), 20u);
  const auto drop = std::find_if(plain.truth.begin(), plain.truth.end(),
                                 [](const TrackedMove& m) { return m.ply == "4A"; });
  if (drop == plain.truth.end() || drop->san != san) {
    ADD_FAILURE() << "4A is not " << san;
    return;
  }
  const double pressed = drop->t;
  const bugcam::rules::Square square = *bugcam::rules::parse_square(covered);
  const auto dropped = static_cast<std::size_t>(drop->move.piece());
  const Outcome outcome =
      run_beyond_rank_1(game, options, [=](std::vector<SimulatedInput>& inputs) {
        cover_on_board_a(inputs, {square}, pressed - 1.5, pressed - 0.4);
        for (SimulatedInput& input : inputs) {
          auto* h = std::get_if<HoldingsObservation>(&input);
          if (h != nullptr && h->seat.board == BoardId::kA &&
              h->seat.color == bugcam::rules::Color::kWhite && h->t > pressed - 0.4 &&
              h->t < pressed + 4.0 && !h->occluded) {
            h->visible[dropped] = 1;
            h->pieces = 1;
          }
        }
      });
  EXPECT_EQ(recorded_san(outcome, "4A"), san);
  EXPECT_TRUE(outcome.exact);
}

// As held-out 11422: 4A. N@e5 dropped with the hand over f3, where the knight of 3A. Nf3
// stands, until just before the press; f3 then reads white as before, and White A's area
// still shows the knight for a while. 4A. Ne5 from f3 fits those readings better if f3's
// reading is taken for the body of the pawn on f2, which hides it from a camera beyond rank
// 1. But f3 read empty in front of that pawn from the start until 3A. Nf3, so the pawn's body
// does not show there: the move costs more (lean_cost), and the drop is recorded. With every
// such reading at kLeanedOverReading, 4A. Ne5 is recorded.
TEST(TrackerLeans, ASquareSeenEmptyInFrontOfAPieceDoesNotTakeItsBodyForAMoveAway) {
  const std::vector<bugcam::rules::BpgnGame> games = bugcam::rules::parse_bpgn(
      "[Event \"lean learned\"]\n[TimeControl \"180+0\"]\n\n"
      "1A. e4{179.0} 1B. Nc3{179.5} 1a. e6{178.5} 1b. d5{179.0} 2A. d4{176.5} 2B. Nxd5{177.0} "
      "2a. d5{176.0} 2b. Qxd5{176.5} 3A. Nf3{173.5} 3B. e4{174.0} 3a. c5{173.0} 3b. Qd8{174.0} "
      "4A. N@e5{170.0} 4B. d4{171.5} 4a. Nc6{170.5} 4b. e6{171.5} 5A. c3{167.5} 5B. Nf3{169.0} "
      "5a. Nf6{168.0} 5b. Nf6{169.0}\n",
      "lean learned");
  ASSERT_EQ(games.size(), 1u);
  SimulationOptions options = few_misreads(20);
  options.holdings = true;
  options.holdings_uncounted_captures = {7};  // 2b. Qxd5's knight
  expect_4a_dropped_beside_a_hand_recorded(games[0], options, "N@e5", "f3");
}

// As held-out 11623: 12b. B@e7 dropped with the hand over f8, where a black bishop had stood
// from the start; f8 then read black as before, and Be7 from f8 fitted as well, f8's reading
// taken for the body of the pawn on f7 (a camera beyond rank 1 of the board): f8 had never
// been empty to learn otherwise. Here 4A. P@f3 with the hand over f2, which the bishop on f1
// hides and which was never empty either, White A's area still showing the pawn for a while.
// The squares in front of the pawns read empty all along, so on this board a body does not
// show: 4A. f3 costs f2's reading at that rate (lean_rate), and the drop is recorded. With
// f2's reading at kLeanedOverReading, 4A. f3 is.
TEST(TrackerLeans, ASquareNeverSeenEmptyTakesTheBoardsHiddenSquaresForItsOwn) {
  const std::vector<bugcam::rules::BpgnGame> games = bugcam::rules::parse_bpgn(
      "[Event \"lean pooled\"]\n[TimeControl \"180+0\"]\n\n"
      "1A. e4{179.0} 1B. e4{179.5} 1a. e6{178.5} 1b. d5{179.0} 2A. d4{176.5} 2B. Nc3{177.0} "
      "2a. d5{176.0} 2b. dxe4{176.5} 3A. Nc3{173.5} 3B. Nxe4{174.0} 3a. Nf6{173.0} 3b. Nf6{174.0} "
      "4A. P@f3{170.0} 4B. Nxf6+{171.5} 4a. Be7{170.5} 4b. exf6{171.5} 5A. a3{167.5} 5B. d4{169.0} "
      "5a. O-O{168.0} 5b. Bd6{169.0}\n",
      "lean pooled");
  ASSERT_EQ(games.size(), 1u);
  SimulationOptions options = few_misreads(20);
  options.holdings = true;
  expect_4a_dropped_beside_a_hand_recorded(games[0], options, "P@f3", "f2");
}

// Told from the start position which way the shadows fall (TrackerConfig::shadow_sides),
// the tracker takes a piece read one rank that way from a piece for its shadow from the first
// moves on, before it could learn them.
TEST(TrackerShadows, ShadowsOnTheSideTheStartShowedAreNotTakenForPieces) {
  const std::vector<bugcam::rules::BpgnGame> games = load_games("fics_mbprog_64.bpgn");
  int shaded = 0, moves_told = 0, moves_untold = 0, incidents_told = 0, incidents_untold = 0;
  for (std::size_t g = 0; g < 8 && g < games.size(); ++g) {
    const SimulationOptions shade = shade_below_arrivals(games[g], 40, 6);
    if (shade.shadowed.empty()) continue;
    TrackerConfig told;
    told.shadow_sides[0].rank = 1;
    const Outcome with = run_tracker(games[g], shade, told);
    const Outcome without = run_tracker(games[g], shade);
    shaded += static_cast<int>(shade.shadowed.size());
    moves_told += with.right;
    moves_untold += without.right;
    incidents_told += static_cast<int>(with.incidents.size());
    incidents_untold += static_cast<int>(without.incidents.size());
    std::cout << "game " << g << ": " << shade.shadowed.size() << " shadows; moves right "
              << with.right << " told / " << without.right << " not, of " << with.sim.truth.size()
              << "; incidents " << with.incidents.size() << " / " << without.incidents.size()
              << "\n";
  }
  ASSERT_GE(shaded, 20) << "too few shadows";
  EXPECT_GT(moves_told, moves_untold);
  EXPECT_LE(incidents_told, incidents_untold);
}

}  // namespace
