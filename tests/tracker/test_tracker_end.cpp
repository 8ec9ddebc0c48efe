// The end of the footage: the last move on each board has no later press to count what
// vision reads after its own press. When the mover's hand stays over the move's squares
// past the press (setting the piece straight), only the readings after the hand has gone
// say which move it was, and the tracker must still weigh them before it commits.
#include <gtest/gtest.h>

#include "tracker_harness.hpp"

namespace {

using namespace bugcam::tracker;
using bugcam::tracker::testing::load_games;
using bugcam::tracker::testing::Outcome;
using bugcam::tracker::testing::run_tracker;

// The 0-based plies (completion order) of the last move on each board in the first `plies`.
std::vector<int> last_on_each_board(const bugcam::rules::BpgnGame& game, int plies) {
  std::vector<int> last;
  for (const BoardId board : {BoardId::kA, BoardId::kB}) {
    for (int i = std::min(plies, static_cast<int>(game.moves.size())) - 1; i >= 0; --i) {
      if (game.moves[static_cast<std::size_t>(i)].board == board) {
        last.push_back(i);
        break;
      }
    }
  }
  return last;
}

// Of the plies `which`, how many were committed as played.
int committed_right(const Outcome& outcome, const std::vector<int>& which) {
  int right = 0;
  for (const int i : which) {
    const TrackedMove& want = outcome.sim.truth[static_cast<std::size_t>(i)];
    for (const TrackedMove& got : outcome.committed) {
      if (got.board == want.board && got.ply == want.ply && got.san == want.san) ++right;
    }
  }
  return right;
}

TEST(TrackerEnd, LastMovesReadOnlyAfterTheirPressAreRecorded) {
  const std::vector<bugcam::rules::BpgnGame> games = load_games("fics_mbprog_64.bpgn");
  constexpr int kPlies = 30;
  int lingering = 0, right = 0, right_elsewhere = 0, moves = 0;
  for (std::size_t g = 0; g < 8 && g < games.size(); ++g) {
    SimulationOptions options;
    options.misread = 0.01;
    options.seed = 21 + g;
    options.max_plies = kPlies;
    options.lingering_hands = last_on_each_board(games[g], kPlies);
    const Outcome outcome = run_tracker(games[g], options);
    lingering += static_cast<int>(options.lingering_hands.size());
    right += committed_right(outcome, options.lingering_hands);
    right_elsewhere += outcome.right - committed_right(outcome, options.lingering_hands);
    moves += static_cast<int>(outcome.sim.truth.size()) -
             static_cast<int>(options.lingering_hands.size());
  }
  std::cout << "last moves read only after their press: " << right << "/" << lingering
            << " right; the other moves " << right_elsewhere << "/" << moves << "\n";
  EXPECT_EQ(lingering, 16);
  EXPECT_GE(right, lingering - 1);
  EXPECT_GE(right_elsewhere, moves - 2);
}

}  // namespace
