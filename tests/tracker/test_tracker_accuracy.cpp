// The tracker on noisy observations of real games, as vision would give them: the issue's
// measurement of 20 clips (10 FICS, 10 chess.com games, each cut to 40-80 plies).
#include <functional>
#include <optional>

#include <gtest/gtest.h>

#include "tracker_harness.hpp"

namespace {

using namespace bugcam::tracker;
using bugcam::tracker::testing::load_games;
using bugcam::tracker::testing::Outcome;
using bugcam::tracker::testing::run_tracker;

struct Totals {
  int moves = 0;
  int right = 0;
  int games = 0;
  int exact = 0;
  int false_incidents = 0;
};

// Clip lengths spread over 40..80 plies, fixed per game so results are reproducible.
int clip_plies(std::size_t game) {
  return 40 + static_cast<int>((game * 17) % 41);
}

void run_set(const std::vector<bugcam::rules::BpgnGame>& games, std::size_t count, double misread,
             Totals& totals) {
  int done = 0;
  for (std::size_t g = 0; g < games.size() && done < static_cast<int>(count); ++g) {
    SimulationOptions options;
    options.misread = misread;
    options.seed = 1000 + g;
    options.max_plies = clip_plies(g);
    const auto outcome = run_tracker(games[g], options);
    // Clips shorter than 40 plies (a game whose record the OTB rules stop early) do not count.
    if (outcome.sim.truth.size() < 40) continue;
    ++done;
    ++totals.games;
    totals.moves += static_cast<int>(outcome.sim.truth.size());
    totals.right += outcome.right;
    totals.exact += outcome.exact ? 1 : 0;
    totals.false_incidents += static_cast<int>(outcome.incidents.size());
    if (!outcome.exact) {
      std::cout << "game " << g << ": " << outcome.right << "/" << outcome.sim.truth.size()
                << " right, " << outcome.committed.size() << " committed\n";
    }
    for (const Incident& i : outcome.incidents) {
      std::cout << "game " << g << " false incident " << incident_name(i.type) << " " << i.ply
                << " t=" << i.t << ": " << i.detail << "\n";
    }
  }
}

Totals run_clips(double misread) {
  Totals totals;
  run_set(load_games("fics_mbprog_64.bpgn"), 10, misread, totals);
  run_set(load_games("chesscom_41_pairs.bpgn"), 10, misread, totals);
  std::cout << "misread " << misread << ": moves right " << totals.right << "/" << totals.moves
            << " (" << 100.0 * totals.right / std::max(1, totals.moves) << " %), games exact "
            << totals.exact << "/" << totals.games << ", false incidents " << totals.false_incidents
            << "\n";
  return totals;
}

// Whether the tracker committed `drop`'s ply as a drop onto its square (of whatever type).
bool dropped_on_its_square(const Outcome& outcome, const TrackedMove& drop) {
  return std::any_of(outcome.committed.begin(), outcome.committed.end(), [&](const TrackedMove& m) {
    return m.board == drop.board && m.ply == drop.ply && m.move.is_drop() &&
           m.move.to() == drop.move.to();
  });
}

// The drop tests' footage: 1 % misreads, 60 plies, the holding areas not read (as `bugcam
// record` by default).
SimulationOptions drop_test_options() {
  SimulationOptions options;
  options.misread = 0.01;
  options.seed = 7;
  options.max_plies = 60;
  options.holdings = false;
  return options;
}

// Flags the squares around `square` (and it) covered in `seen`: the arm over it.
void cover_around(BoardObservation& seen, bugcam::rules::Square square) {
  const int file = bugcam::rules::file_of(square);
  const int rank = bugcam::rules::rank_of(square);
  for (int df = -1; df <= 1; ++df) {
    for (int dr = -1; dr <= 1; ++dr) {
      if (file + df < 0 || file + df > 7 || rank + dr < 0 || rank + dr > 7) continue;
      seen.squares[static_cast<std::size_t>(bugcam::rules::make_square(file + df, rank + dr))]
          .occluded = true;
    }
  }
}

// An edit of the footage: `drop`'s piece reads empty from 2.5 s before its press until
// `until` (whatever else stands there is seen), and the arm that made it covers the eight
// squares around while it covers the drop's square.
std::function<void(std::vector<SimulatedInput>&)> read_empty_under_an_arm(TrackedMove drop,
                                                                          double until) {
  return [drop, until](std::vector<SimulatedInput>& inputs) {
    const bool white = drop.side == Color::kWhite;
    for (SimulatedInput& input : inputs) {
      auto* seen = std::get_if<BoardObservation>(&input);
      if (seen == nullptr || seen->board != drop.board || seen->t < drop.t - 2.5 ||
          seen->t > until) {
        continue;
      }
      SquareEvidence& square = seen->squares[drop.move.to()];
      if (square.occluded && seen->t <= drop.t + 0.05) cover_around(*seen, drop.move.to());
      const float own = white ? square.white : square.black;
      const float other = white ? square.black : square.white;
      if (!square.occluded && own > square.empty && own > other) square = SquareEvidence{};
    }
  };
}

// How often drops were recorded onto their square with a TrackerConfig switch off and on, and
// how many were lost (recorded so off, not on).
struct SwitchedCounts {
  int drops = 0;
  std::array<int, 2> found{};  // [on]
  int lost = 0;
};

// Each drop of the first 16 sample games for which `read_until` gives a time (from the
// simulation's truth and the drop's index in it), recorded with the drop read empty under an
// arm until then (read_empty_under_an_arm), the switch `set` off and on: whether it was
// recorded onto its square.
SwitchedCounts count_drops_on_their_square(
    const SimulationOptions& options,
    const std::function<std::optional<double>(const std::vector<TrackedMove>&, std::size_t)>&
        read_until,
    const std::function<void(TrackerConfig&, bool)>& set) {
  const std::vector<bugcam::rules::BpgnGame> games = load_games("fics_mbprog_64.bpgn");
  SwitchedCounts counts;
  for (std::size_t g = 0; g < 16 && g < games.size(); ++g) {
    const Simulation plain = simulate(games[g], options, [](const SimulatedInput&) {});
    for (std::size_t k = 4; k < plain.truth.size(); ++k) {
      const TrackedMove& drop = plain.truth[k];
      if (!drop.move.is_drop()) continue;
      const std::optional<double> until = read_until(plain.truth, k);
      if (!until) continue;
      ++counts.drops;
      std::array<bool, 2> here{};
      for (const bool on : {false, true}) {
        TrackerConfig config;
        set(config, on);
        here[on] = dropped_on_its_square(run_tracker(games[g], options, config, std::nullopt,
                                                     read_empty_under_an_arm(drop, *until)),
                                         drop);
        counts.found[on] += here[on] ? 1 : 0;
      }
      counts.lost += here[0] && !here[1] ? 1 : 0;
    }
  }
  return counts;
}

// The switch recorded more of at least 5 drops onto their square, and lost none.
void expect_more_found_none_lost(const SwitchedCounts& counts) {
  ASSERT_GE(counts.drops, 5);
  EXPECT_GT(counts.found[1], counts.found[0]);
  EXPECT_EQ(counts.lost, 0);
}

TEST(TrackerAccuracy, TwentyClipsWithThreePercentMisreads) {
  const Totals t = run_clips(std::getenv("MISREAD") ? std::atof(std::getenv("MISREAD")) : 0.03);
  ASSERT_EQ(t.games, 20);
  // Measured 1170/1171 moves right (99.91 %), 19/20 games exact, no false incident (1164/1171
  // and 17/20 while a square covered and read as before cost a move a flat amount however
  // clearly it read, and typed alternatives of a drop could leave the beam before a later
  // move decided). The issue's targets: >= 99.5 % of moves, >= 90 % of games (18/20),
  // <= 1 false incident per 10 clips (2 here).
  EXPECT_GE(t.right, 0.998 * t.moves);
  EXPECT_GE(t.exact, 19);
  EXPECT_EQ(t.false_incidents, 0);
}

// A drop that vision reads empty whatever stands there (a pale piece on a pale square), the
// arm that made it over the empty squares around, and the holding areas not read (as
// `bugcam record` by default): every drop of that player's onto those squares fits as well.
// Vision also says the square looks different since the hand left (SquareEvidence::altered,
// as on held-out 10400's b6), and with that the drop is recorded where, without it, drops
// onto the squares around were taken (13B. N@c3 for N@b6 there).
TEST(TrackerAccuracy, ADropReadEmptyIsFoundWhereTheSquareWasSeenAltered) {
  const std::vector<bugcam::rules::BpgnGame> games = load_games("fics_mbprog_64.bpgn");
  SimulationOptions options = drop_test_options();
  const Simulation plain = simulate(games[0], options, [](const SimulatedInput&) {});
  int drops = 0, found_seen_altered = 0, found_not = 0;
  for (std::size_t k = 8; k < plain.truth.size(); ++k) {
    const TrackedMove& drop = plain.truth[k];
    if (!drop.move.is_drop()) continue;
    ++drops;
    options.blind = {BlindSquare{drop.board, drop.move.to()}};
    // The arm over the eight squares around while it covers the drop's square, and the
    // square seen altered from when the hand left until a hand covers it again.
    const auto edit = [&](bool altered) {
      return [&, altered](std::vector<SimulatedInput>& inputs) {
        bool covered = false, after = false;
        for (SimulatedInput& input : inputs) {
          auto* seen = std::get_if<BoardObservation>(&input);
          if (seen == nullptr || seen->board != drop.board) continue;
          SquareEvidence& square = seen->squares[drop.move.to()];
          if (seen->t < drop.t - 2.0 || (after && square.occluded)) after = false;
          if (seen->t >= drop.t - 2.0 && seen->t <= drop.t + 0.05 && square.occluded) {
            covered = true;
            cover_around(*seen, drop.move.to());
          } else if (covered && !square.occluded) {
            covered = false;
            after = true;
          }
          if (after) square.altered = altered;
        }
      };
    };
    const auto found = [&](bool altered) {
      const auto outcome = run_tracker(games[0], options, {}, std::nullopt, edit(altered));
      for (const TrackedMove& m : outcome.committed) {
        // Its type is the holding areas' or the type reader's to tell, neither of which this
        // test has: the square is what is measured.
        if (m.board == drop.board && m.ply == drop.ply) {
          return m.move.is_drop() && m.move.to() == drop.move.to();
        }
      }
      return false;
    };
    found_seen_altered += found(true) ? 1 : 0;
    found_not += found(false) ? 1 : 0;
  }
  // Measured: 10 drops, 10 onto their square where it was seen altered, 5 where not (3 before
  // the arm's reach was preferred).
  std::cout << drops << " drops read empty: " << found_seen_altered
            << " recorded onto their square where it was seen altered, " << found_not
            << " where not\n";
  ASSERT_GE(drops, 5);
  EXPECT_EQ(found_seen_altered, drops);
  EXPECT_LT(found_not, found_seen_altered);
}

// A drop that vision reads empty whatever stands there, made by a hand whose arm covered the
// squares from the player's edge of the board to it, three files wide: every drop of the
// piece onto those that is legal fits the squares as well, and the first generated (the
// nearest White's edge) was taken. The hand put the piece at the arm's far end (held-out 11104: 9A.
// P@e7, recorded P@a3 among six such drops under the arm, and 10a. Qxe7 as Qe7).
TEST(TrackerAccuracy, ADropReadEmptyUnderAnArmIsWhereTheArmReached) {
  const std::vector<bugcam::rules::BpgnGame> games = load_games("fics_mbprog_64.bpgn");
  SimulationOptions options = drop_test_options();
  int drops = 0;
  std::array<int, 2> found{};  // [preferred]
  for (std::size_t g = 0; g < 2; ++g) {
    const Simulation plain = simulate(games[g], options, [](const SimulatedInput&) {});
    for (std::size_t k = 8; k < plain.truth.size(); ++k) {
      const TrackedMove& drop = plain.truth[k];
      if (!drop.move.is_drop()) continue;
      ++drops;
      SimulationOptions blind = options;
      blind.blind = {BlindSquare{drop.board, drop.move.to()}};
      const int file = bugcam::rules::file_of(drop.move.to());
      const int rank = bugcam::rules::rank_of(drop.move.to());
      const int edge = drop.side == Color::kWhite ? 0 : 7;
      const auto arm = [&](std::vector<SimulatedInput>& inputs) {
        for (SimulatedInput& input : inputs) {
          auto* seen = std::get_if<BoardObservation>(&input);
          if (seen == nullptr || seen->board != drop.board || seen->t < drop.t - 2.0 ||
              seen->t > drop.t + 0.05 || !seen->squares[drop.move.to()].occluded) {
            continue;
          }
          for (int f = std::max(0, file - 1); f <= std::min(7, file + 1); ++f) {
            for (int r = std::min(edge, rank); r <= std::max(edge, rank); ++r) {
              seen->squares[static_cast<std::size_t>(bugcam::rules::make_square(f, r))].occluded =
                  true;
            }
          }
        }
      };
      for (const bool preferred : {false, true}) {
        TrackerConfig config;
        config.prefer_drops_at_arms_reach = preferred;
        // The square is what is measured (nothing here tells the type).
        const auto outcome = run_tracker(games[g], blind, config, std::nullopt, arm);
        found[preferred] += dropped_on_its_square(outcome, drop) ? 1 : 0;
      }
    }
  }
  std::cout << drops << " drops read empty: " << found[0] << " recorded onto their square, "
            << found[1] << " with the arm's reach preferred\n";
  // Measured: 12 drops in 2 games, 5 onto their square without, 10 with.
  ASSERT_GE(drops, 10);
  EXPECT_GT(found[1], found[0]);
}

// A drop that gives check, which vision reads empty (a pale piece on a pale square), made by
// a hand that also covered another square where a quiet drop of that piece was legal, which
// reads empty too and looks otherwise once the hand has gone (its shade): the quiet drop fits
// a little better (held-out 10802's 16A. R@e8+, 1.5 behind B@b1 on the far rank). Players
// drop with check far more often than not, per square (shared/data/bpgn): with
// TrackerConfig::prefer_checking_drops more are recorded where they were made. Measured: 11
// such drops in 4 games, 3 onto their square without, 5 with (the others went to drops of
// other types there, which the type reading would tell).
TEST(TrackerAccuracy, ADropReadEmptyGoesWhereItGivesCheckByPlayersHabits) {
  const std::vector<bugcam::rules::BpgnGame> games = load_games("fics_mbprog_64.bpgn");
  const bugcam::rules::RuleSet& rules = bugcam::rules::otb_rules();
  SimulationOptions options = drop_test_options();
  std::array<int, 2> found{};  // [preferred]
  int drops = 0;
  for (std::size_t g = 0; g < 4 && g < games.size(); ++g) {
    const bugcam::rules::Replay replay = bugcam::rules::replay(games[g]);
    const Simulation plain = simulate(games[g], options, [](const SimulatedInput&) {});
    for (std::size_t k = 8; k < plain.truth.size() && k < replay.plies.size(); ++k) {
      const TrackedMove& drop = plain.truth[k];
      if (!drop.move.is_drop() || drop.san.find_first_of("+#") == std::string::npos) continue;
      // The quiet drop of the same piece nearest the checking one.
      const bugcam::rules::Position& before = replay.plies[k].before;
      std::optional<bugcam::rules::Square> quiet;
      int nearest = 99;
      for (const bugcam::rules::Move m : before.legal_moves(rules)) {
        if (!m.is_drop() || m.piece() != drop.move.piece() || m.to() == drop.move.to()) continue;
        bugcam::rules::Position after = before;
        after.make(m, rules);
        const int distance =
            std::abs(bugcam::rules::file_of(m.to()) - bugcam::rules::file_of(drop.move.to())) +
            std::abs(bugcam::rules::rank_of(m.to()) - bugcam::rules::rank_of(drop.move.to()));
        if (!after.in_check() && distance < nearest) {
          nearest = distance;
          quiet = m.to();
        }
      }
      if (!quiet) continue;
      ++drops;
      SimulationOptions blind = options;
      blind.blind = {BlindSquare{drop.board, drop.move.to()}, BlindSquare{drop.board, *quiet}};
      // The hand covers both squares while it covers the drop's, and leaves the quiet one
      // looking otherwise (its shade: SquareEvidence::altered) until the next hand.
      const auto cover_both = [&](std::vector<SimulatedInput>& inputs) {
        bool covered = false, after = false;
        for (SimulatedInput& input : inputs) {
          auto* seen = std::get_if<BoardObservation>(&input);
          if (seen == nullptr || seen->board != drop.board) continue;
          SquareEvidence& other = seen->squares[*quiet];
          if (after && other.occluded) after = false;
          if (seen->t >= drop.t - 2.0 && seen->t <= drop.t + 0.05 &&
              seen->squares[drop.move.to()].occluded) {
            other.occluded = true;
            covered = true;
          } else if (covered && !other.occluded) {
            covered = false;
            after = true;
          }
          if (after) other.altered = true;
        }
      };
      for (const bool preferred : {false, true}) {
        TrackerConfig config;
        config.prefer_checking_drops = preferred;
        const auto outcome = run_tracker(games[g], blind, config, std::nullopt, cover_both);
        found[preferred] += dropped_on_its_square(outcome, drop) ? 1 : 0;
      }
    }
  }
  std::cout << drops << " checking drops read empty beside a quiet one: " << found[0]
            << " recorded onto their square, " << found[1] << " with checks preferred\n";
  ASSERT_GE(drops, 5);
  EXPECT_GT(found[1], found[0]);
}

// Vision flags far more squares altered than a piece was put on or taken from unseen (on
// held-out 10400, 7 of 171 flags): a hand's shade, a neighbour's body. Flagging every square
// every hand leaves, on 5 clips of real games with 3 % misreads, costs next to nothing: the
// flag counts only for a move's square that reads as before.
TEST(TrackerAccuracy, SquaresFlaggedAlteredWhereverAHandWasCostNothing) {
  const std::vector<bugcam::rules::BpgnGame> games = load_games("fics_mbprog_64.bpgn");
  const auto flag_every_visit = [](std::vector<SimulatedInput>& inputs) {
    std::array<std::array<bool, 64>, 2> was_covered{}, after{};
    for (SimulatedInput& input : inputs) {
      auto* seen = std::get_if<BoardObservation>(&input);
      if (seen == nullptr) continue;
      const auto b = static_cast<std::size_t>(seen->board);
      for (std::size_t s = 0; s < 64; ++s) {
        SquareEvidence& square = seen->squares[s];
        if (square.occluded) {
          after[b][s] = false;
        } else if (was_covered[b][s]) {
          after[b][s] = true;
        }
        was_covered[b][s] = square.occluded;
        square.altered = after[b][s];
      }
    }
  };
  int right = 0, right_flagged = 0, incidents = 0, incidents_flagged = 0, moves = 0;
  for (std::size_t g = 0; g < 5; ++g) {
    SimulationOptions options;
    options.misread = 0.03;
    options.seed = 2000 + g;
    options.max_plies = 60;
    const auto plain = run_tracker(games[g], options);
    const auto flagged = run_tracker(games[g], options, {}, std::nullopt, flag_every_visit);
    moves += static_cast<int>(plain.sim.truth.size());
    right += plain.right;
    right_flagged += flagged.right;
    incidents += static_cast<int>(plain.incidents.size());
    incidents_flagged += static_cast<int>(flagged.incidents.size());
  }
  std::cout << "moves right " << right << " -> " << right_flagged << " of " << moves
            << " with every square a hand left flagged altered; incidents " << incidents << " -> "
            << incidents_flagged << "\n";
  EXPECT_GE(right_flagged, right - 2);
  EXPECT_LE(incidents_flagged, incidents + 1);
}

// A drop that vision reads empty (10823's pale bishop on d2, 0.9 empty until taken), with the
// holding areas not read: nothing on the board was seen to change, so a press without a move
// may fit better. Vision names the mover's own arm over the board once the hand is well inside
// it (BoardObservation::own_arms), and a player reaches in to move, not to press without
// moving: TrackerConfig::own_arm_against_press_without_move. Measured at 0.9 empty: 32 drops, 21
// recorded onto their square and 2 false presses without a move with the arm not weighed, 22
// and none with it (most others go to drops onto squares the hand covered). Since drops on
// credit after an unpressed move (stop 57) the run without the arm had no false press at 0.9
// (23 and 23 recorded): read 0.95 empty, 20 and 20, one false press without the arm, none with.
TEST(TrackerAccuracy, ADropReadEmptyIsAMoveWhereThePlayersArmWasSeen) {
  const std::vector<bugcam::rules::BpgnGame> games = load_games("fics_mbprog_64.bpgn");
  SimulationOptions options = drop_test_options();
  options.own_arms_after = 0.2;
  constexpr double kEmpty = 0.95;
  std::array<int, 2> found{};  // [arm weighed]
  std::array<int, 2> false_presses{};
  int drops = 0;
  for (std::size_t g = 0; g < 4 && g < games.size(); ++g) {
    const Simulation plain = simulate(games[g], options, [](const SimulatedInput&) {});
    for (std::size_t k = 8; k < plain.truth.size(); ++k) {
      const TrackedMove& drop = plain.truth[k];
      if (!drop.move.is_drop()) continue;
      ++drops;
      // From the drop until a hand covers the square again.
      const auto read_empty = [&](std::vector<SimulatedInput>& inputs) {
        bool after = false;
        for (SimulatedInput& input : inputs) {
          auto* seen = std::get_if<BoardObservation>(&input);
          if (seen == nullptr || seen->board != drop.board) continue;
          SquareEvidence& square = seen->squares[drop.move.to()];
          if (seen->t >= drop.t && !after && !square.occluded) after = true;
          if (after && square.occluded) break;
          if (!after) continue;
          const float piece = static_cast<float>(1.0 - kEmpty);
          const bool white = drop.side == Color::kWhite;
          square = {static_cast<float>(kEmpty), white ? piece : 0.0f, white ? 0.0f : piece, false,
                    false};
        }
      };
      for (const bool weighed : {false, true}) {
        TrackerConfig config;
        if (!weighed) config.own_arm_against_press_without_move = 0.0;
        const auto outcome = run_tracker(games[g], options, config, std::nullopt, read_empty);
        for (const TrackedMove& m : outcome.committed) {
          // Its type is the holding areas' or the type reader's to tell: the square is what
          // is measured.
          if (m.board == drop.board && m.ply == drop.ply && m.move.is_drop() &&
              m.move.to() == drop.move.to()) {
            ++found[weighed];
          }
        }
        for (const Incident& incident : outcome.incidents) {
          if (incident.type == IncidentType::kPressWithoutMove) ++false_presses[weighed];
        }
      }
    }
  }
  std::cout << drops << " drops read empty: " << found[0] << " recorded onto their square, "
            << found[1] << " with the arm weighed; false presses without a move "
            << false_presses[0] << ", " << false_presses[1] << "\n";
  ASSERT_GE(drops, 5);
  EXPECT_GE(found[1], found[0]);
  EXPECT_GT(false_presses[0], 0);
  EXPECT_EQ(false_presses[1], 0);
}

// A drop that vision reads empty (a pale piece on a pale square), under an arm that covered
// the squares around it, which the opponent captures at once with a piece (a pawn takes only
// by capturing): the drops of the piece onto those squares fit the board as well, and the
// capture then fits as a move onto an empty square (development 11583: 13A. B@f7+ and 13a.
// Kxf7, recorded B@f8 and Kf7; 11590: 7B. P@f6 and 7b. Bxf6, recorded N@d7 and Bf6). The
// capture's press relocates the drop to the square the hand covered, and the captured piece's
// arrival in the capturer's partner's holding area tells the capture from the move
// (TrackerConfig::capture_arrivals on and off). Each such drop in the first 16 games, the
// holding areas read. Measured: 22 drops, 16 recorded onto their square without the arrivals,
// 20 with, none lost (13 and 15 before drops were relocated at later presses).
TEST(TrackerAccuracy, ADropReadEmptyAndCapturedAtOnceIsWhereThePieceWasTaken) {
  SimulationOptions options = drop_test_options();
  options.holdings = true;
  // Read empty until the drop's board's next ply, if it takes the piece on its square.
  const auto captured_at_once = [](const std::vector<TrackedMove>& truth,
                                   std::size_t k) -> std::optional<double> {
    const TrackedMove& drop = truth[k];
    std::size_t c = k + 1;
    while (c < truth.size() && truth[c].board != drop.board) ++c;
    if (c >= truth.size()) return std::nullopt;
    const TrackedMove& capture = truth[c];
    // A pawn takes only by capturing: the board tells that capture from a move.
    if (capture.move.is_drop() || capture.move.to() != drop.move.to() ||
        capture.san.front() < 'A' || capture.san.front() > 'Z') {
      return std::nullopt;
    }
    return capture.t;
  };
  const SwitchedCounts counts = count_drops_on_their_square(
      options, captured_at_once,
      [](TrackerConfig& config, bool on) { config.capture_arrivals = on; });
  std::cout << counts.drops << " drops read empty and captured at once: " << counts.found[0]
            << " recorded onto their square, " << counts.found[1] << " with the arrivals weighed, "
            << counts.lost << " lost\n";
  expect_more_found_none_lost(counts);
}

// A drop that vision reads empty under an arm that covered the squares around it, until the
// dropped piece moves on (development 11597: 10B. P@e4, e4 read empty until 11B. exd5, and
// 10B. c4 was recorded): the drops onto those squares tie, the beam keeps a few of them, and
// by the piece's next move the one that was made may be gone. The drop is moved to the
// square its piece leaves, the board's moves since played again
// (TrackerConfig::relocate_drops_later on and off). Each drop of the first 16 games whose
// piece moves on within its board's next 6 plies; the holding areas not read. Measured: 44
// drops, 13 recorded onto their square without, 32 with, none lost (13 with, where the
// square had to read as changed at the press, not only covered by a hand).
TEST(TrackerAccuracy, ADropReadEmptyUntilItsPieceMovesOnIsWhereItWasMade) {
  // Read empty until the dropped piece's next move, if its board's next 6 plies make one from
  // its square and none lands there first.
  const auto moved_on = [](const std::vector<TrackedMove>& truth,
                           std::size_t k) -> std::optional<double> {
    const TrackedMove& drop = truth[k];
    int plies = 0;
    for (std::size_t j = k + 1; j < truth.size() && plies < 6; ++j) {
      const TrackedMove& later = truth[j];
      if (later.board != drop.board) continue;
      ++plies;
      if (!later.move.is_drop() && later.move.from() == drop.move.to()) return later.t;
      if (later.move.to() == drop.move.to()) break;
    }
    return std::nullopt;
  };
  const SwitchedCounts counts = count_drops_on_their_square(
      drop_test_options(), moved_on,
      [](TrackerConfig& config, bool on) { config.relocate_drops_later = on; });
  std::cout << counts.drops << " drops read empty until their piece moved on: " << counts.found[0]
            << " recorded onto their square, " << counts.found[1] << " relocated later, "
            << counts.lost << " lost\n";
  expect_more_found_none_lost(counts);
}
}  // namespace
