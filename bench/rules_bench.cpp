// Rules engine speed: perft nodes per second on the reference positions, and plies per
// second when checking the real games (`bugcam bpgn check`).
// Run: build/release/bench/rules_bench   (figures in the "nodes/s" and "plies/s" counters)
#include <benchmark/benchmark.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "bugcam/rules.hpp"

namespace {

using bugcam::rules::online_rules;

struct PerftCase {
  const char* id;
  const char* fen;
  int depth;
};

// The positions of shared/data/bpgn/perft_reference.txt, at depths that take about a second.
constexpr PerftCase kCases[] = {
    {"startpos", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq - 0 1", 5},
    {"all-drop-types", "2k5/8/8/8/8/8/8/4K3[QRBNPqrbnp] w - - 0 1", 3},
    {"drops", "2k5/8/8/8/8/8/8/4K3[Qn] w - - 0 1", 4},
    {"middlegame", "r1bqk2r/pppp1ppp/2n1p3/4P3/1b1Pn3/2NB1N2/PPP2PPP/R1BQK2R[] b KQkq - 0 1", 4},
    {"promoted", "4k3/1Q~6/8/8/4b3/8/Kpp5/8[] b - - 0 1", 4},
    {"midgame", "2rn1b1r/1pp2n1p/B1PBk1pP/5p1P/P5p1/2P2RP1/RP1QNP2/1NBK4[QPp] w - - 0 1", 3},
};

void BM_Perft(benchmark::State& state, const PerftCase& c) {
  const auto position = bugcam::rules::parse_bfen(c.fen).a.position;
  std::uint64_t nodes = 0;
  for (auto _ : state) {
    nodes += bugcam::rules::perft(position, c.depth, online_rules());
  }
  state.counters["nodes/s"] =
      benchmark::Counter(static_cast<double>(nodes), benchmark::Counter::kIsRate);
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void BM_BpgnCheck(benchmark::State& state) {
  std::vector<std::string> texts;
  for (const auto& entry : std::filesystem::directory_iterator(
           std::filesystem::path(BUGCAM_SHARED_DIR) / "data/bpgn")) {
    if (entry.path().extension() == ".bpgn") texts.push_back(read_file(entry.path()));
  }
  std::uint64_t plies = 0;
  for (auto _ : state) {
    for (const auto& text : texts) {
      for (const auto& game : bugcam::rules::parse_bpgn(text)) {
        const auto replayed = bugcam::rules::replay(game);
        plies += replayed.plies.size();
        benchmark::DoNotOptimize(replayed.error_ply);
      }
    }
  }
  state.counters["plies/s"] =
      benchmark::Counter(static_cast<double>(plies), benchmark::Counter::kIsRate);
}

}  // namespace

int main(int argc, char** argv) {
  for (const PerftCase& c : kCases) {
    benchmark::RegisterBenchmark(
        (std::string("perft/") + c.id + "/depth" + std::to_string(c.depth)).c_str(), BM_Perft, c)
        ->Unit(benchmark::kMillisecond);
  }
  benchmark::RegisterBenchmark("bpgn_check/real_games", BM_BpgnCheck)
      ->Unit(benchmark::kMillisecond);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
