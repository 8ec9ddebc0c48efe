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

// Multipliers this file's search finds from its fixed seeds, kept so that start-up only
// verifies them (a few milliseconds) instead of searching (a fifth of a second). If one
// ever fails verification the search runs for that square.
constexpr std::array<Bitboard, 64> kKnownRookMagics = {
    0x1880008020104000ULL, 0x8240002001100048ULL, 0x1080200080081000ULL, 0x5080100080080104ULL,
    0x5100100800030004ULL, 0x0200011084020008ULL, 0x2080010002000080ULL, 0x05000a008240a500ULL,
    0x0040800040002081ULL, 0x0005004001008028ULL, 0x2080802000100080ULL, 0x5002000a024110a0ULL,
    0x0410800400080081ULL, 0x0002000200049088ULL, 0xc004000250244108ULL, 0x10c2000200804411ULL,
    0x4040008008204880ULL, 0x0040010040810020ULL, 0xe820010011004020ULL, 0x000892000a0040a0ULL,
    0x5224010100080010ULL, 0x0004808004010200ULL, 0x0040040021181210ULL, 0x0850020013086084ULL,
    0x9124800880244000ULL, 0x0400400240201001ULL, 0x8090002020080401ULL, 0x1080080080100081ULL,
    0x1008041100080101ULL, 0x104100090004001eULL, 0x0881002100020024ULL, 0x0410801880004100ULL,
    0x0440204005800880ULL, 0x4900401004402000ULL, 0x0890040801200120ULL, 0x0001800802801002ULL,
    0x0004000800800480ULL, 0x04ad020080800400ULL, 0x0000108204000108ULL, 0x0002004102000084ULL,
    0x0008882040008000ULL, 0x0220004000828028ULL, 0x0210100020008080ULL, 0x0806001008220040ULL,
    0x0000080004008080ULL, 0x200c000200048080ULL, 0x8424010002008080ULL, 0x0100090048a20004ULL,
    0x088008814000a580ULL, 0x100a002041088200ULL, 0x00024b9100a00100ULL, 0x8022001040886600ULL,
    0x4800040080080080ULL, 0x0520020080040080ULL, 0x0282011002484400ULL, 0x86852415004a8200ULL,
    0x0201482103108001ULL, 0x83010850a480c001ULL, 0x28051020420a0082ULL, 0x1180042008100101ULL,
    0x0202000490082082ULL, 0x0005000400080201ULL, 0x4400102102008804ULL, 0x0202002041040092ULL,
};
constexpr std::array<Bitboard, 64> kKnownBishopMagics = {
    0x10102002004a1420ULL, 0x8020040400584008ULL, 0x10510800811201c8ULL, 0x5204042080000088ULL,
    0x2204106880000002ULL, 0x1401042004000000ULL, 0x0400880410042004ULL, 0x0028208200a02020ULL,
    0x1500241990010e00ULL, 0x8001200182020a40ULL, 0x40004101030b0000ULL, 0x8002041042000100ULL,
    0x4010011041020038ULL, 0x0000010421044000ULL, 0x1500210808020a00ULL, 0x8000088400880520ULL,
    0x0405004010040100ULL, 0x1005823210040108ULL, 0x2708008102040011ULL, 0x4048200404009100ULL,
    0x0018104101400024ULL, 0x0003000601190101ULL, 0x8004803108491000ULL, 0x8014241200820800ULL,
    0x0006e080100c3040ULL, 0x0501044a11041800ULL, 0x9020300008004045ULL, 0x0894080000220040ULL,
    0x1001010083104000ULL, 0x5004030040900080ULL, 0x000400422c012400ULL, 0x0002128698404812ULL,
    0x1010108404900440ULL, 0x0928021182084100ULL, 0x2006080409020024ULL, 0x1010202020180080ULL,
    0xa010008200202200ULL, 0x2098015100019004ULL, 0x0002041440810811ULL, 0x802a02020000b098ULL,
    0x0009015090004060ULL, 0x4000821082081001ULL, 0x0100210040420800ULL, 0x0800004010488a00ULL,
    0x2000081104004040ULL, 0x4c8e029015000082ULL, 0x0420340322224842ULL, 0x1298260043400210ULL,
    0x0000822802400008ULL, 0x00008a0101600000ULL, 0x3040003412080021ULL, 0x3040290220884800ULL,
    0x4a1500401041004aULL, 0x8010200282020781ULL, 0x0020203142209091ULL, 0x0070300600902110ULL,
    0x0040808800b62048ULL, 0x0000810400c44420ULL, 0x00080400440c0441ULL, 0x8340080020840411ULL,
    0x0000000104208200ULL, 0x0000800810d00080ULL, 0x0400530411080200ULL, 0x4040702400932244ULL,
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
    const Bitboard known = diagonal ? kKnownBishopMagics[s] : kKnownRookMagics[s];
    for (;;) {
      ++attempt;
      if (attempt > 100000000u) throw std::logic_error("no magic multiplier found");
      const Bitboard magic = attempt == 1 ? known : candidates.sparse();
      if (attempt > 1 && popcount((e.mask * magic) >> 56) < 6) continue;
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
