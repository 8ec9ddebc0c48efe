// Cuts the holding areas of synthetic stills into the holding network's inputs with a label
// per output cell, for scripts/train_holdings.py to learn from; and measures a trained network
// (vision::HoldingModel, as recording runs it) against the hand-written reader
// (vision::read_holding) on stills of other seeds (issue 4). Deterministic for given options.
//
//   train_holdings --cut FILE --stills FIRST-LAST --count N [--variant-base V]
//       writes FILE (format at write_header / write_record)
//   train_holdings --evaluate --model FILE --stills FIRST-LAST --count N [--variant-base V]
//       holding areas counted exactly (total, by colour), the counts' confusion, ms per strip
//
// Stills come from samples::render_training_still(seed, seed + V), the `count` seeds spread
// evenly over FIRST-LAST; training uses seeds 1-2999, testing 3000-3999 (5000 and above are
// held out for the final measurement and refused here). Each still is calibrated from the
// renderer's lattice with a small error and JPEG-compressed, as train_piece_types does.
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <opencv2/core/utility.hpp>
#include <opencv2/imgcodecs.hpp>

#include "bugcam/calibration.hpp"
#include "bugcam/samples.hpp"
#include "bugcam/vision.hpp"
#include "training_stills.hpp"

namespace {

namespace fs = std::filesystem;
using bugcam::samples::TrainingStill;
namespace vision = bugcam::vision;
namespace calibration = bugcam::calibration;

constexpr int kHeldOutFirstSeed = 5000;

struct Options {
  fs::path cut_file;
  fs::path model_file;
  bool evaluate = false;
  int first = -1, last = -1, count = 0;
  int variant_base = 0;
};

int usage(const char* message) {
  std::cerr << "train_holdings: " << message
            << "\nusage: train_holdings --cut FILE --stills FIRST-LAST --count N "
               "[--variant-base V]\n"
               "       train_holdings --evaluate --model FILE --stills FIRST-LAST --count N "
               "[--variant-base V]\n";
  return 2;
}

// A still as recording would see it: calibrated with the error of a real calibration (the
// lattice moved by up to 0.04 of a square) and JPEG-compressed as video is.
struct Scene {
  TrainingStill still;
  calibration::Calibration calibration;
  cv::Mat frame;
};

Scene scene_of(int seed, int variant_base) {
  Scene scene;
  scene.still = bugcam::samples::render_training_still(
      static_cast<std::uint64_t>(seed), static_cast<std::uint64_t>(seed + variant_base), 1280, 720);
  std::mt19937_64 rng(static_cast<std::uint64_t>(seed) * 7919u + 17u);
  scene.calibration = bugcam::testing::jittered_still_calibration(scene.still, rng);
  scene.frame = bugcam::testing::compressed_as_video(scene.still.image, rng);
  return scene;
}

// The middle of a held piece's silhouette in strip pixels: halfway up a standing piece; a
// lying piece's `base` is already its body's middle.
cv::Point2d middle_in_strip(const TrainingStill::HoldingPiece& piece,
                            const vision::HoldingStrip& strip) {
  const cv::Point2d middle = piece.lying ? piece.base : (piece.base + piece.top) * 0.5;
  const cv::Vec3d p = strip.to_image.inv() * cv::Vec3d(middle.x, middle.y, 1.0);
  return {p[0] / p[2], p[1] / p[2]};
}

bool inside(const cv::Point2d& p, const cv::Mat& image) {
  return p.x >= 0 && p.y >= 0 && p.x < image.cols && p.y < image.rows;
}

// The truth pieces of a holding area whose middle lies inside its strip: where they are and
// whether white. The others are beyond what the strip shows and are not counted.
struct StripTruth {
  std::vector<cv::Point2d> middles;
  std::vector<bool> white;
  int white_count = 0, black_count = 0;
  int outside = 0;  // pieces whose middle is not in the strip
};

StripTruth truth_of(const std::vector<TrainingStill::HoldingPiece>& pieces,
                    const vision::HoldingStrip& strip) {
  StripTruth truth;
  for (const TrainingStill::HoldingPiece& piece : pieces) {
    const cv::Point2d middle = middle_in_strip(piece, strip);
    if (!inside(middle, strip.bgr)) {
      ++truth.outside;
      continue;
    }
    const bool white = std::isupper(static_cast<unsigned char>(piece.letter)) != 0;
    truth.middles.push_back(middle);
    truth.white.push_back(white);
    (white ? truth.white_count : truth.black_count)++;
  }
  return truth;
}

// Labels of the network's output cells (kHoldingNetStride strip pixels each).
constexpr std::int8_t kNoMiddle = 0, kWhiteMiddle = 1, kBlackMiddle = 2, kIgnore = -1;

// The cut file scripts/train_holdings.py reads (little-endian):
//   "BGHS", uint32 version 1, then records to the end of the file, each
//   int32 seed, int32 player (0-3: A:white, A:black, B:white, B:black),
//   int32 height, int32 width (the network input's, multiples of kHoldingNetStride),
//   int32 white pieces, int32 black pieces (the truth count: middles inside the strip),
//   float32 input[4][height][width] (exactly holding_net_input(strip)),
//   int8 labels[height / 4][width / 4] (0 no piece's middle, 1 a white piece's, 2 a black
//   piece's, -1 ignore: next to a middle, where the network's peak may fall as well).
constexpr char kCutMagic[4] = {'B', 'G', 'H', 'S'};
constexpr std::uint32_t kCutVersion = 1;

template <typename T>
void put(std::ofstream& out, T value) {
  out.write(reinterpret_cast<const char*>(&value), sizeof value);
}

void write_header(std::ofstream& out) {
  out.write(kCutMagic, sizeof kCutMagic);
  put(out, kCutVersion);
}

struct CutTotals {
  int stills = 0, strips = 0, no_strip = 0;
  int white = 0, black = 0;  // pieces labelled
  int outside = 0;           // pieces skipped: middle outside the strip
  int out_of_view = 0;       // labelled, but the middle is not in view (beyond the image)
  int shared_cells = 0;      // labelled pieces whose cell another piece's middle took
};

// One strip's input and labels.
void write_record(std::ofstream& out, int seed, int player, const vision::HoldingStrip& strip,
                  const StripTruth& truth, CutTotals& totals) {
  const cv::Mat input = vision::holding_net_input(strip);
  const int height = input.size[2], width = input.size[3];
  const int rows = height / vision::kHoldingNetStride, cols = width / vision::kHoldingNetStride;
  std::vector<std::int8_t> labels(static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols),
                                  kNoMiddle);
  const auto at = [&](int y, int x) {
    return static_cast<std::size_t>(y) * static_cast<std::size_t>(cols) +
           static_cast<std::size_t>(x);
  };
  std::vector<cv::Point> cells;
  for (std::size_t i = 0; i < truth.middles.size(); ++i) {
    const cv::Point2d& middle = truth.middles[i];
    const cv::Point cell(static_cast<int>(std::floor(middle.x / vision::kHoldingNetStride)),
                         static_cast<int>(std::floor(middle.y / vision::kHoldingNetStride)));
    std::int8_t& label = labels[at(cell.y, cell.x)];
    if (label != kNoMiddle) ++totals.shared_cells;
    label = truth.white[i] ? kWhiteMiddle : kBlackMiddle;
    cells.push_back(cell);
    const cv::Point pixel(static_cast<int>(middle.x), static_cast<int>(middle.y));
    if (strip.in_view.at<uchar>(pixel) == 0) ++totals.out_of_view;
  }
  // The cells around a middle are neither wrong nor right for a peak: left out of the loss.
  for (const cv::Point& cell : cells) {
    for (int dy = -1; dy <= 1; ++dy) {
      for (int dx = -1; dx <= 1; ++dx) {
        const int y = cell.y + dy, x = cell.x + dx;
        if (y < 0 || x < 0 || y >= rows || x >= cols) continue;
        if (labels[at(y, x)] == kNoMiddle) labels[at(y, x)] = kIgnore;
      }
    }
  }
  put(out, static_cast<std::int32_t>(seed));
  put(out, static_cast<std::int32_t>(player));
  put(out, static_cast<std::int32_t>(height));
  put(out, static_cast<std::int32_t>(width));
  put(out, static_cast<std::int32_t>(truth.white_count));
  put(out, static_cast<std::int32_t>(truth.black_count));
  out.write(reinterpret_cast<const char*>(input.ptr<float>()),
            static_cast<std::streamsize>(input.total() * sizeof(float)));
  out.write(reinterpret_cast<const char*>(labels.data()),
            static_cast<std::streamsize>(labels.size()));
  totals.white += truth.white_count;
  totals.black += truth.black_count;
}

double seconds_since(std::chrono::steady_clock::time_point started) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
}

int cut(const Options& options) {
  const std::vector<int> seeds =
      bugcam::testing::seeds_of(options.first, options.last, options.count);
  if (options.cut_file.has_parent_path()) fs::create_directories(options.cut_file.parent_path());
  std::ofstream out(options.cut_file, std::ios::binary);
  write_header(out);
  CutTotals totals;
  const auto started = std::chrono::steady_clock::now();
  for (std::size_t i = 0; i < seeds.size(); ++i) {
    const Scene scene = scene_of(seeds[i], options.variant_base);
    ++totals.stills;
    for (std::size_t player = 0; player < 4; ++player) {
      const std::optional<vision::HoldingStrip> strip =
          vision::holding_strip(scene.frame, scene.calibration.holdings[player],
                                scene.calibration.boards[player / 2].square_size_px());
      if (!strip) {
        ++totals.no_strip;
        continue;
      }
      const StripTruth truth = truth_of(scene.still.holdings[player], *strip);
      totals.outside += truth.outside;
      write_record(out, seeds[i], static_cast<int>(player), *strip, truth, totals);
      ++totals.strips;
    }
    if (i % 50 == 49) {
      std::fprintf(stderr, "%s: %zu / %zu stills (%.0f s)\n", options.cut_file.c_str(), i + 1,
                   seeds.size(), seconds_since(started));
    }
  }
  if (!out) throw std::runtime_error(options.cut_file.string() + ": cannot write");
  std::printf(
      "%s: %d stills (seeds %d-%d, variant base %d), %d strips (%d areas without one), "
      "%d pieces labelled (%d white, %d black; %d of them out of view, %d sharing a cell), "
      "%d skipped (middle outside the strip), %.0f s\n",
      options.cut_file.c_str(), totals.stills, options.first, options.last, options.variant_base,
      totals.strips, totals.no_strip, totals.white + totals.black, totals.white, totals.black,
      totals.out_of_view, totals.shared_cells, totals.outside, seconds_since(started));
  return 0;
}

// How often a reader's counts match the truth, and by how much they miss.
class CountScore {
 public:
  static constexpr int kMaxOff = 2;  // misses beyond this are binned with it

  void add(int truth_white, int truth_black, int found_white, int found_black) {
    ++areas_;
    const int truth = truth_white + truth_black, found = found_white + found_black;
    total_right_ += found == truth;
    white_right_ += found_white == truth_white;
    black_right_ += found_black == truth_black;
    both_right_ += found_white == truth_white && found_black == truth_black;
    const int off = std::clamp(found - truth, -kMaxOff, kMaxOff);
    const auto row = static_cast<std::size_t>(std::max(truth, 0));
    if (confusion_.size() <= row) confusion_.resize(row + 1);
    ++confusion_[row][static_cast<std::size_t>(off + kMaxOff)];
  }

  void print(const char* name) const {
    const auto share = [&](int right) { return 100.0 * right / std::max(areas_, 1); };
    std::printf(
        "%s: count right %.1f %% (%d / %d); white right %.1f %%, black right %.1f %%, both "
        "colours right %.1f %%\n",
        name, share(total_right_), total_right_, areas_, share(white_right_), share(black_right_),
        share(both_right_));
  }

  // Per truth count, how many areas were found with that many (-2 means 2 or more fewer).
  void print_confusion(const char* name) const {
    std::printf("%s: areas per truth count (rows) and found minus truth (columns)\n", name);
    std::printf("  truth   <=-2    -1     0    +1  >=+2\n");
    for (std::size_t truth = 0; truth < confusion_.size(); ++truth) {
      std::printf("  %5zu  ", truth);
      for (int n : confusion_[truth]) std::printf(" %5d", n);
      std::printf("\n");
    }
  }

 private:
  int areas_ = 0, total_right_ = 0, white_right_ = 0, black_right_ = 0, both_right_ = 0;
  std::vector<std::array<int, 2 * kMaxOff + 1>> confusion_;
};

int evaluate(const Options& options) {
  const vision::HoldingModel model(options.model_file);
  const std::vector<int> seeds =
      bugcam::testing::seeds_of(options.first, options.last, options.count);
  CountScore network, hand_written;
  double network_seconds = 0, hand_written_seconds = 0;
  int strips = 0, outside = 0, truth_pieces = 0;
  const auto started = std::chrono::steady_clock::now();
  for (std::size_t i = 0; i < seeds.size(); ++i) {
    const Scene scene = scene_of(seeds[i], options.variant_base);
    const calibration::Calibration& c = scene.calibration;
    for (std::size_t player = 0; player < 4; ++player) {
      const calibration::Board& board = c.boards[player / 2];
      const std::optional<vision::HoldingStrip> strip =
          vision::holding_strip(scene.frame, c.holdings[player], board.square_size_px());
      StripTruth truth;
      int network_white = 0, network_black = 0;
      if (strip) {
        ++strips;
        truth = truth_of(scene.still.holdings[player], *strip);
        const auto network_started = std::chrono::steady_clock::now();
        const std::vector<vision::HoldingNetPiece> found = model.read(*strip);
        network_seconds += seconds_since(network_started);
        for (const vision::HoldingNetPiece& piece : found) {
          (piece.white ? network_white : network_black)++;
        }
      } else {
        truth.outside = static_cast<int>(scene.still.holdings[player].size());
      }
      outside += truth.outside;
      truth_pieces += truth.white_count + truth.black_count;
      network.add(truth.white_count, truth.black_count, network_white, network_black);
      const auto hand_written_started = std::chrono::steady_clock::now();
      const vision::HoldingObservation seen = vision::read_holding(
          scene.frame, c.holdings[player], board, c.image_size, 128.0f, nullptr);
      hand_written_seconds += seconds_since(hand_written_started);
      hand_written.add(truth.white_count, truth.black_count, seen.white_pieces, seen.black_pieces);
    }
    if (i % 50 == 49) {
      std::fprintf(stderr, "evaluate: %zu / %zu stills (%.0f s)\n", i + 1, seeds.size(),
                   seconds_since(started));
    }
  }
  std::printf(
      "test: %zu stills (seeds %d-%d, variant base %d), %d holding areas, %d truth pieces "
      "counted, %d not (middle outside the strip)\n",
      seeds.size(), options.first, options.last, options.variant_base,
      4 * static_cast<int>(seeds.size()), truth_pieces, outside);
  network.print("network     ");
  hand_written.print("hand-written");
  network.print_confusion("network");
  hand_written.print_confusion("hand-written");
  std::printf("ms per area: network %.2f (%d strips), hand-written %.2f; one OpenCV thread\n",
              1000.0 * network_seconds / std::max(strips, 1), strips,
              1000.0 * hand_written_seconds / std::max(4 * static_cast<int>(seeds.size()), 1));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto value = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (arg == "--cut") {
      options.cut_file = value();
    } else if (arg == "--evaluate") {
      options.evaluate = true;
    } else if (arg == "--model") {
      options.model_file = value();
    } else if (arg == "--stills") {
      if (!bugcam::testing::parse_range(value(), options.first, options.last))
        return usage("bad --stills");
    } else if (arg == "--count") {
      options.count = std::atoi(value().c_str());
    } else if (arg == "--variant-base") {
      options.variant_base = std::atoi(value().c_str());
    } else {
      return usage(("unknown argument " + arg).c_str());
    }
  }
  if (options.evaluate == !options.cut_file.empty()) {
    return usage("either --cut FILE or --evaluate --model FILE");
  }
  if (options.evaluate && options.model_file.empty()) return usage("--evaluate needs --model");
  if (options.first < 0 || options.count <= 0) return usage("needs --stills and --count");
  if (options.last >= kHeldOutFirstSeed) {
    return usage("seeds 5000 and above are held out for the final measurement");
  }
  // One thread: the figures and timings must not depend on the machine's other work.
  cv::setNumThreads(1);
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  return options.evaluate ? evaluate(options) : cut(options);
}
