// Per-square evidence over time. A square's content can change only while a hand covers
// it, so each square's timeline is a list of runs: stretches of frames where the square was
// visible, each showing one content. A run also ends when the square's reading changes and
// stays changed without a hand having been seen (vision missed the hand).
#pragma once

#include <array>
#include <deque>
#include <optional>
#include <utility>

#include "bugcam/tracker.hpp"

namespace bugcam::tracker::detail {

// Empty, white piece, black piece.
enum class SquareState : std::uint8_t { kEmpty = 0, kWhite = 1, kBlack = 2 };

// Beside-square readings (BoardEvidence::beside_rate) look this many squares each way.
constexpr int kBesideReach = 2;
// The squares within kBesideReach of each square, itself included.
inline constexpr std::array<std::uint64_t, 64> kBesideAround = [] {
  std::array<std::uint64_t, 64> out{};
  for (int s = 0; s < 64; ++s) {
    for (int dr = -kBesideReach; dr <= kBesideReach; ++dr) {
      for (int df = -kBesideReach; df <= kBesideReach; ++df) {
        const int f = s % 8 + df, r = s / 8 + dr;
        if (f >= 0 && f < 8 && r >= 0 && r < 8) {
          out[static_cast<std::size_t>(s)] |= std::uint64_t{1} << (r * 8 + f);
        }
      }
    }
  }
  return out;
}();
// Per caster class (other, long) and offset within kBesideReach: how many cells, and the
// cell of a piece on `caster` beside `square` (within kBesideReach of it).
constexpr int kBesideSide = 2 * kBesideReach + 1;
constexpr std::size_t kBesideCells = 2 * kBesideSide * kBesideSide;
constexpr std::size_t beside_cell(int square, int caster, bool long_caster) {
  const int df = caster % 8 - square % 8, dr = caster / 8 - square / 8;
  return static_cast<std::size_t>((long_caster ? kBesideSide * kBesideSide : 0) +
                                  (dr + kBesideReach) * kBesideSide + df + kBesideReach);
}

// The offset (ranks, files) from the square to the caster of `cell` (beside_cell).
constexpr std::pair<int, int> beside_offset(std::size_t cell) {
  const int within = static_cast<int>(cell) % (kBesideSide * kBesideSide);
  return {within / kBesideSide - kBesideReach, within % kBesideSide - kBesideReach};
}

// The pieces that hide a square (TrackerConfig::leans_over), for what it reads while empty:
// per colour (white, black), a tall piece among them (kings, queens) or short ones only.
constexpr std::size_t kLeanKinds = 4;
constexpr std::size_t lean_kind(SquareState colour, bool tall) {
  return (colour == SquareState::kWhite ? 0 : 2) + (tall ? 1 : 0);
}
// The colour of a lean_kind's hiding pieces.
constexpr SquareState lean_colour(std::size_t kind) {
  return kind < 2 ? SquareState::kWhite : SquareState::kBlack;
}
// Where a square's entry for a lean_kind stands in per-square, per-kind arrays.
constexpr std::size_t lean_index(int square, std::size_t kind) {
  return static_cast<std::size_t>(square) * kLeanKinds + kind;
}

struct Run {
  double start = 0.0;  // time of its first frame
  double end = 0.0;    // time of its last frame
  int first_frame = 0;
  int last_frame = 0;
  int frames = 0;
  std::array<double, 3> sum{};  // summed normalised probabilities per state
  // Begun after the square was covered (or at the first frame), not by a change of reading
  // with nothing seen over the square.
  bool after_cover = false;
  // Some frame read the square altered (SquareEvidence::altered).
  bool altered = false;
  SquareState mean_state() const;
};

// Log-likelihoods of the three states for one square (0 for all: no evidence).
using SquareLikelihood = std::array<double, 3>;
using BoardLikelihood = std::array<SquareLikelihood, 64>;

// The state a square's reading favours most.
SquareState most_likely(const SquareLikelihood& reading);

// How vision reads one square (or a whole board, pooled): per true state, the summed
// reading probabilities of the frames in which the square was known to hold that state.
struct ReadingCounts {
  std::array<std::array<double, 3>, 3> by_state{};  // [true state][reading]
  void add(int state, const std::array<float, 3>& reading, double cap);
};

class BoardEvidence {
 public:
  void add(const BoardObservation& observation);
  double latest_t() const { return latest_t_; }
  int latest_frame() const { return latest_frame_; }
  // The frame seen at time `t`: the last one at or before it of the last kFramesKeptSeconds
  // (a press found from the clock's lever reaches the tracker after later frames).
  int frame_at(double t) const;
  bool seen() const { return seen_; }

  // One square's reading at a time: the state most read, the run's weight (independent
  // readings it counts as) and its log-likelihoods.
  struct SquareReading {
    SquareState state = SquareState::kEmpty;
    double weight = 0.0;
    SquareLikelihood l{};
  };
  // The evidence for the position standing at time `t` (a press): per square the reading of
  // the run that covers `t`, else of the first run starting after `t` and before `before`,
  // if any.
  std::array<std::optional<SquareReading>, 64> readings_at(double t, double before) const;
  // ... of one square.
  std::optional<SquareReading> reading_at(int square, double t, double before) const;
  // The run used for square `s` at time `t` (as readings_at chooses), if any.
  const Run* run_at(int square, double t, double before) const;
  // The run after `run` (one of square `s`'s runs) on that square, if any.
  const Run* run_after(int square, const Run& run) const;
  // What happened on each square between `t_previous` (the previous press on the board; no
  // time: the start) and `t` (readings as readings_at takes them): `touched`, something
  // covered it meanwhile (vision sees a hand over every square a move changes), and
  // `changed`, touched and now read in another state than at `t_previous`, or `revisited`.
  // `altered`, touched, read as before, and its run at `t` seen altered (a change vision
  // misreads).
  struct Changes {
    std::uint64_t touched = 0;
    std::uint64_t changed = 0;
    std::uint64_t altered = 0;
    // Read as at `t_previous`, but otherwise for a while between (read_otherwise_between):
    // something stood there meanwhile and went by hand. Also in `changed`.
    std::uint64_t revisited = 0;
  };
  Changes changes(std::optional<double> t_previous, double t, double before) const;
  // Whether `square`, between its runs `then` and `now` (both excluded), was read surely in
  // another state than `now`'s for a while, begun by hand, and then in `now`'s again after a
  // hand: the reading after it is as fresh as a changed one.
  bool read_otherwise_between(int square, const Run& then, const Run& now) const;
  // When the square last took on `state`: the start of the earliest of the consecutive runs
  // that show `state`, going back from the run used at `t`.
  std::optional<double> since(int square, SquareState state, double t, double before) const;
  // When the change to `state` may have begun: the end of the last reading of another state
  // before the consecutive runs that show `state` from the run used at `t` (the moment a hand
  // came over the square), or the first reading of `state` where the square stayed covered
  // longer than a move takes. Where `state` was first read with no hand over the square (a
  // flicker, not a move), the first hand over it after that instead, if any, else that first
  // reading; nullopt if the square showed nothing else before.
  std::optional<double> change_began(int square, SquareState state, double t, double before) const;
  // Whether a hand came over `square` and left it again between `t0` and `t1`: a run begun
  // after a cover starts in (t0, t1], after a run seen at or after `t0` (so not an arm that
  // already covered the square at `t0`, nor one still over it at `t1`).
  bool covered_and_left(int square, double t0, double t1) const;
  // When the hand of `seat` last left the board at or before `t` (the end of its last
  // stretch of frames over the board that started before `t`), if vision attributed one.
  std::optional<double> hand_left(Seat seat, double t) const;
  // When the arm of `seat` (BoardObservation::own_arms) left the board after its last visit
  // begun at or before `t`: the end of that stretch of frames, joined with stretches that
  // follow it within `gap` seconds (a frame or two it was not named in). Unlike hand_left, it
  // may be after `t` (the visit went on). nullopt if no visit began by `t`.
  std::optional<double> own_arm_left(Seat seat, double t, double gap) const;
  // Whether an arm of `seat` (BoardObservation::own_arms) came over the board after `t0` and
  // by `t1`.
  bool own_arm_came_between(Seat seat, double t0, double t1) const;
  // Drops runs that ended before `t`, keeping each square's last run.
  void forget_before(double t);

  // Learns how vision reads each square from a stretch of time whose board is known: the
  // frames after `t0` up to `t1`, each square but those in `skip` (squares that changed
  // meanwhile) holding `states[s]`. A square that reads a piece where none stands (a
  // shadow), or a white piece as black, is then taken at what it means instead of at its
  // word. Stretches must come in time order; frames up to `t1` are dropped.
  // `long_casters`: the squares of pieces whose shadows reach furthest (kings, queens,
  // bishops), counted apart in beside_rate. `leaned_over_by`: per lean_kind, the empty
  // squares such pieces' bodies hide for sure (TrackerConfig::leans_over), counted in
  // lean_rate; with `maybe_leaned_over` (squares pieces that may have moved hid), what they
  // read says nothing of shadows beside them.
  void learn(double t0, double t1, const std::array<SquareState, 64>& states, std::uint64_t skip,
             std::uint64_t long_casters,
             const std::array<std::uint64_t, kLeanKinds>& leaned_over_by,
             std::uint64_t maybe_leaned_over);
  // How often, as learned so far, an empty square read as a piece of colour `read` (kWhite
  // or kBlack) with a piece of the class and at the offset of `cell` (beside_cell): a shadow
  // falls one way, the light's, and reads as one colour; nullopt before enough readings.
  // Every piece around a square shares its readings (one beside a real caster gets some of
  // its rate), and the counts never fade.
  std::optional<double> beside_rate(SquareState read, std::size_t cell) const;
  // How often, as learned so far, empty square `square` read as a piece of colour `read`
  // (kWhite or kBlack) while a piece of that colour hid it, a tall one or only short ones
  // (learn's `leaned_over_by`): whether a body does show there from this camera. Drawn towards
  // the rate of all the board's squares hidden so, once that has enough readings: a square
  // never empty before would otherwise be taken at a guess (held-out 11623: f8, with its
  // bishop since the start, read black as before when 12b. B@e7 was dropped, and Be7 from f8
  // won, f8's reading taken for the f7 pawn's body at kLeanedOverReading). Of 174 such board
  // rates learned on 49 clips, 165 were under 1 %. nullopt while neither has enough readings.
  std::optional<double> lean_rate(int square, SquareState read, bool tall) const;
  // Whether a square is covered in the latest frame that was seen uncovered after `since`
  // (a hand still over the board, not a square that is never seen), or was uncovered only a
  // few frames ago.
  bool hand_still_over(double since) const;
  // When a hand first came over the board: the first frame with two squares more covered
  // than the first frame (where pieces' shadows may already cover some); nullopt if none yet.
  std::optional<double> first_hand() const;
  // How many times a hand came over the board between `t0` and `t1` (visits overlapping that
  // span): stretches of frames with at least two squares more covered than the fewest covered
  // in the seconds before (the pieces' own shadows and leans cover some all along).
  int hand_visits(double t0, double t1) const;
  // P(reading | true state) for one square as learned so far, pooled with the board's.
  std::array<std::array<double, 3>, 3> confusion(int square) const;

 private:
  struct SquareTimeline {
    std::deque<Run> runs;
    bool open = false;  // the last run is still growing (square visible in the last frame)
    Run pending;        // consecutive frames that disagree with the open run
  };
  std::array<SquareTimeline, 64> squares_{};
  // Where run_at's run stands in the square's runs (end() when none), for walking back.
  std::deque<Run>::const_iterator find_run(int square, double t, double before) const;
  // Whether a hand left a neighbour of `square` near when its run `now` (after `then`) began.
  bool neighbour_hand_left(int square, const Run& then, const Run& now) const;
  // Whether `square` is on a player's first rank and that player's arm
  // (BoardObservation::own_arms) was over the board near when its run `now` began: a hand
  // that puts a piece on the rank nearest its player may cover neither it nor a neighbour
  // in any frame vision reads (held-out 11435: 18A. Bf1, f1 read white from 132.77 s with
  // White A's arm named over the board and no hand seen over f1 or beside it).
  bool own_arm_by_its_rank(int square, const Run& now) const;
  void note_visit(double t, int covered);
  struct HandStretch {
    double start = 0.0;
    double end = 0.0;
  };
  std::array<std::deque<HandStretch>, 4> hands_{};     // per seat (board * 2 + colour)
  std::array<std::deque<HandStretch>, 4> own_arms_{};  // the same from own_arms
  // The frames not yet learned from: per square the normalised reading, or occluded.
  struct FrameReadings {
    double t = 0.0;
    std::uint64_t occluded = 0;
    std::array<std::array<float, 3>, 64> p{};
  };
  std::deque<FrameReadings> unlearned_;
  int first_covered_ = -1;  // squares covered in the first frame
  std::optional<double> first_hand_;
  struct Visit {
    double start = 0.0;
    double end = 0.0;
    bool open = true;
  };
  std::deque<Visit> visits_;
  // Covered squares per recent frame, for the floor visits are measured from.
  std::deque<std::pair<double, int>> recent_covered_;
  std::array<ReadingCounts, 64> square_counts_{};
  // Per beside_cell: frames an empty square read as white, as black, in all.
  std::array<std::array<double, 3>, kBesideCells> beside_counts_{};
  // Per square and lean_kind (square * kLeanKinds + kind): frames it read as the kind's colour
  // while empty and hidden so, and such frames in all.
  std::array<std::array<double, 2>, 64 * kLeanKinds> lean_counts_{};
  // The same summed over the board's squares, per lean_kind (lean_rate's fallback).
  std::array<std::array<double, 2>, kLeanKinds> lean_pool_{};
  ReadingCounts board_counts_{};
  double previous_t_ = 0.0;
  double latest_t_ = 0.0;
  int latest_frame_ = 0;
  std::deque<std::pair<double, int>> recent_frames_;  // (t, frame)
  bool seen_ = false;
};

}  // namespace bugcam::tracker::detail
