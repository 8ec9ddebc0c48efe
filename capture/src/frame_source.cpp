// Frame sources: video files, directories of numbered images, cameras.
#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cmath>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/videoio.hpp>

#include "bugcam/capture.hpp"

namespace bugcam::capture {
namespace {

// A video file; times come from the frame count, not the container's timestamps, so that
// the same file always gives the same times.
class VideoFileSource final : public FrameSource {
 public:
  explicit VideoFileSource(std::string path) : path_(std::move(path)) {
    if (!std::filesystem::exists(path_)) throw CaptureError(path_ + ": no such file");
    if (!capture_.open(path_, cv::CAP_ANY) || !capture_.isOpened()) {
      throw CaptureError(path_ + ": cannot open as a video");
    }
    fps_ = capture_.get(cv::CAP_PROP_FPS);
    if (!(fps_ > 0.0) || !std::isfinite(fps_)) {
      throw CaptureError(path_ + ": the video does not say its frame rate");
    }
  }
  std::optional<Frame> next() override {
    Frame frame;
    const std::optional<std::size_t> pooled = take_free_buffer(frame.image);
    if (!capture_.read(frame.image) || frame.image.empty()) return std::nullopt;
    if (pooled) {
      // A frame of another size or type was decoded into a buffer of its own: it replaces the
      // pool's, which would not serve again.
      if (buffers_[*pooled].data != frame.image.data) buffers_[*pooled] = frame.image;
    } else if (buffers_.size() < kPooledBuffers) {
      buffers_.push_back(frame.image);
    }
    frame.index = index_++;
    frame.t = frame.index / fps_;
    return frame;
  }
  double fps() const override { return fps_; }
  void seek(double t) override {
    // Decoding forward is slower than CAP_PROP_POS_FRAMES but exact for every codec.
    while (index_ / fps_ < t - 1e-9) {
      if (!capture_.grab()) return;
      ++index_;
    }
  }
  const std::string& name() const override { return path_; }

 private:
  // Frames are decoded into buffers used again once every frame that shared one is gone: a
  // fresh buffer each frame costs its page faults (a quarter of a recording's time under
  // AddressSanitizer, whose allocator maps each large block anew). A buffer only the pool
  // holds (reference count 1) has no other user left, and none can come. OpenCV changes the
  // count with atomic read-modify-writes (acquire-release), so this acquire load orders the
  // last user's reads before the decoder's writes. Puts a free one in `into`; its place.
  std::optional<std::size_t> take_free_buffer(cv::Mat& into) {
    for (std::size_t i = 0; i < buffers_.size(); ++i) {
      const cv::Mat& buffer = buffers_[i];
      if (buffer.u != nullptr &&
          std::atomic_ref<int>(buffer.u->refcount).load(std::memory_order_acquire) == 1) {
        into = buffer;
        return i;
      }
    }
    return std::nullopt;
  }
  // As many as a recording has frames in flight (its two read-ahead queues of 12 and the frame
  // each stage is on), and no more: the pool keeps them for the source's life (90 MB at 720p).
  static constexpr std::size_t kPooledBuffers = 32;
  std::vector<cv::Mat> buffers_;

  std::string path_;
  cv::VideoCapture capture_;
  double fps_ = 0.0;
  int index_ = 0;
};

// The last run of digits in a file name, e.g. 12 for "frame_0012.png".
std::optional<long long> number_in_name(const std::string& stem) {
  const auto last_digit = stem.find_last_of("0123456789");
  if (last_digit == std::string::npos) return std::nullopt;
  auto first_digit = stem.find_last_not_of("0123456789", last_digit);
  first_digit = first_digit == std::string::npos ? 0 : first_digit + 1;
  long long value = 0;
  const char* begin = stem.data() + first_digit;
  const char* end = stem.data() + last_digit + 1;
  if (std::from_chars(begin, end, value).ec != std::errc()) return std::nullopt;
  return value;
}

class ImageDirectorySource final : public FrameSource {
 public:
  ImageDirectorySource(std::string path, double fps) : path_(std::move(path)), fps_(fps) {
    if (!(fps_ > 0.0)) throw CaptureError(path_ + ": frame rate must be positive");
    std::vector<std::pair<long long, std::filesystem::path>> numbered;
    for (const auto& entry : std::filesystem::directory_iterator(path_)) {
      if (!entry.is_regular_file()) continue;
      std::string extension = entry.path().extension().string();
      std::transform(extension.begin(), extension.end(), extension.begin(),
                     [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      if (extension != ".png" && extension != ".jpg" && extension != ".jpeg" &&
          extension != ".bmp" && extension != ".tif" && extension != ".tiff") {
        continue;
      }
      if (auto number = number_in_name(entry.path().stem().string())) {
        numbered.emplace_back(*number, entry.path());
      }
    }
    if (numbered.empty()) throw CaptureError(path_ + ": no numbered images in the directory");
    std::sort(numbered.begin(), numbered.end());
    for (auto& [number, file] : numbered) files_.push_back(std::move(file));
  }
  std::optional<Frame> next() override {
    if (index_ >= files_.size()) return std::nullopt;
    const std::filesystem::path& file = files_[index_];
    Frame frame;
    frame.image = cv::imread(file.string(), cv::IMREAD_COLOR);
    if (frame.image.empty()) {
      throw CaptureError(file.string() + ": cannot read the image (frame " +
                         std::to_string(index_) + ")");
    }
    frame.index = static_cast<int>(index_++);
    frame.t = frame.index / fps_;
    return frame;
  }
  double fps() const override { return fps_; }
  void seek(double t) override {
    while (index_ < files_.size() && static_cast<double>(index_) / fps_ < t - 1e-9) ++index_;
  }
  const std::string& name() const override { return path_; }

 private:
  std::string path_;
  double fps_;
  std::vector<std::filesystem::path> files_;
  std::size_t index_ = 0;
};

// A live camera; times are seconds since it was opened.
class CameraSource final : public FrameSource {
 public:
  CameraSource(std::string name, int device) : name_(std::move(name)) {
    // V4L2 directly: probing every backend (GStreamer, FireWire) is slow and leaks.
    if (!capture_.open(device, cv::CAP_V4L2) || !capture_.isOpened()) {
      throw CaptureError(name_ + ": cannot open the camera");
    }
    fps_ = capture_.get(cv::CAP_PROP_FPS);
    if (!std::isfinite(fps_) || fps_ < 0.0) fps_ = 0.0;
    opened_ = std::chrono::steady_clock::now();
  }
  std::optional<Frame> next() override {
    Frame frame;
    if (!capture_.read(frame.image) || frame.image.empty()) {
      throw CaptureError(name_ + ": the camera stopped delivering frames (after frame " +
                         std::to_string(index_) + ")");
    }
    frame.index = index_++;
    frame.t = std::chrono::duration<double>(std::chrono::steady_clock::now() - opened_).count();
    return frame;
  }
  double fps() const override { return fps_; }
  void seek(double) override {}  // a live source is always at "now"
  const std::string& name() const override { return name_; }

 private:
  std::string name_;
  cv::VideoCapture capture_;
  double fps_ = 0.0;
  int index_ = 0;
  std::chrono::steady_clock::time_point opened_;
};

std::optional<int> camera_device(std::string_view source) {
  std::string_view digits;
  if (source.starts_with("camera:")) {
    digits = source.substr(7);
  } else if (source.starts_with("/dev/video")) {
    digits = source.substr(10);
  } else {
    return std::nullopt;
  }
  int device = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), device);
  if (error != std::errc() || end != digits.data() + digits.size() || device < 0) {
    return std::nullopt;
  }
  return device;
}

}  // namespace

bool is_camera(std::string_view source) {
  return camera_device(source).has_value();
}

std::unique_ptr<FrameSource> open_frame_source(const std::string& source, double image_fps) {
  if (const std::optional<int> device = camera_device(source)) {
    return std::make_unique<CameraSource>(source, *device);
  }
  std::error_code error;
  if (std::filesystem::is_directory(source, error)) {
    return std::make_unique<ImageDirectorySource>(source, image_fps);
  }
  return std::make_unique<VideoFileSource>(source);
}

}  // namespace bugcam::capture
