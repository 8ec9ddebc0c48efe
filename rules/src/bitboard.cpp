#include "bitboard.hpp"

#include <stdexcept>

namespace bugcam::rules::bb {
namespace {

// xorshift64*: a fixed seed makes the search, and so the tables, the same on every run.
class MagicCandidates {
 public:
  explicit MagicCandidates(std::uint64_t seed) : state_(seed) {}
  // Magic multipliers with few set bits are found much faster.
  Bitboard sparse() { return next() & next() & next(); }

 private:
  std::uint64_t next() {
    state_ ^= state_ >> 12;
    state_ ^= state_ << 25;
    state_ ^= state_ >> 27;
    return state_ * 2685821657736338717ULL;
  }
  std::uint64_t state_;
};

// Occupancy squares that matter for a slider: its rays without the board edge at their end.
Bitboard relevant_mask(Square s, bool diagonal) {
  const Bitboard edges =
      ((kRank1 | kRank8) & ~rank_bb(rank_of(s))) | ((kFileA | kFileH) & ~(kFileA << file_of(s)));
  return ray_attacks(s, 0, diagonal) & ~edges;
}

}  // namespace

SliderTables::SliderTables() {
  build(false, rook_);
  build(true, bishop_);
}

void SliderTables::build(bool diagonal, std::array<Entry, 64>& entries) {
  MagicCandidates candidates(diagonal ? 0x9E3779B97F4A7C15ULL : 0xD1B54A32D192ED03ULL);
  std::vector<Bitboard> occupancies;
  std::vector<Bitboard> reference;
  std::vector<Bitboard> table;
  std::vector<unsigned> stamp;
  for (Square s = 0; s < 64; ++s) {
    Entry& e = entries[s];
    e.mask = relevant_mask(s, diagonal);
    const int bits = popcount(e.mask);
    e.shift = static_cast<unsigned>(64 - bits);
    const std::size_t size = std::size_t{1} << bits;
    occupancies.clear();
    reference.clear();
    // Every subset of the mask (carry-rippler enumeration).
    Bitboard subset = 0;
    do {
      occupancies.push_back(subset);
      reference.push_back(ray_attacks(s, subset, diagonal));
      subset = (subset - e.mask) & e.mask;
    } while (subset != 0);

    table.assign(size, 0);
    stamp.assign(size, 0);
    unsigned attempt = 0;
    for (;;) {
      ++attempt;
      if (attempt > 100000000u) throw std::logic_error("no magic multiplier found");
      const Bitboard magic = candidates.sparse();
      if (popcount((e.mask * magic) >> 56) < 6) continue;
      bool ok = true;
      for (std::size_t i = 0; i < occupancies.size() && ok; ++i) {
        const std::size_t index = (occupancies[i] * magic) >> e.shift;
        if (stamp[index] != attempt) {
          stamp[index] = attempt;
          table[index] = reference[i];
        } else if (table[index] != reference[i]) {
          ok = false;
        }
      }
      if (ok) {
        e.magic = magic;
        break;
      }
    }
    e.offset = static_cast<std::uint32_t>(attacks_.size());
    for (std::size_t i = 0; i < occupancies.size(); ++i) {
      table[(occupancies[i] * e.magic) >> e.shift] = reference[i];
    }
    attacks_.insert(attacks_.end(), table.begin(), table.end());
  }
}

const SliderTables& sliders() {
  static const SliderTables tables;
  return tables;
}

const LineTables& lines() {
  static const LineTables tables = [] {
    LineTables t;
    for (Square a = 0; a < 64; ++a) {
      for (Square b = 0; b < 64; ++b) {
        if (a == b) continue;
        for (bool diagonal : {false, true}) {
          if (ray_attacks(a, 0, diagonal) & square_bb(b)) {
            t.between[a][b] =
                ray_attacks(a, square_bb(b), diagonal) & ray_attacks(b, square_bb(a), diagonal);
            t.line[a][b] = (ray_attacks(a, 0, diagonal) & ray_attacks(b, 0, diagonal)) |
                           square_bb(a) | square_bb(b);
          }
        }
      }
    }
    return t;
  }();
  return tables;
}

}  // namespace bugcam::rules::bb
