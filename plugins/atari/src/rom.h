// A game's ROM: found on disk, read once, checked, and kept in memory for as long as an env of
// the game lives.
//
// Why in memory: the ALE loads a ROM only from a path, and AtariEnv reloads it at every seeded
// reset (that is how the ALE takes a new seed). Reloading the file itself would run whatever
// the file holds by then: a ROM overwritten or truncated after `make` ran garbage forever. So
// the checked bytes go into a sealed anonymous in-memory file (memfd: nothing can write,
// grow or shrink it), and the ALE is given that file's path, /proc/self/fd/<n>.
//
// What is checked: the file's MD5 must be the one the ALE knows for this game (the ALE knows one
// MD5 per game); another game's ROM or an unknown file is refused, naming the file, the game it
// is (if any) and the game expected.
#pragma once

#include <memory>
#include <string>

namespace envpool_atari {

// Set by the Python package when envpool loads the plugin (ale_py's roms folder).
void SetDefaultRomsDir(std::string dir);

// "Pong-v5" for "pong", the ROM id itself for a ROM without a task (a multiplayer-only one).
std::string TaskOfRom(const std::string& rom);

class RomImage {
 public:
  // The checked ROM of `rom` ("space_invaders"), read from $ALE_ROMS_DIR/<rom>.bin if
  // ALE_ROMS_DIR is set, else from <the installed ale-py's roms folder>/<rom>.bin. Throws
  // std::runtime_error saying what is wrong (no folder known, no file, not this game's ROM).
  // The file is read at every call (the check happens at every make); envs of the same game
  // share one in-memory copy while any of them holds it.
  static std::shared_ptr<const RomImage> Load(const std::string& rom);

  ~RomImage();
  RomImage(const RomImage&) = delete;
  RomImage& operator=(const RomImage&) = delete;

  const std::string& rom() const { return rom_; }
  const std::string& md5() const { return md5_; }
  // What to give ALEInterface::loadROM: a path to the sealed in-memory copy.
  const std::string& path() const { return path_; }

 private:
  RomImage(int fd, std::string rom, std::string md5);

  int fd_;
  std::string rom_, md5_, path_;
};

}  // namespace envpool_atari
