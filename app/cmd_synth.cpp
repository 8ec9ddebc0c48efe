// bugcam synth BPGN --out DIR [--seed N] [--plies K] [--incident TYPE@PLY]... [--game N]
//                   [--size WxH] [--fps F]
// bugcam synth --contact-sheet PNG [--seed N] [--count K]
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "bugcam/rules.hpp"
#include "bugcam/samples.hpp"
#include "commands.hpp"

namespace bugcam::app {

namespace {

struct SynthCommandOptions {
  std::string bpgn;
  std::string out;
  std::string contact_sheet;
  std::uint64_t seed = 1;
  int plies = -1;
  int game = 1;
  int count = 12;
  std::string size = "1280x720";
  double fps = 30;
  std::vector<std::string> incidents;
};

int run_synth(const SynthCommandOptions& o) {
  int width = 0, height = 0;
  char x = 0;
  std::istringstream size_text(o.size);
  if (!(size_text >> width >> x >> height) || x != 'x' || width < 64 || height < 36) {
    std::cerr << "bugcam synth: --size: expected WIDTHxHEIGHT such as 1280x720, got '" << o.size
              << "'\n";
    return kExitUsage;
  }
  if (!o.contact_sheet.empty()) {
    samples::write_contact_sheet(o.contact_sheet, o.seed, o.count, width / 2);
    std::cout << "contact sheet of seeds " << o.seed << ".."
              << o.seed + static_cast<std::uint64_t>(o.count) - 1 << " written to "
              << o.contact_sheet << "\n";
    return kExitOk;
  }
  if (o.bpgn.empty() || o.out.empty()) {
    std::cerr << "bugcam synth: needs a BPGN file and --out DIR (or --contact-sheet PNG)\n";
    return kExitUsage;
  }
  std::ifstream in(o.bpgn, std::ios::binary);
  if (!in) {
    std::cerr << "bugcam synth: " << o.bpgn << ": cannot open: " << std::strerror(errno) << "\n";
    return kExitUsage;
  }
  std::ostringstream text;
  text << in.rdbuf();
  std::vector<rules::BpgnGame> games;
  try {
    games = rules::parse_bpgn(text.str(), o.bpgn);
  } catch (const rules::ParseError& e) {
    std::cerr << "bugcam synth: " << e.where().str() << ": " << e.what() << "\n";
    return kExitBadInput;
  }
  if (o.game < 1 || o.game > static_cast<int>(games.size())) {
    std::cerr << "bugcam synth: " << o.bpgn << ": has " << games.size() << " games, no game "
              << o.game << "\n";
    return kExitUsage;
  }
  samples::SynthOptions so;
  so.seed = o.seed;
  so.max_plies = o.plies;
  so.width = width;
  so.height = height;
  so.fps = o.fps;
  so.incidents = o.incidents;
  const auto start = std::chrono::steady_clock::now();
  samples::SynthResult r;
  try {
    r = samples::synthesize(games[static_cast<std::size_t>(o.game - 1)], o.out, so);
  } catch (const samples::SynthError& e) {
    std::cerr << "bugcam synth: " << o.bpgn << ": " << e.what() << "\n";
    return kExitBadInput;
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << "rendered " << r.plies << " plies, " << r.frames << " frames (" << r.duration
            << " s of video) in " << seconds << " s to " << r.video.string() << "\n";
  return kExitOk;
}

}  // namespace

void add_synth_command(CLI::App& app, int& exit_status) {
  auto options = std::make_shared<SynthCommandOptions>();
  CLI::App* cmd = app.add_subcommand(
      "synth", "renders synthetic footage of a BPGN game with its ground truth (issue 3)");
  cmd->add_option("BPGN", options->bpgn, "the game record");
  cmd->add_option("--out", options->out, "output directory");
  cmd->add_option("--seed", options->seed, "scene variation seed (default 1)");
  cmd->add_option("--plies", options->plies, "render only the first K plies");
  cmd->add_option("--game", options->game, "which game of the file (default 1)");
  cmd->add_option("--incident", options->incidents,
                  "TYPE@PLY, e.g. premove@12 or hidden_piece@14b (repeatable)");
  cmd->add_option("--size", options->size, "frame size (default 1280x720)");
  cmd->add_option("--fps", options->fps, "frame rate (default 30)");
  cmd->add_option("--contact-sheet", options->contact_sheet,
                  "write a PNG of --count seeds from --seed instead of a clip");
  cmd->add_option("--count", options->count, "seeds on the contact sheet (default 12)");
  cmd->callback([options, &exit_status] { exit_status = run_synth(*options); });
}

}  // namespace bugcam::app
