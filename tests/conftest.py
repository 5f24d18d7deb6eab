"""Shared test setup: registers the StepCounter-v0 test plugin (envpool.testing) for every test."""

import envpool.testing

envpool.testing.load_step_counter()
