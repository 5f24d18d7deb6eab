#include "rom.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <stdexcept>
#include <utility>
#include <vector>

#include "ale/emucore/MD5.hxx"
#include "ale/games/Roms.hpp"
#include "games.h"

namespace envpool_atari {

namespace {

namespace fs = std::filesystem;

// The ALE reads at most this much of a ROM file (OSystem.cxx, MAX_ROM_SIZE); the 2600's largest
// cartridges are far smaller.
constexpr std::size_t kMaxRomSize = 512 * 1024;

std::mutex roms_mutex;
std::string default_roms_dir;                                    // guarded by roms_mutex
std::map<std::string, std::weak_ptr<const RomImage>> live_roms;  // by ROM id; guarded by roms_mutex

[[noreturn]] void Fail(const std::string& rom, const std::string& what) {
  throw std::runtime_error("Atari ROM '" + rom + "': " + what);
}

std::string Errno() { return std::strerror(errno); }

// The ROM file and where its folder came from (for messages).
std::pair<fs::path, std::string> RomFile(const std::string& rom) {
  std::string dir, source;
  if (const char* env = std::getenv("ALE_ROMS_DIR"); env != nullptr && *env != '\0') {
    dir = env;
    source = "ALE_ROMS_DIR";
  } else {
    std::lock_guard<std::mutex> lock(roms_mutex);
    dir = default_roms_dir;
    source = "the installed ale-py";
  }
  if (dir.empty()) {
    Fail(rom,
         "no ROM folder known: install ale-py 0.12.1 (`pip install ale-py==0.12.1`, a dependency of "
         "envpool-ng-atari) or set ALE_ROMS_DIR to a folder of <game>.bin files");
  }
  fs::path path = fs::path(dir) / (rom + ".bin");
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) {
    throw std::runtime_error("Atari ROM '" + rom + "' not found: " + path.string() + " (ROM folder from " + source +
                             ") does not exist or is not a file");
  }
  return {std::move(path), std::move(source)};
}

std::vector<uint8_t> ReadRom(const std::string& rom, const std::string& where) {
  std::ifstream in(where, std::ios::binary);
  if (!in) Fail(rom, "cannot open " + where + ": " + Errno());
  std::vector<uint8_t> bytes(kMaxRomSize + 1);
  in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (in.bad()) Fail(rom, "cannot read " + where + ": " + Errno());
  bytes.resize(static_cast<std::size_t>(in.gcount()));
  if (bytes.size() > kMaxRomSize) {
    Fail(rom, where + " is not an Atari 2600 ROM (larger than " + std::to_string(kMaxRomSize) + " bytes)");
  }
  return bytes;
}

// The ALE's game for a ROM (its RomSettings), by MD5 or by ROM id; the caller owns it.
std::unique_ptr<ale::RomSettings> GameByMd5(const std::string& md5) {
  // An empty path: buildRomRLWrapper matches a file name or an MD5, and "" names no game.
  return std::unique_ptr<ale::RomSettings>(ale::buildRomRLWrapper(fs::path(), md5));
}
std::unique_ptr<ale::RomSettings> GameByName(const std::string& rom) {
  return std::unique_ptr<ale::RomSettings>(ale::buildRomRLWrapper(fs::path(rom + ".bin"), std::string()));
}

// Refuses bytes whose MD5 is not the one the ALE knows for `rom`, naming what they are instead.
void CheckGame(const std::string& rom, const std::string& where, const std::string& md5) {
  const auto found = GameByMd5(md5);
  if (found != nullptr && found->md5() == md5 && found->rom() == rom) return;
  const auto expected = GameByName(rom);
  const std::string wanted = expected != nullptr && expected->rom() == rom
                                 ? "'" + rom + "' (" + TaskOfRom(rom) + ") has MD5 " + expected->md5()
                                 : "the ALE knows no game '" + rom + "'";
  if (found != nullptr && found->md5() == md5) {
    const std::string other = found->rom();
    Fail(rom, where + " is the ROM of another game: its MD5 " + md5 + " is that of '" + other + "' (" +
                  TaskOfRom(other) + "), and " + wanted + "; put " + rom + "'s ROM there");
  }
  Fail(rom, where + " is not a ROM the ALE supports: its MD5 " + md5 + " is no game's, and " + wanted);
}

// A sealed anonymous file holding `bytes`: readable through /proc/self/fd/<fd>, and after the
// seals no one (this process included) can write, grow or shrink it.
int SealedCopy(const std::string& rom, const std::vector<uint8_t>& bytes) {
  const int fd = memfd_create(("envpool-atari-" + rom).c_str(), MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (fd < 0) Fail(rom, "memfd_create failed (the plugin keeps checked ROMs in memory): " + Errno());
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const std::string why = Errno();
      ::close(fd);
      Fail(rom, "could not copy the ROM into memory: " + why);
    }
    done += static_cast<std::size_t>(n);
  }
  if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) != 0) {
    const std::string why = Errno();
    ::close(fd);
    Fail(rom, "could not seal the in-memory ROM: " + why);
  }
  return fd;
}

}  // namespace

void SetDefaultRomsDir(std::string dir) {
  std::lock_guard<std::mutex> lock(roms_mutex);
  default_roms_dir = std::move(dir);
}

std::string TaskOfRom(const std::string& rom) {
  for (const auto& game : kGames) {
    if (rom == game.rom) return std::string(game.task) + "-v5";
  }
  return rom;
}

RomImage::RomImage(int fd, std::string rom, std::string md5)
    : fd_(fd), rom_(std::move(rom)), md5_(std::move(md5)), path_("/proc/self/fd/" + std::to_string(fd)) {}

RomImage::~RomImage() { ::close(fd_); }

std::shared_ptr<const RomImage> RomImage::Load(const std::string& rom) {
  const auto [path, source] = RomFile(rom);
  const std::string where = path.string() + " (ROM folder from " + source + ")";
  const std::vector<uint8_t> bytes = ReadRom(rom, path.string());
  const std::string md5 = ale::stella::MD5(bytes.data(), static_cast<uint32_t>(bytes.size()));
  CheckGame(rom, where, md5);
  // The check makes every accepted file of a game byte for byte the same ROM, so a live copy
  // can be shared.
  std::lock_guard<std::mutex> lock(roms_mutex);
  if (auto live = live_roms[rom].lock(); live != nullptr && live->md5() == md5) return live;
  std::shared_ptr<const RomImage> image(new RomImage(SealedCopy(rom, bytes), rom, md5));
  std::error_code ec;
  if (!fs::exists(image->path(), ec)) {
    Fail(rom, "the in-memory ROM is not reachable as " + image->path() + " (the plugin needs /proc)");
  }
  live_roms[rom] = image;
  return image;
}

}  // namespace envpool_atari
