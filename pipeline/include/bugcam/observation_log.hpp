// The tracker's inputs of one recording, as they were given (clock events, board and holding
// observations, and the piece-type answers vision gave when the tracker asked), written to a
// binary file so that the tracker can be run again on them without video or vision:
// `record_eval --save-observations` writes one per clip, `bench/tracker_replay` reads them.
// A tuning aid; the format is this build's own (native byte order, no versioning).
#pragma once

#include <array>
#include <filesystem>
#include <fstream>
#include <optional>
#include <variant>
#include <vector>

#include "bugcam/tracker.hpp"

namespace bugcam::pipeline {

// What vision answered when the tracker asked for a piece's type.
struct PieceTypeAnswer {
  rules::BoardId board = rules::BoardId::kA;
  rules::Square square = 0;
  int frame = 0;
  std::optional<tracker::PieceTypeScores> types;
};

using LoggedInput = std::variant<capture::ClockEvent, tracker::BoardObservation,
                                 tracker::HoldingsObservation, PieceTypeAnswer>;

class ObservationLogWriter {
 public:
  // Throws std::runtime_error naming the file when it cannot be created.
  explicit ObservationLogWriter(const std::filesystem::path& file);
  void write(const LoggedInput& input);

 private:
  std::ofstream out_;
};

// Reads a whole log. Throws std::runtime_error naming the file when it cannot be read or is
// cut short.
std::vector<LoggedInput> read_observation_log(const std::filesystem::path& file);

}  // namespace bugcam::pipeline
