// Fuzzes the BPGN reader, writer and replay. Any input may be refused with a ParseError;
// anything else that escapes, a crash, or a broken round trip is a bug.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "bugcam/rules.hpp"

namespace {

using namespace bugcam::rules;

void require(bool condition, const char* what) {
  if (!condition) {
    std::fprintf(stderr, "fuzz_bpgn: %s\n", what);
    std::abort();
  }
}

// What was read must be written so that it reads back the same.
void check_round_trip(const BpgnGame& game) {
  const std::string written = write_bpgn(game);
  std::vector<BpgnGame> back;
  try {
    back = parse_bpgn(written, "written");
  } catch (const ParseError& e) {
    std::fprintf(stderr, "fuzz_bpgn: written text does not read back: %s\n%s\n", e.what(),
                 written.c_str());
    std::abort();
  }
  require(back.size() == 1, "written game reads back as another number of games");
  const BpgnGame& again = back[0];
  require(again.moves.size() == game.moves.size(), "move count changed");
  for (std::size_t i = 0; i < game.moves.size(); ++i) {
    const BpgnMove& a = game.moves[i];
    const BpgnMove& b = again.moves[i];
    require(a.san == b.san && a.board == b.board && a.color == b.color && a.number == b.number,
            "move changed");
    require(a.clock == b.clock, "clock changed");
    require(a.timestamp == b.timestamp, "timestamp changed");
    require(a.comments == b.comments, "move comments changed");
  }
  for (const auto& [name, value] : game.tags) {
    require(again.tag(name) == game.tag(name), "tag changed");
  }
  require(again.comments == game.comments, "game comments changed");
  require(again.result == game.result, "result changed");
  require(again.result_comment == game.result_comment, "result comment changed");
  require(write_bpgn(again) == written, "writing again gives other text");
}

// Replay must stop cleanly, and what it produced must be consistent.
void check_replay(const BpgnGame& game, const RuleSet& rules, bool check_plies) {
  const Replay replayed = replay(game, rules);
  require(!replayed.error_ply || replayed.error, "error_ply without error");
  if (replayed.error_ply) {
    require(static_cast<std::size_t>(*replayed.error_ply) == replayed.plies.size(),
            "error_ply is not the first ply not played");
  } else if (!replayed.error) {
    require(replayed.plies.size() == game.moves.size(), "legal record not fully replayed");
  }
  if (!check_plies) return;
  for (const ReplayedPly& ply : replayed.plies) {
    require(parse_san(ply.before, ply.san, rules) == ply.move, "engine SAN reads back wrong");
    const Bfen bfen = parse_bfen(to_bfen(ply.before, ply.before));
    require(bfen.a.position == ply.before, "BFEN of a replayed position reads back wrong");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<BpgnGame> games;
  try {
    games = parse_bpgn(text, "fuzz.bpgn");
  } catch (const ParseError&) {
    return 0;
  }
  for (const BpgnGame& game : games) {
    check_round_trip(game);
    // The per-ply checks cost as much as the replay; once is enough.
    check_replay(game, otb_rules(), true);
    check_replay(game, online_rules(), false);
  }
  return 0;
}
