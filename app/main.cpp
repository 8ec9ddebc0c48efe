// bugcam: records over-the-board bughouse games. This file only wires the subcommands.
#include <exception>
#include <iostream>

#include "commands.hpp"

int main(int argc, char** argv) {
  CLI::App app{"bugcam: records over-the-board bughouse games from a camera"};
  app.require_subcommand(1);
  int exit_status = bugcam::app::kExitOk;
  bugcam::app::add_perft_command(app, exit_status);
  bugcam::app::add_bpgn_commands(app, exit_status);
  bugcam::app::add_calibrate_command(app, exit_status);
  bugcam::app::add_see_command(app, exit_status);
  bugcam::app::add_eval_vision_command(app, exit_status);
  bugcam::app::add_synth_command(app, exit_status);
  bugcam::app::add_record_command(app, exit_status);
  bugcam::app::add_demo_command(app, exit_status);
  bugcam::app::add_review_command(app, exit_status);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return bugcam::app::kExitUsage;
  } catch (const std::exception& e) {
    std::cerr << "bugcam: " << e.what() << "\n";
    return bugcam::app::kExitUsage;
  }
  return exit_status;
}
