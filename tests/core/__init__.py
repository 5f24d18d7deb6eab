"""The pool itself (cpp/core through envpool.make): stepping, autoreset, options, bad input, the
per-env generator, closing, robustness and the fuzzer."""
