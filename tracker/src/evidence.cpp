#include "evidence.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

#include "bughouse.hpp"

namespace bugcam::tracker::detail {
namespace {

// A reading this sure of a different state, this many frames in a row, starts a new run
// even without a hand.
constexpr double kChangeConfidence = 0.7;
// A hand visit: at least this many squares more covered than the fewest in the last
// kVisitFloorSeconds, ending when below that for kVisitGapSeconds. Visits are kept this long
// (a board may wait minutes for a piece to drop; hand_visits looks back to its last press).
constexpr int kVisitSquares = 2;
constexpr double kVisitFloorSeconds = 3.0;
constexpr double kVisitGapSeconds = 0.1;
constexpr double kVisitsKeptSeconds = 600.0;
// Frame numbers by time are kept this long (lever presses reach the tracker up to a few
// seconds late).
constexpr double kFramesKeptSeconds = 10.0;
constexpr int kChangeFrames = 10;
// Frames a square must have been seen since a hand left it for a press's evidence to be in
// (0.2 s at 30 fps).
constexpr int kSettledFrames = 6;
// A square read surely (kChangeConfidence) in another state this long between two presses that
// read it alike held something else meanwhile, not a flicker (seconds; read_otherwise_between).
constexpr double kReadOtherwiseSeconds = 1.0;
// A hand making a move covers its squares for at most about this long (seconds).
constexpr double kLongestReach = 2.0;
// Floor of a state's probability: one square's evidence can cost a hypothesis at most
// log(kFloor), so a single stubborn misread never outweighs the rules.
constexpr double kFloor = 0.01;
// A run counts as one independent reading per this many frames (misreads come in spells
// of a few frames, so frames within one are not independent), up to kMaxReadings: a
// disagreement that lasts the whole run is no misread, and must be able to outweigh the
// low prior of an illegal move or a disturbed position.
constexpr double kFramesPerReading = 5.0;
constexpr double kMaxReadings = 6.0;
// Learned readings: what a vision without bias is taken to do before anything is learned
// (per true state, the chance of each reading), and how many frames of weight that prior
// has against the board's pooled counts, and the board's against one square's.
constexpr double kPriorRight = 0.97;
constexpr double kBoardPriorFrames = 3000.0;
constexpr double kSquarePriorFrames = 60.0;
// Counts are scaled down beyond this many frames per state, so that a reading that changes
// with the scene (a shadow that comes and goes with a neighbour) is followed.
constexpr double kSquareCountCap = 900.0;
constexpr double kBoardCountCap = 64.0 * 900.0;
// Readings (an empty square in one frame, with a piece at the offset) before an offset's rate
// is trusted: in a start position an offset may gather these within a second.
constexpr double kBesideMinReadings = 300.0;
// Frames of an empty square hidden by a piece before its lean_rate is trusted (two seconds),
// and counted at most (older frames are scaled down: the light may change).
constexpr double kLeanMinReadings = 60.0;
constexpr double kLeanCountCap = 900.0;
// Frames of the board's empty squares hidden so before their pooled rate is trusted (ten
// seconds; two on one square say little of the others).
constexpr double kLeanPoolMinReadings = 300.0;
// Frames kept for learning at most, should commits stop coming.
constexpr double kUnlearnedSeconds = 120.0;

std::array<double, 3> normalised(const SquareEvidence& e) {
  const double total = std::max(1e-9, double{e.empty} + e.white + e.black);
  return {e.empty / total, e.white / total, e.black / total};
}

void accumulate(Run& run, const BoardObservation& o, const std::array<double, 3>& p, bool altered) {
  run.altered = run.altered || altered;
  if (run.frames == 0) {
    run.start = o.t;
    run.first_frame = o.frame;
  }
  run.end = o.t;
  run.last_frame = o.frame;
  ++run.frames;
  for (int i = 0; i < 3; ++i) run.sum[i] += p[i];
}

int argmax(const std::array<double, 3>& p) {
  return static_cast<int>(std::max_element(p.begin(), p.end()) - p.begin());
}

}  // namespace

void ReadingCounts::add(int state, const std::array<float, 3>& reading, double cap) {
  std::array<double, 3>& row = by_state[state];
  for (int i = 0; i < 3; ++i) row[i] += reading[i];
  const double total = row[0] + row[1] + row[2];
  if (total > cap) {
    for (double& v : row) v *= cap / total;
  }
}

SquareState most_likely(const SquareLikelihood& reading) {
  return static_cast<SquareState>(argmax(reading));
}

SquareState Run::mean_state() const {
  return static_cast<SquareState>(argmax(sum));
}

void BoardEvidence::add(const BoardObservation& observation) {
  const auto note = [&](const std::vector<Seat>& seats,
                        std::array<std::deque<HandStretch>, 4>& by_seat) {
    for (const Seat& seat : seats) {
      auto& stretches = by_seat[seat_index(seat)];
      // A stretch goes on while the hand is seen in consecutive frames.
      if (!stretches.empty() && stretches.back().end >= previous_t_ - 1e-9 && seen_) {
        stretches.back().end = observation.t;
      } else {
        stretches.push_back({observation.t, observation.t});
      }
    }
  };
  note(observation.hands, hands_);
  note(observation.own_arms, own_arms_);
  previous_t_ = observation.t;
  seen_ = true;
  FrameReadings& readings = unlearned_.emplace_back();
  readings.t = observation.t;
  latest_t_ = observation.t;
  latest_frame_ = observation.frame;
  recent_frames_.emplace_back(observation.t, observation.frame);
  while (recent_frames_.front().first < observation.t - kFramesKeptSeconds) {
    recent_frames_.pop_front();
  }
  for (int s = 0; s < 64; ++s) {
    SquareTimeline& line = squares_[s];
    const SquareEvidence& e = observation.squares[s];
    if (e.occluded) {
      readings.occluded |= std::uint64_t{1} << s;
      line.open = false;
      line.pending = Run{};
      continue;
    }
    const std::array<double, 3> p = normalised(e);
    for (int i = 0; i < 3; ++i) readings.p[s][i] = static_cast<float>(p[i]);
    if (!line.open) {
      line.runs.push_back(Run{});
      line.runs.back().after_cover = true;
      line.open = true;
      line.pending = Run{};
      accumulate(line.runs.back(), observation, p, e.altered);
      continue;
    }
    Run& run = line.runs.back();
    const int reading = argmax(p);
    const bool differs =
        reading != static_cast<int>(run.mean_state()) && p[reading] >= kChangeConfidence;
    if (!differs) {
      // Frames held back as a possible change rejoin the run when the change does not last.
      if (line.pending.frames > 0) {
        for (int i = 0; i < 3; ++i) run.sum[i] += line.pending.sum[i];
        run.frames += line.pending.frames;
        run.altered = run.altered || line.pending.altered;
        line.pending = Run{};
      }
      accumulate(run, observation, p, e.altered);
      continue;
    }
    if (line.pending.frames > 0 && argmax(line.pending.sum) != reading) line.pending = Run{};
    accumulate(line.pending, observation, p, e.altered);
    if (line.pending.frames >= kChangeFrames) {
      line.runs.push_back(line.pending);
      line.pending = Run{};
    }
  }
  const int covered = std::popcount(readings.occluded);
  if (first_covered_ < 0) first_covered_ = covered;
  if (!first_hand_ && covered >= first_covered_ + 2) first_hand_ = observation.t;
  note_visit(observation.t, covered);
  while (unlearned_.front().t < observation.t - kUnlearnedSeconds) unlearned_.pop_front();
}

std::deque<Run>::const_iterator BoardEvidence::find_run(int square, double t, double before) const {
  const std::deque<Run>& runs = squares_[square].runs;
  // Half a frame of slack: a press falls between frames.
  constexpr double kSlack = 0.02;
  for (auto it = runs.rbegin(); it != runs.rend(); ++it) {
    if (it->start <= t + kSlack && it->end >= t - kSlack) return std::prev(it.base());
    if (it->end < t - kSlack) break;
  }
  return std::find_if(runs.begin(), runs.end(),
                      [&](const Run& run) { return run.start > t && run.start < before; });
}

const Run* BoardEvidence::run_at(int square, double t, double before) const {
  const auto it = find_run(square, t, before);
  return it == squares_[square].runs.end() ? nullptr : &*it;
}

int BoardEvidence::frame_at(double t) const {
  int frame = recent_frames_.empty() ? latest_frame_ : recent_frames_.front().second;
  for (const auto& [when, number] : recent_frames_) {
    if (when > t) break;
    frame = number;
  }
  return frame;
}

const Run* BoardEvidence::run_after(int square, const Run& run) const {
  const std::deque<Run>& runs = squares_[square].runs;
  for (auto it = runs.begin(); it != runs.end(); ++it) {
    if (&*it == &run) return std::next(it) == runs.end() ? nullptr : &*std::next(it);
  }
  return nullptr;
}

std::array<std::optional<BoardEvidence::SquareReading>, 64> BoardEvidence::readings_at(
    double t, double before) const {
  std::array<std::optional<SquareReading>, 64> out;
  for (int s = 0; s < 64; ++s) out[s] = reading_at(s, t, before);
  return out;
}

std::optional<BoardEvidence::SquareReading> BoardEvidence::reading_at(int square, double t,
                                                                      double before) const {
  const Run* run = run_at(square, t, before);
  if (run == nullptr || run->frames == 0) return std::nullopt;
  SquareReading reading;
  reading.state = run->mean_state();
  reading.weight = std::min(kMaxReadings, run->frames / kFramesPerReading);
  const std::array<std::array<double, 3>, 3> reads = confusion(square);
  for (int state = 0; state < 3; ++state) {
    double p = 0.0;
    for (int r = 0; r < 3; ++r) p += reads[state][r] * run->sum[r] / run->frames;
    reading.l[state] = reading.weight * std::log(kFloor + (1.0 - 3.0 * kFloor) * p);
  }
  return reading;
}

bool BoardEvidence::hand_still_over(double since) const {
  return std::any_of(squares_.begin(), squares_.end(), [&](const SquareTimeline& line) {
    if (line.runs.empty()) return false;
    const Run& last = line.runs.back();
    // Or only just left: a reading of a frame or two would count next to nothing (fresh
    // 7000: the knight on e4 seen one frame before the press was taken, so a misread of b1
    // decided 11A. Nb1 for Ne4).
    return (!line.open && last.end > since) ||
           (line.open && last.after_cover && last.start > since && last.frames < kSettledFrames);
  });
}

std::optional<double> BoardEvidence::first_hand() const {
  return first_hand_;
}

std::array<std::array<double, 3>, 3> BoardEvidence::confusion(int square) const {
  std::array<std::array<double, 3>, 3> out{};
  for (int state = 0; state < 3; ++state) {
    const std::array<double, 3>& board = board_counts_.by_state[state];
    const std::array<double, 3>& mine = square_counts_[square].by_state[state];
    const double board_total = board[0] + board[1] + board[2];
    const double mine_total = mine[0] + mine[1] + mine[2];
    for (int r = 0; r < 3; ++r) {
      const double prior = r == state ? kPriorRight : (1.0 - kPriorRight) / 2.0;
      const double pooled =
          (board[r] + kBoardPriorFrames * prior) / (board_total + kBoardPriorFrames);
      out[state][r] = (mine[r] + kSquarePriorFrames * pooled) / (mine_total + kSquarePriorFrames);
    }
  }
  return out;
}

void BoardEvidence::learn(double t0, double t1, const std::array<SquareState, 64>& states,
                          std::uint64_t skip, std::uint64_t long_casters,
                          const std::array<std::uint64_t, kLeanKinds>& leaned_over_by,
                          std::uint64_t maybe_leaned_over) {
  std::uint64_t leaned_over = maybe_leaned_over;
  for (const std::uint64_t hidden : leaned_over_by) leaned_over |= hidden;
  std::uint64_t casters = 0;  // the pieces that stood still, whose shade is learned
  for (int s = 0; s < 64; ++s) {
    if (states[s] != SquareState::kEmpty) casters |= std::uint64_t{1} << s;
  }
  casters &= ~skip;
  while (!unlearned_.empty() && unlearned_.front().t <= t1) {
    const FrameReadings& frame = unlearned_.front();
    if (frame.t > t0) {
      for (int s = 0; s < 64; ++s) {
        const std::uint64_t bit = std::uint64_t{1} << s;
        if ((skip & bit) || (frame.occluded & bit)) continue;
        const int state = static_cast<int>(states[s]);
        // The state read, not the probabilities: the confusion says how often vision's
        // answer is wrong; how sure it was of each answer is in the readings themselves.
        const auto read_state = static_cast<std::size_t>(
            std::max_element(frame.p[s].begin(), frame.p[s].end()) - frame.p[s].begin());
        std::array<float, 3> read{};
        read[read_state] = 1.0f;
        square_counts_[s].add(state, read, kSquareCountCap);
        board_counts_.add(state, read, kBoardCountCap);
        if (states[s] != SquareState::kEmpty) continue;
        for (std::size_t kind = 0; kind < kLeanKinds; ++kind) {
          if (!(leaned_over_by[kind] & bit)) continue;
          auto& cell = lean_counts_[lean_index(s, kind)];
          if (read_state == static_cast<std::size_t>(lean_colour(kind))) cell[0] += 1.0;
          cell[1] += 1.0;
          if (cell[1] > kLeanCountCap) {
            cell[0] *= kLeanCountCap / cell[1];
            cell[1] = kLeanCountCap;
          }
        }
        if (leaned_over & bit) continue;
        for (std::uint64_t q = kBesideAround[static_cast<std::size_t>(s)] & casters; q != 0;
             q &= q - 1) {
          const int caster = std::countr_zero(q);
          auto& cell = beside_counts_[beside_cell(s, caster, ((long_casters >> caster) & 1) != 0)];
          if (read_state != 0) cell[read_state - 1] += 1.0;
          cell[2] += 1.0;
        }
      }
    }
    unlearned_.pop_front();
  }
  lean_pool_ = {};
  for (int s = 0; s < 64; ++s) {
    for (std::size_t kind = 0; kind < kLeanKinds; ++kind) {
      lean_pool_[kind][0] += lean_counts_[lean_index(s, kind)][0];
      lean_pool_[kind][1] += lean_counts_[lean_index(s, kind)][1];
    }
  }
}

std::optional<double> BoardEvidence::lean_rate(int square, SquareState read, bool tall) const {
  if (read == SquareState::kEmpty) return std::nullopt;
  const std::size_t kind = lean_kind(read, tall);
  const auto& cell = lean_counts_[lean_index(square, kind)];
  const auto& pool = lean_pool_[kind];
  if (pool[1] < kLeanPoolMinReadings) {
    if (cell[1] < kLeanMinReadings) return std::nullopt;
    return cell[0] / cell[1];
  }
  // The square's own frames, drawn towards the board's rate as by kLeanMinReadings more.
  return (cell[0] + kLeanMinReadings * pool[0] / pool[1]) / (cell[1] + kLeanMinReadings);
}

std::optional<double> BoardEvidence::beside_rate(SquareState read, std::size_t cell_index) const {
  const auto& cell = beside_counts_[cell_index];
  if (cell[2] < kBesideMinReadings || read == SquareState::kEmpty) return std::nullopt;
  return cell[read == SquareState::kWhite ? 0 : 1] / cell[2];
}

// A square whose reading changed with no hand seen over it, while a hand left one of its
// neighbours this near the change (seconds before its new run began, and after): the hand
// that made the change, seen only beside its square (held-out 11206: the hand that dropped
// the bishop on a4, at the board's edge, read over b5 alone). The same span for the arm of
// the player whose first rank the square is on (own_arm_by_its_rank).
constexpr double kNeighbourHandBeforeSeconds = 1.0;
constexpr double kNeighbourHandAfterSeconds = 0.2;

bool BoardEvidence::neighbour_hand_left(int square, const Run& then, const Run& now) const {
  const int file = square % 8;
  const int rank = square / 8;
  for (int f = std::max(0, file - 1); f <= std::min(7, file + 1); ++f) {
    for (int r = std::max(0, rank - 1); r <= std::min(7, rank + 1); ++r) {
      if (f == file && r == rank) continue;
      for (const Run& run : squares_[r * 8 + f].runs) {
        if (run.start > now.start + kNeighbourHandAfterSeconds) break;
        if (run.after_cover && run.start > then.start &&
            run.start >= now.start - kNeighbourHandBeforeSeconds) {
          return true;
        }
      }
    }
  }
  return false;
}

bool BoardEvidence::own_arm_by_its_rank(int square, const Run& now) const {
  const int rank = square / 8;
  if (rank != 0 && rank != 7) return false;
  // The player whose first rank it is (seat_index: board * 2 + colour, White 0).
  for (std::size_t seat = 0; seat < own_arms_.size(); ++seat) {
    if (static_cast<int>(seat % 2) != (rank == 0 ? 0 : 1)) continue;
    for (const HandStretch& stretch : own_arms_[seat]) {
      if (stretch.start <= now.start + kNeighbourHandAfterSeconds &&
          stretch.end >= now.start - kNeighbourHandBeforeSeconds) {
        return true;
      }
    }
  }
  return false;
}

BoardEvidence::Changes BoardEvidence::changes(std::optional<double> t_previous, double t,
                                              double before) const {
  Changes out;
  for (int s = 0; s < 64; ++s) {
    const std::uint64_t bit = std::uint64_t{1} << s;
    const Run* now = run_at(s, t, before);
    if (now == nullptr) {
      out.touched |= bit;  // covered from the press on: no reading, a change is possible
      continue;
    }
    const std::deque<Run>& runs = squares_[s].runs;
    const Run* then = t_previous ? run_at(s, *t_previous, t) : &runs.front();
    // Unread at the previous press and first read empty again in `now`, where it read a piece
    // before: the piece left under that cover (held-out 11417: f1 read unsure, so flagged
    // covered, from 5 s before 7b's press until after it; 8B. Bd3 took the bishop, and f1
    // read empty was taken for a change with no hand over it). A piece read where one read
    // empty before is not taken so: a shadow or a piece's body read over an empty square
    // comes and goes with the light and the pieces around, hands or not (held-out 11407: f5
    // read white, under e5's pawn, after 5 s unsure). Where the previous press counted `now`,
    // it reads as counted (press_evidence).
    if (then == now && t_previous && now->start > *t_previous &&
        now->mean_state() == SquareState::kEmpty) {
      for (auto it = runs.rbegin(); it != runs.rend(); ++it) {
        if (it->end >= *t_previous) continue;
        if (it->mean_state() != SquareState::kEmpty) then = &*it;
        break;
      }
    }
    if (then == now) continue;
    // Covered at some time after the run of `t_previous` up to the run of `t`.
    bool covered = then == nullptr;
    for (const Run& run : runs) {
      if (run.start > now->start) break;
      if (run.after_cover && (then == nullptr || run.start > then->start)) covered = true;
    }
    if (!covered && then != nullptr && then->mean_state() != now->mean_state()) {
      covered = neighbour_hand_left(s, *then, *now) || own_arm_by_its_rank(s, *now);
    }
    if (!covered) continue;
    out.touched |= bit;
    if (then == nullptr || then->mean_state() != now->mean_state()) {
      out.changed |= bit;
    } else if (read_otherwise_between(s, *then, *now)) {
      out.changed |= bit;
      out.revisited |= bit;
    } else if (now->altered) {
      out.altered |= bit;
    }
  }
  return out;
}

bool BoardEvidence::read_otherwise_between(int square, const Run& then, const Run& now) const {
  const SquareState state = now.mean_state();
  // The current stretch of consecutive runs of one other state (a passing arm splits one).
  int other = -1;  // its state, -1 none
  double other_seconds = 0.0;
  double other_frames = 0.0;
  double other_sure = 0.0;  // summed probability of `other` over its frames
  bool long_other = false;
  for (const Run& run : squares_[square].runs) {
    if (run.start <= then.start) continue;
    if (run.start > now.start) break;
    const SquareState read = run.mean_state();
    if (read == state) {
      // Back to `state` by hand after a long, sure stretch of another.
      if (long_other && run.after_cover) return true;
      other = -1;
      continue;
    }
    if (other != static_cast<int>(read)) {
      if (!run.after_cover) continue;  // a stretch begins by hand
      other = static_cast<int>(read);
      other_seconds = other_frames = other_sure = 0.0;
    }
    other_seconds += run.end - run.start;
    other_frames += run.frames;
    other_sure += run.sum[static_cast<std::size_t>(read)];
    long_other = long_other || (other_seconds >= kReadOtherwiseSeconds &&
                                other_sure >= kChangeConfidence * other_frames);
  }
  return false;
}

bool BoardEvidence::covered_and_left(int square, double t0, double t1) const {
  bool seen = false;
  for (const Run& run : squares_[square].runs) {
    if (run.start > t1) break;
    if (seen && run.after_cover && run.start > t0) return true;
    if (run.end >= t0) seen = true;
  }
  return false;
}

std::optional<double> BoardEvidence::since(int square, SquareState state, double t,
                                           double before) const {
  const std::deque<Run>& runs = squares_[square].runs;
  auto it = find_run(square, t, before);
  if (it == runs.end() || it->mean_state() != state) return std::nullopt;
  // Back across runs split without a hand (contiguous in time), not across a hand: a
  // misread just before the hand came must not count as the piece being there.
  constexpr double kContiguous = 0.1;
  double start = it->start;
  while (it != runs.begin()) {
    const double this_start = it->start;
    --it;
    if (it->mean_state() != state || it->end < this_start - kContiguous) break;
    start = it->start;
  }
  return start;
}

std::optional<double> BoardEvidence::change_began(int square, SquareState state, double t,
                                                  double before) const {
  const std::deque<Run>& runs = squares_[square].runs;
  auto it = find_run(square, t, before);
  if (it == runs.end() || it->mean_state() != state) return std::nullopt;
  // Going back through the runs showing `state`: when the earliest hand over the square among
  // them came (or, under it longer than a move takes, when it left).
  std::optional<double> hand_came;
  while (it != runs.begin()) {
    const Run& later = *it;
    --it;
    // A glimpse between two covers may be a misread: it does not carry the state back.
    if (it->mean_state() != state || it->frames < kChangeFrames) {
      // Read so first with no hand over the square: pieces move by hand, so that reading
      // was vision's (a square that flickers under a tall neighbour), and the change came
      // under the hand that followed, if any (held-out 5005: h6 read as a pawn on and off
      // for seconds before it was dropped there, a false premove).
      if (!later.after_cover && hand_came) return hand_came;
      // Under a hand for longer than a move takes, the change may have come at any time.
      const bool hand = later.after_cover && later.start - it->end <= kLongestReach;
      return hand ? it->end : later.start;
    }
    if (later.after_cover) {
      hand_came = later.start - it->end <= kLongestReach ? it->end : later.start;
    }
  }
  return std::nullopt;
}

std::optional<double> BoardEvidence::hand_left(Seat seat, double t) const {
  const auto& stretches = hands_[seat_index(seat)];
  for (auto it = stretches.rbegin(); it != stretches.rend(); ++it) {
    if (it->start <= t) return std::min(it->end, t);
  }
  return std::nullopt;
}

std::optional<double> BoardEvidence::own_arm_left(Seat seat, double t, double gap) const {
  std::optional<double> end;
  for (const HandStretch& stretch : own_arms_[seat_index(seat)]) {
    if (stretch.start <= t || (end && stretch.start - *end <= gap)) {
      end = stretch.end;
    } else {
      break;  // stretches are in time order
    }
  }
  return end;
}

bool BoardEvidence::own_arm_came_between(Seat seat, double t0, double t1) const {
  const auto& stretches = own_arms_[seat_index(seat)];
  return std::any_of(stretches.begin(), stretches.end(), [&](const HandStretch& stretch) {
    return stretch.start > t0 && stretch.start <= t1;
  });
}

void BoardEvidence::note_visit(double t, int covered) {
  while (!recent_covered_.empty() && recent_covered_.front().first < t - kVisitFloorSeconds) {
    recent_covered_.pop_front();
  }
  int floor = covered;
  for (const auto& [when, count] : recent_covered_) floor = std::min(floor, count);
  recent_covered_.emplace_back(t, covered);
  const bool over = covered >= floor + kVisitSquares;
  const bool open = !visits_.empty() && visits_.back().open;
  if (over) {
    if (open) {
      visits_.back().end = t;
    } else {
      visits_.push_back({t, t, true});
    }
  } else if (open && t - visits_.back().end >= kVisitGapSeconds - 1e-9) {
    visits_.back().open = false;
  }
}

int BoardEvidence::hand_visits(double t0, double t1) const {
  int count = 0;
  for (const Visit& v : visits_) count += v.end >= t0 && v.start <= t1 ? 1 : 0;
  return count;
}

void BoardEvidence::forget_before(double t) {
  while (visits_.size() > 1 && visits_.front().end < t - kVisitsKeptSeconds) visits_.pop_front();
  for (auto* by_seat : {&hands_, &own_arms_}) {
    for (auto& stretches : *by_seat) {
      while (stretches.size() > 1 && stretches.front().end < t) stretches.pop_front();
    }
  }
  for (SquareTimeline& line : squares_) {
    while (line.runs.size() > 1 && line.runs.front().end < t) line.runs.pop_front();
  }
}

}  // namespace bugcam::tracker::detail
