// The tracker on noisy observations of real games, as vision would give them: the issue's
// measurement of 20 clips (10 FICS, 10 chess.com games, each cut to 40-80 plies).
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

TEST(TrackerAccuracy, TwentyClipsWithThreePercentMisreads) {
  const Totals t = run_clips(std::getenv("MISREAD") ? std::atof(std::getenv("MISREAD")) : 0.03);
  ASSERT_EQ(t.games, 20);
  // Measured 1170/1171 moves right (99.91 %), 19/20 games exact, no false incident (1164/1171
  // and 17/20 while a square covered and read as before cost a move a flat amount however
  // clearly it read, and typed alternatives of a drop could leave the beam before a later
  // move decided). The targets: >= 99.5 % of moves, >= 90 % of games (18/20),
  // <= 1 false incident per 10 clips (2 here).
  EXPECT_GE(t.right, 0.998 * t.moves);
  EXPECT_GE(t.exact, 19);
  EXPECT_EQ(t.false_incidents, 0);
}

}  // namespace
