"""cpp/envs/box2d against gymnasium's Box2D envs (box2d 2.3.10, the oracle)."""
