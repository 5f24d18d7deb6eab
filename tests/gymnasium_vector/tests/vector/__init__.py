"""Testing for `gymnasium.vector`."""
