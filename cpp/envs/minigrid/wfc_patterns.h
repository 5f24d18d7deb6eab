// The six pattern images minigrid 3.2.0's registered WFC ids learn from (its wheel ships
// config.py naming them but not the PNGs, so upstream cannot reset them from the wheel).
// Source: github.com/Farama-Foundation/Minigrid, minigrid/envs/wfc/patterns/*.png (unchanged
// there since 2024-07, commit 7e79669b; read at 90928729), Copyright the Farama Foundation,
// licensed under the Apache License 2.0 (the text: LICENSE-APACHE at this repository's root).
// Converted form: each image's RGB pixels as rows of one character per pixel, '#' (0, 0, 0),
// '.' (255, 255, 255), ',' (254, 254, 254) (Fabric's one off-white pixel, a tile of its own),
// exactly imageio.imread(path)[:, :, :3] of the PNG whose sha256 is noted; the PNGs held no
// other colours. tests/envs/minigrid/wfc_patterns/ holds the PNGs themselves, which the tests
// hand to minigrid.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace envpool::minigrid::wfc {

struct PatternImage {
  std::string_view name;
  int width;
  int height;
  std::string_view pixels;  // height rows of width characters
};

// The RGB value of a pixel character.
inline std::array<uint8_t, 3> PixelRgb(char c) {
  if (c == '#') return {0, 0, 0};
  if (c == ',') return {254, 254, 254};
  return {255, 255, 255};
}

inline constexpr PatternImage kPatternImages[] = {
    // SimpleMaze.png, 4x4, sha256 756ced4e03db22a941d4c2c05347398e5d1a01e9bad76817a75f132f732b9059
    {"SimpleMaze", 4, 4,
     "...."
     ".###"
     ".#.#"
     ".###"},
    // ScaledMaze.png, 8x8, sha256 ec7e9b6c1598a40e0f25c6a91e6c6031656486748e994b82b213bba0465054ff
    {"ScaledMaze", 8, 8,
     "........"
     "........"
     "..######"
     "..######"
     "..##..##"
     "..##..##"
     "..######"
     "..######"},
    // Fabric.png, 5x5, sha256 c7c9edda700a446a23c6853266a9562e00268a912f5a9b293753ea17190d163c
    {"Fabric", 5, 5,
     "..#.."
     "..,.."
     "#####"
     "..,.."
     "..#.."},
    // Blackdots.png, 3x3, sha256 14d8771e40bd3b7e7919d00484fbfc7e0dc083aa5dfba0db0a2ae62c581c7951
    {"Blackdots", 3, 3,
     "..."
     ".#."
     "..."},
    // Angular.png, 11x11, sha256 0fa8106234ee17c7a94e29427dce005bc92f329e823f81075ec8520a361076ba
    {"Angular", 11, 11,
     "..........."
     ".....#####."
     ".....#####."
     ".....#####."
     ".....#####."
     ".#########."
     ".#########."
     ".#########."
     ".#########."
     ".#########."
     "..........."},
    // Hogs.png, 17x17, sha256 b5b5181f301c4177f5c923bd8dd083458053d995ae75db62bd041ec589be81a5
    {"Hogs", 17, 17,
     "................."
     ".......#....#...."
     "..#...###..###..."
     ".###...#....#...."
     "..#.............."
     ".........#......."
     "....#...###...#.."
     "...###...#...###."
     "....#.........#.."
     "................."
     ".......#....#...."
     "..#...###..###..."
     ".###...#....#...."
     "..#..#...#....#.."
     "....###.###..###."
     ".....#...#....#.."
     "................."},
};

}  // namespace envpool::minigrid::wfc
