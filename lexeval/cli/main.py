"""Entry point: run the command and turn every outcome into an exit status
(0 success, 1 a gate failed, 2 a user's error, 3 a bug), never a traceback."""

from __future__ import annotations

import os
import sys
import traceback

import click

from .. import __version__
from ..errors import InputError, OutputError, UsageError
from .command import GateFailed, PipeClosed, command


def main(argv=None) -> None:
    """Entry point: run the command, turning input errors into exit 2."""
    # identifiers that are not UTF-8 are held as surrogates: print their bytes
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="surrogateescape" if stream is sys.stdout else "backslashreplace")
    try:
        # the command as typed, for the provenance a page or --provenance carries
        typed = list(sys.argv[1:] if argv is None else argv)
        command.main(args=argv, prog_name="lexeval", standalone_mode=False, obj={"argv": ["lexeval", *map(str, typed)]})
    except (InputError, UsageError, OutputError) as error:
        click.echo(f"lexeval: error: {error}", err=True)
        _error_for_ci(typed, str(error))
        sys.exit(2)
    except GateFailed:
        sys.exit(1)
    except ModuleNotFoundError as error:
        # a dependency missing from this Python (e.g. rich for --format table)
        package = (error.name or "?").split(".")[0]
        if package == "lexeval":
            _internal_error(error)
        click.echo(f"lexeval: error: this needs the Python package '{package}', which is not installed "
                   f"here (pip install {package}, or reinstall lexeval)", err=True)
        sys.exit(2)
    except click.exceptions.Abort:
        sys.exit(130)
    except click.exceptions.Exit as done:
        sys.exit(done.exit_code)
    except click.UsageError as error:
        # click's own usage errors (an unknown option, a bad value) read like
        # every other usage error: "lexeval: error: ...", exit 2
        if error.ctx is not None:
            click.echo(error.ctx.get_usage(), err=True)
            click.echo("Try 'lexeval -h' for help.", err=True)
        click.echo(f"lexeval: error: {error.format_message()}", err=True)
        _error_for_ci(typed, error.format_message())
        sys.exit(2)
    except click.ClickException as error:
        click.echo(f"lexeval: error: {error.format_message()}", err=True)
        _error_for_ci(typed, error.format_message())
        sys.exit(2)
    except (BrokenPipeError, PipeClosed):
        _pipe_closed()
    except Exception as error:                  # a bug: never a traceback, never exit 1
        _internal_error(error)
    sys.exit(0)


INTERNAL_ERROR_STATUS = 3


def _error_for_ci(typed: list[str], message: str) -> None:
    """A gate that ends in exit 2 still writes its --gate-report, with one
    error test case naming the message (CI's publishing step then shows why);
    a report that cannot be written is left alone (the error is said already)."""
    path = None
    for index, argument in enumerate(typed):
        if argument == "--gate-report" and index + 1 < len(typed):
            path = typed[index + 1]
        elif argument.startswith("--gate-report="):
            path = argument.partition("=")[2]
    gated = any(argument == "--gate" or argument.startswith("--gate=") for argument in typed)
    if not path or path.startswith("-") or not gated:
        return
    from ..output.gate_report import junit_error
    try:
        with open(f"{path}.partial", "w", encoding="utf-8") as out:
            out.write(junit_error(message))
        os.replace(f"{path}.partial", path)
    except OSError:
        pass


def _pipe_closed() -> None:
    """Output piped into head: not an error, exit 0. Point stdout at
    /dev/null so that the interpreter's final flush does not complain."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass
    sys.exit(0)


def _internal_error(error: Exception) -> None:
    """Report an unexpected exception as lexeval's bug, exit status 3.

    Set LEXEVAL_TRACEBACK=1 to see the traceback as well."""

    if os.environ.get("LEXEVAL_TRACEBACK"):
        traceback.print_exc()
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    frames = [frame for frame in traceback.extract_tb(error.__traceback__)
              if os.path.abspath(frame.filename).startswith(package)]
    where = f" (at {os.path.relpath(frames[-1].filename, os.path.dirname(package))}:{frames[-1].lineno})" \
        if frames else ""
    click.echo(f"lexeval: internal error: {type(error).__name__}: {error}{where}", err=True)
    click.echo(f"lexeval: this is a bug in lexeval {__version__}; please report it with the command "
               "that caused it (LEXEVAL_TRACEBACK=1 shows the traceback)", err=True)
    sys.exit(INTERNAL_ERROR_STATUS)
