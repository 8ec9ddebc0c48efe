// Where the hand-written square reader and the square network disagree, who is right: per
// synthetic clip, every Nth frame, each uncovered square of a board the two readers are fused
// on (vision::network_fuses_start) read by both, single frame, against the truth. Squares the
// two read alike are counted only; those they read otherwise are tabulated by the hand-written
// reader's likeliest state and how sure it is, the network's likeliest and how sure, and the
// square's colour, with how often the truth is the one, the other or neither. It shows whether
// the mean of the two (what a square in doubt takes) throws away a reader that is mostly right
// there.
//
// usage: fusion_eval CLIP_DIR... [--step N]   (every 10th frame by default)
#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "bugcam/calibration.hpp"
#include "bugcam/capture.hpp"
#include "bugcam/vision.hpp"

namespace {

using namespace bugcam;
namespace fs = std::filesystem;

constexpr std::array<char, 3> kStates = {'.', 'w', 'b'};

std::string square_name(int sq) {
  return {static_cast<char>('a' + sq % 8), static_cast<char>('1' + sq / 8)};
}

// How sure a reader is of its likeliest state, in bands.
const char* band(float p) {
  return p >= 0.99f ? ">=.99" : p >= 0.9f ? ".90-.99" : p >= 0.7f ? ".70-.90" : "<.70";
}

struct Outcome {
  long hand_right = 0, network_right = 0, neither = 0;
};

// (hand state, hand band, network state, network band, square light) -> outcomes
using Table = std::map<std::tuple<char, std::string, char, std::string, bool>, Outcome>;

struct Totals {
  long agree = 0, agree_right = 0;
  Table disagree;
};

int evaluate(const fs::path& clip, int step, const vision::SquareModel& model, Totals& totals) {
  std::ifstream in(clip / "truth.json");
  if (!in) {
    std::cerr << clip.string() << ": no truth.json\n";
    return 1;
  }
  const nlohmann::json truth = nlohmann::json::parse(in);
  const nlohmann::json& states = truth["states"];
  std::map<int, std::map<std::string, std::set<std::string>>> occluded;
  for (const nlohmann::json& note : truth["frame_notes"]) {
    if (!note.contains("occluded")) continue;
    for (const auto& [board, squares] : note["occluded"].items()) {
      for (const nlohmann::json& s : squares) occluded[note["f"]][board].insert(s);
    }
  }
  std::unique_ptr<capture::FrameSource> source =
      capture::open_frame_source((clip / "video.mp4").string());
  std::optional<capture::Frame> frame = source->next();
  if (!frame) {
    std::cerr << clip.string() << ": no frames\n";
    return 1;
  }
  // As recording does: calibrated on the start position, looks learnt and readers chosen there.
  calibration::Calibration calibration = calibration::calibrate(frame->image);
  vision::learn_start_position(frame->image, calibration, &model);
  std::vector<bool> fused;
  for (const calibration::Board& board : calibration.boards) {
    fused.push_back(
        !board.squares_by_network &&
        vision::network_fuses_start(board.start_misreads_hand, board.start_misreads_network));
  }
  vision::VisionOptions options;
  options.squares = vision::SquareReader::kHand;
  options.bundled_piece_types = false;
  options.read_holdings = false;
  options.read_clocks = false;
  options.watch_arms = false;
  const vision::FrameReader hand(calibration, options);
  const std::vector<vision::Viewpoint> views = vision::estimate_viewpoints(calibration);
  Totals clip_totals;
  for (int f = 0; frame; ++f, frame = source->next()) {
    if (f % step != 0) continue;
    std::vector<cv::Mat> warps;
    const vision::FrameObservation by_hand = hand.read(frame->image, &warps);
    const std::vector<vision::SquareProbabilities> by_network = model.read(warps, views);
    const nlohmann::json* state = &states[0];
    for (const nlohmann::json& s : states) {
      if (s["frame"].get<int>() <= f) state = &s;
    }
    for (std::size_t b = 0; b < by_hand.boards.size() && b < by_network.size() && b < fused.size();
         ++b) {
      if (!fused[b]) continue;
      const std::string& name = by_hand.boards[b].name;
      if (!state->contains(name)) continue;
      const nlohmann::json& rows = (*state)[name]["occupancy"];
      const std::set<std::string>& covered = occluded[f][name];
      for (int sq = 0; sq < 64; ++sq) {
        if (covered.count(square_name(sq)) != 0) continue;
        const vision::SquareObservation& h = by_hand.boards[b].squares[static_cast<size_t>(sq)];
        if (h.occluded) continue;  // the tracker takes no reading of it
        const char expected =
            rows[static_cast<size_t>(7 - sq / 8)].get<std::string>()[static_cast<size_t>(sq % 8)];
        const std::array<float, 3> hp{h.p_empty, h.p_white, h.p_black};
        const std::array<float, 3>& np = by_network[b][static_cast<size_t>(sq)];
        const auto hi = static_cast<size_t>(std::max_element(hp.begin(), hp.end()) - hp.begin());
        const auto ni = static_cast<size_t>(std::max_element(np.begin(), np.end()) - np.begin());
        if (hi == ni) {
          ++clip_totals.agree;
          clip_totals.agree_right += kStates[hi] == expected ? 1 : 0;
          continue;
        }
        // Square a1 is dark; light where file + rank is odd.
        const bool light = (sq % 8 + sq / 8) % 2 == 1;
        Outcome& o =
            clip_totals.disagree[{kStates[hi], band(hp[hi]), kStates[ni], band(np[ni]), light}];
        if (kStates[hi] == expected) {
          ++o.hand_right;
        } else if (kStates[ni] == expected) {
          ++o.network_right;
        } else {
          ++o.neither;
        }
      }
    }
  }
  long disagree = 0, hand_right = 0, network_right = 0;
  for (const auto& [key, o] : clip_totals.disagree) {
    disagree += o.hand_right + o.network_right + o.neither;
    hand_right += o.hand_right;
    network_right += o.network_right;
    Outcome& total = totals.disagree[key];
    total.hand_right += o.hand_right;
    total.network_right += o.network_right;
    total.neither += o.neither;
  }
  totals.agree += clip_totals.agree;
  totals.agree_right += clip_totals.agree_right;
  std::printf(
      "%s: boards fused %d; agree %ld (right %ld); disagree %ld: hand right %ld, network "
      "right %ld\n",
      clip.filename().string().c_str(),
      static_cast<int>(std::count(fused.begin(), fused.end(), true)), clip_totals.agree,
      clip_totals.agree_right, disagree, hand_right, network_right);
  std::fflush(stdout);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  int step = 10;
  std::vector<fs::path> clips;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--step") == 0) {
      if (i + 1 >= argc) {
        std::cerr << "fusion_eval: --step needs a number of frames\n";
        return 2;
      }
      step = std::max(1, std::atoi(argv[++i]));
    } else {
      clips.emplace_back(argv[i]);
    }
  }
  if (clips.empty()) {
    std::cerr << "usage: fusion_eval CLIP_DIR... [--step N] (default: every 10th frame)\n";
    return 2;
  }
  const std::shared_ptr<const vision::SquareModel> model = vision::SquareModel::load_bundled();
  if (!model) {
    std::cerr << "fusion_eval: no square network (" << vision::SquareModel::bundled_file() << ")\n";
    return 1;
  }
  Totals totals;
  int failed = 0;
  for (const fs::path& clip : clips) {
    try {
      failed += evaluate(clip, step, *model, totals);
    } catch (const std::exception& e) {
      std::cerr << clip.string() << ": " << e.what() << "\n";
      ++failed;
    }
  }
  std::printf(
      "\n%zu clips, every %d frames, uncovered squares of fused boards: agree %ld (right "
      "%ld)\n",
      clips.size(), step, totals.agree, totals.agree_right);
  std::printf("%-5s %-8s %-7s %-8s %-6s %10s %10s %8s\n", "hand", "sure", "network", "sure",
              "square", "hand right", "net right", "neither");
  for (const auto& [key, o] : totals.disagree) {
    const auto& [h, hb, n, nb, light] = key;
    std::printf("%-5c %-8s %-7c %-8s %-6s %10ld %10ld %8ld\n", h, hb.c_str(), n, nb.c_str(),
                light ? "light" : "dark", o.hand_right, o.network_right, o.neither);
  }
  return failed == 0 ? 0 : 1;
}
