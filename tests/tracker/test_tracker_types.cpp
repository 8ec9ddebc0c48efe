// Piece types the tracker cannot see well: a drop whose type reading misleads must still be
// recorded as the piece that later moves.
#include <functional>
#include <map>

#include <gtest/gtest.h>

#include "bughouse.hpp"
#include "tracker_harness.hpp"

namespace {

using namespace bugcam::tracker;
using bugcam::rules::Move;
using bugcam::rules::PieceType;
using bugcam::tracker::testing::expect_committed_as_played;
using bugcam::tracker::testing::load_games;
using bugcam::tracker::testing::run_tracker;
using bugcam::tracker::testing::squares_untouched;

// A bishop dropped where its player could have dropped a pawn, which moves off that square
// (two squares or more, so no pawn could make the move) `min_gap` to `max_gap` plies later.
struct BishopDrop {
  std::size_t game = 0;
  int drop_ply = 0;
  int move_ply = 0;
};

std::optional<BishopDrop> find_bishop_drop(const std::vector<bugcam::rules::BpgnGame>& games,
                                           int min_gap, int max_gap) {
  for (std::size_t g = 0; g < games.size(); ++g) {
    const bugcam::rules::Replay replay = bugcam::rules::replay(games[g]);
    const auto& plies = replay.plies;
    for (std::size_t i = 0; i < plies.size(); ++i) {
      const Move drop = plies[i].move;
      if (!drop.is_drop() || drop.piece() != PieceType::kBishop) continue;
      const int rank = bugcam::rules::rank_of(drop.to());
      if (rank == 0 || rank == 7) continue;
      if (plies[i].before.holding(plies[i].before.side_to_move(), PieceType::kPawn) == 0) continue;
      for (std::size_t j = i + 1; j < plies.size(); ++j) {
        if (plies[j].board != plies[i].board) continue;
        const Move m = plies[j].move;
        if (m.to() == drop.to()) break;  // captured or replaced before it moved
        if (m.is_drop() || m.from() != drop.to()) continue;
        const int gap = static_cast<int>(j - i);
        if (gap >= min_gap && gap <= max_gap &&
            std::abs(bugcam::rules::file_of(m.from()) - bugcam::rules::file_of(m.to())) >= 2) {
          return BishopDrop{g, static_cast<int>(i), static_cast<int>(j)};
        }
        break;
      }
    }
  }
  return std::nullopt;
}

// Whether the piece ply `i` moved stays on its square for the next `stays` plies (no later
// move of its board lands there or leaves from there), the game going on that long.
bool stays_put(const bugcam::rules::Replay& replay, std::size_t i, int stays) {
  const std::size_t end = i + 1 + static_cast<std::size_t>(stays);
  return end <= replay.plies.size() &&
         squares_untouched(replay, replay.plies[i].board, i + 1, end, {replay.plies[i].move.to()});
}

// The first ply of `games` that `wanted(replay, i)` takes: its game's index and its own.
std::optional<std::pair<std::size_t, int>> first_ply_where(
    const std::vector<bugcam::rules::BpgnGame>& games,
    const std::function<bool(const bugcam::rules::Replay&, std::size_t)>& wanted) {
  for (std::size_t g = 0; g < games.size(); ++g) {
    const bugcam::rules::Replay replay = bugcam::rules::replay(games[g]);
    for (std::size_t i = 0; i < replay.plies.size(); ++i) {
      if (wanted(replay, i)) return std::pair{g, static_cast<int>(i)};
    }
  }
  return std::nullopt;
}

// The type reading of the dropped bishop's square says pawn (0.7 against 0.1) in every
// view, and no holding area is seen; the commit lag alone would commit the drop's press
// before the bishop moves.
TEST(TrackerTypes, MisreadDropDecidedByItsLaterMove) {
  const std::vector<bugcam::rules::BpgnGame> games = load_games("fics_mbprog_64.bpgn");
  TrackerConfig defaults;
  const std::optional<BishopDrop> found =
      find_bishop_drop(games, defaults.commit_lag + 3, 2 * defaults.commit_lag);
  ASSERT_TRUE(found) << "no bishop drop that moves later in the games";
  const bugcam::rules::Replay replay = bugcam::rules::replay(games[found->game]);
  const auto& drop = replay.plies[static_cast<std::size_t>(found->drop_ply)];

  SimulationOptions options;
  options.misread = 0.01;
  options.seed = 7;
  options.max_plies = found->move_ply + 4;
  options.holdings = false;  // as recordings run: nothing but the type reading tells them apart
  TrackerConfig config;
  config.piece_types = [&drop](BoardId board, bugcam::rules::Square square,
                               int) -> std::optional<PieceTypeScores> {
    if (board != drop.board || square != drop.move.to()) return std::nullopt;
    return PieceTypeScores{0.7f, 0.1f, 0.1f, 0.05f, 0.05f, 0.0f};
  };
  const auto outcome = run_tracker(games[found->game], options, config);

  ASSERT_GT(outcome.sim.truth.size(), static_cast<std::size_t>(found->move_ply));
  const TrackedMove& want = outcome.sim.truth[static_cast<std::size_t>(found->drop_ply)];
  ASSERT_EQ(want.san.substr(0, 2), "B@");
  expect_committed_as_played(outcome.committed, want);
  for (const Incident& i : outcome.incidents) {
    ADD_FAILURE() << "false incident " << incident_name(i.type) << " " << i.ply << ": " << i.detail;
  }
  // Other drops are not checked: with no holding area seen and no reading, their types are
  // a toss.
}

}  // namespace

namespace {

// A knight's move from its home square (g1, b1, g8, b8) to an empty square where its player
// could as well have dropped a pawn, the knight staying there for the next `stays` plies (no
// later move tells what it is).
struct KnightOrPawn {
  std::size_t game = 0;
  int ply = 0;
};

std::optional<KnightOrPawn> find_knight_move_beside_pawn_drop(
    const std::vector<bugcam::rules::BpgnGame>& games, int stays) {
  using bugcam::rules::make_square;
  const auto found =
      first_ply_where(games, [&](const bugcam::rules::Replay& replay, std::size_t i) {
        const auto& ply = replay.plies[i];
        const Move m = ply.move;
        if (m.is_drop() || m.kind() != Move::Kind::kNormal) return false;
        const bugcam::rules::Position& p = ply.before;
        const Color mover = p.side_to_move();
        if (p.piece_at(m.from()).type != PieceType::kKnight || !p.piece_at(m.to()).empty())
          return false;
        const int home = mover == Color::kWhite ? 0 : 7;
        if (m.from() != make_square(1, home) && m.from() != make_square(6, home)) return false;
        const int rank = bugcam::rules::rank_of(m.to());
        if (rank == 0 || rank == 7 || p.holding(mover, PieceType::kPawn) == 0) return false;
        return stays_put(replay, i, stays);
      });
  if (!found) return std::nullopt;
  return KnightOrPawn{found->first, found->second};
}

// The knight's home square reads as occupied after it left (a shadow that the start position
// did not show, as a tall neighbour leaning over it under a tilted camera), so by the squares
// alone a pawn dropped where the knight landed explains the change better. The piece-type
// reading of that square is sure of a knight (0.97 against 0.0004 for a pawn): that must
// decide (it counted at most log 0.02, less than the square read as before costs).
TEST(TrackerTypes, SureTypeReadingOutweighsFromSquareReadAsBefore) {
  const std::vector<bugcam::rules::BpgnGame> games = load_games("fics_mbprog_64.bpgn");
  constexpr int kStays = 12;
  const std::optional<KnightOrPawn> found = find_knight_move_beside_pawn_drop(games, kStays);
  ASSERT_TRUE(found) << "no knight move from home where a pawn drop was possible";
  const bugcam::rules::Replay replay = bugcam::rules::replay(games[found->game]);
  const auto& knight = replay.plies[static_cast<std::size_t>(found->ply)];

  SimulationOptions options;
  options.misread = 0.0;
  options.seed = 11;
  options.max_plies = found->ply + kStays;
  options.holdings = false;
  options.shadowed.push_back(
      ShadowedSquare{knight.board, knight.move.from(), knight.before.side_to_move()});
  TrackerConfig config;
  config.piece_types = [&knight](BoardId board, bugcam::rules::Square square,
                                 int) -> std::optional<PieceTypeScores> {
    if (board != knight.board || square != knight.move.to()) return std::nullopt;
    return PieceTypeScores{0.0004f, 0.97f, 0.0286f, 0.0005f, 0.0005f, 0.0f};
  };
  const auto outcome = run_tracker(games[found->game], options, config);

  ASSERT_GT(outcome.sim.truth.size(), static_cast<std::size_t>(found->ply));
  const TrackedMove& want = outcome.sim.truth[static_cast<std::size_t>(found->ply)];
  ASSERT_EQ(want.san.front(), 'N');
  expect_committed_as_played(outcome.committed, want);
}

}  // namespace

namespace {

// A piece's move to a square its king could step to as well (Qe7 where Ke7 was legal too),
// the piece then staying there for the next `stays` plies (no later move tells which it was).
struct KingOrPiece {
  std::size_t game = 0;
  int ply = 0;
};

std::optional<KingOrPiece> find_move_a_king_could_make(
    const std::vector<bugcam::rules::BpgnGame>& games, int stays) {
  const auto found =
      first_ply_where(games, [&](const bugcam::rules::Replay& replay, std::size_t i) {
        const auto& ply = replay.plies[i];
        const Move m = ply.move;
        if (m.is_drop() || m.kind() != Move::Kind::kNormal) return false;
        bugcam::rules::Position p = ply.before;
        if (p.piece_at(m.from()).type == PieceType::kKing) return false;
        bugcam::rules::MoveList moves;
        p.legal_moves(bugcam::rules::otb_rules(), moves);
        bool rival = false;
        for (int k = 0; k < moves.size() && !rival; ++k) {
          const Move o = moves[k];
          rival = !o.is_drop() && o.to() == m.to() && o.kind() == Move::Kind::kNormal &&
                  p.piece_at(o.from()).type == PieceType::kKing;
        }
        return rival && stays_put(replay, i, stays);
      });
  if (!found) return std::nullopt;
  return KingOrPiece{found->first, found->second};
}

// A bishop's move to a square the king could step to as well (Be7 from f8 beside Ke7); the
// bishop's square reads as occupied after it left (a tall neighbour's body under a tilted
// camera) and the king's square reads empty all along (the king's body seen over the square
// behind it), so by the squares a pawn dropped on e7 explains best, then the king's step.
// The piece-type reading of e7 is sure of a bishop: it must be asked, though a king's move
// is among the rivals (the oracle once knew pawn..queen only and was not asked then).
TEST(TrackerTypes, TypeIsAskedWhenAKingsMoveIsAmongTheRivals) {
  const std::vector<bugcam::rules::BpgnGame> games = load_games("fics_mbprog_64.bpgn");
  constexpr int kStays = 12;
  const std::optional<KingOrPiece> found = find_move_a_king_could_make(games, kStays);
  ASSERT_TRUE(found) << "no move to a square the king could step to in the games";
  const bugcam::rules::Replay replay = bugcam::rules::replay(games[found->game]);
  const auto& played = replay.plies[static_cast<std::size_t>(found->ply)];
  const Color mover = played.before.side_to_move();

  SimulationOptions options;
  options.misread = 0.0;
  options.seed = 13;
  options.max_plies = found->ply + kStays;
  options.holdings = false;
  options.shadowed.push_back(ShadowedSquare{played.board, played.move.from(), mover});
  options.blind.push_back(BlindSquare{played.board, played.before.king_square(mover)});
  const auto type = static_cast<std::size_t>(played.before.piece_at(played.move.from()).type);
  PieceTypeScores reading{0.002f, 0.002f, 0.002f, 0.002f, 0.002f, 0.06f};
  reading[type] = 0.93f;
  TrackerConfig config;
  config.piece_types = [&played, reading](BoardId board, bugcam::rules::Square square,
                                          int) -> std::optional<PieceTypeScores> {
    if (board != played.board || square != played.move.to()) return std::nullopt;
    return reading;
  };
  const auto outcome = run_tracker(games[found->game], options, config);

  ASSERT_GT(outcome.sim.truth.size(), static_cast<std::size_t>(found->ply));
  expect_committed_as_played(outcome.committed,
                             outcome.sim.truth[static_cast<std::size_t>(found->ply)]);
}

}  // namespace

namespace {

// A pawn's one-step move to a square where its player could as well have dropped their one
// pawn in hand, with a piece of the player's beside the pawn's first square, and that
// player's next pawn drop on the board `min_gap` to `max_gap` plies (presses) later, none
// of those squares touched in between.
struct PawnMoveThenDrop {
  std::size_t game = 0;
  int move_ply = 0;
  int drop_ply = 0;
  bugcam::rules::Square neighbour = 0;
};

std::optional<bugcam::rules::Square> neighbour_of_side(const bugcam::rules::Replay& replay,
                                                       std::size_t i, std::size_t j) {
  const auto& ply = replay.plies[i];
  const Move m = ply.move;
  for (const int step : {-9, -8, -7, -1, 1, 7, 8, 9}) {
    const int n = m.from() + step;
    if (n < 0 || n >= 64 || n == m.to() ||
        std::abs(bugcam::rules::file_of(static_cast<bugcam::rules::Square>(n)) -
                 bugcam::rules::file_of(m.from())) > 1) {
      continue;
    }
    const auto square = static_cast<bugcam::rules::Square>(n);
    const bugcam::rules::Piece piece = ply.before.piece_at(square);
    if (!piece.empty() && piece.color == ply.before.side_to_move() &&
        squares_untouched(replay, ply.board, i + 1, j, {m.from(), m.to(), square})) {
      return square;
    }
  }
  return std::nullopt;
}

std::optional<PawnMoveThenDrop> find_pawn_move_then_drop(
    const std::vector<bugcam::rules::BpgnGame>& games, int min_gap, int max_gap) {
  for (std::size_t g = 0; g < games.size(); ++g) {
    const bugcam::rules::Replay replay = bugcam::rules::replay(games[g]);
    const auto& plies = replay.plies;
    for (std::size_t i = 0; i < plies.size(); ++i) {
      const Move m = plies[i].move;
      const bugcam::rules::Position& p = plies[i].before;
      const Color mover = p.side_to_move();
      if (m.is_drop() || m.kind() != Move::Kind::kNormal || std::abs(m.to() - m.from()) != 8 ||
          p.piece_at(m.from()).type != PieceType::kPawn ||
          p.holding(mover, PieceType::kPawn) != 1) {
        continue;
      }
      for (std::size_t j = i + 1; j < plies.size(); ++j) {
        const Move later = plies[j].move;
        if (plies[j].board != plies[i].board || !later.is_drop() ||
            later.piece() != PieceType::kPawn || plies[j].before.side_to_move() != mover) {
          continue;
        }
        // Still the one pawn: dropped instead at ply i, none would be left for this drop.
        const int gap = static_cast<int>(j - i);
        if (plies[j].before.holding(mover, PieceType::kPawn) != 1 || gap < min_gap ||
            gap > max_gap) {
          break;
        }
        if (const auto neighbour = neighbour_of_side(replay, i, j)) {
          return PawnMoveThenDrop{g, static_cast<int>(i), static_cast<int>(j), *neighbour};
        }
        break;
      }
    }
  }
  return std::nullopt;
}

// A sure type reader: of a square at a frame, the type of the piece the last move (or drop)
// there put on it. `truth` (a simulation's, in press order) gives the times, `replay` the
// moved pieces.
std::function<std::optional<PieceTypeScores>(BoardId, bugcam::rules::Square, int)> read_types_right(
    const std::vector<TrackedMove>& truth, const bugcam::rules::Replay& replay, double fps) {
  struct Landing {
    BoardId board;
    bugcam::rules::Square square;
    double t;
    PieceType type;
  };
  std::vector<Landing> landings;
  for (std::size_t k = 0; k < truth.size() && k < replay.plies.size(); ++k) {
    const auto& ply = replay.plies[k];
    if (truth[k].move != ply.move || truth[k].board != ply.board) break;
    const PieceType type = ply.move.is_drop() || ply.move.kind() == Move::Kind::kPromotion
                               ? ply.move.piece()
                               : ply.before.piece_at(ply.move.from()).type;
    landings.push_back({ply.board, ply.move.to(), truth[k].t, type});
  }
  return [landings, fps](BoardId board, bugcam::rules::Square square,
                         int frame) -> std::optional<PieceTypeScores> {
    // Read at and after the press.
    const double t = frame / fps + 0.5;
    std::optional<PieceTypeScores> types;
    for (const Landing& l : landings) {
      if (l.t > t) break;
      if (l.board != board || l.square != square) continue;
      types = PieceTypeScores{0.006f, 0.006f, 0.006f, 0.006f, 0.006f, 0.006f};
      (*types)[static_cast<std::size_t>(l.type)] = 0.97f;
    }
    return types;
  };
}

// The pawn's first square reads as its colour after the move: the pawn, now in front of it,
// hides it from a tilted camera, as the piece beside it did before (the tracker is told so;
// 7002's 4b. d6, d7 hidden by the pawn and by the knight on c6). By the squares, the
// player's pawn in hand dropped there explains the change as well, better by the lean's
// cost. Only the player's next pawn drop, its type read as a pawn, shows that the pawn was
// still in hand; it comes later than the commit lag, so the move's press must wait for it.
TEST(TrackerTypes, APawnDropLaterShowsThatAPawnWasMovedNotDropped) {
  const std::vector<bugcam::rules::BpgnGame> games = load_games("fics_mbprog_64.bpgn");
  TrackerConfig defaults;
  const std::optional<PawnMoveThenDrop> found =
      find_pawn_move_then_drop(games, defaults.commit_lag + 2, 3 * defaults.commit_lag - 2);
  ASSERT_TRUE(found) << "no pawn move beside a pawn drop with a pawn drop later in the games";
  const bugcam::rules::BpgnGame& game = games[found->game];
  const bugcam::rules::Replay replay = bugcam::rules::replay(game);
  const auto& moved = replay.plies[static_cast<std::size_t>(found->move_ply)];

  SimulationOptions options;
  options.misread = 0.01;
  options.seed = 17;
  options.max_plies = found->drop_ply + 4;
  options.holdings = false;
  options.shadowed.push_back(
      ShadowedSquare{moved.board, moved.move.from(), moved.before.side_to_move(), found->move_ply});
  TrackerConfig config;
  auto& leans = config.leans_over[static_cast<std::size_t>(moved.board)];
  for (auto* hides : {&leans.short_pieces, &leans.tall_pieces}) {
    (*hides)[moved.move.to()] = std::uint64_t{1} << moved.move.from();
    (*hides)[found->neighbour] = std::uint64_t{1} << moved.move.from();
  }
  // The same simulation run ahead gives the moves' times.
  const Simulation ahead = simulate(game, options, [](const SimulatedInput&) {});
  config.piece_types = read_types_right(ahead.truth, replay, options.fps);
  const auto outcome = run_tracker(game, options, config);

  ASSERT_GT(outcome.sim.truth.size(), static_cast<std::size_t>(found->drop_ply));
  for (const int ply : {found->move_ply, found->drop_ply}) {
    expect_committed_as_played(outcome.committed, outcome.sim.truth[static_cast<std::size_t>(ply)]);
  }
}

// A capture made without a press (the opponent answers, and the capturer presses after their
// next move, as held-out 11206's 11A. Bxh5), its piece dropped at once by the partner, who held
// none of its type and presses before any press of the capture's board records the capture: the
// drop is made on credit, and the capture, recorded later, repays it. Before, no history held
// the piece, and the drop was taken for another type held (11206's 8b. B@d6 as N@d6) or for a
// disturbance.
// A capture (game, ply) whose piece the capturer's partner, holding none of its type, drops
// at the next ply, with the capturer's opponent and the capturer moving again after it.
struct CaptureThenDrop {
  std::size_t game = 0;
  std::size_t ply = 0;
};
std::vector<CaptureThenDrop> captures_then_drops(const std::vector<bugcam::rules::BpgnGame>& games,
                                                 std::size_t most) {
  std::vector<CaptureThenDrop> out;
  for (std::size_t g = 0; g < games.size() && out.size() < most; ++g) {
    const bugcam::rules::Replay replay = bugcam::rules::replay(games[g]);
    const auto& plies = replay.plies;
    for (std::size_t i = 8; i + 1 < plies.size() && out.size() < most; ++i) {
      const PieceType passed = bugcam::tracker::detail::passed_by(plies[i].before, plies[i].move);
      const auto& drop = plies[i + 1];
      const bugcam::rules::Color capturer = plies[i].before.side_to_move();
      if (passed == PieceType::kNone || drop.board == plies[i].board || !drop.move.is_drop() ||
          drop.move.piece() != passed || drop.before.side_to_move() == capturer ||
          drop.before.holding(!capturer, passed) != 1) {
        continue;
      }
      // The answer, and the capturer's next move.
      int after = 0;
      for (std::size_t j = i + 2; j < plies.size() && after < 2; ++j) {
        after += plies[j].board == plies[i].board ? 1 : 0;
      }
      if (after == 2) out.push_back({g, i});
    }
  }
  return out;
}

// What became of the capture-then-drop cases, each played with the move_without_press (its
// mover pressing late) injected at the capture (`before_capture` false) or at the move of the
// capturer's opponent before it.
struct CreditOutcome {
  int cases = 0, drops_right = 0, captures_right = 0, found = 0, illegal = 0;
  int unpressed_right = 0;  // the move made without a press committed as played
  int holdings_compared = 0, holdings_right = 0;
};
CreditOutcome drops_before_captures(const std::vector<bugcam::rules::BpgnGame>& games,
                                    bool before_capture) {
  CreditOutcome out;
  for (const CaptureThenDrop& found_case : captures_then_drops(games, 4)) {
    const std::size_t g = found_case.game;
    const std::size_t i = found_case.ply;
    const bugcam::rules::Replay replay = bugcam::rules::replay(games[g]);
    const auto& plies = replay.plies;
    // The ply the player who forgot to press made.
    std::size_t unpressed = i;
    if (before_capture) {
      do {
        --unpressed;
      } while (plies[unpressed].board != plies[i].board);
    }
    const bugcam::rules::Color forgetter = plies[unpressed].before.side_to_move();
    ++out.cases;
    SimulationOptions options;
    options.misread = 0.01;
    options.seed = 17;
    options.max_plies = static_cast<int>(i) + 14;
    options.holdings = false;
    options.injections = {{IncidentType::kMoveWithoutPress, static_cast<int>(unpressed), true}};
    const Simulation ahead = simulate(games[g], options, [](const SimulatedInput&) {});
    TrackerConfig config;
    config.piece_types = read_types_right(ahead.truth, replay, options.fps);
    const auto outcome = run_tracker(games[g], options, config);
    const auto committed_as_played = [&](std::size_t ply) {
      const TrackedMove& want = outcome.sim.truth.at(ply);
      return std::any_of(
          outcome.committed.begin(), outcome.committed.end(), [&](const TrackedMove& got) {
            return got.board == want.board && got.ply == want.ply && got.san == want.san;
          });
    };
    out.drops_right += committed_as_played(i + 1) ? 1 : 0;
    out.captures_right += committed_as_played(i) ? 1 : 0;
    // The piece went from the capture to the drop once: what each player holds after the
    // simulated plies is what the game says (a capture that added it to the holding again
    // would leave the dropper one too many).
    std::array<bugcam::rules::Position, 2> played{bugcam::rules::Position::start(),
                                                  bugcam::rules::Position::start()};
    for (std::size_t k = 0; k < outcome.sim.truth.size(); ++k) {
      bugcam::tracker::detail::play_on_boards(played, plies[k].board, plies[k].move,
                                              bugcam::rules::otb_rules());
    }
    for (std::size_t b = 0; b < 2; ++b) {
      for (const bugcam::rules::Color c :
           {bugcam::rules::Color::kWhite, bugcam::rules::Color::kBlack}) {
        for (int t = 0; t < 5; ++t) {
          const auto type = static_cast<PieceType>(t);
          ++out.holdings_compared;
          out.holdings_right +=
              outcome.boards[b].holding(c, type) == played[b].holding(c, type) ? 1 : 0;
        }
      }
    }
    bool unpressed_found = false;
    for (const Incident& got : outcome.incidents) {
      unpressed_found = unpressed_found || (got.type == IncidentType::kMoveWithoutPress &&
                                            got.board == plies[i].board && got.side == forgetter);
      out.illegal += got.type == IncidentType::kIllegalMove ? 1 : 0;
      std::cout << "game " << g << " ply " << i << ": " << incident_name(got.type) << " " << got.ply
                << ": " << got.detail << "\n";
    }
    out.found += unpressed_found ? 1 : 0;
    out.unpressed_right += committed_as_played(unpressed) ? 1 : 0;
  }
  return out;
}

// Every case's drop, capture and unpressed move committed as played, the incident found, no
// illegal move, and every holding right at the end.
void expect_every_case_right(const CreditOutcome& got) {
  ASSERT_GE(got.cases, 3) << "too few unpressed captures whose piece the partner dropped at once";
  EXPECT_EQ(got.unpressed_right, got.cases);
  EXPECT_EQ(got.drops_right, got.cases);
  EXPECT_EQ(got.captures_right, got.cases);
  EXPECT_EQ(got.found, got.cases);
  EXPECT_EQ(got.illegal, 0);
  EXPECT_EQ(got.holdings_right, got.holdings_compared);
}

TEST(TrackerTypes, APieceDroppedBeforeThePartnersCaptureOfItIsRecordedIsTheDrop) {
  expect_every_case_right(drops_before_captures(load_games("fics_mbprog_64.bpgn"), false));
}

// The same, but the capturer's opponent made the move before the capture without a press, so
// the capture follows it unpressed, and the opponent's press after their next move records all
// three (fresh 11314: 5b. Bb4, 6B. exd5, 6b. Nxd5 at one press, 8a. P@e4 of that pawn pressed
// before it): at the drop's press the capturer was not yet to move in any history.
TEST(TrackerTypes, APieceDroppedBeforeACaptureThatFollowedAnUnpressedMoveIsTheDrop) {
  expect_every_case_right(drops_before_captures(load_games("fics_mbprog_64.bpgn"), true));
}

// The same drop, but the footage ends before any press records the capture, and the beam
// keeps one history, so none without the loan is left: the drop is committed as one that
// breaks the rules (a piece never held), an illegal_move from whose position the record
// goes on, not a drop the record cannot replay.
TEST(TrackerTypes, ADropOnCreditNoCaptureRepaidIsAnIllegalMove) {
  const std::vector<bugcam::rules::BpgnGame> games = load_games("fics_mbprog_64.bpgn");
  const std::vector<CaptureThenDrop> cases = captures_then_drops(games, 1);
  ASSERT_EQ(cases.size(), 1u);
  const bugcam::rules::Replay replay = bugcam::rules::replay(games[cases[0].game]);
  const auto& drop = replay.plies.at(cases[0].ply + 1);
  SimulationOptions options;
  options.misread = 0.0;
  options.holdings = false;
  options.max_plies = static_cast<int>(cases[0].ply) + 2;
  options.injections = {{IncidentType::kMoveWithoutPress, static_cast<int>(cases[0].ply), true}};
  const Simulation ahead = simulate(games[cases[0].game], options, [](const SimulatedInput&) {});
  TrackerConfig config;
  config.beam_width = 1;
  config.piece_types = read_types_right(ahead.truth, replay, options.fps);
  const auto outcome = run_tracker(games[cases[0].game], options, config);
  const TrackedMove& want = outcome.sim.truth.back();
  ASSERT_EQ(want.move, drop.move);
  const auto got = std::find_if(
      outcome.committed.begin(), outcome.committed.end(),
      [&](const TrackedMove& m) { return m.board == want.board && m.ply == want.ply; });
  ASSERT_NE(got, outcome.committed.end()) << want.ply << " not committed";
  EXPECT_TRUE(got->illegal);
  EXPECT_EQ(got->move, drop.move);
  EXPECT_FALSE(got->dropped_on_credit);
  const auto illegal =
      std::find_if(outcome.incidents.begin(), outcome.incidents.end(),
                   [&](const Incident& i) { return i.type == IncidentType::kIllegalMove; });
  ASSERT_NE(illegal, outcome.incidents.end());
  EXPECT_EQ(illegal->board, want.board);
  EXPECT_EQ(illegal->side, want.side);
  EXPECT_FALSE(illegal->position.empty());
  std::cout << illegal->detail << "\n";
}

// A white piece comes from nowhere on board A early in the game, White's hand empty (a drop
// from a hand the tracker thinks empty): a resync puts it there as the piece vision reads, a
// knight, not a pawn (held-out 10301: a knight put there as a pawn made each of its later moves
// an illegal move).
TEST(TrackerTypes, APieceFromNowhereIsTheTypeVisionReads) {
  const std::vector<bugcam::rules::BpgnGame> games = load_games("fics_mbprog_64.bpgn");
  const bugcam::rules::Replay replay = bugcam::rules::replay(games[0]);
  SimulationOptions options;
  options.misread = 0.0;
  options.holdings = false;
  options.max_plies = 12;
  // An empty square of board A that no move of the first plies reaches.
  std::optional<bugcam::rules::Square> square;
  for (const char* name : {"a5", "h5", "a4", "h4", "b5", "g5"}) {
    const bugcam::rules::Square s = *bugcam::rules::parse_square(name);
    if (replay.plies[0].before.piece_at(s).empty() &&
        squares_untouched(replay, BoardId::kA, 0, static_cast<std::size_t>(options.max_plies),
                          {s})) {
      square = s;
      break;
    }
  }
  ASSERT_TRUE(square) << "no square of board A untouched by the first plies";
  const Simulation ahead = simulate(games[0], options, [](const SimulatedInput&) {});
  // From a little before White A's third move's press: a hand, then a white piece.
  int white_a_moves = 0;
  std::optional<double> press;
  for (const TrackedMove& m : ahead.truth) {
    if (m.board == BoardId::kA && m.side == Color::kWhite && ++white_a_moves == 3) press = m.t;
  }
  ASSERT_TRUE(press);
  const auto edit = [&](std::vector<SimulatedInput>& inputs) {
    for (SimulatedInput& input : inputs) {
      auto* o = std::get_if<BoardObservation>(&input);
      if (o == nullptr || o->board != BoardId::kA || o->t < *press - 1.2) continue;
      SquareEvidence& seen = o->squares[static_cast<std::size_t>(*square)];
      seen = o->t < *press - 0.6 ? SquareEvidence{0.0f, 0.0f, 0.0f, true}
                                 : SquareEvidence{0.0f, 1.0f, 0.0f};
    }
  };
  TrackerConfig config;
  const bugcam::rules::Square knight_square = *square;
  config.piece_types = [knight_square](BoardId board, bugcam::rules::Square s,
                                       int) -> std::optional<PieceTypeScores> {
    if (board != BoardId::kA || s != knight_square) return std::nullopt;
    return PieceTypeScores{0.05f, 0.8f, 0.05f, 0.04f, 0.03f, 0.03f};
  };
  const auto outcome = run_tracker(games[0], options, config, std::nullopt, edit);
  const bugcam::rules::Piece there = outcome.boards[0].piece_at(*square);
  EXPECT_EQ(there.color, Color::kWhite);
  EXPECT_EQ(there.type, PieceType::kKnight);
  bool disturbed = false;
  for (const Incident& i : outcome.incidents)
    disturbed |= i.type == IncidentType::kPositionDisturbed;
  EXPECT_TRUE(disturbed) << "the piece from nowhere is no incident";
}

}  // namespace

namespace {

// A drop that gives check where its player held a piece of another type that, dropped there,
// would not; the piece staying there for the next `stays` plies (find_..._quiet_one's
// argument), which are as legal after the quiet drop (no later move tells which it was).
struct CheckingDrop {
  std::size_t game = 0;
  int ply = 0;
  PieceType quiet_type = PieceType::kPawn;
};

std::optional<CheckingDrop> find_checking_drop_beside_a_quiet_one(
    const std::vector<bugcam::rules::BpgnGame>& games, int stays) {
  const bugcam::rules::RuleSet& rules = bugcam::rules::otb_rules();
  for (std::size_t g = 0; g < games.size(); ++g) {
    const bugcam::rules::Replay replay = bugcam::rules::replay(games[g]);
    for (std::size_t i = 0; i < replay.plies.size(); ++i) {
      const auto& ply = replay.plies[i];
      const Move m = ply.move;
      if (!m.is_drop() || m.piece() == PieceType::kPawn) continue;
      const bugcam::rules::Position& p = ply.before;
      const auto gives_check = [&](Move drop) {
        bugcam::rules::Position after = p;
        after.make(drop, rules);
        return after.in_check();
      };
      if (!gives_check(m) || !stays_put(replay, i, stays)) continue;
      for (const PieceType other :
           {PieceType::kKnight, PieceType::kBishop, PieceType::kRook, PieceType::kQueen}) {
        const Move quiet = Move::drop(other, m.to());
        if (other == m.piece() || p.holding(p.side_to_move(), other) == 0 ||
            !p.is_legal(quiet, rules) || gives_check(quiet)) {
          continue;
        }
        // The board's next moves are as legal after the quiet drop, and the answer to the
        // check is no king's step (which a quiet drop would make unlikely): they do not tell.
        bugcam::rules::Position board = p;
        board.make(quiet, rules);
        bool alike = true;
        bool answered = false;
        for (std::size_t j = i + 1; j <= i + static_cast<std::size_t>(stays) && alike; ++j) {
          const auto& next = replay.plies[j];
          if (next.board != ply.board) continue;
          if (!answered) {
            answered = true;
            alike = next.move.is_drop() ||
                    next.before.piece_at(next.move.from()).type != PieceType::kKing;
          }
          alike = alike && board.is_legal(next.move, rules);
          if (alike) board.make(next.move, rules);
        }
        if (alike) return CheckingDrop{g, static_cast<int>(i), other};
      }
    }
  }
  return std::nullopt;
}

// The type reading of the dropped piece's square leans a little to the quiet type its player
// also held (0.45 against 0.38 in every view: held-out 10832's 17b. B@a6+ read knight
// 0.41-0.48, bishop 0.35-0.43). Players drop with check far more often than not, per square
// (shared/data/bpgn): the checking drop is recorded (TrackerConfig::prefer_checking_drops).
TEST(TrackerTypes, AnUnsureTypeReadingGoesToTheDropThatGivesCheck) {
  const std::vector<bugcam::rules::BpgnGame> games = load_games("fics_mbprog_64.bpgn");
  constexpr int kStays = 12;
  const std::optional<CheckingDrop> found = find_checking_drop_beside_a_quiet_one(games, kStays);
  ASSERT_TRUE(found) << "no checking drop where a quiet type was held too";
  const bugcam::rules::Replay replay = bugcam::rules::replay(games[found->game]);
  const auto& drop = replay.plies[static_cast<std::size_t>(found->ply)];

  SimulationOptions options;
  options.misread = 0.0;
  options.seed = 5;
  options.max_plies = found->ply + kStays;
  options.holdings = false;  // as recordings run: nothing but the type reading tells them apart
  // Every other drop's square reads its type surely (where one type only is dropped there),
  // so that their doubts do not fill the beam.
  std::map<std::pair<BoardId, bugcam::rules::Square>, std::optional<PieceType>> dropped;
  for (std::size_t j = 0;
       j < static_cast<std::size_t>(options.max_plies) && j < replay.plies.size(); ++j) {
    const Move m = replay.plies[j].move;
    if (!m.is_drop()) continue;
    const auto [at, added] = dropped.try_emplace({replay.plies[j].board, m.to()}, m.piece());
    if (!added && at->second != m.piece()) at->second.reset();
  }
  TrackerConfig config;
  const auto checking = static_cast<std::size_t>(drop.move.piece());
  const auto quiet = static_cast<std::size_t>(found->quiet_type);
  config.piece_types = [&](BoardId board, bugcam::rules::Square square,
                           int) -> std::optional<PieceTypeScores> {
    PieceTypeScores scores{0.04f, 0.04f, 0.04f, 0.04f, 0.04f, 0.0f};
    if (board == drop.board && square == drop.move.to()) {
      scores[quiet] = 0.45f;
      scores[checking] = 0.38f;
      return scores;
    }
    const auto at = dropped.find({board, square});
    if (at == dropped.end() || !at->second) return std::nullopt;
    scores[static_cast<std::size_t>(*at->second)] = 0.84f;
    return scores;
  };
  const auto outcome = run_tracker(games[found->game], options, config);

  ASSERT_GT(outcome.sim.truth.size(), static_cast<std::size_t>(found->ply));
  const TrackedMove& want = outcome.sim.truth[static_cast<std::size_t>(found->ply)];
  ASSERT_NE(want.san.find('@'), std::string::npos);
  expect_committed_as_played(outcome.committed, want);
  // Without the preference the reading decides, for the quiet type.
  config.prefer_checking_drops = false;
  const auto unpreferred = run_tracker(games[found->game], options, config);
  bool committed = false;
  for (const TrackedMove& got : unpreferred.committed) {
    if (got.board == want.board && got.ply == want.ply) {
      committed = true;
      EXPECT_TRUE(got.move.is_drop() && got.move.piece() == found->quiet_type) << got.san;
    }
  }
  EXPECT_TRUE(committed);
}

}  // namespace

namespace {

// A drop of a piece other than a pawn, its player holding another type too (so that drops of
// other types onto its square are rivals the type reading tells apart), the piece staying on its
// square for the next `stays` plies; not on the first or last rank.
std::optional<std::pair<std::size_t, int>> find_drop_holding_another_type(
    const std::vector<bugcam::rules::BpgnGame>& games, int stays) {
  return first_ply_where(games, [&](const bugcam::rules::Replay& replay, std::size_t i) {
    const auto& ply = replay.plies[i];
    const Move m = ply.move;
    if (!m.is_drop() || m.piece() == PieceType::kPawn) return false;
    const int rank = bugcam::rules::rank_of(m.to());
    return rank != 0 && rank != 7 && stays_put(replay, i, stays) &&
           bugcam::tracker::testing::types_held_before(ply) >= 2;
  });
}

// A piece dropped under the hand and read empty once the hand has gone (a pale piece on a pale
// square, or one taken off again at once: held-out 11482's 8A. B@e6, captured by the bishop of
// 8a. Bxe6 before it was seen): its square, covered then read as before, tells no more than any
// other square the arm covered and left reading empty. The type reading of the drop's square
// favours the dropped type, if only a little (0.34 among five): it tells for that drop, and must
// not put it behind the drops onto squares nothing read (a log-probability, always a cost, did).
TEST(TrackerTypes, AMiddlingTypeReadingOfAnUnseenDropTellsForIt) {
  const std::vector<bugcam::rules::BpgnGame> games = load_games("fics_mbprog_64.bpgn");
  constexpr int kStays = 6;
  const auto found = find_drop_holding_another_type(games, kStays);
  ASSERT_TRUE(found) << "no drop where another type was held too";
  const auto [game, ply] = *found;
  const bugcam::rules::Replay replay = bugcam::rules::replay(games[game]);
  const auto& drop = replay.plies[static_cast<std::size_t>(ply)];

  SimulationOptions options;
  options.misread = 0.0;
  options.seed = 3;
  options.max_plies = ply + kStays;
  options.holdings = false;  // as recordings run: nothing but the type reading tells them apart
  const Simulation ahead = simulate(games[game], options, [](const SimulatedInput&) {});
  ASSERT_GT(ahead.truth.size(), static_cast<std::size_t>(ply));
  const TrackedMove& want = ahead.truth[static_cast<std::size_t>(ply)];
  ASSERT_NE(want.san.find('@'), std::string::npos);
  const auto edit = [&](std::vector<SimulatedInput>& inputs) {
    for (SimulatedInput& input : inputs) {
      auto* o = std::get_if<BoardObservation>(&input);
      if (o == nullptr || o->board != drop.board || o->t < want.t - 1.0) continue;
      SquareEvidence& seen = o->squares[static_cast<std::size_t>(drop.move.to())];
      seen = o->t < want.t ? SquareEvidence{0.0f, 0.0f, 0.0f, true}
                           : SquareEvidence{0.96f, 0.02f, 0.02f};
    }
  };
  TrackerConfig config;
  const auto dropped = static_cast<std::size_t>(drop.move.piece());
  config.piece_types = [&](BoardId board, bugcam::rules::Square square,
                           int) -> std::optional<PieceTypeScores> {
    if (board != drop.board || square != drop.move.to()) return std::nullopt;
    PieceTypeScores scores{0.2f, 0.2f, 0.16f, 0.1f, 0.1f, 0.0f};
    scores[dropped] = 0.34f;
    float rest = 0.0f;
    for (std::size_t t = 0; t < 5; ++t) rest += t == dropped ? 0.0f : scores[t];
    for (std::size_t t = 0; t < 5; ++t) {
      if (t != dropped) scores[t] *= 0.66f / rest;
    }
    return scores;
  };
  const auto outcome = run_tracker(games[game], options, config, std::nullopt, edit);
  expect_committed_as_played(outcome.committed, want);
}

}  // namespace

namespace {

// A drop whose player held another type too, since their previous move on the board, neither
// drop onto its square giving check (no prior tells them apart), the piece staying for the next
// `stays` plies; not on the first or last rank. Up to `count` of them: (game, ply, the other type).
struct DropBesideAnotherType {
  std::size_t game = 0;
  int ply = 0;
  PieceType other = PieceType::kNone;
};
std::vector<DropBesideAnotherType> drops_beside_another_type(
    const std::vector<bugcam::rules::BpgnGame>& games, int stays, std::size_t count) {
  std::vector<DropBesideAnotherType> out;
  for (std::size_t g = 0; g < games.size() && out.size() < count; ++g) {
    const bugcam::rules::Replay replay = bugcam::rules::replay(games[g]);
    for (std::size_t i = 0; i < replay.plies.size() && out.size() < count; ++i) {
      const auto& ply = replay.plies[i];
      const Move m = ply.move;
      if (!m.is_drop() || !stays_put(replay, i, stays)) continue;
      const int rank = bugcam::rules::rank_of(m.to());
      if (rank == 0 || rank == 7) continue;
      const auto gives_check = [&](PieceType type) {
        bugcam::rules::Position after = ply.before;
        after.make(Move::drop(type, m.to()), bugcam::rules::otb_rules());
        return after.in_check();
      };
      if (gives_check(m.piece())) continue;
      // The player's previous move on the board, to tell a type held since then from one that
      // comes in this turn (its arrival is another matter).
      const Color mover = ply.before.side_to_move();
      const bugcam::rules::ReplayedPly* previous = nullptr;
      for (std::size_t j = i; j-- > 0;) {
        if (replay.plies[j].board == ply.board && replay.plies[j].before.side_to_move() == mover) {
          previous = &replay.plies[j];
          break;
        }
      }
      if (previous == nullptr) continue;
      for (int t = 0; t < 5; ++t) {
        const auto type = static_cast<PieceType>(t);
        const bool dropped_then = previous->move.is_drop() && previous->move.piece() == type;
        if (type == m.piece() || ply.before.holding(mover, type) == 0 ||
            previous->before.holding(mover, type) <= (dropped_then ? 1 : 0) || gives_check(type)) {
          continue;
        }
        out.push_back({g, static_cast<int>(i), type});
        break;
      }
    }
  }
  return out;
}

// A holding area that reads a held piece of another type as one of the dropped type, before the
// drop and after it, its views under the hand from the grab to half a second after the press
// (held-out 11675: 14A. P@d5, White A's bishop read as a pawn; the one clear view after the press
// came 0.6 s on, its pawn taken for the one left and B@d5 recorded). The fall of the dropped type
// from the turn's clear view to that one tells the drop, with the type reading of its square
// (pawn 0.78, bishop 0.05, as 11675's); the level of the area alone tells against it.
TEST(TrackerTypes, AFallIntoTheFirstClearViewAfterThePressTellsTheDropsType) {
  const std::vector<bugcam::rules::BpgnGame> games = load_games("fics_mbprog_64.bpgn");
  constexpr int kStays = 6;
  const std::vector<DropBesideAnotherType> drops = drops_beside_another_type(games, kStays, 12);
  int tried = 0;
  int right = 0;
  for (const DropBesideAnotherType& found : drops) {
    const bugcam::rules::Replay replay = bugcam::rules::replay(games[found.game]);
    const auto& drop = replay.plies[static_cast<std::size_t>(found.ply)];
    SimulationOptions options;
    options.misread = 0.0;
    options.seed = 11;
    options.max_plies = found.ply + kStays;
    // The hand stays over the drop's square, so that the press is weighed once the view after it
    // has come (11675's was weighed 1.8 s after it).
    options.lingering_hands = {found.ply};
    const Simulation ahead = simulate(games[found.game], options, [](const SimulatedInput&) {});
    ASSERT_GT(ahead.truth.size(), static_cast<std::size_t>(found.ply));
    const TrackedMove& want = ahead.truth[static_cast<std::size_t>(found.ply)];
    ASSERT_NE(want.san.find('@'), std::string::npos);
    double previous_press = 0.0;
    for (int j = 0; j < found.ply; ++j) {
      const TrackedMove& m = ahead.truth[static_cast<std::size_t>(j)];
      if (m.board == want.board) previous_press = std::max(previous_press, m.t);
    }
    // A clear view of the area in the turn before the grab (the hand over it from 1.5 s before
    // the press at most).
    if (want.t - previous_press < 2.5) continue;
    ++tried;
    const Seat dropper{want.board, drop.before.side_to_move()};
    const auto dropped = static_cast<std::size_t>(drop.move.piece());
    const auto other = static_cast<std::size_t>(found.other);
    const auto edit = [&](std::vector<SimulatedInput>& inputs) {
      for (SimulatedInput& input : inputs) {
        auto* o = std::get_if<HoldingsObservation>(&input);
        if (o == nullptr || !(o->seat == dropper) || o->t < previous_press - 1.0 ||
            o->t > want.t + 2.0) {
          continue;
        }
        bugcam::tracker::testing::read_as(*o, found.other, drop.move.piece());
        if (o->t >= want.t - 1.5 && o->t <= want.t + 0.5) o->occluded = true;
      }
    };
    TrackerConfig config;
    config.piece_types = [&](BoardId board, bugcam::rules::Square square,
                             int) -> std::optional<PieceTypeScores> {
      if (board != want.board || square != drop.move.to()) return std::nullopt;
      PieceTypeScores scores{0.0563f, 0.0563f, 0.0563f, 0.0563f, 0.0563f, 0.0f};
      scores[dropped] = 0.78f;
      scores[other] = 0.053f;
      return scores;
    };
    const auto outcome = run_tracker(games[found.game], options, config, std::nullopt, edit);
    for (const TrackedMove& got : outcome.committed) {
      if (got.board != want.board || got.ply != want.ply) continue;
      if (got.san == want.san) ++right;
      std::cout << want.ply << ". " << want.san << " (" << bugcam::rules::piece_letter(found.other)
                << " held too): " << got.san << "\n";
    }
  }
  EXPECT_GE(tried, 4);
  EXPECT_EQ(right, tried);
}

}  // namespace
