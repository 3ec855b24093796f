"""The client's code on the workers: a worker needs Dask and lexeval's
dependencies (numpy, scipy, pyarrow), not lexeval. Before a call, every
worker is asked which lexeval it runs (a digest of the package's files);
where one lacks it, or runs other code, the client's package goes to every
worker as a zip (Dask's UploadFile plugin, so workers that join later get
it too) and is imported from there. A worker that still cannot run the
client's code makes the call fail at once, with what it lacks; it never
waits on tasks that cannot run.
"""

from __future__ import annotations

import os
import tempfile
import zipfile

from ..errors import UsageError

#: What a worker needs besides Dask (and what the probe imports to see it).
NEEDED = ("numpy", "scipy", "pyarrow")


def _probe(check: bool = True) -> dict:
    """lexeval's digest (names and bytes of its files, wherever they are: a
    folder, a zip), or with ``check`` first what stops lexeval or one of its
    dependencies from being imported. Runs on the workers too, sent by
    value (see :func:`_by_value`): it names nothing outside its body."""
    import hashlib
    import importlib
    from importlib import resources
    try:
        # what a partition's task unpickles: the package, its dependencies, the one-machine code
        for name in ("numpy", "scipy", "pyarrow", "lexeval.cluster.partition", "lexeval.evaluation") if check else ():
            importlib.import_module(name)
    except Exception as exc:              # reported to the client, which refuses the call
        return {"error": f"{type(exc).__name__}: {exc}"}
    digest, pending, found = hashlib.sha256(), [("", resources.files("lexeval"))], []
    while pending:
        prefix, folder = pending.pop()
        for item in folder.iterdir():
            if item.is_dir():
                if item.name != "__pycache__":
                    pending.append((f"{prefix}{item.name}/", item))
            elif item.name.endswith((".py", ".html", ".css", ".js")):
                found.append((f"{prefix}{item.name}", item))
    files = sorted(((name, item.read_bytes()) for name, item in found), key=lambda pair: pair[0])
    for name, data in files:
        digest.update(name.encode() + b"\0" + data + b"\0")
    return {"digest": digest.hexdigest(), **({"files": files} if not check else {})}


def package_digest() -> str:
    """The digest of this process's lexeval: equal digests, the same code."""
    return _probe(check=False)["digest"]


def _forget_lexeval() -> None:
    """Drop every lexeval module a worker has imported, so that the next
    import reads the shipped zip (sent by value)."""
    import sys
    for name in [name for name in sys.modules if name == "lexeval" or name.startswith("lexeval.")]:
        del sys.modules[name]


def _by_value(function):
    """A copy of ``function`` that belongs to no module: Dask's pickler then
    sends its code, so a worker without lexeval can run it."""
    import builtins
    import types
    return types.FunctionType(function.__code__, {"__builtins__": builtins}, function.__name__,
                              function.__defaults__)


def _archive(folder: str) -> tuple[str, str]:
    """(the package as a zip in ``folder``, lexeval/... inside, named by its digest; the digest)."""
    package = _probe(check=False)
    path = os.path.join(folder, f"lexeval-{package['digest'][:16]}.zip")
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in package["files"]:
            archive.writestr(f"lexeval/{name}", data)
    return path, package["digest"]


def ship(client) -> bool:
    """Make every worker run this client's lexeval; returns whether the code
    had to be sent. Raises UsageError for a worker that cannot run it.
    Workers forked from this process (``--cluster local`` on Linux) run its
    code already."""
    if getattr(client, "lexeval_forked", False):
        return False
    digest = package_digest()
    answers = _ask(client)
    if all(answer.get("digest") == digest for answer in answers.values()):
        return False
    from distributed.diagnostics.plugin import UploadFile
    client.run(_by_value(_forget_lexeval))
    with tempfile.TemporaryDirectory(prefix="lexeval-ship-") as folder:
        plugin = UploadFile(_archive(folder)[0])
        if hasattr(client, "register_plugin"):
            client.register_plugin(plugin, name="lexeval-code")
        else:                                                  # distributed before 2023.9.2
            client.register_worker_plugin(plugin, name="lexeval-code")
    answers = _ask(client)
    wrong = {address: answer for address, answer in answers.items() if answer.get("digest") != digest}
    if wrong:
        address, answer = sorted(wrong.items())[0]
        what = answer.get("error") or "it runs other lexeval code than the client's"
        raise UsageError(f"--cluster: the worker {address} cannot run lexeval ({what}); a worker needs Dask and "
                         f"lexeval's dependencies ({', '.join(NEEDED)}) in its Python")
    return True


def _ask(client) -> dict:
    """Every worker's answer to the probe (the call fails if there is none)."""
    try:
        answers = client.run(_by_value(_probe))
    except Exception as exc:                  # a worker that cannot even run the probe
        raise UsageError(f"--cluster: the workers cannot run the client's code ({type(exc).__name__}: {exc})") \
            from None
    if not answers:
        raise UsageError("--cluster: the scheduler has no worker")
    return answers
