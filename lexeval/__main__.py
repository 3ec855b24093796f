"""``python -m lexeval``: the same as the ``lexeval`` command."""

from .cli import main

if __name__ == "__main__":
    main()
