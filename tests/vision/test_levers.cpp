// Clock levers: read_clock on a drawn clock whose lever shows as a wedge (wide at the raised
// end) beside a light display, which the bright-pixel reading cannot tell from the lever;
// LeverReader reads nothing while a hand covers the clock, learns the two positions of a
// lever whose single-frame reading says the same in both, and reads a lever that lies wholly
// in one half of the clock's area, from the start, and a white lever beside a dark display on
// a pale body, on a table of nearly the lever's colour; two positions learnt stay the lever's
// when frames in mid-flip draw them together; a pale grey lever beside a pale grey display is
// read, and a wide bright part of a display is not taken for a lever.
#include <gtest/gtest.h>
#include <opencv2/imgproc.hpp>

#include "bugcam/vision.hpp"

namespace bugcam::vision {
namespace {

// A clock's area spanning x 100-220: White's half from y `top` (its outer end) to `middle`,
// Black's from there to `bottom`.
calibration::Clock clock_area(double top, double middle, double bottom) {
  calibration::Clock clock;
  clock.board = "A";
  clock.region = {{100, top}, {220, top}, {220, bottom}, {100, bottom}};
  clock.white_lever = {{100, top}, {220, top}, {220, middle}, {100, middle}};
  clock.black_lever = {{100, middle}, {220, middle}, {220, bottom}, {100, bottom}};
  return clock;
}

calibration::Clock drawn_clock() {
  return clock_area(80, 200, 320);
}

// A dark clock with a light display (different digits on each half) and a grey lever
// raised at White's end (`white_raised`) or Black's.
cv::Mat clock_picture(bool white_raised) {
  cv::Mat image(400, 320, CV_8UC3, cv::Scalar(90, 130, 170));  // table
  cv::rectangle(image, {130, 100}, {190, 300}, cv::Scalar(45, 45, 45), cv::FILLED);
  cv::rectangle(image, {152, 115}, {186, 285}, cv::Scalar(228, 232, 230), cv::FILLED);
  cv::putText(image, "3:00", {155, 170}, cv::FONT_HERSHEY_PLAIN, 1.0, cv::Scalar(60, 60, 60));
  cv::putText(image, "2:47", {155, 250}, cv::FONT_HERSHEY_PLAIN, 1.0, cv::Scalar(60, 60, 60));
  // The wedge: 10 pixels wide at the raised end, 1 at the lowered end.
  const int raised_y = white_raised ? 105 : 295;
  const int lowered_y = white_raised ? 295 : 105;
  const std::vector<cv::Point> wedge{
      {141, raised_y}, {151, raised_y}, {151, lowered_y}, {150, lowered_y}};
  cv::fillConvexPoly(image, wedge, cv::Scalar(165, 160, 160));
  return image;
}

TEST(ReadClock, TheRaisedEndOfAGreyLeverBesideALightDisplay) {
  const calibration::Clock clock = drawn_clock();
  EXPECT_EQ(read_clock(clock_picture(true), clock).lever_down, Lever::kBlack);
  EXPECT_EQ(read_clock(clock_picture(false), clock).lever_down, Lever::kWhite);
  // No clock there: nothing to read.
  const cv::Mat table(400, 320, CV_8UC3, cv::Scalar(90, 130, 170));
  EXPECT_EQ(read_clock(table, clock).lever_down, Lever::kUnknown);
}

// A dark clock with a white lever on a pale wooden table, the clock's area taking in a strip
// of table beside White's half only, as on a tilted view: the table is brighter than the
// body by far, but it is not the lever.
cv::Mat clock_on_pale_table(bool white_raised) {
  cv::Mat image(400, 320, CV_8UC3, cv::Scalar(130, 170, 190));
  cv::rectangle(image, {100, 80}, {180, 200}, cv::Scalar(45, 45, 45), cv::FILLED);
  cv::rectangle(image, {100, 200}, {220, 320}, cv::Scalar(45, 45, 45), cv::FILLED);
  const int raised_y = white_raised ? 85 : 315;
  const int lowered_y = white_raised ? 315 : 85;
  const std::vector<cv::Point> wedge{
      {141, raised_y}, {155, raised_y}, {155, lowered_y}, {154, lowered_y}};
  cv::fillConvexPoly(image, wedge, cv::Scalar(235, 235, 235));
  return image;
}

TEST(ReadClock, ATableSeenInTheClocksAreaIsNotTheLever) {
  const calibration::Clock clock = drawn_clock();
  EXPECT_EQ(read_clock(clock_on_pale_table(true), clock).lever_down, Lever::kBlack);
  EXPECT_EQ(read_clock(clock_on_pale_table(false), clock).lever_down, Lever::kWhite);
}

TEST(LeverReader, AHandOverTheClockIsNoEvidence) {
  calibration::Calibration calibration;
  calibration.clocks.push_back(drawn_clock());
  LeverReader reader(calibration);
  const cv::Mat still = clock_picture(true);
  for (int i = 0; i < 3; ++i) {
    const std::vector<ClockObservation> seen = reader.read(still);
    ASSERT_EQ(seen.size(), 1u);
    EXPECT_EQ(seen[0].lever_down, Lever::kBlack);
    EXPECT_FALSE(seen[0].touched);
  }
  // A hand over White's end, the end it presses.
  cv::Mat hand = still.clone();
  cv::ellipse(hand, {150, 120}, {45, 30}, 0, 0, 360, cv::Scalar(120, 150, 215), cv::FILLED);
  const ClockObservation covered = reader.read(hand).at(0);
  EXPECT_EQ(covered.lever_down, Lever::kUnknown);
  EXPECT_TRUE(covered.touched);
  // Gone again: read as before.
  EXPECT_EQ(reader.read(still).at(0).lever_down, Lever::kBlack);
}

// A dark clock with a yellow lever and a pale label beside the display in White's half only:
// the label's bright pixels outweigh the lever's in either position, so a single frame reads
// White's end raised whichever end is.
cv::Mat clock_with_label(bool white_raised) {
  cv::Mat image(400, 320, CV_8UC3, cv::Scalar(90, 130, 170));
  cv::rectangle(image, {130, 100}, {190, 300}, cv::Scalar(45, 45, 45), cv::FILLED);
  cv::rectangle(image, {160, 110}, {185, 190}, cv::Scalar(200, 235, 245), cv::FILLED);
  const int raised_y = white_raised ? 85 : 315;
  const int lowered_y = white_raised ? 315 : 85;
  const std::vector<cv::Point> wedge{
      {136, raised_y}, {150, raised_y}, {150, lowered_y}, {146, lowered_y}};
  cv::fillConvexPoly(image, wedge, cv::Scalar(40, 200, 230));
  return image;
}

TEST(LeverReader, LearnsBothPositionsOfALeverASingleFrameMisreads) {
  const calibration::Clock clock = drawn_clock();
  // The premise: one frame alone reads Black's side pressed in both positions.
  ASSERT_EQ(read_clock(clock_with_label(true), clock).lever_down, Lever::kBlack);
  ASSERT_EQ(read_clock(clock_with_label(false), clock).lever_down, Lever::kBlack);
  calibration::Calibration calibration;
  calibration.clocks.push_back(clock);
  LeverReader reader(calibration);
  const auto hold = [&reader](bool white_raised, int frames) {
    ClockObservation last;
    for (int i = 0; i < frames; ++i) last = reader.read(clock_with_label(white_raised)).at(0);
    return last;
  };
  EXPECT_EQ(hold(true, 40).lever_down, Lever::kBlack);
  // Pressed at White's end: once the new position has held a while, it reads as White's.
  EXPECT_EQ(hold(false, 60).lever_down, Lever::kWhite);
  // Both positions known: each reads at once.
  const ClockObservation black_down = hold(true, 1);
  EXPECT_EQ(black_down.lever_down, Lever::kBlack);
  const ClockObservation white_down = hold(false, 1);
  EXPECT_EQ(white_down.lever_down, Lever::kWhite);
  // And the lever's travel between them: at either end.
  ASSERT_TRUE(black_down.travel.has_value());
  ASSERT_TRUE(white_down.travel.has_value());
  EXPECT_LT(*black_down.travel, 0.1f);
  EXPECT_GT(*white_down.travel, 0.9f);
}

// The clock's area as a tilted view finds it: it takes in the clock's side and shadow at
// White's end, so the clock's top, and the lever's pivot, lie in Black's half (y 250-320).
calibration::Clock clock_off_its_pivot() {
  return clock_area(180, 250, 320);
}

// A dark clock with a pale display and a pale orange lever (peach in strong light: its blue
// only 50 levels below its green), pivoting at y 285; only the raised half shows, as a wedge
// wide at its end. `hand`: a small hand (mid-tone skin, neither bright nor yellow) over part of
// the raised end, too small to cover the clock.
cv::Mat clock_off_its_pivot_picture(bool white_raised, bool hand = false) {
  cv::Mat image(400, 320, CV_8UC3, cv::Scalar(150, 140, 130));
  cv::rectangle(image, {130, 252}, {190, 318}, cv::Scalar(45, 45, 45), cv::FILLED);
  cv::rectangle(image, {158, 256}, {186, 314}, cv::Scalar(228, 232, 230), cv::FILLED);
  const int raised_y = white_raised ? 254 : 316;
  const std::vector<cv::Point> wedge{{140, 285}, {140, raised_y}, {154, raised_y}};
  cv::fillConvexPoly(image, wedge, cv::Scalar(140, 190, 230));
  if (hand) {
    const int y = white_raised ? raised_y + 7 : raised_y - 7;
    cv::circle(image, {148, y}, 6, cv::Scalar(87, 122, 173), cv::FILLED);
  }
  return image;
}

TEST(LeverReader, ReadsALeverLyingInOneHalfOfTheClocksAreaFromTheStart) {
  const calibration::Clock clock = clock_off_its_pivot();
  // The premise: the whole lever shows in Black's half either way, so one frame alone reads
  // the two positions alike.
  const Lever single = read_clock(clock_off_its_pivot_picture(true), clock).lever_down;
  ASSERT_EQ(read_clock(clock_off_its_pivot_picture(false), clock).lever_down, single);
  ASSERT_NE(single, Lever::kBlack);
  calibration::Calibration calibration;
  calibration.clocks.push_back(clock);
  LeverReader reader(calibration);
  const auto hold = [&reader](bool white_raised, int frames, bool hand = false) {
    ClockObservation last;
    for (int i = 0; i < frames; ++i) {
      last = reader.read(clock_off_its_pivot_picture(white_raised, hand)).at(0);
    }
    return last;
  };
  // A game starts with Black's side down: the first position seen is that one.
  EXPECT_EQ(hold(true, 20).lever_down, Lever::kBlack);
  // Pressed at White's end: the lever shows nearer Black's end, at once and from then on.
  EXPECT_EQ(hold(false, 1).lever_down, Lever::kWhite);
  EXPECT_EQ(hold(false, 30).lever_down, Lever::kWhite);
  EXPECT_EQ(hold(true, 1).lever_down, Lever::kBlack);
  // A hand over part of the raised end moves what shows of the lever: no reading, not a press.
  EXPECT_EQ(hold(true, 1, true).lever_down, Lever::kUnknown);
  EXPECT_EQ(hold(true, 1).lever_down, Lever::kBlack);

  // A recording resumed in mid-game: the first position is not taken for the start's; once
  // both are seen, each reads by where the lever shows.
  LeverReader resumed(calibration);
  resumed.clocks_running();
  ClockObservation first;
  for (int i = 0; i < 20; ++i) first = resumed.read(clock_off_its_pivot_picture(true)).at(0);
  EXPECT_EQ(first.lever_down, single);
  ClockObservation last;
  for (int i = 0; i < 30; ++i) last = resumed.read(clock_off_its_pivot_picture(false)).at(0);
  EXPECT_EQ(last.lever_down, Lever::kWhite);
  EXPECT_EQ(resumed.read(clock_off_its_pivot_picture(true)).at(0).lever_down, Lever::kBlack);
}

// A pale pink clock on a pale grey table, its dark display covering most of the clock's area,
// and a white lever beside the display (11203's clock B): the area's median is the display's,
// so the whole body counts as bright, and the lever's white is next to the table's. A light
// label on the body in White's half only outweighs the lever in a single frame.
cv::Mat pale_clock_picture(bool white_raised) {
  cv::Mat image(400, 320, CV_8UC3, cv::Scalar(226, 228, 232));
  cv::rectangle(image, {100, 80}, {110, 320}, cv::Scalar(30, 50, 90), cv::FILLED);
  cv::rectangle(image, {110, 80}, {220, 320}, cv::Scalar(160, 170, 200), cv::FILLED);
  cv::rectangle(image, {140, 85}, {215, 315}, cv::Scalar(70, 70, 80), cv::FILLED);
  cv::rectangle(image, {112, 110}, {126, 190}, cv::Scalar(190, 200, 210), cv::FILLED);
  const int raised_y = white_raised ? 90 : 310;
  const int lowered_y = white_raised ? 310 : 90;
  const std::vector<cv::Point> wedge{
      {128, raised_y}, {139, raised_y}, {139, lowered_y}, {138, lowered_y}};
  cv::fillConvexPoly(image, wedge, cv::Scalar(248, 248, 248));
  return image;
}

TEST(LeverReader, ReadsAWhiteLeverOnAPaleClockBesideADarkDisplay) {
  calibration::Calibration calibration;
  calibration.clocks.push_back(drawn_clock());
  // The premise: one frame alone reads Black's side pressed in both positions.
  ASSERT_EQ(read_clock(pale_clock_picture(true), drawn_clock()).lever_down, Lever::kBlack);
  ASSERT_EQ(read_clock(pale_clock_picture(false), drawn_clock()).lever_down, Lever::kBlack);
  LeverReader reader(calibration);
  const auto hold = [&reader](bool white_raised, int frames) {
    ClockObservation last;
    for (int i = 0; i < frames; ++i) last = reader.read(pale_clock_picture(white_raised)).at(0);
    return last;
  };
  EXPECT_EQ(hold(true, 20).lever_down, Lever::kBlack);
  EXPECT_EQ(hold(false, 30).lever_down, Lever::kWhite);
  EXPECT_EQ(hold(true, 1).lever_down, Lever::kBlack);
  EXPECT_EQ(hold(false, 1).lever_down, Lever::kWhite);
}

// A dark clock whose lever shows as a white bar beside the display, its middle at `y`: in White's
// half in either position, so a single frame reads White's end raised in both.
cv::Mat bar_at(int y, int half_length = 15) {
  cv::Mat image(400, 320, CV_8UC3, cv::Scalar(90, 130, 170));
  cv::rectangle(image, {110, 85}, {210, 315}, cv::Scalar(45, 45, 45), cv::FILLED);
  cv::rectangle(image, {150, 95}, {200, 305}, cv::Scalar(40, 60, 70), cv::FILLED);
  cv::rectangle(image, {134, y - half_length}, {144, y + half_length}, cv::Scalar(245, 245, 245),
                cv::FILLED);
  return image;
}

TEST(LeverReader, KeepsItsTwoPositionsWhenFramesInMidFlipDrawThemTogether) {
  const calibration::Clock clock = drawn_clock();
  // Black's side down (White's end raised), White's side down 0.13 of the area lower, and a
  // lever part way, still as long as a flip's frames.
  const int black_down = 140, white_down = 171, part_way = 163;
  // The premise: one frame alone reads Black's side pressed in both positions.
  ASSERT_EQ(read_clock(bar_at(black_down), clock).lever_down, Lever::kBlack);
  ASSERT_EQ(read_clock(bar_at(white_down), clock).lever_down, Lever::kBlack);
  calibration::Calibration calibration;
  calibration.clocks.push_back(clock);
  LeverReader reader(calibration);
  const auto hold = [&reader](int y, int frames) {
    ClockObservation last;
    for (int i = 0; i < frames; ++i) last = reader.read(bar_at(y)).at(0);
    return last;
  };
  EXPECT_EQ(hold(black_down, 20).lever_down, Lever::kBlack);
  EXPECT_EQ(hold(white_down, 30).lever_down, Lever::kWhite);
  // Flips whose frames part way are learnt as White's side down.
  for (int flip = 0; flip < 8; ++flip) {
    hold(part_way, 3);
    EXPECT_EQ(hold(white_down, 3).lever_down, Lever::kWhite) << "after flip " << flip;
    EXPECT_EQ(hold(black_down, 3).lever_down, Lever::kBlack) << "after flip " << flip;
  }
}

// One position's look changes for good (10706's clock A: its lever raised at White's end showed
// half as many pixels again, further along): read unknown at first, by the pixels' count, then
// learnt again where it now shows; a change for half a second is not.
TEST(LeverReader, LearnsAgainAPositionWhoseLookChanged) {
  calibration::Calibration calibration;
  calibration.clocks.push_back(drawn_clock());
  LeverReader reader(calibration);
  const auto hold = [&reader](int y, int half_length, int frames) {
    ClockObservation last;
    for (int i = 0; i < frames; ++i) last = reader.read(bar_at(y, half_length)).at(0);
    return last;
  };
  const int black_down = 120, white_down = 200;
  EXPECT_EQ(hold(black_down, 15, 20).lever_down, Lever::kBlack);
  EXPECT_EQ(hold(white_down, 15, 30).lever_down, Lever::kWhite);
  EXPECT_EQ(hold(black_down, 15, 5).lever_down, Lever::kBlack);
  // Black's side down shows a longer bar, nearer White's end, for half a second (a hand resting
  // on the clock): not learnt.
  EXPECT_EQ(hold(black_down - 16, 22, 1).lever_down, Lever::kUnknown);
  EXPECT_EQ(hold(black_down - 16, 22, 15).lever_down, Lever::kUnknown);
  EXPECT_EQ(hold(black_down, 15, 1).lever_down, Lever::kBlack);
  // For good: learnt once held 1.5 s.
  EXPECT_EQ(hold(black_down - 16, 22, 30).lever_down, Lever::kUnknown);
  EXPECT_EQ(hold(black_down - 16, 22, 30).lever_down, Lever::kBlack);
  EXPECT_EQ(hold(white_down, 15, 1).lever_down, Lever::kWhite);
  EXPECT_EQ(hold(black_down - 16, 22, 1).lever_down, Lever::kBlack);
}

// A brown clock whose pale grey display, pink digits on it, fills much of the clock's area, its
// shadow beside it, and a pale grey lever a little brighter than the display beside it (11679's
// clock A): not yellow, nor much brighter than the area, so only the pale bar measure sees it.
// The lever's dark edge shows along the raised end. A pink label on the body in White's half
// outweighs the lever in a single frame.
cv::Mat pale_display_picture(bool white_raised) {
  cv::Mat image(400, 320, CV_8UC3, cv::Scalar(80, 110, 150));
  cv::rectangle(image, {112, 85}, {200, 315}, cv::Scalar(86, 107, 154), cv::FILLED);
  cv::rectangle(image, {200, 85}, {220, 320}, cv::Scalar(49, 49, 49), cv::FILLED);
  cv::rectangle(image, {140, 95}, {195, 305}, cv::Scalar(147, 151, 160), cv::FILLED);
  cv::putText(image, "1:57", {145, 160}, cv::FONT_HERSHEY_PLAIN, 1.2, cv::Scalar(168, 179, 212), 2);
  cv::putText(image, "1:59", {145, 260}, cv::FONT_HERSHEY_PLAIN, 1.2, cv::Scalar(168, 179, 212), 2);
  // A pink label on the body in White's half only.
  cv::rectangle(image, {114, 110}, {126, 190}, cv::Scalar(168, 179, 212), cv::FILLED);
  const int raised_y = white_raised ? 97 : 303;
  const int lowered_y = white_raised ? 303 : 97;
  const std::vector<cv::Point> wedge{
      {128, raised_y}, {139, raised_y}, {139, lowered_y}, {138, lowered_y}};
  cv::fillConvexPoly(image, wedge, cv::Scalar(178, 180, 182));
  cv::line(image, {139, raised_y}, {139, (raised_y + lowered_y) / 2}, cv::Scalar(40, 40, 40), 1);
  return image;
}

TEST(LeverReader, ReadsAPaleGreyLeverBesideAPaleGreyDisplay) {
  const calibration::Clock clock = drawn_clock();
  // The premise: one frame alone misses it in at least one position.
  const bool single_reads_both =
      read_clock(pale_display_picture(true), clock).lever_down == Lever::kBlack &&
      read_clock(pale_display_picture(false), clock).lever_down == Lever::kWhite;
  ASSERT_FALSE(single_reads_both);
  calibration::Calibration calibration;
  calibration.clocks.push_back(clock);
  LeverReader reader(calibration);
  const auto hold = [&reader](bool white_raised, int frames) {
    ClockObservation last;
    for (int i = 0; i < frames; ++i) last = reader.read(pale_display_picture(white_raised)).at(0);
    return last;
  };
  EXPECT_EQ(hold(true, 20).lever_down, Lever::kBlack);
  EXPECT_EQ(hold(false, 30).lever_down, Lever::kWhite);
  EXPECT_EQ(hold(true, 1).lever_down, Lever::kBlack);
  EXPECT_EQ(hold(false, 1).lever_down, Lever::kWhite);
}

// A dark clock with a still yellow lever, White's end raised, and a white display over a third
// of the clock's area, one half of it lit brighter than the other, in turn (`white_half_lit`):
// the brighter half is a little brighter than the area's upper quartile and grey, as a pale
// lever is, but far wider than a lever (11671's clock A).
cv::Mat white_display_picture(bool white_half_lit) {
  cv::Mat image(400, 320, CV_8UC3, cv::Scalar(80, 110, 150));
  cv::rectangle(image, {110, 85}, {210, 315}, cv::Scalar(60, 60, 60), cv::FILLED);
  const cv::Scalar lit(250, 250, 250), unlit(232, 232, 232);
  cv::rectangle(image, {145, 95}, {195, 200}, white_half_lit ? lit : unlit, cv::FILLED);
  cv::rectangle(image, {145, 200}, {195, 305}, white_half_lit ? unlit : lit, cv::FILLED);
  const std::vector<cv::Point> wedge{{128, 90}, {139, 90}, {139, 310}, {138, 310}};
  cv::fillConvexPoly(image, wedge, cv::Scalar(40, 200, 230));
  return image;
}

TEST(LeverReader, AWideBrightPartOfTheDisplayIsNotTheLever) {
  calibration::Calibration calibration;
  calibration.clocks.push_back(drawn_clock());
  LeverReader reader(calibration);
  for (int turn = 0; turn < 6; ++turn) {
    for (int i = 0; i < 30; ++i) {
      EXPECT_EQ(reader.read(white_display_picture(turn % 2 == 0)).at(0).lever_down, Lever::kBlack)
          << "turn " << turn << " frame " << i;
    }
  }
}

}  // namespace
}  // namespace bugcam::vision
