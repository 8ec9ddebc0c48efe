// Move generation checked against the reference counts in shared/data/bpgn/perft_reference.txt.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "bugcam/rules.hpp"

namespace bugcam::rules {
namespace {

struct ReferenceCase {
  std::string id;
  std::string fen;
  std::vector<std::uint64_t> crazyhouse;
  std::vector<std::uint64_t> bughouse;  // "bughouse-single-board": depth 1, 2, ...
};

std::vector<std::uint64_t> read_counts(std::istringstream& in) {
  std::vector<std::uint64_t> counts;
  std::string word;
  while (in >> word) {
    if (word.empty() || word[0] < '0' || word[0] > '9') break;  // "(= orthodox chess)"
    counts.push_back(std::stoull(word));
  }
  return counts;
}

// Reads the reference file as published, so that every count in it is checked.
std::vector<ReferenceCase> load_reference() {
  std::ifstream in(std::string(BUGCAM_SHARED_DIR) + "/data/bpgn/perft_reference.txt");
  std::vector<ReferenceCase> cases;
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("id ", 0) == 0) {
      std::istringstream words(line.substr(3));
      ReferenceCase c;
      words >> c.id;
      // The FEN is the six fields after the id.
      std::string field;
      for (int i = 0; i < 6 && words >> field; ++i) c.fen += (i ? " " : "") + field;
      cases.push_back(c);
    } else if (!cases.empty()) {
      std::istringstream words(line);
      std::string kind;
      words >> kind;
      if (kind == "crazyhouse") cases.back().crazyhouse = read_counts(words);
      if (kind == "bughouse-single-board") cases.back().bughouse = read_counts(words);
    }
  }
  return cases;
}

TEST(Perft, ReferenceFileHasAllCases) {
  const auto cases = load_reference();
  ASSERT_EQ(cases.size(), 6u);
  for (const auto& c : cases) EXPECT_FALSE(c.bughouse.empty()) << c.id;
}

TEST(Perft, EveryBughouseSingleBoardReferenceCountWithOnlineRules) {
  int checked = 0;
  for (const auto& c : load_reference()) {
    const Position position = parse_fen(c.fen).position;
    for (std::size_t depth = 1; depth <= c.bughouse.size(); ++depth) {
      EXPECT_EQ(perft(position, static_cast<int>(depth), online_rules()), c.bughouse[depth - 1])
          << c.id << " depth " << depth;
      ++checked;
    }
  }
  EXPECT_EQ(checked, 5 + 3 + 4 + 4 + 4 + 3);
}

TEST(Perft, OtbRulesPromoteOnlyToQueenOrKnight) {
  // From the reference "promoted" position Black's pawns on b2 and c2 can promote on b1
  // and c1: four promotion moves per pawn-and-square under online rules, two under OTB.
  const Position position = parse_fen("4k3/1Q~6/8/8/4b3/8/Kpp5/8[] b - - 0 1").position;
  const int online = position.legal_moves(online_rules()).size();
  const int otb = position.legal_moves(otb_rules()).size();
  int promotion_squares = 0;
  for (const Move m : position.legal_moves(otb_rules())) {
    if (m.kind() == Move::Kind::kPromotion) {
      EXPECT_TRUE(m.piece() == PieceType::kQueen || m.piece() == PieceType::kKnight);
      ++promotion_squares;
    }
  }
  ASSERT_GT(promotion_squares, 0);
  EXPECT_EQ(online - otb, promotion_squares);  // online adds a rook and a bishop for each pair
  EXPECT_EQ(online, 20);
}

TEST(Perft, DividedCountsAddUp) {
  const Position position = Position::start();
  std::uint64_t total = 0;
  for (const Move m : position.legal_moves(online_rules())) {
    Position child = position;
    child.make(m, online_rules());
    total += perft(child, 2, online_rules());
  }
  EXPECT_EQ(total, 8902u);
}

}  // namespace
}  // namespace bugcam::rules
