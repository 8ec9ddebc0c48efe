// Bitboards and attack tables (internal to the rules library).
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <vector>

#include "bugcam/rules.hpp"

namespace bugcam::rules::bb {

using Bitboard = std::uint64_t;

constexpr Bitboard square_bb(Square s) {
  return Bitboard{1} << s;
}
constexpr Bitboard kRank1 = 0xffULL;
constexpr Bitboard kRank8 = kRank1 << 56;
constexpr Bitboard kFileA = 0x0101010101010101ULL;
constexpr Bitboard kFileH = kFileA << 7;
constexpr Bitboard rank_bb(int r) {
  return kRank1 << (8 * r);
}

inline int popcount(Bitboard b) {
  return std::popcount(b);
}
inline Square lsb(Bitboard b) {
  return std::countr_zero(b);
}
inline Square pop_lsb(Bitboard& b) {
  const Square s = lsb(b);
  b &= b - 1;
  return s;
}

constexpr Bitboard shift_north(Bitboard b) {
  return b << 8;
}
constexpr Bitboard shift_south(Bitboard b) {
  return b >> 8;
}

// Leaper attacks and the lines between squares are computed at compile time.
struct LeaperTables {
  std::array<Bitboard, 64> knight{};
  std::array<Bitboard, 64> king{};
  std::array<std::array<Bitboard, 64>, 2> pawn{};  // squares a pawn of each colour attacks
};

constexpr Bitboard step_attacks(Square s, const int (*steps)[2], int count) {
  Bitboard result = 0;
  for (int i = 0; i < count; ++i) {
    const int f = file_of(s) + steps[i][0];
    const int r = rank_of(s) + steps[i][1];
    if (f >= 0 && f < 8 && r >= 0 && r < 8) result |= square_bb(make_square(f, r));
  }
  return result;
}

constexpr LeaperTables make_leaper_tables() {
  constexpr int kKnightSteps[8][2] = {{1, 2},   {2, 1},   {2, -1}, {1, -2},
                                      {-1, -2}, {-2, -1}, {-2, 1}, {-1, 2}};
  constexpr int kKingSteps[8][2] = {{1, 0},  {1, 1},   {0, 1},  {-1, 1},
                                    {-1, 0}, {-1, -1}, {0, -1}, {1, -1}};
  constexpr int kWhitePawnSteps[2][2] = {{-1, 1}, {1, 1}};
  constexpr int kBlackPawnSteps[2][2] = {{-1, -1}, {1, -1}};
  LeaperTables t;
  for (Square s = 0; s < 64; ++s) {
    t.knight[s] = step_attacks(s, kKnightSteps, 8);
    t.king[s] = step_attacks(s, kKingSteps, 8);
    t.pawn[0][s] = step_attacks(s, kWhitePawnSteps, 2);
    t.pawn[1][s] = step_attacks(s, kBlackPawnSteps, 2);
  }
  return t;
}
inline constexpr LeaperTables kLeapers = make_leaper_tables();

// Sliding attacks by walking rays; used to build the magic tables and in tests.
constexpr Bitboard ray_attacks(Square s, Bitboard occupied, bool diagonal) {
  constexpr int kRookDirs[4][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}};
  constexpr int kBishopDirs[4][2] = {{1, 1}, {1, -1}, {-1, 1}, {-1, -1}};
  const auto& dirs = diagonal ? kBishopDirs : kRookDirs;
  Bitboard result = 0;
  for (const auto& d : dirs) {
    int f = file_of(s) + d[0];
    int r = rank_of(s) + d[1];
    while (f >= 0 && f < 8 && r >= 0 && r < 8) {
      const Bitboard b = square_bb(make_square(f, r));
      result |= b;
      if (occupied & b) break;
      f += d[0];
      r += d[1];
    }
  }
  return result;
}

struct LineTables {
  // Squares strictly between two squares on a line; 0 when not aligned.
  std::array<std::array<Bitboard, 64>, 64> between{};
  // The whole line through two aligned squares (edge to edge); 0 when not aligned.
  std::array<std::array<Bitboard, 64>, 64> line{};
};

// Magic-multiplication lookup for rook and bishop attacks. The tables are built once at
// start-up (finding the multipliers takes a few milliseconds) and never change after.
class SliderTables {
 public:
  SliderTables();
  Bitboard rook(Square s, Bitboard occupied) const { return lookup(rook_[s], occupied); }
  Bitboard bishop(Square s, Bitboard occupied) const { return lookup(bishop_[s], occupied); }

 private:
  struct Entry {
    Bitboard mask = 0;
    Bitboard magic = 0;
    unsigned shift = 0;
    std::uint32_t offset = 0;
  };
  Bitboard lookup(const Entry& e, Bitboard occupied) const {
    return attacks_[e.offset + (((occupied & e.mask) * e.magic) >> e.shift)];
  }
  void build(bool diagonal, std::array<Entry, 64>& entries);

  std::array<Entry, 64> rook_{};
  std::array<Entry, 64> bishop_{};
  std::vector<Bitboard> attacks_;
};

// The immutable tables, built on first use (thread-safe static initialisation).
const SliderTables& sliders();
const LineTables& lines();

inline Bitboard rook_attacks(Square s, Bitboard occupied) {
  return sliders().rook(s, occupied);
}
inline Bitboard bishop_attacks(Square s, Bitboard occupied) {
  return sliders().bishop(s, occupied);
}

}  // namespace bugcam::rules::bb
