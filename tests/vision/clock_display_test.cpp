// Clock displays: read_clock_display on a drawn LED display (red seven-segment digits, drawn as
// the renderer draws them, on a dark face) whose face is seen shifted along the clock, so that
// one time's digit lies past the middle of the clock's area, on a time whose minutes digit
// stands far from its colon, and on one whose colon touches its minutes digit.
#include <gtest/gtest.h>
#include <opencv2/imgproc.hpp>

#include <optional>
#include <string>

#include "bugcam/samples.hpp"
#include "bugcam/vision.hpp"

namespace bugcam::vision {
namespace {

// The clock's area: White's end at x 100, Black's at x 384, y 100-260. The reader lengthens it
// by 0.12 of its length at each end and reads it at 352 x 160 pixels, so that an x in the
// picture is about kAreaLeft more than its x in the area read.
constexpr int kAreaLeft = 66;

calibration::Clock display_clock() {
  calibration::Clock clock;
  clock.board = "A";
  clock.region = {{100, 100}, {100, 260}, {384, 260}, {384, 100}};
  clock.white_lever = {{100, 100}, {100, 260}, {242, 260}, {242, 100}};
  clock.black_lever = {{242, 100}, {242, 260}, {384, 260}, {384, 100}};
  return clock;
}

constexpr int kDigitWidth = 24, kDigitHeight = 44, kDigitsTop = 158;
const cv::Scalar kInk(40, 60, 255);  // BGR: red

void draw_digit(cv::Mat& picture, int digit, int x) {
  samples::draw_clock_digit(picture, digit, cv::Rect(x, kDigitsTop, kDigitWidth, kDigitHeight),
                            kInk);
}

// A time M:SS drawn from `x` (picture pixels): the minutes digit `minutes_gap` pixels before
// the colon's place, the colon, the seconds.
void draw_time(cv::Mat& picture, int seconds, int x, int minutes_gap = 6) {
  draw_digit(picture, seconds / 60, x);
  const int colon = x + kDigitWidth + minutes_gap;
  cv::rectangle(picture, cv::Rect(colon, kDigitsTop + 10, 4, 4), kInk, cv::FILLED);
  cv::rectangle(picture, cv::Rect(colon, kDigitsTop + 30, 4, 4), kInk, cv::FILLED);
  draw_digit(picture, seconds % 60 / 10, colon + 10);
  draw_digit(picture, seconds % 10, colon + 10 + kDigitWidth + 6);
}

// A wooden table, the clock's dark body and its black display face from `face_left` to
// `face_right` (picture x).
cv::Mat clock_with_face(int face_left, int face_right) {
  cv::Mat picture(360, 480, CV_8UC3, cv::Scalar(70, 110, 160));
  cv::rectangle(picture, cv::Rect(80, 110, 330, 140), cv::Scalar(40, 45, 50), cv::FILLED);
  cv::rectangle(picture, cv::Rect(face_left, 145, face_right - face_left, 70),
                cv::Scalar(12, 12, 20), cv::FILLED);
  return picture;
}

std::string shown(const ClockDisplay& display) {
  std::string out;
  for (const std::optional<int>& seconds : display.seconds) {
    out += seconds ? std::to_string(*seconds) : std::string("-");
    out += ' ';
  }
  return out;
}

// The face seen shifted towards White's end by 45 pixels: Black's minutes digit, a one (its
// right strokes only), lies left of the area's middle. Parted at the middle, White's digits
// and that one read no time, nor Black's two seconds digits.
TEST(ClockDisplay, AFaceSeenShiftedAlongTheClockIsReadWhereItsTimesPart) {
  const int white_x = kAreaLeft + 19, black_x = kAreaLeft + 149;
  cv::Mat picture = clock_with_face(white_x - 12, black_x + 110);
  draw_time(picture, 102, white_x);  // 1:42
  draw_time(picture, 103, black_x);  // 1:43
  cv::GaussianBlur(picture, picture, cv::Size(3, 3), 0);
  const ClockDisplay display = read_clock_display(picture, display_clock());
  EXPECT_EQ(display.seconds[0], 102) << shown(display);
  EXPECT_EQ(display.seconds[1], 103) << shown(display);
  // Centred, it reads the same.
  cv::Mat centred = clock_with_face(white_x + 33, black_x + 155);
  draw_time(centred, 102, white_x + 45);
  draw_time(centred, 103, black_x + 45);
  cv::GaussianBlur(centred, centred, cv::Size(3, 3), 0);
  const ClockDisplay read_centred = read_clock_display(centred, display_clock());
  EXPECT_EQ(read_centred.seconds[0], 102) << shown(read_centred);
  EXPECT_EQ(read_centred.seconds[1], 103) << shown(read_centred);
}

// White's minutes digit stands three digits' widths before its colon: some digit between was
// missed (11544: a one lost, and the other time's last digit taken for the minutes). The time
// is not read; Black's is.
TEST(ClockDisplay, AMinutesDigitFarFromItsColonReadsNoTime) {
  const int white_x = kAreaLeft + 20, black_x = kAreaLeft + 200;
  cv::Mat picture = clock_with_face(white_x - 12, black_x + 110);
  draw_time(picture, 355, white_x, 3 * kDigitWidth);  // 5   :55
  draw_time(picture, 119, black_x);                   // 1:59
  cv::GaussianBlur(picture, picture, cv::Size(3, 3), 0);
  const ClockDisplay display = read_clock_display(picture, display_clock());
  EXPECT_FALSE(display.seconds[0].has_value()) << shown(display);
  EXPECT_EQ(display.seconds[1], 119) << shown(display);
  // Drawn close, it reads.
  cv::Mat close = clock_with_face(white_x - 12, black_x + 110);
  draw_time(close, 355, white_x + 3 * kDigitWidth - 6);
  draw_time(close, 119, black_x);
  cv::GaussianBlur(close, close, cv::Size(3, 3), 0);
  EXPECT_EQ(read_clock_display(close, display_clock()).seconds[0], 355);
}

// Black's colon drawn against its minutes digit, the dots touching the zero (11681's Black
// 0:30, unread all game): the zero's box takes in the dots, and its strokes must still be read
// where a zero's are.
TEST(ClockDisplay, ColonDotsTouchingTheMinutesDigitAreNotPartOfIt) {
  const int white_x = kAreaLeft + 20, black_x = kAreaLeft + 160;
  cv::Mat picture = clock_with_face(white_x - 12, black_x + 110);
  draw_time(picture, 180, white_x);    // 3:00
  draw_time(picture, 30, black_x, 0);  // 0:30, the dots against the zero
  cv::GaussianBlur(picture, picture, cv::Size(3, 3), 0);
  const ClockDisplay display = read_clock_display(picture, display_clock());
  EXPECT_EQ(display.seconds[0], 180) << shown(display);
  EXPECT_EQ(display.seconds[1], 30) << shown(display);
}

}  // namespace
}  // namespace bugcam::vision
