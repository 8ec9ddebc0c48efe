// Tracker speed: a real game's simulated observations (both boards at 30 fps, holdings at
// 5 Hz, 2 % misreads) through the tracker. Reports frames and presses per second.
#include <benchmark/benchmark.h>

#include <fstream>
#include <sstream>

#include "bugcam/tracker.hpp"
#include "bugcam/tracker_simulation.hpp"

namespace {

using namespace bugcam;

std::vector<tracker::SimulatedInput> inputs_of_game(int index, tracker::Simulation& sim) {
  const std::string path = std::string(BUGCAM_SHARED_DIR) + "/data/bpgn/fics_mbprog_64.bpgn";
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  const auto games = rules::parse_bpgn(text.str(), path);
  tracker::SimulationOptions options;
  options.misread = 0.02;
  std::vector<tracker::SimulatedInput> inputs;
  sim = tracker::simulate(games.at(index), options,
                          [&](const tracker::SimulatedInput& i) { inputs.push_back(i); });
  return inputs;
}

void BM_TrackGame(benchmark::State& state) {
  tracker::Simulation sim;
  const auto inputs = inputs_of_game(0, sim);
  std::int64_t frames = 0;
  for (const auto& input : inputs)
    frames += std::holds_alternative<tracker::BoardObservation>(input);
  for (auto _ : state) {
    tracker::Tracker t;
    for (const auto& input : inputs) std::visit([&](const auto& item) { t.add(item); }, input);
    t.finish();
    benchmark::DoNotOptimize(t.take_events());
  }
  state.counters["board_frames/s"] = benchmark::Counter(
      static_cast<double>(frames), benchmark::Counter::kIsIterationInvariantRate);
  state.counters["presses/s"] = benchmark::Counter(static_cast<double>(sim.truth.size()),
                                                   benchmark::Counter::kIsIterationInvariantRate);
  state.counters["video_s/s"] =
      benchmark::Counter(sim.duration, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_TrackGame)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
