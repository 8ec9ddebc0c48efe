// bugcam record SOURCE [--clocks CLOCKS] [--calibration FILE] [--out DIR] [--tag NAME=VALUE]...
//               [--resume DIR]
// bugcam demo [--out DIR]
// bugcam review DIR
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <opencv2/core/utility.hpp>

#include "bugcam/evaluation.hpp"
#include "bugcam/pipeline.hpp"
#include "bugcam/recorder.hpp"
#include "bugcam/samples.hpp"
#include "commands.hpp"

namespace bugcam::app {

namespace {

namespace fs = std::filesystem;

struct RecordCommandOptions {
  std::string source;
  std::string clocks;
  std::string calibration;
  std::string out;
  std::vector<std::string> tags;
  std::string resume;
  // Unset when not given: a resumed recording keeps what it was made with.
  std::optional<std::string> rules;
  std::optional<int> vision_every;
  std::optional<bool> holdings_to_tracker;
  std::optional<bool> partner_touches;
  std::optional<std::string> squares;
  bool lens = false;
};

// One line on the terminal, rewritten in place; nothing when stderr is not a terminal.
std::function<void(const pipeline::Progress&)> terminal_progress() {
  if (::isatty(STDERR_FILENO) == 0) return {};
  return [](const pipeline::Progress& p) {
    std::fprintf(stderr, "\rframe %d  %.1f s  %d moves  %d incidents  %.1fx real time  ", p.frame,
                 p.t, p.moves, p.incidents, p.speed);
    std::fflush(stderr);
  };
}

void end_progress_line() {
  if (::isatty(STDERR_FILENO) != 0) std::fputs("\n", stderr);
}

std::string summary_line(const pipeline::RecordSummary& s) {
  std::ostringstream out;
  out.setf(std::ios::fixed);
  out.precision(1);
  out << "recorded " << s.moves << " moves";
  if (s.resumed_moves > 0) out << " (" << s.resumed_moves << " resumed)";
  out << ", " << s.incidents << " incidents, result " << s.result << "; " << s.frames << " frames ("
      << s.duration << " s of video) in " << s.elapsed << " s ("
      << (s.elapsed > 0 ? s.duration / s.elapsed : 0.0) << "x real time; CPU " << s.cpu_main
      << " s + " << s.cpu_reader << " s reading + " << s.cpu_vision
      << " s vision); clocks: " << s.clocks;
  if (s.calibration_renewals > 0) out << "; calibration renewed " << s.calibration_renewals << "x";
  out << "; written to " << s.out.string();
  return out.str();
}

// Runs a recording and maps its errors to exit statuses. `summary` is set on success.
int run_pipeline(const pipeline::RecordOptions& options, const std::string& command,
                 pipeline::RecordSummary& summary) {
  try {
    summary = pipeline::record(options);
  } catch (const pipeline::RecordError& e) {
    end_progress_line();
    std::cerr << command << ": " << e.what() << "\n";
    return e.input_wrong() ? kExitBadInput : kExitUsage;
  }
  end_progress_line();
  return kExitOk;
}

int run_record(const RecordCommandOptions& o) {
  pipeline::RecordOptions options;
  options.source = o.source;
  options.clocks = o.clocks;
  options.calibration_file = o.calibration;
  if (o.rules) {
    options.rules = rules::find_rule_set(*o.rules);
    if (options.rules == nullptr) {
      std::cerr << "bugcam record: --rules: unknown rule set '" << *o.rules << "'\n";
      return kExitUsage;
    }
  }
  options.vision_every = o.vision_every;
  options.holdings_to_tracker = o.holdings_to_tracker;
  options.partner_touches = o.partner_touches;
  if (o.squares) options.squares = vision::square_reader_named(*o.squares);
  options.fit_lens = o.lens;
  // The lens is fitted when calibrating on the first frames; a given calibration file, or a
  // resumed recording's, has its own (or none).
  if (o.lens && (!o.resume.empty() || !o.calibration.empty())) {
    std::cerr << "bugcam record: --lens fits the lens when calibrating on the first frames; "
                 "with --calibration or --resume the calibration file's lens is used\n";
    return kExitUsage;
  }
  if (!o.resume.empty()) {
    if (!o.out.empty() && fs::path(o.out) != fs::path(o.resume)) {
      std::cerr
          << "bugcam record: --resume DIR continues DIR; --out must be left out or the same\n";
      return kExitUsage;
    }
    options.resume = true;
    options.out = o.resume;
  } else {
    if (o.source.empty()) {
      std::cerr << "bugcam record: needs a SOURCE (or --resume DIR)\n";
      return kExitUsage;
    }
    options.out = o.out.empty() ? pipeline::default_out_dir() : fs::path(o.out);
  }
  for (const std::string& tag : o.tags) {
    const std::size_t eq = tag.find('=');
    if (eq == std::string::npos || eq == 0) {
      std::cerr << "bugcam record: --tag: expected NAME=VALUE, got '" << tag << "'\n";
      return kExitUsage;
    }
    options.tags.emplace_back(tag.substr(0, eq), tag.substr(eq + 1));
  }
  options.progress = terminal_progress();
  pipeline::RecordSummary summary;
  const int status = run_pipeline(options, "bugcam record", summary);
  if (status == kExitOk) std::cout << summary_line(summary) << "\n";
  return status;
}

std::string file_text(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

int run_demo(const std::string& out) {
  const fs::path clip = samples::bundled_sample_dir();
  const fs::path video = clip / "video.mp4";
  if (!fs::is_regular_file(video)) {
    std::cerr << "bugcam demo: " << video.string() << ": the bundled sample clip is missing\n";
    return kExitUsage;
  }
  pipeline::RecordOptions options;
  options.source = video.string();
  options.clocks = (clip / "clocks.jsonl").string();
  options.out = out.empty() ? fs::temp_directory_path() / pipeline::default_out_dir().filename()
                            : fs::path(out);
  options.tags = {{"Event", "bugcam demo"}, {"Site", "samples/clip"}};
  options.progress = terminal_progress();
  std::cout << "recording the bundled sample " << video.string() << "\n";
  pipeline::RecordSummary summary;
  const int status = run_pipeline(options, "bugcam demo", summary);
  if (status != kExitOk) return status;
  std::cout << summary_line(summary) << "\n\n"
            << "--- game.bpgn\n"
            << file_text(options.out / "game.bpgn") << "\n"
            << "--- incidents.json\n"
            << file_text(options.out / "incidents.json") << "\n"
            << "--- accuracy against " << (clip / "truth.bpgn").string() << "\n";
  try {
    std::cout << pipeline::to_text(pipeline::evaluate(options.out, clip));
  } catch (const std::exception& e) {
    std::cerr << "bugcam demo: " << e.what() << "\n";
    return kExitUsage;
  }
  return kExitOk;
}

int run_review(const std::string& dir) {
  try {
    recorder::write_review(dir);
  } catch (const recorder::RecorderError& e) {
    std::cerr << "bugcam review: " << e.what() << "\n";
    // Files that are there but wrong are bad input; missing ones a usage or I/O error.
    const bool present = fs::is_regular_file(fs::path(dir) / "incidents.json") &&
                         fs::is_regular_file(fs::path(dir) / "game.bpgn");
    return present ? kExitBadInput : kExitUsage;
  }
  std::cout << (fs::path(dir) / "review.html").string() << "\n";
  return kExitOk;
}

}  // namespace

void add_review_command(CLI::App& app, int& exit_status) {
  auto dir = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand(
      "review", "Builds DIR/review.html, the arbiter's review of a recorded game's incidents");
  cmd->add_option("DIR", *dir, "A directory written by bugcam record")->required();
  cmd->callback([dir, &exit_status] { exit_status = run_review(*dir); });
}

void add_record_command(CLI::App& app, int& exit_status) {
  auto options = std::make_shared<RecordCommandOptions>();
  CLI::App* cmd = app.add_subcommand("record", "Records one bughouse game (SPEC section 3)");
  cmd->add_option("source", options->source,
                  "Video file, directory of numbered images or camera (/dev/video0, camera:0)");
  cmd->add_option("--clocks", options->clocks,
                  "none, vision, or a clock log file (default: clocks.jsonl beside a video "
                  "file, else vision)");
  cmd->add_option("--calibration", options->calibration,
                  "calibration.pbtxt to use (default: found on the first frames)");
  cmd->add_option("--out", options->out, "Output directory (default ./bugcam-<UTC date time>/)");
  cmd->add_option("--tag", options->tags, "BPGN tag NAME=VALUE (repeatable)");
  cmd->add_option("--resume", options->resume,
                  "Continue the recording in DIR (after a crash or a kill) with the rules, "
                  "squares and other settings it was made with");
  // Settings are kept unset when not given (see RecordCommandOptions).
  cmd->add_option_function<std::string>(
      "--rules", [options](const std::string& name) { options->rules = name; },
      "Rule set: otb (default) or online");
  cmd->add_option_function<int>(
         "--vision-every", [options](int every) { options->vision_every = every; },
         "Read every n-th frame with vision (default 1: all)")
      ->check(CLI::Range(1, pipeline::kVisionEveryAtMost));
  cmd->add_flag_function(
      "--holdings-to-tracker,!--no-holdings-to-tracker",
      [options](std::int64_t count) { options->holdings_to_tracker = count > 0; },
      "Check the holding areas against the captures (hidden_piece, capture_not_passed; on by "
      "default, --no-holdings-to-tracker leaves the areas unread)");
  cmd->add_flag_function(
      "--partner-touches,!--no-partner-touches",
      [options](std::int64_t count) { options->partner_touches = count > 0; },
      "Report hands over the partner's board (partner_board_touched; on by default, "
      "--no-partner-touches to leave arms unwatched)");
  cmd->add_option_function<std::string>(
         "--squares", [options](const std::string& reader) { options->squares = reader; },
         vision::kSquareReadersHelp)
      ->check(CLI::IsMember(vision::square_reader_names()));
  cmd->add_flag("--lens", options->lens,
                "Calibrate with the lens's radial distortion fitted too (experimental, as "
                "`bugcam calibrate --lens`)");
  cmd->callback([options, &exit_status] {
    // Deterministic and bounded: the per-frame path does not depend on OpenCV's threads.
    cv::setNumThreads(1);
    exit_status = run_record(*options);
  });
}

void add_demo_command(CLI::App& app, int& exit_status) {
  auto out = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand(
      "demo",
      "Records the bundled sample clip and prints the BPGN, the incidents and the accuracy "
      "against its truth; needs no camera");
  cmd->add_option("--out", *out, "Output directory (default: a new one in the temp directory)");
  cmd->callback([out, &exit_status] {
    cv::setNumThreads(1);
    exit_status = run_demo(*out);
  });
}

}  // namespace bugcam::app
