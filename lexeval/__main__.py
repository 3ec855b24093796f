"""``python -m lexeval`` and the ``lexeval`` command.

``--version`` is answered before click (or anything else) is imported."""

import sys


def main(argv=None) -> None:
    args = sys.argv[1:] if argv is None else list(argv)
    if args == ["--version"]:
        from . import __version__
        print(f"lexeval, version {__version__}")
        return
    from .cli import main as run
    run(argv)


if __name__ == "__main__":
    main()
