"""``python -m lexeval`` and the ``lexeval`` command.

``--version`` is answered before click (or anything else) is imported."""

import os
import sys


def main(argv=None) -> None:
    args = sys.argv[1:] if argv is None else list(argv)
    if args == ["--version"]:
        from . import __version__
        print(f"lexeval, version {__version__}")
        return
    # one BLAS thread (unless the user says otherwise), set before numpy loads OpenBLAS: lexeval's matrix
    # products are small and many (a pair's cross terms), and a second thread waking for each, then
    # spinning, cost the Robust04-sized default call 0.18 s of its 2 s on two cores
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    from .cpus import one_heap
    one_heap()                  # peak memory the same on any number of threads (see cpus.one_heap)
    from .cli import main as run
    run(argv)


if __name__ == "__main__":
    main()
