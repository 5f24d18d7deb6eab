// gymnasium's fixtureDef(...) declarations in one call: its Box2D envs give each fixture a shape
// and a few keywords (density, friction, restitution, categoryBits, maskBits); the others keep
// Box2D's defaults, which pybox2d's fixtureDef keeps too.
#pragma once

#include <Box2D/Box2D.h>

#include <cstdint>

namespace envpool::box2d {

// The keywords, with Box2D's b2FixtureDef defaults.
struct FixtureKeywords {
  float density = 0.0f;
  float friction = 0.2f;
  float restitution = 0.0f;
  std::uint16_t category = 0x0001;
  std::uint16_t mask = 0xFFFF;
};

inline void AddFixture(b2Body* body, const b2Shape& shape, const FixtureKeywords& keywords) {
  b2FixtureDef def;
  def.shape = &shape;
  def.density = keywords.density;
  def.friction = keywords.friction;
  def.restitution = keywords.restitution;
  def.filter.categoryBits = keywords.category;
  def.filter.maskBits = keywords.mask;
  body->CreateFixture(&def);
}

// A polygon given in screen pixels, as gymnasium writes them: vertices (x / scale, y / scale),
// computed in double and stored as float32 as pybox2d converts them.
template <int N>
b2PolygonShape PixelPolygon(const int (&pixels)[N][2], double scale) {
  b2Vec2 vertices[N];
  for (int i = 0; i < N; ++i) {
    vertices[i].Set(static_cast<float>(pixels[i][0] / scale), static_cast<float>(pixels[i][1] / scale));
  }
  b2PolygonShape shape;
  shape.Set(vertices, N);
  return shape;
}

}  // namespace envpool::box2d
