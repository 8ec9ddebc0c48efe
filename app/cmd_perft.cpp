// bugcam perft BFEN DEPTH [--rules NAME] [--divide]
#include <iostream>
#include <string>

#include "bugcam/rules.hpp"
#include "commands.hpp"

namespace bugcam::app {

namespace {

struct PerftOptions {
  std::string bfen;
  int depth = 1;
  std::string rules = "otb";
  bool divide = false;
};

int run_perft(const PerftOptions& options) {
  const rules::RuleSet* rule_set = rules::find_rule_set(options.rules);
  if (rule_set == nullptr) {
    std::cerr << "bugcam perft: unknown rule set '" << options.rules << "'\n";
    return kExitUsage;
  }
  rules::Position position;
  try {
    position = rules::parse_bfen(options.bfen, rules::SourceLocation{"BFEN", 1, 1}).a.position;
  } catch (const rules::ParseError& e) {
    std::cerr << "bugcam perft: " << e.what() << "\n";
    return kExitBadInput;
  }
  if (options.divide && options.depth >= 1) {
    // One line per legal move with the leaf count below it, as other engines print.
    std::uint64_t total = 0;
    for (const rules::Move m : position.legal_moves(*rule_set)) {
      rules::Position child = position;
      child.make(m, *rule_set);
      const std::uint64_t nodes = rules::perft(child, options.depth - 1, *rule_set);
      std::cout << m.uci() << ": " << nodes << "\n";
      total += nodes;
    }
    std::cout << total << "\n";
    return kExitOk;
  }
  std::cout << rules::perft(position, options.depth, *rule_set) << "\n";
  return kExitOk;
}

}  // namespace

void add_perft_command(CLI::App& app, int& exit_status) {
  auto options = std::make_shared<PerftOptions>();
  CLI::App* cmd = app.add_subcommand(
      "perft",
      "Counts the leaf nodes of the legal move tree on one board (captured pieces leave the "
      "board). Given a two-board BFEN, counts board A. The last line printed is the count.");
  cmd->add_option("bfen", options->bfen, "Position as BFEN or FEN (quote it)")->required();
  cmd->add_option("depth", options->depth, "Depth in plies")->required()->check(CLI::Range(0, 20));
  cmd->add_option("--rules", options->rules, "Rule set: otb (default) or online");
  cmd->add_flag("--divide", options->divide, "Print each legal move's count first");
  cmd->callback([options, &exit_status] { exit_status = run_perft(*options); });
}

}  // namespace bugcam::app
