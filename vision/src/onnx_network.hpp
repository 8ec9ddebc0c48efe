// Loading the bundled ONNX networks (square network, piece types) with cv::dnn.
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <opencv2/dnn.hpp>

namespace bugcam::vision {

// Reads `file` for OpenCV's own backend on the CPU (the same arithmetic on every machine).
// Throws std::runtime_error naming the file when it is missing, unreadable, or has no layers;
// `what` names the network in that message ("a square network").
inline cv::dnn::Net read_onnx_network(const std::filesystem::path& file, const std::string& what) {
  if (!std::filesystem::is_regular_file(file)) {
    throw std::runtime_error(file.string() + ": no such file");
  }
  cv::dnn::Net net;
  try {
    net = cv::dnn::readNetFromONNX(file.string());
  } catch (const cv::Exception& e) {
    throw std::runtime_error(file.string() + ": cannot read the network: " + e.what());
  }
  if (net.empty()) throw std::runtime_error(file.string() + ": not " + what + " (no layers)");
  net.setPreferableBackend(cv::dnn::DNN_BACKEND_OPENCV);
  net.setPreferableTarget(cv::dnn::DNN_TARGET_CPU);
  return net;
}

// The network's layers in order, each with its name.
inline std::vector<std::pair<std::string, cv::Ptr<cv::dnn::Layer>>> network_layers(
    cv::dnn::Net& net) {
  std::vector<std::pair<std::string, cv::Ptr<cv::dnn::Layer>>> layers;
  for (const std::string& name : net.getLayerNames()) {
    layers.emplace_back(name, net.getLayer(net.getLayerId(name)));
  }
  return layers;
}

}  // namespace bugcam::vision
