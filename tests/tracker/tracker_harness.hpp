// Runs the tracker on simulated observations of real games and scores what it committed.
#pragma once

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "bugcam/tracker.hpp"
#include "bugcam/tracker_simulation.hpp"

namespace bugcam::tracker::testing {

inline std::vector<rules::BpgnGame> load_games(const std::string& file_name) {
  const std::string path = std::string(BUGCAM_SHARED_DIR) + "/data/bpgn/" + file_name;
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return rules::parse_bpgn(text.str(), path);
}

// Whether no move on `board` in plies [first, last) of `replay` lands on or leaves from any
// of `squares`.
inline bool squares_untouched(const rules::Replay& replay, BoardId board, std::size_t first,
                              std::size_t last, std::initializer_list<rules::Square> squares) {
  for (std::size_t j = first; j < last && j < replay.plies.size(); ++j) {
    const auto& later = replay.plies[j];
    if (later.board != board) continue;
    for (const rules::Square s : squares) {
      if (later.move.to() == s || (!later.move.is_drop() && later.move.from() == s)) return false;
    }
  }
  return true;
}

// Edits one frame `o` of vision's view of a drop onto `to` made from the position `before`,
// pressed at `pressed`, so that the frame shows nothing of it: while the hand is over `to`
// before the press, the arm crossing the board covers every empty square off the back ranks
// too; where `to` is uncovered, it reads as the first other uncovered empty square reads.
inline void show_drop_as_nothing(BoardObservation& o, const rules::Position& before,
                                 rules::Square to, double pressed) {
  SquareEvidence& e = o.squares[static_cast<std::size_t>(to)];
  if (e.occluded) {
    if (o.t >= pressed) return;
    for (int s = 8; s < 56; ++s) {
      if (before.piece_at(s).empty()) o.squares[static_cast<std::size_t>(s)].occluded = true;
    }
    return;
  }
  for (int s = 8; s < 56; ++s) {
    const SquareEvidence& other = o.squares[static_cast<std::size_t>(s)];
    if (s != to && before.piece_at(s).empty() && !other.occluded) {
      e = other;
      return;
    }
  }
}

struct Outcome {
  Simulation sim;
  std::vector<TrackedMove> committed;
  std::vector<Incident> incidents;
  std::vector<Correction> corrections;
  int right = 0;  // committed moves equal to the truth at the same place
  bool exact = false;
  int presses = 0;                        // clock presses the simulation gave the tracker
  std::array<rules::Position, 2> boards;  // the committed boards at the end
};

// `leans_later`: given to the tracker after it is made (Tracker::set_leans), if any.
// `edit`: changes what vision reports before the tracker sees it (a misread the simulation
// does not make).
inline Outcome run_tracker(const rules::BpgnGame& game, const SimulationOptions& options,
                           TrackerConfig config = {},
                           std::optional<std::array<PieceLeans, 2>> leans_later = std::nullopt,
                           const std::function<void(std::vector<SimulatedInput>&)>& edit = {}) {
  Outcome out;
  // No time control: the simulation stretches games to keep causes before effects, so
  // clocks derived from the real game's time control would run out early.
  if (std::getenv("BUGCAM_TRACKER_TRACE") != nullptr) config.debug = &std::cerr;
  Tracker tracker(std::move(config));
  if (leans_later) tracker.set_leans(*leans_later);
  const auto drain = [&] {
    for (TrackerEvent& e : tracker.take_events()) {
      if (auto* m = std::get_if<TrackedMove>(&e)) {
        if (!m->provisional) out.committed.push_back(*m);
      } else if (auto* i = std::get_if<Incident>(&e)) {
        out.incidents.push_back(*i);
      } else if (auto* c = std::get_if<Correction>(&e)) {
        out.corrections.push_back(*c);
      }
    }
  };
  const auto feed = [&](const SimulatedInput& input) {
    if (const auto* e = std::get_if<ClockEvent>(&input); e && e->kind == ClockEvent::Kind::kPress) {
      ++out.presses;
    }
    std::visit([&](const auto& item) { tracker.add(item); }, input);
    drain();
  };
  if (edit) {
    // A whole game's inputs are gathered for the edit in a buffer kept between runs: grown
    // afresh each run, under the sanitizers it cost page faults and copies. (So an edit must
    // not call run_tracker.)
    thread_local std::vector<SimulatedInput> inputs;
    inputs.clear();
    out.sim =
        simulate(game, options, [&](const SimulatedInput& input) { inputs.push_back(input); });
    edit(inputs);
    for (const SimulatedInput& input : inputs) feed(input);
  } else {
    out.sim = simulate(game, options, feed);
  }
  tracker.finish();
  drain();
  for (int b = 0; b < 2; ++b) out.boards[b] = tracker.committed_board(static_cast<BoardId>(b));
  // Moves right: per board, the committed sequence against the true one.
  for (int b = 0; b < 2; ++b) {
    std::vector<std::string> want;
    std::vector<std::string> got;
    for (const TrackedMove& m : out.sim.truth) {
      if (static_cast<int>(m.board) == b) want.push_back(m.ply + m.san);
    }
    for (const TrackedMove& m : out.committed) {
      // The truth holds the legal moves; an illegal one is scored by its incident.
      if (static_cast<int>(m.board) == b && !m.illegal) got.push_back(m.ply + m.san);
    }
    bool reported = false;
    for (std::size_t i = 0; i < want.size() && i < got.size(); ++i) {
      if (want[i] == got[i]) {
        ++out.right;
      } else if (!reported && std::getenv("BUGCAM_TRACKER_DEBUG") != nullptr) {
        reported = true;
        std::cout << "  board " << b << " first difference at " << i << ": want";
        for (std::size_t j = i >= 2 ? i - 2 : 0; j < want.size() && j < i + 4; ++j)
          std::cout << " " << want[j];
        std::cout << " got";
        for (std::size_t j = i >= 2 ? i - 2 : 0; j < got.size() && j < i + 4; ++j)
          std::cout << " " << got[j];
        std::cout << "\n";
      }
    }
  }
  const auto legal = std::count_if(out.committed.begin(), out.committed.end(),
                                   [](const TrackedMove& m) { return !m.illegal; });
  out.exact = out.right == static_cast<int>(out.sim.truth.size()) &&
              legal == static_cast<std::ptrdiff_t>(out.sim.truth.size());
  return out;
}

// The tracker committed `want`'s ply on its board, and as it was played.
inline void expect_committed_as_played(const std::vector<TrackedMove>& committed,
                                       const TrackedMove& want) {
  bool found = false;
  for (const TrackedMove& got : committed) {
    if (got.board == want.board && got.ply == want.ply) {
      EXPECT_EQ(got.san, want.san) << "ply " << want.ply;
      found = true;
    }
  }
  EXPECT_TRUE(found) << "ply " << want.ply << " not committed";
}

// Moves a piece of type `from` to type `to` in `o`, if there is one: vision reading it as the
// other type.
inline void read_as(HoldingsObservation& o, rules::PieceType from, rules::PieceType to) {
  int& count = o.visible[static_cast<std::size_t>(from)];
  if (count == 0) return;
  --count;
  ++o.visible[static_cast<std::size_t>(to)];
}

// How many types of piece the side to move holds before `ply` (drops of other types onto its
// square are then rivals of a drop there).
inline int types_held_before(const rules::ReplayedPly& ply) {
  const Color mover = ply.before.side_to_move();
  int types = 0;
  for (int t = 0; t < 5; ++t)
    types += ply.before.holding(mover, static_cast<rules::PieceType>(t)) > 0;
  return types;
}

}  // namespace bugcam::tracker::testing
