// The envpool-ng-atari plugin: every game of ale-py's ROM set as `<Game>-v5` (the env: atari_env.cc;
// finding and checking its ROM: rom.cc), and the reference EnvPool's id where it spells a game
// otherwise (TicTacToe3d-v5) as an alias.
//
// Besides the ENVPOOL_PLUGIN entry points it exports three C functions, called through ctypes:
//   envpool_atari_set_roms_dir  by envpool_atari/__init__.py when envpool loads the plugin
//                               (the installed ale-py's ROM folder);
//   envpool_atari_area_resize   by the tests, to compare the resize with OpenCV's (returns 1
//                               where it ran in lanes, 0 where not, -1 where it refused);
//   envpool_atari_gray_lookup   by the tests, the fast palette-to-gray lookup on made-up data;
//   envpool_atari_raw_steps(_n) by bench/atari.py: a bare loop of ALE act() calls (the emulator
//                               limit the pool is measured against), one ALE per thread or n.
#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "ale_interface.hpp"
#include "area_resize.h"
#include "atari_env.h"
#include "games.h"
#include "gray_lookup.h"
#include "rom.h"

namespace envpool_atari {
namespace {
bool TurnOffAleLogging() {
  ale::Logger::setMode(ale::Logger::Error);
  return true;
}
const bool ale_logging_off = TurnOffAleLogging();
}  // namespace
}  // namespace envpool_atari

ENVPOOL_PLUGIN_EXPORT void envpool_atari_set_roms_dir(const char* dir) {
  envpool_atari::SetDefaultRomsDir(dir == nullptr ? std::string() : std::string(dir));
}

// Returns 0, or -1 when the sizes are not supported (see AreaResizer).
ENVPOOL_PLUGIN_EXPORT int envpool_atari_area_resize(const uint8_t* src, int src_h, int src_w, int channels,
                                                    uint8_t* dst, int dst_h, int dst_w) {
  try {
    envpool_atari::AreaResizer resize(src_h, src_w, dst_h, dst_w, channels);
    resize(src, dst);
    return resize.lanes() ? 1 : 0;
  } catch (const std::exception&) {
    return -1;
  }
}

// GrayLookup (gray_lookup.h) over a made-up palette, gray value of index v = (v * 37 + 11) % 256,
// for the tests: 1 where the fast path converted the frame, 0 where it declined (odd index,
// 255, or no AVX2), and dst then untouched by it.
ENVPOOL_PLUGIN_EXPORT int envpool_atari_gray_lookup(const uint8_t* src, uint8_t* dst, int64_t n) {
  envpool_atari::GrayLookup lookup;
  lookup.Build([](int v) { return (v * 37 + 11) % 256; });
  return lookup(src, dst, static_cast<std::size_t>(n)) ? 1 : 0;
}

// `threads` threads step `envs` ALEs of `rom_path` (each thread its own share, in turn, as a
// pool's thread steps its envs) `steps` times each thread by `frame_skip` frames of a uniformly
// random minimal-set action (reset_game at game over), fetching the grayscale screens of the last
// two frames as an env step does; returns the wall seconds of the stepping (ROM loading
// excluded), or -1 on an error. envs == threads is the one-emulator-per-core limit; envs ==
// num_envs adds what many emulators per core cost in caches, which a pool of num_envs pays too.
ENVPOOL_PLUGIN_EXPORT double envpool_atari_raw_steps_n(const char* rom_path, int threads, int envs, int64_t steps,
                                                       int frame_skip) {
  if (threads < 1 || envs < threads) return -1.0;
  std::atomic<bool> failed{false}, go{false};
  std::atomic<int> ready{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      try {
        const int own = envs / threads + (t < envs % threads ? 1 : 0);
        std::vector<std::unique_ptr<ale::ALEInterface>> ales;
        for (int e = 0; e < own; ++e) {
          ales.push_back(std::make_unique<ale::ALEInterface>());
          ales.back()->setInt("random_seed", t * envs + e);
          ales.back()->loadROM(rom_path);
        }
        const auto actions = ales.front()->getMinimalActionSet();
        std::mt19937 gen(static_cast<unsigned>(t));
        std::uniform_int_distribution<std::size_t> pick(0, actions.size() - 1);
        std::vector<uint8_t> screen(
            static_cast<std::size_t>(ales.front()->getScreen().height() * ales.front()->getScreen().width()));
        ++ready;
        while (!go) std::this_thread::yield();
        for (int64_t i = 0; i < steps; ++i) {
          ale::ALEInterface& ale = *ales[static_cast<std::size_t>(i % own)];
          const ale::Action a = actions[pick(gen)];
          for (int f = frame_skip; f > 0; --f) {
            ale.act(a);
            if (f <= 2) {
              ale.theOSystem->colourPalette().applyPaletteGrayscale(screen.data(), ale.getScreen().getArray(),
                                                                    screen.size());
            }
          }
          if (ale.game_over()) ale.reset_game();
        }
      } catch (...) {
        failed = true;
        ++ready;
      }
    });
  }
  while (ready < threads) std::this_thread::yield();
  const auto t0 = std::chrono::steady_clock::now();
  go = true;
  for (auto& th : pool) th.join();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return failed ? -1.0 : seconds;
}

// One ALE per thread: envpool_atari_raw_steps_n with envs == threads.
ENVPOOL_PLUGIN_EXPORT double envpool_atari_raw_steps(const char* rom_path, int threads, int64_t steps, int frame_skip) {
  return envpool_atari_raw_steps_n(rom_path, threads, threads, steps, frame_skip);
}

namespace envpool_atari {
namespace {

// The reference EnvPool's name for a ROM: each '_'-separated word capitalized, the rest of it
// lower case ("".join(w.capitalize() for w in rom.split("_"))). ale-py's str.title() also
// capitalizes a letter after a digit, so the two differ for tic_tac_toe_3d: TicTacToe3d, ale-py's
// TicTacToe3D. Where they differ, the reference's id is an alias of ours.
std::string ReferenceName(const std::string& rom) {
  std::string name;
  bool word_start = true;
  for (char c : rom) {
    if (c == '_') {
      word_start = true;
      continue;
    }
    const auto u = static_cast<unsigned char>(c);
    name += static_cast<char>(word_start ? std::toupper(u) : std::tolower(u));
    word_start = false;
  }
  return name;
}

}  // namespace
}  // namespace envpool_atari

ENVPOOL_PLUGIN("atari") {
  for (const auto& game : envpool_atari::kGames) {
    // 27000 steps = the 108000 frames (30 minutes of play) of ale-py's v5 games at frame_skip 4.
    auto task = envpool::Task<envpool_atari::AtariEnv>(std::string(game.task) + "-v5", 27000, NAN,
                                                       {{"task", std::string(game.rom)}});
    const std::string reference = envpool_atari::ReferenceName(game.rom) + "-v5";
    if (reference != task.id) task.aliases.push_back(reference);
    registry.Add(std::move(task));
  }
}
