// calibration.pbtxt: the calibration as protobuf text format (schema: proto/calibration.proto).
#include <cmath>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/text_format.h>

#include "bugcam/calibration.hpp"
#include "bugcam/proto/calibration.pb.h"

namespace bugcam::calibration {

namespace {

void write_polygon(const std::vector<cv::Point2d>& points, proto::Polygon* out) {
  for (const cv::Point2d& p : points) {
    proto::Point2* q = out->add_points();
    q->set_x(p.x);
    q->set_y(p.y);
  }
}

std::vector<cv::Point2d> read_polygon(const proto::Polygon& polygon) {
  std::vector<cv::Point2d> points;
  for (const proto::Point2& p : polygon.points()) points.emplace_back(p.x(), p.y());
  return points;
}

// Collects the text parser's complaints with their line and column.
class ErrorCollector : public google::protobuf::io::ErrorCollector {
 public:
  explicit ErrorCollector(std::string origin) : origin_(std::move(origin)) {}
  void AddError(int line, google::protobuf::io::ColumnNumber column,
                const std::string& message) override {
    if (first_.empty()) {
      first_ = origin_ + ":" + std::to_string(line + 1) + ":" + std::to_string(column + 1) + ": " +
               message;
    }
  }
  const std::string& first() const { return first_; }

 private:
  std::string origin_;
  std::string first_;
};

void write_colour(const cv::Vec3f& colour, google::protobuf::RepeatedField<double>* out) {
  for (int c = 0; c < 3; ++c) out->Add(static_cast<double>(colour[c]));
}

// A colour of three channels, or nullopt when the field is absent. Any other count is a
// damaged file: an error naming the file, the board and the field.
std::optional<cv::Vec3d> read_colour(const google::protobuf::RepeatedField<double>& field,
                                     const std::string& where, const char* name) {
  if (field.empty()) return std::nullopt;
  if (field.size() != 3) {
    throw CalibrationError(where + ": " + name + " needs 3 numbers, has " +
                           std::to_string(field.size()));
  }
  return cv::Vec3d(field.Get(0), field.Get(1), field.Get(2));
}

BoardLooks read_looks(const proto::BoardLooks& in, const std::string& where) {
  BoardLooks looks;
  const auto wl = read_colour(in.white_on_light(), where, "looks.white_on_light");
  const auto wd = read_colour(in.white_on_dark(), where, "looks.white_on_dark");
  const auto bl = read_colour(in.black_on_light(), where, "looks.black_on_light");
  const auto bd = read_colour(in.black_on_dark(), where, "looks.black_on_dark");
  // Learnt looks always hold all four piece colours; some without the others is damage.
  if (!wl || !wd || !bl || !bd) {
    throw CalibrationError(where + ": looks needs white_on_light, white_on_dark, " +
                           "black_on_light and black_on_dark");
  }
  looks.learned = true;
  looks.white_on_light = static_cast<cv::Vec3f>(*wl);
  looks.white_on_dark = static_cast<cv::Vec3f>(*wd);
  looks.black_on_light = static_cast<cv::Vec3f>(*bl);
  looks.black_on_dark = static_cast<cv::Vec3f>(*bd);
  looks.shadow_ratio = static_cast<cv::Vec3f>(
      read_colour(in.shadow_ratio(), where, "looks.shadow_ratio").value_or(cv::Vec3d(0, 0, 0)));
  looks.solid_share = static_cast<float>(in.solid_share());
  looks.bright_margin = static_cast<float>(in.bright_margin());
  if (in.shadow_rank_side() < -1 || in.shadow_rank_side() > 1) {
    throw CalibrationError(where + ": looks.shadow_rank_side is " +
                           std::to_string(in.shadow_rank_side()) + ", not -1, 0 or 1");
  }
  looks.shadow_rank_side = in.shadow_rank_side();
  if (in.shadow_file_side() < -1 || in.shadow_file_side() > 1) {
    throw CalibrationError(where + ": looks.shadow_file_side is " +
                           std::to_string(in.shadow_file_side()) + ", not -1, 0 or 1");
  }
  looks.shadow_file_side = in.shadow_file_side();
  for (const proto::SquareColourRatio& colour : in.square_colours()) {
    const std::string& name = colour.square();
    if (name.size() != 2 || name[0] < 'a' || name[0] > 'h' || name[1] < '1' || name[1] > '8') {
      throw CalibrationError(where + ": looks.square_colours has square \"" + name +
                             "\", not a square from a1 to h8");
    }
    const size_t sq = static_cast<size_t>((name[1] - '1') * 8 + (name[0] - 'a'));
    const std::string field = "looks.square_colours " + name + " bgr";
    const auto ratio = read_colour(colour.bgr(), where, field.c_str());
    if (!ratio) throw CalibrationError(where + ": " + field + " is missing");
    if (looks.empty_square_ratio[sq] != cv::Vec3f(0, 0, 0)) {
      throw CalibrationError(where + ": looks.square_colours has " + name + " twice");
    }
    looks.empty_square_ratio[sq] = static_cast<cv::Vec3f>(*ratio);
  }
  return looks;
}

}  // namespace

std::string to_pbtxt(const Calibration& calibration) {
  proto::Calibration message;
  message.set_image_width(calibration.image_size.width);
  message.set_image_height(calibration.image_size.height);
  message.set_source(calibration.source);
  for (const Board& board : calibration.boards) {
    proto::BoardCalibration* b = message.add_boards();
    b->set_name(board.name);
    for (int i = 0; i < 9; ++i) b->add_board_to_image(board.board_to_image.val[i]);
    for (const cv::Point2d& c : board.corners()) {
      proto::Point2* p = b->add_corners();
      p->set_x(c.x);
      p->set_y(c.y);
    }
    if (board.lens.k1 != 0.0) {
      proto::RadialLens* lens = b->mutable_lens();
      lens->set_centre_x(board.lens.centre.x);
      lens->set_centre_y(board.lens.centre.y);
      lens->set_scale(board.lens.scale);
      lens->set_k1(board.lens.k1);
    }
    b->set_inner_corners_seen(board.inner_corners_seen);
    b->set_rms_error_px(board.rms_error_px);
    b->set_white_edge_from_pieces(board.white_edge_from_pieces);
    b->set_square_reader(board.squares_by_network ? proto::SQUARE_READER_NETWORK
                                                  : proto::SQUARE_READER_HAND);
    if (board.start_misreads_hand >= 0) b->set_start_misreads_hand(board.start_misreads_hand);
    if (board.start_misreads_network >= 0) {
      b->set_start_misreads_network(board.start_misreads_network);
    }
    for (int c = 0; c < 3; ++c) {
      b->add_light_square_bgr(board.light_square_bgr[c]);
      b->add_dark_square_bgr(board.dark_square_bgr[c]);
    }
    if (board.looks.learned) {
      proto::BoardLooks* looks = b->mutable_looks();
      write_colour(board.looks.white_on_light, looks->mutable_white_on_light());
      write_colour(board.looks.white_on_dark, looks->mutable_white_on_dark());
      write_colour(board.looks.black_on_light, looks->mutable_black_on_light());
      write_colour(board.looks.black_on_dark, looks->mutable_black_on_dark());
      looks->set_solid_share(static_cast<double>(board.looks.solid_share));
      looks->set_bright_margin(static_cast<double>(board.looks.bright_margin));
      looks->set_shadow_rank_side(board.looks.shadow_rank_side);
      looks->set_shadow_file_side(board.looks.shadow_file_side);
      if (board.looks.shadow_ratio != cv::Vec3f(0, 0, 0)) {
        write_colour(board.looks.shadow_ratio, looks->mutable_shadow_ratio());
      }
      for (size_t sq = 0; sq < 64; ++sq) {
        if (board.looks.empty_square_ratio[sq] == cv::Vec3f(0, 0, 0)) continue;
        proto::SquareColourRatio* colour = looks->add_square_colours();
        colour->set_square(
            std::string{static_cast<char>('a' + sq % 8), static_cast<char>('1' + sq / 8)});
        write_colour(board.looks.empty_square_ratio[sq], colour->mutable_bgr());
      }
    }
  }
  for (const HoldingArea& area : calibration.holdings) {
    proto::HoldingArea* h = message.add_holdings();
    h->set_player(area.player);
    write_polygon(area.region, h->mutable_region());
  }
  for (const Clock& clock : calibration.clocks) {
    proto::ClockCalibration* c = message.add_clocks();
    c->set_board(clock.board);
    write_polygon(clock.region, c->mutable_region());
    write_polygon(clock.white_lever, c->mutable_white_lever());
    write_polygon(clock.black_lever, c->mutable_black_lever());
  }
  std::string text;
  google::protobuf::TextFormat::PrintToString(message, &text);
  return text;
}

Calibration from_pbtxt(const std::string& text, const std::string& origin) {
  proto::Calibration message;
  google::protobuf::TextFormat::Parser parser;
  ErrorCollector errors(origin);
  parser.RecordErrorsTo(&errors);
  if (!parser.ParseFromString(text, &message)) {
    throw CalibrationError(errors.first().empty() ? origin + ": not a calibration"
                                                  : errors.first());
  }
  Calibration calibration;
  calibration.image_size = cv::Size(message.image_width(), message.image_height());
  calibration.source = message.source();
  for (const proto::BoardCalibration& b : message.boards()) {
    if (b.board_to_image_size() != 9) {
      throw CalibrationError(origin + ": board " + b.name() +
                             ": board_to_image needs 9 numbers, has " +
                             std::to_string(b.board_to_image_size()));
    }
    Board board;
    board.name = b.name();
    for (int i = 0; i < 9; ++i) board.board_to_image.val[i] = b.board_to_image(i);
    board.inner_corners_seen = b.inner_corners_seen();
    board.rms_error_px = b.rms_error_px();
    if (b.has_lens() && b.lens().k1() != 0.0) {
      // A barrel lens below k1 = -1/3 folds back within one scale of the centre (inside the
      // frame, scale being half its diagonal); fit_lens tries -0.30 to 0.20, so a k1 of 1 or
      // more is no lens it wrote. Text format also takes inf and nan.
      const proto::RadialLens& lens = b.lens();
      if (!std::isfinite(lens.centre_x()) || !std::isfinite(lens.centre_y()) ||
          !std::isfinite(lens.scale()) || !(lens.scale() > 0.0) || !(lens.k1() > -1.0 / 3.0) ||
          !(lens.k1() < 1.0)) {
        throw CalibrationError(origin + ": board " + b.name() +
                               ": lens needs a finite centre, scale > 0 and k1 between -1/3 "
                               "and 1");
      }
      board.lens = {{lens.centre_x(), lens.centre_y()}, lens.scale(), lens.k1()};
    }
    board.white_edge_from_pieces = b.white_edge_from_pieces();
    const std::string where = origin + ": board " + b.name();
    const auto light = read_colour(b.light_square_bgr(), where, "light_square_bgr");
    const auto dark = read_colour(b.dark_square_bgr(), where, "dark_square_bgr");
    if (light.has_value() != dark.has_value()) {
      throw CalibrationError(where + ": light_square_bgr and dark_square_bgr come together");
    }
    if (light && dark) {
      board.light_square_bgr = *light;
      board.dark_square_bgr = *dark;
    }
    if (b.has_looks()) board.looks = read_looks(b.looks(), where);
    board.squares_by_network = b.square_reader() == proto::SQUARE_READER_NETWORK;
    if (b.has_start_misreads_hand()) board.start_misreads_hand = b.start_misreads_hand();
    if (b.has_start_misreads_network()) board.start_misreads_network = b.start_misreads_network();
    calibration.boards.push_back(board);
  }
  for (const proto::HoldingArea& h : message.holdings()) {
    calibration.holdings.push_back({h.player(), read_polygon(h.region())});
  }
  for (const proto::ClockCalibration& c : message.clocks()) {
    calibration.clocks.push_back({c.board(), read_polygon(c.region()),
                                  read_polygon(c.white_lever()), read_polygon(c.black_lever())});
  }
  if (calibration.boards.empty()) throw CalibrationError(origin + ": no board in calibration");
  return calibration;
}

void save_calibration(const Calibration& calibration, const std::string& path) {
  std::ofstream out(path);
  out << to_pbtxt(calibration);
  if (!out) throw CalibrationError(path + ": cannot write");
}

Calibration load_calibration(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw CalibrationError(path + ": cannot read");
  std::stringstream text;
  text << in.rdbuf();
  return from_pbtxt(text.str(), path);
}

}  // namespace bugcam::calibration
