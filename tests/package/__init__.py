"""Checks of the package as a whole: its import layers, its size caps, its docstring examples."""
