// Trains the piece-type networks of vision/models on synthetic stills and reports their
// accuracy per type on stills of other seeds (issue 4). Deterministic for given options.
//
//   train_piece_types --out DIR [--train FIRST-LAST] [--train-stills N] [--test FIRST-LAST]
//                     [--test-stills M] [--hidden H] [--iterations I] [--evaluate-only]
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
#include <string>

#include <opencv2/calib3d.hpp>
#include <opencv2/core/utility.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/ml.hpp>

#include "bugcam/calibration.hpp"
#include "bugcam/samples.hpp"
#include "bugcam/vision.hpp"
#include "still_calibration.hpp"

namespace {

namespace fs = std::filesystem;
using bugcam::samples::TrainingStill;
namespace vision = bugcam::vision;
namespace calibration = bugcam::calibration;

struct Options {
  fs::path out;
  int train_first = 1, train_last = 2999, train_stills = 500;
  int test_first = 3000, test_last = 3999, test_stills = 120;
  int hidden = 96;
  int iterations = 60;
  bool backprop = true;  // plain back-propagation with momentum (RPROP underfits here)
  bool evaluate_only = false;
};

int usage(const char* message) {
  std::cerr << "train_piece_types: " << message
            << "\nusage: train_piece_types --out DIR [--train FIRST-LAST] [--train-stills N] "
               "[--test FIRST-LAST] [--test-stills M] [--hidden H] [--iterations I] "
               "[--evaluate-only]\n";
  return 2;
}

bool parse_range(const std::string& text, int& first, int& last) {
  const std::size_t dash = text.find('-');
  if (dash == std::string::npos) return false;
  first = std::atoi(text.substr(0, dash).c_str());
  last = std::atoi(text.substr(dash + 1).c_str());
  return first >= 0 && last >= first;
}

// The seeds of `count` stills spread evenly over [first, last].
std::vector<int> seeds_of(int first, int last, int count) {
  std::vector<int> seeds;
  const int span = last - first + 1;
  for (int i = 0; i < count && i < span; ++i) {
    seeds.push_back(first + static_cast<int>(static_cast<long>(i) * span / std::min(count, span)));
  }
  return seeds;
}

// The calibration a camera calibration would find for the still: the lattice fitted by a
// homography (lens distortion leaves some error), moved by up to a few hundredths of a
// square, and the holding areas where calibrate() puts them.
calibration::Calibration calibration_of(const TrainingStill& still, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> jitter(-0.04, 0.04);
  const double dx = jitter(rng), dy = jitter(rng);
  return bugcam::testing::still_calibration(still, {dx, dy});
}

// The still as a video frame would show it: JPEG-compressed at a random quality.
cv::Mat compressed(const cv::Mat& image, std::mt19937_64& rng) {
  std::uniform_int_distribution<int> quality(55, 92);
  std::vector<uchar> bytes;
  cv::imencode(".jpg", image, bytes, {cv::IMWRITE_JPEG_QUALITY, quality(rng)});
  return cv::imdecode(bytes, cv::IMREAD_COLOR);
}

int type_index(char letter) {
  const std::size_t i = vision::kPieceTypeLetters.find(
      static_cast<char>(std::toupper(static_cast<unsigned char>(letter))));
  return i == std::string_view::npos ? -1 : static_cast<int>(i);
}

struct Samples {
  cv::Mat features;  // one row per sample
  std::vector<int> labels;
  void add(const std::vector<float>& f, int label) {
    features.push_back(
        cv::Mat(1, static_cast<int>(f.size()), CV_32F, const_cast<float*>(f.data())));
    labels.push_back(label);
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
  Samples board, holding;
  fs::path dump;  // where to write the stills and patches for a look, when set
};

// Board-square and holding-area samples of one still.
void collect(int seed, Collected& out) {
  const TrainingStill still = bugcam::samples::render_training_still(
      static_cast<std::uint64_t>(seed), static_cast<std::uint64_t>(seed), 1280, 720);
  std::mt19937_64 rng(static_cast<std::uint64_t>(seed) * 7919u + 17u);
  const calibration::Calibration c = calibration_of(still, rng);
  const cv::Mat frame = compressed(still.image, rng);
  if (!out.dump.empty()) {
    cv::Mat canvas = calibration::draw_calibration(frame, c);
    for (const auto& area : still.holdings) {
      for (const auto& piece : area) {
        cv::line(canvas, piece.base, piece.top, {0, 0, 255}, 2);
      }
    }
    cv::imwrite((out.dump / ("still_" + std::to_string(seed) + ".png")).string(), canvas);
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
      cv::imwrite((out.dump / ("squares_" + std::to_string(seed) + ".png")).string(), tiles);
    }
  }
  for (int b = 0; b < 2; ++b) {
    for (int sq = 0; sq < 64; ++sq) {
      const int type =
          type_index(still.squares[static_cast<std::size_t>(b)][static_cast<std::size_t>(sq)]);
      if (type < 0) continue;
      out.board.add(vision::patch_features(vision::square_patch(
                        frame, c.boards[static_cast<std::size_t>(b)], c.image_size, sq)),
                    type);
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
      out.holding.add(
          vision::patch_features(vision::holding_patch(frame, board, c.image_size, piece.at)),
          type_index(still.holdings[player][static_cast<std::size_t>(i)].letter));
    }
  }
}

// Samples saved between runs (--cache DIR), to try learners without rendering again; only
// valid for the same features and seeds.
void save_samples(const fs::path& file, const Samples& samples) {
  std::ofstream out(file, std::ios::binary);
  const int rows = samples.features.rows, cols = samples.features.cols;
  out.write(reinterpret_cast<const char*>(&rows), sizeof rows);
  out.write(reinterpret_cast<const char*>(&cols), sizeof cols);
  for (int r = 0; r < rows; ++r) {
    out.write(reinterpret_cast<const char*>(samples.features.ptr<float>(r)),
              static_cast<std::streamsize>(sizeof(float) * static_cast<std::size_t>(cols)));
  }
  out.write(reinterpret_cast<const char*>(samples.labels.data()),
            static_cast<std::streamsize>(sizeof(int) * samples.labels.size()));
}

bool load_samples(const fs::path& file, Samples& samples) {
  std::ifstream in(file, std::ios::binary);
  int rows = 0, cols = 0;
  if (!in.read(reinterpret_cast<char*>(&rows), sizeof rows) ||
      !in.read(reinterpret_cast<char*>(&cols), sizeof cols)) {
    return false;
  }
  samples.features.create(rows, cols, CV_32F);
  for (int r = 0; r < rows; ++r) {
    in.read(reinterpret_cast<char*>(samples.features.ptr<float>(r)),
            static_cast<std::streamsize>(sizeof(float) * static_cast<std::size_t>(cols)));
  }
  samples.labels.resize(static_cast<std::size_t>(rows));
  in.read(reinterpret_cast<char*>(samples.labels.data()),
          static_cast<std::streamsize>(sizeof(int) * samples.labels.size()));
  return static_cast<bool>(in);
}

// The samples of the stills of `seeds`, from the cache when there is one.
Collected collect_all(const std::vector<int>& seeds, const fs::path& cache, const std::string& name,
                      double& seconds) {
  Collected all;
  if (!cache.empty() && load_samples(cache / (name + "_board.bin"), all.board) &&
      load_samples(cache / (name + "_holding.bin"), all.holding)) {
    return all;
  }
  const auto started = std::chrono::steady_clock::now();
  for (std::size_t i = 0; i < seeds.size(); ++i) {
    collect(seeds[i], all);
    if (i % 50 == 49) {
      seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      std::fprintf(stderr, "%s: rendered %zu / %zu stills (%.0f s)\n", name.c_str(), i + 1,
                   seeds.size(), seconds);
    }
  }
  if (!cache.empty()) {
    fs::create_directories(cache);
    save_samples(cache / (name + "_board.bin"), all.board);
    save_samples(cache / (name + "_holding.bin"), all.holding);
  }
  return all;
}

cv::Ptr<cv::ml::ANN_MLP> train(const Samples& samples, int classes, const Options& options) {
  const int hidden = options.hidden, iterations = options.iterations;
  cv::Ptr<cv::ml::ANN_MLP> network = cv::ml::ANN_MLP::create();
  network->setLayerSizes(std::vector<int>{samples.features.cols, hidden, classes});
  network->setActivationFunction(cv::ml::ANN_MLP::SIGMOID_SYM);
  if (options.backprop) {
    network->setTrainMethod(cv::ml::ANN_MLP::BACKPROP, 0.01, 0.1);
  } else {
    network->setTrainMethod(cv::ml::ANN_MLP::RPROP);
  }
  network->setTermCriteria(
      cv::TermCriteria(cv::TermCriteria::MAX_ITER + cv::TermCriteria::EPS, iterations, 1e-5));
  cv::Mat targets(static_cast<int>(samples.labels.size()), classes, CV_32F, cv::Scalar(-1));
  for (std::size_t i = 0; i < samples.labels.size(); ++i) {
    targets.at<float>(static_cast<int>(i), samples.labels[i]) = 1;
  }
  // The weights start from OpenCV's generator: seeded here, so training is repeatable.
  cv::theRNG().state = 0x5eed;
  network->train(cv::ml::TrainData::create(samples.features, cv::ml::ROW_SAMPLE, targets));
  return network;
}

// Per-type accuracy of a network on samples: the argmax among all types.
void report(const char* what, const Samples& samples, const cv::ml::ANN_MLP& network, int classes) {
  std::vector<int> right(6, 0), total(6, 0);
  std::vector<std::vector<int>> confusion(6, std::vector<int>(6, 0));
  for (int i = 0; i < samples.features.rows; ++i) {
    cv::Mat output;
    network.predict(samples.features.row(i), output);
    int best = 0;
    for (int k = 1; k < classes; ++k) {
      if (output.at<float>(0, k) > output.at<float>(0, best)) best = k;
    }
    const int truth = samples.labels[static_cast<std::size_t>(i)];
    ++total[static_cast<std::size_t>(truth)];
    right[static_cast<std::size_t>(truth)] += best == truth;
    ++confusion[static_cast<std::size_t>(truth)][static_cast<std::size_t>(best)];
  }
  int all_right = 0, all = 0;
  std::printf("%s: per type (right / seen), confusion row = truth, columns P N B R Q K\n", what);
  for (int k = 0; k < classes; ++k) {
    all_right += right[static_cast<std::size_t>(k)];
    all += total[static_cast<std::size_t>(k)];
    std::printf(
        "  %c %5.1f %% (%d / %d)   ", vision::kPieceTypeLetters[static_cast<std::size_t>(k)],
        total[static_cast<std::size_t>(k)]
            ? 100.0 * right[static_cast<std::size_t>(k)] / total[static_cast<std::size_t>(k)]
            : 0.0,
        right[static_cast<std::size_t>(k)], total[static_cast<std::size_t>(k)]);
    for (int j = 0; j < classes; ++j)
      std::printf(" %5d", confusion[static_cast<std::size_t>(k)][static_cast<std::size_t>(j)]);
    std::printf("\n");
  }
  std::printf("  all %.1f %% (%d / %d)\n", all ? 100.0 * all_right / all : 0.0, all_right, all);
}

// Holding areas read by type (through the saved model, as at run time) against the truth:
// areas whose counts by type are exactly right.
void report_holdings(const std::vector<int>& seeds, const vision::PieceTypeModel& model) {
  int exact = 0, areas = 0, count_exact = 0;
  for (int seed : seeds) {
    const TrainingStill still = bugcam::samples::render_training_still(
        static_cast<std::uint64_t>(seed), static_cast<std::uint64_t>(seed), 1280, 720);
    std::mt19937_64 rng(static_cast<std::uint64_t>(seed) * 7919u + 17u);
    const calibration::Calibration c = calibration_of(still, rng);
    const cv::Mat frame = compressed(still.image, rng);
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
  fs::path dump, cache;
  bool quick = false;
  int limit = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto value = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (arg == "--out") {
      options.out = value();
    } else if (arg == "--train") {
      if (!parse_range(value(), options.train_first, options.train_last))
        return usage("bad --train");
    } else if (arg == "--test") {
      if (!parse_range(value(), options.test_first, options.test_last)) return usage("bad --test");
    } else if (arg == "--train-stills") {
      options.train_stills = std::atoi(value().c_str());
    } else if (arg == "--test-stills") {
      options.test_stills = std::atoi(value().c_str());
    } else if (arg == "--hidden") {
      options.hidden = std::atoi(value().c_str());
    } else if (arg == "--iterations") {
      options.iterations = std::atoi(value().c_str());
    } else if (arg == "--rprop") {
      options.backprop = false;
    } else if (arg == "--limit") {
      limit = std::atoi(value().c_str());
    } else if (arg == "--quick") {
      quick = true;
    } else if (arg == "--cache") {
      cache = value();
    } else if (arg == "--dump") {
      dump = value();
    } else if (arg == "--evaluate-only") {
      options.evaluate_only = true;
    } else {
      return usage(("unknown argument " + arg).c_str());
    }
  }
  if (!dump.empty()) {
    // A look at what training sees: stills with their calibration and pieces, and patches.
    fs::create_directories(dump);
    Collected look;
    look.dump = dump;
    for (int seed : seeds_of(options.train_first, options.train_last, options.train_stills)) {
      collect(seed, look);
    }
    return 0;
  }
  if (options.out.empty()) return usage("--out DIR is needed");
  if (options.train_last >= 5000 || options.test_last >= 5000) {
    return usage("seeds 5000 and above are held out for the final measurement");
  }
  if (options.test_first <= options.train_last && options.train_first <= options.test_last) {
    return usage("training and test seeds overlap");
  }
  cv::setNumThreads(1);
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  const auto started = std::chrono::steady_clock::now();
  const auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  };
  fs::create_directories(options.out);
  if (!options.evaluate_only) {
    const std::vector<int> seeds =
        seeds_of(options.train_first, options.train_last, options.train_stills);
    double seconds = 0;
    Collected training = collect_all(seeds, cache, "train", seconds);
    if (limit > 0 && training.board.features.rows > limit) {
      // A quick look at what the learner makes of fewer samples.
      training.board.features = training.board.features.rowRange(0, limit).clone();
      training.board.labels.resize(static_cast<std::size_t>(limit));
    }
    std::printf("training: %d board pieces, %d holding pieces from %zu stills (seeds %d-%d)\n",
                training.board.features.rows, training.holding.features.rows, seeds.size(),
                options.train_first, options.train_last);
    const cv::Ptr<cv::ml::ANN_MLP> board = train(training.board, 6, options);
    std::fprintf(stderr, "board network trained (%.0f s)\n", elapsed());
    const cv::Ptr<cv::ml::ANN_MLP> holding = train(training.holding, 5, options);
    std::fprintf(stderr, "holding network trained (%.0f s)\n", elapsed());
    board->save((options.out / "piece_types_board.yml.gz").string());
    holding->save((options.out / "piece_types_holding.yml.gz").string());
    report("training board squares", training.board, *board, 6);
    report("training holdings", training.holding, *holding, 5);
  }
  // Held-apart seeds, through the saved files as vision loads them.
  const vision::PieceTypeModel model(options.out);
  const cv::Ptr<cv::ml::ANN_MLP> board =
      cv::ml::ANN_MLP::load((options.out / "piece_types_board.yml.gz").string());
  const cv::Ptr<cv::ml::ANN_MLP> holding =
      cv::ml::ANN_MLP::load((options.out / "piece_types_holding.yml.gz").string());
  const std::vector<int> test_seeds =
      seeds_of(options.test_first, options.test_last, options.test_stills);
  double seconds = 0;
  const Collected test = collect_all(test_seeds, cache, "test", seconds);
  std::printf("test: %zu stills (seeds %d-%d)\n", test_seeds.size(), options.test_first,
              options.test_last);
  report("test board squares", test.board, *board, 6);
  report("test holdings", test.holding, *holding, 5);
  if (!quick) report_holdings(test_seeds, model);
  std::fprintf(stderr, "done (%.0f s)\n", elapsed());
  return 0;
}
