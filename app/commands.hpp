// The subcommands of the bugcam command line. Each adder registers one subcommand (or a
// group) on the top-level app; the callback stores the exit status in `exit_status`.
#pragma once

#include <CLI/CLI.hpp>

namespace bugcam::app {

// Exit statuses of SPEC.md section 2.
inline constexpr int kExitOk = 0;
inline constexpr int kExitBadInput = 1;
inline constexpr int kExitUsage = 2;

void add_perft_command(CLI::App& app, int& exit_status);
void add_bpgn_commands(CLI::App& app, int& exit_status);
void add_calibrate_command(CLI::App& app, int& exit_status);
void add_see_command(CLI::App& app, int& exit_status);
void add_eval_vision_command(CLI::App& app, int& exit_status);
void add_synth_command(CLI::App& app, int& exit_status);
void add_record_command(CLI::App& app, int& exit_status);
void add_demo_command(CLI::App& app, int& exit_status);
void add_review_command(CLI::App& app, int& exit_status);

}  // namespace bugcam::app
