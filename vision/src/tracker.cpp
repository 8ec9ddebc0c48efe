// Temporal evidence per square: a still view and a confirmed reading per square, motion
// against the previous frame for hands and arms (DESIGN.md, "Hands are not pieces").
#include <algorithm>
#include <cmath>

#include <opencv2/imgproc.hpp>

#include "bugcam/vision.hpp"
#include "colour.hpp"

namespace bugcam::vision {

namespace {

// A pixel differs from another view by more than this (BGR distance, 0..441): well above
// sensor and compression noise after the warp is shrunk, well below a hand or a piece.
constexpr float kPixelChange = 20.0f;
// Shadows: the still view darkened (or lit up to this much, light flicker) with its hue kept.
constexpr float kShadowMaxScale = 1.02f;
// Share of a square that must be new (unlike both the previous frame and the still view)
// for something to cover it; a fingertip over a square's edge is about this much.
constexpr float kCoverFraction = 0.02f;
// Share of a square that is new, next to a covered square, for the hand to graze it.
constexpr float kGrazeFraction = 0.0f;
// Share of a covered square still unlike its still view below which it is clear again.
constexpr float kClearFraction = 0.004f;
// An unsure reading leans to a state that leads the next likeliest by this much (held-out
// 11477's d4: black 0.55-0.63, empty the rest).
constexpr float kLeanMargin = 0.1f;
// Share of a square moving against the previous frame that counts as motion nearby.
constexpr float kMotionFraction = 0.02f;
// Share of a square unlike its still view that counts as a change of the square.
constexpr float kChangeFraction = 0.06f;
// Share of a square unlike its still view, after a hand, for the square to be altered
// (SquareObservation::altered): more than a change of the square (kChangeFraction), since
// hands leave squares looking a little otherwise far more often than they put or take a
// piece vision misreads (held-out 10400: 293 onsets at kChangeFraction, 171 at this, 9 and 7
// of them on a square whose piece had changed in the last 4 s; the recordings the same).
constexpr float kAlteredFraction = 0.15f;
// Share of an altered square unlike its view from before the alteration, seen still again
// after a hand, below which the square is restored (SquareObservation::restored): as close
// as a still view stays to itself (kChangeFraction), allowing for a neighbour's shadow.
constexpr float kRestoredFraction = kChangeFraction;
// The still view follows slow changes of light on unchanged squares at this rate.
constexpr double kReferenceRate = 0.05;

using calibration::colour_distance;

// Whether `now` is `still` darkened by a shadow (the same hue, less light).
bool is_shadow(const cv::Vec3f& now, const cv::Vec3f& still) {
  return detail::is_shadow(now, still, kShadowMaxScale);
}

// Whether pixel `now` differs from the same pixel of a still view, shadows aside.
bool unlike_still(const cv::Vec3f& now, const cv::Vec3f& still) {
  return colour_distance(now, still) > kPixelChange && !is_shadow(now, still);
}

// Share of the pixels of `now` unlike `before` (two views of one square).
float unlike_share(const cv::Mat& now, const cv::Mat& before) {
  int unlike = 0;
  for (int y = 0; y < now.rows; ++y) {
    const cv::Vec3f* n = now.ptr<cv::Vec3f>(y);
    const cv::Vec3f* b = before.ptr<cv::Vec3f>(y);
    for (int x = 0; x < now.cols; ++x) unlike += unlike_still(n[x], b[x]) ? 1 : 0;
  }
  return static_cast<float>(unlike) / static_cast<float>(now.rows * now.cols);
}

// The probability `reading` gives the state `symbol` ('.', 'w' or 'b'); 0 for '?'.
float probability_of(const SquareObservation& reading, char symbol) {
  switch (symbol) {
    case '.':
      return reading.p_empty;
    case 'w':
      return reading.p_white;
    case 'b':
      return reading.p_black;
    default:
      return 0.0f;
  }
}

// The state an unsure reading leans to clearly ('?' where no state leads the next by
// kLeanMargin).
char leaning_symbol(const SquareObservation& reading) {
  std::array<std::pair<float, char>, 3> states = {
      {{reading.p_empty, '.'}, {reading.p_white, 'w'}, {reading.p_black, 'b'}}};
  std::sort(states.begin(), states.end(), [](const auto& a, const auto& b) { return a > b; });
  return states[0].first - states[1].first >= kLeanMargin ? states[0].second : '?';
}

SquareObservation confirmed_observation(char symbol) {
  SquareObservation out;
  out.p_empty = symbol == '.' ? 0.9f : 0.05f;
  out.p_white = symbol == 'w' ? 0.9f : 0.05f;
  out.p_black = symbol == 'b' ? 0.9f : 0.05f;
  if (symbol == '?') out.occluded = true;
  return out;
}

}  // namespace

BoardTracker::BoardTracker(TrackerOptions options) : options_(options) {
  options_.compare_px = std::max(4, options_.compare_px);
  reset();
}

void BoardTracker::reset() {
  previous_.release();
  reference_.release();
  confirmed_.fill('?');
  covered_.fill(false);
  visited_.fill(false);
  altered_.fill(false);
  for (cv::Mat& view : before_altered_) view.release();
  altered_frame_.fill(0);
  frame_ = 0;
  still_frames_.fill(0);
  candidate_.fill('?');
  candidate_frames_.fill(0);
  candidate_leaning_.fill(0);
  started_ = false;
}

std::array<SquareObservation, 64> BoardTracker::update(
    const cv::Mat& warped_bgr, const std::array<SquareObservation, 64>& single_frame) {
  const int s = options_.compare_px;
  cv::Mat small, now;
  cv::resize(warped_bgr, small, cv::Size(8 * s, 8 * s), 0, 0, cv::INTER_AREA);
  small.convertTo(now, CV_32FC3);

  std::array<SquareObservation, 64> out{};
  ++frame_;
  if (!started_) {
    started_ = true;
    now.copyTo(previous_);
    now.copyTo(reference_);
    for (size_t sq = 0; sq < 64; ++sq) {
      covered_[sq] = single_frame[sq].occluded;
      confirmed_[sq] = single_frame[sq].probable_symbol();
      out[sq] = single_frame[sq];
    }
    return out;
  }

  // Per square: pixels moving since the last frame, unlike the still view, and new (both).
  std::array<int, 64> moving{}, changed{}, fresh{};
  for (int y = 0; y < 8 * s; ++y) {
    const cv::Vec3f* n = now.ptr<cv::Vec3f>(y);
    const cv::Vec3f* p = previous_.ptr<cv::Vec3f>(y);
    const cv::Vec3f* r = reference_.ptr<cv::Vec3f>(y);
    const int rank = 7 - y / s;
    for (int x = 0; x < 8 * s; ++x) {
      const size_t sq = static_cast<size_t>(rank * 8 + x / s);
      const bool moved = colour_distance(n[x], p[x]) > kPixelChange;
      const bool changed_pixel = unlike_still(n[x], r[x]);
      moving[sq] += moved ? 1 : 0;
      changed[sq] += changed_pixel ? 1 : 0;
      fresh[sq] += moved && changed_pixel ? 1 : 0;
    }
  }
  const float area = static_cast<float>(s * s);
  std::array<bool, 64> moved_square{};
  for (size_t sq = 0; sq < 64; ++sq) {
    moved_square[sq] = static_cast<float>(moving[sq]) / area > kMotionFraction;
  }

  // A hand is one large thing: a square it only grazes (a few new pixels) next to a square
  // it covers is covered too.
  std::array<bool, 64> grazed{};
  for (int sq = 0; sq < 64; ++sq) {
    const float share = static_cast<float>(fresh[static_cast<size_t>(sq)]) / area;
    if (share <= kGrazeFraction) continue;
    for (int dr = -1; dr <= 1; ++dr) {
      for (int df = -1; df <= 1; ++df) {
        const int r = sq / 8 + dr;
        const int f = sq % 8 + df;
        if (r < 0 || r >= 8 || f < 0 || f >= 8) continue;
        const size_t n = static_cast<size_t>(r * 8 + f);
        if (covered_[n] || static_cast<float>(fresh[n]) / area > kCoverFraction) {
          grazed[static_cast<size_t>(sq)] = true;
        }
      }
    }
  }

  cv::Mat adapt_mask(now.size(), CV_8U, cv::Scalar(0));
  for (int sq = 0; sq < 64; ++sq) {
    const size_t i = static_cast<size_t>(sq);
    bool motion_near = false;
    for (int dr = -1; dr <= 1; ++dr) {
      for (int df = -1; df <= 1; ++df) {
        const int r = sq / 8 + dr;
        const int f = sq % 8 + df;
        if (r >= 0 && r < 8 && f >= 0 && f < 8) motion_near |= moved_square[size_t(r * 8 + f)];
      }
    }
    still_frames_[i] = motion_near ? 0 : still_frames_[i] + 1;
    const float changed_share = static_cast<float>(changed[i]) / area;
    const float fresh_share = static_cast<float>(fresh[i]) / area;
    const char single = single_frame[i].probable_symbol();
    const bool flagged = single_frame[i].occluded;
    // The state an unsure frame leans to clearly, with no hand over it ('?' if none), and
    // whether that is a piece other than the confirmed reading.
    const char lean = single != '?' || flagged ? single : leaning_symbol(single_frame[i]);
    const bool leans_to_new_piece = lean != '?' && lean != '.' && lean != confirmed_[i];

    // Covered: something new moved over the square; it stays covered while the square
    // differs from its still view, until nothing has moved nearby for a while and the
    // single frame sees the square clear.
    if (fresh_share > kCoverFraction || grazed[i]) {
      covered_[i] = true;
    } else if (covered_[i]) {
      if (changed_share <= kClearFraction) {
        covered_[i] = false;
      } else if (single != '?' && still_frames_[i] >= (flagged ? options_.override_frames
                                                               : options_.release_frames)) {
        // Flagged by the single frame too: a hand at rest, or a tall piece leaning over
        // the corners; only a longer calm says which.
        covered_[i] = false;
      } else if (leans_to_new_piece && changed_share > kChangeFraction &&
                 still_frames_[i] >= options_.leaning_confirm_frames) {
        // Unsure but leaning to a new piece, its view changed, calm for longer: the readers
        // disagree on it. (Barely changed, the square would read as before once released:
        // held-out 11457's pale queen on e2, leaning white, read empty.)
        covered_[i] = false;
      }
    }
    const cv::Rect cell((sq % 8) * s, (7 - sq / 8) * s, s, s);
    if (covered_[i]) {
      out[i] = single_frame[i];
      out[i].occluded = true;
      candidate_frames_[i] = 0;
      candidate_leaning_[i] = 0;
      visited_[i] = true;
      altered_[i] = false;
      continue;
    }
    const bool still = still_frames_[i] >= options_.confirm_frames;
    const bool changed_square = changed_share > kChangeFraction;
    // A new reading needs a change of the still view (or no reading yet) and must hold;
    // without such a change it needs to hold much longer.
    const int needed =
        changed_square || confirmed_[i] == '?' ? options_.confirm_frames : options_.override_frames;
    // An unsure frame whose likeliest state is the new reading still waiting to be confirmed
    // (and likelier than the confirmed one) holds its count: a pale piece on a pale square may
    // read sure and unsure by turns (fresh 11371: a white bishop on light b5, read empty for
    // 4.8 s since no twelve sure frames came in a row).
    const SquareObservation& frame_reading = single_frame[i];
    const float to_candidate = probability_of(frame_reading, candidate_[i]);
    const bool leans_to_candidate =
        single == '?' && candidate_frames_[i] > 0 &&
        to_candidate >=
            std::max({frame_reading.p_empty, frame_reading.p_white, frame_reading.p_black}) &&
        to_candidate > probability_of(frame_reading, confirmed_[i]);
    // Changed, or a piece seen where a hand left an empty square, and not yet confirmed:
    // unsure. Unchanged: keep the confirmed reading. (A piece that seems gone from an
    // unchanged view is more often hidden by the neighbour a hand just put down.)
    const auto not_yet_confirmed = [&] {
      const bool appeared = visited_[i] && confirmed_[i] == '.';
      return confirmed_observation(changed_square || appeared ? '?' : confirmed_[i]);
    };
    const auto confirm = [&](char reading) {
      confirmed_[i] = reading;
      candidate_frames_[i] = 0;
      candidate_leaning_[i] = 0;
      visited_[i] = false;
      altered_[i] = false;  // the reading tells
      before_altered_[i].release();
      now(cell).copyTo(reference_(cell));
      out[i] = confirmed_observation(reading);
    };
    // An unsure frame leaning clearly to a piece other than the confirmed reading, no sure frame
    // of a new reading before it: a new candidate, or more of the one it leans to.
    const bool starts_leaning =
        single == '?' && !leans_to_candidate && leans_to_new_piece && changed_square;
    if (starts_leaning && candidate_[i] != lean) {
      candidate_[i] = lean;
      candidate_frames_[i] = 0;
      candidate_leaning_[i] = 0;
    }
    if (leans_to_candidate || starts_leaning) {
      // Counted only where it leans clearly, and to a piece: an empty square is read empty
      // surely, and a piece read unsure, empty by one reader, may stand there still (held-out
      // 11469's e7 pawn, unsure at 0.51-0.68 empty for seconds, would have been confirmed
      // gone).
      if (lean == candidate_[i] && lean != '.') ++candidate_leaning_[i];
      // Only leaning frames confirm here; sure ones alone do where they come.
      if (still && candidate_leaning_[i] > 0 &&
          candidate_frames_[i] + candidate_leaning_[i] >=
              std::max(needed, options_.leaning_confirm_frames)) {
        confirm(candidate_[i]);
      } else {
        out[i] = not_yet_confirmed();
      }
      continue;
    }
    if (single == '?' || single == confirmed_[i]) {
      candidate_frames_[i] = 0;
      candidate_leaning_[i] = 0;
      const bool visited = visited_[i];
      if (single == confirmed_[i] && still) visited_[i] = false;
      bool restored = false;
      if (single == confirmed_[i] && changed_square && still) {
        // The same reading over a changed view (a nudged piece, a shadow that stays, or
        // after a hand a piece put or taken that vision misreads: the tracker is told).
        const bool kept = !before_altered_[i].empty() && visited &&
                          frame_ - altered_frame_[i] <= options_.restore_frames;
        if (kept && unlike_share(now(cell), before_altered_[i]) <= kRestoredFraction) {
          // As before the alteration: what a hand disturbed, a hand put back.
          restored = true;
          altered_[i] = false;
          before_altered_[i].release();
        } else if (!altered_[i] && visited && changed_share > kAlteredFraction) {
          altered_[i] = true;
          reference_(cell).copyTo(before_altered_[i]);
          altered_frame_[i] = frame_;
        }
        now(cell).copyTo(reference_(cell));
      } else if (!changed_square && still) {
        adapt_mask(cell).setTo(255);
      }
      out[i] = confirmed_observation(changed_square && single == '?' ? '?' : confirmed_[i]);
      out[i].altered = altered_[i];
      out[i].restored = restored;
      continue;
    }
    if (candidate_[i] == single) {
      ++candidate_frames_[i];
    } else {
      candidate_[i] = single;
      candidate_frames_[i] = 1;
      candidate_leaning_[i] = 0;
    }
    if (still && candidate_frames_[i] >= needed) {
      confirm(single);
    } else {
      out[i] = not_yet_confirmed();
    }
  }
  cv::accumulateWeighted(now, reference_, kReferenceRate, adapt_mask);
  now.copyTo(previous_);
  return out;
}

TrackingReader::TrackingReader(calibration::Calibration calibration, VisionOptions options,
                               TrackerOptions tracker_options)
    : reader_(calibration, options), levers_(calibration) {
  if (options.watch_arms) arms_.emplace(reader_.calibration());
  trackers_.assign(reader_.calibration().boards.size(), BoardTracker(tracker_options));
}

void TrackingReader::reset() {
  for (BoardTracker& tracker : trackers_) tracker.reset();
  levers_ = LeverReader(reader_.calibration());
  if (arms_) arms_.emplace(reader_.calibration());
  holding_memories_.clear();
  frames_read_ = 0;
}

FrameObservation TrackingReader::read(const cv::Mat& frame_bgr) {
  return read(frame_bgr, reader_.read_boards(frame_bgr));
}

FrameObservation TrackingReader::read(const cv::Mat& frame_bgr, BoardsReading boards) {
  std::vector<cv::Mat> warped;
  const bool read_holdings_now = frames_read_ % std::max(1, reader_.options().holdings_every) == 0;
  ++frames_read_;
  FrameObservation observation =
      reader_.read(frame_bgr, std::move(boards), &warped, &holding_memories_, read_holdings_now);
  for (size_t b = 0; b < observation.boards.size() && b < trackers_.size(); ++b) {
    observation.boards[b].squares = trackers_[b].update(warped[b], observation.boards[b].squares);
  }
  if (reader_.options().read_clocks) {
    observation.clocks = levers_.read(frame_bgr, std::move(observation.clocks));
  }
  if (!arms_) return observation;
  std::vector<std::vector<std::string>> arms = arms_->read(frame_bgr);
  for (size_t b = 0; b < observation.boards.size() && b < arms.size(); ++b) {
    observation.boards[b].arms = std::move(arms[b]);
  }
  return observation;
}

}  // namespace bugcam::vision
