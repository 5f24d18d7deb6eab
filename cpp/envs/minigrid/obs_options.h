// minigrid.wrappers' observation wrappers as MiniGridEnv's options (obs_wrappers): which image
// and which form the observation takes. MiniGridEnv::WriteObs writes them.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace envpool::minigrid {

// FlatObsWrapper's mission encoding: maxStrLen characters of numCharCodes one-hot codes.
inline constexpr int kFlatMissionChars = 96;
inline constexpr int kFlatCharCodes = 28;

// What the observation is, after the wrappers of obs_wrappers.
struct ObsOptions {
  // The "image": gen_obs's encoding (v, v, 3), FullyObsWrapper's (width, height, 3),
  // OneHotPartialObsWrapper's (v, v, 20), RGBImgObsWrapper's full frame (height * t, width * t,
  // 3) or RGBImgPartialObsWrapper's agent view (v * t, v * t, 3).
  enum Image : uint8_t { kEncoded, kFull, kOneHot, kRgbFull, kRgbPov } image = kEncoded;
  // The observation: the Dict (direction, image, mission), ImgObsWrapper's image alone, or
  // FlatObsWrapper's flattened image followed by the one-hot mission.
  enum Form : uint8_t { kDict, kImageOnly, kFlat } form = kDict;

  // Parses obs_wrappers: at most one image wrapper, then at most one of ImgObsWrapper and
  // FlatObsWrapper, last (after either, minigrid's observation is no Dict for another wrapper;
  // a second image wrapper replaces or breaks the first: FullyObs then OneHotPartial indexes
  // past its 20 bits, RGBImgPartial over FullyObs declares the full grid's shape).
  static ObsOptions Parse(const std::vector<std::string>& wrappers, const std::string& env) {
    ObsOptions o;
    bool image_set = false;
    for (std::size_t k = 0; k < wrappers.size(); ++k) {
      const std::string& w = wrappers[k];
      auto refuse = [&](const std::string& why) { throw std::invalid_argument(env + ": obs_wrappers: " + why); };
      if (o.form != kDict) refuse("'" + wrappers[k - 1] + "' must be the last wrapper, got '" + w + "' after it");
      if (w == "ImgObsWrapper" || w == "FlatObsWrapper") {
        o.form = w == "ImgObsWrapper" ? kImageOnly : kFlat;
        continue;
      }
      Image image = kEncoded;
      if (w == "FullyObsWrapper") {
        image = kFull;
      } else if (w == "OneHotPartialObsWrapper") {
        image = kOneHot;
      } else if (w == "RGBImgObsWrapper") {
        image = kRgbFull;
      } else if (w == "RGBImgPartialObsWrapper") {
        image = kRgbPov;
      } else {
        refuse("unknown wrapper '" + w +
               "' (known: RGBImgObsWrapper, RGBImgPartialObsWrapper, FullyObsWrapper, OneHotPartialObsWrapper, "
               "ImgObsWrapper, FlatObsWrapper)");
      }
      if (image_set) refuse("one image wrapper at most, got '" + w + "' after another");
      image_set = true;
      o.image = image;
    }
    return o;
  }
};

}  // namespace envpool::minigrid
