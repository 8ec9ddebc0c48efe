// The clock log reader (SPEC.md section 4).
#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "bugcam/capture.hpp"

namespace bugcam::capture {
namespace {

using nlohmann::json;

[[noreturn]] void fail(const std::string& file, int line, const std::string& what) {
  throw CaptureError(file + ":" + std::to_string(line) + ": " + what);
}

std::optional<int> read_ms(const json& object, const char* key, const std::string& file, int line) {
  const auto it = object.find(key);
  if (it == object.end() || it->is_null()) return std::nullopt;
  if (!it->is_number()) fail(file, line, std::string("\"") + key + "\" must be a number");
  const double ms = it->get<double>();
  if (ms < -1e9 || ms > 1e9) fail(file, line, std::string("\"") + key + "\" is out of range");
  return static_cast<int>(ms < 0 ? ms - 0.5 : ms + 0.5);
}

ClockEvent parse_line(std::string_view text, const std::string& file, int line) {
  json object;
  try {
    object = json::parse(text);
  } catch (const json::parse_error& e) {
    fail(file, line, std::string("expected one JSON object: ") + e.what());
  }
  if (!object.is_object()) fail(file, line, "expected one JSON object per line");
  ClockEvent event;

  const auto t = object.find("t");
  if (t == object.end() || !t->is_number()) fail(file, line, "expected \"t\": seconds");
  event.t = t->get<double>();
  if (!(event.t >= 0.0)) fail(file, line, "\"t\" must be 0 or more");

  const auto board = object.find("board");
  if (board == object.end() || !board->is_string())
    fail(file, line, "expected \"board\": \"A\" or \"B\"");
  const std::string board_name = board->get<std::string>();
  if (board_name == "A" || board_name == "a") {
    event.board = BoardId::kA;
  } else if (board_name == "B" || board_name == "b") {
    event.board = BoardId::kB;
  } else {
    fail(file, line, "\"board\" must be \"A\" or \"B\", not \"" + board_name + "\"");
  }

  const auto kind = object.find("event");
  if (kind == object.end() || !kind->is_string())
    fail(file, line, "expected \"event\": start, press, flag or stop");
  const std::string kind_text = kind->get<std::string>();
  if (kind_text == "start") {
    event.kind = ClockEvent::Kind::kStart;
  } else if (kind_text == "press") {
    event.kind = ClockEvent::Kind::kPress;
  } else if (kind_text == "flag") {
    event.kind = ClockEvent::Kind::kFlag;
  } else if (kind_text == "stop") {
    event.kind = ClockEvent::Kind::kStop;
  } else {
    fail(file, line, "\"event\" must be start, press, flag or stop, not \"" + kind_text + "\"");
  }

  const auto side = object.find("side");
  if (side != object.end() && !side->is_null()) {
    const std::string side_text = side->is_string() ? side->get<std::string>() : "";
    if (side_text == "white") {
      event.side = Color::kWhite;
    } else if (side_text == "black") {
      event.side = Color::kBlack;
    } else {
      fail(file, line, "\"side\" must be \"white\" or \"black\"");
    }
  }
  if ((event.kind == ClockEvent::Kind::kPress || event.kind == ClockEvent::Kind::kFlag) &&
      !event.side) {
    fail(file, line, "a " + kind_text + " event needs \"side\"");
  }
  event.white_ms = read_ms(object, "white_ms", file, line);
  event.black_ms = read_ms(object, "black_ms", file, line);
  return event;
}

}  // namespace

std::string_view kind_name(ClockEvent::Kind kind) {
  switch (kind) {
    case ClockEvent::Kind::kStart:
      return "start";
    case ClockEvent::Kind::kPress:
      return "press";
    case ClockEvent::Kind::kFlag:
      return "flag";
    case ClockEvent::Kind::kStop:
      return "stop";
  }
  return "?";
}

std::vector<ClockEvent> parse_clock_log(std::string_view text, const std::string& file_name) {
  std::vector<ClockEvent> events;
  int line_number = 0;
  std::size_t begin = 0;
  while (begin <= text.size()) {
    std::size_t end = text.find('\n', begin);
    if (end == std::string_view::npos) end = text.size();
    ++line_number;
    std::string_view line = text.substr(begin, end - begin);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find_first_not_of(" \t") != std::string_view::npos) {
      events.push_back(parse_line(line, file_name, line_number));
    }
    begin = end + 1;
  }
  std::stable_sort(events.begin(), events.end(),
                   [](const ClockEvent& a, const ClockEvent& b) { return a.t < b.t; });
  return events;
}

std::vector<ClockEvent> read_clock_log(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw CaptureError(file.string() + ": cannot open the clock log");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw CaptureError(file.string() + ": cannot read the clock log");
  return parse_clock_log(text.str(), file.string());
}

std::string to_json_line(const ClockEvent& event) {
  json object;
  object["t"] = std::round(event.t * 1000.0) / 1000.0;
  object["board"] = std::string(1, rules::board_letter(event.board));
  object["event"] = std::string(kind_name(event.kind));
  if (event.side) object["side"] = *event.side == Color::kWhite ? "white" : "black";
  if (event.white_ms) object["white_ms"] = *event.white_ms;
  if (event.black_ms) object["black_ms"] = *event.black_ms;
  return object.dump();
}

}  // namespace bugcam::capture
