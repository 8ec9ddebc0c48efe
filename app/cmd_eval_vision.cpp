// bugcam eval-vision CLIP_DIR [--step N] [--calibration-frame N]
// Measures calibration and per-frame vision against the truth of a synthetic clip written
// by `bugcam synth`: lattice corner error, A/B and orientation, per-square occupancy and
// colour on uncovered squares, occlusion flags on covered ones, holdings counts on still
// frames, lever state, and frames per second of the per-frame path. Frames are read in
// order by the tracking reader (temporal evidence) unless --single-frame; --step N thins
// the scoring only (and, with --single-frame, the reading).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <string>

#include <nlohmann/json.hpp>
#include <opencv2/core/utility.hpp>
#include <opencv2/videoio.hpp>

#include "bugcam/calibration.hpp"
#include "bugcam/evaluation.hpp"
#include "bugcam/vision.hpp"
#include "commands.hpp"

namespace bugcam::app {

namespace {

// Misreads lasting this long are counted, and the longest listed: the tracker weighs a
// reading by how long it lasts, so these can outweigh a press's evidence.
constexpr double kLastingMisreadSeconds = 5.0;
constexpr std::size_t kLongestMisreadsShown = 5;

struct EvalOptions {
  std::string clip;
  int step = 1;
  int calibration_frame = 0;
  bool json = false;
  bool verbose = false;
  bool single_frame = false;
  bool learn_looks = true;
  bool lens = false;
  std::string squares = "fused";
  bool holdings_network = true;
};

struct Ratio {
  long right = 0;
  long total = 0;
  double percent() const { return total == 0 ? 100.0 : 100.0 * double(right) / double(total); }
};

std::string square_name(int sq) {
  std::string name;
  name.push_back(static_cast<char>('a' + sq % 8));
  name.push_back(static_cast<char>('1' + sq / 8));
  return name;
}

double distance(cv::Point2d a, cv::Point2d b) {
  return std::hypot(a.x - b.x, a.y - b.y);
}

int run_eval(const EvalOptions& options) {
  const std::filesystem::path dir(options.clip);
  std::ifstream truth_file(dir / "truth.json");
  if (!truth_file) {
    std::cerr << "bugcam eval-vision: " << (dir / "truth.json").string() << ": cannot read\n";
    return kExitUsage;
  }
  nlohmann::json truth;
  try {
    truth = nlohmann::json::parse(truth_file);
  } catch (const nlohmann::json::exception& e) {
    std::cerr << "bugcam eval-vision: " << (dir / "truth.json").string() << ": " << e.what()
              << "\n";
    return kExitBadInput;
  }
  const std::string video_path = (dir / truth.value("video", "video.mp4")).string();
  cv::VideoCapture video(video_path);
  if (!video.isOpened()) {
    std::cerr << "bugcam eval-vision: " << video_path << ": cannot open\n";
    return kExitUsage;
  }
  cv::setNumThreads(1);

  // Frames the truth says are covered by hands, per board.
  std::map<int, std::map<std::string, std::set<std::string>>> occluded;
  // Whose hands are in view, by frame: an area is rarely without any hand in view, but its
  // own player's hand is away most of the game, and then the tracker takes what it shows.
  std::map<int, std::set<std::string>> hands_of;
  const auto hands_in_view = [&hands_of](int f) { return hands_of.count(f) != 0; };
  const auto hand_of_in_view = [&hands_of](int f, const std::string& seat) {
    const auto it = hands_of.find(f);
    return it != hands_of.end() && it->second.count(seat) != 0;
  };
  for (const auto& note : truth["frame_notes"]) {
    const int f = note["f"];
    if (note.contains("hands")) {
      for (const auto& seat : note["hands"]) hands_of[f].insert(seat.get<std::string>());
    }
    if (note.contains("occluded")) {
      for (const auto& [board, squares] : note["occluded"].items()) {
        for (const auto& s : squares) occluded[f][board].insert(s.get<std::string>());
      }
    }
  }
  // Lever truth from the clock presses: the side that pressed last; Black's side is down
  // before the first press.
  std::map<std::string, std::vector<std::pair<double, std::string>>> presses;
  for (const auto& ply : truth["plies"]) {
    if (!ply.value("pressed", false)) continue;
    const std::string name = ply["ply"];
    // "12A" White on A, "12a" Black on A, "12B", "12b" likewise on B.
    const std::string board(
        1, static_cast<char>(std::toupper(static_cast<unsigned char>(name.back()))));
    const bool white = std::isupper(static_cast<unsigned char>(name.back())) != 0;
    presses[board].push_back({ply["t_press"].get<double>(), white ? "white" : "black"});
  }

  Ratio squares_right, occluded_flagged, holdings_exact, holdings_typed_exact,
      holdings_unflagged_exact, holdings_flagged, holdings_still_flagged, holdings_own_hand_away,
      levers_right, levers_right_still, levers_read, levers_right_of_read, found_boards;
  std::map<std::string, Ratio> squares_right_by_board;
  double worst_corner = 0;
  std::vector<double> corner_errors;
  bool names_right = true, orientation_right = true;
  double read_seconds = 0;
  int looks_learnt = 0;
  long frames_read = 0;
  long frames_scored = 0;
  std::unique_ptr<vision::FrameReader> reader;
  std::unique_ptr<vision::TrackingReader> tracking;
  const auto& states = truth["states"];
  // The lens the clip was rendered through (older truth files: no distortion).
  pipeline::TruthLens lens;
  if (truth.contains("camera")) {
    const auto& camera = truth["camera"];
    lens = {camera.value("fx", 1.0), camera.value("fy", 1.0), camera.value("cx", 0.0),
            camera.value("cy", 0.0), camera.value("k1", 0.0), camera.value("k2", 0.0)};
  }
  const double fps = truth.value("fps", 30.0);
  pipeline::SquareMisreads misreads(fps);
  cv::Mat frame;
  for (int f = 0; video.read(frame) && !frame.empty(); ++f) {
    if (f == options.calibration_frame) {
      try {
        calibration::CalibrateOptions calibrate_options;
        calibrate_options.fit_lens = options.lens;
        calibration::Calibration calibration = calibration::calibrate(frame, calibrate_options);
        if (options.learn_looks) {
          looks_learnt = vision::learn_start_position(frame, calibration,
                                                      vision::SquareModel::load_bundled().get());
        }
        found_boards.right = static_cast<long>(calibration.boards.size());
        found_boards.total = 2;
        for (const auto& b : truth["boards"]) {
          const calibration::Board* board = calibration.board(b["name"]);
          if (board == nullptr) {
            names_right = false;
            continue;
          }
          const std::array<cv::Point2d, 4> found = board->corners();
          std::array<cv::Point2d, 4> expected;
          for (size_t i = 0; i < 4; ++i) {
            expected[i] = {b["corners"][i][0].get<double>(), b["corners"][i][1].get<double>()};
          }
          const double square =
              (distance(expected[0], expected[1]) + distance(expected[1], expected[2]) +
               distance(expected[2], expected[3]) + distance(expected[3], expected[0])) /
              32.0;
          // Orientation: found a1 nearest the true a1; names: nearest the true board at all.
          double a1_best = 1e18;
          size_t a1_index = 0;
          for (size_t i = 0; i < 4; ++i) {
            if (distance(found[i], expected[0]) < a1_best) {
              a1_best = distance(found[i], expected[0]);
              a1_index = i;
            }
          }
          if (a1_best > 2 * square) names_right = false;
          if (a1_index != 0) orientation_right = false;
          // Lattice corner error: all 81 lattice points, from the true corners through the
          // clip's lens.
          std::array<pipeline::ImagePoint, 4> seen_corners;
          for (size_t i = 0; i < 4; ++i) seen_corners[i] = {expected[i].x, expected[i].y};
          const std::array<pipeline::ImagePoint, 81> lattice =
              pipeline::true_lattice(seen_corners, lens);
          for (int y = 0; y <= 8; ++y) {
            for (int x = 0; x <= 8; ++x) {
              const pipeline::ImagePoint t = lattice[static_cast<size_t>(y * 9 + x)];
              const double e =
                  distance(board->to_image({double(x), double(y)}), {t.x, t.y}) / square;
              corner_errors.push_back(e);
              worst_corner = std::max(worst_corner, e);
            }
          }
        }
        vision::VisionOptions vision_options;
        vision_options.squares =
            vision::square_reader_named(options.squares).value_or(vision::SquareReader::kFused);
        vision_options.holdings_by_network = options.holdings_network;
        reader = std::make_unique<vision::FrameReader>(calibration, vision_options);
        tracking = std::make_unique<vision::TrackingReader>(calibration, vision_options);
      } catch (const calibration::CalibrationError& e) {
        std::cerr << "bugcam eval-vision: " << video_path << ": frame " << f << ": " << e.what()
                  << "\n";
        return kExitBadInput;
      }
    }
    if (!reader) continue;
    // The tracking reader sees every frame, as when recording: its evidence is temporal (a
    // square confirmed over frames, a lever's learnt positions, a still reference), and fed
    // every Nth frame it would be measured on footage it never gets. Only every Nth is scored.
    const bool scored = f % options.step == 0;
    if (options.single_frame && !scored) continue;
    const auto started = std::chrono::steady_clock::now();
    const vision::FrameObservation seen =
        options.single_frame ? reader->read(frame) : tracking->read(frame);
    read_seconds +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    ++frames_read;
    if (!scored) continue;
    ++frames_scored;
    // The truth state in force: the last one at or before this frame.
    const nlohmann::json* state = &states[0];
    for (const auto& s : states) {
      if (s["frame"].get<int>() <= f) state = &s;
    }
    for (const vision::BoardObservation& board : seen.boards) {
      if (!state->contains(board.name)) continue;
      const auto& rows = (*state)[board.name]["occupancy"];
      const std::set<std::string>& covered = occluded[f][board.name];
      Ratio& on_board = squares_right_by_board[board.name];
      for (int sq = 0; sq < 64; ++sq) {
        const char symbol = board.squares[static_cast<size_t>(sq)].symbol();
        if (covered.count(square_name(sq)) != 0) {
          ++occluded_flagged.total;
          occluded_flagged.right += symbol == '?' ? 1 : 0;
          if (options.verbose && symbol != '?') {
            std::cerr << "frame " << f << " " << board.name << " " << square_name(sq) << ": seen "
                      << symbol << ", truth covered\n";
          }
          continue;
        }
        const char expected =
            rows[static_cast<size_t>(7 - sq / 8)].get<std::string>()[static_cast<size_t>(sq % 8)];
        const long right = symbol == expected ? 1 : 0;
        ++squares_right.total;
        squares_right.right += right;
        ++on_board.total;
        on_board.right += right;
        misreads.add(f, board.name, sq, symbol, expected);
        if (options.verbose && symbol != expected) {
          std::cerr << "frame " << f << " " << board.name << " " << square_name(sq) << ": seen "
                    << symbol << ", truth " << expected << "\n";
        }
      }
    }
    for (const vision::HoldingObservation& holding : seen.holdings) {
      if (!(*state)["holdings"].contains(holding.player)) continue;
      int visible = 0;
      std::map<char, int> by_type;
      for (const auto& [type, count] : (*state)["holdings"][holding.player]["visible"].items()) {
        visible += count.get<int>();
        if (count.get<int>() > 0) by_type[type.front()] = count.get<int>();
      }
      const bool counted_right = holding.white_pieces + holding.black_pieces == visible;
      // Every scored frame, hands or not: what the tracker would take (areas not flagged
      // occluded).
      ++holdings_flagged.total;
      holdings_flagged.right += holding.occluded ? 1 : 0;
      if (!holding.occluded) {
        ++holdings_unflagged_exact.total;
        holdings_unflagged_exact.right += counted_right ? 1 : 0;
      }
      if (!hand_of_in_view(f, holding.player)) {
        ++holdings_own_hand_away.total;
        holdings_own_hand_away.right += counted_right && !holding.occluded ? 1 : 0;
      }
      if (!hands_in_view(f)) {
        ++holdings_still_flagged.total;
        holdings_still_flagged.right += holding.occluded ? 1 : 0;
        ++holdings_exact.total;
        holdings_exact.right += counted_right ? 1 : 0;
        ++holdings_typed_exact.total;
        holdings_typed_exact.right += holding.counts == by_type ? 1 : 0;
      }
      if (options.verbose && (holding.counts != by_type || holding.occluded)) {
        std::cerr << "frame " << f << " holding " << holding.player << ": seen";
        for (const auto& [letter, count] : holding.counts) std::cerr << " " << count << letter;
        if (holding.occluded) std::cerr << " (occluded)";
        std::cerr << ", truth";
        for (const auto& [letter, count] : by_type) std::cerr << " " << count << letter;
        if (hands_in_view(f)) std::cerr << " (hands in view)";
        std::cerr << "\n";
      }
    }
    const double t = f / fps;
    for (const vision::ClockObservation& clock : seen.clocks) {
      std::string expected = "black";
      for (const auto& [when, side] : presses[clock.board]) {
        if (when <= t) expected = side;
      }
      ++levers_right.total;
      levers_right.right += expected == vision::lever_name(clock.lever_down) ? 1 : 0;
      // Read at all (not covered, not unsure), and of those read right: a wrong reading can
      // make a spurious press, an unknown one only delays one.
      ++levers_read.total;
      if (clock.lever_down != vision::Lever::kUnknown) {
        ++levers_read.right;
        ++levers_right_of_read.total;
        levers_right_of_read.right += expected == vision::lever_name(clock.lever_down) ? 1 : 0;
      }
      if (!hands_in_view(f)) {
        ++levers_right_still.total;
        levers_right_still.right += expected == vision::lever_name(clock.lever_down) ? 1 : 0;
      }
      if (options.verbose && expected != vision::lever_name(clock.lever_down)) {
        std::cerr << "frame " << f << " clock " << clock.board << ": seen "
                  << vision::lever_name(clock.lever_down) << ", truth " << expected
                  << (hands_in_view(f) ? " (hands in view)" : "") << "\n";
      }
    }
  }
  std::sort(corner_errors.begin(), corner_errors.end());
  const double median_corner = corner_errors.empty() ? 0 : corner_errors[corner_errors.size() / 2];
  const double frames_per_second = read_seconds > 0 ? double(frames_read) / read_seconds : 0;
  nlohmann::ordered_json report;
  report["clip"] = options.clip;
  report["seed"] = truth.value("seed", 0);
  report["boards_found"] = found_boards.right;
  report["corner_error_median_pct"] = 100 * median_corner;
  report["corner_error_worst_pct"] = 100 * worst_corner;
  report["names_right"] = names_right;
  report["orientation_right"] = orientation_right;
  report["frames_read"] = frames_read;
  report["frames_scored"] = frames_scored;
  report["squares_right_pct"] = squares_right.percent();
  report["squares_wrong"] = squares_right.total - squares_right.right;
  report["squares_total"] = squares_right.total;
  // The wrong ones by kind, and the misreads that last (what the tracker cannot outvote).
  const pipeline::SquareMisreads::Kinds& kinds = misreads.kinds();
  report["squares_wrong_phantom"] = kinds.phantom;
  report["squares_wrong_missed"] = kinds.missed;
  report["squares_wrong_colour"] = kinds.colour;
  report["squares_wrong_unsure"] = kinds.unsure;
  const std::vector<pipeline::SquareMisreads::Run> lasting =
      misreads.runs_at_least(kLastingMisreadSeconds);
  report["misreads_lasting_seconds"] = kLastingMisreadSeconds;
  report["misreads_lasting"] = lasting.size();
  nlohmann::json longest = nlohmann::json::array();
  for (std::size_t i = 0; i < lasting.size() && i < kLongestMisreadsShown; ++i) {
    const pipeline::SquareMisreads::Run& r = lasting[i];
    longest.push_back({{"board", r.board},
                       {"square", square_name(r.square)},
                       {"seen", std::string(1, r.seen)},
                       {"truth", std::string(1, r.truth)},
                       {"from_s", r.from_seconds},
                       {"seconds", r.seconds}});
  }
  report["misreads_longest"] = longest;
  report["occluded_flagged_pct"] = occluded_flagged.percent();
  report["occluded_total"] = occluded_flagged.total;
  report["holdings_exact_pct"] = holdings_exact.percent();
  report["holdings_by_type_exact_pct"] = holdings_typed_exact.percent();
  // Over every scored frame, hands in view or not: the share of area-frames flagged occluded, and
  // of the others the share counted exactly (what the tracker is given); and the share of still
  // area-frames flagged (flagged for nothing). Only tracking flags areas: with --single-frame
  // the flagged shares are 0.
  report["holdings_flagged_pct"] = holdings_flagged.percent();
  report["holdings_unflagged_exact_pct"] = holdings_unflagged_exact.percent();
  report["holdings_still_flagged_pct"] = holdings_still_flagged.percent();
  // Area-frames without their own player's hand in view: counted exactly and not flagged.
  report["holdings_own_hand_away_exact_pct"] = holdings_own_hand_away.percent();
  report["holdings_own_hand_away_total"] = holdings_own_hand_away.total;
  report["levers_right_pct"] = levers_right.percent();
  report["levers_right_no_hands_pct"] = levers_right_still.percent();
  report["levers_read_pct"] = levers_read.percent();
  report["levers_right_of_read_pct"] = levers_right_of_read.percent();
  report["fps"] = frames_per_second;
  report["mode"] = options.single_frame ? "single-frame" : "tracking";
  // Per board, as in the calibration's order: its reader, what it weighed at the start
  // position, and how it read the clip (whether the start position foretells the game).
  std::string squares_by;
  nlohmann::ordered_json boards = nlohmann::ordered_json::array();
  for (std::size_t b = 0; reader && b < reader->calibration().boards.size(); ++b) {
    const calibration::Board& board = reader->calibration().boards[b];
    const std::string reader_name = reader->reads_by_network(b)     ? "network"
                                    : reader->checks_by_network(b)  ? "checked"
                                    : reader->fuses_with_network(b) ? "fused"
                                                                    : "hand";
    squares_by += (b == 0 ? "" : " ") + board.name + ":" + reader_name;
    const Ratio& right = squares_right_by_board[board.name];
    boards.push_back({{"name", board.name},
                      {"squares", reader_name},
                      {"start_misreads_hand", board.start_misreads_hand},
                      {"start_misreads_network", board.start_misreads_network},
                      {"squares_right_pct", right.percent()},
                      {"squares_wrong", right.total - right.right},
                      {"squares_total", right.total}});
  }
  report["squares"] = squares_by;
  report["boards"] = boards;
  report["looks_learnt"] = looks_learnt;
  if (options.json) {
    std::cout << report.dump() << "\n";
  } else {
    for (const auto& [key, value] : report.items()) std::cout << key << ": " << value << "\n";
  }
  return kExitOk;
}

}  // namespace

void add_eval_vision_command(CLI::App& app, int& exit_status) {
  auto options = std::make_shared<EvalOptions>();
  CLI::App* cmd = app.add_subcommand(
      "eval-vision",
      "Measures calibration and vision against the truth of a clip from `bugcam synth`: corner "
      "error, A/B and orientation, squares, occlusion, holdings, levers, frames per second.");
  cmd->add_option("clip", options->clip, "Directory written by bugcam synth")->required();
  cmd->add_option("--step", options->step,
                  "Score every Nth frame (default 1); the tracking reader still reads every frame")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--calibration-frame", options->calibration_frame,
                  "Frame to calibrate on (default 0); it should show the start position, where the "
                  "pieces' looks are learnt and each board's square reader chosen")
      ->check(CLI::NonNegativeNumber);
  cmd->add_flag("--json", options->json, "Print the figures as one JSON object");
  cmd->add_flag("--single-frame", options->single_frame,
                "Read every frame on its own (no temporal evidence; compare with the default)");
  cmd->add_flag(
      "!--no-looks", options->learn_looks,
      "Do not learn the pieces' and shadows' looks from the calibration frame, nor choose "
      "the square readers there (the fixed rules and the hand-written reader, as with a "
      "calibration file from before they existed)");
  cmd->add_option("--squares", options->squares, vision::kSquareReadersHelp)
      ->check(CLI::IsMember(vision::square_reader_names()));
  cmd->add_flag("!--holdings-blobs", options->holdings_network,
                "Find the held pieces as blobs that differ from the table alone, without the "
                "holding network (vision/models/holdings.onnx; as before stop 47)");
  cmd->add_flag("--lens", options->lens,
                "Calibrate with the lens's radial distortion fitted too (experimental, as "
                "`bugcam calibrate --lens`)");
  cmd->add_flag("--verbose", options->verbose,
                "List every square read wrong or covered and not flagged on stderr");
  cmd->callback([options, &exit_status] { exit_status = run_eval(*options); });
}

}  // namespace bugcam::app
