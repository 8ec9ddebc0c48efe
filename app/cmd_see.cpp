// bugcam see SOURCE [--frame N] [--calibration FILE] [--json] [--preview PNG]
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

struct SeeOptions {
  std::string source;
  int frame = 0;
  std::string calibration;
  bool json = false;
  std::string preview;
  int boards = 2;
};

int run_see(const SeeOptions& options) {
  cv::Mat frame;
  try {
    frame = read_frame(options.source, options.frame);
  } catch (const std::exception& e) {
    std::cerr << "bugcam see: " << e.what() << "\n";
    return kExitUsage;
  }
  calibration::Calibration calibration;
  try {
    if (options.calibration.empty()) {
      calibration::CalibrateOptions calibrate_options;
      calibrate_options.max_boards = options.boards;
      calibration = calibration::calibrate(frame, calibrate_options);
      vision::learn_start_position(frame, calibration, vision::SquareModel::load_bundled().get());
    } else {
      calibration = calibration::load_calibration(options.calibration);
    }
  } catch (const calibration::CalibrationError& e) {
    std::cerr << "bugcam see: "
              << (options.calibration.empty()
                      ? options.source + ": frame " + std::to_string(options.frame) + ": "
                      : std::string())
              << e.what() << "\n";
    return options.calibration.empty() ? kExitBadInput : kExitUsage;
  }
  const vision::FrameReader reader(calibration);
  const vision::FrameObservation observation = reader.read(frame);
  if (options.json) {
    std::cout << vision::to_json(observation) << "\n";
  } else {
    std::cout << vision::to_text(observation);
  }
  if (!options.preview.empty() &&
      !cv::imwrite(options.preview, vision::draw_observation(frame, observation, calibration))) {
    std::cerr << "bugcam see: " << options.preview << ": cannot write\n";
    return kExitUsage;
  }
  return kExitOk;
}

}  // namespace

void add_see_command(CLI::App& app, int& exit_status) {
  auto options = std::make_shared<SeeOptions>();
  CLI::App* cmd = app.add_subcommand(
      "see",
      "Shows what the vision sees in one frame or photo: boards, squares (. empty, w white, "
      "b black, ? covered or unsure), holdings, clock levers.");
  cmd->add_option("source", options->source, "Image or video file")->required();
  cmd->add_option("--frame", options->frame, "Frame of a video (0 = first)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--calibration", options->calibration,
                  "calibration.pbtxt to use (default: calibrate on this frame)");
  cmd->add_flag("--json", options->json, "Print one JSON object (SPEC section 7)");
  cmd->add_option("--preview", options->preview, "PNG with what was seen drawn");
  cmd->add_option("--boards", options->boards,
                  "Without --calibration: how many boards to look for (1 or 2)")
      ->check(CLI::Range(1, 2));
  cmd->callback([options, &exit_status] {
    // Deterministic and bounded: the per-frame path does not depend on OpenCV's threads.
    cv::setNumThreads(1);
    exit_status = run_see(*options);
  });
}

}  // namespace bugcam::app
