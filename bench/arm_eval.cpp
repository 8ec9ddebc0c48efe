// Arms over the boards attributed to seats (vision::ArmWatch) against a synthetic clip's
// truth: per clip, the stretches where an arm from a seat of the other board is seen over a
// board for at least the tracker's partner_touch_seconds (what it reports as
// partner_board_touched), each true when it overlaps a staged touch by that seat over that board,
// and the share of a staged touch's frames attributed right. Only the arms are read, so a clip
// takes seconds.
//
// usage: arm_eval CLIP_DIR... [--verbose]
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bugcam/calibration.hpp"
#include "bugcam/capture.hpp"
#include "bugcam/tracker.hpp"
#include "bugcam/vision.hpp"

namespace {

using namespace bugcam;
namespace fs = std::filesystem;

struct Touch {
  std::string board;  // the board touched
  std::string seat;   // "A:white"
  double t = 0, t_end = 0;
};

struct Score {
  int truth = 0;
  int found = 0;
  int false_touches = 0;
  int touch_frames = 0;
  int touch_frames_right = 0;
};

std::string other_board(const std::string& board) {
  return board == "A" ? "B" : "A";
}

int evaluate(const fs::path& clip, bool verbose, Score& total) {
  std::ifstream in(clip / "truth.json");
  if (!in) {
    std::cerr << clip.string() << ": no truth.json\n";
    return 1;
  }
  const nlohmann::json truth = nlohmann::json::parse(in);
  std::vector<Touch> touches;
  for (const nlohmann::json& incident : truth["incidents"]) {
    if (incident["type"] != "partner_board_touched") continue;
    const std::string board = incident["board"];
    touches.push_back({board, other_board(board) + ":" + incident["side"].get<std::string>(),
                       incident["t"], incident["t_end"]});
  }
  std::unique_ptr<capture::FrameSource> source =
      capture::open_frame_source((clip / "video.mp4").string());
  std::optional<capture::Frame> frame = source->next();
  if (!frame) {
    std::cerr << clip.string() << ": no frames\n";
    return 1;
  }
  // As recording does: calibrated on the start position, its looks learnt from it.
  calibration::Calibration calibration = calibration::calibrate(frame->image);
  vision::learn_looks(frame->image, calibration);
  vision::ArmWatch watch(calibration);
  // Per (board, seat) of the other board: the stretch going on, frames first..last.
  struct Stretch {
    double start = 0, last = 0;
    bool open = false;
  };
  std::map<std::pair<std::string, std::string>, Stretch> stretches;
  std::map<std::pair<std::string, std::string>, int> frames_seen;  // every seat, every board
  Score score;
  score.truth = static_cast<int>(touches.size());
  std::vector<bool> touch_found(touches.size(), false);
  const double touch_seconds = tracker::TrackerConfig{}.partner_touch_seconds;
  const auto close = [&](const std::pair<std::string, std::string>& key, Stretch& s) {
    s.open = false;
    if (s.last - s.start + 1e-9 < touch_seconds) return;
    bool matched = false;
    for (std::size_t i = 0; i < touches.size(); ++i) {
      const Touch& t = touches[i];
      if (t.board == key.first && t.seat == key.second && s.start <= t.t_end && s.last >= t.t) {
        matched = true;
        touch_found[i] = true;
      }
    }
    if (!matched) ++score.false_touches;
    std::printf("  %s %s over board %s %.2f-%.2f s\n", matched ? "true " : "FALSE",
                key.second.c_str(), key.first.c_str(), s.start, s.last);
  };
  while (frame) {
    const std::vector<std::vector<std::string>> arms = watch.read(frame->image);
    for (std::size_t b = 0; b < arms.size(); ++b) {
      const std::string& board = calibration.boards[b].name;
      for (const std::string& seat : arms[b]) ++frames_seen[{board, seat}];
      for (const Touch& t : touches) {
        if (t.board != board || frame->t < t.t || frame->t > t.t_end) continue;
        ++score.touch_frames;
        if (std::find(arms[b].begin(), arms[b].end(), t.seat) != arms[b].end()) {
          ++score.touch_frames_right;
        }
      }
      for (const char* colour : {"white", "black"}) {
        const std::string seat = other_board(board) + ":" + colour;
        Stretch& s = stretches[{board, seat}];
        const bool present = std::find(arms[b].begin(), arms[b].end(), seat) != arms[b].end();
        if (present) {
          if (!s.open) s = {frame->t, frame->t, true};
          s.last = frame->t;
        } else if (s.open) {
          close({board, seat}, s);
        }
      }
      if (verbose && !arms[b].empty()) {
        std::printf("    %6.2f s board %s:", frame->t, board.c_str());
        for (const std::string& seat : arms[b]) std::printf(" %s", seat.c_str());
        std::printf("\n");
      }
    }
    frame = source->next();
  }
  for (auto& [key, s] : stretches) {
    if (s.open) close(key, s);
  }
  for (bool found : touch_found) score.found += found ? 1 : 0;
  std::printf("%s: touches %d/%d found, %d false; touch frames right %d/%d; frames per seat:",
              clip.filename().string().c_str(), score.found, score.truth, score.false_touches,
              score.touch_frames_right, score.touch_frames);
  for (const auto& [key, n] : frames_seen) {
    std::printf(" %s>%s %d", key.second.c_str(), key.first.c_str(), n);
  }
  std::printf("\n");
  std::fflush(stdout);
  total.truth += score.truth;
  total.found += score.found;
  total.false_touches += score.false_touches;
  total.touch_frames += score.touch_frames;
  total.touch_frames_right += score.touch_frames_right;
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  bool verbose = false;
  std::vector<fs::path> clips;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--verbose") == 0) {
      verbose = true;
    } else {
      clips.emplace_back(argv[i]);
    }
  }
  if (clips.empty()) {
    std::cerr << "usage: arm_eval CLIP_DIR... [--verbose]\n";
    return 2;
  }
  Score total;
  int failed = 0;
  for (const fs::path& clip : clips) {
    try {
      failed += evaluate(clip, verbose, total);
    } catch (const std::exception& e) {
      std::cerr << clip.string() << ": " << e.what() << "\n";
      ++failed;
    }
  }
  std::printf("\n%zu clips: partner touches %d/%d found, %d false; touch frames right %d/%d\n",
              clips.size(), total.found, total.truth, total.false_touches, total.touch_frames_right,
              total.touch_frames);
  return failed == 0 ? 0 : 1;
}
