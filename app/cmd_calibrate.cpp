// bugcam calibrate SOURCE [--frame N] [--out FILE] [--preview PNG] [--board-a right] [--lens]
#include <iostream>
#include <memory>
#include <string>

#include <opencv2/core/utility.hpp>
#include <opencv2/imgcodecs.hpp>

#include "bugcam/calibration.hpp"
#include "bugcam/vision.hpp"
#include "commands.hpp"
#include "frame_source.hpp"

namespace bugcam::app {

namespace {

struct CalibrateCommandOptions {
  std::string source;
  int frame = 0;
  std::string out = "calibration.pbtxt";
  std::string preview;
  std::string board_a = "left";
  int boards = 2;
  bool lens = false;
};

int run_calibrate(const CalibrateCommandOptions& options) {
  cv::Mat frame;
  try {
    frame = read_frame(options.source, options.frame);
  } catch (const std::exception& e) {
    std::cerr << "bugcam calibrate: " << e.what() << "\n";
    return kExitUsage;
  }
  calibration::CalibrateOptions calibrate_options;
  calibrate_options.board_a_on_right = options.board_a == "right";
  calibrate_options.max_boards = options.boards;
  calibrate_options.fit_lens = options.lens;
  calibration::Calibration result;
  try {
    result = calibration::calibrate(frame, calibrate_options);
  } catch (const calibration::CalibrationError& e) {
    std::cerr << "bugcam calibrate: " << options.source << ": frame " << options.frame << ": "
              << e.what() << "\n";
    return kExitBadInput;
  }
  result.source = options.source + " frame " + std::to_string(options.frame);
  // On the start position, what the pieces and their shadows look like is learnt too, and
  // which reader reads each board's squares better.
  vision::learn_start_position(frame, result, vision::SquareModel::load_bundled().get());
  try {
    calibration::save_calibration(result, options.out);
    if (!options.preview.empty() &&
        !cv::imwrite(options.preview, calibration::draw_calibration(frame, result))) {
      std::cerr << "bugcam calibrate: " << options.preview << ": cannot write\n";
      return kExitUsage;
    }
  } catch (const calibration::CalibrationError& e) {
    std::cerr << "bugcam calibrate: " << e.what() << "\n";
    return kExitUsage;
  }
  for (const calibration::Board& board : result.boards) {
    std::cout << "board " << board.name << ":";
    for (const cv::Point2d& c : board.corners()) std::cout << " (" << c.x << ", " << c.y << ")";
    std::cout << "  inner corners " << board.inner_corners_seen << "/49, rms " << board.rms_error_px
              << " px, white edge "
              << (board.white_edge_from_pieces ? "from the pieces" : "guessed") << ", looks "
              << (board.looks.learned ? "learnt from the start position" : "not learnt") << "\n";
  }
  std::cout << "wrote " << options.out << "\n";
  return kExitOk;
}

}  // namespace

void add_calibrate_command(CLI::App& app, int& exit_status) {
  auto options = std::make_shared<CalibrateCommandOptions>();
  CLI::App* cmd = app.add_subcommand(
      "calibrate",
      "Finds both boards (lattice, A/B, White's edge), the holding areas and the clocks in one "
      "frame and writes the calibration as protobuf text.");
  cmd->add_option("source", options->source, "Image or video file")->required();
  cmd->add_option("--frame", options->frame,
                  "Frame of a video (0 = first); on the start position the pieces' looks are "
                  "learnt and each board's square reader chosen too")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--out", options->out, "Calibration file to write (calibration.pbtxt)");
  cmd->add_option("--preview", options->preview, "PNG with the calibration drawn");
  cmd->add_option("--board-a", options->board_a, "Where board A is: left (default) or right")
      ->check(CLI::IsMember({"left", "right"}));
  cmd->add_option("--boards", options->boards, "How many boards to look for (1 or 2)")
      ->check(CLI::Range(1, 2));
  cmd->add_flag("--lens", options->lens,
                "Fit the lens's radial distortion to the boards' corners too (experimental)");
  cmd->callback([options, &exit_status] {
    // The same frame gives the same calibration whatever the machine's core count.
    cv::setNumThreads(1);
    exit_status = run_calibrate(*options);
  });
}

}  // namespace bugcam::app
