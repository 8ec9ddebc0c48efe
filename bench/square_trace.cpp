// One square of a recording's video, frame by frame: what the single-frame reader sees and
// what vision's tracking (BoardTracker: still views, hands) reports to the tracker. For
// finding why a square's reading went wrong (issue 4): run it on a clip's video with the
// calibration the recording saved (its learnt looks included).
//
// usage: square_trace VIDEO --calibration recorded/calibration.pbtxt --square A:b1
//                     [--from SECONDS] [--to SECONDS] [--changes] [--warp PNG]
//                     [--squares auto|hand|network|checked|fused]
// --changes prints only the frames where either reading's symbol changes; --warp writes the
// board's top-down warp at the first frame printed; --squares chooses who reads the squares
// (default fused, as recording does).
#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <opencv2/imgcodecs.hpp>

#include "bugcam/calibration.hpp"
#include "bugcam/capture.hpp"
#include "bugcam/vision.hpp"

namespace {

using namespace bugcam;

struct Options {
  std::string video;
  std::string calibration;
  std::string board;
  int square = -1;
  double from = 0.0;
  double to = 1e9;
  bool changes_only = false;
  std::string warp;
  vision::SquareReader squares = vision::SquareReader::kFused;
};

std::optional<Options> parse(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--calibration" && has_value) {
      options.calibration = argv[++i];
    } else if (arg == "--square" && has_value) {
      const std::string value = argv[++i];
      if (value.size() != 4 || value[1] != ':' || value[2] < 'a' || value[2] > 'h' ||
          value[3] < '1' || value[3] > '8') {
        std::cerr << "square_trace: --square " << value << ": expected BOARD:SQUARE, as A:b1\n";
        return std::nullopt;
      }
      options.board = value.substr(0, 1);
      options.square = (value[3] - '1') * 8 + (value[2] - 'a');
    } else if ((arg == "--from" || arg == "--to") && has_value) {
      const std::string value = argv[++i];
      char* end = nullptr;
      const double seconds = std::strtod(value.c_str(), &end);
      if (value.empty() || *end != '\0') {
        std::cerr << "square_trace: " << arg << " " << value << ": expected seconds\n";
        return std::nullopt;
      }
      (arg == "--from" ? options.from : options.to) = seconds;
    } else if (arg == "--warp" && has_value) {
      options.warp = argv[++i];
    } else if (arg == "--squares" && has_value) {
      const std::string value = argv[++i];
      const std::optional<vision::SquareReader> reader = vision::square_reader_named(value);
      if (!reader) {
        std::cerr << "square_trace: --squares " << value << ": not a square reader\n";
        return std::nullopt;
      }
      options.squares = *reader;
    } else if (arg == "--changes") {
      options.changes_only = true;
    } else if (options.video.empty() && arg.rfind("--", 0) != 0) {
      options.video = arg;
    } else {
      std::cerr << "square_trace: unknown argument " << arg << "\n";
      return std::nullopt;
    }
  }
  if (options.video.empty() || options.calibration.empty() || options.square < 0) {
    std::cerr << "usage: square_trace VIDEO --calibration FILE --square A:b1 [--from S] "
                 "[--to S] [--changes] [--warp PNG] [--squares auto|hand|network|checked|fused]\n";
    return std::nullopt;
  }
  return options;
}

std::string describe(const vision::SquareObservation& square) {
  char text[64];
  std::snprintf(text, sizeof text, "%c %.2f/%.2f/%.2f%s%s", square.symbol(), square.p_empty,
                square.p_white, square.p_black, square.occluded ? " occ" : "",
                square.altered ? " alt" : "");
  return text;
}

int run(Options options) {
  const calibration::Calibration calibration = calibration::load_calibration(options.calibration);
  std::size_t board = calibration.boards.size();
  for (std::size_t b = 0; b < calibration.boards.size(); ++b) {
    if (calibration.boards[b].name == options.board) board = b;
  }
  if (board == calibration.boards.size()) {
    std::cerr << "square_trace: " << options.calibration << ": no board " << options.board << "\n";
    return 1;
  }
  vision::VisionOptions vision_options;
  vision_options.read_holdings = false;
  vision_options.squares = options.squares;
  const vision::FrameReader reader(calibration, vision_options);
  vision::BoardTracker tracker;
  std::unique_ptr<capture::FrameSource> source = capture::open_frame_source(options.video);
  const auto square = static_cast<std::size_t>(options.square);
  char last_single = 0;
  char last_tracked = 0;
  bool last_altered = false;
  while (std::optional<capture::Frame> frame = source->next()) {
    if (frame->t > options.to) break;
    std::vector<cv::Mat> warped;
    const vision::FrameObservation single = reader.read(frame->image, &warped);
    if (board >= single.boards.size() || board >= warped.size()) continue;
    const std::array<vision::SquareObservation, 64> tracked =
        tracker.update(warped[board], single.boards[board].squares);
    if (frame->t < options.from) continue;
    const vision::SquareObservation& one = single.boards[board].squares[square];
    const vision::SquareObservation& kept = tracked[square];
    const bool changed = one.symbol() != last_single || kept.symbol() != last_tracked ||
                         kept.altered != last_altered;
    last_single = one.symbol();
    last_tracked = kept.symbol();
    last_altered = kept.altered;
    if (options.changes_only && !changed) continue;
    if (!options.warp.empty()) {
      if (!cv::imwrite(options.warp, warped[board])) {
        std::cerr << "square_trace: " << options.warp << ": cannot write\n";
        return 1;
      }
      options.warp.clear();
    }
    std::printf("%6d %8.3f  single %-24s tracked %-24s confirmed %c\n", frame->index, frame->t,
                describe(one).c_str(), describe(kept).c_str(), tracker.confirmed()[square]);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::optional<Options> options = parse(argc, argv);
  if (!options) return 2;
  try {
    return run(*options);
  } catch (const std::exception& e) {
    std::cerr << "square_trace: " << e.what() << "\n";
    return 1;
  }
}
