"""Set-up of the robustness tests: a quiet TensorFlow (before any test module imports keras)."""

import os

os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '3')
