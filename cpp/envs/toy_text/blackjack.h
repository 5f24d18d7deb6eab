// Blackjack-v1: gymnasium.envs.toy_text.BlackjackEnv (Sutton & Barto, Example 5.1).
//
// Cards come from an infinite deck: each draw is uniform over the 13 ranks, valued
// 1 (ace), 2..10, 10, 10, 10. Reset deals the dealer two cards (the first one shows) and the
// player two. Action 1 (hit) adds a card to the player's hand: -1 and the end of the episode
// if it busts (over 21), else 0. Action 0 (stick) ends the episode: the dealer draws until
// their sum reaches 17, then the reward is +1 / 0 / -1 as the player's score beats, ties or
// loses to the dealer's (a bust scores 0). An ace counts 11 when that does not bust the hand
// ("usable ace").
//   * sab (gymnasium registers Blackjack-v1 with sab=True): a player's natural (ace + ten-card
//     as the two cards) wins +1 unless the dealer has one too, however the dealer's hand ends;
//     `natural` is then ignored.
//   * natural (only without sab): a won hand that is a natural pays +1.5.
//
// Randomness (docs/seeding.md), as gymnasium draws it: every card is np_random.choice(deck)
// (integers(13)); reset deals dealer, dealer, player, player, then draws the showing card's suit
// (choice of 4) and, when it is worth 10, its face J / Q / K (choice of 3) - only the picture
// depends on them, but they move the stream on.
//
// Observation: gymnasium's Tuple(Discrete(32), Discrete(11), Discrete(2)) as three int64
// arrays: the player's sum, the dealer's showing card (1..10) and whether the player has a
// usable ace. No time limit (gymnasium registers none).
//
// State (get_state / set_state): gymnasium's two hands, card values 1..10 in order, flattened
// as [number of dealer cards, dealer cards..., player cards...]; dealer[0] is the showing card.
// A mid-episode state therefore has 1 + 2 + (2 or more) values, e.g. [2, 10, 7, 1, 6] for a
// dealer showing 10 (hidden 7) and a player holding ace + 6. set_state accepts 1..32 cards per
// hand with a player's sum (as observed) of at most 31.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/env.h"
#include "envs/toy_text/render/blackjack.h"

namespace envpool::toy_text {

class Blackjack : public Env {
 public:
  // gymnasium's class defaults; the Blackjack-v1 registration overrides sab to true.
  static Config DefaultConfig() { return {{"natural", false}, {"sab", false}}; }

  static EnvSpec Spec(const Config& /*config*/) {
    EnvSpec spec{{ArraySpec::Discrete("player_sum", 32), ArraySpec::Discrete("dealer_card", 11),
                  ArraySpec::Discrete("usable_ace", 2)},
                 {ArraySpec::Discrete("action", 2)},
                 {}};
    spec.obs_is_tuple = true;
    spec.render_height = render::kBlackjackHeight;
    spec.render_width = render::kBlackjackWidth;
    spec.render_fps = 4;  // BlackjackEnv.metadata
    return spec;
  }

  explicit Blackjack(const Config& config) : natural_(config.Get<bool>("natural")), sab_(config.Get<bool>("sab")) {}

  void Reset(Rng& rng, Output& out) override {
    dealer_ = Hand{};
    player_ = Hand{};
    dealer_.Add(DrawCard(rng));
    dealer_.Add(DrawCard(rng));
    player_.Add(DrawCard(rng));
    player_.Add(DrawCard(rng));
    suit_ = "CDHS"[rng.Below(4)];
    if (dealer_.cards[0] == 10) face_ = "JQK"[rng.Below(3)];
    WriteObs(out);
  }

  void Step(const Action& action, Rng& rng, Output& out) override {
    double reward;
    bool terminated;
    if (action.Get<int64_t>()[0] != 0) {  // hit
      player_.Add(DrawCard(rng));
      terminated = player_.Sum() > 21;
      reward = terminated ? -1.0 : 0.0;
    } else {  // stick: the dealer plays out their hand
      terminated = true;
      while (dealer_.Sum() < 17) dealer_.Add(DrawCard(rng));
      const int mine = player_.Score(), theirs = dealer_.Score();
      reward = static_cast<double>(mine > theirs) - static_cast<double>(mine < theirs);
      if (sab_ && player_.IsNatural() && !dealer_.IsNatural()) {
        reward = 1.0;
      } else if (!sab_ && natural_ && player_.IsNatural() && reward == 1.0) {
        reward = 1.5;
      }
    }
    out.reward() = reward;
    out.terminated() = terminated;
    WriteObs(out);
  }

  // gymnasium's BlackjackEnv.render() (rgb_array): see render/blackjack.h. The showing card's
  // suit and face are those drawn at reset, as in gymnasium; after set_state (which has no
  // place for them) they follow from the hands: suit "CDHS"[(hidden + player's first two
  // cards) % 4], face "JQK"[(hidden + player's first card) % 3] (missing cards count 0).
  void Render(uint8_t* rgb) const override {
    const int shown = dealer_.cards[0];
    const char rank = shown == 1 ? 'A' : shown == 10 ? face_ : static_cast<char>('0' + shown);
    render::DrawBlackjack(rgb, player_.Sum(), shown, player_.UsableAce(), rank, suit_);
  }

  std::vector<double> GetState() const override {
    std::vector<double> state{static_cast<double>(dealer_.n)};
    for (int i = 0; i < dealer_.Stored(); ++i) state.push_back(dealer_.cards[static_cast<std::size_t>(i)]);
    for (int i = 0; i < player_.Stored(); ++i) state.push_back(player_.cards[static_cast<std::size_t>(i)]);
    return state;
  }

  void SetState(const std::vector<double>& state) override {
    const auto bad = [](const std::string& why) {
      return std::invalid_argument(
          "Blackjack: state is [number of dealer cards, dealer cards..., player cards...] with card values 1..10: " +
          why);
    };
    if (state.empty()) throw bad("got an empty state");
    const double nd = state[0];
    if (!(nd >= 1 && nd <= kMaxSetCards && nd == std::floor(nd))) throw bad("the dealer needs 1 to 32 cards");
    const auto n_dealer = static_cast<std::size_t>(nd);
    if (state.size() < 2 + n_dealer || state.size() > 1 + n_dealer + kMaxSetCards) {
      throw bad("the player needs 1 to 32 cards");
    }
    Hand dealer, player;
    for (std::size_t i = 1; i < state.size(); ++i) {
      const double c = state[i];
      if (!(c >= 1 && c <= 10 && c == std::floor(c))) throw bad("got card value " + std::to_string(c));
      (i <= n_dealer ? dealer : player).Add(static_cast<int>(c));
    }
    if (player.Sum() > 31) throw bad("the player's sum must be at most 31");
    dealer_ = dealer;
    player_ = player;
    const int hidden = dealer_.cards[1], p0 = player_.cards[0], p1 = player_.cards[1];
    suit_ = "CDHS"[(hidden + p0 + p1) % 4];
    face_ = "JQK"[(hidden + p0) % 3];
  }

 private:
  static constexpr std::size_t kMaxSetCards = 32;

  struct Hand {
    // Room for a set_state hand (<= 32 cards) plus what a step may add: one hit (the hand
    // busts at a raw sum over 21, or already has a sum of at most 31), or dealer draws (only
    // while the raw sum is under 17, i.e. at most 17 cards in all). Cards beyond the array
    // still count in the sums but are not kept (unreachable in play).
    std::array<int8_t, 64> cards{};
    int n = 0;
    int raw = 0;  // aces counted as 1
    bool has_ace = false;

    void Add(int card) {
      if (n < static_cast<int>(cards.size())) cards[static_cast<std::size_t>(n)] = static_cast<int8_t>(card);
      ++n;
      raw += card;
      has_ace = has_ace || card == 1;
    }
    int Stored() const { return std::min(n, static_cast<int>(cards.size())); }
    bool UsableAce() const { return has_ace && raw + 10 <= 21; }
    int Sum() const { return UsableAce() ? raw + 10 : raw; }
    int Score() const { return Sum() > 21 ? 0 : Sum(); }
    bool IsNatural() const {
      return n == 2 && ((cards[0] == 1 && cards[1] == 10) || (cards[0] == 10 && cards[1] == 1));
    }
  };

  static int DrawCard(Rng& rng) {
    static constexpr int8_t kDeck[13] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10};
    return kDeck[rng.Below(13)];
  }

  void WriteObs(Output& out) const {
    out.Obs<int64_t>(0)[0] = player_.Sum();
    out.Obs<int64_t>(1)[0] = dealer_.cards[0];
    out.Obs<int64_t>(2)[0] = player_.UsableAce() ? 1 : 0;
  }

  bool natural_, sab_;
  Hand dealer_, player_;
  char suit_ = 'C', face_ = 'J';  // the showing card's picture (Render)
};

}  // namespace envpool::toy_text
