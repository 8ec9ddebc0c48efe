// Fuzzes the SAN reader. The input is "<FEN>\n<SAN>"; when the part before the newline is no
// position, or there is no newline, the first byte picks one of a few fixed positions and the
// rest is the SAN. A ParseError is the only way to refuse; whatever parse_san accepts must be
// legal and must be written and read back as the same move.
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "bugcam/rules.hpp"

namespace {

using namespace bugcam::rules;

// Positions with drops, promotions, en passant, castling and pieces that need disambiguation.
constexpr std::array<const char*, 8> kPositions = {
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R/NBqp w KQkq - 0 1",
    "4k3/1P6/8/8/8/8/6p1/R3K2R/QRBNPqrbnp w KQ - 0 1",
    "4k3/1P6/8/8/8/8/6p1/R3K2R/QRBNPqrbnp b KQ - 0 1",
    "1k6/8/8/3N1N2/2N1Q1NQ/8/2N1N3/K6Q w - - 0 1",
    "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR/Pp w KQkq f6 0 3",
    "6k1/5ppp/8/8/8/8/r5PP/7K/n b - - 0 1",
    "rn2k3/8/5n2/8/8/8/8/Q~3K3 b - - 0 1",
};

void require(bool condition, const char* what, const std::string& detail) {
  if (!condition) {
    std::fprintf(stderr, "fuzz_san: %s: %s\n", what, detail.c_str());
    std::abort();
  }
}

void check(const Position& pos, std::string_view san, const RuleSet& rules) {
  Move m;
  try {
    m = parse_san(pos, san, rules);
  } catch (const ParseError&) {
    return;
  }
  const std::string where = to_fen(pos) + " '" + std::string(san) + "'";
  require(pos.is_legal(m, rules), "parse_san returned an illegal move", where);
  const std::string written = to_san(pos, m, rules);
  Move again;
  try {
    again = parse_san(pos, written, rules);
  } catch (const ParseError& e) {
    require(false, "engine SAN does not read back", where + " -> " + written + ": " + e.what());
  }
  require(again == m, "engine SAN reads back as another move", where + " -> " + written);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  Position pos;
  std::string_view san;
  bool have_position = false;
  if (const std::size_t newline = text.find('\n'); newline != std::string_view::npos) {
    try {
      pos = parse_fen(text.substr(0, newline)).position;
      san = text.substr(newline + 1);
      have_position = true;
    } catch (const ParseError&) {
    }
  }
  if (!have_position) {
    const std::size_t pick = static_cast<unsigned char>(text[0]) % kPositions.size();
    pos = parse_fen(kPositions[pick]).position;
    san = text.substr(1);
  }
  check(pos, san, otb_rules());
  check(pos, san, online_rules());
  return 0;
}
