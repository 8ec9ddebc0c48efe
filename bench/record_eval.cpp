// End-to-end evaluation: renders N synthetic clips of real games (bugcam synth's library),
// records each (bugcam record's library) and scores the recording against the clip's truth:
// moves right, games exact, press-time and clock errors, incidents found and false, and
// recording speed against real time.
//
//   record_eval [--games FILE.bpgn] [--clips N] [--seed S] [--plies MIN-MAX] [--size WxH]
//               [--clocks log|vision] [--incidents] [--work DIR] [--keep] [--reuse]
//               [--save-observations] [--[no-]holdings] [--[no-]partner-touches] [--squares
//               auto|hand|network|checked|fused] [--lens] [--vision-every N] [--out NAME]
// --keep leaves the clips in --work; --reuse records clips found there instead of rendering;
// --save-observations writes each clip's tracker inputs to CLIP/observations.bin, which
// bench/tracker_replay runs the tracker on again; --holdings sends the holding areas to the
// tracker (RecordOptions::holdings_to_tracker, on in `bugcam record` by default;
// --no-holdings keeps them from it);
// --no-partner-touches keeps arms over the other board from the tracker (RecordOptions::
// partner_touches, on by default); --squares says who reads the squares
// (RecordOptions::squares: fused, the default, is the reader each board's calibration chose,
// on hand-read boards where the network misread no more of the start position than the
// hand-written reader, or one square at most, giving way to the network's very sure
// readings, and in doubt where it finds another state likely); --lens
// fits the lens's radial distortion when calibrating (RecordOptions::fit_lens);
// --vision-every reads every N-th frame (RecordOptions::vision_every); --out names the recording's
// folder in each clip (default recorded), so that two settings can be recorded from the same clips
// at once (with --reuse, and without --save-observations, whose file is the clip's).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "bugcam/evaluation.hpp"
#include "bugcam/pipeline.hpp"
#include "bugcam/rules.hpp"
#include "bugcam/samples.hpp"

namespace {

namespace fs = std::filesystem;
using namespace bugcam;

struct Options {
  std::string games = std::string(BUGCAM_SHARED_DIR) + "/data/bpgn/fics_mbprog_64.bpgn";
  int clips = 4;
  std::uint64_t seed = 1000;
  int plies_min = 40;
  int plies_max = 80;
  int width = 1280;
  int height = 720;
  std::string clocks = "log";
  bool incidents = false;
  fs::path work = fs::temp_directory_path() / "bugcam-record-eval";
  bool keep = false;
  bool reuse = false;                   // record clips already rendered in --work again
  bool save_observations = false;       // write each clip's tracker inputs (bench/tracker_replay)
  std::optional<bool> holdings;         // holding areas to the tracker (RecordOptions)
  std::optional<bool> partner_touches;  // arms over the other board to the tracker (RecordOptions)
  vision::SquareReader squares = vision::SquareReader::kFused;  // RecordOptions::squares
  bool lens = false;                                            // RecordOptions::fit_lens
  int vision_every = 1;                                         // RecordOptions::vision_every
  std::string out = "recorded";  // the recording's folder in each clip
};

// "auto|hand|...": the names --squares takes.
std::string square_reader_choices() {
  std::string out;
  for (const std::string& name : vision::square_reader_names())
    out += (out.empty() ? "" : "|") + name;
  return out;
}

[[noreturn]] void usage(const std::string& what) {
  std::cerr << "record_eval: " << what
            << "\nusage: record_eval [--games FILE] [--clips N] [--seed S] [--plies MIN-MAX] "
               "[--size WxH] [--clocks log|vision] [--incidents] [--work DIR] [--keep] [--reuse] "
               "[--save-observations] [--[no-]holdings] [--[no-]partner-touches] [--squares "
            << square_reader_choices() << "] [--lens] [--vision-every N] [--out NAME]\n";
  std::exit(2);
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--games") {
      o.games = value();
    } else if (arg == "--clips") {
      o.clips = std::stoi(value());
    } else if (arg == "--seed") {
      o.seed = std::stoull(value());
    } else if (arg == "--plies") {
      const std::string v = value();
      if (std::sscanf(v.c_str(), "%d-%d", &o.plies_min, &o.plies_max) != 2)
        usage("--plies MIN-MAX");
    } else if (arg == "--size") {
      const std::string v = value();
      if (std::sscanf(v.c_str(), "%dx%d", &o.width, &o.height) != 2) usage("--size WxH");
    } else if (arg == "--clocks") {
      o.clocks = value();
      if (o.clocks != "log" && o.clocks != "vision") usage("--clocks log|vision");
    } else if (arg == "--partner-touches") {
      o.partner_touches = true;
    } else if (arg == "--no-partner-touches") {
      o.partner_touches = false;
    } else if (arg == "--lens") {
      o.lens = true;
    } else if (arg == "--squares") {
      const std::string v = value();
      const std::optional<vision::SquareReader> reader = vision::square_reader_named(v);
      if (!reader) usage("--squares " + square_reader_choices() + ", not '" + v + "'");
      o.squares = *reader;
    } else if (arg == "--vision-every") {
      o.vision_every = std::stoi(value());
      if (o.vision_every < 1 || o.vision_every > pipeline::kVisionEveryAtMost)
        usage("--vision-every: 1 to " + std::to_string(pipeline::kVisionEveryAtMost));
    } else if (arg == "--out") {
      o.out = value();
      if (o.out.empty() || o.out.find('/') != std::string::npos) usage("--out NAME (no slash)");
    } else if (arg == "--holdings") {
      o.holdings = true;
    } else if (arg == "--no-holdings") {
      o.holdings = false;
    } else if (arg == "--incidents") {
      o.incidents = true;
    } else if (arg == "--work") {
      o.work = value();
    } else if (arg == "--keep") {
      o.keep = true;
    } else if (arg == "--reuse") {
      o.reuse = o.keep = true;
    } else if (arg == "--save-observations") {
      o.save_observations = true;
    } else {
      usage("unknown argument " + arg);
    }
  }
  return o;
}

std::string read_text(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) usage(file.string() + ": cannot open");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Incidents the renderer can stage, one per clip when --incidents is given: the clip of seed S
// gets type S mod 9, at the ply nearest the middle of the clip that fits it.
const std::vector<std::string> kIncidentTypes = {
    "press_without_move", "move_without_press",    "premove",
    "hidden_piece",       "capture_not_passed",    "position_disturbed",
    "illegal_move",       "partner_board_touched", "flag_fall"};

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  std::vector<rules::BpgnGame> games = rules::parse_bpgn(read_text(o.games), o.games);
  // Only games that replay and are long enough.
  std::erase_if(games, [&](const rules::BpgnGame& g) {
    return rules::replay(g).error.has_value() || static_cast<int>(g.moves.size()) < o.plies_min;
  });
  if (games.empty()) usage(o.games + ": no game with " + std::to_string(o.plies_min) + " plies");
  fs::create_directories(o.work);

  int moves_right = 0, moves_compared = 0, exact = 0, incidents_true = 0, incidents_found = 0,
      incidents_false = 0, failed = 0;
  double press_error_sum = 0, press_error_max = 0, clock_error_max = 0;
  double video_seconds = 0, record_seconds = 0, render_seconds = 0, busiest_thread_seconds = 0;
  std::printf("%-4s %-6s %-5s %5s %6s %8s %6s %7s %7s %6s %s\n", "clip", "seed", "game", "plies",
              "right", "exact", "press", "clock", "incid.", "speed", "first error");
  for (int c = 0; c < o.clips; ++c) {
    const std::uint64_t seed = o.seed + static_cast<std::uint64_t>(c);
    const std::size_t game_index = static_cast<std::size_t>((seed * 7919) % games.size());
    const rules::BpgnGame& game = games[game_index];
    const int span = o.plies_max - o.plies_min + 1;
    const int plies = std::min(static_cast<int>(game.moves.size()),
                               o.plies_min + static_cast<int>((seed * 104729) % span));
    const fs::path clip = o.work / ("clip_" + std::to_string(seed));
    samples::SynthOptions so;
    so.seed = seed;
    so.max_plies = plies;
    so.width = o.width;
    so.height = o.height;
    if (o.incidents) {
      const std::string& type = kIncidentTypes[seed % kIncidentTypes.size()];
      if (const auto incident = samples::fitting_incident(game, plies, type, plies / 2)) {
        so.incidents.push_back(*incident);
      }
    }
    const auto render_start = std::chrono::steady_clock::now();
    samples::SynthResult rendered;
    if (o.reuse && fs::is_regular_file(clip / "truth.json") &&
        fs::is_regular_file(clip / "video.mp4")) {
      rendered.video = clip / "video.mp4";
    } else {
      fs::remove_all(clip);
      try {
        rendered = samples::synthesize(game, clip, so);
      } catch (const std::exception& e) {
        std::printf("%-4d %-6llu render failed: %s\n", c, static_cast<unsigned long long>(seed),
                    e.what());
        ++failed;
        continue;
      }
    }
    render_seconds +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - render_start).count();
    pipeline::RecordOptions ro;
    ro.source = rendered.video.string();
    ro.clocks = o.clocks == "log" ? (clip / "clocks.jsonl").string() : "vision";
    // The organiser tells the time control; with --clocks vision it is what the remaining
    // clocks are derived from.
    if (const auto tc = game.tag("TimeControl"); tc && o.clocks != "log") {
      ro.tags.emplace_back("TimeControl", *tc);
    }
    ro.out = clip / o.out;
    ro.vision_every = o.vision_every;
    if (o.save_observations) ro.observations_log = clip / "observations.bin";
    ro.holdings_to_tracker = o.holdings;
    ro.partner_touches = o.partner_touches;
    ro.squares = o.squares;
    ro.fit_lens = o.lens;
    fs::remove_all(ro.out);
    pipeline::RecordSummary summary;
    pipeline::Accuracy a;
    try {
      summary = pipeline::record(ro);
      a = pipeline::evaluate(ro.out, clip);
    } catch (const std::exception& e) {
      std::printf("%-4d %-6llu record failed: %s\n", c, static_cast<unsigned long long>(seed),
                  e.what());
      ++failed;
      continue;
    }
    moves_right += a.moves_right;
    moves_compared += a.moves_compared;
    exact += a.exact ? 1 : 0;
    incidents_true += a.incidents_true;
    incidents_found += a.incidents_found;
    incidents_false += static_cast<int>(a.incidents_false.size());
    press_error_sum += a.press_error_mean * a.moves_right;
    press_error_max = std::max(press_error_max, a.press_error_max);
    clock_error_max = std::max(clock_error_max, a.clock_error_max);
    video_seconds += summary.duration;
    record_seconds += summary.elapsed;
    busiest_thread_seconds += std::max({summary.cpu_main, summary.cpu_reader, summary.cpu_vision});
    std::string notes = a.first_errors.empty() ? "" : a.first_errors.front();
    for (const pipeline::IncidentMatch& m : a.incidents_missed) notes += " missed " + m.type;
    for (const pipeline::IncidentMatch& m : a.incidents_false) notes += " false " + m.type;
    std::printf("%-4d %-6llu %-5zu %5d %5.1f%% %8s %5.3fs %6.3fs %3d/%d+%d %5.1fx %s\n", c,
                static_cast<unsigned long long>(seed), game_index + 1, plies,
                100.0 * a.moves_right_fraction(), a.exact ? "yes" : "no", a.press_error_max,
                a.clock_error_max, a.incidents_found, a.incidents_true,
                static_cast<int>(a.incidents_false.size()),
                summary.elapsed > 0 ? summary.duration / summary.elapsed : 0.0, notes.c_str());
    std::fflush(stdout);
    if (!o.keep) fs::remove_all(clip);
  }
  const int recorded = o.clips - failed;
  std::printf(
      "\n%d clips (%d failed), clocks %s, %dx%d\n"
      "moves right: %d/%d = %.2f%%\n"
      "games exact: %d/%d = %.1f%%\n"
      "press time error: mean %.3f s, max %.3f s; clock error max %.3f s\n"
      "incidents: %d/%d found, %d false (%.2f per 10 clips)\n"
      "speed: %.1f s of video recorded in %.1f s = %.2fx real time (rendering took %.1f s)\n"
      "busiest thread: %.1f CPU s = %.2fx real time on two idle cores\n",
      o.clips, failed, o.clocks.c_str(), o.width, o.height, moves_right, moves_compared,
      moves_compared ? 100.0 * moves_right / moves_compared : 0.0, exact, recorded,
      recorded ? 100.0 * exact / recorded : 0.0, moves_right ? press_error_sum / moves_right : 0.0,
      press_error_max, clock_error_max, incidents_found, incidents_true, incidents_false,
      recorded ? 10.0 * incidents_false / recorded : 0.0, video_seconds, record_seconds,
      record_seconds > 0 ? video_seconds / record_seconds : 0.0, render_seconds,
      busiest_thread_seconds,
      busiest_thread_seconds > 0 ? video_seconds / busiest_thread_seconds : 0.0);
  return failed == 0 ? 0 : 1;
}
