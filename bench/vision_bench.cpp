// Per-frame vision path (warp both boards, read 128 squares, count four holdings) on a
// synthetic bughouse table at 720p and 1080p, one thread, and over the bundled sample clip's
// frames; the holding areas alone, by blobs and by network; one calibration; the piece-type
// networks on one patch.
#include <benchmark/benchmark.h>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <opencv2/core/utility.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/videoio.hpp>

#include "bugcam/calibration.hpp"
#include "bugcam/samples.hpp"
#include "bugcam/vision.hpp"
#include "synthetic_table.hpp"

namespace {

bugcam::testing::SceneTruth table(int width, int height) {
  bugcam::testing::Scene scene;
  scene.image_size = cv::Size(width, height);
  scene.boards[1].white_at_bottom = false;
  scene.tilt_deg = 20;
  scene.holding_a_white = "wwb";
  return bugcam::testing::render_scene(scene);
}

// Calibrated on the frame, with the looks learnt from it (a start position) and each board's
// square reader chosen there, as recording does: the per-frame path then runs the learnt
// shadow and brightness tests too, and the fused reader (3) fuses where it would.
bugcam::calibration::Calibration calibrated(const cv::Mat& frame) {
  bugcam::calibration::Calibration calibration = bugcam::calibration::calibrate(frame);
  bugcam::vision::learn_start_position(frame, calibration,
                                       bugcam::vision::SquareModel::load_bundled().get());
  return calibration;
}

// The benchmarks' third argument: squares read by the hand-written reader (0), the square
// network (1), the hand-written reader checked by the network (2), or fused with it (3, the
// default).
bugcam::vision::SquareReader square_reader(std::int64_t argument) {
  switch (argument) {
    case 1:
      return bugcam::vision::SquareReader::kNetwork;
    case 2:
      return bugcam::vision::SquareReader::kChecked;
    case 3:
      return bugcam::vision::SquareReader::kFused;
    default:
      return bugcam::vision::SquareReader::kHand;
  }
}

void BM_ReadFrame(benchmark::State& state) {
  cv::setNumThreads(1);
  const auto truth = table(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)));
  bugcam::vision::VisionOptions options;
  options.squares = square_reader(state.range(2));
  const bugcam::vision::FrameReader reader(calibrated(truth.image), options);
  for (auto _ : state) {
    benchmark::DoNotOptimize(reader.read(truth.image));
  }
  int learnt = 0, fused = 0;
  for (std::size_t b = 0; b < reader.calibration().boards.size(); ++b) {
    learnt += reader.calibration().boards[b].looks.learned ? 1 : 0;
    fused += reader.fuses_with_network(b) ? 1 : 0;
  }
  state.counters["boards_with_looks"] = learnt;
  state.counters["boards_fused"] = fused;
  state.counters["fps"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_ReadFrame)
    ->Args({1280, 720, 1})
    ->Args({1920, 1080, 1})
    ->Args({1280, 720, 0})
    ->Args({1920, 1080, 0})
    ->Args({1280, 720, 2})
    ->Args({1920, 1080, 2})
    ->Args({1280, 720, 3})
    ->Args({1920, 1080, 3})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// The same with the per-square tracker (still view, motion against the previous frame). The
// frame never changes, so the holding network reads each area once and each held piece is
// typed once (HoldingNetworkReading): BM_CountHoldings gives the network's cost per frame,
// BM_TrackClip the mean over a game's frames.
void BM_TrackFrame(benchmark::State& state) {
  cv::setNumThreads(1);
  const auto truth = table(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)));
  bugcam::vision::VisionOptions options;
  options.squares = square_reader(state.range(2));
  bugcam::vision::TrackingReader reader(calibrated(truth.image), options);
  for (auto _ : state) {
    benchmark::DoNotOptimize(reader.read(truth.image));
  }
  state.counters["fps"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_TrackFrame)
    ->Args({1280, 720, 1})
    ->Args({1920, 1080, 1})
    ->Args({1280, 720, 0})
    ->Args({1920, 1080, 0})
    ->Args({1280, 720, 2})
    ->Args({1920, 1080, 2})
    ->Args({1280, 720, 3})
    ->Args({1920, 1080, 3})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// The tracking path over the bundled sample clip (1280x720, 30 fps, a 40-ply game: hands over
// the boards and the holding areas, pieces put down and taken), frame after frame from its
// first, calibrated there as a recording is; decoding is not timed. Third argument: the holding
// areas read by the network (1, the default), by the blobs (0), or not read (2, as `bugcam
// record` does unless the tracker is given them). The network reads only the areas that changed
// (HoldingNetworkReading), so a frame's cost varies: the figure is the mean over the frames.
// Second argument: the frame height; 1080 scales each decoded frame up to 1920x1080 (untimed,
// calibrated there too), the only footage of a game the repository bundles being 720p.
void BM_TrackClip(benchmark::State& state) {
  cv::setNumThreads(1);
  const std::string video = (bugcam::samples::bundled_sample_dir() / "video.mp4").string();
  cv::VideoCapture capture(video);
  cv::Mat frame;
  const bool full_hd = state.range(1) == 1080;
  // Decodes the next frame, at the benchmark's size; false at the clip's end.
  const auto next_frame = [&] {
    if (!capture.read(frame)) return false;
    if (full_hd) cv::resize(frame, frame, cv::Size(1920, 1080), 0, 0, cv::INTER_LINEAR);
    return true;
  };
  if (!next_frame()) {
    state.SkipWithError(("cannot read " + video).c_str());
    return;
  }
  bugcam::vision::VisionOptions options;
  options.holdings_by_network = state.range(0) == 1;
  options.read_holdings = state.range(0) != 2;
  bugcam::vision::TrackingReader reader(calibrated(frame), options);
  int frames = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(reader.read(frame));
    ++frames;
    state.PauseTiming();
    if (!next_frame()) {  // from the start again, as a new recording
      if (!capture.open(video) || !next_frame()) {
        state.SkipWithError(("cannot read " + video + " again").c_str());
        state.ResumeTiming();
        break;
      }
      reader.reset();
    }
    state.ResumeTiming();
  }
  state.counters["fps"] =
      benchmark::Counter(static_cast<double>(frames), benchmark::Counter::kIsRate);
  state.SetLabel(state.range(0) == 1   ? "holdings by network"
                 : state.range(0) == 0 ? "holdings by blobs"
                                       : "holdings not read");
}
// The clip's first 1800 frames (a minute of play).
BENCHMARK(BM_TrackClip)
    ->Args({1, 720})
    ->Args({0, 720})
    ->Args({2, 720})
    ->Args({1, 1080})
    ->Args({2, 1080})
    ->Iterations(1800)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// The four holding areas alone, against their empty looks (learnt from the frame, as a
// recording learns them from its first): counted by the blobs (third argument 0) or by the
// holding network, each strip read (1) or, the frame unchanged, read once (2); types not read:
// the counting in BM_TrackFrame's holdings, which also types each piece. (BM_ReadFrame reads
// without looks: the network's pieces as they are.)
void BM_CountHoldings(benchmark::State& state) {
  cv::setNumThreads(1);
  const auto truth = table(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)));
  const bugcam::calibration::Calibration calibration = calibrated(truth.image);
  const std::shared_ptr<const bugcam::vision::HoldingModel> network =
      state.range(2) != 0 ? bugcam::vision::HoldingModel::load_bundled() : nullptr;
  if (state.range(2) != 0 && network == nullptr) {
    state.SkipWithError("no bundled holding network");
    return;
  }
  // Argument 2: the network's last reading is kept, and the unchanged strips are not read
  // again, as TrackingReader does; 1: it is forgotten, and each strip is read by the network.
  std::vector<bugcam::vision::HoldingAreaMemory> memories(calibration.holdings.size());
  const auto count_all = [&] {
    int pieces = 0;
    for (std::size_t a = 0; a < calibration.holdings.size(); ++a) {
      const bugcam::calibration::HoldingArea& area = calibration.holdings[a];
      const bugcam::calibration::Board* board =
          calibration.board(area.player.substr(0, area.player.find(':')));
      if (board == nullptr) return -1;
      if (state.range(2) != 2) memories[a].network = {};
      const bugcam::vision::HoldingObservation seen =
          bugcam::vision::read_holding(truth.image, area, *board, calibration.image_size, 128.0f,
                                       nullptr, &memories[a], network.get());
      pieces += seen.white_pieces + seen.black_pieces;
    }
    return pieces;
  };
  if (count_all() < 0) {  // learns the looks
    state.SkipWithError("a holding area of no board");
    return;
  }
  int pieces = 0;
  for (auto _ : state) {
    pieces = count_all();
    benchmark::DoNotOptimize(pieces);
  }
  state.counters["pieces"] = pieces;
  state.counters["fps"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  state.SetLabel(state.range(2) == 0   ? "blobs"
                 : state.range(2) == 1 ? "network, every strip read"
                                       : "network, unchanged strips not read again");
}
BENCHMARK(BM_CountHoldings)
    ->Args({1280, 720, 0})
    ->Args({1280, 720, 1})
    ->Args({1280, 720, 2})
    ->Args({1920, 1080, 0})
    ->Args({1920, 1080, 1})
    ->Args({1920, 1080, 2})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void BM_Calibrate(benchmark::State& state) {
  cv::setNumThreads(1);
  const auto truth = table(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)));
  for (auto _ : state) {
    benchmark::DoNotOptimize(bugcam::calibration::calibrate(truth.image));
  }
}
BENCHMARK(BM_Calibrate)
    ->Args({1280, 720})
    ->Args({1920, 1080})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void BM_DriftCheck(benchmark::State& state) {
  cv::setNumThreads(1);
  const auto truth = table(1280, 720);
  const auto calibration = bugcam::calibration::calibrate(truth.image);
  for (auto _ : state) {
    benchmark::DoNotOptimize(
        bugcam::calibration::lattice_agreement(truth.image, calibration.boards[0]));
  }
}
BENCHMARK(BM_DriftCheck)->Unit(benchmark::kMillisecond);

// The piece-type networks on one patch (asked only when the tracker doubts a type).
void BM_PieceType(benchmark::State& state) {
  cv::setNumThreads(1);
  const auto model = bugcam::vision::PieceTypeModel::load_bundled();
  if (!model) {
    state.SkipWithError("no bundled piece-type model");
    return;
  }
  const bool board = state.range(0) == 0;
  const cv::Mat patch(board ? bugcam::vision::kSquarePatchSize : bugcam::vision::kHoldingPatchSize,
                      CV_8UC1, cv::Scalar(0));
  cv::randu(patch, 0, 255);
  for (auto _ : state) {
    benchmark::DoNotOptimize(board ? model->board_piece(patch) : model->holding_piece(patch));
  }
  state.SetLabel(board ? "board square" : "holding piece");
}
BENCHMARK(BM_PieceType)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
