// One misread must not become a cascade: when the board the tracker follows disagrees with
// what vision sees, it must get back in step at once, not explain each later change with
// incidents that never happened.
#include <gtest/gtest.h>

#include "tracker_harness.hpp"

namespace {

using namespace bugcam::tracker;
using bugcam::rules::make_square;
using bugcam::tracker::testing::load_games;
using bugcam::tracker::testing::Outcome;
using bugcam::tracker::testing::run_tracker;

const std::vector<bugcam::rules::BpgnGame>& games() {
  static const std::vector<bugcam::rules::BpgnGame> loaded = load_games("fics_mbprog_64.bpgn");
  return loaded;
}

// A tall piece put down beside an empty square hides it from a tilted camera, which from
// then on reads the piece's body there: a square that reads as a piece of the mover's
// colour for good, as on the dev clips of seeds 4001 (B@h5 read on h6) and 4102. The
// tracker explained that square by a move of the mover's onto it before the press, the
// opponent's answer and the mover's own move again, a sequence of two moves without a
// press charged like one, and every later change with more of them.
Outcome run_with_shadow_from(int game, int ply, bugcam::rules::Square square) {
  const bugcam::rules::BpgnGame& g = games()[static_cast<std::size_t>(game)];
  SimulationOptions options;
  options.misread = 0.01;
  options.seed = 7;
  options.max_plies = 60;
  const bugcam::rules::BpgnMove& move = g.moves[static_cast<std::size_t>(ply)];
  options.shadowed.push_back({move.board, square, move.color, ply});
  return run_tracker(g, options);
}

void expect_in_step(const Outcome& outcome) {
  for (const Incident& i : outcome.incidents) {
    std::cout << "shadow run: " << incident_name(i.type) << " " << i.ply << " t=" << i.t << ": "
              << i.detail << "\n";
    EXPECT_NE(i.type, IncidentType::kMoveWithoutPress) << i.ply << ": " << i.detail;
  }
  EXPECT_LE(outcome.incidents.size(), 1u);
  EXPECT_GE(outcome.right, static_cast<int>(outcome.sim.truth.size()) - 2);
}

TEST(TrackerRecovery, ASquareHiddenBehindABishopMakesNoPhantomMoves) {
  // 5B. Bb5 in the third game: c4, behind the bishop, reads as a white piece from then on.
  expect_in_step(run_with_shadow_from(2, 22, make_square(2, 3)));
}

TEST(TrackerRecovery, ASquareHiddenBehindAPawnMakesNoPhantomMoves) {
  // 9B. d4 in the first game: e3 reads as a white piece from then on.
  expect_in_step(run_with_shadow_from(0, 32, make_square(4, 2)));
}

}  // namespace
