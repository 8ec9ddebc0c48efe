#include <fstream>

#include <gtest/gtest.h>

#include "bugcam/capture.hpp"
#include "temp_dir.hpp"

namespace {

using bugcam::capture::CaptureError;
using bugcam::capture::ClockEvent;
using bugcam::capture::parse_clock_log;
using bugcam::rules::BoardId;
using bugcam::rules::Color;

TEST(ClockLog, ReadsTheSpecExample) {
  const std::string text =
      R"({"t": 0.000, "board": "A", "event": "start", "white_ms": 180000, "black_ms": 180000}
{"t": 2.412, "board": "A", "event": "press", "side": "white", "white_ms": 177588, "black_ms": 180000}
{"t": 3.050, "board": "B", "event": "start", "white_ms": 180000, "black_ms": 180000}
{"t": 97.500, "board": "A", "event": "flag", "side": "black"}
{"t": 98.000, "board": "A", "event": "stop"}
)";
  const std::vector<ClockEvent> events = parse_clock_log(text, "clocks.jsonl");
  ASSERT_EQ(events.size(), 5u);
  EXPECT_EQ(events[0].kind, ClockEvent::Kind::kStart);
  EXPECT_EQ(events[0].white_ms, 180000);
  EXPECT_EQ(events[1].kind, ClockEvent::Kind::kPress);
  EXPECT_DOUBLE_EQ(events[1].t, 2.412);
  EXPECT_EQ(events[1].side, Color::kWhite);
  EXPECT_EQ(events[1].white_ms, 177588);
  EXPECT_EQ(events[2].board, BoardId::kB);
  EXPECT_EQ(events[3].kind, ClockEvent::Kind::kFlag);
  EXPECT_EQ(events[3].side, Color::kBlack);
  EXPECT_FALSE(events[3].white_ms.has_value());
  EXPECT_EQ(events[4].kind, ClockEvent::Kind::kStop);
}

TEST(ClockLog, IgnoresUnknownFieldsAndBlankLinesAndSortsByTime) {
  const std::string text =
      "{\"t\": 5, \"board\": \"B\", \"event\": \"press\", \"side\": \"black\", \"x\": [1]}\r\n"
      "\n"
      "   \n"
      "{\"t\": 1, \"board\": \"A\", \"event\": \"press\", \"side\": \"white\", \"clock\": "
      "\"dgt\"}\n";
  const std::vector<ClockEvent> events = parse_clock_log(text, "c.jsonl");
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].board, BoardId::kA);
  EXPECT_EQ(events[1].board, BoardId::kB);
  EXPECT_EQ(events[1].side, Color::kBlack);
}

std::string error_of(const std::string& text) {
  try {
    parse_clock_log(text, "log.jsonl");
  } catch (const CaptureError& e) {
    return e.what();
  }
  return "";
}

TEST(ClockLog, MalformedLinesNameFileAndLine) {
  const std::string good = "{\"t\": 0, \"board\": \"A\", \"event\": \"start\"}\n";
  EXPECT_NE(error_of(good + good + "{\"t\": 1, \"board\": \"A\"\n").find("log.jsonl:3:"),
            std::string::npos);
  EXPECT_NE(error_of(good + "{\"t\": 1, \"board\": \"C\", \"event\": \"press\"}")
                .find("log.jsonl:2: \"board\" must be"),
            std::string::npos);
  EXPECT_NE(error_of("{\"t\": 1, \"board\": \"A\", \"event\": \"press\"}").find("needs \"side\""),
            std::string::npos);
  EXPECT_NE(error_of("{\"t\": -1, \"board\": \"A\", \"event\": \"stop\"}").find("log.jsonl:1:"),
            std::string::npos);
  EXPECT_NE(error_of("[1, 2]").find("log.jsonl:1: expected one JSON object"), std::string::npos);
  EXPECT_NE(error_of("{\"t\": 1, \"board\": \"A\", \"event\": \"press\", \"side\": \"white\", "
                     "\"white_ms\": \"x\"}")
                .find("white_ms"),
            std::string::npos);
  EXPECT_EQ(error_of(good), "");
}

TEST(ClockLog, WritesLinesItReadsBack) {
  ClockEvent press;
  press.t = 12.3456;
  press.board = BoardId::kB;
  press.side = Color::kBlack;
  press.black_ms = 1234;
  const std::string line = bugcam::capture::to_json_line(press);
  const std::vector<ClockEvent> back = parse_clock_log(line, "x");
  ASSERT_EQ(back.size(), 1u);
  EXPECT_NEAR(back[0].t, 12.346, 1e-9);
  EXPECT_EQ(back[0].board, BoardId::kB);
  EXPECT_EQ(back[0].side, Color::kBlack);
  EXPECT_EQ(back[0].black_ms, 1234);
  EXPECT_FALSE(back[0].white_ms.has_value());
}

TEST(ClockLog, ReadsAFileAndNamesAMissingOne) {
  const bugcam::test_support::TempDir dir_temp("clocklog");
  const std::filesystem::path dir = dir_temp.path();
  const std::filesystem::path file = dir / "clocks.jsonl";
  {
    std::ofstream out(file);
    out << "{\"t\": 0.5, \"board\": \"A\", \"event\": \"press\", \"side\": \"white\"}\n";
  }
  EXPECT_EQ(bugcam::capture::read_clock_log(file).size(), 1u);
  try {
    bugcam::capture::read_clock_log(dir / "missing.jsonl");
    FAIL() << "expected an error";
  } catch (const CaptureError& e) {
    EXPECT_NE(std::string(e.what()).find("missing.jsonl"), std::string::npos);
  }
}

}  // namespace
