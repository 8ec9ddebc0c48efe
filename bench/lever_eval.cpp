// Clock presses read from the levers in the picture (`--clocks vision`) against a synthetic
// clip's clock log: per board, presses found within 0.2 s of a true one, missed, and
// spurious, the lever state per frame, and the clocks' starts (the first tick of White's
// display), and the flag falls (a ticking display that stops). Only the clocks are read, so
// a clip takes seconds: for tuning the lever reading and tracker::LeverPressDetector.
//
// usage: lever_eval CLIP_DIR... [--verbose] [--displays EVERY_NTH_FRAME] [--dump-displays DIR]
//                   [--time-control SECONDS]
// --displays also reads the clocks' displays every so many frames against the log;
// --dump-displays writes the first frame's clock areas, and each misread one, as read;
// --time-control gives the detector the clocks' starting time (else it has the displays only).
// Each press found carries remaining times, compared with the log's.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include <opencv2/imgcodecs.hpp>

#include "bugcam/calibration.hpp"
#include "bugcam/capture.hpp"
#include "bugcam/evaluation.hpp"
#include "bugcam/pipeline.hpp"
#include "bugcam/tracker.hpp"
#include "bugcam/vision.hpp"

namespace {

using namespace bugcam;
namespace fs = std::filesystem;

// A lever press found this close to a true one is the same press.
constexpr double kMatchSeconds = 0.5;
constexpr double kGoodSeconds = 0.2;

struct Score {
  int truth = 0;
  int found = 0;  // matched within kMatchSeconds
  int good = 0;   // of them within kGoodSeconds
  int spurious = 0;
  double error_max = 0.0;
  std::vector<double> errors;  // found minus true press time, of the matched presses
  int frames = 0;
  int frames_right = 0;    // the reading equals the truth
  int frames_unknown = 0;  // no reading
  // The same per clock (A, B): frames, read right, read wrong (the rest unknown); printed per
  // clip only.
  std::array<int, 2> clock_frames{};
  std::array<int, 2> clock_right{};
  std::array<int, 2> clock_wrong{};
  // Pairs of matched presses on the two boards this close in truth, and of them those found
  // in the other order (the BPGN lists moves in press order: a game is exact only with none).
  int close_pairs = 0;
  // Clock starts in the log, those found within kGoodSeconds, the worst error of those, and
  // starts found where the log has none or farther off.
  int starts = 0;
  int starts_found = 0;
  double start_error_max = 0.0;
  int starts_spurious = 0;
  int pairs_swapped = 0;
  // Flag falls in the log, those found on the right board and side within kFlagSeconds, and
  // flags found otherwise.
  int flags = 0;
  int flags_found = 0;
  int flags_spurious = 0;
  // Remaining times in the log at the matched presses (each side's), those the found press
  // carries, of them within kClockSeconds, and the worst error.
  int clocks = 0;
  int clocks_given = 0;
  int clocks_within = 0;
  double clock_error_max = 0.0;
};

// A remaining time this close to the log's is right (as SPEC's figures ask).
constexpr double kClockSeconds = 0.1;

// A flag fall found this close to the log's counts (as an incident's time must be).
constexpr double kFlagSeconds = 3.0;

// Presses on the two boards closer than this are a close pair.
constexpr double kClosePairSeconds = 0.3;

// How found presses sit against true ones: the mean signed error (a bias the detector could
// take off) and the median and 90th percentile of the absolute error.
std::string error_summary(const std::vector<double>& errors) {
  if (errors.empty()) return "no press found";
  double sum = 0.0;
  std::vector<double> absolute;
  for (const double e : errors) {
    sum += e;
    absolute.push_back(std::abs(e));
  }
  std::sort(absolute.begin(), absolute.end());
  const auto at = [&](double q) {
    return absolute[std::min(absolute.size() - 1,
                             static_cast<std::size_t>(q * static_cast<double>(absolute.size())))];
  };
  char text[128];
  std::snprintf(text, sizeof text, "error mean %+.3f s, median |error| %.3f s, 90 %% within %.3f s",
                sum / static_cast<double>(errors.size()), at(0.5), at(0.9));
  return text;
}

struct DisplayScore {
  int sides = 0;  // sides read, away from a tick
  int right = 0;
  int wrong = 0;
  // Of them, of a clock that stands: the readings that may set a clock (the running side's
  // are not used; its lever's raised end may hide the digits' tops, a 7 reading as a 1).
  int wrong_standing = 0;
};

int evaluate(const fs::path& clip, bool verbose, int display_every, const fs::path& dump,
             std::optional<double> time_control, Score& total, DisplayScore& display_total) {
  const std::vector<capture::ClockEvent> log = capture::read_clock_log(clip / "clocks.jsonl");
  std::unique_ptr<capture::FrameSource> source =
      capture::open_frame_source((clip / "video.mp4").string());
  std::optional<capture::Frame> first = source->next();
  if (!first) {
    std::cerr << clip.string() << ": no frames\n";
    return 1;
  }
  const calibration::Calibration calibration = calibration::calibrate(first->image);
  std::array<std::vector<capture::ClockEvent>, 2> truth;
  std::array<std::optional<double>, 2> true_start;
  std::vector<capture::ClockEvent> true_flags, found_flags;
  for (const capture::ClockEvent& e : log) {
    if (e.kind == capture::ClockEvent::Kind::kFlag) true_flags.push_back(e);
    if (e.kind == capture::ClockEvent::Kind::kPress) truth[static_cast<int>(e.board)].push_back(e);
    if (e.kind == capture::ClockEvent::Kind::kStart) true_start[static_cast<int>(e.board)] = e.t;
  }
  std::array<std::optional<double>, 2> found_start;
  std::array<std::vector<capture::ClockEvent>, 2> found;
  tracker::LeverPressDetector detector;
  if (time_control) detector.set_time_control(*time_control, 0.0);
  vision::LeverReader reader(calibration);
  std::optional<capture::Frame> frame = std::move(first);
  Score score;
  DisplayScore displays;
  // What the detector returns: the clocks' starts and the presses.
  const auto note = [&](const capture::ClockEvent& event) {
    const auto board = static_cast<int>(event.board);
    if (event.kind == capture::ClockEvent::Kind::kStart) {
      found_start[board] = event.t;
    } else if (event.kind == capture::ClockEvent::Kind::kFlag) {
      found_flags.push_back(event);
    } else {
      found[board].push_back(event);
    }
  };
  while (frame) {
    vision::FrameObservation seen;
    seen.clocks = reader.read(frame->image);
    // The levers as `bugcam record` hands them to the detector.
    const pipeline::TrackerInputs inputs =
        pipeline::to_tracker_inputs(seen, frame->index, frame->t, false);
    for (std::size_t c = 0;
         display_every > 0 && frame->index % display_every == 0 && c < calibration.clocks.size();
         ++c) {
      const calibration::Clock& clock = calibration.clocks[c];
      cv::Mat area;
      const vision::ClockDisplay read = vision::read_clock_display(frame->image, clock, -1, &area);
      const auto write_area = [&](const std::string& why) {
        if (dump.empty()) return;
        cv::imwrite((dump / (clip.filename().string() + "_" + clock.board + "_" +
                             std::to_string(frame->index) + "_" + why + ".png"))
                        .string(),
                    area);
      };
      if (frame->index == 0) write_area("first");
      const std::optional<pipeline::ShownClocks> want = pipeline::shown_clocks(
          log, clock.board == "A" ? rules::BoardId::kA : rules::BoardId::kB, frame->t);
      if (!want || want->to_tick < 0.05) continue;
      for (std::size_t side = 0; side < 2; ++side) {
        ++displays.sides;
        if (!read.seconds[side]) {
          write_area(side == 0 ? "white_unread" : "black_unread");
          continue;
        }
        const bool right = *read.seconds[side] == want->seconds[side];
        ++(right ? displays.right : displays.wrong);
        if (!right && want->running != static_cast<int>(side)) ++displays.wrong_standing;
        if (!right) write_area(side == 0 ? "white" : "black");
        if (verbose && !right) {
          std::printf("  frame %d clock %s %s display: read %d, shows %d (%s)\n", frame->index,
                      clock.board.c_str(), side == 0 ? "white" : "black", *read.seconds[side],
                      want->seconds[side],
                      want->running == static_cast<int>(side) ? "running" : "standing");
        }
      }
    }
    for (const tracker::LeverObservation& o : inputs.levers) {
      if (std::optional<capture::ClockEvent> event = detector.add(o)) note(*event);
      // The truth: Black's side is down until the first press, then the last presser's.
      std::optional<rules::Color> down = rules::Color::kBlack;
      for (const capture::ClockEvent& e : truth[static_cast<int>(o.board)]) {
        if (e.t <= frame->t) down = e.side;
      }
      const auto clock = static_cast<std::size_t>(o.board);
      ++score.frames;
      ++score.clock_frames[clock];
      if (!o.down) {
        ++score.frames_unknown;
      } else if (o.down == down) {
        ++score.frames_right;
        ++score.clock_right[clock];
      } else {
        ++score.clock_wrong[clock];
        if (verbose) {
          std::printf("  frame %d clock %c: read %s\n", frame->index, rules::board_letter(o.board),
                      *o.down == rules::Color::kWhite ? "white" : "black");
        }
      }
    }
    frame = source->next();
  }
  for (const capture::ClockEvent& event : detector.flush()) note(event);
  // Per board, (true time, found time) of the matched presses.
  std::array<std::vector<std::pair<double, double>>, 2> matched;
  for (int b = 0; b < 2; ++b) {
    std::vector<bool> used(found[b].size(), false);
    score.truth += static_cast<int>(truth[b].size());
    for (const capture::ClockEvent& want : truth[b]) {
      int best = -1;
      for (std::size_t i = 0; i < found[b].size(); ++i) {
        if (used[i] || found[b][i].side != want.side) continue;
        const double error = std::abs(found[b][i].t - want.t);
        if (error <= kMatchSeconds &&
            (best < 0 || error < std::abs(found[b][static_cast<std::size_t>(best)].t - want.t))) {
          best = static_cast<int>(i);
        }
      }
      if (best < 0) {
        if (verbose) std::printf("  missed %c %.3f\n", rules::board_letter(want.board), want.t);
        continue;
      }
      used[static_cast<std::size_t>(best)] = true;
      matched[static_cast<std::size_t>(b)].emplace_back(want.t,
                                                        found[b][static_cast<std::size_t>(best)].t);
      const double signed_error = found[b][static_cast<std::size_t>(best)].t - want.t;
      const double error = std::abs(signed_error);
      score.errors.push_back(signed_error);
      // The remaining times the press carries against the log's.
      const capture::ClockEvent& got = found[b][static_cast<std::size_t>(best)];
      for (const auto& [mine, theirs] :
           {std::pair{got.white_ms, want.white_ms}, std::pair{got.black_ms, want.black_ms}}) {
        if (!theirs) continue;
        ++score.clocks;
        if (!mine) continue;
        ++score.clocks_given;
        const double clock_error = std::abs(*mine - *theirs) / 1000.0;
        score.clock_error_max = std::max(score.clock_error_max, clock_error);
        score.clocks_within += clock_error <= kClockSeconds ? 1 : 0;
      }
      ++score.found;
      score.good += error <= kGoodSeconds ? 1 : 0;
      score.error_max = std::max(score.error_max, error);
      if (verbose && error > kGoodSeconds) {
        std::printf("  late %c %.3f by %.3f\n", rules::board_letter(want.board), want.t,
                    found[b][static_cast<std::size_t>(best)].t - want.t);
      }
    }
    for (std::size_t i = 0; i < found[b].size(); ++i) {
      if (used[i]) continue;
      ++score.spurious;
      if (verbose) {
        std::printf("  spurious %c %.3f %s\n", rules::board_letter(found[b][i].board),
                    found[b][i].t, found[b][i].side == rules::Color::kWhite ? "white" : "black");
      }
    }
  }
  for (const auto& [true_a, found_a] : matched[0]) {
    for (const auto& [true_b, found_b] : matched[1]) {
      if (std::abs(true_a - true_b) >= kClosePairSeconds) continue;
      ++score.close_pairs;
      const bool swapped = (true_a < true_b) != (found_a < found_b);
      score.pairs_swapped += swapped ? 1 : 0;
      if (verbose && swapped) {
        std::printf("  swapped A %.3f (found %.3f) and B %.3f (found %.3f)\n", true_a, found_a,
                    true_b, found_b);
      }
    }
  }
  std::printf(
      "%s: presses %d, found %d (%d within %.1f s, worst %.3f s), spurious %d; lever right in "
      "%.1f %% of frames, unknown in %.1f %%; %s; cross-board pairs within %.1f s: %d of %d in "
      "the wrong order\n",
      clip.string().c_str(), score.truth, score.found, score.good, kGoodSeconds, score.error_max,
      score.spurious, 100.0 * score.frames_right / std::max(1, score.frames),
      100.0 * score.frames_unknown / std::max(1, score.frames), error_summary(score.errors).c_str(),
      kClosePairSeconds, score.pairs_swapped, score.close_pairs);
  std::printf("  remaining times: %d in the log, %d given, %d within %.1f s, worst %.3f s\n",
              score.clocks, score.clocks_given, score.clocks_within, kClockSeconds,
              score.clock_error_max);
  total.clocks += score.clocks;
  total.clocks_given += score.clocks_given;
  total.clocks_within += score.clocks_within;
  total.clock_error_max = std::max(total.clock_error_max, score.clock_error_max);
  for (std::size_t b = 0; b < 2; ++b) {
    const double frames = std::max(1, score.clock_frames[b]);
    std::printf("  clock %c lever: right %.1f %%, wrong %.1f %%, unknown %.1f %% of %d frames\n",
                b == 0 ? 'A' : 'B', 100.0 * score.clock_right[b] / frames,
                100.0 * score.clock_wrong[b] / frames,
                100.0 * (frames - score.clock_right[b] - score.clock_wrong[b]) / frames,
                score.clock_frames[b]);
  }
  if (displays.sides > 0) {
    std::printf(
        "  displays: %d sides read every %d frames, right %d, wrong %d (%d standing), "
        "unknown %d\n",
        displays.sides, display_every, displays.right, displays.wrong, displays.wrong_standing,
        displays.sides - displays.right - displays.wrong);
    display_total.sides += displays.sides;
    display_total.right += displays.right;
    display_total.wrong += displays.wrong;
    display_total.wrong_standing += displays.wrong_standing;
  }
  for (int b = 0; b < 2; ++b) {
    if (!true_start[b] && !found_start[b]) continue;
    char line[160];
    std::snprintf(line, sizeof line, "  clock %c start: %s, found %s\n", b == 0 ? 'A' : 'B',
                  true_start[b] ? std::to_string(*true_start[b]).c_str() : "none",
                  found_start[b] ? std::to_string(*found_start[b]).c_str() : "none");
    std::printf("%s", line);
    total.starts += true_start[b] ? 1 : 0;
    const std::optional<double> error =
        true_start[b] && found_start[b]
            ? std::optional<double>(std::abs(*found_start[b] - *true_start[b]))
            : std::nullopt;
    if (error && *error <= kGoodSeconds) {
      total.starts_found += 1;
      total.start_error_max = std::max(total.start_error_max, *error);
    } else if (found_start[b]) {
      total.starts_spurious += 1;
    }
  }
  for (const capture::ClockEvent& flag : found_flags) {
    const bool right = std::any_of(true_flags.begin(), true_flags.end(), [&](const auto& want) {
      return want.board == flag.board && want.side == flag.side &&
             std::abs(want.t - flag.t) <= kFlagSeconds;
    });
    std::printf("  flag %c %s at %.3f: %s\n", rules::board_letter(flag.board),
                flag.side == rules::Color::kWhite ? "white" : "black", flag.t,
                right ? "right" : "spurious");
    total.flags_found += right ? 1 : 0;
    total.flags_spurious += right ? 0 : 1;
  }
  for (const capture::ClockEvent& want : true_flags) {
    std::printf("  flag in the log: %c %s at %.3f\n", rules::board_letter(want.board),
                want.side == rules::Color::kWhite ? "white" : "black", want.t);
  }
  total.flags += static_cast<int>(true_flags.size());
  total.close_pairs += score.close_pairs;
  total.pairs_swapped += score.pairs_swapped;
  total.errors.insert(total.errors.end(), score.errors.begin(), score.errors.end());
  total.truth += score.truth;
  total.found += score.found;
  total.good += score.good;
  total.spurious += score.spurious;
  total.error_max = std::max(total.error_max, score.error_max);
  total.frames += score.frames;
  total.frames_right += score.frames_right;
  total.frames_unknown += score.frames_unknown;
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<fs::path> clips;
  bool verbose = false;
  int display_every = 0;
  fs::path dump;
  std::optional<double> time_control;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--verbose") == 0) {
      verbose = true;
    } else if (std::strcmp(argv[i], "--displays") == 0 && i + 1 < argc) {
      display_every = std::max(1, std::atoi(argv[++i]));
    } else if (std::strcmp(argv[i], "--time-control") == 0 && i + 1 < argc) {
      time_control = std::atof(argv[++i]);
    } else if (std::strcmp(argv[i], "--dump-displays") == 0 && i + 1 < argc) {
      dump = argv[++i];
    } else if (argv[i][0] == '-') {
      std::cerr << "usage: lever_eval CLIP_DIR... [--verbose] [--displays EVERY_NTH_FRAME] "
                   "[--dump-displays DIR] [--time-control SECONDS]\n";
      return 2;
    } else {
      clips.emplace_back(argv[i]);
    }
  }
  if (clips.empty()) {
    std::cerr << "usage: lever_eval CLIP_DIR... [--verbose] [--displays EVERY_NTH_FRAME] "
                 "[--dump-displays DIR] [--time-control SECONDS]\n";
    return 2;
  }
  Score total;
  DisplayScore display_total;
  try {
    for (const fs::path& clip : clips) {
      if (evaluate(clip, verbose, display_every, dump, time_control, total, display_total) != 0) {
        return 1;
      }
    }
  } catch (const std::exception& e) {
    std::cerr << "lever_eval: " << e.what() << "\n";
    return 1;
  }
  if (clips.size() > 1) {
    std::printf(
        "all: presses %d, found %d (%d within %.1f s, worst %.3f s), spurious %d; lever right in "
        "%.1f %% of frames, unknown in %.1f %%; %s; cross-board pairs within %.1f s: %d of %d in "
        "the wrong order\n",
        total.truth, total.found, total.good, kGoodSeconds, total.error_max, total.spurious,
        100.0 * total.frames_right / std::max(1, total.frames),
        100.0 * total.frames_unknown / std::max(1, total.frames),
        error_summary(total.errors).c_str(), kClosePairSeconds, total.pairs_swapped,
        total.close_pairs);
    std::printf("all: clock starts %d, found %d within %.1f s (worst %.3f s), spurious %d\n",
                total.starts, total.starts_found, kGoodSeconds, total.start_error_max,
                total.starts_spurious);
    std::printf("all: flag falls %d, found %d within %.0f s, spurious %d\n", total.flags,
                total.flags_found, kFlagSeconds, total.flags_spurious);
    std::printf("all: remaining times: %d in the log, %d given, %d within %.1f s, worst %.3f s\n",
                total.clocks, total.clocks_given, total.clocks_within, kClockSeconds,
                total.clock_error_max);
    if (display_total.sides > 0) {
      std::printf("all: displays: %d sides read, right %d, wrong %d (%d standing), unknown %d\n",
                  display_total.sides, display_total.right, display_total.wrong,
                  display_total.wrong_standing,
                  display_total.sides - display_total.right - display_total.wrong);
    }
  }
  return 0;
}
