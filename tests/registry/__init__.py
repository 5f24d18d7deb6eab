"""Task registration (envpool.registration, envpool.tasks, envpool.plugins): known tasks, lazy
loading, C++ plugins."""
