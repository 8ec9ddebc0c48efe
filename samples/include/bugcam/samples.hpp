// Synthetic footage of over-the-board bughouse with exact ground truth (issue 3): a game
// rendered as camera video of two boards, four holding areas, two clocks and the players'
// hands, with the clock log, the true game record and per-frame truth beside it.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <opencv2/core.hpp>

#include "bugcam/rules.hpp"

namespace bugcam::samples {

struct SynthOptions {
  std::uint64_t seed = 1;
  int max_plies = -1;  // -1: the whole game
  int width = 1280;
  int height = 720;
  double fps = 30;
  // "TYPE@PLY": TYPE an incidents.json type (SPEC section 6), PLY a 1-based ply number in the
  // order played or a BPGN move name such as "14b" or "3A".
  std::vector<std::string> incidents;
  // Straight down, no lens distortion, noise or blur: for tests that check geometry.
  bool plain_camera = false;
  // Also write truth_ids.png, the ID pass of the first frame (see truth.json "id_encoding").
  bool write_id_frame = false;
};

struct SynthResult {
  int frames = 0;
  double duration = 0;  // seconds of video
  int plies = 0;        // plies shown
  std::filesystem::path video;
};

// Thrown for bad options (unknown incident type, ply out of range, an incident that does not
// fit its ply); the message says which.
class SynthError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Renders `game` into out_dir: video.mp4 (H.264; video.avi with MJPG where no H.264 encoder
// is available), clocks.jsonl, truth.bpgn, truth.json and first_frame.png.
SynthResult synthesize(const rules::BpgnGame& game, const std::filesystem::path& out_dir,
                       const SynthOptions& options);

// Where an incident of `type` (an incidents.json type) can be staged among the first
// `max_plies` plies of `game` (-1: all): the ply nearest `near_ply` (1-based) that fits it
// (hidden_piece and capture_not_passed need a capture, premove an earlier move on the board,
// position_disturbed a piece beside the moved one, illegal_move a square the piece may not
// go to), as "TYPE@PLY" for SynthOptions::incidents; nullopt if no ply fits.
std::optional<std::string> fitting_incident(const rules::BpgnGame& game, int max_plies,
                                            const std::string& type, int near_ply);

// One still per seed, of the start position with a hand reaching in, tiled into one PNG.
void write_contact_sheet(const std::filesystem::path& png, std::uint64_t first_seed, int count,
                         int tile_width);

// A still of both boards in a random position with random holdings, for training and testing
// piece-type recognition: the image and, from the renderer, where everything is and what it is.
struct TrainingStill {
  cv::Mat image;  // BGR, after lens blur, distortion and noise
  double tilt_degrees = 0;
  // Per board (A, B): the 9 x 9 lattice of square corners on the squares' top in image pixels,
  // index rank_line * 9 + file_line (the outer corner of a1 first).
  std::array<std::vector<cv::Point2d>, 2> lattice;
  // Per board: piece letter per square (a1 = 0), 'P'..'K' white, 'p'..'k' black, '.' empty.
  std::array<std::array<char, 64>, 2> squares{};
  // Per player (A:white, A:black, B:white, B:black): the holding area's outline on the table
  // and the pieces lying there.
  struct HoldingPiece {
    char letter = 'P';  // upper case for white
    cv::Point2d base;   // image pixel of the base centre (of the body's middle if lying)
    cv::Point2d top;    // image pixel of the top (standing) or far end (lying)
    bool lying = false;
  };
  std::array<std::vector<cv::Point2d>, 4> holding_regions;
  std::array<std::vector<HoldingPiece>, 4> holdings;
  // Per board (A, B): image pixels of White's and Black's end of the clock's lever, on the
  // clock's top (as truth.json's clock "white_end" and "black_end").
  std::array<std::array<cv::Point2d, 2>, 2> clock_ends{};
};

// Renders one still for `seed` (which picks the look: boards, pieces, camera, light) and
// `variant` (which picks the position, holdings and noise). Some holding pieces touch or lie
// on their side. Deterministic.
TrainingStill render_training_still(std::uint64_t seed, std::uint64_t variant, int width,
                                    int height);
// The same look (`seed`) with both boards in the start position, empty holding areas and no
// hands, as a game begins: the frame a recording calibrates on and learns the pieces' looks
// from. `variant` picks the noise.
TrainingStill render_start_still(std::uint64_t seed, std::uint64_t variant, int width, int height);
// The same start position with one player's hand held over a point of a board, the arm coming
// from the player's seat: over the own board, or over the partner's as in
// partner_board_touched. Boards 0 (A) and 1 (B); colours 0 (White) and 1 (Black); the point in
// the board's squares, a1's outer corner (0, 0), h8's (8, 8).
TrainingStill render_reach_still(std::uint64_t seed, std::uint64_t variant, int width, int height,
                                 int player_board, int player_colour, int over_board, double file_x,
                                 double rank_y);
// One player's hand held over a point of a board, as render_reach_still takes it.
struct Reach {
  int player_board = 0;
  int player_colour = 0;
  int over_board = 0;
  double file_x = 4.0;
  double rank_y = 4.0;
};
// The start position with several players' hands held over the boards at once (a player
// reaching over the partner's board while its players move).
TrainingStill render_reaches_still(std::uint64_t seed, std::uint64_t variant, int width, int height,
                                   const std::vector<Reach>& reaches);

// One seven-segment digit (0-9) filling `cell`, its strokes a sixth of the cell's width, as the
// rendered clocks' displays show them.
void draw_clock_digit(cv::Mat& image, int digit, cv::Rect cell, const cv::Scalar& ink);

// The bundled sample clip's directory (samples/clip in the source tree).
std::filesystem::path bundled_sample_dir();

}  // namespace bugcam::samples
