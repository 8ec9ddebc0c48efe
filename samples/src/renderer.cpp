#include "renderer.hpp"

#define GL_GLEXT_PROTOTYPES 1
#include <GL/gl.h>
#include <GL/glext.h>
#include <GL/osmesa.h>

#include <cmath>
#include <stdexcept>
#include <string>

#include <opencv2/imgproc.hpp>

namespace bugcam::samples {

namespace {

const char* const kSceneVertex = R"(#version 330 core
layout(location = 0) in vec3 a_position;
layout(location = 1) in vec3 a_normal;
layout(location = 2) in float a_slot;
uniform mat4 u_model;
uniform mat3 u_normal_matrix;
uniform mat4 u_view_projection;
uniform mat4 u_light_matrix;
out vec3 v_world;
out vec3 v_local;
out vec3 v_normal;
out float v_slot;
out vec4 v_light;
void main() {
  vec4 world = u_model * vec4(a_position, 1.0);
  v_world = world.xyz;
  v_local = a_position;
  v_normal = u_normal_matrix * a_normal;
  v_slot = a_slot;
  v_light = u_light_matrix * world;
  gl_Position = u_view_projection * world;
}
)";

const char* const kSceneFragment = R"(#version 330 core
in vec3 v_world;
in vec3 v_local;
in vec3 v_normal;
in float v_slot;
in vec4 v_light;
uniform vec3 u_colors[3];
uniform vec3 u_light_dir;
uniform vec3 u_light_color;
uniform vec3 u_ambient;
uniform vec3 u_eye;
uniform float u_specular;
uniform float u_shininess;
uniform int u_surface;
uniform vec3 u_grain_dir;
uniform float u_grain_scale;
uniform vec2 u_tex_half;
uniform sampler2DShadow u_shadow;
uniform sampler2D u_texture;
uniform float u_shadow_texel;
out vec4 frag;

float hash(vec2 p) { return fract(sin(dot(p, vec2(127.1, 311.7))) * 43758.5453); }
float noise(vec2 p) {
  vec2 i = floor(p), f = fract(p);
  vec2 u = f * f * (3.0 - 2.0 * f);
  return mix(mix(hash(i), hash(i + vec2(1, 0)), u.x), mix(hash(i + vec2(0, 1)), hash(i + vec2(1, 1)), u.x), u.y);
}

void main() {
  vec3 base = u_colors[int(v_slot + 0.5)];
  if (u_surface == 1) {
    vec2 along = vec2(dot(v_world, u_grain_dir), dot(v_world, cross(vec3(0, 0, 1), u_grain_dir)));
    float g = noise(vec2(along.x * 0.08, along.y * 1.7) * u_grain_scale);
    float rings = fract(along.y * 0.9 * u_grain_scale + 2.0 * g);
    base *= 0.84 + 0.22 * g + 0.08 * smoothstep(0.0, 0.9, rings);
  } else if (u_surface == 2) {
    base *= 0.9 + 0.16 * noise(v_world.xy * 9.0);
  } else if (u_surface == 3) {
    vec2 uv = v_local.xy / (2.0 * u_tex_half) + 0.5;
    base = texture(u_texture, uv).rgb;
  }
  vec3 n = normalize(v_normal);
  if (!gl_FrontFacing) n = -n;
  float ndl = max(dot(n, u_light_dir), 0.0);
  vec3 lp = v_light.xyz / v_light.w * 0.5 + 0.5;
  float lit = 0.0;
  float bias = 0.0015 + 0.003 * (1.0 - ndl);
  lit += texture(u_shadow, vec3(lp.xy + vec2(-0.5, -0.5) * u_shadow_texel, lp.z - bias));
  lit += texture(u_shadow, vec3(lp.xy + vec2(0.5, -0.5) * u_shadow_texel, lp.z - bias));
  lit += texture(u_shadow, vec3(lp.xy + vec2(-0.5, 0.5) * u_shadow_texel, lp.z - bias));
  lit += texture(u_shadow, vec3(lp.xy + vec2(0.5, 0.5) * u_shadow_texel, lp.z - bias));
  lit *= 0.25;
  vec3 h = normalize(u_light_dir + normalize(u_eye - v_world));
  float spec = u_specular * pow(max(dot(n, h), 0.0), u_shininess) * step(0.0, ndl);
  vec3 c = base * (u_ambient + u_light_color * ndl * lit) + u_light_color * spec * lit;
  frag = vec4(pow(clamp(c, 0.0, 1.0), vec3(1.0 / 2.2)), 1.0);
}
)";

const char* const kDepthVertex = R"(#version 330 core
layout(location = 0) in vec3 a_position;
uniform mat4 u_mvp;
void main() { gl_Position = u_mvp * vec4(a_position, 1.0); }
)";

const char* const kDepthFragment = R"(#version 330 core
void main() {}
)";

const char* const kIdFragment = R"(#version 330 core
uniform uint u_id;
out vec4 frag;
void main() {
  frag = vec4(float(u_id & 255u), float((u_id >> 8) & 255u), float((u_id >> 16) & 255u), 255.0) / 255.0;
}
)";

const char* const kFlatFragment = R"(#version 330 core
uniform vec3 u_color;
out vec4 frag;
void main() { frag = vec4(u_color, 1.0); }
)";

GLuint compile(GLenum type, const char* source) {
  const GLuint shader = glCreateShader(type);
  glShaderSource(shader, 1, &source, nullptr);
  glCompileShader(shader);
  GLint ok = 0;
  glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    char log[2048];
    glGetShaderInfoLog(shader, sizeof log, nullptr, log);
    glDeleteShader(shader);
    throw std::runtime_error(std::string("shader compile failed: ") + log);
  }
  return shader;
}

GLuint link(const char* vertex, const char* fragment) {
  const GLuint vs = compile(GL_VERTEX_SHADER, vertex);
  const GLuint fs = compile(GL_FRAGMENT_SHADER, fragment);
  const GLuint program = glCreateProgram();
  glAttachShader(program, vs);
  glAttachShader(program, fs);
  glLinkProgram(program);
  glDeleteShader(vs);
  glDeleteShader(fs);
  GLint ok = 0;
  glGetProgramiv(program, GL_LINK_STATUS, &ok);
  if (!ok) {
    char log[2048];
    glGetProgramInfoLog(program, sizeof log, nullptr, log);
    glDeleteProgram(program);
    throw std::runtime_error(std::string("shader link failed: ") + log);
  }
  return program;
}

// The OSMesa context: created and made current for the renderer's lifetime. Rendering
// goes to framebuffer objects, so the context's own buffer is tiny.
class MesaContext {
 public:
  MesaContext() {
    const int attributes[] = {OSMESA_FORMAT,
                              OSMESA_RGBA,
                              OSMESA_DEPTH_BITS,
                              24,
                              OSMESA_STENCIL_BITS,
                              0,
                              OSMESA_ACCUM_BITS,
                              0,
                              OSMESA_PROFILE,
                              OSMESA_CORE_PROFILE,
                              OSMESA_CONTEXT_MAJOR_VERSION,
                              3,
                              OSMESA_CONTEXT_MINOR_VERSION,
                              3,
                              0};
    context_ = OSMesaCreateContextAttribs(attributes, nullptr);
    if (context_ == nullptr)
      throw std::runtime_error("OSMesa: cannot create an OpenGL 3.3 context");
    if (!OSMesaMakeCurrent(context_, buffer_.data(), GL_UNSIGNED_BYTE, kSize, kSize)) {
      OSMesaDestroyContext(context_);
      throw std::runtime_error("OSMesa: cannot make the context current");
    }
  }
  ~MesaContext() { OSMesaDestroyContext(context_); }
  MesaContext(const MesaContext&) = delete;
  MesaContext& operator=(const MesaContext&) = delete;

 private:
  static constexpr int kSize = 4;
  std::array<std::uint8_t, kSize * kSize * 4> buffer_{};
  OSMesaContext context_ = nullptr;
};

struct GpuMesh {
  GLuint vao = 0, vbo = 0, ibo = 0;
  GLsizei index_count = 0;
};

struct Texture {
  GLuint name = 0;
  int width = 0, height = 0;
};

struct Framebuffer {
  GLuint fbo = 0, color = 0, depth = 0;
  int width = 0, height = 0;
};

Framebuffer make_framebuffer(int width, int height, bool with_color, bool depth_texture) {
  Framebuffer fb;
  fb.width = width;
  fb.height = height;
  glGenFramebuffers(1, &fb.fbo);
  glBindFramebuffer(GL_FRAMEBUFFER, fb.fbo);
  if (with_color) {
    glGenRenderbuffers(1, &fb.color);
    glBindRenderbuffer(GL_RENDERBUFFER, fb.color);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, width, height);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, fb.color);
  }
  if (depth_texture) {
    glGenTextures(1, &fb.depth);
    glBindTexture(GL_TEXTURE_2D, fb.depth);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_DEPTH_COMPONENT24, width, height, 0, GL_DEPTH_COMPONENT,
                 GL_UNSIGNED_INT, nullptr);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_BORDER);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_BORDER);
    const float border[4] = {1, 1, 1, 1};
    glTexParameterfv(GL_TEXTURE_2D, GL_TEXTURE_BORDER_COLOR, border);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_COMPARE_MODE, GL_COMPARE_REF_TO_TEXTURE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_COMPARE_FUNC, GL_LEQUAL);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_TEXTURE_2D, fb.depth, 0);
    glDrawBuffer(GL_NONE);
    glReadBuffer(GL_NONE);
  } else {
    GLuint rb = 0;
    glGenRenderbuffers(1, &rb);
    glBindRenderbuffer(GL_RENDERBUFFER, rb);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_DEPTH24_STENCIL8, width, height);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_STENCIL_ATTACHMENT, GL_RENDERBUFFER, rb);
    fb.depth = rb;
  }
  if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE) {
    throw std::runtime_error("OpenGL: incomplete framebuffer");
  }
  return fb;
}

void upload_matrix(GLint location, const Mat4& m) {
  glUniformMatrix4fv(location, 1, GL_FALSE, m.m.data());
}

}  // namespace

struct Renderer::State {
  MesaContext context;  // first member: destroyed last
  GLuint scene_program = 0, depth_program = 0, id_program = 0, flat_program = 0;
  std::vector<GpuMesh> meshes;
  std::vector<Texture> textures;
  Framebuffer color_target, static_target, shadow_target;
  // The static scene's camera and light, kept for drawing the moving objects over it.
  ViewProjection camera;
  Lighting lighting;
  Mat4 light_matrix;
  bool has_static = false;
  std::vector<Framebuffer> id_targets;  // by size
  int shadow_size = 1024;
  // Pixels read back from the GL, kept from frame to frame (colour, and IDs, each at its own
  // size): a clip reads a picture or two a frame, and a fresh buffer each time costs its page
  // faults, most of rendering under AddressSanitizer, whose allocator maps each large block anew.
  cv::Mat colour_read_back, id_read_back;

  GLint loc(GLuint program, const char* name) const { return glGetUniformLocation(program, name); }

  Framebuffer& id_target(int width, int height) {
    for (Framebuffer& fb : id_targets) {
      if (fb.width == width && fb.height == height) return fb;
    }
    id_targets.push_back(make_framebuffer(width, height, true, false));
    return id_targets.back();
  }

  ~State() {
    for (GpuMesh& m : meshes) {
      glDeleteVertexArrays(1, &m.vao);
      glDeleteBuffers(1, &m.vbo);
      glDeleteBuffers(1, &m.ibo);
    }
    for (Texture& t : textures) glDeleteTextures(1, &t.name);
    auto release = [](Framebuffer& fb, bool depth_is_texture) {
      glDeleteFramebuffers(1, &fb.fbo);
      if (fb.color) glDeleteRenderbuffers(1, &fb.color);
      if (depth_is_texture) {
        glDeleteTextures(1, &fb.depth);
      } else {
        glDeleteRenderbuffers(1, &fb.depth);
      }
    };
    release(color_target, false);
    release(static_target, false);
    release(shadow_target, true);
    for (Framebuffer& fb : id_targets) release(fb, false);
    glDeleteProgram(scene_program);
    glDeleteProgram(depth_program);
    glDeleteProgram(id_program);
    glDeleteProgram(flat_program);
  }
};

Renderer::Renderer(int width, int height, int shadow_map_size)
    : state_(std::make_unique<State>()), width_(width), height_(height) {
  State& s = *state_;
  s.scene_program = link(kSceneVertex, kSceneFragment);
  s.depth_program = link(kDepthVertex, kDepthFragment);
  s.id_program = link(kDepthVertex, kIdFragment);
  s.flat_program = link(kDepthVertex, kFlatFragment);
  s.shadow_size = shadow_map_size;
  s.color_target = make_framebuffer(width, height, true, false);
  s.static_target = make_framebuffer(width, height, true, false);
  s.shadow_target = make_framebuffer(shadow_map_size, shadow_map_size, false, true);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
}

Renderer::~Renderer() = default;

int Renderer::add_mesh(const Mesh& mesh) {
  GpuMesh g;
  glGenVertexArrays(1, &g.vao);
  glBindVertexArray(g.vao);
  glGenBuffers(1, &g.vbo);
  glBindBuffer(GL_ARRAY_BUFFER, g.vbo);
  glBufferData(GL_ARRAY_BUFFER, static_cast<GLsizeiptr>(mesh.vertices.size() * sizeof(Vertex)),
               mesh.vertices.data(), GL_STATIC_DRAW);
  glGenBuffers(1, &g.ibo);
  glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, g.ibo);
  glBufferData(GL_ELEMENT_ARRAY_BUFFER,
               static_cast<GLsizeiptr>(mesh.indices.size() * sizeof(std::uint32_t)),
               mesh.indices.data(), GL_STATIC_DRAW);
  const auto stride = static_cast<GLsizei>(sizeof(Vertex));
  glEnableVertexAttribArray(0);
  glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, stride,
                        reinterpret_cast<const void*>(offsetof(Vertex, position)));
  glEnableVertexAttribArray(1);
  glVertexAttribPointer(1, 3, GL_FLOAT, GL_FALSE, stride,
                        reinterpret_cast<const void*>(offsetof(Vertex, normal)));
  glEnableVertexAttribArray(2);
  glVertexAttribPointer(2, 1, GL_FLOAT, GL_FALSE, stride,
                        reinterpret_cast<const void*>(offsetof(Vertex, slot)));
  glBindVertexArray(0);
  g.index_count = static_cast<GLsizei>(mesh.indices.size());
  state_->meshes.push_back(g);
  return static_cast<int>(state_->meshes.size()) - 1;
}

int Renderer::add_texture(int width, int height) {
  Texture t;
  t.width = width;
  t.height = height;
  glGenTextures(1, &t.name);
  glBindTexture(GL_TEXTURE_2D, t.name);
  glTexImage2D(GL_TEXTURE_2D, 0, GL_RGB8, width, height, 0, GL_RGB, GL_UNSIGNED_BYTE, nullptr);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
  state_->textures.push_back(t);
  return static_cast<int>(state_->textures.size()) - 1;
}

void Renderer::update_texture(int texture, const std::uint8_t* rgb) {
  const Texture& t = state_->textures.at(static_cast<std::size_t>(texture));
  glBindTexture(GL_TEXTURE_2D, t.name);
  glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, t.width, t.height, GL_RGB, GL_UNSIGNED_BYTE, rgb);
}

void Renderer::draw_lit(const std::vector<DrawItem>& items) {
  State& s = *state_;
  const GLuint p = s.scene_program;
  glUseProgram(p);
  const Mat4 view_projection = s.camera.projection * s.camera.view;
  const Vec3 light_dir = normalize(s.lighting.direction);
  upload_matrix(s.loc(p, "u_view_projection"), view_projection);
  upload_matrix(s.loc(p, "u_light_matrix"), s.light_matrix);
  glUniform3f(s.loc(p, "u_light_dir"), light_dir.x, light_dir.y, light_dir.z);
  glUniform3f(s.loc(p, "u_light_color"), s.lighting.color.x, s.lighting.color.y,
              s.lighting.color.z);
  glUniform3f(s.loc(p, "u_ambient"), s.lighting.ambient.x, s.lighting.ambient.y,
              s.lighting.ambient.z);
  glUniform3f(s.loc(p, "u_eye"), s.camera.eye.x, s.camera.eye.y, s.camera.eye.z);
  glUniform1f(s.loc(p, "u_shadow_texel"), 1.0f / static_cast<float>(s.shadow_size));
  glActiveTexture(GL_TEXTURE0);
  glBindTexture(GL_TEXTURE_2D, s.shadow_target.depth);
  glUniform1i(s.loc(p, "u_shadow"), 0);
  glUniform1i(s.loc(p, "u_texture"), 1);
  const GLint model_loc = s.loc(p, "u_model"), normal_loc = s.loc(p, "u_normal_matrix");
  const GLint colors_loc = s.loc(p, "u_colors"), spec_loc = s.loc(p, "u_specular");
  const GLint shine_loc = s.loc(p, "u_shininess"), surface_loc = s.loc(p, "u_surface");
  const GLint grain_dir_loc = s.loc(p, "u_grain_dir"), grain_scale_loc = s.loc(p, "u_grain_scale");
  const GLint tex_half_loc = s.loc(p, "u_tex_half");
  for (const DrawItem& item : items) {
    const GpuMesh& m = s.meshes.at(static_cast<std::size_t>(item.mesh));
    upload_matrix(model_loc, item.model);
    const auto nm = normal_matrix(item.model);
    glUniformMatrix3fv(normal_loc, 1, GL_FALSE, nm.data());
    float colors[9];
    for (int k = 0; k < 3; ++k) {
      colors[3 * k] = item.slot_colors[static_cast<std::size_t>(k)].x;
      colors[3 * k + 1] = item.slot_colors[static_cast<std::size_t>(k)].y;
      colors[3 * k + 2] = item.slot_colors[static_cast<std::size_t>(k)].z;
    }
    glUniform3fv(colors_loc, 3, colors);
    glUniform1f(spec_loc, item.specular);
    glUniform1f(shine_loc, item.shininess);
    glUniform1i(surface_loc, static_cast<int>(item.surface));
    glUniform3f(grain_dir_loc, item.grain_direction.x, item.grain_direction.y,
                item.grain_direction.z);
    glUniform1f(grain_scale_loc, item.grain_scale);
    glUniform2f(tex_half_loc, item.texture_half_extent.x, item.texture_half_extent.y);
    if (item.texture >= 0) {
      glActiveTexture(GL_TEXTURE1);
      glBindTexture(GL_TEXTURE_2D, s.textures.at(static_cast<std::size_t>(item.texture)).name);
      glActiveTexture(GL_TEXTURE0);
    }
    glBindVertexArray(m.vao);
    glDrawElements(GL_TRIANGLES, m.index_count, GL_UNSIGNED_INT, nullptr);
  }
}

void Renderer::set_static_scene(const std::vector<DrawItem>& items, const ViewProjection& camera,
                                const Lighting& lighting) {
  State& s = *state_;
  s.camera = camera;
  s.lighting = lighting;
  // Shadow pass: orthographic from the light, covering the scene's bounding sphere.
  const Vec3 light_dir = normalize(lighting.direction);
  const Vec3 up = std::fabs(light_dir.z) > 0.99f ? Vec3{0, 1, 0} : Vec3{0, 0, 1};
  const float r = lighting.scene_radius;
  const Mat4 light_view =
      Mat4::look_at(lighting.scene_center + light_dir * (2 * r), lighting.scene_center, up);
  const Mat4 light_projection = Mat4::orthographic(-r, r, -r, r, 0.5f * r, 3.5f * r);
  s.light_matrix = light_projection * light_view;

  glEnable(GL_DEPTH_TEST);
  glDepthFunc(GL_LESS);
  glDisable(GL_CULL_FACE);
  glDisable(GL_BLEND);
  glDisable(GL_STENCIL_TEST);
  glBindFramebuffer(GL_FRAMEBUFFER, s.shadow_target.fbo);
  glViewport(0, 0, s.shadow_size, s.shadow_size);
  glClear(GL_DEPTH_BUFFER_BIT);
  glUseProgram(s.depth_program);
  const GLint depth_mvp = s.loc(s.depth_program, "u_mvp");
  for (const DrawItem& item : items) {
    if (!item.casts_shadow) continue;
    const GpuMesh& m = s.meshes.at(static_cast<std::size_t>(item.mesh));
    upload_matrix(depth_mvp, s.light_matrix * item.model);
    glBindVertexArray(m.vao);
    glDrawElements(GL_TRIANGLES, m.index_count, GL_UNSIGNED_INT, nullptr);
  }

  glBindFramebuffer(GL_FRAMEBUFFER, s.static_target.fbo);
  glViewport(0, 0, width_, height_);
  glClearColor(0.1f, 0.1f, 0.1f, 1);
  glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT | GL_STENCIL_BUFFER_BIT);
  glEnable(GL_CULL_FACE);
  glCullFace(GL_BACK);
  draw_lit(items);
  s.has_static = true;
}

void Renderer::render_frame(const std::vector<DrawItem>& moving, float receiver_height,
                            cv::Mat& bgr) {
  State& s = *state_;
  if (!s.has_static) throw std::logic_error("Renderer::render_frame before set_static_scene");
  glBindFramebuffer(GL_READ_FRAMEBUFFER, s.static_target.fbo);
  glBindFramebuffer(GL_DRAW_FRAMEBUFFER, s.color_target.fbo);
  glBlitFramebuffer(0, 0, width_, height_, 0, 0, width_, height_,
                    GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT, GL_NEAREST);
  glBindFramebuffer(GL_FRAMEBUFFER, s.color_target.fbo);
  glViewport(0, 0, width_, height_);
  if (!moving.empty()) {
    glEnable(GL_DEPTH_TEST);
    glEnable(GL_CULL_FACE);
    // Moving objects' shadows: their geometry flattened onto the receiving plane along the
    // light, darkening each pixel once (stencil), hidden where the static scene is in front.
    const Vec3 L = normalize(s.lighting.direction);
    if (L.z > 0.05f) {
      Mat4 flatten;
      flatten.at(0, 2) = -L.x / L.z;
      flatten.at(0, 3) = L.x / L.z * receiver_height;
      flatten.at(1, 2) = -L.y / L.z;
      flatten.at(1, 3) = L.y / L.z * receiver_height;
      flatten.at(2, 2) = 0;
      flatten.at(2, 3) = receiver_height;
      glClearStencil(0);
      glClear(GL_STENCIL_BUFFER_BIT);
      glEnable(GL_STENCIL_TEST);
      glStencilFunc(GL_EQUAL, 0, 0xff);
      glStencilOp(GL_KEEP, GL_KEEP, GL_INCR);
      glEnable(GL_BLEND);
      glBlendFunc(GL_ZERO, GL_SRC_COLOR);
      glDepthMask(GL_FALSE);
      glDisable(GL_CULL_FACE);
      const float lit = s.lighting.ambient.y + s.lighting.color.y * L.z;
      const float shade = std::pow(s.lighting.ambient.y / std::max(lit, 1e-3f), 1.0f / 2.2f);
      glUseProgram(s.flat_program);
      glUniform3f(s.loc(s.flat_program, "u_color"), shade, shade, shade);
      const GLint mvp = s.loc(s.flat_program, "u_mvp");
      const Mat4 view_projection = s.camera.projection * s.camera.view;
      for (const DrawItem& item : moving) {
        if (!item.casts_shadow) continue;
        const GpuMesh& m = s.meshes.at(static_cast<std::size_t>(item.mesh));
        upload_matrix(mvp, view_projection * flatten * item.model);
        glBindVertexArray(m.vao);
        glDrawElements(GL_TRIANGLES, m.index_count, GL_UNSIGNED_INT, nullptr);
      }
      glDepthMask(GL_TRUE);
      glDisable(GL_BLEND);
      glDisable(GL_STENCIL_TEST);
      glEnable(GL_CULL_FACE);
    }
    draw_lit(moving);
  }
  s.colour_read_back.create(height_, width_, CV_8UC4);
  glReadPixels(0, 0, width_, height_, GL_RGBA, GL_UNSIGNED_BYTE, s.colour_read_back.data);
  cv::cvtColor(s.colour_read_back, bgr, cv::COLOR_RGBA2BGR);
  cv::flip(bgr, bgr, 0);
}

cv::Mat Renderer::render_frame(const std::vector<DrawItem>& moving, float receiver_height) {
  cv::Mat bgr;
  render_frame(moving, receiver_height, bgr);
  return bgr;
}

cv::Mat Renderer::render_color(const std::vector<DrawItem>& items, const ViewProjection& camera,
                               const Lighting& lighting) {
  set_static_scene(items, camera, lighting);
  return render_frame({}, 0);
}

cv::Mat Renderer::render_ids(const std::vector<DrawItem>& items, const ViewProjection& camera,
                             float scale) {
  cv::Mat ids;
  render_ids(items, camera, scale, ids);
  return ids;
}

void Renderer::render_ids(const std::vector<DrawItem>& items, const ViewProjection& camera,
                          float scale, cv::Mat& ids) {
  State& s = *state_;
  const int w = static_cast<int>(std::lround(static_cast<float>(width_) * scale));
  const int h = static_cast<int>(std::lround(static_cast<float>(height_) * scale));
  Framebuffer& fb = s.id_target(w, h);
  glBindFramebuffer(GL_FRAMEBUFFER, fb.fbo);
  glViewport(0, 0, w, h);
  glClearColor(0, 0, 0, 0);
  glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
  glEnable(GL_DEPTH_TEST);
  glEnable(GL_CULL_FACE);
  glUseProgram(s.id_program);
  const GLint mvp = s.loc(s.id_program, "u_mvp");
  const GLint id = s.loc(s.id_program, "u_id");
  const Mat4 view_projection = camera.projection * camera.view;
  for (const DrawItem& item : items) {
    const GpuMesh& m = s.meshes.at(static_cast<std::size_t>(item.mesh));
    upload_matrix(mvp, view_projection * item.model);
    glUniform1ui(id, item.id);
    glBindVertexArray(m.vao);
    glDrawElements(GL_TRIANGLES, m.index_count, GL_UNSIGNED_INT, nullptr);
  }
  s.id_read_back.create(h, w, CV_8UC4);
  glReadPixels(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, s.id_read_back.data);
  ids.create(h, w, CV_32S);
  for (int y = 0; y < h; ++y) {
    const std::uint8_t* src = s.id_read_back.ptr<std::uint8_t>(h - 1 - y);
    std::int32_t* dst = ids.ptr<std::int32_t>(y);
    for (int x = 0; x < w; ++x) {
      dst[x] =
          static_cast<std::int32_t>(src[4 * x] | (src[4 * x + 1] << 8) | (src[4 * x + 2] << 16));
    }
  }
}

}  // namespace bugcam::samples
