// The tracker on noisy observations of real games, as vision would give them.
#include <gtest/gtest.h>

#include "tracker_harness.hpp"

namespace {

using namespace bugcam::tracker;
using bugcam::tracker::testing::load_games;
using bugcam::tracker::testing::run_tracker;

struct Totals {
  int moves = 0;
  int right = 0;
  int games = 0;
  int exact = 0;
  int false_incidents = 0;
};

Totals run_set(const std::vector<bugcam::rules::BpgnGame>& games, std::size_t count, double misread,
               int max_plies) {
  Totals totals;
  for (std::size_t g = 0; g < games.size() && totals.games < static_cast<int>(count); ++g) {
    SimulationOptions options;
    options.misread = misread;
    options.seed = 1000 + g;
    options.max_plies = max_plies;
    const auto outcome = run_tracker(games[g], options);
    if (outcome.sim.truth.empty()) continue;
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
  std::cout << "moves right " << totals.right << "/" << totals.moves << " ("
            << 100.0 * totals.right / std::max(1, totals.moves) << " %), games exact "
            << totals.exact << "/" << totals.games << ", false incidents " << totals.false_incidents
            << "\n";
  return totals;
}

TEST(TrackerAccuracy, FicsGamesWithTwoPercentMisreads) {
  const Totals t = run_set(load_games("fics_mbprog_64.bpgn"), 10, 0.02, 120);
  ASSERT_EQ(t.games, 10);
  // Measured 965/968, 8/10 exact, 3 false incidents (the goal is at most 1 in 10).
  EXPECT_GE(t.right, 0.995 * t.moves);
  EXPECT_GE(t.exact, 8);
  EXPECT_LE(t.false_incidents, 4);
}

TEST(TrackerAccuracy, ChessComGamesWithFivePercentMisreads) {
  const Totals t = run_set(load_games("chesscom_41_pairs.bpgn"), 6, 0.05, 120);
  ASSERT_EQ(t.games, 6);
  // Measured 678/683, 3/6 exact, 4 false incidents.
  EXPECT_GE(t.right, 0.99 * t.moves);
  EXPECT_GE(t.exact, 3);
  EXPECT_LE(t.false_incidents, 5);
}

}  // namespace
