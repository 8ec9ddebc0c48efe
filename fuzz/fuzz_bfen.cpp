// Fuzzes the FEN/BFEN reader and writer, and the SAN writer and reader on every legal move of
// what was read. Any input may be refused with a ParseError; anything else that escapes, a
// crash, or a broken round trip is a bug.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "bugcam/rules.hpp"

namespace {

using namespace bugcam::rules;

void require(bool condition, const char* what, const std::string& detail) {
  if (!condition) {
    std::fprintf(stderr, "fuzz_bfen: %s: %s\n", what, detail.c_str());
    std::abort();
  }
}

void check_board(const BoardFen& board) {
  const std::string written = to_fen(board.position, board.trailing);
  BoardFen back;
  try {
    back = parse_fen(written);
  } catch (const ParseError& e) {
    require(false, "written FEN does not read back", written + ": " + e.what());
  }
  require(back.position == board.position, "FEN reads back as another position", written);
  require(back.trailing == board.trailing, "FEN trailing fields changed", written);
  require(to_fen(back.position, back.trailing) == written, "FEN written twice differs", written);

  for (const RuleSet* rules : {&otb_rules(), &online_rules()}) {
    const Position& pos = board.position;
    board_status(pos, *rules);
    for (const Move m : pos.legal_moves(*rules)) {
      const std::string san = to_san(pos, m, *rules);
      Move again;
      try {
        again = parse_san(pos, san, *rules);
      } catch (const ParseError& e) {
        require(false, "engine SAN does not read back", written + " " + san + ": " + e.what());
      }
      require(again == m, "engine SAN reads back as another move", written + " " + san);
      Position after = pos;
      after.make(m, *rules);
      const BoardFen next = parse_fen(to_fen(after));
      require(next.position == after, "position after a move reads back wrong", to_fen(after));
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  Bfen bfen;
  try {
    bfen = parse_bfen(text, SourceLocation{"fuzz", 1, 1});
  } catch (const ParseError&) {
    return 0;
  }
  const std::string written = to_bfen(bfen);
  Bfen back;
  try {
    back = parse_bfen(written);
  } catch (const ParseError& e) {
    require(false, "written BFEN does not read back", written + ": " + e.what());
  }
  require(back.b.has_value() == bfen.b.has_value(), "board count changed", written);
  check_board(bfen.a);
  if (bfen.b) check_board(*bfen.b);
  return 0;
}
