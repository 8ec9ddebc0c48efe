// Cuts the patches the piece-type networks of vision/models read, from synthetic stills, for
// scripts/train_piece_types.py to learn from; and measures the trained networks per type on
// stills of other seeds through vision's own loading and inference (issue 4). Deterministic
// for given options.
//
//   train_piece_types --patches DIR [--train FIRST-LAST] [--train-stills N]
//                     [--test FIRST-LAST] [--test-stills M]
//       writes DIR/{board,holding}_{train,test}.bin (format at save_patches)
//   train_piece_types --evaluate-only --out MODELS [--patches DIR] [--test FIRST-LAST]
//                     [--test-stills M] [--threads T] [--quick]
//       per-type accuracy and confusion of the networks in MODELS (test patches from DIR
//       when dumped there for the same seeds; board squares also as the tracker's questions
//       are read, PieceTypeModel::board_piece_looks), holding areas counted right by type
//   train_piece_types --look DIR [--train FIRST-LAST] [--train-stills N]
//       stills with their calibration and a row of board patches, as PNG, for a look
//   train_piece_types --look-holdings DIR --out MODELS [--test FIRST-LAST] [--test-stills M]
//       the holding areas of the test stills read wrong, as PNG: the truth pieces in green
//       (base to top), the pieces found in red with the type read; one line each on stdout
//
// Stills come from samples::render_training_still (random positions and holdings, every
// look the renderer has: board kinds, piece families, tilt 0-40 degrees, light). The
// calibration of each still is built from the renderer's lattice (with a small error, as a
// real calibration has), the holding areas as calibrate() places them; the patches and the
// holding-area pieces are found by the same vision code that runs when recording.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <random>
#include <set>
#include <stdexcept>
#include <string>

#include <opencv2/calib3d.hpp>
#include <opencv2/core/utility.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "bugcam/calibration.hpp"
#include "bugcam/samples.hpp"
#include "bugcam/vision.hpp"
#include "training_stills.hpp"

namespace {

namespace fs = std::filesystem;
using bugcam::samples::TrainingStill;
namespace vision = bugcam::vision;
namespace calibration = bugcam::calibration;

struct Options {
  fs::path out;
  int train_first = 1, train_last = 2999, train_stills = 500;
  int test_first = 3000, test_last = 3999, test_stills = 120;
  int threads = 1;  // OpenCV's threads while evaluating (outputs must not depend on them)
  bool evaluate_only = false;
};

int usage(const char* message) {
  std::cerr << "train_piece_types: " << message
            << "\nusage: train_piece_types --patches DIR [--train FIRST-LAST] [--train-stills N] "
               "[--test FIRST-LAST] [--test-stills M]\n"
               "       train_piece_types --evaluate-only --out MODELS [--patches DIR] "
               "[--test FIRST-LAST] [--test-stills M] [--threads T] [--quick]\n"
               "       train_piece_types --look DIR [--train FIRST-LAST] [--train-stills N]\n"
               "       train_piece_types --look-holdings DIR --out MODELS [--test FIRST-LAST] "
               "[--test-stills M]\n";
  return 2;
}

int type_index(char letter) {
  const std::size_t i = vision::kPieceTypeLetters.find(
      static_cast<char>(std::toupper(static_cast<unsigned char>(letter))));
  return i == std::string_view::npos ? -1 : static_cast<int>(i);
}

// Patches (grey, one size per kind) with their type and the seed of their still.
struct Samples {
  cv::Size size;
  std::vector<cv::Mat> patches;
  std::vector<int> labels, seeds;
  void add(const cv::Mat& patch, int label, int seed) {
    patches.push_back(patch.clone());
    labels.push_back(label);
    seeds.push_back(seed);
  }
};

// The truth piece a holding-area piece found by vision stands for: the nearest whose body's
// middle is within 0.7 of a square; -1 when none.
int matching_piece(const std::vector<TrainingStill::HoldingPiece>& truth, cv::Point2d at,
                   double square_px, std::vector<bool>& taken) {
  int best = -1;
  double best_d = 0.7 * square_px;
  for (std::size_t i = 0; i < truth.size(); ++i) {
    if (taken[i]) continue;
    const cv::Point2d middle = (truth[i].base + truth[i].top) * 0.5;
    const double d = std::hypot(middle.x - at.x, middle.y - at.y);
    if (d < best_d) {
      best_d = d;
      best = static_cast<int>(i);
    }
  }
  if (best >= 0) taken[static_cast<std::size_t>(best)] = true;
  return best;
}

struct Collected {
  Samples board{vision::kSquarePatchSize, {}, {}, {}};
  Samples holding{vision::kHoldingPatchSize, {}, {}, {}};
  fs::path look;  // where to write the stills and patches for a look, when set
};

// Board-square and holding-area patches of one still, cut as when recording.
void collect(int seed, Collected& out) {
  const TrainingStill still = bugcam::samples::render_training_still(
      static_cast<std::uint64_t>(seed), static_cast<std::uint64_t>(seed), 1280, 720);
  std::mt19937_64 rng(static_cast<std::uint64_t>(seed) * 7919u + 17u);
  const calibration::Calibration c = bugcam::testing::jittered_still_calibration(still, rng);
  const cv::Mat frame = bugcam::testing::compressed_as_video(still.image, rng);
  if (!out.look.empty()) {
    cv::Mat canvas = calibration::draw_calibration(frame, c);
    for (const auto& area : still.holdings) {
      for (const auto& piece : area) {
        cv::line(canvas, piece.base, piece.top, {0, 0, 255}, 2);
      }
    }
    cv::imwrite((out.look / ("still_" + std::to_string(seed) + ".png")).string(), canvas);
    std::vector<cv::Mat> row;
    for (int sq = 0; sq < 64; ++sq) {
      if (still.squares[0][static_cast<std::size_t>(sq)] == '.' || row.size() >= 12) continue;
      cv::Mat big;
      cv::resize(vision::square_patch(frame, c.boards[0], c.image_size, sq), big, {}, 3, 3,
                 cv::INTER_NEAREST);
      row.push_back(big);
    }
    if (!row.empty()) {
      cv::Mat tiles;
      cv::hconcat(row, tiles);
      cv::imwrite((out.look / ("squares_" + std::to_string(seed) + ".png")).string(), tiles);
    }
  }
  for (int b = 0; b < 2; ++b) {
    for (int sq = 0; sq < 64; ++sq) {
      const int type =
          type_index(still.squares[static_cast<std::size_t>(b)][static_cast<std::size_t>(sq)]);
      if (type < 0) continue;
      out.board.add(
          vision::square_patch(frame, c.boards[static_cast<std::size_t>(b)], c.image_size, sq),
          type, seed);
    }
  }
  for (std::size_t player = 0; player < 4; ++player) {
    const calibration::Board& board = c.boards[player / 2];
    const vision::HoldingObservation seen =
        vision::read_holding(frame, c.holdings[player], board, c.image_size, 128.0f, nullptr);
    std::vector<bool> taken(still.holdings[player].size(), false);
    for (const vision::HeldPiece& piece : seen.pieces) {
      const int i = matching_piece(still.holdings[player], piece.at, board.square_size_px(), taken);
      if (i < 0) continue;
      out.holding.add(vision::holding_patch(frame, board, c.image_size, piece.at),
                      type_index(still.holdings[player][static_cast<std::size_t>(i)].letter), seed);
    }
  }
}

// The patch file scripts/train_piece_types.py reads (little-endian):
//   "BGPT", uint32 version 1, uint32 count, uint32 height, uint32 width,
//   count * height * width uint8 (patches, row-major), count int32 labels (index in
//   kPieceTypeLetters), count int32 seeds (of each patch's still).
constexpr char kPatchMagic[4] = {'B', 'G', 'P', 'T'};
constexpr std::uint32_t kPatchVersion = 1;

void save_patches(const fs::path& file, const Samples& samples) {
  std::ofstream out(file, std::ios::binary);
  const auto put = [&](std::uint32_t v) { out.write(reinterpret_cast<const char*>(&v), sizeof v); };
  out.write(kPatchMagic, sizeof kPatchMagic);
  put(kPatchVersion);
  put(static_cast<std::uint32_t>(samples.patches.size()));
  put(static_cast<std::uint32_t>(samples.size.height));
  put(static_cast<std::uint32_t>(samples.size.width));
  for (const cv::Mat& patch : samples.patches) {
    for (int y = 0; y < patch.rows; ++y) {
      out.write(reinterpret_cast<const char*>(patch.ptr<uchar>(y)), patch.cols);
    }
  }
  out.write(reinterpret_cast<const char*>(samples.labels.data()),
            static_cast<std::streamsize>(sizeof(int) * samples.labels.size()));
  out.write(reinterpret_cast<const char*>(samples.seeds.data()),
            static_cast<std::streamsize>(sizeof(int) * samples.seeds.size()));
  if (!out) throw std::runtime_error(file.string() + ": cannot write");
}

bool load_patches(const fs::path& file, Samples& samples) {
  std::ifstream in(file, std::ios::binary);
  char magic[4] = {};
  std::uint32_t version = 0, count = 0, height = 0, width = 0;
  const auto get = [&](std::uint32_t& v) {
    return static_cast<bool>(in.read(reinterpret_cast<char*>(&v), sizeof v));
  };
  if (!in.read(magic, sizeof magic) || !std::equal(magic, magic + 4, kPatchMagic) ||
      !get(version) || version != kPatchVersion || !get(count) || !get(height) || !get(width) ||
      static_cast<int>(height) != samples.size.height ||
      static_cast<int>(width) != samples.size.width) {
    return false;
  }
  samples.patches.clear();
  for (std::uint32_t i = 0; i < count; ++i) {
    cv::Mat patch(samples.size, CV_8UC1);
    in.read(reinterpret_cast<char*>(patch.data), static_cast<std::streamsize>(patch.total()));
    samples.patches.push_back(patch);
  }
  samples.labels.resize(count);
  samples.seeds.resize(count);
  in.read(reinterpret_cast<char*>(samples.labels.data()),
          static_cast<std::streamsize>(sizeof(int) * count));
  in.read(reinterpret_cast<char*>(samples.seeds.data()),
          static_cast<std::streamsize>(sizeof(int) * count));
  return static_cast<bool>(in);
}

// The patches of the stills of `seeds`: from `dir`/<kind>_<name>.bin when those were dumped
// for the same seeds, else rendered (and then written there when `dir` is given).
Collected collect_all(const std::vector<int>& seeds, const fs::path& dir, const std::string& name) {
  Collected all;
  if (!dir.empty() && load_patches(dir / ("board_" + name + ".bin"), all.board) &&
      load_patches(dir / ("holding_" + name + ".bin"), all.holding) &&
      std::set<int>(all.board.seeds.begin(), all.board.seeds.end()) ==
          std::set<int>(seeds.begin(), seeds.end())) {
    std::fprintf(stderr, "%s: %zu board and %zu holding patches read from %s\n", name.c_str(),
                 all.board.patches.size(), all.holding.patches.size(), dir.c_str());
    return all;
  }
  all = {};
  const auto started = std::chrono::steady_clock::now();
  for (std::size_t i = 0; i < seeds.size(); ++i) {
    collect(seeds[i], all);
    if (i % 50 == 49) {
      const double seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      std::fprintf(stderr, "%s: rendered %zu / %zu stills (%.0f s)\n", name.c_str(), i + 1,
                   seeds.size(), seconds);
    }
  }
  if (!dir.empty()) {
    fs::create_directories(dir);
    save_patches(dir / ("board_" + name + ".bin"), all.board);
    save_patches(dir / ("holding_" + name + ".bin"), all.holding);
  }
  return all;
}

// Per-type accuracy of a classifier on samples (the argmax of its probabilities), with the
// confusion matrix; the mean time it took per patch.
template <typename Classify>
void report(const char* what, const Samples& samples, int classes, Classify classify) {
  std::vector<int> right(6, 0), total(6, 0);
  std::vector<std::vector<int>> confusion(6, std::vector<int>(6, 0));
  const auto started = std::chrono::steady_clock::now();
  for (std::size_t i = 0; i < samples.patches.size(); ++i) {
    const vision::TypeProbabilities p = classify(samples.patches[i]);
    const int best = static_cast<int>(std::max_element(p.begin(), p.begin() + classes) - p.begin());
    const auto truth = static_cast<std::size_t>(samples.labels[i]);
    ++total[truth];
    right[truth] += best == samples.labels[i];
    ++confusion[truth][static_cast<std::size_t>(best)];
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  int all_right = 0, all = 0;
  std::printf("%s: per type (right / seen), confusion row = truth, columns P N B R Q K\n", what);
  for (std::size_t k = 0; k < static_cast<std::size_t>(classes); ++k) {
    all_right += right[k];
    all += total[k];
    std::printf("  %c %5.1f %% (%d / %d)   ", vision::kPieceTypeLetters[k],
                total[k] ? 100.0 * right[k] / total[k] : 0.0, right[k], total[k]);
    for (std::size_t j = 0; j < static_cast<std::size_t>(classes); ++j) {
      std::printf(" %5d", confusion[k][j]);
    }
    std::printf("\n");
  }
  std::printf("  all %.1f %% (%d / %d), %.2f ms per patch\n", all ? 100.0 * all_right / all : 0.0,
              all_right, all, all ? 1000.0 * seconds / all : 0.0);
}

// The image of one holding area read wrong: the frame around the area, enlarged, with the
// truth (green: base to top, a ring on the base) and the pieces found (red, their letter).
void draw_holding(const cv::Mat& frame, const std::vector<cv::Point2d>& region,
                  const std::vector<TrainingStill::HoldingPiece>& truth,
                  const vision::HoldingObservation& seen, const fs::path& file) {
  std::vector<cv::Point> corners;
  for (const cv::Point2d& p : region) corners.emplace_back(cvRound(p.x), cvRound(p.y));
  cv::Rect box = cv::boundingRect(corners);
  box.x -= box.width / 8;
  box.width += box.width / 4;
  box.y -= box.height / 2;
  box.height *= 2;
  box &= cv::Rect(0, 0, frame.cols, frame.rows);
  if (box.area() <= 0) return;
  const double scale = 3;
  cv::Mat canvas;
  cv::resize(frame(box), canvas, {}, scale, scale, cv::INTER_CUBIC);
  const auto at = [&](cv::Point2d p) {
    return cv::Point(cvRound((p.x - box.x) * scale), cvRound((p.y - box.y) * scale));
  };
  for (std::size_t i = 0; i < corners.size(); ++i) {
    cv::line(canvas, at(region[i]), at(region[(i + 1) % region.size()]), {255, 255, 0}, 1);
  }
  for (const auto& piece : truth) {
    cv::line(canvas, at(piece.base), at(piece.top), {0, 255, 0}, 2);
    cv::circle(canvas, at(piece.base), 5, {0, 255, 0}, 2);
    cv::putText(canvas, std::string(1, piece.letter), at(piece.top) + cv::Point(4, 0),
                cv::FONT_HERSHEY_SIMPLEX, 0.6, {0, 255, 0}, 2);
  }
  for (const vision::HeldPiece& piece : seen.pieces) {
    cv::drawMarker(canvas, at(piece.at), {0, 0, 255}, cv::MARKER_CROSS, 14, 2);
    cv::putText(canvas, std::string(1, piece.letter), at(piece.at) + cv::Point(-6, 22),
                cv::FONT_HERSHEY_SIMPLEX, 0.6, {0, 0, 255}, 2);
  }
  cv::imwrite(file.string(), canvas);
}

// Holding areas read by type (through the model, as at run time) against the truth: areas
// whose counts by type are exactly right. With `look`, each area read wrong is drawn there.
void report_holdings(const std::vector<int>& seeds, const vision::PieceTypeModel& model,
                     const fs::path& look = {}) {
  int exact = 0, areas = 0, count_exact = 0;
  for (int seed : seeds) {
    const TrainingStill still = bugcam::samples::render_training_still(
        static_cast<std::uint64_t>(seed), static_cast<std::uint64_t>(seed), 1280, 720);
    std::mt19937_64 rng(static_cast<std::uint64_t>(seed) * 7919u + 17u);
    const calibration::Calibration c = bugcam::testing::jittered_still_calibration(still, rng);
    const cv::Mat frame = bugcam::testing::compressed_as_video(still.image, rng);
    for (std::size_t player = 0; player < 4; ++player) {
      const vision::HoldingObservation seen = vision::read_holding(
          frame, c.holdings[player], c.boards[player / 2], c.image_size, 128.0f, &model);
      std::map<char, int> truth;
      for (const auto& piece : still.holdings[player]) {
        ++truth[static_cast<char>(std::toupper(static_cast<unsigned char>(piece.letter)))];
      }
      ++areas;
      exact += seen.counts == truth;
      count_exact +=
          static_cast<int>(seen.pieces.size()) == static_cast<int>(still.holdings[player].size());
      if (!look.empty() && seen.counts != truth) {
        const std::string name = std::to_string(seed) + "_" +
                                 c.holdings[player].player.substr(0, 1) +
                                 c.holdings[player].player.substr(2, 1);
        std::printf("%s: seen", name.c_str());
        for (const auto& [letter, count] : seen.counts) std::printf(" %d%c", count, letter);
        std::printf(", truth");
        for (const auto& [letter, count] : truth) std::printf(" %d%c", count, letter);
        int lying = 0;
        for (const auto& piece : still.holdings[player]) lying += piece.lying;
        std::printf(" (%d lying), tilt %.0f\n", lying, still.tilt_degrees);
        draw_holding(frame, c.holdings[player].region, still.holdings[player], seen,
                     look / ("holding_" + name + ".png"));
      }
    }
  }
  std::printf(
      "holding areas: counted right %d / %d (%.1f %%), counted right by type %d / %d (%.1f %%)\n",
      count_exact, areas, 100.0 * count_exact / std::max(areas, 1), exact, areas,
      100.0 * exact / std::max(areas, 1));
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  fs::path look, look_holdings, patches;
  bool quick = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto value = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (arg == "--out") {
      options.out = value();
    } else if (arg == "--train") {
      if (!bugcam::testing::parse_range(value(), options.train_first, options.train_last))
        return usage("bad --train");
    } else if (arg == "--test") {
      if (!bugcam::testing::parse_range(value(), options.test_first, options.test_last))
        return usage("bad --test");
    } else if (arg == "--train-stills") {
      options.train_stills = std::atoi(value().c_str());
    } else if (arg == "--test-stills") {
      options.test_stills = std::atoi(value().c_str());
    } else if (arg == "--patches") {
      patches = value();
    } else if (arg == "--threads") {
      options.threads = std::atoi(value().c_str());
    } else if (arg == "--quick") {
      quick = true;
    } else if (arg == "--look") {
      look = value();
    } else if (arg == "--look-holdings") {
      look_holdings = value();
    } else if (arg == "--evaluate-only") {
      options.evaluate_only = true;
    } else {
      return usage(("unknown argument " + arg).c_str());
    }
  }
  if (!look.empty()) {
    // A look at what training sees: stills with their calibration and pieces, and patches.
    fs::create_directories(look);
    Collected seen;
    seen.look = look;
    for (int seed :
         bugcam::testing::seeds_of(options.train_first, options.train_last, options.train_stills)) {
      collect(seed, seen);
    }
    return 0;
  }
  if (options.train_last >= 5000 || options.test_last >= 5000) {
    return usage("seeds 5000 and above are held out for the final measurement");
  }
  if (options.test_first <= options.train_last && options.train_first <= options.test_last) {
    return usage("training and test seeds overlap");
  }
  if (!look_holdings.empty()) {
    if (options.out.empty()) return usage("--look-holdings needs --out MODELS");
    cv::setNumThreads(1);
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    fs::create_directories(look_holdings);
    const vision::PieceTypeModel model(options.out);
    report_holdings(
        bugcam::testing::seeds_of(options.test_first, options.test_last, options.test_stills),
        model, look_holdings);
    return 0;
  }
  if (options.evaluate_only == options.out.empty() || (!options.evaluate_only && patches.empty())) {
    return usage("either --patches DIR (dump) or --evaluate-only --out DIR");
  }
  cv::setNumThreads(1);
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  const auto started = std::chrono::steady_clock::now();
  const auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  };
  const std::vector<int> test_seeds =
      bugcam::testing::seeds_of(options.test_first, options.test_last, options.test_stills);
  if (!options.evaluate_only) {
    const std::vector<int> seeds =
        bugcam::testing::seeds_of(options.train_first, options.train_last, options.train_stills);
    const Collected training = collect_all(seeds, patches, "train");
    std::printf("training: %zu board pieces, %zu holding pieces from %zu stills (seeds %d-%d)\n",
                training.board.patches.size(), training.holding.patches.size(), seeds.size(),
                options.train_first, options.train_last);
    const Collected test = collect_all(test_seeds, patches, "test");
    std::printf("test: %zu board pieces, %zu holding pieces from %zu stills (seeds %d-%d)\n",
                test.board.patches.size(), test.holding.patches.size(), test_seeds.size(),
                options.test_first, options.test_last);
    std::fprintf(stderr, "patches written to %s (%.0f s)\n", patches.c_str(), elapsed());
    return 0;
  }
  // Held-apart seeds, through the model files as vision loads them.
  const vision::PieceTypeModel model(options.out);
  const Collected test = collect_all(test_seeds, patches, "test");
  cv::setNumThreads(options.threads);
  std::printf("test: %zu stills (seeds %d-%d), %d OpenCV threads\n", test_seeds.size(),
              options.test_first, options.test_last, cv::getNumThreads());
  report("test board squares", test.board, 6,
         [&](const cv::Mat& patch) { return model.board_piece(patch); });
  // As the tracker's questions are answered (vision::square_piece_types).
  report("test board squares, six looks", test.board, 6,
         [&](const cv::Mat& patch) { return model.board_piece_looks(patch); });
  report("test holdings", test.holding, 5,
         [&](const cv::Mat& patch) { return model.holding_piece(patch); });
  cv::setNumThreads(1);
  if (!quick) report_holdings(test_seeds, model);
  std::fprintf(stderr, "done (%.0f s)\n", elapsed());
  return 0;
}
