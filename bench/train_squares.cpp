// Cuts the boards the square network (vision/models/squares.onnx) learns from, out of
// synthetic clips with their truth, for scripts/train_squares.py; and measures a trained
// network per class (empty / white / black) on other clips, beside the hand-written reader
// (issue 4). Deterministic for given options.
//
//   train_squares --cut FILE [--step N] CLIP_DIR...
//       writes FILE (format at write_boards): every Nth frame (default 6), each board's
//       network view (square_net_board) with its viewpoint and the truth of each square
//   train_squares --cut FILE --stills FIRST-LAST --count N
//       the same from N rendered stills of seeds spread over FIRST-LAST
//       (samples::render_training_still: random positions, every look the renderer has,
//       tilt 0-40 degrees; JPEG-compressed as video; calibrated from the renderer's lattice
//       with a small error), no hands, every square counts
//   train_squares --evaluate [--model FILE] [--step N] CLIP_DIR...
//       per-class accuracy and confusion of the network (the bundled one unless --model)
//       and of the hand-written single-frame reader on the same squares, through vision's
//       own code; the network's milliseconds per frame (both boards)
//
// The boards are calibrated on each clip's first frame with learnt looks, as recording does.
// A square counts where the truth says nothing covers it, in frames at least
// kSettleFrames from a change of the truth position on its board (a piece in flight or in
// a hand is not what the square shows).
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <opencv2/core/utility.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/videoio.hpp>

#include "bugcam/calibration.hpp"
#include "bugcam/samples.hpp"
#include "bugcam/vision.hpp"
#include "still_calibration.hpp"

namespace {

namespace fs = std::filesystem;
namespace vision = bugcam::vision;
namespace calibration = bugcam::calibration;

constexpr int kSettleFrames = 5;
constexpr int kIgnore = -1;
const char* const kClassNames[3] = {"empty", "white", "black"};

int usage(const char* message) {
  std::cerr << "train_squares: " << message
            << "\nusage: train_squares --cut FILE [--step N] CLIP_DIR...\n"
               "       train_squares --cut FILE --stills FIRST-LAST --count N\n"
               "       train_squares --evaluate [--model FILE] [--step N] CLIP_DIR...\n";
  return 2;
}

// One board of one sampled frame.
struct BoardSample {
  int clip = 0, frame = 0, board = 0;
  vision::Viewpoint view;
  std::array<std::int8_t, 64> labels{};  // 0 empty, 1 white, 2 black, kIgnore; a1 = 0
  cv::Mat pixels;                        // square_net_board
  cv::Mat warped;                        // the 32 px warp (evaluation only)
};

int square_index(const std::string& name) {
  return (name[1] - '1') * 8 + (name[0] - 'a');
}

// Calls `take` with the sampled boards of one clip, frame by frame. False when the clip
// cannot be read or calibrated as its truth says.
template <typename Take>
bool for_each_sample(const fs::path& dir, int clip_index, int step, bool keep_warp,
                     std::unique_ptr<vision::FrameReader>& hand_reader, Take take) {
  std::ifstream truth_file(dir / "truth.json");
  if (!truth_file) {
    std::cerr << dir.string() << ": no truth.json\n";
    return false;
  }
  const nlohmann::json truth = nlohmann::json::parse(truth_file);
  cv::VideoCapture video((dir / truth.value("video", "video.mp4")).string());
  if (!video.isOpened()) {
    std::cerr << dir.string() << ": cannot open the video\n";
    return false;
  }
  std::map<int, std::map<std::string, std::set<int>>> covered;
  for (const auto& note : truth["frame_notes"]) {
    if (!note.contains("occluded")) continue;
    for (const auto& [board, squares] : note["occluded"].items()) {
      for (const auto& s : squares) covered[note["f"].get<int>()][board].insert(square_index(s));
    }
  }
  const auto& states = truth["states"];
  std::vector<int> change_frames;
  for (const auto& s : states) change_frames.push_back(s["frame"].get<int>());
  calibration::Calibration cal;
  std::vector<vision::Viewpoint> views;
  std::vector<int> usable;  // calibration board index per truth board found and oriented
  std::vector<std::string> names;
  cv::Mat frame;
  for (int f = 0; video.read(frame) && !frame.empty(); ++f) {
    if (f == 0) {
      try {
        cal = calibration::calibrate(frame);
      } catch (const calibration::CalibrationError& e) {
        std::cerr << dir.string() << ": " << e.what() << "\n";
        return false;
      }
      vision::learn_looks(frame, cal);
      views = vision::estimate_viewpoints(cal);
      for (size_t i = 0; i < cal.boards.size(); ++i) {
        for (const auto& b : truth["boards"]) {
          if (b["name"] != cal.boards[i].name) continue;
          const cv::Point2d a1(b["corners"][0][0].get<double>(), b["corners"][0][1].get<double>());
          const cv::Point2d h1(b["corners"][1][0].get<double>(), b["corners"][1][1].get<double>());
          const double square = std::hypot(h1.x - a1.x, h1.y - a1.y) / 8;
          const cv::Point2d found = cal.boards[i].corners()[0];
          if (std::hypot(found.x - a1.x, found.y - a1.y) < 0.5 * square) {
            usable.push_back(static_cast<int>(i));
          } else {
            std::cerr << dir.string() << ": board " << cal.boards[i].name
                      << " found in another orientation; left out\n";
          }
        }
      }
      if (keep_warp) {
        vision::VisionOptions options;
        options.squares = vision::SquareReader::kHand;
        options.read_holdings = false;
        options.watch_arms = false;
        options.bundled_piece_types = false;
        hand_reader = std::make_unique<vision::FrameReader>(cal, options);
      }
    }
    if (f % step != 0) continue;
    const nlohmann::json* state = &states[0];
    int nearest_change = 1 << 30;
    for (const auto& s : states) {
      if (s["frame"].get<int>() <= f) state = &s;
    }
    for (const int c : change_frames) {
      if (c > 0) nearest_change = std::min(nearest_change, std::abs(c - f));
    }
    const bool settled = nearest_change >= kSettleFrames;
    for (const int i : usable) {
      const calibration::Board& board = cal.boards[static_cast<size_t>(i)];
      if (!state->contains(board.name)) continue;
      const auto& rows = (*state)[board.name]["occupancy"];
      BoardSample sample;
      sample.clip = clip_index;
      sample.frame = f;
      sample.board = i;
      sample.view = views[static_cast<size_t>(i)];
      const std::set<int>& hidden = covered[f][board.name];
      for (int sq = 0; sq < 64; ++sq) {
        const char c =
            rows[static_cast<size_t>(7 - sq / 8)].get<std::string>()[static_cast<size_t>(sq % 8)];
        std::int8_t label = c == '.' ? 0 : c == 'w' ? 1 : c == 'b' ? 2 : kIgnore;
        if (!settled || hidden.count(sq) != 0) label = kIgnore;
        sample.labels[static_cast<size_t>(sq)] = label;
      }
      const cv::Mat warped = calibration::warp_board(frame, board.board_to_image, 32, board.lens);
      sample.pixels = vision::square_net_board(warped);
      if (keep_warp) sample.warped = warped;
      take(sample, frame);
    }
  }
  return true;
}

// FILE: "BGSQ", version 1 (u32), count (u32), side (u32); then per board: clip, frame,
// board (i32 each), nadir x, nadir y, camera height (f32 each), 64 labels (i8, a1 = 0,
// -1 ignore), side * side * 3 pixels (u8, BGR, row 0 = rank 8). Little-endian.
void write_boards(const fs::path& file, const std::vector<BoardSample>& samples) {
  std::ofstream out(file, std::ios::binary);
  const auto put = [&](const auto& value) {
    out.write(reinterpret_cast<const char*>(&value), sizeof(value));
  };
  out.write("BGSQ", 4);
  put(std::uint32_t{1});
  put(static_cast<std::uint32_t>(samples.size()));
  put(static_cast<std::uint32_t>(8 * vision::kSquareNetPx));
  for (const BoardSample& s : samples) {
    put(std::int32_t{s.clip});
    put(std::int32_t{s.frame});
    put(std::int32_t{s.board});
    put(static_cast<float>(s.view.nadir.x));
    put(static_cast<float>(s.view.nadir.y));
    put(static_cast<float>(s.view.camera_height));
    out.write(reinterpret_cast<const char*>(s.labels.data()), 64);
    const cv::Mat pixels = s.pixels.isContinuous() ? s.pixels : s.pixels.clone();
    out.write(reinterpret_cast<const char*>(pixels.data),
              static_cast<std::streamsize>(pixels.total() * pixels.elemSize()));
  }
  if (!out) throw std::runtime_error(file.string() + ": cannot write");
}

// Boards of rendered stills: seed, 0, board; labels from the renderer.
void cut_stills(int first, int last, int count, std::vector<BoardSample>& samples) {
  std::mt19937_64 rng(static_cast<std::uint64_t>(first) * 7919 + static_cast<std::uint64_t>(count));
  std::uniform_real_distribution<double> jitter(-0.04, 0.04);
  std::uniform_int_distribution<int> quality(55, 92);
  const int span = last - first + 1;
  for (int i = 0; i < count && i < span; ++i) {
    const int seed = first + static_cast<int>(static_cast<long>(i) * span / std::min(count, span));
    const bugcam::samples::TrainingStill still =
        bugcam::samples::render_training_still(static_cast<std::uint64_t>(seed), 0, 1280, 720);
    const double dx = jitter(rng), dy = jitter(rng);
    const calibration::Calibration cal = bugcam::testing::still_calibration(still, {dx, dy});
    std::vector<uchar> bytes;
    cv::imencode(".jpg", still.image, bytes, {cv::IMWRITE_JPEG_QUALITY, quality(rng)});
    const cv::Mat image = cv::imdecode(bytes, cv::IMREAD_COLOR);
    const std::vector<vision::Viewpoint> views = vision::estimate_viewpoints(cal);
    for (size_t b = 0; b < cal.boards.size(); ++b) {
      BoardSample sample;
      sample.clip = seed;
      sample.board = static_cast<int>(b);
      sample.view = views[b];
      for (size_t sq = 0; sq < 64; ++sq) {
        const char c = still.squares[b][sq];
        sample.labels[sq] = c == '.' ? 0 : (c >= 'a' ? 2 : 1);
      }
      sample.pixels = vision::square_net_board(
          calibration::warp_board(image, cal.boards[b].board_to_image, 32, cal.boards[b].lens));
      samples.push_back(sample);
    }
  }
}

struct Confusion {
  std::array<std::array<long, 4>, 3> counts{};  // truth x read (empty, white, black, unsure)
  void add(int truth, int read) { ++counts[static_cast<size_t>(truth)][static_cast<size_t>(read)]; }
  void print(const std::string& what) const {
    long right = 0, total = 0;
    for (size_t t = 0; t < 3; ++t) {
      for (size_t r = 0; r < 4; ++r) total += counts[t][r];
      right += counts[t][t];
    }
    std::printf("%s: %.3f %% right (%ld / %ld squares)\n", what.c_str(),
                total ? 100.0 * double(right) / double(total) : 0.0, right, total);
    std::printf("  truth   right %%   read: empty   white   black   unsure\n");
    for (size_t t = 0; t < 3; ++t) {
      long seen = 0;
      for (size_t r = 0; r < 4; ++r) seen += counts[t][r];
      std::printf("  %-6s %8.3f       %7ld %7ld %7ld %7ld\n", kClassNames[t],
                  seen ? 100.0 * double(counts[t][t]) / double(seen) : 0.0, counts[t][0],
                  counts[t][1], counts[t][2], counts[t][3]);
    }
  }
};

int read_class(const std::array<float, 3>& p) {
  // As SquareObservation::symbol: sure at 0.7.
  for (int c = 0; c < 3; ++c) {
    if (p[static_cast<size_t>(c)] >= 0.7f) return c;
  }
  return 3;
}

}  // namespace

int main(int argc, char** argv) {
  std::string cut_file, model_file;
  bool evaluate = false;
  int step = 6;
  int stills_first = -1, stills_last = -1, stills_count = 0;
  std::vector<fs::path> clips;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--cut" && has_value) {
      cut_file = argv[++i];
    } else if (arg == "--evaluate") {
      evaluate = true;
    } else if (arg == "--model" && has_value) {
      model_file = argv[++i];
    } else if (arg == "--stills" && has_value) {
      if (std::sscanf(argv[++i], "%d-%d", &stills_first, &stills_last) != 2 || stills_first < 0 ||
          stills_last < stills_first) {
        return usage("--stills FIRST-LAST");
      }
    } else if (arg == "--count" && has_value) {
      stills_count = std::max(0, std::atoi(argv[++i]));
    } else if (arg == "--step" && has_value) {
      step = std::max(1, std::atoi(argv[++i]));
    } else if (arg == "--help" || arg == "-h") {
      return usage("cuts boards from clips, or measures the square network");
    } else if (!arg.empty() && arg[0] != '-') {
      clips.emplace_back(arg);
    } else {
      return usage(("unknown option " + arg).c_str());
    }
  }
  if ((clips.empty() && stills_count == 0) || (cut_file.empty() == !evaluate)) {
    return usage("give --cut FILE or --evaluate, and clips");
  }
  cv::setNumThreads(1);
  if (!cut_file.empty()) {
    std::vector<BoardSample> samples;
    if (stills_count > 0) cut_stills(stills_first, stills_last, stills_count, samples);
    for (size_t c = 0; c < clips.size(); ++c) {
      std::unique_ptr<vision::FrameReader> unused;
      const size_t before = samples.size();
      for_each_sample(clips[c], static_cast<int>(c), step, false, unused,
                      [&](const BoardSample& s, const cv::Mat&) { samples.push_back(s); });
      std::cerr << clips[c].string() << ": " << samples.size() - before << " boards\n";
    }
    write_boards(cut_file, samples);
    std::cerr << "wrote " << samples.size() << " boards to " << cut_file << "\n";
    return 0;
  }
  std::shared_ptr<const vision::SquareModel> model =
      model_file.empty() ? vision::SquareModel::load_bundled()
                         : std::make_shared<const vision::SquareModel>(model_file);
  if (!model) {
    std::cerr << "train_squares: no square network found\n";
    return 1;
  }
  Confusion network_total, hand_total;
  double network_seconds = 0;
  long network_frames = 0;
  for (size_t c = 0; c < clips.size(); ++c) {
    Confusion network, hand;
    std::unique_ptr<vision::FrameReader> hand_reader;
    // Both boards of a frame go through the network in one batch, as FrameReader runs the
    // boards it reads by network.
    int pending_frame = -1;
    std::vector<BoardSample> pending;
    cv::Mat pending_image;
    const auto flush = [&]() {
      if (pending.empty()) return;
      std::vector<cv::Mat> warps;
      std::vector<vision::Viewpoint> views;
      for (const BoardSample& s : pending) {
        warps.push_back(s.warped);
        views.push_back(s.view);
      }
      const auto started = std::chrono::steady_clock::now();
      const std::vector<vision::SquareProbabilities> read = model->read(warps, views);
      network_seconds +=
          std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      ++network_frames;
      const vision::FrameObservation seen = hand_reader->read(pending_image);
      for (size_t b = 0; b < pending.size(); ++b) {
        const BoardSample& s = pending[b];
        const auto& hand_squares = seen.boards[static_cast<size_t>(s.board)].squares;
        for (size_t sq = 0; sq < 64; ++sq) {
          if (s.labels[sq] == kIgnore) continue;
          network.add(s.labels[sq], read_class(read[b][sq]));
          const vision::SquareObservation& h = hand_squares[sq];
          hand.add(s.labels[sq], read_class({h.p_empty, h.p_white, h.p_black}));
        }
      }
      pending.clear();
    };
    const bool ok = for_each_sample(clips[c], static_cast<int>(c), step, true, hand_reader,
                                    [&](const BoardSample& s, const cv::Mat& image) {
                                      if (s.frame != pending_frame) {
                                        flush();
                                        pending_image = image.clone();
                                      }
                                      pending_frame = s.frame;
                                      pending.push_back(s);
                                    });
    flush();
    if (!ok) continue;
    network.print(clips[c].filename().string() + " network");
    hand.print(clips[c].filename().string() + " hand-written");
    for (size_t t = 0; t < 3; ++t) {
      for (size_t r = 0; r < 4; ++r) {
        network_total.counts[t][r] += network.counts[t][r];
        hand_total.counts[t][r] += hand.counts[t][r];
      }
    }
  }
  network_total.print("all clips network");
  hand_total.print("all clips hand-written");
  std::printf("network: %.2f ms per frame (both boards, one thread)\n",
              network_frames ? 1000.0 * network_seconds / double(network_frames) : 0.0);
  return 0;
}
