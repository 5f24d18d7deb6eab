"""cpp/envs/toy_text against gymnasium's toy-text envs."""
