// `bugcam perft` as a user runs it: the real binary, its output and exit status.
#include <gtest/gtest.h>

#include <string>

#include "support.hpp"

namespace {

using bugcam::rules::test::run_bugcam;

std::string last_line(const std::string& text) {
  std::string trimmed = text;
  while (!trimmed.empty() && trimmed.back() == '\n') trimmed.pop_back();
  const auto newline = trimmed.rfind('\n');
  return newline == std::string::npos ? trimmed : trimmed.substr(newline + 1);
}

TEST(PerftCommand, LastLineIsTheCount) {
  const auto result =
      run_bugcam({"perft", "2k5/8/8/8/8/8/8/4K3[Qn] w - - 0 1", "3", "--rules", "online"}, true);
  EXPECT_EQ(result.exit_status, 0) << result.output;
  EXPECT_EQ(last_line(result.output), "88634");
}

TEST(PerftCommand, TwoBoardBfenCountsBoardA) {
  // Board A holds a white knight; board B is irrelevant to the count.
  const auto result = run_bugcam({"perft",
                                  "4k3/8/8/8/8/8/8/4K3/N w - - 180 180 | "
                                  "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 180 180",
                                  "1"},
                                 true);
  EXPECT_EQ(result.exit_status, 0) << result.output;
  EXPECT_EQ(last_line(result.output), std::to_string(5 + 62));  // king moves + knight drops
}

TEST(PerftCommand, DivideListsEveryMoveThenTheTotal) {
  const auto result = run_bugcam(
      {"perft", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "2", "--divide"}, true);
  EXPECT_EQ(result.exit_status, 0);
  EXPECT_NE(result.output.find("e2e4: 20"), std::string::npos) << result.output;
  EXPECT_EQ(last_line(result.output), "400");
}

TEST(PerftCommand, BadPositionNamesTheColumn) {
  const auto result =
      run_bugcam({"perft", "rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "1"}, true);
  EXPECT_EQ(result.exit_status, 1);
  EXPECT_NE(result.output.find("BFEN:1:"), std::string::npos) << result.output;
}

TEST(PerftCommand, UnknownRuleSetIsAUsageError) {
  const auto result =
      run_bugcam({"perft", "k7/8/8/8/8/8/8/K7 w - - 0 1", "1", "--rules", "nonsense"}, true);
  EXPECT_EQ(result.exit_status, 2) << result.output;
}

}  // namespace
