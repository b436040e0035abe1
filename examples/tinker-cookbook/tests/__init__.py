"""Unit tests for rl_adv_examples (run: python3 -m unittest discover -s tests -t .)."""
