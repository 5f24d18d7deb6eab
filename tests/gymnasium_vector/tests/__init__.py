"""Testing for Gymnasium."""
