// BPGN: reading every dialect found in real bughouse records (FICS/bughousedb, chess.com,
// the rule documents' sample), writing the bughousedb/FICS dialect of SPEC.md section 3,
// and replaying a record through the rules.
#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "bugcam/rules.hpp"

namespace bugcam::rules {

namespace {

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}
bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

// A decimal number as game records write times: "298.21", "120", "-0.5", ".5". Rejects
// what from_chars would also take but no record means ("inf", "1e5", "0x1p3").
std::optional<double> parse_decimal(std::string_view s) {
  std::size_t i = 0;
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
  std::size_t digits = 0;
  while (i < s.size() && is_digit(s[i])) ++i, ++digits;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && is_digit(s[i])) ++i, ++digits;
  }
  if (digits == 0 || i != s.size()) return std::nullopt;
  if (s.front() == '+') s.remove_prefix(1);
  double value = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return value;
}

// chess.com's [%clk H:MM:SS.s]; also MM:SS and plain seconds.
std::optional<double> parse_clock_time(std::string_view s) {
  double total = 0;
  int parts = 0;
  while (true) {
    const std::size_t colon = s.find(':');
    const std::string_view part = s.substr(0, colon);
    if (colon != std::string_view::npos) {
      // Hours and minutes are whole numbers.
      if (part.empty() || part.size() > 6 ||
          !std::all_of(part.begin(), part.end(), [](char c) { return is_digit(c); })) {
        return std::nullopt;
      }
      int value = 0;
      std::from_chars(part.data(), part.data() + part.size(), value);
      total = total * 60 + value;
      s.remove_prefix(colon + 1);
      if (++parts > 2) return std::nullopt;
      continue;
    }
    const std::optional<double> seconds = parse_decimal(part);
    if (!seconds || *seconds < 0) return std::nullopt;
    return total * 60 + *seconds;
  }
}

// The shortest decimal that reads back as the same double, without an exponent.
std::string format_seconds(double seconds) {
  std::array<char, 400> buffer{};
  const auto [end, ec] = std::to_chars(buffer.data(), buffer.data() + buffer.size(), seconds,
                                       std::chars_format::fixed);
  if (ec != std::errc()) {
    throw std::invalid_argument("time out of range for a game record");
  }
  return std::string(buffer.data(), end);
}

bool is_result_token(std::string_view s) {
  return s == "1-0" || s == "0-1" || s == "1/2-1/2" || s == "*";
}

// Reads BPGN text game by game, tracking line and column for messages.
class BpgnReader {
 public:
  BpgnReader(std::string_view text, const std::string& file) : text_(text), file_(file) {}

  std::vector<BpgnGame> read_all() {
    std::vector<BpgnGame> games;
    while (true) {
      skip_space();
      if (at_end()) break;
      games.push_back(read_game());
    }
    return games;
  }

 private:
  bool at_end() const { return pos_ >= text_.size(); }
  char peek(std::size_t ahead = 0) const {
    return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0';
  }
  void advance() {
    if (text_[pos_] == '\n') {
      ++line_;
      column_ = 1;
    } else {
      ++column_;
    }
    ++pos_;
  }
  SourceLocation here() const { return SourceLocation{file_, line_, column_}; }
  [[noreturn]] void fail(const SourceLocation& where, const std::string& what) const {
    throw ParseError(where, what);
  }

  // Whitespace, ';' comments to the end of the line, and '%' escape lines (PGN 6).
  void skip_space() {
    while (!at_end()) {
      const char c = peek();
      if (is_space(c)) {
        advance();
      } else if (c == ';' || (c == '%' && column_ == 1)) {
        while (!at_end() && peek() != '\n') advance();
      } else {
        break;
      }
    }
  }

  BpgnGame read_game() {
    BpgnGame game;
    game.where = here();
    read_tags(game);
    read_movetext(game);
    return game;
  }

  void read_tags(BpgnGame& game) {
    while (peek() == '[') {
      read_tag(game);
      skip_space();
    }
  }

  void read_tag(BpgnGame& game) {
    const SourceLocation open = here();
    advance();  // '['
    skip_inline_space();
    std::string name;
    while (!at_end() &&
           (std::isalnum(static_cast<unsigned char>(peek())) || peek() == '_' || peek() == '-' ||
            peek() == '+' || peek() == '#' || peek() == '=' || peek() == ':')) {
      name += peek();
      advance();
    }
    if (name.empty()) fail(here(), "expected a tag name after '['");
    skip_inline_space();
    if (peek() != '"') fail(here(), "expected '\"' to open the value of tag " + name);
    const SourceLocation value_start = here();
    advance();
    std::string value;
    while (true) {
      if (at_end() || peek() == '\n') {
        fail(value_start, "tag " + name + ": expected '\"' to close the value on the same line");
      }
      const char c = peek();
      advance();
      if (c == '"') break;
      if (c == '\\' && (peek() == '"' || peek() == '\\')) {
        value += peek();
        advance();
        continue;
      }
      value += c;
    }
    skip_inline_space();
    if (peek() != ']')
      fail(here(), "tag " + name + ": expected ']' to close the tag opened at " +
                       std::to_string(open.line) + ":" + std::to_string(open.column));
    advance();
    game.tags.emplace_back(std::move(name), std::move(value));
  }

  void skip_inline_space() {
    while (!at_end() && (peek() == ' ' || peek() == '\t')) advance();
  }

  // The text between braces, which may span lines.
  std::string read_brace_comment() {
    const SourceLocation open = here();
    advance();  // '{'
    std::string content;
    while (true) {
      if (at_end()) fail(open, "comment opened here is never closed: expected '}'");
      const char c = peek();
      advance();
      if (c == '}') break;
      content += c;
    }
    return std::string(trim(content));
  }

  // Variations are not kept: a game record of play has none, and the rule documents only
  // mention them.
  void skip_variation() {
    const SourceLocation open = here();
    int depth = 0;
    do {
      if (at_end()) fail(open, "variation opened here is never closed: expected ')'");
      const char c = peek();
      if (c == '{') {
        read_brace_comment();
        continue;
      }
      if (c == '(') ++depth;
      if (c == ')') --depth;
      advance();
    } while (depth > 0);
  }

  static bool ends_word(char c) {
    return is_space(c) || c == '{' || c == '}' || c == '(' || c == ')' || c == '[' || c == ';';
  }

  std::string_view read_word() {
    const std::size_t start = pos_;
    while (!at_end() && !ends_word(peek())) advance();
    return text_.substr(start, pos_ - start);
  }

  // A comment after a move: its clock, its [%ts] timestamp, and any other text.
  void attach_comment(BpgnMove& move, std::string_view content) {
    std::string rest;
    std::size_t i = 0;
    while (i < content.size()) {
      if (content.compare(i, 2, "[%") == 0) {
        const std::size_t close = content.find(']', i);
        if (close != std::string_view::npos) {
          const std::string_view command = content.substr(i + 2, close - i - 2);
          const std::size_t space = command.find_first_of(" \t\n\r");
          const std::string_view name = command.substr(0, space);
          const std::string_view argument =
              space == std::string_view::npos ? std::string_view() : trim(command.substr(space));
          if (name == "clk" && !move.clock) {
            if (const auto seconds = parse_clock_time(argument)) {
              move.clock = seconds;
              i = close + 1;
              continue;
            }
          } else if (name == "ts" && !move.timestamp) {
            if (const auto seconds = parse_decimal(argument)) {
              move.timestamp = seconds;
              i = close + 1;
              continue;
            }
          }
          rest.append(content.substr(i, close + 1 - i));
          i = close + 1;
          continue;
        }
      }
      rest += content[i++];
    }
    std::string_view text = trim(rest);
    // FICS writes the clock as a bare number, {298.21}; some writers bracket it, {[298.21]}.
    std::string_view number = text;
    if (number.size() >= 2 && number.front() == '[' && number.back() == ']') {
      number = trim(number.substr(1, number.size() - 2));
    }
    if (!move.clock) {
      if (const auto seconds = parse_decimal(number)) {
        move.clock = seconds;
        return;
      }
    }
    if (!text.empty()) {
      move.comments.emplace_back(text);
      last_text_comment_ = &move.comments;
    }
  }

  void read_movetext(BpgnGame& game) {
    last_text_comment_ = nullptr;
    while (true) {
      skip_space();
      if (at_end()) return;
      const char c = peek();
      const SourceLocation where = here();
      if (c == '[') {
        if (game.moves.empty() && game.result_comment.empty() && last_text_comment_ == nullptr &&
            game.comments.empty()) {
          read_tags(game);
          continue;
        }
        return;  // the next game's tags: this one has no result token
      }
      if (c == '{') {
        const std::string content = read_brace_comment();
        if (game.moves.empty()) {
          game.comments.push_back(content);
          last_text_comment_ = &game.comments;
        } else {
          last_text_comment_ = nullptr;
          attach_comment(game.moves.back(), content);
        }
        continue;
      }
      if (c == '(') {
        skip_variation();
        continue;
      }
      if (c == ')' || c == '}') fail(where, std::string("unexpected '") + c + "'");
      const std::string_view word = read_word();
      if (is_result_token(word)) {
        game.result = std::string(word);
        // The comment right before the result says why the game ended.
        if (last_text_comment_ != nullptr && !last_text_comment_->empty()) {
          game.result_comment = std::move(last_text_comment_->back());
          last_text_comment_->pop_back();
        }
        return;
      }
      last_text_comment_ = nullptr;
      if (word.front() == '$' && word.find('@') == std::string_view::npos) {
        continue;  // a NAG ($1 = good move); chess.com's $146@g4 is a drop, read below
      }
      read_move(game, word, where);
    }
  }

  // "1A." (optionally glued to its move, "1A.e4") and then the move.
  void read_move(BpgnGame& game, std::string_view word, const SourceLocation& where) {
    std::size_t i = 0;
    while (i < word.size() && is_digit(word[i])) ++i;
    const bool numbered = i > 0 && i < word.size() &&
                          std::string_view("AaBb").find(word[i]) != std::string_view::npos;
    if (!numbered || i + 1 >= word.size() || word[i + 1] != '.') {
      if (i > 0 && i < word.size() && word[i] == '.') {
        fail(where, "expected a move number with a board letter, such as '" +
                        std::string(word.substr(0, i)) + "A.', found '" + std::string(word) + "'");
      }
      fail(where,
           "expected a move number such as '1A.', '1a.', '1B.' or '1b.', or a result, found '" +
               std::string(word) + "'");
    }
    if (i > 6) fail(where, "move number '" + std::string(word.substr(0, i)) + "' is too large");
    BpgnMove move;
    std::from_chars(word.data(), word.data() + i, move.number);
    const char letter = word[i];
    move.board = (letter == 'A' || letter == 'a') ? BoardId::kA : BoardId::kB;
    move.color = (letter == 'A' || letter == 'B') ? Color::kWhite : Color::kBlack;
    std::size_t after = i + 1;
    while (after < word.size() && word[after] == '.') ++after;
    std::string_view san = word.substr(after);
    const std::string number(word.substr(0, after));
    SourceLocation san_where = where;
    san_where.column += static_cast<int>(after);
    if (san.empty()) {
      skip_space();
      san_where = here();
      if (at_end() || peek() == '{' || peek() == '[' || peek() == '(' || peek() == ')' ||
          peek() == '}') {
        fail(san_where, "expected a move after '" + number + "'");
      }
      san = read_word();
    }
    if (is_result_token(san)) {
      fail(san_where,
           "expected a move after '" + number + "', found the result '" + std::string(san) + "'");
    }
    std::size_t digits = 0;
    while (digits < san.size() && is_digit(san[digits])) ++digits;
    if (digits > 0 && digits < san.size() &&
        std::string_view("AaBb.").find(san[digits]) != std::string_view::npos) {
      fail(san_where, "expected a move after '" + number + "', found '" + std::string(san) + "'");
    }
    move.san = std::string(san);
    move.where = san_where;
    game.moves.push_back(std::move(move));
  }

  std::string_view text_;
  const std::string& file_;
  std::size_t pos_ = 0;
  int line_ = 1;
  int column_ = 1;
  // The comment list that got the most recent free-text comment, while nothing else has
  // been read since: the text before a result token is the reason the game ended.
  std::vector<std::string>* last_text_comment_ = nullptr;
};

// Braces and quotes cannot be escaped inside comments; keep the text readable instead.
std::string comment_text(std::string_view text) {
  std::string out(text);
  std::replace(out.begin(), out.end(), '}', ')');
  return out;
}

std::string tag_value_text(std::string_view value) {
  std::string out;
  for (const char c : value) {
    if (c == '"' || c == '\\') out += '\\';
    out += c == '\n' ? ' ' : c;  // a value cannot span lines
  }
  return out;
}

constexpr std::array<std::string_view, 10> kTagRoster = {
    "Event",  "Site",   "Date",   "Time",        "WhiteA",
    "BlackA", "WhiteB", "BlackB", "TimeControl", "Result"};

std::string_view roster_default(std::string_view name) {
  if (name == "Date") return "????.??.??";
  if (name == "Time") return "??:??:??";
  return "?";
}

// Joins the move units into lines of at most kLineWidth characters where possible.
class LineWrapper {
 public:
  explicit LineWrapper(std::string& out) : out_(out) {}
  void add(const std::string& unit) {
    if (line_length_ > 0 && line_length_ + 1 + unit.size() > kLineWidth) {
      out_ += '\n';
      line_length_ = 0;
    }
    if (line_length_ > 0) {
      out_ += ' ';
      ++line_length_;
    }
    out_ += unit;
    line_length_ += unit.size();
    // A unit's comment may hold newlines; count from the last.
    if (const std::size_t nl = unit.rfind('\n'); nl != std::string::npos) {
      line_length_ = unit.size() - nl - 1;
    }
  }
  void finish_line() {
    if (line_length_ > 0) out_ += '\n';
    line_length_ = 0;
  }

 private:
  static constexpr std::size_t kLineWidth = 79;
  std::string& out_;
  std::size_t line_length_ = 0;
};

std::string move_label(const BpgnMove& move) {
  char letter = board_letter(move.board);
  if (move.color == Color::kBlack) letter = static_cast<char>(letter - 'A' + 'a');
  return std::to_string(move.number) + letter + ".";
}

// Plays a move the position allows; Game refuses it only when the game is over.
std::optional<std::string> play_move(Game& game, BoardId board, Move move) {
  try {
    game.play(board, move);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> BpgnGame::tag(std::string_view name) const {
  for (const auto& [key, value] : tags) {
    if (key == name) return value;
  }
  return std::nullopt;
}

void BpgnGame::set_tag(std::string_view name, std::string value) {
  for (auto& [key, old_value] : tags) {
    if (key == name) {
      old_value = std::move(value);
      return;
    }
  }
  tags.emplace_back(std::string(name), std::move(value));
}

std::vector<BpgnGame> parse_bpgn(std::string_view text, const std::string& file_name) {
  return BpgnReader(text, file_name).read_all();
}

std::string write_bpgn(const BpgnGame& game) {
  std::string out;
  const auto write_tag = [&out](std::string_view name, std::string_view value) {
    out += '[';
    out += name;
    out += " \"";
    out += tag_value_text(value);
    out += "\"]\n";
  };
  for (const std::string_view name : kTagRoster) {
    const std::optional<std::string> value = game.tag(name);
    if (value) {
      write_tag(name, *value);
    } else {
      write_tag(name, name == "Result" ? std::string_view(game.result) : roster_default(name));
    }
  }
  write_tag("Variant", game.tag("Variant").value_or("Bughouse"));
  for (const auto& [name, value] : game.tags) {
    const bool written = name == "Variant" ||
                         std::find(kTagRoster.begin(), kTagRoster.end(), name) != kTagRoster.end();
    // Tag names are written as read; one that could not be read back is left out.
    const bool readable = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '+' ||
             c == '#' || c == '=' || c == ':';
    });
    if (!written && readable) write_tag(name, value);
  }
  out += '\n';

  LineWrapper lines(out);
  for (const std::string& comment : game.comments) lines.add("{" + comment_text(comment) + "}");
  lines.finish_line();
  for (const BpgnMove& move : game.moves) {
    std::string unit = move_label(move) + " " + move.san;
    if (move.clock) unit += " {" + format_seconds(*move.clock) + "}";
    if (move.timestamp) unit += " {[%ts " + format_seconds(*move.timestamp) + "]}";
    for (const std::string& comment : move.comments) unit += " {" + comment_text(comment) + "}";
    lines.add(unit);
  }
  lines.finish_line();
  // A reader takes the comment right before the result as the reason the game ended; when
  // there is no reason but the last move has a comment, an empty one keeps them apart.
  const std::vector<std::string>& last_comments =
      game.moves.empty() ? game.comments : game.moves.back().comments;
  if (!game.result_comment.empty()) {
    out += "{" + comment_text(game.result_comment) + "} ";
  } else if (!last_comments.empty()) {
    out += "{} ";
  }
  out += is_result_token(game.result) ? game.result : std::string("*");
  out += '\n';
  return out;
}

Replay replay(const BpgnGame& game, const RuleSet& rules) {
  Position start_a = Position::start();
  Position start_b = Position::start();
  std::optional<ParseError> setup_error;
  if (const std::optional<std::string> fen = game.tag("FEN"); fen && !fen->empty()) {
    try {
      Bfen bfen = parse_bfen(*fen, game.where);
      start_a = bfen.a.position;
      if (bfen.b) start_b = bfen.b->position;
    } catch (const ParseError& e) {
      setup_error = ParseError(e.where(), "FEN tag: " + e.message());
    }
  }
  Replay result{{}, Game(rules, start_a, start_b), setup_error, std::nullopt};
  if (setup_error) return result;

  // Records from servers order the moves of the two boards by their clocks, so a move on
  // the other board may follow the move that ended the game. Such a move is accepted when it
  // is legal on its board: it is played on a continuation of the boards, and the game keeps
  // the result it had.
  std::optional<Game> continued;
  for (std::size_t ply = 0; ply < game.moves.size(); ++ply) {
    Game& played = continued ? *continued : result.final_game;
    const BpgnMove& record = game.moves[ply];
    const Position& before = played.board(record.board);
    const std::string label = "illegal move at ply " + std::to_string(ply + 1) + " (" +
                              move_label(record) + " " + record.san + "): ";
    const auto stop = [&](const SourceLocation& where, const std::string& why) {
      result.error = ParseError(where, label + why);
      result.error_ply = static_cast<int>(ply);
    };
    if (before.side_to_move() != record.color) {
      stop(record.where, std::string("it is ") +
                             (before.side_to_move() == Color::kWhite ? "White" : "Black") +
                             "'s turn on board " + board_letter(record.board));
      break;
    }
    Move move;
    try {
      move = parse_san(before, record.san, rules);
    } catch (const ParseError& e) {
      SourceLocation where = record.where;
      if (e.where().column > 0) where.column += e.where().column - 1;
      stop(where, e.message());
      break;
    }
    ReplayedPly replayed{record.board, move, to_san(before, move, rules), before};
    std::optional<std::string> refused = play_move(played, record.board, move);
    if (refused && !continued && played.result()) {
      continued.emplace(rules, played.board(BoardId::kA), played.board(BoardId::kB));
      refused = play_move(*continued, record.board, move);
    }
    if (refused) {
      stop(record.where, *refused);
      break;
    }
    result.plies.push_back(std::move(replayed));
  }
  if (continued) {
    // The boards as the record leaves them, with the result of the game as it ended first.
    const GameResult ended = *result.final_game.result();
    result.final_game = std::move(*continued);
    result.final_game.end(ended.board, ended.reason, ended.loser);
  }
  return result;
}

std::optional<TimeControl> parse_time_control(std::string_view tag) {
  const auto seconds = [](std::string_view text) -> std::optional<double> {
    int value = 0;
    const char* end = text.data() + text.size();
    const auto [ptr, error] = std::from_chars(text.data(), end, value);
    if (text.empty() || error != std::errc() || ptr != end || value < 0) return std::nullopt;
    return static_cast<double>(value);
  };
  const std::size_t plus = tag.find('+');
  TimeControl control;
  const std::optional<double> base = seconds(tag.substr(0, plus));
  if (!base || *base == 0.0) return std::nullopt;
  control.base_seconds = *base;
  if (plus != std::string_view::npos) {
    const std::optional<double> increment = seconds(tag.substr(plus + 1));
    if (!increment) return std::nullopt;
    control.increment_seconds = *increment;
  }
  return control;
}

}  // namespace bugcam::rules
