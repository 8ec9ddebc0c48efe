// Offscreen OpenGL 3.3 rendering through Mesa's OSMesa (llvmpipe): no display, no GPU.
// One directional light with a shadow map, ambient light, per-draw colours for the material
// slots, procedural wood grain, a textured mode for clock displays, and an ID pass that
// writes each draw's object ID instead of a colour (for masks and ground truth).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include <opencv2/core.hpp>

#include "math.hpp"
#include "mesh.hpp"

namespace bugcam::samples {

// How a surface is coloured beyond its slot colours.
enum class Surface : std::uint8_t {
  kPlain = 0,
  kWood = 1,     // grain along `grain_direction`
  kCloth = 2,    // fine fibre noise (felt, table cloth)
  kTextured = 3  // the draw's texture over the mesh's local x-y extent
};

struct DrawItem {
  int mesh = -1;
  Mat4 model;
  std::array<Vec3, 3> slot_colors{};  // indexed by Slot, linear RGB in [0, 1]
  float specular = 0.2f;
  float shininess = 30.0f;
  Surface surface = Surface::kPlain;
  Vec3 grain_direction{1, 0, 0};
  float grain_scale = 1.0f;
  int texture = -1;
  Vec2 texture_half_extent{1, 1};  // local x-y half size the texture spans
  std::uint32_t id = 0;            // 24-bit object ID for the ID pass; 0 = nothing
  bool casts_shadow = true;
};

struct Lighting {
  Vec3 direction{0, 0, 1};  // towards the light
  Vec3 color{1, 1, 1};
  Vec3 ambient{0.3f, 0.3f, 0.3f};
  Vec3 scene_center{0, 0, 0};
  float scene_radius = 100;  // what the shadow map must cover
};

struct ViewProjection {
  Mat4 view;
  Mat4 projection;
  Vec3 eye;
};

class Renderer {
 public:
  Renderer(int width, int height, int shadow_map_size = 1024);
  ~Renderer();
  Renderer(const Renderer&) = delete;
  Renderer& operator=(const Renderer&) = delete;

  int width() const { return width_; }
  int height() const { return height_; }

  int add_mesh(const Mesh& mesh);
  // An RGB texture of the given size; update it with RGB bytes, rows from the bottom.
  int add_texture(int width, int height);
  void update_texture(int texture, const std::uint8_t* rgb);

  // Colour image, 8-bit BGR, top row first.
  cv::Mat render_color(const std::vector<DrawItem>& items, const ViewProjection& camera,
                       const Lighting& lighting);
  // The static part of the scene (everything that does not move for a while), rendered once
  // with its shadows and kept; render_frame() then draws the moving objects over it.
  void set_static_scene(const std::vector<DrawItem>& items, const ViewProjection& camera,
                        const Lighting& lighting);
  // The kept static scene plus `moving` objects, whose shadows fall on the plane
  // z = receiver_height. Colour image, 8-bit BGR, top row first.
  cv::Mat render_frame(const std::vector<DrawItem>& moving, float receiver_height);
  // The same into `bgr`, whose buffer is reused when it has the frame's size and type (it must
  // not be shared with a picture kept elsewhere).
  void render_frame(const std::vector<DrawItem>& moving, float receiver_height, cv::Mat& bgr);
  // Object IDs (CV_32S), top row first, at `scale` times the renderer's size.
  cv::Mat render_ids(const std::vector<DrawItem>& items, const ViewProjection& camera,
                     float scale = 1.0f);
  // The same into `ids`, reused as `bgr` is above.
  void render_ids(const std::vector<DrawItem>& items, const ViewProjection& camera, float scale,
                  cv::Mat& ids);

 private:
  void draw_lit(const std::vector<DrawItem>& items);
  struct State;
  std::unique_ptr<State> state_;
  int width_;
  int height_;
};

}  // namespace bugcam::samples
