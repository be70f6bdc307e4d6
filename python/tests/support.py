"""Shared by the Python tests: where the repository is, and the package from python/src.

Run from ctest (tests/CMakeLists.txt sets STEPDOCTOR_BIN to the built CLI) or by hand:
    STEPDOCTOR_BIN=build/stepdoctor /usr/bin/python3 -m unittest discover -s python/tests
"""

import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLES = os.path.join(REPO, "examples")
INPUT_BOUND = os.path.join(EXAMPLES, "dataloader_input_bound.pt.trace.json.gz")
IN_MEMORY = os.path.join(EXAMPLES, "dataloader_in_memory.pt.trace.json.gz")

_SRC = os.path.join(REPO, "python", "src")
if _SRC not in sys.path:
    sys.path.insert(0, _SRC)


def torch_missing():
    """Why the torch tests cannot run here, or None when `import torch` works."""
    try:
        import torch  # noqa: F401
    except Exception as e:  # ImportError, or a broken install failing on load
        return f"import torch failed ({type(e).__name__}: {e}); install python3-torch (scripts/deps.sh --test)"
    return None
