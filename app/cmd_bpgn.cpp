// bugcam bpgn check FILE... [--rules NAME]
// bugcam bpgn replay FILE [--game N] [--rules NAME]
#include <array>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "bugcam/rules.hpp"
#include "commands.hpp"

namespace bugcam::app {

namespace {

struct CheckOptions {
  std::vector<std::string> files;
  std::string rules = "otb";
};

struct ReplayOptions {
  std::string file;
  int game = 1;
  std::string rules = "otb";
};

int worst(int a, int b) {
  return a > b ? a : b;
}

// The whole file, or a message saying why it cannot be read.
std::optional<std::string> read_file(const std::string& path, std::string& error) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    error = path + ": is a directory";
    return std::nullopt;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = path + ": cannot open: " + std::strerror(errno);
    return std::nullopt;
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) {
    error = path + ": read error";
    return std::nullopt;
  }
  return text.str();
}

const rules::RuleSet* rule_set_or_complain(const std::string& name, std::string_view command) {
  const rules::RuleSet* rule_set = rules::find_rule_set(name);
  if (rule_set == nullptr) {
    std::cerr << "bugcam bpgn " << command << ": unknown rule set '" << name << "' (known:";
    for (const std::string_view known : rules::rule_set_names()) std::cerr << " " << known;
    std::cerr << ")\n";
  }
  return rule_set;
}

std::string players(const rules::BpgnGame& game) {
  const auto name = [&game](std::string_view tag) { return game.tag(tag).value_or("?"); };
  return name("WhiteA") + " - " + name("BlackA") + " (A), " + name("WhiteB") + " - " +
         name("BlackB") + " (B)";
}

std::string_view reason_word(rules::EndReason reason) {
  switch (reason) {
    case rules::EndReason::kCheckmate:
      return "checkmate";
    case rules::EndReason::kStalemate:
      return "stalemate";
    case rules::EndReason::kRepetition:
      return "repetition";
    case rules::EndReason::kFlag:
      return "flag";
    case rules::EndReason::kResignation:
      return "resignation";
    case rules::EndReason::kIllegalMoveClaim:
      return "illegal move claim";
    case rules::EndReason::kAgreement:
      return "agreement";
  }
  return "end";
}

// What the rules found at the end of a legal record: a mate or stalemate, and moves that the
// record lists after it (server records order the two boards by clock times).
std::string replay_notes(const rules::Replay& replay) {
  const std::optional<rules::GameResult> result = replay.final_game.result();
  if (!result) return {};
  std::string notes = "; " + std::string(reason_word(result->reason)) + " on board " +
                      rules::board_letter(result->board);
  std::size_t last_on_board = 0;
  for (std::size_t i = 0; i < replay.plies.size(); ++i) {
    if (replay.plies[i].board == result->board) last_on_board = i + 1;
  }
  const std::size_t later = replay.plies.size() - last_on_board;
  if (last_on_board > 0) notes += " at ply " + std::to_string(last_on_board);
  if (later > 0) {
    notes += ", then " + std::to_string(later) + (later == 1 ? " move" : " moves") + " on board " +
             rules::board_letter(rules::other(result->board));
  }
  return notes;
}

int check_file(const std::string& path, const rules::RuleSet& rule_set) {
  std::string error;
  const std::optional<std::string> text = read_file(path, error);
  if (!text) {
    std::cerr << "bugcam bpgn check: " << error << "\n";
    return kExitUsage;
  }
  std::vector<rules::BpgnGame> games;
  try {
    games = rules::parse_bpgn(*text, path);
  } catch (const rules::ParseError& e) {
    std::cout << e.what() << "\n";
    return kExitBadInput;
  }
  int status = kExitOk;
  for (std::size_t i = 0; i < games.size(); ++i) {
    const rules::BpgnGame& game = games[i];
    const std::string label = "game " + std::to_string(i + 1);
    const rules::Replay replay = rules::replay(game, rule_set);
    if (replay.error) {
      std::cout << replay.error->where().str() << ": " << label << ": " << replay.error->message()
                << "\n";
      status = kExitBadInput;
      continue;
    }
    std::cout << path << ":" << game.where.line << ": " << label << ": " << players(game) << ": "
              << replay.plies.size() << " plies: ok, " << game.result;
    if (!game.result_comment.empty()) std::cout << " {" << game.result_comment << "}";
    std::cout << replay_notes(replay) << "\n";
  }
  return status;
}

int run_check(const CheckOptions& options) {
  const rules::RuleSet* rule_set = rule_set_or_complain(options.rules, "check");
  if (rule_set == nullptr) return kExitUsage;
  int status = kExitOk;
  for (const std::string& path : options.files) status = worst(status, check_file(path, *rule_set));
  return status;
}

std::string format_seconds(double seconds) {
  std::array<char, 400> buffer{};
  const auto [end, ec] = std::to_chars(buffer.data(), buffer.data() + buffer.size(), seconds,
                                       std::chars_format::fixed);
  return ec == std::errc() ? std::string(buffer.data(), end) : std::string("?");
}

// Start positions as replay() takes them: the FEN tag, else the standard start.
std::array<rules::Position, 2> start_positions(const rules::BpgnGame& game) {
  std::array<rules::Position, 2> boards{rules::Position::start(), rules::Position::start()};
  if (const std::optional<std::string> fen = game.tag("FEN"); fen && !fen->empty()) {
    const rules::Bfen bfen = rules::parse_bfen(*fen, game.where);
    boards[0] = bfen.a.position;
    if (bfen.b) boards[1] = bfen.b->position;
  }
  return boards;
}

int run_replay(const ReplayOptions& options) {
  const rules::RuleSet* rule_set = rule_set_or_complain(options.rules, "replay");
  if (rule_set == nullptr) return kExitUsage;
  std::string error;
  const std::optional<std::string> text = read_file(options.file, error);
  if (!text) {
    std::cerr << "bugcam bpgn replay: " << error << "\n";
    return kExitUsage;
  }
  std::vector<rules::BpgnGame> games;
  try {
    games = rules::parse_bpgn(*text, options.file);
  } catch (const rules::ParseError& e) {
    std::cerr << e.what() << "\n";
    return kExitBadInput;
  }
  if (options.game < 1 || static_cast<std::size_t>(options.game) > games.size()) {
    std::cerr << "bugcam bpgn replay: " << options.file << " has " << games.size()
              << (games.size() == 1 ? " game" : " games") << "; there is no game " << options.game
              << "\n";
    return kExitUsage;
  }
  const rules::BpgnGame& game = games[static_cast<std::size_t>(options.game - 1)];
  const rules::Replay replay = rules::replay(game, *rule_set);
  if (!replay.error || replay.error_ply) {
    // Both boards after every half-move: the moved board changes, and a capture adds a
    // piece to the partner's holdings on the other board (a promoted pawn as a pawn).
    std::array<rules::Position, 2> boards = start_positions(game);
    // Clock times, where the record has them, as the BFEN's trailing fields.
    std::array<std::array<std::optional<double>, 2>, 2> clocks{};
    if (const std::optional<std::string> control = game.tag("TimeControl")) {
      double base = 0;
      const std::string_view base_text = std::string_view(*control).substr(0, control->find('+'));
      const auto [end, ec] =
          std::from_chars(base_text.data(), base_text.data() + base_text.size(), base);
      if (ec == std::errc() && end == base_text.data() + base_text.size() && base >= 0) {
        for (auto& board_clocks : clocks) board_clocks.fill(base);
      }
    }
    for (std::size_t i = 0; i < replay.plies.size(); ++i) {
      const rules::ReplayedPly& ply = replay.plies[i];
      const int b = static_cast<int>(ply.board);
      const rules::Position::Undo undo = boards[b].make(ply.move, *rule_set);
      if (!undo.captured.empty()) {
        boards[1 - b].add_holding(undo.captured.color, undo.captured_promoted
                                                           ? rules::PieceType::kPawn
                                                           : undo.captured.type);
      }
      const rules::BpgnMove& record = game.moves[i];
      // A move without a clock reading leaves the mover's time unknown from here on.
      clocks[b][static_cast<int>(record.color)] = record.clock;
      rules::Bfen bfen;
      bfen.a.position = boards[0];
      bfen.b = rules::BoardFen{boards[1], {}};
      for (int board = 0; board < 2; ++board) {
        if (clocks[board][0] && clocks[board][1]) {
          rules::BoardFen& fen = board == 0 ? bfen.a : *bfen.b;
          fen.trailing = {format_seconds(*clocks[board][0]), format_seconds(*clocks[board][1])};
        }
      }
      std::cout << rules::to_bfen(bfen) << "\n";
    }
  }
  if (replay.error) {
    std::cerr << replay.error->where().str() << ": game " << options.game << ": "
              << replay.error->message() << "\n";
    return kExitBadInput;
  }
  return kExitOk;
}

}  // namespace

void add_bpgn_commands(CLI::App& app, int& exit_status) {
  CLI::App* bpgn = app.add_subcommand("bpgn", "Checks and replays BPGN bughouse game records");
  bpgn->require_subcommand(1);

  auto check_options = std::make_shared<CheckOptions>();
  CLI::App* check = bpgn->add_subcommand(
      "check",
      "Replays every game of each file through the rules and prints one line per game. Exit "
      "status 1 if any game has an illegal move or a file cannot be parsed, 2 if a file cannot "
      "be read.");
  check->add_option("files", check_options->files, "BPGN files")->required();
  check->add_option("--rules", check_options->rules, "Rule set: otb (default) or online");
  check->callback([check_options, &exit_status] { exit_status = run_check(*check_options); });

  auto replay_options = std::make_shared<ReplayOptions>();
  CLI::App* replay = bpgn->add_subcommand(
      "replay", "Prints the BFEN of both boards (A | B) after every half-move of one game.");
  replay->add_option("file", replay_options->file, "BPGN file")->required();
  replay->add_option("--game", replay_options->game, "Which game of the file, from 1 (default 1)");
  replay->add_option("--rules", replay_options->rules, "Rule set: otb (default) or online");
  replay->callback([replay_options, &exit_status] { exit_status = run_replay(*replay_options); });
}

}  // namespace bugcam::app
