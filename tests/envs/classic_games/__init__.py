"""cpp/envs/classic_games against PettingZoo's classic games."""
