// The frame of gymnasium's BlackjackEnv (render_mode="rgb_array"): its layout and palette, our own
// sprites (render/common.h says which and why).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "envs/toy_text/render/common.h"

namespace envpool::toy_text::render {

inline constexpr int kBlackjackWidth = 384;
inline constexpr int kBlackjackHeight = 376;

// A suit symbol (gymnasium's suit letters C, D, H, S) with its top-left corner at (x, y): 20
// pixels wide, 20 (diamond, heart) or 24 (club, spade, with their stems) tall.
inline void DrawSuit(Canvas& canvas, int x, int y, char suit, Color c) {
  switch (suit) {
    case 'D':  // a rhombus
      canvas.FilledPolygon({{x + 10, y}, {x + 19, y + 10}, {x + 10, y + 20}, {x + 1, y + 10}}, c);
      break;
    case 'H':  // two circles over a triangle
      canvas.FilledCircle(x + 5, y + 6, 5, c);
      canvas.FilledCircle(x + 14, y + 6, 5, c);
      canvas.FilledPolygon({{x, y + 7}, {x + 20, y + 7}, {x + 10, y + 19}}, c);
      break;
    case 'S':  // an upside-down heart on a stem
      canvas.FilledPolygon({{x + 10, y}, {x + 20, y + 11}, {x, y + 11}}, c);
      canvas.FilledCircle(x + 5, y + 12, 5, c);
      canvas.FilledCircle(x + 14, y + 12, 5, c);
      canvas.FilledPolygon({{x + 10, y + 13}, {x + 15, y + 24}, {x + 5, y + 24}}, c);
      break;
    default:  // club: three circles on a stem
      canvas.FilledCircle(x + 10, y + 5, 5, c);
      canvas.FilledCircle(x + 5, y + 13, 5, c);
      canvas.FilledCircle(x + 14, y + 13, 5, c);
      canvas.FilledPolygon({{x + 10, y + 10}, {x + 15, y + 24}, {x + 5, y + 24}}, c);
      break;
  }
}

// A card (80 x 112 pixels) at (x, y): a white rounded card with a grey edge, the rank at the
// top left and the suit in the middle; or the red back with an inner frame.
inline void DrawCard(Canvas& canvas, int x, int y, char rank, char suit, bool back) {
  FillRoundRect(canvas, x, y, 80, 112, 4, {150, 152, 160});
  if (back) {
    const Color face{200, 116, 106}, frame{176, 94, 86};
    FillRoundRect(canvas, x + 4, y + 4, 72, 104, 4, face);
    FillRoundRect(canvas, x + 12, y + 12, 56, 88, 3, frame);
    canvas.FillRect(x + 16, y + 16, 48, 80, face);
    return;
  }
  FillRoundRect(canvas, x + 4, y + 4, 72, 104, 4, {253, 253, 251});
  const Color ink = (suit == 'D' || suit == 'H') ? Color{190, 80, 74} : kInk;
  DrawText(canvas, x + 8, y + 8, std::string_view(&rank, 1), kArt, ink);
  DrawSuit(canvas, x + 28, y + 52, suit, ink);
}

// gymnasium's blackjack draw_table layout: the dealer's showing card (`rank` 'A', '2'..'9',
// 'J', 'Q' or 'K' of `suit`) and value, the hidden card, the player's sum and the usable-ace
// label.
inline void DrawBlackjack(uint8_t* rgb, int player_sum, int dealer_value, bool usable_ace, char rank, char suit) {
  Canvas canvas(rgb, kBlackjackWidth, kBlackjackHeight);
  canvas.Fill({196, 216, 158});
  auto centred_x = [](int width) { return (kBlackjackWidth - width) / 2 / kArt * kArt; };
  DrawText(canvas, 40, 32, "DEALER:", kArt, kInk);
  DrawText(canvas, 40 + TextWidth("DEALER:", kArt) + 12, 32, std::to_string(dealer_value), kArt, kInk);
  DrawCard(canvas, 96, 72, rank, suit, false);
  DrawCard(canvas, 208, 72, rank, suit, true);
  DrawText(canvas, 40, 208, "PLAYER", kArt, kInk);
  const std::string sum = std::to_string(player_sum);
  DrawText(canvas, centred_x(TextWidth(sum, 3 * kArt)), 248, sum, 3 * kArt, kInk);
  if (usable_ace) DrawText(canvas, centred_x(TextWidth("USABLE ACE", kArt)), 328, "USABLE ACE", kArt, kInk);
}

}  // namespace envpool::toy_text::render
