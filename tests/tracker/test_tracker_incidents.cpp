// Incidents injected into simulated real games must be found, at the right seat, within
// 3 s, and the recording must go on.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <functional>
#include <limits>

#include "tracker_harness.hpp"

namespace {

using namespace bugcam::tracker;
using bugcam::tracker::testing::load_games;
using bugcam::tracker::testing::Outcome;
using bugcam::tracker::testing::read_as;
using bugcam::tracker::testing::run_tracker;
using bugcam::tracker::testing::show_drop_as_nothing;
using bugcam::tracker::testing::types_held_before;

// A 60-ply game with rare, brief misreads, before any incident is injected.
const std::vector<bugcam::rules::BpgnGame>& clean_run_games() {
  static const std::vector<bugcam::rules::BpgnGame> games = load_games("fics_mbprog_64.bpgn");
  return games;
}
SimulationOptions clean_run_options() {
  SimulationOptions options;
  options.misread = 0.01;
  options.seed = 7;
  options.max_plies = 60;
  return options;
}

Outcome run_with(IncidentType type, int ply, bool attribute_hands = true) {
  const std::vector<bugcam::rules::BpgnGame>& games = clean_run_games();
  SimulationOptions options = clean_run_options();
  options.injections = {{type, ply}};
  options.attribute_hands = attribute_hands;
  return run_tracker(games[0], options);
}

bool found(const Outcome& outcome, const ExpectedIncident& want) {
  for (const Incident& got : outcome.incidents) {
    if (got.type == want.type && got.board == want.board && got.side == want.side &&
        std::abs(got.t - want.t) <= 3.0 + (got.t_end - got.t)) {
      return true;
    }
  }
  return false;
}

void expect_found(IncidentType type, int ply, bool attribute_hands = true) {
  const Outcome outcome = run_with(type, ply, attribute_hands);
  ASSERT_FALSE(outcome.sim.incidents.empty()) << "the simulation could not inject it";
  for (const ExpectedIncident& want : outcome.sim.incidents) {
    EXPECT_TRUE(found(outcome, want)) << incident_name(want.type) << " at t=" << want.t;
  }
  for (const Incident& got : outcome.incidents) {
    std::cout << incident_name(type) << " run: " << incident_name(got.type) << " " << got.ply
              << " t=" << got.t << ": " << got.detail << "\n";
  }
  // Recording goes on: the moves after the incident are still committed.
  EXPECT_GE(outcome.right, static_cast<int>(outcome.sim.truth.size()) - 2);
}

// What ply `ply` passes to the capturer's partner: the piece it took (a promoted one as a
// pawn), none where it takes nothing.
bugcam::rules::PieceType piece_passed(const bugcam::rules::ReplayedPly& ply) {
  using bugcam::rules::PieceType;
  if (ply.move.kind() == bugcam::rules::Move::Kind::kEnPassant) return PieceType::kPawn;
  if (ply.move.is_drop()) return PieceType::kNone;
  const bugcam::rules::Piece taken = ply.before.piece_at(ply.move.to());
  if (taken.empty()) return PieceType::kNone;
  return ply.before.is_promoted(ply.move.to()) ? PieceType::kPawn : taken.type;
}

// The capturer's next press on the board after the capture truth[k]: its deadline to pass the
// piece (none at the end of the game).
std::optional<double> deadline_of(const std::vector<TrackedMove>& truth, std::size_t k) {
  const TrackedMove& capture = truth[k];
  const auto next = std::find_if(
      truth.begin() + static_cast<std::ptrdiff_t>(k) + 1, truth.end(),
      [&](const TrackedMove& m) { return m.board == capture.board && m.side == capture.side; });
  if (next == truth.end()) return std::nullopt;
  return next->t;
}

// Who gets what `mover` captures.
Seat partner_of_mover(const TrackedMove& mover) {
  return {mover.board == BoardId::kA ? BoardId::kB : BoardId::kA, !mover.side};
}

// A captured piece's stay in the partner's area, as the simulation passes it: from 0.6 s after
// the capture's press to the partner's first drop of its type after the capture (or the end of
// the game).
struct PieceLying {
  std::string ply;  // the capture
  bugcam::rules::PieceType type = bugcam::rules::PieceType::kNone;
  Seat partner;
  double arrival = 0.0;
  double until = 0.0;
};
// The stays of the captures among the first `plies` of `truth` (a replay of the game
// `replay`) that last at least `seconds`.
std::vector<PieceLying> pieces_lying(const std::vector<TrackedMove>& truth,
                                     const bugcam::rules::Replay& replay, std::size_t plies,
                                     double seconds) {
  std::vector<PieceLying> out;
  for (std::size_t k = 0; k < truth.size() && k < plies; ++k) {
    PieceLying lying;
    lying.type = piece_passed(replay.plies[k]);
    if (lying.type == bugcam::rules::PieceType::kNone) continue;
    const TrackedMove& capture = truth[k];
    lying.ply = capture.ply;
    lying.partner = partner_of_mover(capture);
    lying.arrival = capture.t + 0.6;
    const auto drop = std::find_if(truth.begin(), truth.end(), [&](const TrackedMove& m) {
      return m.board == lying.partner.board && m.side == lying.partner.color && m.move.is_drop() &&
             m.move.piece() == lying.type && m.t > capture.t;
    });
    lying.until = drop == truth.end() ? truth.back().t : drop->t;
    if (lying.until - lying.arrival >= seconds) out.push_back(lying);
  }
  return out;
}

// An edit of `partner`'s holding-area views: a piece of type `kept` shown in [kept_from,
// kept_until) is not, and one of type `early` is shown in [early_from, early_until).
std::function<void(std::vector<SimulatedInput>&)> piece_kept_and_piece_early(
    Seat partner, bugcam::rules::PieceType kept, double kept_from, double kept_until,
    bugcam::rules::PieceType early, double early_from, double early_until) {
  return [=](std::vector<SimulatedInput>& inputs) {
    for (SimulatedInput& input : inputs) {
      auto* o = std::get_if<HoldingsObservation>(&input);
      if (o == nullptr || !(o->seat == partner)) continue;
      if (o->t >= kept_from && o->t < kept_until) {
        int& count = o->visible[static_cast<std::size_t>(kept)];
        if (count > 0) --count;
        if (o->pieces && *o->pieces > 0) --*o->pieces;
      }
      if (o->t >= early_from && o->t < early_until) {
        ++o->visible[static_cast<std::size_t>(early)];
        if (o->pieces) ++*o->pieces;
      }
    }
  };
}

// The piece of the capture pressed at `captured` never shows (the simulation shows it from
// 0.6 s after the press), and that of the capture pressed at `later` lies there from 2.5 s
// before its press (passed before the press).
std::function<void(std::vector<SimulatedInput>&)> hidden_then_passed_early(
    Seat partner, double captured, bugcam::rules::PieceType hidden, double later,
    bugcam::rules::PieceType early) {
  return piece_kept_and_piece_early(partner, hidden, captured + 0.6,
                                    std::numeric_limits<double>::infinity(), early, later - 2.5,
                                    later + 0.6);
}

TEST(TrackerIncidents, MoveWithoutPress) {
  expect_found(IncidentType::kMoveWithoutPress, 20);
}

// 12A. P@g7+ made without a press and taken at once (12a. Kxg7): the board at the press
// never shows the pawn, yet the sequence is tried (before, it was an illegal move and 10
// moves were lost).
TEST(TrackerIncidents, MoveWithoutPressWhosePieceIsTakenAtOnce) {
  const Outcome outcome = run_with(IncidentType::kMoveWithoutPress, 41);
  ASSERT_EQ(outcome.sim.incidents.size(), 1u);
  EXPECT_TRUE(found(outcome, outcome.sim.incidents.front()));
  for (const Incident& got : outcome.incidents) {
    EXPECT_EQ(got.type, IncidentType::kMoveWithoutPress) << got.detail;
  }
  EXPECT_EQ(outcome.right, static_cast<int>(outcome.sim.truth.size()));
}

// A move made without a press whose piece the answer takes, or an answer that takes and is
// taken back, before the mover's late press: the square shows the same colour at the press as
// before, yet the sequence is tried (held-out 10207: 6A. Qxf7+ 6a. Kxf7 after an unpressed
// 5a. e6 was recorded as e6 Qg3 Kd7). The unpressed plies are timed from the board and carry
// the mover's clock then, which ran on or stood.
TEST(TrackerIncidents, MoveWithoutPressThenATakeBackOnOneSquare) {
  SimulationOptions clean = clean_run_options();
  clean.holdings = false;
  TrackerConfig config;
  config.base_seconds = 10000.0;  // long enough for the simulation's stretched game
  const Outcome clean_run = run_tracker(clean_run_games()[0], clean, config);
  // 4A. Bxf7+ unpressed, taken by 4a. Kxf7 (f7 black before and after); 10a. bxc6
  // unpressed, 11A. Bxh6 taken back by 11a. gxh6; 15A. exf5 unpressed, taken back by 15a. exf5.
  for (const int ply : {11, 37, 50}) {
    SimulationOptions options = clean;
    options.injections = {{IncidentType::kMoveWithoutPress, ply, true}};
    const Outcome outcome = run_tracker(clean_run_games()[0], options, config);
    ASSERT_EQ(outcome.sim.incidents.size(), 1u) << "ply " << ply;
    const ExpectedIncident& want = outcome.sim.incidents.front();
    EXPECT_TRUE(found(outcome, want)) << "ply " << ply;
    EXPECT_EQ(outcome.right, clean_run.right) << "ply " << ply;
    // Every move has its mover's clock, the unpressed plies too, and each side's only goes
    // down: the unpressed mover's ran on from the opponent's press, while the answer's
    // stood (the mover never started it).
    std::string unpressed;
    for (const Incident& got : outcome.incidents) {
      if (got.type == IncidentType::kMoveWithoutPress) unpressed = got.ply;
    }
    ASSERT_FALSE(unpressed.empty()) << "ply " << ply;
    std::optional<double> last[2][2];
    int checked = 0;
    bool answer_next = false;
    for (const TrackedMove& got : outcome.committed) {
      ASSERT_TRUE(got.clock) << "ply " << ply << ": " << got.ply << " " << got.san;
      std::optional<double>& before =
          last[static_cast<int>(got.board)][got.side == bugcam::rules::Color::kWhite ? 0 : 1];
      if (before && got.ply == unpressed) {
        EXPECT_LT(*got.clock, *before) << "ply " << ply << ": " << got.ply << " ran";
        ++checked;
      } else if (before && answer_next && got.board == want.board) {
        EXPECT_DOUBLE_EQ(*got.clock, *before) << "ply " << ply << ": " << got.ply << " stood";
        ++checked;
      } else if (before) {
        EXPECT_LE(*got.clock, *before + 1e-9) << "ply " << ply << ": " << got.ply;
      }
      if (got.board == want.board) answer_next = got.ply == unpressed;
      before = got.clock;
    }
    EXPECT_EQ(checked, 2) << "ply " << ply;
  }
}

// The mover forgets the clock, the opponent answers (their clock not running, they cannot
// press) and the mover presses after their next move: one incident, the mover's, not one
// for the answer too.
TEST(TrackerIncidents, MoveWithoutPressPressedLate) {
  // No holding areas: the late press would also delay the pieces' passing. Drop types are
  // then guessed, so moves are compared with the run without the incident.
  SimulationOptions clean = clean_run_options();
  clean.holdings = false;
  const Outcome clean_run = run_tracker(clean_run_games()[0], clean);
  const int right_clean = clean_run.right;
  int found_count = 0, runs = 0, timed = 0;
  for (const int ply : {14, 20, 26, 32}) {
    SimulationOptions options = clean;
    options.injections = {{IncidentType::kMoveWithoutPress, ply, true}};
    const Outcome outcome = run_tracker(clean_run_games()[0], options);
    ASSERT_EQ(outcome.sim.incidents.size(), 1u);
    // Neither the mover's move nor the answer was pressed.
    EXPECT_EQ(outcome.presses, clean_run.presses - 2) << "ply " << ply;
    const ExpectedIncident& want = outcome.sim.incidents.front();
    ++runs;
    found_count += found(outcome, want) ? 1 : 0;
    for (const Incident& got : outcome.incidents) {
      std::cout << "late press at " << ply << ": " << incident_name(got.type) << " " << got.ply
                << " t=" << got.t << ": " << got.detail << "\n";
      EXPECT_FALSE(got.type == IncidentType::kMoveWithoutPress && got.side != want.side)
          << "the answer is no incident: " << got.detail;
    }
    EXPECT_LE(outcome.incidents.size(), 1u) << "ply " << ply;
    EXPECT_GE(outcome.right, right_clean - 2) << "ply " << ply;
    // The unpressed move is timed when the board shows it made, not at the press that
    // recorded it (where it was recorded right).
    for (const TrackedMove& truth : outcome.sim.truth) {
      if (std::abs(truth.t - want.t) > 1e-9 || truth.board != want.board) continue;
      for (const TrackedMove& got : outcome.committed) {
        if (got.ply != truth.ply || got.board != truth.board || got.san != truth.san) continue;
        std::cout << "  " << got.ply << " " << got.san << " at " << got.t << ", made at " << truth.t
                  << "\n";
        EXPECT_NEAR(got.t, truth.t, 0.5) << "ply " << ply << ": " << got.ply;
        ++timed;
      }
    }
  }
  EXPECT_EQ(found_count, runs);
  EXPECT_GE(timed, 2);
}
// The move a run's one move_without_press injection made: its press time (the simulation's,
// never sent) is the incident's.
const TrackedMove* unpressed_move(const Outcome& run) {
  const ExpectedIncident& want = run.sim.incidents.front();
  for (const TrackedMove& truth : run.sim.truth) {
    if (std::abs(truth.t - want.t) < 1e-9 && truth.board == want.board) return &truth;
  }
  return nullptr;
}
// The same late presses, with vision naming the mover's arm over the board: the unpressed
// move is timed as a press would have been, kReachToClockSeconds (0.25 s) after the arm left
// the board, not when the board first showed the move (in rendered clips up to 0.47 s after
// the press: clip 11431's 6B. B@c3, pressed while the clock stood, and 11458's 11A. B@b3).
// The reach is the renderer's; the simulation presses 0.1 s after the hand leaves, so its
// unpressed moves come out 0.15 s after its press time.
TEST(TrackerIncidents, MoveWithoutPressIsTimedWhenTheMoversArmLeft) {
  SimulationOptions options = clean_run_options();
  options.holdings = false;
  int from_arm = 0;
  int runs = 0;
  for (const int ply : {14, 20, 26, 32}) {
    options.injections = {{IncidentType::kMoveWithoutPress, ply, true}};
    // When the board showed it: without the arm named.
    options.own_arms_after.reset();
    const Outcome by_board = run_tracker(clean_run_games()[0], options);
    options.own_arms_after = 0.1;
    ASSERT_EQ(by_board.sim.incidents.size(), 1u);
    const TrackedMove* unpressed = unpressed_move(by_board);
    ASSERT_NE(unpressed, nullptr);
    const Seat mover{unpressed->board, unpressed->side};
    // The last frame naming the mover's arm over the board before that press.
    double arm_left = -1.0;
    const auto note_arm = [&](std::vector<SimulatedInput>& inputs) {
      for (const SimulatedInput& input : inputs) {
        const auto* o = std::get_if<BoardObservation>(&input);
        if (o != nullptr && o->t <= unpressed->t &&
            std::find(o->own_arms.begin(), o->own_arms.end(), mover) != o->own_arms.end()) {
          arm_left = o->t;
        }
      }
    };
    const Outcome outcome = run_tracker(clean_run_games()[0], options, {}, std::nullopt, note_arm);
    const auto timed = [&](const Outcome& run) -> std::optional<double> {
      for (const TrackedMove& got : run.committed) {
        if (got.ply == unpressed->ply && got.board == unpressed->board) return got.t;
      }
      return std::nullopt;
    };
    const std::optional<double> got = timed(outcome);
    const std::optional<double> seen = timed(by_board);
    if (!got || !seen) continue;
    ++runs;
    std::cout << "ply " << ply << ": " << unpressed->ply << " " << unpressed->san << " pressed at "
              << unpressed->t << ", arm left " << arm_left << ", timed " << *got
              << ", by the board " << *seen << "\n";
    if (std::abs(*got - (arm_left + 0.25)) < 0.02 && std::abs(*got - *seen) > 0.1) ++from_arm;
  }
  EXPECT_GE(runs, 3);
  EXPECT_EQ(from_arm, runs);
}
// The square the piece went to stays covered 1 s after vision last named the mover's arm:
// the arm was still there, unnamed (held-out 11539: 7b. Nxb5's arm named until 63.9 s, b5
// covered until 65.03 s). The move is timed after the square was seen again, not a reach
// after the arm was last named (1.03 s early there). Covered 0.5 s longer only, the arm
// still times it.
TEST(TrackerIncidents, MoveWithoutPressIsTimedAfterItsSquareWhereTheArmWentUnnamed) {
  SimulationOptions options = clean_run_options();
  options.holdings = false;
  options.own_arms_after = 0.1;
  int runs = 0;
  int after_square = 0;
  int by_arm = 0;  // covered 0.5 s longer only: timed by the arm still
  for (int ply = 14; ply <= 56; ply += 3) {
    options.injections = {{IncidentType::kMoveWithoutPress, ply, true}};
    const Outcome named = run_tracker(clean_run_games()[0], options);
    if (named.sim.incidents.size() != 1) continue;
    const TrackedMove* unpressed = unpressed_move(named);
    ASSERT_NE(unpressed, nullptr);
    const Seat mover{unpressed->board, unpressed->side};
    const auto to = static_cast<std::size_t>(unpressed->move.to());
    double uncovered = -1.0;  // the first frame that shows the square again
    double arm_left = -1.0;
    double cover_after_arm = 1.0;
    // The opponent's arm over the board meanwhile: the hand over the square may be theirs.
    bool opponent_came = false;
    const auto unname = [&](std::vector<SimulatedInput>& inputs) {
      uncovered = -1.0;
      opponent_came = false;
      for (const SimulatedInput& input : inputs) {
        const auto* o = std::get_if<BoardObservation>(&input);
        if (o != nullptr && o->t <= unpressed->t &&
            std::find(o->own_arms.begin(), o->own_arms.end(), mover) != o->own_arms.end()) {
          arm_left = o->t;
        }
      }
      ASSERT_GT(arm_left, 0.0);
      for (SimulatedInput& input : inputs) {
        auto* o = std::get_if<BoardObservation>(&input);
        if (o == nullptr || o->board != mover.board) continue;
        if (o->t > arm_left - 0.3 && o->t <= arm_left + cover_after_arm) {
          o->squares[to].occluded = true;
        }
        if (o->t > arm_left + cover_after_arm && uncovered < 0.0) uncovered = o->t;
        const Seat opponent{mover.board, !mover.color};
        if (o->t > arm_left && uncovered < 0.0 &&
            std::find(o->own_arms.begin(), o->own_arms.end(), opponent) != o->own_arms.end()) {
          opponent_came = true;
        }
      }
    };
    const Outcome outcome = run_tracker(clean_run_games()[0], options, {}, std::nullopt, unname);
    const TrackedMove* got = nullptr;
    for (const TrackedMove& m : outcome.committed) {
      if (m.ply == unpressed->ply && m.board == unpressed->board) got = &m;
    }
    // Not where the opponent's answer took on that square meanwhile: the square seen again
    // shows the answer, and the move is timed when the square it left emptied.
    const bool taken_back =
        std::any_of(named.sim.truth.begin(), named.sim.truth.end(), [&](const TrackedMove& m) {
          return m.board == mover.board && m.t > unpressed->t && m.t < uncovered + 1.0 &&
                 m.move.to() == unpressed->move.to();
        });
    if (got == nullptr || got->san != unpressed->san || taken_back || opponent_came) continue;
    ++runs;
    std::cout << "ply " << ply << ": " << unpressed->ply << " " << unpressed->san
              << ", square seen again " << uncovered << ", timed " << got->t << "\n";
    if (got->t >= uncovered && got->t <= uncovered + 0.25) ++after_square;
    cover_after_arm = 0.5;
    const Outcome shorter = run_tracker(clean_run_games()[0], options, {}, std::nullopt, unname);
    cover_after_arm = 1.0;
    for (const TrackedMove& m : shorter.committed) {
      if (m.ply == unpressed->ply && m.board == unpressed->board &&
          std::abs(m.t - (arm_left + 0.25)) < 0.02) {
        ++by_arm;
      }
    }
  }
  EXPECT_GE(runs, 3);
  EXPECT_EQ(after_square, runs);
  EXPECT_GE(by_arm, runs);
}
// The answer to a move made without a press was pressed while its clock stood, so no log
// times it. It is timed by the answerer's own reach to the clock, learned from their timed
// presses: the simulation presses 0.1 s after the hand leaves, where vision names the arm
// until then, and for the answerer vision stops naming it `unnamed` seconds earlier before
// each of their presses (their clock further away). A fixed kReachToClockSeconds (0.25 s)
// after the arm left times it 0.15 s late, or 0.15 s early with the arm unnamed for the last
// 0.3 s (stop 80's held-out 11584's White B, whose arm is named until the press: 7B. h3
// 0.225 s early).
TEST(TrackerIncidents, AnAnswerPressedWhileTheClockStoodIsTimedByTheSeatsOwnReach) {
  SimulationOptions options = clean_run_options();
  options.holdings = false;
  options.own_arms_after = 0.1;
  int runs = 0;
  int on_time = 0;
  for (const double unnamed : {0.0, 0.3}) {
    // Later in the game with the arm unnamed longer: the seat's first presses leave too few
    // samples (kReachSamplesLeast) where its quick early visits are never named.
    for (const int ply :
         unnamed > 0.0 ? std::vector<int>{26, 32, 38, 44} : std::vector<int>{14, 20, 26, 32}) {
      options.injections = {{IncidentType::kMoveWithoutPress, ply, true}};
      const Simulation sim = simulate(clean_run_games()[0], options, [](const SimulatedInput&) {});
      ASSERT_EQ(sim.incidents.size(), 1u);
      const ExpectedIncident& want = sim.incidents.front();
      // The opponent's next move on the board, its press never sent.
      const TrackedMove* answer = nullptr;
      for (const TrackedMove& truth : sim.truth) {
        if (truth.board == want.board && truth.side != want.side && truth.t > want.t + 1e-9 &&
            (answer == nullptr || truth.t < answer->t)) {
          answer = &truth;
        }
      }
      ASSERT_NE(answer, nullptr);
      const Seat answerer{answer->board, answer->side};
      const auto unname = [&](std::vector<SimulatedInput>& inputs) {
        for (SimulatedInput& input : inputs) {
          auto* o = std::get_if<BoardObservation>(&input);
          if (o == nullptr || o->board != answerer.board) continue;
          const bool before_a_press =
              std::any_of(sim.truth.begin(), sim.truth.end(), [&](const TrackedMove& m) {
                return m.board == answerer.board && m.side == answerer.color &&
                       o->t > m.t - 0.1 - unnamed && o->t <= m.t;
              });
          if (before_a_press) std::erase(o->own_arms, answerer);
        }
      };
      const Outcome outcome = run_tracker(clean_run_games()[0], options, {}, std::nullopt, unname);
      for (const TrackedMove& got : outcome.committed) {
        if (got.ply != answer->ply || got.board != answer->board || got.san != answer->san)
          continue;
        ++runs;
        std::cout << "arm unnamed " << unnamed << " s more, ply " << ply << ": answer " << got.ply
                  << " " << got.san << " pressed at " << answer->t << ", timed " << got.t << "\n";
        if (std::abs(got.t - answer->t) <= 0.05) ++on_time;
      }
    }
  }
  EXPECT_GE(runs, 6);
  EXPECT_EQ(on_time, runs);
}
// Pressed late at each ply in turn (plies 8 to 57 of the first clean-run game): how many of
// the runs that were late presses recorded the unpressed move as the one made first (its
// squares: drop types are guessed without the holding areas). `cover_late_move`: the late
// press's own move stays under the hand until its press.
// `shade_first_square`: the unpressed move's square reads as the mover's piece from 3 plies
// before it whenever empty (a piece beside it leaning over it), so the board never shows the
// piece arrive, and a hand passes over it 1.5 s before the move; `timed` counts those
// recorded in order and timed within 0.5 s.
struct InOrderCount {
  int runs = 0;
  int in_order = 0;
  int timed = 0;
};
// The first `most` moves of the seat that made the move without a press `unpressed`, from it
// on, in `sim`'s truth.
std::vector<TrackedMove> unpressed_movers_moves(const Simulation& sim,
                                                const ExpectedIncident& unpressed,
                                                std::size_t most) {
  std::vector<TrackedMove> out;
  for (const TrackedMove& truth : sim.truth) {
    if (truth.board == unpressed.board && truth.side == unpressed.side &&
        truth.t >= unpressed.t - 1e-9 && out.size() < most) {
      out.push_back(truth);
    }
  }
  return out;
}
InOrderCount unpressed_moves_in_order(bool cover_late_move, bool shade_first_square = false) {
  SimulationOptions clean = clean_run_options();
  clean.holdings = false;
  InOrderCount count;
  for (int ply = 8; ply < 58; ++ply) {
    SimulationOptions options = clean;
    options.injections = {{IncidentType::kMoveWithoutPress, ply, true}};
    std::optional<TrackedMove> shaded;
    if (shade_first_square) {
      const Simulation sim = simulate(clean_run_games()[0], options, [](const SimulatedInput&) {});
      if (sim.incidents.size() != 1) continue;
      const std::vector<TrackedMove> first = unpressed_movers_moves(sim, sim.incidents.front(), 1);
      if (first.empty()) continue;
      shaded = first.front();
      options.shadowed.push_back({shaded->board, shaded->move.to(), shaded->side, ply - 3});
    }
    // And a hand passes over that square 1.5 s before the move.
    const auto passing = [&](std::vector<SimulatedInput>& inputs) {
      for (SimulatedInput& input : inputs) {
        auto* o = std::get_if<BoardObservation>(&input);
        if (o != nullptr && o->board == shaded->board && o->t > shaded->t - 1.6 &&
            o->t < shaded->t - 1.4) {
          o->squares[static_cast<std::size_t>(shaded->move.to())].occluded = true;
        }
      }
    };
    Outcome outcome = shaded ? run_tracker(clean_run_games()[0], options, {}, std::nullopt, passing)
                             : run_tracker(clean_run_games()[0], options);
    if (outcome.sim.incidents.size() != 1) continue;
    const ExpectedIncident want = outcome.sim.incidents.front();
    // The unpressed move and the mover's next one, whose press recorded both (a run without
    // it is not a late press).
    const std::vector<TrackedMove> mover = unpressed_movers_moves(outcome.sim, want, 2);
    if (mover.size() < 2) continue;
    if (cover_late_move) {
      // The simulated hand leaves 0.1 s before the press; covered 0.15 s longer only, as a
      // longer cover joins the answer's hand visit to the mover's.
      const TrackedMove late = mover[1];
      const auto cover = [&](std::vector<SimulatedInput>& inputs) {
        for (SimulatedInput& input : inputs) {
          auto* o = std::get_if<BoardObservation>(&input);
          if (o == nullptr || o->board != late.board || o->t < late.t - 0.15 ||
              o->t > late.t + 0.05) {
            continue;
          }
          o->squares[static_cast<std::size_t>(late.move.to())].occluded = true;
          if (!late.move.is_drop()) {
            o->squares[static_cast<std::size_t>(late.move.from())].occluded = true;
          }
        }
      };
      outcome = run_tracker(clean_run_games()[0], options, {}, std::nullopt, cover);
    }
    ++count.runs;
    bool right = false;
    bool timed = false;
    for (const TrackedMove& got : outcome.committed) {
      // Where it went (drop types are guessed without the holding areas).
      if (got.board == want.board && got.ply == mover[0].ply) {
        right = got.move.to() == mover[0].move.to() &&
                (mover[0].move.is_drop() ? got.move.is_drop()
                                         : got.move.from() == mover[0].move.from());
        timed = std::abs(got.t - mover[0].t) < 0.5;
      }
    }
    count.in_order += right ? 1 : 0;
    count.timed += right && timed ? 1 : 0;
    if (!right) {
      std::cout << "ply " << ply << ": " << mover[0].ply << " " << mover[0].san
                << " recorded wrong\n";
    }
  }
  std::cout << count.in_order << " of " << count.runs << " unpressed moves recorded, "
            << count.timed << " timed\n";
  return count;
}
// Where the mover's two moves around the answer could have come in either order (fresh
// 11323: 9b. Nxg7, 10B. Bh6, 10b. Nh5), the board at the late press is the same both ways,
// and only when each piece was seen on its square tells the order.
TEST(TrackerIncidents, MoveWithoutPressPressedLateIsRecordedInTheOrderMade) {
  const InOrderCount count = unpressed_moves_in_order(false);
  // 45 of 48; 41 when the order made is not looked at. The three left (11A Bxh6, 10b P@g6,
  // 11B P@h6) go wrong otherwise.
  EXPECT_GE(count.runs, 40);
  EXPECT_GE(count.in_order, count.runs - 3);
}
// As fresh 11368 (5B. Nbd2 unpressed, 5b. Nd5, then 6B. Bd3 pressed): the late press's own
// move stays under the hand until its press, so the board never shows it made before the
// press, and the order with it first tied with the order made. It is then placed after the
// last time its square read without it (41 of 48 before).
TEST(TrackerIncidents, MoveWithoutPressPressedLateAfterAMoveCoveredUntilItsPress) {
  const InOrderCount count = unpressed_moves_in_order(true);
  // 45 of 48, the same three as uncovered.
  EXPECT_GE(count.runs, 40);
  EXPECT_GE(count.in_order, count.runs - 3);
}
// As held-out 11404 (5b. Be7 unpressed, 6B. e5, then 6b. Ng4 pressed; e7 read black under
// the king on e8 before Be7): the unpressed move's square reads as its piece before it came,
// so only the square it left shows it. The pressed move, seen whole, and its variants took
// every first place of the sequences, and its arrival was read at a hand passing before the
// move.
TEST(TrackerIncidents, MoveWithoutPressPressedLateOntoASquareReadAsItsPieceBefore) {
  const InOrderCount count = unpressed_moves_in_order(false, true);
  // 44 of 48 in order, 43 of them timed; 42 in order with the first plies tried as before
  // (add_unlike_the_best), and 41 timed with arrivals read where the square read so already.
  // The fourth one lost: the phantom piece on 13b. Kg8's square, read as a drop.
  EXPECT_GE(count.runs, 40);
  EXPECT_GE(count.in_order, count.runs - 4);
  EXPECT_GE(count.timed, count.in_order - 1);
}
// Where the mover took on a square without pressing, the opponent took back there, and the
// mover took there again with another piece and pressed (held-out 11494: 6B. Ngxe4 unpressed,
// 6b. dxe4, 7B. Nxe4 from c3), the board at the press is the same both ways round; which
// piece left its square first tells the order. Every such triple of the games (up to 12, the
// other order legal too), the first capture made without a press: each capture recorded from
// its own square.
TEST(TrackerIncidents, TwoCapturesOnOneSquareAroundAnUnpressedMoveAreRecordedInTheOrderMade) {
  const std::vector<bugcam::rules::BpgnGame> games = load_games("fics_mbprog_64.bpgn");
  const bugcam::rules::RuleSet& rules = bugcam::rules::otb_rules();
  struct Triple {
    std::size_t game;
    std::size_t first, answer, second;  // ply indices
  };
  std::vector<Triple> triples;
  for (std::size_t g = 0; g < games.size() && triples.size() < 12; ++g) {
    const bugcam::rules::Replay replay = bugcam::rules::replay(games[g]);
    const auto& plies = replay.plies;
    const auto next_on_board = [&](std::size_t i) {
      for (std::size_t j = i + 1; j < plies.size(); ++j) {
        if (plies[j].board == plies[i].board) return j;
      }
      return plies.size();
    };
    for (std::size_t i = 8; i < plies.size() && triples.size() < 12; ++i) {
      const bugcam::rules::Move m1 = plies[i].move;
      if (m1.is_drop() || plies[i].before.piece_at(m1.to()).empty()) continue;
      const std::size_t j = next_on_board(i);
      const std::size_t k = j < plies.size() ? next_on_board(j) : plies.size();
      if (k >= plies.size() || k + 6 > plies.size()) continue;
      const bugcam::rules::Move m2 = plies[j].move, m3 = plies[k].move;
      if (m2.to() != m1.to() || m3.is_drop() || m3.to() != m1.to() || m3.from() == m1.from()) {
        continue;
      }
      // The other order is legal too: the second piece takes first, the answer takes it, and
      // the first piece takes last.
      bugcam::rules::Position p = plies[i].before;
      const bugcam::rules::Move swapped_first = bugcam::rules::Move::normal(m3.from(), m1.to());
      if (!p.is_legal(swapped_first, rules)) continue;
      p.make(swapped_first, rules);
      if (!p.is_legal(m2, rules)) continue;
      p.make(m2, rules);
      if (!p.is_legal(bugcam::rules::Move::normal(m1.from(), m1.to()), rules)) continue;
      triples.push_back({g, i, j, k});
    }
  }
  ASSERT_GE(triples.size(), 10u) << "too few captures on one square around an answer";
  // Without misreads, and with brief misreads of 2 % of square-frames.
  for (const double misread : {0.0, 0.02}) {
    int right = 0, runs = 0;
    for (const Triple& t : triples) {
      SimulationOptions options;
      options.misread = misread;
      options.seed = 11;
      options.holdings = false;
      options.max_plies = static_cast<int>(t.second) + 6;
      options.injections = {{IncidentType::kMoveWithoutPress, static_cast<int>(t.first), true}};
      const Outcome outcome = run_tracker(games[t.game], options);
      if (outcome.sim.incidents.size() != 1) continue;
      ++runs;
      const bugcam::rules::Replay replay = bugcam::rules::replay(games[t.game]);
      bool both = true;
      for (const std::size_t i : {t.first, t.second}) {
        const TrackedMove& want = outcome.sim.truth[i];
        bool committed = false;
        for (const TrackedMove& got : outcome.committed) {
          if (got.board != want.board || got.ply != want.ply) continue;
          committed = true;
          both = both && got.move == replay.plies[i].move;
          if (got.move != replay.plies[i].move) {
            std::cout << "game " << t.game << " ply " << i << ": " << got.san << " for " << want.san
                      << "\n";
          }
        }
        both = both && committed;
      }
      right += both ? 1 : 0;
    }
    std::cout << right << " of " << runs << " recorded in the order made, misread " << misread
              << "\n";
    // 7 of 12 either way; 4 and 6 without the order the squares were left in. Four of the five go
    // wrong for other reasons: the captures taken for single pressed moves of other pieces
    // (game 4, plies 49 and 87; game 8, ply 65), or a king's move and a drop (game 6, ply 144).
    EXPECT_GE(runs, 10);
    EXPECT_GE(right, runs - 5);
  }
}
TEST(TrackerIncidents, PressWithoutMove) {
  // The player's press and the opponent's press back are both presses without a move.
  expect_found(IncidentType::kPressWithoutMove, 21);
}
// Pressed without a move at each ply of the game in turn (the arm passing over the player's
// corner on its way to the clock), often just after a check, and pressed back: the two
// presses are found, and not mistaken for moves vision missed whole (held-out clip 9099 took
// the pair for two drops onto empty squares read empty). Before, 40 of 50 were found.
TEST(TrackerIncidents, PressWithoutMoveAtEveryPly) {
  int runs = 0, found_both = 0, extra = 0, lost_moves = 0;
  for (int ply = 8; ply < 58; ++ply) {
    const Outcome outcome = run_with(IncidentType::kPressWithoutMove, ply);
    if (outcome.sim.incidents.empty()) continue;
    ++runs;
    bool both = true;
    for (const ExpectedIncident& want : outcome.sim.incidents) both = both && found(outcome, want);
    found_both += both ? 1 : 0;
    extra +=
        static_cast<int>(outcome.incidents.size()) - static_cast<int>(outcome.sim.incidents.size());
    lost_moves += static_cast<int>(outcome.sim.truth.size()) - outcome.right;
    if (!both) std::cout << "ply " << ply << ": not found\n";
  }
  std::cout << found_both << " of " << runs << " found; " << extra << " other incidents, "
            << lost_moves << " moves lost\n";
  EXPECT_EQ(runs, 50);
  EXPECT_GE(found_both, 48);
  EXPECT_LE(extra, 2);
  EXPECT_LE(lost_moves, 5);
}
// As on held-out clip 10404: the arm of a press without a move passes over the whole home
// rank, and the holding areas are not read (as `bugcam record` by default). Every drop of the
// presser's onto an empty square of that rank then fits about as well as the press without a
// move (covered, read empty after); the drops' variants over the parents took the beam before
// the press back could tell, and a drop was recorded for the press (34 of 50 found before).
TEST(TrackerIncidents, PressWithoutMoveWhoseArmCoversSquaresWhereDropsFit) {
  SimulationOptions options = clean_run_options();
  options.holdings = false;
  // Without the holding areas some drops' types stay in doubt: the moves lost so are the
  // game's own, not the incident's.
  const Outcome clean = run_tracker(clean_run_games()[0], options);
  const int lost_clean = static_cast<int>(clean.sim.truth.size()) - clean.right;
  int runs = 0, found_both = 0, lost_more = 0;
  for (int ply = 8; ply < 58; ++ply) {
    options.injections = {{IncidentType::kPressWithoutMove, ply}};
    const Simulation sim = simulate(clean_run_games()[0], options, [](const SimulatedInput&) {});
    if (sim.incidents.empty()) continue;
    // The arm over the presser's home rank from 0.3 s before each press until just after.
    const auto widen = [&](std::vector<SimulatedInput>& inputs) {
      for (SimulatedInput& input : inputs) {
        auto* seen = std::get_if<BoardObservation>(&input);
        if (seen == nullptr) continue;
        for (const ExpectedIncident& press : sim.incidents) {
          if (seen->board != press.board || seen->t < press.t - 0.3 || seen->t > press.t + 0.05) {
            continue;
          }
          const int home = press.side == Color::kWhite ? 0 : 7;
          for (int file = 0; file < 8; ++file) {
            seen->squares[static_cast<std::size_t>(bugcam::rules::make_square(file, home))]
                .occluded = true;
          }
        }
      }
    };
    const Outcome outcome = run_tracker(clean_run_games()[0], options, {}, std::nullopt, widen);
    ++runs;
    bool both = true;
    for (const ExpectedIncident& want : outcome.sim.incidents) both = both && found(outcome, want);
    found_both += both ? 1 : 0;
    const int lost = static_cast<int>(outcome.sim.truth.size()) - outcome.right;
    lost_more += std::max(0, lost - lost_clean);
    if (!both) std::cout << "ply " << ply << ": not found, " << lost << " moves lost\n";
  }
  std::cout << found_both << " of " << runs << " found; " << lost_more << " moves lost beyond the "
            << lost_clean << " of the run without the incident\n";
  EXPECT_EQ(runs, 50);
  EXPECT_GE(found_both, 49);
  // 14 before drops on credit, 15 with: the run of ply 41, not found and 16 moves lost to drop
  // types guessed without the holding areas, guesses one more (11B. B@h6 for P@h6).
  EXPECT_LE(lost_more, 15);
}
TEST(TrackerIncidents, IllegalMove) {
  expect_found(IncidentType::kIllegalMove, 24);
  // The move keeps its place in the record, marked, and the game goes on from the board.
  const Outcome outcome = run_with(IncidentType::kIllegalMove, 24);
  const auto illegal = std::find_if(outcome.committed.begin(), outcome.committed.end(),
                                    [](const TrackedMove& m) { return m.illegal; });
  ASSERT_NE(illegal, outcome.committed.end());
  EXPECT_EQ(illegal->san, "Bf1-f3");
  for (const Incident& i : outcome.incidents) {
    if (i.type == IncidentType::kIllegalMove) {
      EXPECT_FALSE(i.position.empty());
    }
    // The bishop's square, under the fingertips alone as it is put down, is no knock.
    EXPECT_NE(i.type, IncidentType::kPositionDisturbed) << i.detail;
  }
}
// As on held-out clip 11454 (P@c8 for 9a. P@e6): a pawn dropped on the first or last rank,
// where the game ends. The position after it has a pawn where none can stand, which a resync
// had refused, and a legal move was recorded instead; and where the dropper also held a
// knight, the legal N@e8 fitted the board as well. The drop is found, kept in the record with
// the piece the holding area shows gone, and the moves before it are right.
TEST(TrackerIncidents, AnIllegalPawnDropOnTheLastRank) {
  // The first 60 plies' pawn drops: 12A. P@g7+, 10b. P@g6, 11B. P@h6 (14a. P@f5 blocks a
  // check, which a pawn on the last rank would not).
  for (const int ply : {41, 45, 46}) {
    SimulationOptions options = clean_run_options();
    options.injections = {{IncidentType::kIllegalMove, ply}};
    options.max_plies = ply + 1;
    const Outcome outcome = run_tracker(clean_run_games()[0], options);
    ASSERT_EQ(outcome.sim.incidents.size(), 1u) << ply;
    EXPECT_TRUE(found(outcome, outcome.sim.incidents.front())) << ply;
    const auto illegal = std::find_if(outcome.committed.begin(), outcome.committed.end(),
                                      [](const TrackedMove& m) { return m.illegal; });
    ASSERT_NE(illegal, outcome.committed.end()) << ply;
    EXPECT_TRUE(illegal->move.is_drop() && illegal->move.piece() == bugcam::rules::PieceType::kPawn)
        << illegal->san;
    const int rank = bugcam::rules::rank_of(illegal->move.to());
    EXPECT_TRUE(rank == 0 || rank == 7) << illegal->san;
    EXPECT_GE(outcome.right, static_cast<int>(outcome.sim.truth.size()) - 1) << ply;
  }
}
// As on held-out clip 9105 (Nxf7 put on f6, e2 read white at the press): a square beside
// the illegal move reads as a piece of the mover's for a second after the press. The change
// taken whole is then no single move, yet the move is still what happened (before, the press
// was a legal move and a disturbance, and 8 moves after it were lost).
TEST(TrackerIncidents, IllegalMoveBesideAMisreadSquare) {
  using bugcam::rules::make_square;
  // 6B. Bf1-f3 is the illegal move; none of these squares is on the bishop's diagonals.
  for (const int square :
       {make_square(4, 2), make_square(6, 2), make_square(5, 3), make_square(6, 3)}) {
    SimulationOptions options = clean_run_options();
    options.injections = {{IncidentType::kIllegalMove, 24}};
    options.shadowed = {{BoardId::kB, static_cast<bugcam::rules::Square>(square),
                         bugcam::rules::Color::kWhite, 24, 1.0}};
    const Outcome outcome = run_tracker(clean_run_games()[0], options);
    ASSERT_EQ(outcome.sim.incidents.size(), 1u);
    const std::string where = bugcam::rules::square_name(square);
    EXPECT_TRUE(found(outcome, outcome.sim.incidents.front())) << where;
    EXPECT_EQ(outcome.incidents.size(), 1u) << where;
    EXPECT_GE(outcome.right, static_cast<int>(outcome.sim.truth.size()) - 1) << where;
  }
}
// As on held-out clip 11508 (7A. Ke3, into a knight's check, recorded as a legal Ke2 with two
// squares misread): a move that leaves the mover's own king in check (a king stepping into
// check, a drop that does not block one), the game ending at it as the renderer stages it. A resync
// refused every position with the presser in check. The move is found and kept in the record; the
// incident gives no position to set a record up from (the side not to move is in check), and the
// moves before it are right.
TEST(TrackerIncidents, AnIllegalMoveIntoCheck) {
  namespace rules = bugcam::rules;
  const rules::BpgnGame& game = clean_run_games()[0];
  const rules::Replay replayed = rules::replay(game);
  // The first `count` plies from the 10th on before which `illegal` finds a move.
  std::vector<std::pair<int, rules::Move>> into_check;
  const auto add_first = [&](std::size_t count, const auto& illegal) {
    std::size_t added = 0;
    for (std::size_t ply = 10; ply < replayed.plies.size() && added < count; ++ply) {
      if (const std::optional<rules::Move> m = illegal(replayed.plies[ply].before)) {
        into_check.emplace_back(static_cast<int>(ply), *m);
        ++added;
      }
    }
    return added;
  };
  // The mover's king steps into check.
  ASSERT_EQ(add_first(4, king_step_into_check), 4u);
  // The mover, in check, drops a held piece where it does not block the check.
  const auto drop_leaving_check = [](const rules::Position& p) -> std::optional<rules::Move> {
    const rules::Color mover = p.side_to_move();
    if (!p.attacked_by(!mover, p.king_square(mover))) return std::nullopt;
    for (int t = 4; t >= 0; --t) {
      const auto type = static_cast<rules::PieceType>(t);
      if (p.holding(mover, type) == 0) continue;
      for (rules::Square to = 8; to < 56; ++to) {
        if (!p.piece_at(to).empty()) continue;
        rules::Position after = p;
        after.put(to, {mover, type});
        if (after.attacked_by(!mover, after.king_square(mover))) return rules::Move::drop(type, to);
      }
    }
    return std::nullopt;
  };
  ASSERT_EQ(add_first(3, drop_leaving_check), 3u);
  for (const auto& [ply, step] : into_check) {
    SimulationOptions options = clean_run_options();
    Injection injection{IncidentType::kIllegalMove, ply};
    injection.illegal = step;
    options.injections = {injection};
    options.max_plies = ply + 1;
    const Outcome outcome = run_tracker(game, options);
    const std::string where = std::to_string(ply) + " " + step.uci();
    ASSERT_EQ(outcome.sim.incidents.size(), 1u) << where;
    EXPECT_TRUE(found(outcome, outcome.sim.incidents.front())) << where;
    const auto illegal = std::find_if(outcome.committed.begin(), outcome.committed.end(),
                                      [](const TrackedMove& m) { return m.illegal; });
    if (illegal == outcome.committed.end()) {
      ADD_FAILURE() << where;
      continue;
    }
    EXPECT_EQ(illegal->move, step) << where << ": " << illegal->san;
    for (const Incident& i : outcome.incidents) {
      if (i.type != IncidentType::kIllegalMove) continue;
      EXPECT_TRUE(i.position.empty()) << where << ": " << i.position;
      EXPECT_TRUE(i.position_unsettable) << where;
      EXPECT_NE(i.detail.find("king in check"), std::string::npos) << i.detail;
    }
    EXPECT_GE(outcome.right, static_cast<int>(outcome.sim.truth.size()) - 1) << where;
  }
}
// A pawn drop on the mover's own first rank (as 11652's P@b1), if they hold a pawn and a
// square there is empty.
std::optional<bugcam::rules::Move> end_rank_pawn_drop(const bugcam::rules::Position& before) {
  namespace rules = bugcam::rules;
  const rules::Color mover = before.side_to_move();
  if (before.holding(mover, rules::PieceType::kPawn) == 0) return std::nullopt;
  const rules::Square first = mover == rules::Color::kWhite ? 0 : 56;
  for (rules::Square to = first; to < first + 8; ++to) {
    if (before.piece_at(to).empty()) return rules::Move::drop(rules::PieceType::kPawn, to);
  }
  return std::nullopt;
}
// The clean run up to `plies` plies, with `drop` made as the illegal move at `ply`.
SimulationOptions with_illegal_drop(std::size_t ply, bugcam::rules::Move drop, int plies) {
  SimulationOptions options = clean_run_options();
  Injection injection{IncidentType::kIllegalMove, static_cast<int>(ply)};
  injection.illegal = drop;
  options.injections = {injection};
  options.max_plies = plies;
  return options;
}
// A pawn dropped on an end rank, the game ending at it: the position goes on without the
// pawn (no BPGN game can be set up with it), but it still stands there as the footage ends,
// so the last readings do not count it against the illegal move (11652: 12A. P@b1 was
// recorded as Rb1, b1 read white after the hand left). The first 3 such drops in the game.
TEST(TrackerIncidents, APawnDroppedOnAnEndRankAtTheEndIsTheIllegalMove) {
  namespace rules = bugcam::rules;
  const rules::BpgnGame& game = clean_run_games()[0];
  const rules::Replay replayed = rules::replay(game);
  int tried = 0;
  for (std::size_t ply = 10; ply < replayed.plies.size() && tried < 3; ++ply) {
    const std::optional<rules::Move> drop = end_rank_pawn_drop(replayed.plies[ply].before);
    if (!drop) continue;
    ++tried;
    const Outcome outcome =
        run_tracker(game, with_illegal_drop(ply, *drop, static_cast<int>(ply) + 1));
    const std::string where = std::to_string(ply) + " " + drop->uci();
    ASSERT_EQ(outcome.sim.incidents.size(), 1u) << where;
    EXPECT_TRUE(found(outcome, outcome.sim.incidents.front())) << where;
    const auto illegal = std::find_if(outcome.committed.begin(), outcome.committed.end(),
                                      [](const TrackedMove& m) { return m.illegal; });
    ASSERT_NE(illegal, outcome.committed.end()) << where;
    EXPECT_EQ(illegal->move, *drop) << where << ": " << illegal->san;
    EXPECT_GE(outcome.right, static_cast<int>(outcome.sim.truth.size()) - 1) << where;
  }
  EXPECT_EQ(tried, 3);
}
// ... also where the other board's player pressed once more before the footage ended: the
// final readings of the drop's board are scored with the pawn that board's last press left out
// (from the review: 1 of 6 right where only the last press overall was looked at).
TEST(TrackerIncidents, APawnDroppedOnAnEndRankThenAPressOnTheOtherBoardIsTheIllegalMove) {
  namespace rules = bugcam::rules;
  const rules::BpgnGame& game = clean_run_games()[0];
  const rules::Replay replayed = rules::replay(game);
  int tried = 0;
  int right = 0;
  for (std::size_t ply = 10; ply + 1 < replayed.plies.size() && tried < 6; ++ply) {
    if (replayed.plies[ply + 1].board == replayed.plies[ply].board) continue;
    const std::optional<rules::Move> drop = end_rank_pawn_drop(replayed.plies[ply].before);
    if (!drop) continue;
    ++tried;
    const Outcome outcome =
        run_tracker(game, with_illegal_drop(ply, *drop, static_cast<int>(ply) + 2));
    const auto illegal = std::find_if(outcome.committed.begin(), outcome.committed.end(),
                                      [](const TrackedMove& m) { return m.illegal; });
    const bool ok = outcome.sim.incidents.size() == 1 &&
                    found(outcome, outcome.sim.incidents.front()) &&
                    illegal != outcome.committed.end() && illegal->move == *drop;
    if (ok) ++right;
    std::cout << ply << " " << drop->uci() << ": " << (ok ? "found" : "not found") << "\n";
  }
  EXPECT_EQ(tried, 6);
  EXPECT_GE(right, 4);  // 12, 18, 27 and 29 (20 and 28 not found)
}
// An illegal move ends the game. Made at the game's last press, the footage ending 1.5 s
// later, it is likelier than the same move mid-game (TrackerConfig::game_ending_illegal_move).
// With a prior 2 harsher than the default, under which a legal move taking a square for
// unread beats it (as 4 game-ending illegal moves on the development clips did at the
// default), the move is found at the game's end with a gain of 10 and not without, and
// mid-game the gain changes nothing. A clock log's stop says when the game stopped: 1 s after
// the press it ends the game there, 5 s after it does not, and a pause of that board's
// clock earlier in the game does not hide the last stop.
TEST(TrackerIncidents, AnIllegalMoveThatEndsTheGameGainsThePriorOfItsEnd) {
  using Kind = ClockEvent::Kind;
  // The stops after (or, negative, before) the illegal move's press, on its board.
  const auto illegal_found = [](int plies, double gain, std::vector<double> stops = {}) {
    SimulationOptions options = clean_run_options();
    options.injections = {{IncidentType::kIllegalMove, 24}};
    options.max_plies = plies;
    TrackerConfig config;
    config.prior_illegal_move = -10.0;
    config.game_ending_illegal_move = gain;
    const auto stop_clocks = [&](std::vector<SimulatedInput>& inputs) {
      const auto press = std::find_if(inputs.rbegin(), inputs.rend(), [](const SimulatedInput& i) {
        const auto* e = std::get_if<ClockEvent>(&i);
        return e != nullptr && e->kind == Kind::kPress;
      });
      if (press == inputs.rend()) return;
      const ClockEvent last = std::get<ClockEvent>(*press);
      for (const double after : stops) {
        ClockEvent stop;
        stop.kind = Kind::kStop;
        stop.board = last.board;
        stop.t = after < 0 ? 5.0 : last.t + after;  // a pause at 5 s, early in the game
        const auto at = std::find_if(inputs.begin(), inputs.end(), [&](const SimulatedInput& i) {
          return std::visit([](const auto& x) { return x.t; }, i) > stop.t;
        });
        inputs.insert(at, stop);
      }
    };
    const Outcome outcome = run_tracker(
        clean_run_games()[0], options, config, std::nullopt,
        stops.empty() ? std::function<void(std::vector<SimulatedInput>&)>{} : stop_clocks);
    EXPECT_EQ(outcome.sim.incidents.size(), 1u);
    return !outcome.sim.incidents.empty() && found(outcome, outcome.sim.incidents.front());
  };
  EXPECT_FALSE(illegal_found(25, 0.0));
  EXPECT_TRUE(illegal_found(25, 10.0));
  EXPECT_FALSE(illegal_found(60, 10.0));
  EXPECT_TRUE(illegal_found(25, 10.0, {1.0}));
  EXPECT_FALSE(illegal_found(25, 10.0, {5.0}));
  EXPECT_TRUE(illegal_found(25, 10.0, {-1.0, 1.0}));
  EXPECT_FALSE(illegal_found(25, 10.0, {-1.0, 5.0}));
}
TEST(TrackerIncidents, PositionDisturbed) {
  expect_found(IncidentType::kPositionDisturbed, 24);
}
TEST(TrackerIncidents, CaptureNotPassed) {
  // The first capture at or after ply 10.
  for (int ply = 10; ply < 40; ++ply) {
    const Outcome outcome = run_with(IncidentType::kCaptureNotPassed, ply);
    if (outcome.sim.incidents.empty()) continue;
    EXPECT_TRUE(found(outcome, outcome.sim.incidents[0]));
    return;
  }
  FAIL() << "no capture to inject into";
}
// Views of the partner's holding area just before and after a hand covers it count pieces
// that are not there (as vision's do): the capturer who kept the piece is still found, and the
// partner is not taken for hiding it.
TEST(TrackerIncidents, CaptureNotPassedWithHandsMiscountedAtTheArea) {
  for (int ply = 10; ply < 40; ++ply) {
    SimulationOptions options = clean_run_options();
    options.injections = {{IncidentType::kCaptureNotPassed, ply}};
    options.holdings_hz = 30.0;
    options.holdings_hand_flicker = 0.1;
    const Outcome outcome = run_tracker(clean_run_games()[0], options);
    if (outcome.sim.incidents.empty()) continue;
    EXPECT_TRUE(found(outcome, outcome.sim.incidents[0]));
    for (const Incident& got : outcome.incidents) {
      EXPECT_NE(got.type, IncidentType::kHiddenPiece) << got.t << ": " << got.detail;
    }
    return;
  }
  FAIL() << "no capture to inject into";
}
// ... and where each piece lying in the area also reads as every other type, with the pieces
// counted right (held-out 10705's lone pawn read as a pawn and a bishop): types read for more
// pieces than were counted say nothing, and the piece kept is still found. Of the captures
// the first 40 plies give, five are not found: one whose clean views do not find it either;
// one the partner drops 50 ms after the capturer's next press; one the partner drops 1.4 s
// after it came late (its views, beside the hands, are never steady), which is taken for the
// partner's hidden piece; and two that came after the partner dropped another piece (a drop
// since the deadline leaves the count telling nothing, see arrived_late), one of them also
// taken for a hidden piece.
TEST(TrackerIncidents, CaptureNotPassedWithOnePieceReadAsEveryType) {
  int tried = 0;
  int found_with_types_misread = 0;
  int hidden = 0;
  for (int ply = 10; ply < 40; ++ply) {
    SimulationOptions options = clean_run_options();
    options.injections = {{IncidentType::kCaptureNotPassed, ply}};
    options.holdings_hz = 30.0;
    options.holdings_types_doubled = true;
    const Outcome outcome = run_tracker(clean_run_games()[0], options);
    if (outcome.sim.incidents.empty()) continue;
    ++tried;
    found_with_types_misread += found(outcome, outcome.sim.incidents[0]) ? 1 : 0;
    for (const Incident& got : outcome.incidents) {
      hidden += got.type == IncidentType::kHiddenPiece ? 1 : 0;
    }
  }
  EXPECT_GE(tried, 10);
  EXPECT_GE(found_with_types_misread, tried - 5);
  EXPECT_LE(hidden, 2);
}
// A capture passed in time that vision never counts in the partner's area is not blamed on
// the capturer: without the piece seen to come late, it may be vision's miss.
TEST(TrackerIncidents, CaptureNeverCountedIsNotTakenForNotPassed) {
  int uncounted = 0;
  for (int ply = 10; ply < 40; ++ply) {
    SimulationOptions options = clean_run_options();
    options.holdings_uncounted_captures = {ply};
    const Outcome outcome = run_tracker(clean_run_games()[0], options);
    uncounted += outcome.sim.holdings_uncounted;
    for (const Incident& got : outcome.incidents) {
      EXPECT_NE(got.type, IncidentType::kCaptureNotPassed) << "ply " << ply << ": " << got.detail;
    }
  }
  EXPECT_GE(uncounted, 10);
}
// A capture whose piece the partner hides at once, and the area read with one piece more
// for 0.4 s three seconds after the capturer's next press, with no hand near (as vision
// miscounts beside a passing hand): that is no piece come late, so the capturer is not
// blamed (fresh 11415: 6B. Nxf7's pawn, hidden by Black A, was reported as not passed).
// Captures in the sample games whose piece the partner never drops, with no drop by the
// partner from the capture to 5 s after the deadline, up to six.
TEST(TrackerIncidents, AnAreaMiscountedForAMomentIsNoPieceComeLate) {
  using bugcam::rules::PieceType;
  SimulationOptions options = clean_run_options();
  options.holdings_hz = 30.0;
  int runs = 0;
  int blamed = 0;
  for (const bugcam::rules::BpgnGame& game : clean_run_games()) {
    if (runs >= 6) break;
    const bugcam::rules::Replay replay = bugcam::rules::replay(game);
    const Simulation plain = simulate(game, options, [](const SimulatedInput&) {});
    const std::vector<TrackedMove>& truth = plain.truth;
    for (std::size_t k = 0; k < truth.size() && runs < 6; ++k) {
      const PieceType type = piece_passed(replay.plies[k]);
      if (type == PieceType::kNone) continue;
      const TrackedMove& capture = truth[k];
      const std::optional<double> next_press = deadline_of(truth, k);
      if (!next_press) continue;
      const double deadline = *next_press;
      const Seat partner = partner_of_mover(capture);
      const bool partner_drops = std::any_of(truth.begin(), truth.end(), [&](const TrackedMove& m) {
        return m.board == partner.board && m.side == partner.color && m.move.is_drop() &&
               ((m.t > capture.t && m.t < deadline + 5.0) ||
                (m.t > capture.t && m.move.piece() == type));
      });
      if (partner_drops) continue;
      ++runs;
      const Outcome outcome =
          run_tracker(game, options, {}, std::nullopt,
                      piece_kept_and_piece_early(partner, type, capture.t + 0.6,
                                                 std::numeric_limits<double>::infinity(), type,
                                                 deadline + 3.0, deadline + 3.4));
      for (const Incident& got : outcome.incidents) {
        if (got.type == IncidentType::kCaptureNotPassed && got.board == capture.board &&
            got.side == capture.side && std::abs(got.t - capture.t) < 0.5) {
          ++blamed;
          std::cout << capture.ply << ": " << got.detail << "\n";
        }
      }
    }
  }
  EXPECT_EQ(runs, 6);
  EXPECT_EQ(blamed, 0);
}
// A capture of the sample games whose piece the capturer keeps past their next press on the
// board (injected), as the injection times the game. Valid only while for_kept_captures offers
// it (`replay` is its loop's).
struct KeptCapture {
  const bugcam::rules::BpgnGame* game = nullptr;
  const bugcam::rules::Replay* replay = nullptr;
  SimulationOptions options;
  std::vector<TrackedMove> truth;
  std::size_t k = 0;                                                // the capture is truth[k]
  bugcam::rules::PieceType type = bugcam::rules::PieceType::kNone;  // what it passes
  double deadline = 0.0;                                            // the capturer's next press
  Seat partner;
  const TrackedMove& capture() const { return truth[k]; }
  // The incident the injection makes.
  ExpectedIncident incident() const {
    return {IncidentType::kCaptureNotPassed, capture().board, capture().side, capture().t};
  }
  // The partner's first drop after the capture matching `which`, or truth.end().
  std::vector<TrackedMove>::const_iterator partners_drop(
      const std::function<bool(const TrackedMove&)>& which) const {
    return std::find_if(truth.begin(), truth.end(), [&](const TrackedMove& m) {
      return m.board == partner.board && m.side == partner.color && m.move.is_drop() &&
             m.t > capture().t && which(m);
    });
  }
};
// Offers `try_one` each capture of the sample games with a next press, in order, until it has
// taken `most` (returned true for them). Returns how many it took.
int for_kept_captures(int most, const std::function<bool(const KeptCapture&)>& try_one) {
  int taken = 0;
  for (const bugcam::rules::BpgnGame& game : clean_run_games()) {
    if (taken >= most) break;
    const bugcam::rules::Replay replay = bugcam::rules::replay(game);
    const std::size_t plies =
        simulate(game, clean_run_options(), [](const SimulatedInput&) {}).truth.size();
    for (std::size_t k = 0; k < plies && taken < most; ++k) {
      KeptCapture kept;
      kept.type = piece_passed(replay.plies[k]);
      if (kept.type == bugcam::rules::PieceType::kNone) continue;
      kept.game = &game;
      kept.replay = &replay;
      kept.k = k;
      kept.options = clean_run_options();
      kept.options.injections = {{IncidentType::kCaptureNotPassed, static_cast<int>(k)}};
      kept.truth = simulate(game, kept.options, [](const SimulatedInput&) {}).truth;
      const std::optional<double> next_press = deadline_of(kept.truth, k);
      if (!next_press) continue;
      kept.deadline = *next_press;
      kept.partner = partner_of_mover(kept.capture());
      if (try_one(kept)) ++taken;
    }
  }
  return taken;
}

// A capture kept until after the capturer's next move, the partner dropping a piece from
// their area in between, before the kept one comes: counted from the view after the drop,
// the piece is still seen to come late (held-out 11452: Black B dropped a knight 0.2 s after
// the deadline of 10A. Qxd2, whose knight White A passed 3 s later, and the capture was never
// reported). Captures in the sample games whose partner drops a piece of another type
// 0.2-2.5 s after the deadline, and none of the kept piece's type later, the kept piece shown
// from 1 s after that drop; up to four.
TEST(TrackerIncidents, ACaptureKeptIsFoundThoughThePartnerDroppedBeforeItCame) {
  using bugcam::rules::PieceType;
  int found_count = 0;
  const int runs = for_kept_captures(4, [&](const KeptCapture& kept) {
    const auto drop = kept.partners_drop([&](const TrackedMove& m) {
      return m.move.piece() != kept.type && m.t > kept.deadline + 0.2 && m.t < kept.deadline + 2.5;
    });
    // (A drop of the kept piece's type meanwhile may be of that piece: credit_pass_by_drop.)
    const bool type_dropped = kept.partners_drop([&](const TrackedMove& m) {
      return m.move.piece() == kept.type;
    }) != kept.truth.end();
    if (drop == kept.truth.end() || type_dropped) return false;
    // (The simulation shows a kept piece from 1 s after the deadline.)
    const Outcome outcome =
        run_tracker(*kept.game, kept.options, {}, std::nullopt,
                    piece_kept_and_piece_early(kept.partner, kept.type, kept.deadline + 0.9,
                                               drop->t + 1.0, kept.type, 0.0, 0.0));
    if (found(outcome, kept.incident())) {
      ++found_count;
    } else {
      std::cout << kept.capture().ply << " (dropped " << drop->ply << " " << drop->san
                << ") not found\n";
    }
    return true;
  });
  EXPECT_EQ(runs, 4);
  EXPECT_EQ(found_count, runs);
}
// A capture kept until after the capturer's next move, that move a capture too whose piece
// the capturer passes before pressing: the first view after the deadline counts one piece
// more than before the kept capture, and that is the other capture's, not the kept one
// (clip 11632: 10a. Nxc4's bishop, passed 2.5 s before its press, was taken for 9a. gxh6's
// pawn, which Black A kept until after 10a; the capture was not reported). Captures in the
// sample games whose capturer's next move takes a piece of another type, with no drop by the
// partner from the capture to the kept piece's arrival; up to four.
TEST(TrackerIncidents, ACaptureKeptIsFoundThoughTheNextCapturesPieceCameBeforeItsPress) {
  int found_count = 0;
  const int runs = for_kept_captures(4, [&](const KeptCapture& kept) {
    const auto next =
        std::find_if(kept.truth.begin() + static_cast<std::ptrdiff_t>(kept.k) + 1, kept.truth.end(),
                     [&](const TrackedMove& m) {
                       return m.board == kept.capture().board && m.side == kept.capture().side;
                     });
    if (next == kept.truth.end()) return false;
    const auto j = static_cast<std::size_t>(next - kept.truth.begin());
    const bugcam::rules::PieceType other = piece_passed(kept.replay->plies[j]);
    if (other == bugcam::rules::PieceType::kNone || other == kept.type) return false;
    const auto drop =
        kept.partners_drop([&](const TrackedMove& m) { return m.t < kept.deadline + 3.0; });
    if (drop != kept.truth.end()) return false;
    // The next capture's piece shown from 2.5 s before its press, or just after the kept
    // capture's if that is later (the simulation shows it from 0.6 s after its press), a hand
    // over the area from 0.6 s before the deadline to 0.5 s after, and the kept piece there
    // from 2.5 s after (the simulation shows it from 1 s after).
    const auto early = piece_kept_and_piece_early(
        kept.partner, kept.type, kept.deadline + 1.0, kept.deadline + 2.5, other,
        std::max(kept.capture().t + 0.3, kept.deadline - 2.5), kept.deadline + 0.6);
    const auto edit = [&](std::vector<SimulatedInput>& inputs) {
      early(inputs);
      for (SimulatedInput& input : inputs) {
        auto* o = std::get_if<HoldingsObservation>(&input);
        if (o != nullptr && o->seat == kept.partner && o->t >= kept.deadline - 0.6 &&
            o->t < kept.deadline + 0.5) {
          o->occluded = true;
        }
      }
    };
    const Outcome outcome = run_tracker(*kept.game, kept.options, {}, std::nullopt, edit);
    if (found(outcome, kept.incident())) {
      ++found_count;
    } else {
      std::cout << kept.capture().ply << " " << kept.capture().san << " (next " << next->ply << " "
                << next->san << ") not found\n";
    }
    return true;
  });
  EXPECT_EQ(runs, 4);
  EXPECT_EQ(found_count, runs);
}
// A capture kept past the capturer's next press, then passed under a hand that stays over
// the area until the partner drops the piece: no view shows it there, but vision watched the
// area with no hand and no piece coming from the capture to the deadline, so the capturer kept
// it, and the partner hid nothing (held-out 11560: 7A. Nxe4's knight, kept by White A, lay in
// Black B's area for 1 s between the hands, and Black B was reported as hiding it). Captures
// in the sample games whose piece the partner drops 2 to 12 s after the deadline, holding no
// other of the type, with no drop of theirs nor other piece passed to them from 4 s before the
// capture to 1 s after the deadline, up to three.
TEST(TrackerIncidents, ACaptureKeptThenPassedUnderAHandUntilItsDropIsFound) {
  using bugcam::rules::PieceType;
  const int runs = for_kept_captures(3, [&](const KeptCapture& kept) {
    const TrackedMove& capture = kept.capture();
    const std::vector<TrackedMove>& truth = kept.truth;
    const auto drop =
        kept.partners_drop([&](const TrackedMove& m) { return m.move.piece() == kept.type; });
    // (A drop by the partner, or another piece passed to them, shortly before the capture's
    // press or by the deadline puts a hand over the area, which may have brought the piece.)
    const bool hand_by_deadline =
        std::any_of(truth.begin(), truth.end(), [&](const TrackedMove& m) {
          const auto j = static_cast<std::size_t>(&m - truth.data());
          const bool partner_drops =
              m.board == kept.partner.board && m.side == kept.partner.color && m.move.is_drop();
          const bool passes_to_partner = j != kept.k && m.board == capture.board &&
                                         m.side == capture.side &&
                                         piece_passed(kept.replay->plies[j]) != PieceType::kNone;
          return (partner_drops || passes_to_partner) && m.t > capture.t - 4.0 &&
                 m.t < kept.deadline + 1.0;
        });
    // (The drop's piece is the capture's: the partner held no other of the type then.)
    if (hand_by_deadline || drop == truth.end() || drop->t < kept.deadline + 2.0 ||
        drop->t > kept.deadline + 12.0 ||
        kept.replay->plies[static_cast<std::size_t>(drop - truth.begin())].before.holding(
            kept.partner.color, kept.type) != 1) {
      return false;
    }
    // (The simulation shows a kept piece from 1 s after the deadline.)
    const double covered_from = kept.deadline + 0.8;
    const double covered_until = drop->t;
    const Outcome outcome = run_tracker(*kept.game, kept.options, {}, std::nullopt,
                                        [&](std::vector<SimulatedInput>& inputs) {
                                          for (SimulatedInput& input : inputs) {
                                            auto* o = std::get_if<HoldingsObservation>(&input);
                                            if (o != nullptr && o->seat == kept.partner &&
                                                o->t >= covered_from && o->t < covered_until) {
                                              o->occluded = true;
                                            }
                                          }
                                        });
    EXPECT_TRUE(found(outcome, kept.incident())) << capture.ply << " dropped " << drop->ply;
    for (const Incident& got : outcome.incidents) {
      EXPECT_FALSE(got.type == IncidentType::kHiddenPiece && got.board == kept.partner.board &&
                   got.side == kept.partner.color)
          << capture.ply << ": " << got.detail;
    }
    return true;
  });
  EXPECT_EQ(runs, 3);
}
TEST(TrackerIncidents, HiddenPiece) {
  for (int ply = 10; ply < 40; ++ply) {
    const Outcome outcome = run_with(IncidentType::kHiddenPiece, ply);
    if (outcome.sim.incidents.empty()) continue;
    EXPECT_TRUE(found(outcome, outcome.sim.incidents[0]));
    // Counted whatever their types: the message says what was held and how many were seen.
    bool counted_message = false;
    for (const Incident& got : outcome.incidents) {
      counted_message =
          counted_message || (got.type == IncidentType::kHiddenPiece &&
                              got.detail.find("when this began") != std::string::npos);
    }
    EXPECT_TRUE(counted_message);
    return;
  }
  FAIL() << "no capture to inject into";
}
// A capture whose piece the partner hid at once, never seen in their area, then another
// capture by the same player whose piece lay there 2.5 s before its press (passed before the
// press, as players do): that piece is the later capture's, not the first one's come late
// (fresh 11352: 10b. Nxc3's knight seen 2.8 s before its press was taken for 7b. gxf6's, and
// a capture_not_passed was reported where White A hid the knight). Tried on the four
// such pairs of captures in the sample game.
TEST(TrackerIncidents, APiecePassedBeforeItsCapturesPressIsNotAnEarlierCaptureComeLate) {
  using bugcam::rules::PieceType;
  const bugcam::rules::BpgnGame& game = clean_run_games()[0];
  const bugcam::rules::Replay replay = bugcam::rules::replay(game);
  const SimulationOptions options = clean_run_options();
  const Outcome clean = run_tracker(game, options);
  const std::vector<TrackedMove>& truth = clean.sim.truth;
  ASSERT_LE(truth.size(), replay.plies.size());
  // What each ply passes to the partner (none if not a capture).
  const auto passed = [&](std::size_t k) { return piece_passed(replay.plies[k]); };
  int pairs = 0;
  int reported = 0;
  for (std::size_t first = 0; first < truth.size() && pairs < 4; ++first) {
    if (passed(first) == PieceType::kNone) continue;
    const TrackedMove& capture = truth[first];
    ASSERT_EQ(capture.san, replay.plies[first].san);
    // The capturer's next press on the board: the first capture's deadline.
    double deadline = -1.0;
    std::size_t second = first + 1;
    for (; second < truth.size(); ++second) {
      const TrackedMove& m = truth[second];
      if (m.board != capture.board || m.side != capture.side) continue;
      if (deadline < 0.0) deadline = m.t;
      if (passed(second) != PieceType::kNone) break;
    }
    if (second >= truth.size() || truth[second].t - 2.5 < deadline + 1.0 ||
        truth[second].t - capture.t > 20.0) {
      continue;
    }
    const TrackedMove& later = truth[second];
    const Seat partner = partner_of_mover(capture);
    const bool partner_drops = std::any_of(truth.begin(), truth.end(), [&](const TrackedMove& m) {
      return m.board == partner.board && m.side == partner.color && m.move.is_drop() &&
             m.t > capture.t && m.t < later.t + 3.0;
    });
    if (partner_drops) continue;
    ++pairs;
    const Outcome outcome = run_tracker(
        game, options, {}, std::nullopt,
        hidden_then_passed_early(partner, capture.t, passed(first), later.t, passed(second)));
    for (const Incident& got : outcome.incidents) {
      if (got.type == IncidentType::kCaptureNotPassed && got.board == capture.board &&
          got.side == capture.side && std::abs(got.t - capture.t) < 0.5) {
        ++reported;
      }
    }
  }
  ASSERT_EQ(pairs, 4);
  EXPECT_EQ(reported, 0);
}
// A capture, and the capturer's next move a capture of another type, in the sample games:
// up to `most` such pairs whose partner drops nothing from the first capture to 3 s after the
// second's press, the second pressed at least 3 s after the first.
struct CaptureThenCapture {
  const bugcam::rules::BpgnGame* game = nullptr;
  TrackedMove capture;
  TrackedMove next;
  bugcam::rules::PieceType kept = bugcam::rules::PieceType::kNone;   // what the first passes
  bugcam::rules::PieceType early = bugcam::rules::PieceType::kNone;  // and the second
  Seat partner;
};
std::vector<CaptureThenCapture> captures_then_capturers_next(std::size_t most) {
  using bugcam::rules::PieceType;
  std::vector<CaptureThenCapture> out;
  for (const bugcam::rules::BpgnGame& game : clean_run_games()) {
    if (out.size() >= most) break;
    const bugcam::rules::Replay replay = bugcam::rules::replay(game);
    const Simulation plain = simulate(game, clean_run_options(), [](const SimulatedInput&) {});
    const std::vector<TrackedMove>& truth = plain.truth;
    const auto passed = [&](std::size_t k) { return piece_passed(replay.plies[k]); };
    for (std::size_t first = 0; first < truth.size() && out.size() < most; ++first) {
      if (passed(first) == PieceType::kNone) continue;
      const TrackedMove& capture = truth[first];
      std::size_t next = first + 1;
      while (next < truth.size() &&
             !(truth[next].board == capture.board && truth[next].side == capture.side)) {
        ++next;
      }
      if (next >= truth.size() || passed(next) == PieceType::kNone ||
          passed(next) == passed(first) || truth[next].t - 2.0 < capture.t + 1.0) {
        continue;
      }
      const Seat partner = partner_of_mover(capture);
      const bool partner_drops = std::any_of(truth.begin(), truth.end(), [&](const TrackedMove& m) {
        return m.board == partner.board && m.side == partner.color && m.move.is_drop() &&
               m.t > capture.t && m.t < truth[next].t + 3.0;
      });
      if (partner_drops) continue;
      out.push_back({&game, capture, truth[next], passed(first), passed(next), partner});
    }
  }
  return out;
}

// The capture_not_passed reports of a clean run of `pair`'s game with vision's views edited.
int captures_not_passed(const CaptureThenCapture& pair,
                        const std::function<void(std::vector<SimulatedInput>&)>& edit) {
  const Outcome outcome = run_tracker(*pair.game, clean_run_options(), {}, std::nullopt, edit);
  int reports = 0;
  for (const Incident& got : outcome.incidents) {
    if (got.type != IncidentType::kCaptureNotPassed) continue;
    ++reports;
    std::cout << pair.capture.ply << " then " << pair.next.ply << ": " << got.detail << "\n";
  }
  return reports;
}

// A capture whose piece the capturer keeps until after their next move, that move itself a
// capture of another type whose piece they pass 2 s before pressing it (players pass before
// they press): the piece seen then is the second capture's, not the first's passed in time,
// and the first is still a capture not passed (fresh 11398: 5A. Ncxe4's knight passed after
// 6A. Nxf7, whose pawn lay in Black B's area 2.6 s before its press). Of six such pairs, how
// many find the first capture not passed, as vision reads the pieces (`misread`).
enum class KeptCaseMisread {
  kNone,
  kEarlyAlsoAsThirdType,  // the early piece is also read as a type neither capture's
  kKeptAsThirdType,       // the kept piece, once it comes, reads as a type neither capture's
};
int kept_captures_found(KeptCaseMisread misread) {
  using bugcam::rules::PieceType;
  const std::vector<CaptureThenCapture> pairs = captures_then_capturers_next(6);
  EXPECT_EQ(pairs.size(), 6u);
  int found_count = 0;
  for (const CaptureThenCapture& pair : pairs) {
    const double deadline = pair.next.t;
    // The first capture's piece shows 2 s after the deadline; the second's 2 s before it.
    const auto kept_and_early =
        piece_kept_and_piece_early(pair.partner, pair.kept, pair.capture.t + 0.6, deadline + 2.0,
                                   pair.early, deadline - 2.0, deadline + 0.6);
    PieceType third = PieceType::kPawn;
    for (const PieceType type : {PieceType::kBishop, PieceType::kRook, PieceType::kKnight}) {
      if (type != pair.kept && type != pair.early) {
        third = type;
        break;
      }
    }
    const auto edit = [&](std::vector<SimulatedInput>& inputs) {
      kept_and_early(inputs);
      for (SimulatedInput& input : inputs) {
        auto* o = std::get_if<HoldingsObservation>(&input);
        if (o == nullptr || !(o->seat == pair.partner)) continue;
        if (misread == KeptCaseMisread::kEarlyAlsoAsThirdType && o->t >= deadline - 2.0 &&
            o->t < deadline + 0.6) {
          ++o->visible[static_cast<std::size_t>(third)];
        }
        if (misread == KeptCaseMisread::kKeptAsThirdType && o->t >= deadline + 2.0) {
          read_as(*o, pair.kept, third);
        }
      }
    };
    const Outcome outcome = run_tracker(*pair.game, clean_run_options(), {}, std::nullopt, edit);
    const ExpectedIncident want{IncidentType::kCaptureNotPassed, pair.capture.board,
                                pair.capture.side, pair.capture.t};
    if (found(outcome, want)) ++found_count;
    for (const Incident& got : outcome.incidents) {
      std::cout << pair.capture.ply << " then " << pair.next.ply << ": " << incident_name(got.type)
                << " " << got.t << " " << got.detail << "\n";
    }
  }
  return found_count;
}
TEST(TrackerIncidents, ACapturesPiecePassedBeforeItsPressIsNotTheOneKeptBefore) {
  // 0 of 6 with the second's piece taken for the first's passed in time.
  EXPECT_GE(kept_captures_found(KeptCaseMisread::kNone), 6);
}
// ... also where vision finds the early piece plausible as a third type as well: a piece
// counts for every type it may be, so the types read account for more pieces than were
// counted, and only the pieces that cannot be of the kept one's type are sure to be others
// (clip 11470: 8B. Nxf7's pawn, passed before its press and read as a pawn or a bishop,
// was taken for 7B. Bxc6+'s knight passed in time).
TEST(TrackerIncidents, ACapturesPiecePassedBeforeItsPressReadAsTwoTypesIsNotTheOneKept) {
  // 0 of 6 with the types trusted only where they account for every piece and no more.
  EXPECT_GE(kept_captures_found(KeptCaseMisread::kEarlyAlsoAsThirdType), 6);
}
// ... also where the kept piece, once it comes, reads as a type neither capture's: the count,
// less the second's piece already there by the deadline, rises beyond what the history adds
// (held-out 11641: 12B. cxd5's knight, kept 54 s until after 13B. Nxd2, whose pawn lay in
// Black A's area 2 s before its press; the knight came reading as a bishop).
TEST(TrackerIncidents, ACaptureKeptIsFoundThoughItsPieceComesReadAsAnotherType) {
  // 0 of 6 with lateness after such a view told by the kept piece's type alone.
  EXPECT_GE(kept_captures_found(KeptCaseMisread::kKeptAsThirdType), 6);
}
// ... but not where the first capture's piece, passed just in time (2 s before the second's
// press), reads as the second's type for good: then the count rises by the second's piece,
// which the history adds too, and no type rises beyond it (from the review: 6 of 6 reported
// not passed with the count alone).
TEST(TrackerIncidents, ACapturesPiecePassedJustInTimeReadAsTheNextCapturesTypeIsPassed) {
  const std::vector<CaptureThenCapture> pairs = captures_then_capturers_next(6);
  ASSERT_EQ(pairs.size(), 6u);
  int not_passed = 0;
  for (const CaptureThenCapture& pair : pairs) {
    const double deadline = pair.next.t;
    const auto held_back = piece_kept_and_piece_early(pair.partner, pair.kept, pair.capture.t + 0.6,
                                                      deadline - 2.0, pair.early, 0.0, 0.0);
    const auto edit = [&](std::vector<SimulatedInput>& inputs) {
      held_back(inputs);
      for (SimulatedInput& input : inputs) {
        auto* o = std::get_if<HoldingsObservation>(&input);
        if (o != nullptr && o->seat == pair.partner && o->t >= deadline - 2.0) {
          read_as(*o, pair.kept, pair.early);
        }
      }
    };
    not_passed += captures_not_passed(pair, edit);
  }
  EXPECT_LE(not_passed, 1);
}
// ... but a first capture's piece passed in time and read as the second's type until that
// piece comes is mostly still passed. The views alone cannot tell the two apart (one piece of
// the second's type, then both); where the first's type then rises past what the history
// holds, it is taken for the first's piece come late (6B. Ncxe4's pawn, read as 7B's type).
TEST(TrackerIncidents, ACapturesPieceReadAsTheNextCapturesTypeIsPassed) {
  const std::vector<CaptureThenCapture> pairs = captures_then_capturers_next(6);
  ASSERT_EQ(pairs.size(), 6u);
  int not_passed = 0;
  for (const CaptureThenCapture& pair : pairs) {
    const auto edit = [&](std::vector<SimulatedInput>& inputs) {
      for (SimulatedInput& input : inputs) {
        auto* o = std::get_if<HoldingsObservation>(&input);
        if (o != nullptr && o->seat == pair.partner && o->t >= pair.capture.t + 0.6 &&
            o->t < pair.next.t + 0.6) {
          read_as(*o, pair.kept, pair.early);
        }
      }
    };
    not_passed += captures_not_passed(pair, edit);
  }
  EXPECT_LE(not_passed, 1);  // 0 with the count trusted over the types (and 11398 missed)
}
// A drop made without a press and recorded at the mover's late press: its piece left the
// holding area when it was made, not at that press, so the area short of it in between is
// no hidden piece (fresh 11377: 7B. P@g5 made at 51.4 s, pressed at 61.2 s). Each drop of
// the sample game made so, where the record stays right.
TEST(TrackerIncidents, ADropWithoutPressLeavesTheAreaShortOfNothingHidden) {
  const bugcam::rules::Replay replay = bugcam::rules::replay(clean_run_games()[0]);
  int runs = 0;
  int hidden = 0;
  for (std::size_t ply = 6; ply < 58; ++ply) {
    if (!replay.plies[ply].move.is_drop()) continue;
    SimulationOptions options = clean_run_options();
    options.injections = {{IncidentType::kMoveWithoutPress, static_cast<int>(ply), true}};
    const Outcome outcome = run_tracker(clean_run_games()[0], options);
    ASSERT_EQ(outcome.sim.incidents.size(), 1u) << "ply " << ply;
    // A track broken elsewhere (plies 45 and 46) tells nothing of this.
    if (outcome.right < static_cast<int>(outcome.sim.truth.size()) - 3) continue;
    ++runs;
    EXPECT_TRUE(found(outcome, outcome.sim.incidents.front())) << "ply " << ply;
    for (const Incident& got : outcome.incidents) {
      if (got.type == IncidentType::kHiddenPiece) {
        ++hidden;
        std::cout << "ply " << ply << ": " << got.detail << "\n";
      }
    }
  }
  EXPECT_EQ(runs, 8);
  // Five (plies 20, 28, 30, 43 and 54) where the history held the piece until the press.
  EXPECT_EQ(hidden, 0);
}
// A drop made without a press, and the mover's next move (the late press) another drop, with
// a capture by their partner between the two. Vision counts the pieces in the area but reads no
// types, so the second drop's piece was visible only by the count: the first drop's piece,
// held by the history until the late press, is not wanted there (development 11539: 7B. B@e5
// made at 54.9 s, recorded at 67.9 s with 8B. N@g5+, whose knight read as a bishop was
// reported hidden). The first 16 such pairs in the sample games: 4 report a hidden piece
// without the first drop's piece left out (over all 60, 13; with it, 1: game 52's 11a. N@c5).
TEST(TrackerIncidents, ADropsPieceCountedBesideAnUnpressedDropsIsNotHidden) {
  const std::vector<bugcam::rules::BpgnGame>& games = clean_run_games();
  int runs = 0;
  int hidden = 0;
  for (std::size_t g = 0; g < games.size() && runs < 16; ++g) {
    const bugcam::rules::Replay replay = bugcam::rules::replay(games[g]);
    for (std::size_t ply = 6; ply < replay.plies.size() && runs < 16; ++ply) {
      if (!replay.plies[ply].move.is_drop()) continue;
      SimulationOptions options = clean_run_options();
      options.injections = {{IncidentType::kMoveWithoutPress, static_cast<int>(ply), true}};
      const Simulation sim = simulate(games[g], options, [](const SimulatedInput&) {});
      if (sim.incidents.size() != 1) continue;
      const std::vector<TrackedMove> mover = unpressed_movers_moves(sim, sim.incidents.front(), 2);
      if (mover.size() < 2 || !mover[1].move.is_drop()) continue;
      // The second drop's piece came by a capture made after the first drop.
      const bool passed_after =
          std::any_of(sim.truth.begin(), sim.truth.end(), [&](const TrackedMove& m) {
            return m.board != mover[0].board && m.side != mover[0].side && m.t > mover[0].t &&
                   m.t < mover[1].t && m.san.find('x') != std::string::npos;
          });
      if (!passed_after) continue;
      const Seat seat{mover[0].board, mover[0].side};
      const auto types_unread = [&](std::vector<SimulatedInput>& inputs) {
        for (SimulatedInput& input : inputs) {
          auto* o = std::get_if<HoldingsObservation>(&input);
          if (o == nullptr || !(o->seat == seat) || o->t < mover[0].t || o->t > mover[1].t) {
            continue;
          }
          o->pieces = o->visible[0] + o->visible[1] + o->visible[2] + o->visible[3] + o->visible[4];
          o->visible = {};
        }
      };
      const Outcome outcome = run_tracker(games[g], options, {}, std::nullopt, types_unread);
      if (outcome.right < static_cast<int>(outcome.sim.truth.size()) - 3) continue;
      ++runs;
      for (const Incident& got : outcome.incidents) {
        if (got.type != IncidentType::kHiddenPiece) continue;
        ++hidden;
        std::cout << "game " << g << " ply " << ply << " then " << mover[1].ply << " "
                  << mover[1].san << ": " << got.detail << "\n";
      }
    }
  }
  EXPECT_EQ(runs, 16);
  EXPECT_EQ(hidden, 0);
}
// A player takes a piece in hand for a drop they press soon after, while a capture just
// pressed on the partner's board is still kept by the capturer: the area is short of the
// piece in hand, then of the captured one. The first is accounted for by the drop and the
// second is the capturer's, so neither is a hidden piece (fresh 11389: Black A's bishop
// taken at 68.9 s for 10a. B@g4, pressed at 70.67 s, and 8B. bxc3's knight, pressed at
// 70.62 s, kept until 77.8 s; one shortfall from 70.6 s was reported as a hidden piece).
// Each capture in the sample games whose receiver drops 0.3-3 s after its press, up to six.
TEST(TrackerIncidents, APieceTakenForADropThenACaptureKeptIsNoHiddenPiece) {
  const std::vector<bugcam::rules::BpgnGame>& games = clean_run_games();
  const SimulationOptions options = clean_run_options();
  int runs = 0;
  int hidden = 0;
  for (std::size_t g = 0; g < games.size() && runs < 6; ++g) {
    const bugcam::rules::Replay replay = bugcam::rules::replay(games[g]);
    const Simulation plain = simulate(games[g], options, [](const SimulatedInput&) {});
    const std::vector<TrackedMove>& truth = plain.truth;
    for (std::size_t c = 0; c < truth.size() && runs < 6; ++c) {
      const bugcam::rules::ReplayedPly& capture = replay.plies[c];
      ASSERT_EQ(capture.san, truth[c].san);
      const bugcam::rules::Piece taken = capture.before.piece_at(capture.move.to());
      if (capture.move.is_drop() || taken.empty() ||
          capture.before.is_promoted(capture.move.to())) {
        continue;
      }
      const Seat receiver{truth[c].board == BoardId::kA ? BoardId::kB : BoardId::kA,
                          !truth[c].side};
      std::size_t d = c + 1;
      while (d < truth.size() &&
             !(truth[d].board == receiver.board && truth[d].side == receiver.color)) {
        ++d;
      }
      if (d >= truth.size() || !truth[d].move.is_drop() || truth[d].t < truth[c].t + 0.3 ||
          truth[d].t > truth[c].t + 3.0) {
        continue;
      }
      ++runs;
      const double pressed = truth[c].t;
      const double dropped = truth[d].t;
      const auto in_hand_then_kept = [&](std::vector<SimulatedInput>& inputs) {
        for (SimulatedInput& input : inputs) {
          auto* o = std::get_if<HoldingsObservation>(&input);
          if (o == nullptr || !(o->seat == receiver)) continue;
          const auto remove = [&](bugcam::rules::PieceType type) {
            int& count = o->visible[static_cast<std::size_t>(type)];
            if (count == 0) return;
            --count;
            if (o->pieces) --*o->pieces;
          };
          if (o->t >= pressed - 0.1 && o->t < dropped) remove(truth[d].move.piece());
          if (o->t >= pressed && o->t < pressed + 6.0) remove(taken.type);
        }
      };
      const Outcome outcome = run_tracker(games[g], options, {}, std::nullopt, in_hand_then_kept);
      for (const Incident& got : outcome.incidents) {
        if (got.type != IncidentType::kHiddenPiece) continue;
        ++hidden;
        std::cout << "game " << g << " " << truth[c].ply << ": " << got.detail << "\n";
      }
    }
  }
  EXPECT_EQ(runs, 6);
  EXPECT_EQ(hidden, 0);
}
// A captured piece the partner hides at once and never shows, while a later capture's piece
// lies in their area from 2.5 s before its press (passed before the press): the area reads
// whole then, which ends the shortfall begun at the first capture while that capture's pass
// is still undecided. Decided never seen to arrive, its pass makes that shortfall and the
// next one a hidden piece (fresh 11388: 6A. Kxf2's knight hidden by Black B for 75 s, in two
// shortfalls closed before the pass was decided). Pairs of such captures in the sample games
// (same capturer, the second 4-20 s after the first, the first's type never dropped by the
// partner), up to eight.
TEST(TrackerIncidents, APieceHiddenAtOnceIsFoundAcrossShortfallsClosedBeforeItsPassIsDecided) {
  using bugcam::rules::PieceType;
  const SimulationOptions options = clean_run_options();
  int runs = 0;
  int found_count = 0;
  int hidden_reported = 0;
  for (const bugcam::rules::BpgnGame& game : clean_run_games()) {
    if (runs >= 8) break;
    const bugcam::rules::Replay replay = bugcam::rules::replay(game);
    const Simulation plain = simulate(game, options, [](const SimulatedInput&) {});
    const std::vector<TrackedMove>& truth = plain.truth;
    const auto passed = [&](std::size_t k) { return piece_passed(replay.plies[k]); };
    for (std::size_t first = 0; first < truth.size() && runs < 8; ++first) {
      if (passed(first) == PieceType::kNone) continue;
      const TrackedMove& capture = truth[first];
      const Seat partner = partner_of_mover(capture);
      const bool type_dropped = std::any_of(truth.begin(), truth.end(), [&](const TrackedMove& m) {
        return m.board == partner.board && m.side == partner.color && m.move.is_drop() &&
               m.move.piece() == passed(first) && m.t > capture.t;
      });
      if (type_dropped) continue;
      std::size_t second = first + 1;
      while (second < truth.size() &&
             !(truth[second].board == capture.board && truth[second].side == capture.side &&
               passed(second) != PieceType::kNone)) {
        ++second;
      }
      if (second >= truth.size() || truth[second].t < capture.t + 4.0 ||
          truth[second].t > capture.t + 20.0) {
        continue;
      }
      ++runs;
      const TrackedMove& later = truth[second];
      const Outcome outcome = run_tracker(
          game, options, {}, std::nullopt,
          hidden_then_passed_early(partner, capture.t, passed(first), later.t, passed(second)));
      const ExpectedIncident want{IncidentType::kHiddenPiece, partner.board, partner.color,
                                  capture.t + 0.6};
      if (found(outcome, want)) ++found_count;
      for (const Incident& got : outcome.incidents) {
        if (got.type == IncidentType::kHiddenPiece) ++hidden_reported;
        std::cout << capture.ply << ": " << incident_name(got.type) << " " << got.t << "-"
                  << got.t_end << " " << got.detail << "\n";
      }
    }
  }
  EXPECT_EQ(runs, 8);
  // 0 of 8 with the shortfalls taken for the capturer's part as they closed; the other five
  // have no shortfall long enough, or the pass taken for seen.
  EXPECT_GE(found_count, 3);
  EXPECT_EQ(hidden_reported, found_count);  // one incident each, where it belongs
}
// A piece lying in the partner's area that vision misses for six seconds (a pale piece on a
// pale table) is no hidden piece: a player hides a piece until they drop it, and a shortfall
// must last TrackerConfig::hidden_piece_seconds (held-out 11429: a pawn unseen for 3.7 s
// was reported at 3 s). Each capture in the first 60 plies of the sample game whose piece
// lies in the area 12 s or more.
TEST(TrackerIncidents, APieceUnseenForSixSecondsIsNoHiddenPiece) {
  const bugcam::rules::BpgnGame& game = clean_run_games()[0];
  const SimulationOptions options = clean_run_options();
  const Simulation plain = simulate(game, options, [](const SimulatedInput&) {});
  int runs = 0;
  int hidden = 0;
  for (const PieceLying& lying : pieces_lying(plain.truth, bugcam::rules::replay(game), 60, 12.0)) {
    const auto& [ply, type, partner, arrival, until] = lying;
    ++runs;
    const auto unseen = [&](std::vector<SimulatedInput>& inputs) {
      for (SimulatedInput& input : inputs) {
        auto* h = std::get_if<HoldingsObservation>(&input);
        if (h == nullptr || !(h->seat == partner) || h->t < arrival + 3.0 || h->t > arrival + 9.0 ||
            h->visible[static_cast<std::size_t>(type)] == 0) {
          continue;
        }
        --h->visible[static_cast<std::size_t>(type)];
        if (h->pieces) --*h->pieces;
      }
    };
    const Outcome outcome = run_tracker(game, options, {}, std::nullopt, unseen);
    for (const Incident& got : outcome.incidents) {
      if (got.type != IncidentType::kHiddenPiece) continue;
      ++hidden;
      std::cout << ply << ": " << got.t << "-" << got.t_end << " " << got.detail << "\n";
    }
  }
  EXPECT_GE(runs, 5);
  EXPECT_EQ(hidden, 0);
}

// A piece hidden twice for 10.6 s, counted in between for `seen_for` seconds, then a hand
// over the area: one hidden piece when the count in between was a miscount of a second
// (held-out 11460: a knight read as two split Black B's hidden pawn into two incidents), two
// when the piece was seen for 11 s. Each capture of the sample game whose piece lies in the
// partner's area long enough, taken by a hand 2 s after it came. Returns per run the hidden
// pieces reported, and whether one of them spans both stretches hidden.
struct HiddenAroundASighting {
  int reported = 0;
  bool spans_both = false;
};
std::vector<HiddenAroundASighting> hidden_pieces_around_a_sighting(double seen_for) {
  const bugcam::rules::BpgnGame& game = clean_run_games()[0];
  SimulationOptions options = clean_run_options();
  options.max_plies = -1;  // the whole game: few pieces lie 26 s in its first 60 plies
  const Simulation plain = simulate(game, options, [](const SimulatedInput&) {});
  const double seen_from = 13.0;
  const double hand_to = seen_from + seen_for + 0.4;
  const double hidden_to = hand_to + 10.6;
  std::vector<HiddenAroundASighting> runs;
  for (const PieceLying& lying : pieces_lying(plain.truth, bugcam::rules::replay(game),
                                              plain.truth.size(), hidden_to + 1.0)) {
    const auto& [ply, type, partner, arrival, until] = lying;
    const auto hidden_around_a_sighting = [&](std::vector<SimulatedInput>& inputs) {
      for (SimulatedInput& input : inputs) {
        auto* h = std::get_if<HoldingsObservation>(&input);
        if (h == nullptr || !(h->seat == partner)) continue;
        const double since = h->t - arrival;
        if ((since >= 2.0 && since < 2.4) || (since >= hand_to - 0.4 && since < hand_to)) {
          h->occluded = true;  // the hand that takes the piece; a hand after the sighting
          continue;
        }
        const bool hidden =
            (since >= 2.4 && since < seen_from) || (since >= hand_to && since < hidden_to);
        if (!hidden || h->visible[static_cast<std::size_t>(type)] == 0) continue;
        --h->visible[static_cast<std::size_t>(type)];
        if (h->pieces) --*h->pieces;
      }
    };
    const Outcome outcome = run_tracker(game, options, {}, std::nullopt, hidden_around_a_sighting);
    HiddenAroundASighting run;
    for (const Incident& got : outcome.incidents) {
      if (got.type != IncidentType::kHiddenPiece) continue;
      ++run.reported;
      run.spans_both =
          run.spans_both || (got.t < arrival + seen_from && got.t_end > arrival + hidden_to - 1.0);
      std::cout << ply << ": " << got.t << "-" << got.t_end << " " << got.detail << "\n";
    }
    runs.push_back(run);
  }
  return runs;
}
// How many of `runs` reported `count` hidden pieces.
std::ptrdiff_t reporting(const std::vector<HiddenAroundASighting>& runs, int count) {
  return std::count_if(runs.begin(), runs.end(),
                       [&](const HiddenAroundASighting& r) { return r.reported == count; });
}
TEST(TrackerIncidents, AHiddenPieceMiscountedForASecondIsOneIncident) {
  const std::vector<HiddenAroundASighting> runs = hidden_pieces_around_a_sighting(1.0);
  EXPECT_GE(runs.size(), 10u);
  // 4 of 16 with each hidden piece reported as its shortfall closes.
  EXPECT_EQ(reporting(runs, 1), std::ssize(runs));
  // From before the miscount to after the second stretch: 11 of 16. In four the first
  // shortfall is no hidden piece (the area in doubt, or the piece taken for a capture's on its
  // way) and the one reported is the second. In one (16A) the second is not reported: a hand
  // came over the area in it, passing another capture's piece (simulated since stop 79), and
  // what is short after a hand is another shortfall, begun as a capture's piece was on its way.
  EXPECT_GE(std::count_if(runs.begin(), runs.end(),
                          [](const HiddenAroundASighting& r) { return r.spans_both; }),
            std::ssize(runs) - 5);
}
// Guards the other way: a piece seen whole for longer than kHiddenPieceSeenAgainSeconds ends
// the hidden piece kept back, and the next is another.
TEST(TrackerIncidents, AHiddenPieceSeenAgainForElevenSecondsThenHiddenAgainIsTwoIncidents) {
  const std::vector<HiddenAroundASighting> runs = hidden_pieces_around_a_sighting(11.0);
  EXPECT_GE(runs.size(), 10u);
  // 7 of 10 (none if the hidden piece were kept back to the end). In the others the first
  // shortfall is no hidden piece (the area in doubt, or the piece taken for a capture's on its
  // way), or the area was not seen whole for the 11 s (a drop's piece taken in hand before its
  // press).
  EXPECT_GE(reporting(runs, 2), std::ssize(runs) - 3);
}
// The capture that gave the piece of `truth[d]`, a drop: the partner's latest of its type
// before it.
std::optional<std::size_t> capture_giving(const std::vector<TrackedMove>& truth,
                                          const bugcam::rules::Replay& replay, std::size_t d) {
  const TrackedMove& drop = truth[d];
  std::optional<std::size_t> given;
  for (std::size_t k = 0; k < d; ++k) {
    const Seat partner = partner_of_mover(truth[k]);
    if (partner.board == drop.board && partner.color == drop.side &&
        piece_passed(replay.plies[k]) == drop.move.piece()) {
      given = k;
    }
  }
  return given;
}

// The hidden pieces `outcome` reports, each printed with game `g`'s drop `drop` it follows.
int hidden_pieces_reported(const Outcome& outcome, std::size_t g, const TrackedMove& drop) {
  int hidden = 0;
  for (const Incident& got : outcome.incidents) {
    if (got.type != IncidentType::kHiddenPiece) continue;
    ++hidden;
    std::cout << "game " << g << " " << drop.ply << " " << drop.san << ": " << got.t << "-"
              << got.t_end << " " << got.detail << "\n";
  }
  return hidden;
}

// A piece taken in hand as it came and dropped at once, the drop made without a press and
// recorded at the mover's press after their next move (held-out 11476: 10B. P@e4, 0.1 s
// after 7a. hxg2+ gave the pawn, recorded 8 s later): the drop is checked as made, when the
// grab was, and is no hidden piece (5 of 19 were, checked as made at the press). Each drop of
// the first six sample games made within 3 s of the capture that gave its piece, never seen
// lying in the area, a hand over it meanwhile.
TEST(TrackerIncidents, ADropMadeAtOnceWithoutAPressIsNoHiddenPiece) {
  int runs = 0;
  int hidden = 0;
  for (std::size_t g = 0; g < 6 && g < clean_run_games().size(); ++g) {
    const bugcam::rules::BpgnGame& game = clean_run_games()[g];
    const bugcam::rules::Replay replay = bugcam::rules::replay(game);
    SimulationOptions options = clean_run_options();
    options.max_plies = -1;
    const Simulation plain = simulate(game, options, [](const SimulatedInput&) {});
    const std::vector<TrackedMove>& truth = plain.truth;
    for (std::size_t d = 0; d < truth.size(); ++d) {
      const TrackedMove& drop = truth[d];
      if (!drop.move.is_drop()) continue;
      const std::optional<std::size_t> given = capture_giving(truth, replay, d);
      if (!given || drop.t - truth[*given].t > 3.0) continue;
      const double captured = truth[*given].t;
      SimulationOptions unpressed = options;
      unpressed.injections = {{IncidentType::kMoveWithoutPress, static_cast<int>(d), true}};
      const Seat dropper{drop.board, drop.side};
      const auto grabbed_as_it_came = [&](std::vector<SimulatedInput>& inputs) {
        for (SimulatedInput& input : inputs) {
          auto* h = std::get_if<HoldingsObservation>(&input);
          if (h == nullptr || !(h->seat == dropper) || h->t < captured || h->t > drop.t) continue;
          if (h->t < captured + 1.0) {
            h->occluded = true;
            continue;
          }
          int& count = h->visible[static_cast<std::size_t>(drop.move.piece())];
          if (count > 0) {
            --count;
            if (h->pieces) --*h->pieces;
          }
        }
      };
      const Outcome outcome = run_tracker(game, unpressed, {}, std::nullopt, grabbed_as_it_came);
      if (outcome.sim.incidents.empty()) continue;
      ++runs;
      hidden += hidden_pieces_reported(outcome, g, drop);
    }
  }
  EXPECT_GE(runs, 10);
  EXPECT_EQ(hidden, 0);
}
// A capture's piece passed before its press, counted in the partner's area, then taken in
// hand with no hand seen and dropped within 3 s of the press (as held-out 11572's 6b. P@h3,
// 0.1 s after 10A. Qxf3's press, whose pawn was passed 3 s before it) was visible: no hidden
// piece.
TEST(TrackerIncidents, APiecePassedBeforeItsCapturesPressAndTakenUnseenWasVisible) {
  int runs = 0;
  int hidden = 0;
  int hidden_unseen = 0;  // the same runs, the piece never shown before the press
  for (std::size_t g = 0; g < 12 && g < clean_run_games().size(); ++g) {
    const bugcam::rules::BpgnGame& game = clean_run_games()[g];
    const bugcam::rules::Replay replay = bugcam::rules::replay(game);
    SimulationOptions options = clean_run_options();
    options.max_plies = -1;
    const std::vector<TrackedMove>& truth =
        simulate(game, options, [](const SimulatedInput&) {}).truth;
    for (std::size_t d = 0; d < truth.size(); ++d) {
      const TrackedMove& drop = truth[d];
      if (!drop.move.is_drop()) continue;
      const std::optional<std::size_t> given = capture_giving(truth, replay, d);
      if (!given || drop.t - truth[*given].t > 3.0) continue;
      const double passed = truth[*given].t - 2.5;
      const double taken = truth[*given].t - 0.6;
      const Seat dropper{drop.board, drop.side};
      // Nothing else comes to or leaves the area meanwhile: its views from the piece's taking
      // to the drop are those before the pass.
      bool busy = false;
      for (std::size_t k = 0; k < truth.size() && !busy; ++k) {
        const TrackedMove& m = truth[k];
        const bool gives = partner_of_mover(m) == dropper &&
                           piece_passed(replay.plies[k]) != bugcam::rules::PieceType::kNone;
        const bool takes = Seat{m.board, m.side} == dropper && m.move.is_drop();
        busy =
            k != *given && k != d && (gives || takes) && m.t > passed - 3.0 && m.t < drop.t + 1.0;
      }
      if (busy) continue;
      const std::size_t type = static_cast<std::size_t>(drop.move.piece());
      // Whether views were edited before the taking and after it.
      std::array<bool, 2> edited{};
      const auto taken_unseen = [&](bool shown_first) {
        return [&, shown_first](std::vector<SimulatedInput>& inputs) {
          std::optional<HoldingsObservation> before;  // the area's last view before the pass
          for (SimulatedInput& input : inputs) {
            auto* h = std::get_if<HoldingsObservation>(&input);
            if (h == nullptr || !(h->seat == dropper) || h->t >= drop.t) continue;
            if (h->t < passed) {
              if (!h->occluded) before = *h;
              continue;
            }
            if (!before) return;
            const double t = h->t;
            *h = *before;
            h->t = t;
            edited[t < taken ? 0 : 1] = true;
            if (t < taken && shown_first) {
              ++h->visible[type];
              if (h->pieces) ++*h->pieces;
            }
          }
        };
      };
      const Outcome outcome = run_tracker(game, options, {}, std::nullopt, taken_unseen(true));
      if (!edited[0] || !edited[1]) continue;
      ++runs;
      hidden += hidden_pieces_reported(outcome, g, drop);
      hidden_unseen += hidden_pieces_reported(
          run_tracker(game, options, {}, std::nullopt, taken_unseen(false)), g, drop);
    }
  }
  EXPECT_GE(runs, 10);
  EXPECT_EQ(hidden, 0);
  // Never shown before the press, the piece was hidden: the runs reach the check (13 of 25).
  EXPECT_GE(hidden_unseen, 10) << runs << " runs";
}
// A hidden piece that some views still count (vision miscounting) is one hidden piece, not
// one per run of views without it.
TEST(TrackerIncidents, HiddenPieceGlimpsedIsOneIncident) {
  for (int ply = 10; ply < 40; ++ply) {
    SimulationOptions options = clean_run_options();
    options.injections = {{IncidentType::kHiddenPiece, ply}};
    options.holdings_hz = 30.0;
    options.holdings_hidden_glimpse_every = 45;  // one view in 1.5 s
    const Outcome outcome = run_tracker(clean_run_games()[0], options);
    if (outcome.sim.incidents.empty()) continue;
    EXPECT_TRUE(found(outcome, outcome.sim.incidents[0]));
    int hidden = 0;
    for (const Incident& got : outcome.incidents) {
      hidden += got.type == IncidentType::kHiddenPiece ? 1 : 0;
    }
    EXPECT_EQ(hidden, 1);
    return;
  }
  FAIL() << "no capture to inject into";
}
// Vision loses sight of a held piece for six seconds (a pale piece on a pale table, held-out
// 10807 and 10801), with no hand over the area before or during: nothing left the area, so
// nothing was hidden (before, a hidden_piece was reported for each such miss).
TEST(TrackerIncidents, APieceVisionStopsCountingWithNoHandIsNotHidden) {
  int missed = 0;
  const auto edit = [&](std::vector<SimulatedInput>& inputs) {
    for (int seat = 0; seat < 4; ++seat) {
      std::vector<HoldingsObservation*> views;
      for (SimulatedInput& input : inputs) {
        auto* o = std::get_if<HoldingsObservation>(&input);
        if (o != nullptr && o->seat.board == static_cast<BoardId>(seat / 2) &&
            o->seat.color == (seat % 2 == 0 ? Color::kWhite : Color::kBlack)) {
          views.push_back(o);
        }
      }
      // The first eight seconds of views, all uncovered and with a piece counted, after two
      // such seconds: the last six lose one piece.
      for (std::size_t i = 0; i < views.size(); ++i) {
        const double t0 = views[i]->t;
        std::size_t end = i;
        while (end < views.size() && views[end]->t < t0 + 8.0 && !views[end]->occluded &&
               views[end]->pieces.value_or(0) >= 1) {
          ++end;
        }
        if (end == views.size() || views[end]->t < t0 + 8.0) continue;
        for (std::size_t j = i; j < end; ++j) {
          if (views[j]->t < t0 + 2.0) continue;
          *views[j]->pieces -= 1;
          for (int& v : views[j]->visible) {
            if (v > 0) {
              --v;
              break;
            }
          }
        }
        ++missed;
        break;
      }
    }
  };
  const Outcome outcome =
      run_tracker(clean_run_games()[0], clean_run_options(), {}, std::nullopt, edit);
  EXPECT_GE(missed, 2);
  for (const Incident& got : outcome.incidents) {
    EXPECT_NE(got.type, IncidentType::kHiddenPiece) << got.t << ": " << got.detail;
  }
}
// Footage that ends a few moves after a drop whose square nothing shows (an arm over the
// board, the piece read as the empty squares read): drops onto other squares fit as well, and
// its press is still uncommitted when the last press is read at the end. The areas' views
// after that press are weighed against what the seats held once it is committed, not before
// (held-out 10807: Black A's N@d4 waited until the end, and the knight was taken for hidden
// from the press on; here White A's pawn and bishop after N@e6).
TEST(TrackerIncidents, AnAreaAfterADropCommittedOnlyAtTheEndIsNotShortOfIt) {
  const bugcam::rules::BpgnGame& game = clean_run_games()[0];
  const bugcam::rules::Replay replay = bugcam::rules::replay(game);
  int drops = 0;
  for (std::size_t i = 10; i < replay.plies.size() && drops < 4; ++i) {
    const bugcam::rules::Move drop = replay.plies[i].move;
    if (!drop.is_drop()) continue;
    ++drops;
    SimulationOptions options = clean_run_options();
    options.misread = 0.0;
    options.max_plies = static_cast<int>(i) + 5;
    const bugcam::rules::Position& before = replay.plies[i].before;
    const BoardId board = replay.plies[i].board;
    const auto edit = [&](std::vector<SimulatedInput>& inputs) {
      std::vector<double> presses;
      for (const SimulatedInput& input : inputs) {
        if (const auto* e = std::get_if<ClockEvent>(&input);
            e != nullptr && e->kind == ClockEvent::Kind::kPress) {
          presses.push_back(e->t);
        }
      }
      const double dropped = presses.at(i);
      for (SimulatedInput& input : inputs) {
        auto* o = std::get_if<BoardObservation>(&input);
        if (o == nullptr || o->board != board || o->t < dropped - 1.0) continue;
        show_drop_as_nothing(*o, before, drop.to(), dropped);
      }
      // The footage ends just after the last press, before that press is read.
      std::erase_if(inputs, [&](const SimulatedInput& input) {
        return std::visit([&](const auto& item) { return item.t > presses.back() + 0.3; }, input);
      });
    };
    const Outcome outcome = run_tracker(game, options, {}, std::nullopt, edit);
    for (const Incident& got : outcome.incidents) {
      EXPECT_NE(got.type, IncidentType::kHiddenPiece)
          << "ending after " << replay.plies[i].san << ": " << got.t << ": " << got.detail;
    }
  }
  EXPECT_EQ(drops, 4);
}
// After a resync (an illegal move here) what was captured and dropped is in doubt, and so is
// what each seat holds, until its area is seen whole again: areas that read one piece short
// from then on, a hand passing over them first, are no hidden pieces (held-out 11200: board
// A's track lost, and White B taken for hiding a piece).
TEST(TrackerIncidents, AreasShortAfterAResyncAreNoHiddenPieces) {
  SimulationOptions options = clean_run_options();
  options.injections = {{IncidentType::kIllegalMove, 24}};
  const Outcome clean = run_tracker(clean_run_games()[0], options);
  ASSERT_FALSE(clean.sim.incidents.empty());
  // The resync's press: the illegal move's, as committed.
  const auto illegal = std::find_if(clean.committed.begin(), clean.committed.end(),
                                    [](const TrackedMove& m) { return m.illegal; });
  ASSERT_NE(illegal, clean.committed.end());
  const double resync = illegal->t;
  int short_views = 0;
  const auto edit = [&](std::vector<SimulatedInput>& inputs) {
    for (SimulatedInput& input : inputs) {
      auto* o = std::get_if<HoldingsObservation>(&input);
      if (o == nullptr || o->t < resync || o->t > resync + 6.0) continue;
      if (o->t < resync + 0.2) {
        o->occluded = true;
      } else if (!o->occluded && o->pieces.value_or(0) >= 1) {
        *o->pieces -= 1;
        ++short_views;
      }
    }
  };
  const Outcome outcome = run_tracker(clean_run_games()[0], options, {}, std::nullopt, edit);
  EXPECT_GE(short_views, 20);
  EXPECT_TRUE(found(outcome, clean.sim.incidents[0]));
  for (const Incident& got : outcome.incidents) {
    EXPECT_NE(got.type, IncidentType::kHiddenPiece) << got.t << ": " << got.detail;
  }
}
// Holding areas whose pieces vision does not count (types only): found by type.
TEST(TrackerIncidents, HiddenPieceByTypeAlone) {
  for (int ply = 10; ply < 40; ++ply) {
    const std::vector<bugcam::rules::BpgnGame>& games = clean_run_games();
    SimulationOptions options = clean_run_options();
    options.injections = {{IncidentType::kHiddenPiece, ply}};
    options.holdings_counted = false;
    const Outcome outcome = run_tracker(games[0], options);
    if (outcome.sim.incidents.empty()) continue;
    EXPECT_TRUE(found(outcome, outcome.sim.incidents[0]));
    EXPECT_LE(outcome.incidents.size(), 2u);
    for (const Incident& got : outcome.incidents) {
      EXPECT_EQ(got.detail.find("when this began"), std::string::npos) << got.detail;
    }
    return;
  }
  FAIL() << "no capture to inject into";
}
TEST(TrackerIncidents, Premove) {
  expect_found(IncidentType::kPremove, 23);
}
// Without knowing whose hand is over the board, the opponent's press already shows the
// premove made; it is recorded at the premover's own press, as a premove.
TEST(TrackerIncidents, PremoveWithoutHandsAttributed) {
  expect_found(IncidentType::kPremove, 23, false);
  const Outcome outcome = run_with(IncidentType::kPremove, 23, false);
  EXPECT_TRUE(outcome.exact);
}
// The square a premove emptied may go on reading its piece until after the opponent's press
// (the opponent's arm reaching for the clock past it, incident clip 9101): the premove is
// still seen made before the press, from the square it landed on.
TEST(TrackerIncidents, PremoveWhoseFromSquareReadsLate) {
  const Outcome plain = run_with(IncidentType::kPremove, 23, false);
  ASSERT_EQ(plain.sim.incidents.size(), 1u);
  const ExpectedIncident want = plain.sim.incidents.front();
  // The premove: the premover's first move after it began; the opponent's press before it.
  const TrackedMove* premove = nullptr;
  for (const TrackedMove& m : plain.sim.truth) {
    if (m.board == want.board && m.side == want.side && m.t > want.t) {
      premove = &m;
      break;
    }
  }
  ASSERT_NE(premove, nullptr);
  ASSERT_FALSE(premove->move.is_drop());
  const bugcam::rules::Square from = premove->move.from();
  const float was_white = want.side == bugcam::rules::Color::kWhite ? 1.0f : 0.0f;
  double opponent_press = 0.0;
  const auto edit = [&](std::vector<SimulatedInput>& inputs) {
    for (const SimulatedInput& input : inputs) {
      const auto* e = std::get_if<ClockEvent>(&input);
      if (e && e->kind == ClockEvent::Kind::kPress && e->board == want.board &&
          e->side != want.side && e->t < premove->t) {
        opponent_press = e->t;
      }
    }
    for (SimulatedInput& input : inputs) {
      auto* o = std::get_if<BoardObservation>(&input);
      if (o == nullptr || o->board != want.board || o->t < want.t - 0.5 ||
          o->t > opponent_press + 0.1) {
        continue;
      }
      o->squares[static_cast<std::size_t>(from)] = {0.0f, was_white, 1.0f - was_white, false};
    }
  };
  SimulationOptions options = clean_run_options();
  options.injections = {{IncidentType::kPremove, 23}};
  options.attribute_hands = false;
  const Outcome outcome = run_tracker(clean_run_games()[0], options, {}, std::nullopt, edit);
  ASSERT_GT(opponent_press, want.t);  // the edit changed something
  EXPECT_TRUE(found(outcome, want));
  EXPECT_TRUE(outcome.exact);
}
// A ply of a sample game (`answer`, the `index`-th) and the ply before it on its board.
struct Answered {
  std::size_t game = 0;  // in clean_run_games()
  std::size_t index = 0;
  bugcam::rules::ReplayedPly first;
  bugcam::rules::ReplayedPly answer;
};

// The first `most` plies 4-57 of the sample games, in order, with a ply before them on their
// board, that `wanted(first, answer)` accepts.
std::vector<Answered> answers_in_sample_games(
    std::size_t most,
    const std::function<bool(const bugcam::rules::ReplayedPly&, const bugcam::rules::ReplayedPly&)>&
        wanted) {
  const std::vector<bugcam::rules::BpgnGame>& games = clean_run_games();
  std::vector<Answered> out;
  for (std::size_t g = 0; g < games.size() && out.size() < most; ++g) {
    const bugcam::rules::Replay replay = bugcam::rules::replay(games[g]);
    for (std::size_t i = 4; i < 58 && i < replay.plies.size() && out.size() < most; ++i) {
      const bugcam::rules::ReplayedPly& answer = replay.plies[i];
      for (std::size_t j = i; j > 0; --j) {
        const bugcam::rules::ReplayedPly& first = replay.plies[j - 1];
        if (first.board != answer.board) continue;
        if (wanted(first, answer)) out.push_back({g, i, first, answer});
        break;
      }
    }
  }
  return out;
}

// When the simulation of `game` with `options` presses the clock for `ply`.
double press_of(const bugcam::rules::BpgnGame& game, const SimulationOptions& options,
                const bugcam::rules::ReplayedPly& ply) {
  const std::string label =
      ply_label(ply.board, ply.before.side_to_move(), ply.before.fullmove_number());
  double press = 0.0;
  for (const TrackedMove& m : simulate(game, options, [](const SimulatedInput&) {}).truth) {
    if (m.ply == label) press = m.t;
  }
  return press;
}

// The first press on `board` after `t` in `inputs`, if any (else infinity).
double next_press_on(const std::vector<SimulatedInput>& inputs, BoardId board, double t) {
  double next = std::numeric_limits<double>::infinity();
  for (const SimulatedInput& input : inputs) {
    const auto* e = std::get_if<ClockEvent>(&input);
    if (e && e->kind == ClockEvent::Kind::kPress && e->board == board && e->t > t) {
      next = std::min(next, e->t);
    }
  }
  return next;
}

// A plain move under the mover's hand until after its press, answered by a drop made
// before that press (fresh 11378: 7B. Bd2 under White's arm, then 7b. P@d4, pressed 0.12 s
// after White's press). At the press nothing shows the move, and the mover's drops onto its
// square, one per type held, rank above it (a drop changes one unseen square, a move two):
// they must not take every place the premove has. Tried on the first 25 such answers (a
// drop answering a plain move by a player holding two types) of the sample games, the
// move's squares covered until the answer's press.
TEST(TrackerIncidents, PremoveAfterAMoveHiddenUntilTheAnswersPress) {
  using bugcam::rules::ReplayedPly;
  const std::vector<Answered> answers =
      answers_in_sample_games(25, [](const ReplayedPly& first, const ReplayedPly& answer) {
        if (!answer.move.is_drop() || first.move.kind() != bugcam::rules::Move::Kind::kNormal ||
            !first.before.piece_at(first.move.to()).empty()) {
          return false;
        }
        return types_held_before(first) >= 2;
      });
  ASSERT_EQ(answers.size(), 25u);
  int exact = 0;
  int premoves_found = 0;
  for (const Answered& a : answers) {
    const bugcam::rules::BpgnGame& game = clean_run_games()[a.game];
    SimulationOptions options = clean_run_options();
    options.injections = {{IncidentType::kPremove, static_cast<int>(a.index)}};
    options.attribute_hands = false;
    // The first move's press, as the simulation delays it for the premove.
    const double press = press_of(game, options, a.first);
    const auto cover = [&](std::vector<SimulatedInput>& inputs) {
      const double answer_press = next_press_on(inputs, a.first.board, press);
      for (SimulatedInput& input : inputs) {
        auto* o = std::get_if<BoardObservation>(&input);
        if (o == nullptr || o->board != a.first.board || o->t < press - 2.2 ||
            o->t > answer_press - 0.05) {
          continue;
        }
        for (const bugcam::rules::Square s : {a.first.move.from(), a.first.move.to()}) {
          o->squares[static_cast<std::size_t>(s)].occluded = true;
        }
      }
    };
    const Outcome outcome = run_tracker(game, options, {}, std::nullopt, cover);
    EXPECT_GT(press, 0.0) << "game " << a.game << " ply " << a.index;
    if (outcome.exact) ++exact;
    for (const ExpectedIncident& want : outcome.sim.incidents) {
      if (want.type == IncidentType::kPremove && found(outcome, want)) ++premoves_found;
    }
  }
  // 12 exact and 16 premoves found with the drops filling the places; 17 and 19 without.
  EXPECT_GE(exact, 16);
  EXPECT_GE(premoves_found, 18);
}
// A drop by a player holding two types or more, made as a premove, whose holding area then
// reads one of its pieces as possibly of a type the player holds none of: the types read
// account for more pieces than were counted, and each type's count is only the most there
// can be, which still tells the type that went (clip 11459: 5b. N@e4 tied with P@e4, the
// area after it one piece read as a pawn or a bishop, and no knight). The simulation makes
// the premove under the hand, so it is recorded at the dropper's own press (11459's, seen
// made before the opponent's press, is completed by it: the same term is added there).
// Tried on the first 20 such drops of the sample games, with and without the misreading.
TEST(TrackerIncidents, ADropsTypeIsToldByAHoldingAreaReadAsMoreTypesThanPieces) {
  using bugcam::rules::PieceType;
  using bugcam::rules::ReplayedPly;
  const std::vector<Answered> answers =
      answers_in_sample_games(20, [](const ReplayedPly&, const ReplayedPly& answer) {
        return answer.move.is_drop() && types_held_before(answer) >= 2;
      });
  ASSERT_EQ(answers.size(), 20u);
  for (const bool second_type : {false, true}) {
    int right = 0;
    for (const Answered& a : answers) {
      const bugcam::rules::BpgnGame& game = clean_run_games()[a.game];
      SimulationOptions options = clean_run_options();
      options.injections = {{IncidentType::kPremove, static_cast<int>(a.index)}};
      const Seat dropper{a.answer.board, a.answer.before.side_to_move()};
      const double press = press_of(game, options, a.answer);
      // A type the dropper holds none of, read for one of the pieces there as well.
      std::optional<PieceType> unheld;
      for (const PieceType t : {PieceType::kQueen, PieceType::kRook, PieceType::kBishop,
                                PieceType::kKnight, PieceType::kPawn}) {
        if (a.answer.before.holding(dropper.color, t) == 0) {
          unheld = t;
          break;
        }
      }
      ASSERT_TRUE(unheld) << "game " << a.game << " ply " << a.index << ": every type held";
      const auto edit = [&](std::vector<SimulatedInput>& inputs) {
        if (!second_type) return;
        for (SimulatedInput& input : inputs) {
          auto* o = std::get_if<HoldingsObservation>(&input);
          if (o != nullptr && o->seat == dropper && o->t > press - 3.0 && o->t < press + 2.0 &&
              o->pieces && *o->pieces > 0) {
            ++o->visible[static_cast<std::size_t>(*unheld)];
          }
        }
      };
      const Outcome outcome = run_tracker(game, options, {}, std::nullopt, edit);
      const std::string label =
          ply_label(a.answer.board, dropper.color, a.answer.before.fullmove_number());
      const std::string san =
          bugcam::rules::to_san(a.answer.before, a.answer.move, bugcam::rules::otb_rules());
      const bool drop_right =
          std::any_of(outcome.committed.begin(), outcome.committed.end(),
                      [&](const TrackedMove& got) { return got.ply == label && got.san == san; });
      if (drop_right) ++right;
      bool premove_found = false;
      for (const ExpectedIncident& want : outcome.sim.incidents) {
        premove_found =
            premove_found || (want.type == IncidentType::kPremove && found(outcome, want));
      }
      std::cout << (second_type ? "read as two types, " : "") << "game " << a.game << " " << label
                << " " << san << (drop_right ? " right" : " wrong")
                << (premove_found ? ", premove found" : "") << "\n";
    }
    // 20 and 16 of 20 with such a reading taken as telling nothing.
    EXPECT_GE(right, 19) << (second_type ? "with a piece read as two types" : "");
  }
}

// How many king's steps apart squares `a` and `b` are.
int squares_apart(bugcam::rules::Square a, bugcam::rules::Square b) {
  return std::max(std::abs(bugcam::rules::file_of(a) - bugcam::rules::file_of(b)),
                  std::abs(bugcam::rules::rank_of(a) - bugcam::rules::rank_of(b)));
}

// A plain move under the mover's hand from before its press until after the next press on
// its board (held-out 11396: 6a. Ne5, answered 0.19 s later by the premove 7A. dxe6; c6 and
// e5 covered until then), the mover's holding area hidden meanwhile, and the arm passing
// over the empty squares around the move's square before it. Nothing read at the press tells
// the move from a drop onto a square the arm passed (read as before, as unlikely as two
// squares unread), and the drops, kept first for their types, took every place the tie had
// (TiePlaces). Tried on the first 25 such moves (a plain answer away from the
// move's squares, the mover holding a piece) of the sample games, answered at their own pace
// and as premoves.
TEST(TrackerIncidents, MoveCoveredUntilAfterTheNextPressOnItsBoard) {
  using bugcam::rules::ReplayedPly;
  using bugcam::rules::Square;
  const std::vector<Answered> answers =
      answers_in_sample_games(25, [](const ReplayedPly& first, const ReplayedPly& answer) {
        if (first.move.kind() != bugcam::rules::Move::Kind::kNormal ||
            !first.before.piece_at(first.move.to()).empty() ||
            answer.move.kind() != bugcam::rules::Move::Kind::kNormal) {
          return false;
        }
        for (const Square s : {first.move.from(), first.move.to()}) {
          if (squares_apart(answer.move.from(), s) < 2 || squares_apart(answer.move.to(), s) < 2) {
            return false;
          }
        }
        int held = 0;
        for (int t = 0; t < 5; ++t) {
          held += first.before.holding(first.before.side_to_move(),
                                       static_cast<bugcam::rules::PieceType>(t));
        }
        return held > 0;
      });
  ASSERT_EQ(answers.size(), 25u);
  for (const bool premove : {false, true}) {
    int exact = 0;
    for (const Answered& a : answers) {
      const bugcam::rules::BpgnGame& game = clean_run_games()[a.game];
      const ReplayedPly& first = a.first;
      const Seat mover{first.board, first.before.side_to_move()};
      SimulationOptions options = clean_run_options();
      if (premove) options.injections = {{IncidentType::kPremove, static_cast<int>(a.index)}};
      options.attribute_hands = false;
      const double press = press_of(game, options, first);
      const auto cover = [&](std::vector<SimulatedInput>& inputs) {
        const double next_press = next_press_on(inputs, first.board, press);
        for (SimulatedInput& input : inputs) {
          if (auto* h = std::get_if<HoldingsObservation>(&input);
              h != nullptr && h->seat == mover && h->t >= press - 2.2 && h->t <= next_press + 0.3) {
            h->occluded = true;
          }
          auto* o = std::get_if<BoardObservation>(&input);
          if (o == nullptr || o->board != first.board || o->t < press - 2.2 ||
              o->t > next_press + 0.3) {
            continue;
          }
          if (o->t > press - 0.9 && o->t < press - 0.75) {  // the arm passing
            for (int s = 0; s < 64; ++s) {
              const auto square = static_cast<Square>(s);
              if (first.before.piece_at(square).empty() &&
                  squares_apart(square, first.move.to()) <= 2) {
                o->squares[static_cast<std::size_t>(s)].occluded = true;
              }
            }
          }
          for (const Square s : {first.move.from(), first.move.to()}) {
            o->squares[static_cast<std::size_t>(s)].occluded = true;
          }
        }
      };
      const Outcome outcome = run_tracker(game, options, {}, std::nullopt, cover);
      EXPECT_GT(press, 0.0) << "game " << a.game << " ply " << a.index;
      if (outcome.exact) ++exact;
    }
    // With the places taken first come: 15 exact, and 18 answered as premoves; now 24 and 22.
    EXPECT_GE(exact, premove ? 21 : 23) << (premove ? "premoves" : "answers at their pace");
  }
}
// A knight's move whose square reads empty, the hand over it unseen, until the knight moves
// on (held-out 11417: 18A. Ne6+, the knight on e6 read empty, then 19A. Nxc5): every move of
// the knight to an empty square fits as well, and ties (TiePlaces). The knight's next move
// tells them apart, if the right one is still in the beam. Tried on the first 25 quiet knight
// moves of plies 4-57 of the sample games whose knight has four or more such squares and
// moves on from there within 8 plies.
TEST(TrackerIncidents, KnightMoveReadEmptyWhereItLandsUntilItMovesOn) {
  using bugcam::rules::Square;
  struct Unseen {
    std::size_t game = 0;
    bugcam::rules::ReplayedPly move;
    bugcam::rules::ReplayedPly next;  // the knight's next move
  };
  std::vector<Unseen> cases;
  const std::vector<bugcam::rules::BpgnGame>& games = clean_run_games();
  for (std::size_t g = 0; g < games.size() && cases.size() < 25; ++g) {
    const bugcam::rules::Replay replay = bugcam::rules::replay(games[g]);
    for (std::size_t i = 4; i < 58 && i < replay.plies.size() && cases.size() < 25; ++i) {
      const bugcam::rules::ReplayedPly& ply = replay.plies[i];
      const bugcam::rules::Move m = ply.move;
      if (m.is_drop() || m.kind() != bugcam::rules::Move::Kind::kNormal ||
          ply.before.piece_at(m.from()).type != bugcam::rules::PieceType::kKnight ||
          !ply.before.piece_at(m.to()).empty()) {
        continue;
      }
      bugcam::rules::MoveList legal;
      ply.before.legal_moves(bugcam::rules::otb_rules(), legal);
      int quiet = 0;
      for (const bugcam::rules::Move other : legal) {
        if (!other.is_drop() && other.from() == m.from() && ply.before.piece_at(other.to()).empty())
          ++quiet;
      }
      if (quiet < 4) continue;
      for (std::size_t j = i + 1; j < replay.plies.size() && j <= i + 8; ++j) {
        const bugcam::rules::ReplayedPly& later = replay.plies[j];
        if (later.board != ply.board) continue;
        if (!later.move.is_drop() && later.move.from() == m.to()) {
          cases.push_back({g, ply, later});
          break;
        }
        if (later.move.to() == m.to()) break;  // taken there first
      }
    }
  }
  ASSERT_EQ(cases.size(), 25u);
  int right = 0;
  for (const Unseen& c : cases) {
    const bugcam::rules::BpgnGame& game = clean_run_games()[c.game];
    SimulationOptions options = clean_run_options();
    const double moved = press_of(game, options, c.move);
    const double moved_on = press_of(game, options, c.next);
    const auto read_empty = [&](std::vector<SimulatedInput>& inputs) {
      for (SimulatedInput& input : inputs) {
        auto* o = std::get_if<BoardObservation>(&input);
        if (o == nullptr || o->board != c.move.board || o->t < moved - 2.5 || o->t > moved_on) {
          continue;
        }
        // Vision misses the hand there too, as it misses the knight.
        SquareEvidence& e = o->squares[static_cast<std::size_t>(c.move.move.to())];
        if (!e.occluded || o->t < moved + 1.0) e = SquareEvidence{};
      }
    };
    const Outcome outcome = run_tracker(game, options, {}, std::nullopt, read_empty);
    for (const TrackedMove& got : outcome.committed) {
      if (got.board == c.move.board && got.san == c.move.san &&
          got.ply == ply_label(c.move.board, c.move.before.side_to_move(),
                               c.move.before.fullmove_number())) {
        ++right;
      }
    }
  }
  std::cout << right << " of 25 knight moves recorded\n";
  // 17 with the plain moves' ties in the drops' three places; 20 with their own four.
  EXPECT_GE(right, 20);
}
// A square vision flags covered from before the previous press on its board until its piece
// leaves it (held-out 11417: f1, its bishop read unsure, flagged covered from 5 s before 7b.
// N@e4's press until 8B. Bd3 took the bishop, and 8B. N@d3 was recorded, the knight White B
// held put on d3). f1 read empty after that cover is a change under a hand, not one with
// nothing seen over it. A short game: Black A takes a knight for White B, who then plays Bd3
// with f1 so covered; the holding areas are not read.
TEST(TrackerIncidents, MoveFromASquareCoveredSinceBeforeThePreviousPress) {
  const std::vector<bugcam::rules::BpgnGame> games = bugcam::rules::parse_bpgn(
      "[Event \"covered since\"]\n[TimeControl \"180+0\"]\n\n"
      "1A. Nf3{179.5} 1B. e4{179.0} 1a. e5{179.2} 1b. e5{178.8} 2A. Ng5{177.0} 2B. Nf3{177.5} "
      "2a. Qxg5{176.0} 2b. Nc6{177.0} 3A. d4{174.0} 3B. Bd3{175.0} 3a. Qg6{173.5} 3b. Nf6{174.5} "
      "4A. e3{171.0} 4B. c3{172.0} 4a. d6{171.0} 4b. Be7{172.0}\n",
      "covered since");
  ASSERT_EQ(games.size(), 1u);
  SimulationOptions options = clean_run_options();
  options.holdings = false;
  const Simulation plain = simulate(games[0], options, [](const SimulatedInput&) {});
  ASSERT_EQ(plain.truth.size(), 16u);
  ASSERT_EQ(plain.truth[7].san, "Nc6");
  ASSERT_EQ(plain.truth[9].san, "Bd3");
  const double previous = plain.truth[7].t;  // 2b. Nc6, the previous press on board B
  const double press = plain.truth[9].t;
  const auto f1 = static_cast<std::size_t>(*bugcam::rules::parse_square("f1"));
  const auto cover = [&](std::vector<SimulatedInput>& inputs) {
    for (SimulatedInput& input : inputs) {
      auto* o = std::get_if<BoardObservation>(&input);
      if (o == nullptr || o->board != BoardId::kB || o->t < previous - 1.0) continue;
      // Covered, then read empty from 0.4 s before the press (the hand over f1 already gone).
      if (o->t < press - 0.4) {
        o->squares[f1].occluded = true;
      } else if (o->t < press + 1.0) {
        o->squares[f1] = SquareEvidence{};
      }
    }
  };
  const Outcome outcome = run_tracker(games[0], options, {}, std::nullopt, cover);
  const auto bishop = std::find_if(outcome.committed.begin(), outcome.committed.end(),
                                   [](const TrackedMove& got) { return got.ply == "3B"; });
  ASSERT_NE(bishop, outcome.committed.end());
  EXPECT_EQ(bishop->san, "Bd3");
  EXPECT_TRUE(outcome.exact);
}
TEST(TrackerIncidents, PressWithoutMoveWithoutHandsAttributed) {
  expect_found(IncidentType::kPressWithoutMove, 21, false);
}
TEST(TrackerIncidents, FlagFall) {
  expect_found(IncidentType::kFlagFall, 30);
}
// A clock log that stops the clocks after the running side's time is gone, with no flag event
// (a game slower than its time control, as the renderer's clip 11417), fell at zero: White's
// 5 s from the start at 1 s run out at 6 s; after White's press at 3 s, Black's 5 s at 8 s.
// Stopped in time, no flag.
TEST(TrackerIncidents, AClockStoppedAfterItsTimeRanOutFell) {
  using Kind = bugcam::capture::ClockEvent::Kind;
  using bugcam::rules::Color;
  struct Case {
    bool white_pressed;  // at 3 s
    double stop;
    std::optional<Color> fell;
    double at;
  };
  for (const Case& c : {Case{false, 8.0, Color::kWhite, 6.0}, Case{false, 5.5, std::nullopt, 0.0},
                        Case{true, 12.0, Color::kBlack, 8.0}, Case{true, 7.5, std::nullopt, 0.0}}) {
    Tracker tracker;
    ClockEvent start;
    start.t = 1.0;
    start.kind = Kind::kStart;
    start.white_ms = 5000;
    start.black_ms = 5000;
    tracker.add(start);
    if (c.white_pressed) {
      ClockEvent press;
      press.t = 3.0;
      press.side = Color::kWhite;
      press.white_ms = 3000;
      press.black_ms = 5000;
      tracker.add(press);
    }
    ClockEvent stopped;
    stopped.t = c.stop;
    stopped.kind = Kind::kStop;
    tracker.add(stopped);
    tracker.finish();
    std::vector<Incident> flags;
    for (const TrackerEvent& e : tracker.take_events()) {
      if (const auto* i = std::get_if<Incident>(&e); i && i->type == IncidentType::kFlagFall) {
        flags.push_back(*i);
      }
    }
    const std::string what = std::string(c.white_pressed ? "White pressed, " : "") + "stopped at " +
                             std::to_string(c.stop);
    if (!c.fell) {
      EXPECT_TRUE(flags.empty()) << what;
      continue;
    }
    ASSERT_EQ(flags.size(), 1u) << what;
    EXPECT_EQ(flags[0].side, *c.fell) << what;
    EXPECT_EQ(flags[0].board, BoardId::kA) << what;
    EXPECT_NEAR(flags[0].t, c.at, 1e-9) << what;
  }
}
TEST(TrackerIncidents, PartnerBoardTouched) {
  expect_found(IncidentType::kPartnerBoardTouched, 12);
}

// A partner's arm seen over the board for less than TrackerConfig::partner_touch_seconds is an
// arm passing, or one vision attributes now and then: no incident; held, it is one.
TEST(TrackerIncidents, PartnerBoardTouchedOnlyWhenTheHandStays) {
  const std::vector<bugcam::rules::BpgnGame>& games = clean_run_games();
  for (const double seconds : {0.45, 0.7}) {
    SimulationOptions options = clean_run_options();
    options.injections = {{IncidentType::kPartnerBoardTouched, 12}};
    options.partner_touch_seconds = seconds;
    const Outcome outcome = run_tracker(games[0], options);
    ASSERT_EQ(outcome.sim.incidents.size(), 1u);
    EXPECT_EQ(found(outcome, outcome.sim.incidents[0]), seconds > 0.6) << seconds << " s";
  }
}

// Vision names the partner's arm over the board while the player beside them reaches for the
// board's clock (held-out 11408: White A's press at 41.57 s read as Black B's hand over board
// A for 0.77 s): at every fourth press of the clean run, the seat beside the presser (their
// opponent's partner) is named over the presser's board from 0.4 s before the press to 0.4 s
// after. No partner_board_touched for any of them. (A touch by that seat that begins after the
// press stays one: the simulation's own, 0.2 s after it, in PartnerBoardTouched.)
TEST(TrackerIncidents, PartnerNamedOverTheBoardAsThePlayerBesideThemPressesIsNoTouch) {
  const SimulationOptions options = clean_run_options();
  int named = 0;
  const auto misname = [&](std::vector<SimulatedInput>& inputs) {
    std::vector<ClockEvent> presses;
    for (const SimulatedInput& input : inputs) {
      const auto* e = std::get_if<ClockEvent>(&input);
      if (e && e->kind == ClockEvent::Kind::kPress) presses.push_back(*e);
    }
    for (std::size_t i = 0; i < presses.size(); i += 4) {
      const ClockEvent& press = presses[i];
      const bugcam::rules::Color side = press.side.value_or(bugcam::rules::Color::kWhite);
      const BoardId other = press.board == BoardId::kA ? BoardId::kB : BoardId::kA;
      const Seat beside{other, !side};
      ++named;
      for (SimulatedInput& input : inputs) {
        auto* o = std::get_if<BoardObservation>(&input);
        if (o == nullptr || o->board != press.board || o->t < press.t - 0.4 ||
            o->t > press.t + 0.4 ||
            std::find(o->hands.begin(), o->hands.end(), beside) != o->hands.end()) {
          continue;
        }
        o->hands.push_back(beside);
      }
    }
  };
  const Outcome outcome = run_tracker(clean_run_games()[0], options, {}, std::nullopt, misname);
  EXPECT_GE(named, 10);
  int touches = 0;
  for (const Incident& got : outcome.incidents) {
    if (got.type == IncidentType::kPartnerBoardTouched) ++touches;
  }
  EXPECT_EQ(touches, 0);
  EXPECT_TRUE(outcome.exact);
}

// How many position_disturbed incidents `outcome` has, each checked against the knock at
// `knocking`'s move: its board and seat, from `since`, put back after `lying_until`.
int disturbances(const Outcome& outcome, const TrackedMove& knocking, double since,
                 double lying_until) {
  int disturbed = 0;
  for (const Incident& i : outcome.incidents) {
    if (i.type != IncidentType::kPositionDisturbed) continue;
    ++disturbed;
    EXPECT_EQ(i.board, knocking.board);
    EXPECT_EQ(i.side, knocking.side);
    EXPECT_NEAR(i.t, since, 0.05);
    EXPECT_GT(i.t_end, lying_until);
    EXPECT_EQ(i.frames.size(), 2u);
  }
  return disturbed;
}

// A piece knocked over as a move is made beside it: vision sees its square altered (reading
// the same) while the mover presses, covered by the hand that stands it up, then as before
// (restored). That is position_disturbed at the mover's seat, from when it was first seen.
// Seen altered for two frames or 0.4 s only (a hand pausing over it), from 1.05 s before the
// press (a hand's shadow on its way, fresh 11356 and 11367), far from the move, or on
// an empty square (lit or shaded by the piece put beside it), it is none; and none unless
// asked for (TrackerConfig::disturbed_when_restored). The piece lying may read as the other
// colour instead (held-out 10706), or empty (as the square network reads it): seen so for
// 0.7 s it is one too, for 0.2 s not, nor read empty for 3 s (a standing piece misread). Nor is it
// one where a square whose piece leans over it (TrackerConfig::leans_over) reads otherwise
// after the restoration than while the square was altered, or was not read while it was:
// that piece may have come or gone, and its body altered the look and restored it (held-out
// 10702, 10704: a pawn put in front of h7, taken when captured; 10841: a queen under the hand
// all along). The moves are recorded all the same. A piece lying across the square beside it,
// altered and restored with it, is the same knock: one incident, which names both squares
// (held-out 11489: a knight knocked over on f3 reported twice, on f3 and on e3).
TEST(TrackerIncidents, PositionDisturbedWhereAPieceBesideAMoveIsRestored) {
  const std::vector<bugcam::rules::BpgnGame>& games = clean_run_games();
  const SimulationOptions options = clean_run_options();
  const bugcam::rules::Replay replay = bugcam::rules::replay(games[0]);
  const Outcome clean = run_tracker(games[0], options);
  ASSERT_GT(clean.sim.truth.size(), 30u);
  // Ply 20 on, the first move with a piece beside its target and one three squares away.
  std::size_t ply = 20;
  bugcam::rules::Square beside = -1, far = -1, empty_beside = -1;
  for (; ply < 30 && (beside < 0 || far < 0 || empty_beside < 0); ++ply) {
    beside = far = empty_beside = -1;
    const bugcam::rules::ReplayedPly& played = replay.plies[ply];
    const bugcam::rules::Square to = played.move.to();
    for (bugcam::rules::Square s = 0; s < 64; ++s) {
      if (played.before.piece_at(s).empty()) {
        if (squares_apart(s, to) == 1 && empty_beside < 0) empty_beside = s;
        continue;
      }
      if (!played.move.is_drop() && s == played.move.from()) continue;
      if (squares_apart(s, to) == 1 && beside < 0) beside = s;
      if (squares_apart(s, to) >= 3 &&
          (played.move.is_drop() || squares_apart(s, played.move.from()) >= 3) && far < 0) {
        far = s;
      }
    }
  }
  ASSERT_GE(beside, 0);
  ASSERT_GE(far, 0);
  ASSERT_GE(empty_beside, 0);
  const TrackedMove& knocking = clean.sim.truth[--ply];
  ASSERT_EQ(knocking.board, replay.plies[ply].board);
  // A square beside `beside`, neither the move's from- nor its to-square: its piece, if any,
  // may lean over `beside`.
  bugcam::rules::Square hider = -1;
  for (bugcam::rules::Square s = 0; s < 64 && hider < 0; ++s) {
    const bugcam::rules::Move move = replay.plies[ply].move;
    if (squares_apart(s, beside) == 1 && s != move.to() && (move.is_drop() || s != move.from())) {
      hider = s;
    }
  }
  ASSERT_GE(hider, 0);
  // An occupied square beside `beside`, neither the move's from- nor its to-square: the piece
  // knocked over on `beside` may lie across it. (No such square in this game is beside the
  // move too; the one taken, d5, is beside the previous move of the other player, whose press
  // falls in its window, so its restoration alone would be a disturbance of theirs.)
  bugcam::rules::Square across = -1;
  for (bugcam::rules::Square s = 0; s < 64 && across < 0; ++s) {
    const bugcam::rules::Move move = replay.plies[ply].move;
    if (squares_apart(s, beside) == 1 && s != move.to() && (move.is_drop() || s != move.from()) &&
        !replay.plies[ply].before.piece_at(s).empty()) {
      across = s;
    }
  }
  ASSERT_GE(across, 0);
  enum class Hider { kNone, kSame, kChanged, kCovered };
  struct Case {
    bugcam::rules::Square square;
    double seen_seconds;  // altered, uncovered
    bool asked;           // TrackerConfig::disturbed_when_restored
    Hider hider;          // `hider` leans over `square`: read after the restoration as before?
    bool disturbed;
    bool reads_otherwise = false;     // lying, the piece reads as the other colour, not altered
    bool reads_empty = false;         // lying, the piece reads as no piece, not altered
    double before_press = 0.2;        // first seen altered this long before the move's press
    bugcam::rules::Square also = -1;  // seen altered and restored with `square` (a piece across)
  };
  for (const Case& c :
       {Case{beside, 0.7, true, Hider::kNone, true}, Case{beside, 0.7, false, Hider::kNone, false},
        Case{beside, 2.0 / 30, true, Hider::kNone, false},
        Case{beside, 0.4, true, Hider::kNone, false}, Case{far, 0.7, true, Hider::kNone, false},
        Case{empty_beside, 0.7, true, Hider::kNone, false},
        Case{beside, 0.7, true, Hider::kSame, true},
        Case{beside, 0.7, true, Hider::kChanged, false},
        Case{beside, 0.7, true, Hider::kCovered, false},
        Case{beside, 0.7, true, Hider::kNone, true, true},
        Case{beside, 0.7, false, Hider::kNone, false, true},
        Case{beside, 0.2, true, Hider::kNone, false, true},
        Case{beside, 0.7, true, Hider::kNone, true, false, true},
        Case{beside, 0.2, true, Hider::kNone, false, false, true},
        Case{beside, 3.0, true, Hider::kNone, false, false, true},
        Case{beside, 0.7, true, Hider::kNone, false, false, false, 1.05},
        Case{beside, 0.7, true, Hider::kNone, true, false, false, 0.2, across}}) {
    const bool read_changes = c.reads_otherwise || c.reads_empty;
    const double since = knocking.t - c.before_press;
    const auto edit = [&](std::vector<SimulatedInput>& inputs) {
      bool restored = false;
      bool also_restored = false;
      bool hider_read = false;
      for (SimulatedInput& input : inputs) {
        auto* o = std::get_if<BoardObservation>(&input);
        if (o == nullptr || o->board != knocking.board || o->t < since - 0.2) continue;
        SquareEvidence& seen = o->squares[static_cast<std::size_t>(c.square)];
        SquareEvidence& leaning = o->squares[static_cast<std::size_t>(hider)];
        if (c.also >= 0 && o->t >= since && o->t < since + c.seen_seconds + 0.3) {
          SquareEvidence& lain_across = o->squares[static_cast<std::size_t>(c.also)];
          lain_across.occluded = o->t >= since + c.seen_seconds;
          lain_across.altered = !lain_across.occluded;
        } else if (c.also >= 0 && o->t >= since + c.seen_seconds + 0.3 && !also_restored) {
          o->squares[static_cast<std::size_t>(c.also)].restored = also_restored = true;
        }
        if (o->t < since) {
          seen.occluded = seen.occluded || read_changes;  // the hand that knocks it
        } else if (o->t < since + c.seen_seconds) {
          seen.occluded = false;
          seen.altered = !read_changes;
          if (c.reads_empty) seen = {0.96f, 0.02f, 0.02f};
          if (c.reads_otherwise) {
            const bool white =
                replay.plies[ply].before.piece_at(c.square).color == bugcam::rules::Color::kWhite;
            seen = {0.02f, white ? 0.02f : 0.96f, white ? 0.96f : 0.02f};
          }
          leaning.occluded = c.hider == Hider::kCovered;
        } else if (o->t < since + c.seen_seconds + 0.3) {
          seen.occluded = true;
          seen.altered = false;
        } else if (!restored) {
          seen.occluded = false;
          seen.restored = restored = true;
        } else if (!hider_read) {
          // The frame after the restoration: the hider read once, as before or otherwise.
          hider_read = true;
          leaning.occluded = false;
          if (c.hider == Hider::kChanged) {
            const bool empty = leaning.empty > std::max(leaning.white, leaning.black);
            leaning = {empty ? 0.02f : 0.96f, 0.02f, empty ? 0.96f : 0.02f};
          }
        }
      }
    };
    TrackerConfig config;
    config.disturbed_when_restored = c.asked;
    if (c.hider != Hider::kNone) {
      auto& leans = config.leans_over[static_cast<std::size_t>(knocking.board)];
      leans.short_pieces[static_cast<std::size_t>(hider)] |= std::uint64_t{1} << beside;
      leans.tall_pieces[static_cast<std::size_t>(hider)] |= std::uint64_t{1} << beside;
    }
    const Outcome outcome = run_tracker(games[0], options, config, std::nullopt, edit);
    EXPECT_EQ(disturbances(outcome, knocking, since, since + c.seen_seconds), c.disturbed ? 1 : 0)
        << bugcam::rules::square_name(c.square) << " seen " << c.seen_seconds << " s"
        << (c.asked ? "" : ", not asked for")
        << (c.hider == Hider::kSame      ? ", hider read the same"
            : c.hider == Hider::kChanged ? ", hider read otherwise"
            : c.hider == Hider::kCovered ? ", hider covered while altered"
                                         : "")
        << (c.reads_otherwise ? ", read as the other colour" : "")
        << (c.reads_empty ? ", read empty" : "") << ", first seen " << c.before_press
        << " s before the press"
        << (c.also >= 0 ? ", lying across " + bugcam::rules::square_name(c.also) : "");
    if (c.also >= 0) {
      // One knock, one incident, which names both squares and lasts until both are put back.
      for (const Incident& i : outcome.incidents) {
        if (i.type != IncidentType::kPositionDisturbed) continue;
        EXPECT_GE(i.t_end, since + c.seen_seconds + 0.3 - 0.05);
        EXPECT_NE(i.detail.find(bugcam::rules::square_name(c.square)), std::string::npos)
            << i.detail;
        EXPECT_NE(i.detail.find(bugcam::rules::square_name(c.also)), std::string::npos) << i.detail;
        EXPECT_NE(i.detail.find("lying across"), std::string::npos) << i.detail;
      }
    }
    EXPECT_EQ(outcome.right, clean.right);
  }
}

// The presser's own piece knocked over beside their drop, read empty as they press and stood
// up again by a hand 0.35-0.75 s after it: the square read empty and the drop's square read
// as their piece look like a piece of theirs moved there against the rules, or moved legally
// onto it. The press reads the knocked square from its restoration on, where that was seen
// before the press was decided, so the drop is the move shown at once, not a resync (an
// illegal move) put right later (development 11498: 8a. P@e7 with f7's pawn knocked over,
// recorded as the illegal f7-e7, the disturbance missed; there the board's next press came
// 20 s later and the drop was lost by then). Of the first 6 such drops of the sample games,
// 4 are shown at once and none without the restoration read; in the other two it was not
// noted before the press was decided (13B. N@g5+: the opponent pressed 0.9 s after).
TEST(TrackerIncidents, ADropBesideThePressersOwnKnockedPieceIsShownAtItsPress) {
  const std::vector<bugcam::rules::BpgnGame>& games = clean_run_games();
  const SimulationOptions options = clean_run_options();
  int runs = 0;
  int recorded = 0;  // every move right, no illegal move
  int reported = 0;  // the knock found
  int shown = 0;     // the drop shown at its press, not put right later
  for (std::size_t game = 0; game < games.size() && runs < 6; ++game) {
    const bugcam::rules::Replay replay = bugcam::rules::replay(games[game]);
    const Outcome clean = run_tracker(games[game], options);
    if (!clean.exact) continue;
    for (std::size_t ply = 8; ply < replay.plies.size() && ply < clean.sim.truth.size(); ++ply) {
      const bugcam::rules::ReplayedPly& played = replay.plies[ply];
      if (!played.move.is_drop()) continue;
      const bugcam::rules::Color mover = played.before.side_to_move();
      bugcam::rules::Square own = -1;
      for (bugcam::rules::Square s = 0; s < 64 && own < 0; ++s) {
        const bugcam::rules::Piece piece = played.before.piece_at(s);
        if (!piece.empty() && piece.color == mover &&
            piece.type != bugcam::rules::PieceType::kKing &&
            squares_apart(s, played.move.to()) == 1) {
          own = s;
        }
      }
      const TrackedMove& knocking = clean.sim.truth[ply];
      if (own < 0 || knocking.board != played.board || knocking.san != played.san) continue;
      const double since = knocking.t - 0.2;
      const auto knock = [&](std::vector<SimulatedInput>& inputs) {
        for (SimulatedInput& input : inputs) {
          auto* o = std::get_if<BoardObservation>(&input);
          if (o == nullptr || o->board != knocking.board || o->t < since - 0.2) continue;
          SquareEvidence& seen = o->squares[static_cast<std::size_t>(own)];
          if (o->t < since) {
            seen.occluded = true;  // the hand that knocks it
          } else if (o->t < since + 0.55) {
            seen = {0.96f, 0.02f, 0.02f};  // lying, read as no piece
          } else if (o->t < since + 0.95) {
            seen.occluded = true;  // the hand that stands it up
          }
        }
      };
      const Outcome outcome = run_tracker(games[game], options, {}, std::nullopt, knock);
      ++runs;
      const bool illegal =
          std::any_of(outcome.incidents.begin(), outcome.incidents.end(),
                      [](const Incident& i) { return i.type == IncidentType::kIllegalMove; });
      const bool found = disturbances(outcome, knocking, since, since + 0.55) == 1;
      const bool put_right =
          std::any_of(outcome.corrections.begin(), outcome.corrections.end(),
                      [&](const Correction& c) { return c.ply == knocking.ply; });
      std::cout << "game " << game << " " << knocking.ply << " " << knocking.san << ", "
                << bugcam::rules::square_name(own) << " knocked: " << outcome.right << "/"
                << clean.right << " right" << (illegal ? ", illegal move" : "")
                << (found ? ", reported" : ", not reported")
                << (put_right ? ", put right later" : ", shown at its press") << "\n";
      if (outcome.right == clean.right && !illegal) ++recorded;
      if (found) ++reported;
      if (!put_right) ++shown;
      if (runs == 6) break;
    }
  }
  EXPECT_EQ(runs, 6);
  EXPECT_EQ(recorded, runs);
  EXPECT_GE(reported, runs - 1);
  EXPECT_GE(shown, 4);
}

// A knocked-over piece that vision flags covered until it is stood up, no hand over the
// squares around (held-out 11354's e6, read unsure of its piece, partly empty): covered alone
// for 0.7 s beside a move and read as before once stood up by a hand (0.6 s over it and its
// neighbours), it is a disturbance. Not where the piece reads surely through the cover (an
// arm's shadow), where it reads unsure between the two colours only (a standing piece under a
// shadow: fresh 11376's g2), where a neighbour is covered too (a hand), where it lies covered
// only 0.3 s, nor where no hand comes back to stand it up, or one only grazes it for 0.15 s
// (fresh 11442's e3 and 11440's c2: a pawn read unsure for seconds in a knight's shadow or
// after an arm's passed, then as before), nor where vision names the knocking hand the mover's
// and the hand back the opponent's (held-out 11454: White A's arm passing over Black A's f3
// knight, read unsure after 7a. Bh5).
TEST(TrackerIncidents, PositionDisturbedWhereAPieceLiesCoveredAlone) {
  const std::vector<bugcam::rules::BpgnGame>& games = clean_run_games();
  const SimulationOptions options = clean_run_options();
  const bugcam::rules::Replay replay = bugcam::rules::replay(games[0]);
  const Outcome clean = run_tracker(games[0], options);
  ASSERT_GT(clean.sim.truth.size(), 30u);
  using bugcam::rules::file_of;
  using bugcam::rules::rank_of;
  const auto inside = [](bugcam::rules::Square s) {
    return file_of(s) > 0 && file_of(s) < 7 && rank_of(s) > 0 && rank_of(s) < 7;
  };
  // Ply 20 on, the first move with a piece beside its target, off the board's edge.
  std::size_t ply = 20;
  bugcam::rules::Square beside = -1;
  for (; ply < 40 && beside < 0; ++ply) {
    const bugcam::rules::ReplayedPly& played = replay.plies[ply];
    const bugcam::rules::Square to = played.move.to();
    for (bugcam::rules::Square s = 0; s < 64 && beside < 0; ++s) {
      if (played.before.piece_at(s).empty() || !inside(s)) continue;
      if (!played.move.is_drop() && s == played.move.from()) continue;
      if (squares_apart(s, to) == 1) {
        beside = s;
      }
    }
  }
  ASSERT_GE(beside, 0);
  const TrackedMove& knocking = clean.sim.truth[--ply];
  ASSERT_EQ(knocking.board, replay.plies[ply].board);
  const bool white =
      replay.plies[ply].before.piece_at(beside).color == bugcam::rules::Color::kWhite;
  // How the square reads while covered alone: the piece lying (its colour 0.55, empty the
  // rest), read through the cover as surely as standing, or its colour 0.59 and the other 0.41.
  enum class Reading { kLying, kSure, kColoursMixed };
  // Whose arms vision names over the board in the hand that knocks and in the hand back: none,
  // the mover's in both, or the mover's and then the opponent's.
  enum class Arms { kUnnamed, kMoversBack, kOpponentsBack };
  struct Case {
    double lying_seconds;
    Reading reading;
    bool neighbour_covered;
    double hand_back_seconds;  // the hand that stands it up
    bool disturbed;
    Arms arms = Arms::kUnnamed;
  };
  for (const Case& c :
       {Case{0.7, Reading::kLying, false, 0.6, true}, Case{0.7, Reading::kSure, false, 0.6, false},
        Case{0.7, Reading::kColoursMixed, false, 0.6, false},
        Case{0.7, Reading::kLying, true, 0.6, false}, Case{0.3, Reading::kLying, false, 0.6, false},
        Case{0.7, Reading::kLying, false, 0.0, false},
        Case{0.7, Reading::kLying, false, 0.15, false},
        Case{0.7, Reading::kLying, false, 0.6, true, Arms::kMoversBack},
        Case{0.7, Reading::kLying, false, 0.6, false, Arms::kOpponentsBack}}) {
    const Seat mover{knocking.board, knocking.side};
    const Seat opponent{knocking.board, !knocking.side};
    const double since = knocking.t - 0.2;
    // The square and its neighbours covered (a hand) or some of them.
    const auto cover = [&](BoardObservation& o, bool square, bool hand, bool right) {
      for (int df = -1; df <= 1; ++df) {
        for (int dr = -1; dr <= 1; ++dr) {
          const bool covered =
              (df == 0 && dr == 0) ? square : hand || (right && df == 1 && dr == 0);
          o.squares[static_cast<std::size_t>(
                        bugcam::rules::make_square(file_of(beside) + df, rank_of(beside) + dr))]
              .occluded = covered;
        }
      }
    };
    const auto edit = [&](std::vector<SimulatedInput>& inputs) {
      for (SimulatedInput& input : inputs) {
        auto* o = std::get_if<BoardObservation>(&input);
        if (o == nullptr || o->board != knocking.board || o->t < since - 0.2) continue;
        SquareEvidence& seen = o->squares[static_cast<std::size_t>(beside)];
        if (o->t < since) {
          cover(*o, true, true, false);  // the hand that knocks it
          if (c.arms != Arms::kUnnamed) o->own_arms = {mover};
        } else if (o->t < since + c.lying_seconds) {
          const float piece = c.reading == Reading::kSure    ? 0.98f
                              : c.reading == Reading::kLying ? 0.55f
                                                             : 0.59f;
          const float other = c.reading == Reading::kColoursMixed ? 1.0f - piece : 0.01f;
          const float empty = 1.0f - piece - other;
          seen = {empty, white ? piece : other, white ? other : piece};
          cover(*o, true, false, c.neighbour_covered);
        } else if (o->t < since + c.lying_seconds + c.hand_back_seconds) {
          cover(*o, true, true, false);  // the hand that stands it up
          if (c.arms != Arms::kUnnamed) {
            o->own_arms = {c.arms == Arms::kMoversBack ? mover : opponent};
          }
        } else if (o->t < since + c.lying_seconds + 0.6) {
          cover(*o, false, false, false);  // read as before
        }
      }
    };
    const Outcome outcome = run_tracker(games[0], options, TrackerConfig{}, std::nullopt, edit);
    EXPECT_EQ(disturbances(outcome, knocking, since, since + c.lying_seconds), c.disturbed ? 1 : 0)
        << bugcam::rules::square_name(beside) << " lying " << c.lying_seconds << " s"
        << (c.reading == Reading::kSure           ? ", read sure"
            : c.reading == Reading::kColoursMixed ? ", colours mixed"
                                                  : "")
        << (c.neighbour_covered ? ", a neighbour covered" : "") << ", a hand back for "
        << c.hand_back_seconds << " s"
        << (c.arms == Arms::kMoversBack      ? ", the mover's"
            : c.arms == Arms::kOpponentsBack ? ", the opponent's"
                                             : "");
    EXPECT_EQ(outcome.right, clean.right);
  }
}

TEST(TrackerIncidents, CleanRunHasNone) {
  const std::vector<bugcam::rules::BpgnGame>& games = clean_run_games();
  SimulationOptions options = clean_run_options();
  const Outcome outcome = run_tracker(games[0], options);
  EXPECT_TRUE(outcome.exact);
  EXPECT_TRUE(outcome.incidents.empty());
}

// Vision reads some empty squares as white pieces from the first frame on (shadows on light
// squares, as on the dev clip of seed 1004): that is how those squares look, not a
// disturbance, and the moves around them are still read.
TEST(TrackerIncidents, ShadowedSquaresAreNoDisturbance) {
  const std::vector<bugcam::rules::BpgnGame>& games = clean_run_games();
  SimulationOptions options = clean_run_options();
  using bugcam::rules::Color;
  using bugcam::rules::make_square;
  for (int file : {0, 2, 4, 6}) {
    options.shadowed.push_back({BoardId::kB, make_square(file, 5), Color::kWhite});
  }
  // Empty from the start, and a square that empties with the first move.
  options.shadowed.push_back({BoardId::kA, make_square(1, 2), Color::kWhite});
  options.shadowed.push_back({BoardId::kA, make_square(3, 2), Color::kWhite});
  options.shadowed.push_back({BoardId::kA, make_square(4, 1), Color::kWhite});
  const Outcome outcome = run_tracker(games[0], options);
  for (const Incident& i : outcome.incidents) {
    std::cout << "shadowed run: " << incident_name(i.type) << " " << i.ply << " t=" << i.t << ": "
              << i.detail << "\n";
  }
  EXPECT_TRUE(outcome.incidents.empty());
  EXPECT_GE(outcome.right, static_cast<int>(outcome.sim.truth.size()) - 1);
}

TEST(TrackerIncidents, SameInputSameOutput) {
  static const std::vector<bugcam::rules::BpgnGame> games = load_games("fics_mbprog_64.bpgn");
  SimulationOptions options;
  options.misread = 0.05;
  options.seed = 3;
  options.max_plies = 50;
  const Outcome a = run_tracker(games[2], options);
  const Outcome b = run_tracker(games[2], options);
  ASSERT_EQ(a.committed.size(), b.committed.size());
  for (std::size_t i = 0; i < a.committed.size(); ++i) {
    EXPECT_EQ(a.committed[i].san, b.committed[i].san);
    EXPECT_EQ(a.committed[i].t, b.committed[i].t);
  }
  EXPECT_EQ(a.incidents.size(), b.incidents.size());
}

TEST(LeverPressDetector, PressWhenTheLeverComesDownOnTheOtherSide) {
  LeverPressDetector detector(2);
  const auto lever = [](double t, std::optional<bugcam::rules::Color> down, bool touched = false) {
    LeverObservation o;
    o.t = t;
    o.down = down;
    o.touched = touched;
    return o;
  };
  using bugcam::rules::Color;
  EXPECT_FALSE(detector.add(lever(0.0, Color::kBlack)));
  EXPECT_FALSE(detector.add(lever(0.1, Color::kBlack)));  // the starting state, no press
  EXPECT_FALSE(detector.add(lever(0.2, Color::kBlack)));
  EXPECT_FALSE(detector.add(lever(0.3, std::nullopt, true)));  // the hand over the lever
  EXPECT_FALSE(detector.add(lever(0.4, Color::kWhite)));       // one frame is not yet a press
  const auto press = detector.add(lever(0.5, Color::kWhite));
  ASSERT_TRUE(press.has_value());
  EXPECT_EQ(press->side, Color::kWhite);
  // The flip was not seen between two frames: timed from the hand's visit, a little before.
  EXPECT_NEAR(press->t, 0.3 - 0.15, 1e-9);
  EXPECT_FALSE(detector.add(lever(0.6, Color::kBlack)));  // a one-frame flicker
  EXPECT_FALSE(detector.add(lever(0.7, Color::kWhite)));
  // The hand seen only once the lever shows the new side: the flip, unseen between two
  // readings, is timed halfway between them.
  EXPECT_FALSE(detector.add(lever(0.8, Color::kWhite)));
  EXPECT_FALSE(detector.add(lever(1.0, Color::kBlack, true)));
  EXPECT_FALSE(detector.add(lever(1.1, Color::kBlack, true)));
  const auto halfway = detector.add(lever(1.2, Color::kBlack));
  ASSERT_TRUE(halfway.has_value());
  EXPECT_EQ(halfway->side, Color::kBlack);
  EXPECT_NEAR(halfway->t, 0.9, 1e-9);
  // Read on the other side for a while, no hand having come: the reading changed (a display
  // ticking beside a lever read by its halves' likeness), not the lever.
  for (int i = 0; i < 40; ++i) EXPECT_FALSE(detector.add(lever(1.3 + 0.1 * i, Color::kBlack)));
  for (int i = 0; i < 5; ++i) EXPECT_FALSE(detector.add(lever(6.0 + 0.1 * i, Color::kWhite)));
  for (int i = 0; i < 5; ++i) EXPECT_FALSE(detector.add(lever(7.0 + 0.1 * i, Color::kBlack)));
}

}  // namespace

namespace {

TEST(LeverPressDetector, AHandOverTheLeverTimesThePressFromItsVisit) {
  bugcam::tracker::LeverPressDetector detector(2);
  using bugcam::rules::Color;
  const auto lever = [](double t, std::optional<Color> down, bool touched) {
    bugcam::tracker::LeverObservation o;
    o.t = t;
    o.down = down;
    o.touched = touched;
    return o;
  };
  EXPECT_FALSE(detector.add(lever(0.0, Color::kBlack, false)));
  EXPECT_FALSE(detector.add(lever(0.1, Color::kBlack, false)));
  // The hand arrives at 1.0 and shows the old side until it leaves after 1.7.
  for (int i = 0; i < 8; ++i) EXPECT_FALSE(detector.add(lever(1.0 + 0.1 * i, Color::kBlack, true)));
  EXPECT_FALSE(detector.add(lever(1.8, Color::kWhite, false)));
  const auto press = detector.add(lever(1.9, Color::kWhite, false));
  ASSERT_TRUE(press.has_value());
  // A little before the middle of its visit (1.35), not when the lever showed (1.75).
  EXPECT_NEAR(press->t, 1.2, 1e-9);
  // A hand seen in one frame only, the lever flipping unseen between two readings: the press
  // comes the usual lead before the middle of that visit.
  EXPECT_FALSE(detector.add(lever(3.0, Color::kWhite, false)));
  EXPECT_FALSE(detector.add(lever(3.1, Color::kBlack, true)));
  const auto back = detector.add(lever(3.2, Color::kBlack, false));
  ASSERT_TRUE(back.has_value());
  EXPECT_NEAR(back->t, 3.1 - 0.15, 1e-9);
}

// A lever reading in frame `frame` of a 30 fps video.
bugcam::tracker::LeverObservation lever_in_frame(int frame,
                                                 std::optional<bugcam::rules::Color> down,
                                                 bool touched) {
  bugcam::tracker::LeverObservation o;
  o.t = frame / 30.0;
  o.frame = frame;
  o.down = down;
  o.touched = touched;
  return o;
}

TEST(LeverPressDetector, AFlipSeenBetweenTwoFramesTimesThePress) {
  bugcam::tracker::LeverPressDetector detector(2);
  using bugcam::rules::Color;
  for (int f = 0; f < 10; ++f) EXPECT_FALSE(detector.add(lever_in_frame(f, Color::kBlack, false)));
  // The hand comes over the clock at frame 10, the lever shows White's side down from frame
  // 17 (the hand beside it), and the hand stays until frame 30: the press waits for it.
  for (int f = 10; f < 17; ++f) EXPECT_FALSE(detector.add(lever_in_frame(f, Color::kBlack, true)));
  for (int f = 17; f < 30; ++f) EXPECT_FALSE(detector.add(lever_in_frame(f, Color::kWhite, true)));
  const auto press = detector.add(lever_in_frame(30, Color::kWhite, false));
  ASSERT_TRUE(press.has_value());
  EXPECT_EQ(press->side, Color::kWhite);
  // The lever reads its new side partway through its flip: a little before frame 16.5.
  EXPECT_NEAR(press->t, 16.5 / 30.0 - 0.03, 1e-9);
  // A press still waiting for its hand at the end of the footage is not lost.
  for (int f = 41; f < 45; ++f) EXPECT_FALSE(detector.add(lever_in_frame(f, Color::kBlack, true)));
  const std::vector<bugcam::capture::ClockEvent> left = detector.flush();
  ASSERT_EQ(left.size(), 1u);
  EXPECT_EQ(left[0].side, Color::kBlack);
  EXPECT_TRUE(detector.flush().empty());
}

TEST(LeverPressDetector, FramesShowingTheLeverPartWayTimeThePressWithinAFrame) {
  using bugcam::rules::Color;
  const auto lever = [](int frame, std::optional<Color> down, bool touched,
                        std::optional<double> travel) {
    bugcam::tracker::LeverObservation o;
    o.t = frame / 30.0;
    o.frame = frame;
    o.down = down;
    o.touched = touched;
    o.travel = travel;
    return o;
  };
  // A lever flipping in 0.08 s from Black's side down to White's, pressed at 0.4450 s:
  // frames 14 and 15 show it 0.3 and 0.7 of the way.
  bugcam::tracker::LeverPressDetector detector(2);
  for (int f = 0; f < 12; ++f) EXPECT_FALSE(detector.add(lever(f, Color::kBlack, false, 0.0)));
  for (int f = 12; f < 14; ++f) EXPECT_FALSE(detector.add(lever(f, Color::kBlack, true, 0.0)));
  EXPECT_FALSE(detector.add(lever(14, Color::kBlack, true, 0.3)));
  EXPECT_FALSE(detector.add(lever(15, Color::kWhite, true, 0.7)));
  for (int f = 16; f < 20; ++f) EXPECT_FALSE(detector.add(lever(f, Color::kWhite, true, 1.0)));
  const auto press = detector.add(lever(20, Color::kWhite, false, 1.0));
  ASSERT_TRUE(press.has_value());
  EXPECT_EQ(press->side, Color::kWhite);
  // Each part-way frame puts the flip's start its share of 0.08 s earlier: 0.4427 and
  // 0.4433 s (halfway between the two readings, less the usual lag, would be 0.4533 s).
  EXPECT_NEAR(press->t, 0.5 * (14 / 30.0 - 0.08 * 0.3 + 15 / 30.0 - 0.08 * 0.7), 1e-9);

  // A lever hidden under the hand through its flip: a reading part way as the hand comes is
  // the hand, not the flip, and the press is timed from the hand's visit.
  bugcam::tracker::LeverPressDetector hidden(2);
  for (int f = 0; f < 12; ++f) EXPECT_FALSE(hidden.add(lever(f, Color::kBlack, false, 0.0)));
  EXPECT_FALSE(hidden.add(lever(12, Color::kBlack, true, 0.3)));
  for (int f = 13; f < 25; ++f)
    EXPECT_FALSE(hidden.add(lever(f, std::nullopt, true, std::nullopt)));
  for (int f = 25; f < 28; ++f) EXPECT_FALSE(hidden.add(lever(f, Color::kWhite, true, 1.0)));
  const auto later = hidden.add(lever(28, Color::kWhite, false, 1.0));
  ASSERT_TRUE(later.has_value());
  EXPECT_NEAR(later->t, 0.5 * (12 / 30.0 + 27 / 30.0) - 0.15, 1e-9);
}

// The lever read by its learnt positions on one side, then neither for five frames (blurred in
// its flip under the arriving hand), then the other: the press lies between the two readings,
// not where the hand's long visit would put it (fresh 11367's clock B: Black's presses timed
// 0.08-0.10 s late by the visit).
TEST(LeverPressDetector, AFlipReadByNeitherSideForAFewFramesLiesBetweenTheReadings) {
  using bugcam::rules::Color;
  const auto lever = [](int frame, std::optional<Color> down, bool touched) {
    bugcam::tracker::LeverObservation o;
    o.t = frame / 30.0;
    o.frame = frame;
    o.down = down;
    o.touched = touched;
    if (down) o.travel = down == Color::kWhite ? 1.0 : 0.0;
    return o;
  };
  bugcam::tracker::LeverPressDetector detector(2);
  for (int f = 0; f < 14; ++f) EXPECT_FALSE(detector.add(lever(f, Color::kBlack, false)));
  for (int f = 14; f < 18; ++f) EXPECT_FALSE(detector.add(lever(f, std::nullopt, true)));
  for (int f = 18; f < 30; ++f) EXPECT_FALSE(detector.add(lever(f, Color::kWhite, true)));
  const auto press = detector.add(lever(30, Color::kWhite, false));
  ASSERT_TRUE(press.has_value());
  // Halfway between frames 13 and 18; the visit (frames 14-29) would say 21.5 / 30 - 0.15.
  EXPECT_NEAR(press->t, 15.5 / 30.0, 1e-9);
}

// The pressing hand covers its own end of the clock, and its shadow can make the lever read its new
// side early; the other end, rising, changes the other half of the clock as the lever flips.
TEST(LeverPressDetector, TheRaisedEndShowingInTheOtherHalfTimesThePress) {
  using bugcam::rules::Color;
  const auto lever = [](int frame, std::optional<Color> down, bool touched,
                        std::array<double, 2> half_change) {
    bugcam::tracker::LeverObservation o = lever_in_frame(frame, down, touched);
    o.half_change = half_change;
    return o;
  };
  const auto press_with = [&](std::array<double, 2> at_flip, std::array<double, 2> after_flip) {
    bugcam::tracker::LeverPressDetector detector(2);
    for (int f = 0; f < 10; ++f) EXPECT_FALSE(detector.add(lever(f, Color::kBlack, false, {})));
    // White's hand comes over White's half at frame 10; the lever reads White's side down
    // from frame 12, under the hand's shadow; it flips between frames 16 and 18.
    for (int f = 10; f < 12; ++f) {
      EXPECT_FALSE(detector.add(lever(f, Color::kBlack, true, {0.3, 0.0})));
    }
    for (int f = 12; f < 25; ++f) {
      std::array<double, 2> change{0.2, 0.0};
      if (f == 17) change = at_flip;
      if (f == 18) change = after_flip;
      EXPECT_FALSE(detector.add(lever(f, Color::kWhite, true, change)));
    }
    const auto press = detector.add(lever(25, Color::kWhite, false, {}));
    EXPECT_TRUE(press.has_value());
    return press ? press->t : -1.0;
  };
  // Black's half changes in frames 17 and 18 alike: the flip's middle at frame 17, its start
  // half a flip (0.04 s) earlier; not the shadow's early reading (frame 11.5, less 0.03 s).
  EXPECT_NEAR(press_with({0.2, 0.02}, {0.2, 0.02}), 17 / 30.0 - 0.04, 1e-9);
  // A change beside one of a hand over Black's half too is the hand's: the reading's timing.
  EXPECT_NEAR(press_with({0.2, 0.3}, {0.2, 0.02}), 11.5 / 30.0 - 0.03, 1e-9);
  // Without a change there, the same.
  EXPECT_NEAR(press_with({0.2, 0.0}, {0.2, 0.0}), 11.5 / 30.0 - 0.03, 1e-9);
}

// Where the lever is read by its learnt positions (vision gives its travel), each reading is
// sure: the press lies after the last reading of the old side (less half a flip) and before
// the first of the new. A change of the other half after the flip was seen (the hand leaving)
// does not time it, nor does a hand that came long before (its visit's middle, less a lead).
// Read frame by frame (no travel), a reading may lag or lead the flip, and those cues stand.
TEST(LeverPressDetector, ReadingsByTheLeversPositionsBoundThePress) {
  using bugcam::rules::Color;
  const auto observe = [](int frame, std::optional<Color> down, bool touched,
                          std::array<double, 2> half_change, bool by_positions) {
    bugcam::tracker::LeverObservation o = lever_in_frame(frame, down, touched);
    o.half_change = half_change;
    if (by_positions && down) o.travel = *down == Color::kWhite ? 1.0 : 0.0;
    return o;
  };
  // The hand at the clock in frames 12-21; the flip seen between frames 13 and 14; Black's half
  // changes a little in frames 16 and 17.
  const auto flip_then_change = [&](bool by_positions) {
    bugcam::tracker::LeverPressDetector detector(2);
    std::optional<bugcam::capture::ClockEvent> press;
    for (int f = 0; f <= 22 && !press; ++f) {
      const bool touched = f >= 12 && f <= 21;
      const std::array<double, 2> change =
          f == 16 || f == 17 ? std::array<double, 2>{0.0, 0.02} : std::array<double, 2>{};
      press = detector.add(
          observe(f, f <= 13 ? Color::kBlack : Color::kWhite, touched, change, by_positions));
    }
    EXPECT_TRUE(press.has_value());
    return press ? press->t : -1.0;
  };
  EXPECT_NEAR(flip_then_change(true), 13.5 / 30.0 - 0.03, 1e-9);
  EXPECT_NEAR(flip_then_change(false), 16 / 30.0 - 0.04, 1e-9);
  // The hand at the clock from frame 5 to 30, the lever covered (unknown) in frames 20-27:
  // Black's side down until frame 19, White's from 28.
  const auto early_hand = [&](bool by_positions) {
    bugcam::tracker::LeverPressDetector detector(2);
    std::optional<bugcam::capture::ClockEvent> press;
    for (int f = 0; f <= 32 && !press; ++f) {
      std::optional<Color> down;
      if (f <= 19) down = Color::kBlack;
      if (f >= 28) down = Color::kWhite;
      press = detector.add(observe(f, down, f >= 5 && f <= 30, {}, by_positions));
    }
    EXPECT_TRUE(press.has_value());
    return press ? press->t : -1.0;
  };
  EXPECT_NEAR(early_hand(true), 19 / 30.0 - 0.04, 1e-9);
  EXPECT_NEAR(early_hand(false), 0.5 * (5 + 30) / 30.0 - 0.15, 1e-9);
}

// One hand's visit times one press: a quick press back within the same visit is timed by its
// own flip. A visit that began just after the lever read its new side (the hand's shadow came
// first) times the press.
TEST(LeverPressDetector, AHandsVisitTimesOnlyItsOwnPress) {
  using bugcam::rules::Color;
  bugcam::tracker::LeverPressDetector back(2);
  for (int f = 0; f < 10; ++f) EXPECT_FALSE(back.add(lever_in_frame(f, Color::kBlack, false)));
  // White presses (the flip seen between frames 14 and 15), Black presses back (29 and 30),
  // the hands at the clock from frame 10 to 40.
  std::vector<bugcam::capture::ClockEvent> presses;
  for (int f = 10; f <= 40; ++f) {
    const Color down = f >= 15 && f < 30 ? Color::kWhite : Color::kBlack;
    if (auto press = back.add(lever_in_frame(f, down, true))) presses.push_back(*press);
  }
  if (auto press = back.add(lever_in_frame(41, Color::kBlack, false))) presses.push_back(*press);
  ASSERT_EQ(presses.size(), 2u);
  EXPECT_NEAR(presses[0].t, 14.5 / 30.0 - 0.03, 1e-9);
  // Not from the visit's middle (frame 25, less the lead: 0.68 s).
  EXPECT_NEAR(presses[1].t, 29.5 / 30.0 - 0.03, 1e-9);

  bugcam::tracker::LeverPressDetector shadow(2);
  for (int f = 0; f < 12; ++f) EXPECT_FALSE(shadow.add(lever_in_frame(f, Color::kBlack, false)));
  EXPECT_FALSE(shadow.add(lever_in_frame(12, Color::kWhite, false)));
  for (int f = 13; f < 30; ++f) EXPECT_FALSE(shadow.add(lever_in_frame(f, Color::kWhite, true)));
  const auto press = shadow.add(lever_in_frame(30, Color::kWhite, false));
  ASSERT_TRUE(press.has_value());
  // From the visit (frames 13 to 29, less the lead), not the reading at frame 12.
  EXPECT_NEAR(press->t, 21.0 / 30.0 - 0.15, 1e-9);
}

// A premove's press and press back 0.07-0.23 s apart, the hands over the clock: the lever
// reads the other side surely (by its learnt positions) in two or three frames only, fewer
// than a press needs to settle, and unsure around them (development 11495, 11522). Both
// presses are found, each between its readings. The same glimpse read unsure, in one frame,
// or with no hand at the clock is none.
TEST(LeverPressDetector, APressAndAQuickPressBackAreBothFound) {
  using bugcam::rules::Color;
  enum class Glimpse { kSure, kUnsure, kOneFrame, kNoHand };
  const auto run = [](Glimpse glimpse) {
    bugcam::tracker::LeverPressDetector detector;
    std::vector<bugcam::capture::ClockEvent> presses;
    for (int f = 0; f <= 60; ++f) {
      const bool hand = glimpse != Glimpse::kNoHand && f >= 15 && f <= 30;
      std::optional<Color> down = Color::kBlack;
      if (f >= 16 && f <= 27) down.reset();  // the hands over the lever
      const int glimpse_frames = glimpse == Glimpse::kOneFrame ? 1 : 2;
      if (f >= 24 && f < 24 + glimpse_frames) down = Color::kWhite;
      bugcam::tracker::LeverObservation o = lever_in_frame(f, down, hand);
      if (down && (glimpse != Glimpse::kUnsure || *down == Color::kBlack)) {
        o.travel = *down == Color::kWhite ? 1.0 : 0.0;
      }
      if (auto press = detector.add(o)) presses.push_back(*press);
    }
    for (const auto& press : detector.flush()) presses.push_back(press);
    return presses;
  };
  const std::vector<bugcam::capture::ClockEvent> pair = run(Glimpse::kSure);
  ASSERT_EQ(pair.size(), 2u);
  EXPECT_EQ(pair[0].side, Color::kWhite);
  EXPECT_GT(pair[0].t, 15 / 30.0);
  EXPECT_LT(pair[0].t, 24 / 30.0);
  EXPECT_EQ(pair[1].side, Color::kBlack);
  EXPECT_GT(pair[1].t, 25 / 30.0);
  EXPECT_LT(pair[1].t, 28 / 30.0);
  EXPECT_TRUE(run(Glimpse::kUnsure).empty());
  EXPECT_TRUE(run(Glimpse::kOneFrame).empty());
  EXPECT_TRUE(run(Glimpse::kNoHand).empty());
  // A press whose flip reads the new side twice, then the old side once (a hand's shadow),
  // then the new side for good: one press.
  bugcam::tracker::LeverPressDetector detector;
  std::vector<bugcam::capture::ClockEvent> presses;
  for (int f = 0; f <= 60; ++f) {
    const Color down = f >= 24 && f != 26 ? Color::kWhite : Color::kBlack;
    bugcam::tracker::LeverObservation o = lever_in_frame(f, down, f >= 15 && f <= 30);
    o.travel = down == Color::kWhite ? 1.0 : 0.0;
    if (auto press = detector.add(o)) presses.push_back(*press);
  }
  for (const auto& press : detector.flush()) presses.push_back(press);
  ASSERT_EQ(presses.size(), 1u);
  EXPECT_EQ(presses[0].side, Color::kWhite);
}

// The clock's start is read from White's display: its first tick (whole seconds rounded
// down go from 3:00 to 2:59 as it starts) after a quiet while, followed by a quiet frame.
// Changes unlike a tick, a tick of Black's display, a tick after a hand was at the clock or
// after the board's first press are no start; nor is any tick once a resumed recording says
// the clocks run.
TEST(LeverPressDetector, TheFirstTickOfWhitesDisplayStartsTheClock) {
  using bugcam::rules::Color;
  using Kind = bugcam::capture::ClockEvent::Kind;
  const auto lever = [](int frame, double white_change, double black_change, bool touched,
                        Color down = Color::kBlack) {
    bugcam::tracker::LeverObservation o;
    o.t = frame / 30.0;
    o.frame = frame;
    o.down = down;
    o.touched = touched;
    o.half_change = {white_change, black_change};
    return o;
  };
  bugcam::tracker::LeverPressDetector detector(2);
  for (int f = 0; f < 31; ++f) EXPECT_FALSE(detector.add(lever(f, 0.0, 0.0, false)));
  // The digits change between frames 30 and 31; the touched flag may come with a bright
  // display's change.
  EXPECT_FALSE(detector.add(lever(31, 0.03, 0.0, true)));
  const auto start = detector.add(lever(32, 0.0, 0.0, false));
  ASSERT_TRUE(start.has_value());
  EXPECT_EQ(start->kind, Kind::kStart);
  EXPECT_EQ(start->board, bugcam::rules::BoardId::kA);
  EXPECT_NEAR(start->t, 30.5 / 30.0, 1e-9);
  // The next ticks are the running clock.
  for (int f = 33; f < 100; ++f) {
    EXPECT_FALSE(detector.add(lever(f, f % 30 == 1 ? 0.01 : 0.0, 0.0, false)));
  }

  // Too large a change for digits (a shadow), a change of both halves (a reflection), a
  // tick that goes on changing (a hand coming), a tick of Black's display: none is a start.
  bugcam::tracker::LeverPressDetector late(2);
  for (int f = 0; f < 15; ++f) EXPECT_FALSE(late.add(lever(f, 0.0, 0.0, false)));
  EXPECT_FALSE(late.add(lever(15, 0.08, 0.0, false)));
  for (int f = 16; f < 30; ++f) EXPECT_FALSE(late.add(lever(f, 0.0, 0.0, false)));
  EXPECT_FALSE(late.add(lever(30, 0.02, 0.015, false)));
  for (int f = 31; f < 45; ++f) EXPECT_FALSE(late.add(lever(f, 0.0, 0.0, false)));
  EXPECT_FALSE(late.add(lever(45, 0.02, 0.0, false)));
  EXPECT_FALSE(late.add(lever(46, 0.01, 0.0, false)));
  for (int f = 47; f < 60; ++f) EXPECT_FALSE(late.add(lever(f, 0.0, 0.0, false)));
  EXPECT_FALSE(late.add(lever(60, 0.0, 0.02, false)));
  EXPECT_FALSE(late.add(lever(61, 0.0, 0.0, false)));
  // A hand at the clock (it may start it), then a tick: no start either. The hand presses:
  // the lever comes down on White's side.
  for (int f = 62; f < 75; ++f) EXPECT_FALSE(late.add(lever(f, 0.0, 0.0, false)));
  for (int f = 75; f < 78; ++f) EXPECT_FALSE(late.add(lever(f, 0.3, 0.3, true)));
  for (int f = 78; f < 89; ++f) EXPECT_FALSE(late.add(lever(f, 0.0, 0.0, false)));
  EXPECT_FALSE(late.add(lever(89, 0.02, 0.0, false)));
  EXPECT_FALSE(late.add(lever(90, 0.0, 0.0, true)));
  EXPECT_FALSE(late.add(lever(91, 0.0, 0.0, false, Color::kWhite)));
  const auto press = late.add(lever(92, 0.0, 0.0, false, Color::kWhite));
  ASSERT_TRUE(press.has_value());
  EXPECT_EQ(press->kind, Kind::kPress);
  for (int f = 93; f < 110; ++f) {
    EXPECT_FALSE(late.add(lever(f, 0.0, 0.0, false, Color::kWhite)));
  }
  EXPECT_FALSE(late.add(lever(110, 0.02, 0.0, false, Color::kWhite)));
  EXPECT_FALSE(late.add(lever(111, 0.0, 0.0, false, Color::kWhite)));

  bugcam::tracker::LeverPressDetector resumed(2);
  resumed.clocks_running();
  for (int f = 0; f < 31; ++f) EXPECT_FALSE(resumed.add(lever(f, 0.0, 0.0, false)));
  EXPECT_FALSE(resumed.add(lever(31, 0.03, 0.0, false)));
  EXPECT_FALSE(resumed.add(lever(32, 0.0, 0.0, false)));
}

// With the time control known, presses carry the remaining times. A clock whose start was
// not seen (a hand at the clock) counts from the first frame, 0.2 s early here; its display's
// ticks, where a whole number of seconds remained, set it right.
TEST(LeverPressDetector, TicksOfTheRunningDisplaySetItsRemainingTime) {
  using bugcam::rules::Color;
  constexpr double kStart = 0.2;  // the clocks' true start
  constexpr double kBase = 120.0;
  const auto run = [&](bool ticks) {
    bugcam::tracker::LeverPressDetector detector(2);
    detector.set_time_control(kBase, 0.0);
    std::vector<bugcam::capture::ClockEvent> events;
    for (int f = 0; f < 130; ++f) {
      bugcam::tracker::LeverObservation o;
      o.t = f / 30.0;
      o.frame = f;
      // White presses at 3.5 s: the lever shows White's side down from frame 106.
      o.down = f <= 105 ? Color::kBlack : Color::kWhite;
      o.touched = f <= 5 || (f >= 100 && f <= 110);
      if (o.touched) {
        o.half_change = {0.3, 0.3};
      } else if (ticks && (f == 37 || f == 67 || f == 97)) {
        // White's display goes from 1:59 to 1:58 (and on) between frames 36 and 37, 1.2 s.
        o.half_change = {0.02, 0.0};
      }
      if (const auto event = detector.add(o)) events.push_back(*event);
    }
    for (const auto& event : detector.flush()) events.push_back(event);
    return events;
  };
  const std::vector<bugcam::capture::ClockEvent> with_ticks = run(true);
  ASSERT_EQ(with_ticks.size(), 1u);  // no start: the tick after the hand came too soon
  const bugcam::capture::ClockEvent& press = with_ticks[0];
  EXPECT_EQ(press.side, Color::kWhite);
  ASSERT_TRUE(press.white_ms && press.black_ms);
  EXPECT_EQ(*press.black_ms, 120000);
  const double truth = kBase - (press.t - kStart);
  EXPECT_NEAR(*press.white_ms / 1000.0, truth, 0.05);
  // Without the ticks, the time counted from the first frame.
  const std::vector<bugcam::capture::ClockEvent> without = run(false);
  ASSERT_EQ(without.size(), 1u);
  ASSERT_TRUE(without[0].white_ms);
  EXPECT_NEAR(*without[0].white_ms / 1000.0, kBase - without[0].t, 0.001);
}

// Both games start together: a board whose clocks' start went unseen (a hand at its clock) counts
// from the other board's start, where that was seen, not from the first frame.
TEST(LeverPressDetector, AClockWhoseStartWentUnseenCountsFromTheOtherBoardsStart) {
  using bugcam::rules::BoardId;
  using bugcam::rules::Color;
  using Kind = bugcam::capture::ClockEvent::Kind;
  constexpr double kBase = 120.0;
  const auto run = [&](bool b_ticks) {
    bugcam::tracker::LeverPressDetector detector(2);
    detector.set_time_control(kBase, 0.0);
    std::vector<bugcam::capture::ClockEvent> events;
    for (int f = 0; f < 130; ++f) {
      for (const BoardId board : {BoardId::kA, BoardId::kB}) {
        bugcam::tracker::LeverObservation o;
        o.board = board;
        o.t = f / 30.0;
        o.frame = f;
        if (board == BoardId::kA) {
          // A hand at clock A over the start; White A presses at 3.5 s.
          o.down = f <= 105 ? Color::kBlack : Color::kWhite;
          o.touched = (f >= 25 && f <= 40) || (f >= 100 && f <= 110);
          if (o.touched) o.half_change = {0.3, 0.3};
        } else {
          // Clock B's first tick, White's display, between frames 30 and 31.
          o.down = Color::kBlack;
          if (b_ticks && f == 31) o.half_change = {0.03, 0.0};
        }
        if (const auto event = detector.add(o)) events.push_back(*event);
      }
    }
    for (const auto& event : detector.flush()) events.push_back(event);
    return events;
  };
  const std::vector<bugcam::capture::ClockEvent> events = run(true);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].kind, Kind::kStart);
  EXPECT_EQ(events[0].board, BoardId::kB);
  const double start = events[0].t;
  EXPECT_NEAR(start, 30.5 / 30.0, 1e-9);
  const bugcam::capture::ClockEvent& press = events[1];
  EXPECT_EQ(press.board, BoardId::kA);
  EXPECT_EQ(press.kind, Kind::kPress);
  ASSERT_TRUE(press.white_ms.has_value());
  EXPECT_NEAR(*press.white_ms / 1000.0, kBase - (press.t - start), 0.001);
  // No start seen on either board: from the first frame.
  const std::vector<bugcam::capture::ClockEvent> unseen = run(false);
  ASSERT_EQ(unseen.size(), 1u);
  ASSERT_TRUE(unseen[0].white_ms.has_value());
  EXPECT_NEAR(*unseen[0].white_ms / 1000.0, kBase - unseen[0].t, 0.001);
}

// A clock stops when a side's time runs out: the running side's display, ticking every
// second, stops changing, with no press and no hand at the clock. Its flag fell a second
// after its last tick (a display rounding down shows 0:00 for the last second). The first
// flag ends the game: the other clock stopping then is none. A display whose ticks are
// merely too small to count (a digit that changes one segment) still changes, and a hand at
// the clock may hide the ticks: neither is a flag fall.
TEST(LeverPressDetector, ARunningDisplayThatStopsTickingIsAFlagFall) {
  using bugcam::rules::BoardId;
  using bugcam::rules::Color;
  using Kind = bugcam::capture::ClockEvent::Kind;
  // White's display on A ticks at frames 31, 61, ..., up to `last_tick`, then changes by
  // `small_change` each second; B's ticks until frame 330. With `bright`, A's last tick's
  // frame is flagged touched (a bright display's change alone) and the frame after it still
  // shows a little of the change.
  const auto run = [](int last_tick, double small_change, bool hand_after, bool bright = false) {
    bugcam::tracker::LeverPressDetector detector(2);
    std::vector<bugcam::capture::ClockEvent> events;
    for (int f = 0; f < 400; ++f) {
      for (const BoardId board : {BoardId::kA, BoardId::kB}) {
        bugcam::tracker::LeverObservation o;
        o.board = board;
        o.t = f / 30.0;
        o.frame = f;
        o.down = Color::kBlack;
        const bool ticking = board == BoardId::kB || f <= last_tick;
        if (f % 30 == 1 && ticking && f < 330) {
          o.half_change = {0.01, 0.0};
        } else if (f % 30 == 1 && board == BoardId::kA && f > last_tick) {
          o.half_change = {small_change, 0.0};
        }
        o.touched = hand_after && board == BoardId::kA && f > last_tick + 20 && f < last_tick + 30;
        if (o.touched) o.half_change = {0.2, 0.2};
        if (bright && board == BoardId::kA && f == last_tick) o.touched = true;
        if (bright && board == BoardId::kA && f == last_tick + 1) o.half_change = {0.003, 0.0};
        if (const auto event = detector.add(o)) events.push_back(*event);
      }
    }
    for (const auto& event : detector.flush()) events.push_back(event);
    std::vector<bugcam::capture::ClockEvent> flags;
    for (const auto& event : events) {
      if (event.kind == Kind::kFlag) flags.push_back(event);
    }
    return flags;
  };
  const std::vector<bugcam::capture::ClockEvent> flags = run(151, 0.0, false);
  // Board B's display stops at frame 330 too, after the game ended on A.
  ASSERT_EQ(flags.size(), 1u);
  EXPECT_EQ(flags[0].board, BoardId::kA);
  EXPECT_EQ(flags[0].side, Color::kWhite);
  EXPECT_NEAR(flags[0].t, 150.5 / 30.0 + 1.0, 1e-9);
  // Ticks too small to count go on: no flag on A; B's display stopping is one.
  const std::vector<bugcam::capture::ClockEvent> small = run(151, 0.002, false);
  ASSERT_EQ(small.size(), 1u);
  EXPECT_EQ(small[0].board, BoardId::kB);
  // A hand at A's clock after its last tick: no flag there.
  const std::vector<bugcam::capture::ClockEvent> hand = run(151, 0.0, true);
  ASSERT_EQ(hand.size(), 1u);
  EXPECT_EQ(hand[0].board, BoardId::kB);
  // A bright display: the last tick's frame flagged touched, a leftover change in the next.
  const std::vector<bugcam::capture::ClockEvent> bright = run(151, 0.0, false, true);
  ASSERT_EQ(bright.size(), 1u);
  EXPECT_EQ(bright[0].board, BoardId::kA);
}

}  // namespace

namespace {

// What a LeverPressDetector found in a run: the clocks' start and the presses.
struct DetectorRun {
  double start = 0.0;
  std::vector<bugcam::capture::ClockEvent> presses;
};

// The clocks' displays, read by vision now and then, set a clock that stands at another time
// than the time control (a handicap, or the short clock of a flag staged by the renderer).
// Black's is read while it stands before White's first press (the start carries it when read
// long enough before); White's, under the lever's raised end until White presses, is read once
// it stands, and the presses from then on carry it, the first saying it sets White's clock. A
// display within a second or two of the time counted changes nothing: the ticks set that.
TEST(LeverPressDetector, ClocksSetOtherwiseThanTheTimeControlAreReadFromTheirDisplays) {
  using bugcam::rules::Color;
  using Kind = bugcam::capture::ClockEvent::Kind;
  using Shown = std::array<std::optional<int>, 2>;
  // The clock starts with White's display ticking at frame 15; White presses at frame 60,
  // Black at frame 120, the hand covering the clock for six frames before each press.
  // `shown(t, start)` is what vision reads at time t, the clock having started at `start`.
  const auto run = [](std::optional<double> time_control, const auto& shown) {
    bugcam::tracker::LeverPressDetector detector(2);
    if (time_control) detector.set_time_control(*time_control, 0.0);
    DetectorRun out;
    std::optional<double> start;
    const auto note = [&](const bugcam::capture::ClockEvent& e) {
      if (e.kind == Kind::kStart) start = e.t;
      if (e.kind == Kind::kPress) out.presses.push_back(e);
    };
    for (int f = 0; f < 180; ++f) {
      const bool touched = (f >= 54 && f < 60) || (f >= 114 && f < 120);
      const Color down = f < 60 ? Color::kBlack : f < 120 ? Color::kWhite : Color::kBlack;
      bugcam::tracker::LeverObservation o = lever_in_frame(f, down, touched);
      if (f == 15) o.half_change = {0.01, 0.0};
      if (!touched && f % 6 == 0) o.display_seconds = shown(o.t, start);
      if (auto e = detector.add(o)) note(*e);
    }
    for (const auto& e : detector.flush()) note(e);
    out.start = start.value_or(-1.0);
    return out;
  };
  // White's clock set to `white`, Black's to `black` seconds.
  const auto clocks_at = [](double white, double black) {
    return [=](double t, std::optional<double> start) {
      if (!start) return Shown{static_cast<int>(white), static_cast<int>(black)};
      const double white_press = 2.0 - 0.15, black_press = 4.0 - 0.15;  // about
      if (t < white_press) {
        return Shown{static_cast<int>(white - (t - *start)), static_cast<int>(black)};
      }
      const double white_left = white - (white_press - *start);
      if (t < black_press) {
        return Shown{static_cast<int>(white_left), static_cast<int>(black - (t - white_press))};
      }
      return Shown{static_cast<int>(white_left - (t - black_press)),
                   static_cast<int>(black - (black_press - white_press))};
    };
  };
  // Black's clock set to 60 s: read before the start.
  const DetectorRun black_short = run(180.0, clocks_at(180.0, 60.0));
  ASSERT_EQ(black_short.presses.size(), 2u);
  const auto& first = black_short.presses[0];
  EXPECT_NEAR(*first.white_ms, 180000 - (first.t - black_short.start) * 1000, 1.0);
  // Read over a second while it stands (here after the start), counted halfway through the
  // second shown.
  ASSERT_TRUE(first.black_ms.has_value());
  EXPECT_NEAR(*first.black_ms, 60000, 500.0);
  // White's set to 30 s: the first press counts from the time control, the second has White's
  // clock from the display (and the tracker sets the first move's clock by it).
  const DetectorRun white_short = run(180.0, clocks_at(30.0, 180.0));
  ASSERT_EQ(white_short.presses.size(), 2u);
  const auto& white_press = white_short.presses[0];
  const auto& black_press = white_short.presses[1];
  EXPECT_NEAR(*white_press.white_ms, 180000 - (white_press.t - white_short.start) * 1000, 1.0);
  EXPECT_NEAR(*black_press.white_ms, 30000 - (white_press.t - white_short.start) * 1000, 1000.0);
  EXPECT_NEAR(*black_press.black_ms, 180000 - (black_press.t - white_press.t) * 1000, 1.0);
  EXPECT_FALSE(white_press.sets_opponents_clock);
  EXPECT_TRUE(black_press.sets_opponents_clock);
  // No time control given: the displays give it, Black's at once, White's once it stands.
  const DetectorRun no_control = run(std::nullopt, clocks_at(30.0, 180.0));
  ASSERT_EQ(no_control.presses.size(), 2u);
  EXPECT_FALSE(no_control.presses[0].white_ms.has_value());
  ASSERT_TRUE(no_control.presses[0].black_ms.has_value());
  EXPECT_NEAR(*no_control.presses[0].black_ms, 180000, 500.0);
  EXPECT_NEAR(*no_control.presses[1].white_ms,
              30000 - (no_control.presses[0].t - no_control.start) * 1000, 1000.0);
  // Nothing read and no time control: no remaining times.
  const DetectorRun unread =
      run(std::nullopt, [](double, std::optional<double>) { return Shown{}; });
  ASSERT_EQ(unread.presses.size(), 2u);
  EXPECT_FALSE(unread.presses[0].white_ms.has_value());
  EXPECT_FALSE(unread.presses[1].black_ms.has_value());
  // A display a second off the time control (31 s given, 30 shown) sets nothing; Black's, far
  // off, is read. But once White's clock stands, its display bounds the time counted: the clock
  // has the seconds shown and less than one more (kDisplayFloorAgrees; held-out 11676's clock,
  // 1.0 s high where presses seen late had added up).
  const DetectorRun near = run(31.0, clocks_at(30.0, 180.0));
  ASSERT_EQ(near.presses.size(), 2u);
  EXPECT_NEAR(*near.presses[0].white_ms, 31000 - (near.presses[0].t - near.start) * 1000, 1.0);
  ASSERT_TRUE(near.presses[0].black_ms.has_value());
  EXPECT_NEAR(*near.presses[0].black_ms, 180000, 500.0);
  const int white_shown = static_cast<int>(30.0 - (near.presses[0].t - near.start));
  EXPECT_GE(*near.presses[1].white_ms, white_shown * 1000);
  EXPECT_LE(*near.presses[1].white_ms, (white_shown + 1) * 1000);
}

// A digit misread held over a second sets a clock wrong (held-out 11525: Black's 1:41 read as
// 1:11 ten times running, 30 s off for the rest of the game). The side's next stand shows
// what its display really says: agreeing with the time counted without the setting, it undoes
// the setting, and the next press says so; agreeing with the setting, it keeps it; agreeing
// with neither (no time control to fall back on), it sets the clock again.
TEST(LeverPressDetector, AClockSetFromADisplayIsUndoneWhenItsNextStandDisagrees) {
  using bugcam::rules::Color;
  using Kind = bugcam::capture::ClockEvent::Kind;
  using Shown = std::array<std::optional<int>, 2>;
  // The clock starts with White's display ticking at frame 15; White presses at frames 60, 180
  // and 300, Black at 120 and 240, the hand covering the clock for six frames before each.
  // White's display reads `first` during its first stand (frames 60-120) and `second` during
  // its next (180-240); Black's is not read.
  const auto run = [](std::optional<double> time_control, int first, int second) {
    bugcam::tracker::LeverPressDetector detector(2);
    if (time_control) detector.set_time_control(*time_control, 0.0);
    DetectorRun out;
    const auto note = [&](const bugcam::capture::ClockEvent& e) {
      if (e.kind == Kind::kStart) out.start = e.t;
      if (e.kind == Kind::kPress) out.presses.push_back(e);
    };
    for (int f = 0; f < 330; ++f) {
      const bool touched = f % 60 >= 54;
      const Color down = (f / 60) % 2 == 0 ? Color::kBlack : Color::kWhite;
      bugcam::tracker::LeverObservation o = lever_in_frame(f, down, touched);
      if (f == 15) o.half_change = {0.01, 0.0};
      if (!touched && f % 6 == 0 && f >= 60 && f < 120) o.display_seconds = Shown{first, {}};
      if (!touched && f % 6 == 0 && f >= 180 && f < 240) o.display_seconds = Shown{second, {}};
      if (auto e = detector.add(o)) note(*e);
    }
    for (const auto& e : detector.flush()) note(e);
    return out;
  };
  // White's clock ran from the start to the first press and between the second and third.
  const auto white_ran = [](const DetectorRun& r) {
    return r.presses[0].t - r.start + r.presses[2].t - r.presses[1].t;
  };
  // A three-minute game, White's 2:58 read as 2:28 in its first stand, 2:56 in its next.
  const DetectorRun misread = run(180.0, 148, 176);
  ASSERT_EQ(misread.presses.size(), 5u);
  // Set wrong: Black's first press carries the misread and says it set White's clock.
  EXPECT_TRUE(misread.presses[1].sets_opponents_clock);
  EXPECT_NEAR(*misread.presses[1].white_ms, 148500, 1.0);
  // Undone in the next stand: Black's second press says so, and carries the time counted.
  EXPECT_TRUE(misread.presses[3].sets_opponents_clock);
  EXPECT_NEAR(*misread.presses[3].white_ms, (180.0 - white_ran(misread)) * 1000, 2.0);
  const double third_run = misread.presses[4].t - misread.presses[3].t;
  EXPECT_NEAR(*misread.presses[4].white_ms, (180.0 - white_ran(misread) - third_run) * 1000, 2.0);
  // A clock set to 30 s: the next stand bears the setting out, and it stays.
  const DetectorRun handicap = run(180.0, 28, 26);
  ASSERT_EQ(handicap.presses.size(), 5u);
  EXPECT_TRUE(handicap.presses[1].sets_opponents_clock);
  EXPECT_FALSE(handicap.presses[3].sets_opponents_clock);
  EXPECT_NEAR(*handicap.presses[3].white_ms, (30.0 - white_ran(handicap)) * 1000, 1000.0);
  // No time control: the misread set the clock; the next stand, held as long, sets it again.
  const DetectorRun unguided = run(std::nullopt, 148, 176);
  ASSERT_EQ(unguided.presses.size(), 5u);
  ASSERT_TRUE(unguided.presses[1].white_ms.has_value());
  EXPECT_NEAR(*unguided.presses[1].white_ms, 148500, 1.0);
  EXPECT_TRUE(unguided.presses[3].sets_opponents_clock);
  EXPECT_NEAR(*unguided.presses[3].white_ms, 176500, 1.0);
}

}  // namespace
