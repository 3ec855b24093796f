"""The command's side of the cluster: a quiet Dask client, connected."""

from __future__ import annotations

from ..errors import UsageError

# ---------------------------------------------------------------- client side


#: Above every logging level: Dask's own lines (a worker's "Compute Failed", a
#: heartbeat's traceback at shutdown) never reach the command's stderr.
_SILENT = 60


def quiet_dask() -> None:
    """The command's stderr carries lexeval's lines only: Dask's loggers in
    this process (the client's) are silenced; LocalCluster's workers are
    started silent (``silence_logs``). The library leaves logging alone."""
    import logging
    import warnings
    for name in ("distributed", "dask", "tornado", "asyncio", "bokeh"):
        logger = logging.getLogger(name)
        logger.setLevel(_SILENT)
        logger.propagate = False
        # and Dask's warnings ("Port 8787 is already in use", ...)
        warnings.filterwarnings("ignore", module=rf"{name}(\.|$)")


def connect(address: str):
    """The command's dask.distributed Client, with Dask quiet (see
    :func:`quiet_dask`): ``local`` starts a LocalCluster of this machine's
    cores (2 workers at least), else ``tcp://host:port``."""
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        raise UsageError("--cluster needs Dask: pip install 'lexeval[dask]'") from None
    quiet_dask()
    if address == "local":
        import sys

        import dask

        from ..cpus import jobs
        workers = jobs()            # the processors this process may use, or --jobs
        # On Linux the workers are forked from this process, which has only just started (no thread of
        # lexeval's yet, nothing read): they start with Dask and lexeval imported, in 0.08 s, not the 0.4 s
        # of spawning fresh interpreters, and stop in 0.02 s, not 0.17 s. Elsewhere, Dask's default.
        method = {"distributed.worker.multiprocessing-method": "fork"} if sys.platform == "linux" else {}
        with dask.config.set(method):
            # the scheduler's web server on a free local port: never 8787, which a user's own cluster may hold
            cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                   dashboard_address="127.0.0.1:0", silence_logs=_SILENT)
        client = Client(cluster)
        client.lexeval_forked = bool(method)  # type: ignore[attr-defined]  # its workers run this lexeval
        return client
    import asyncio
    host_port = address.split("://", 1)[-1]
    try:
        if host_port.rsplit(":", 1)[-1].isdigit():        # refused at once, rather than after the client's wait
            import socket
            host, port = host_port.rsplit(":", 1)
            socket.create_connection((host.strip("[]"), int(port)), timeout=10).close()
        return Client(address, timeout="30s")
    except (OSError, TimeoutError, asyncio.TimeoutError, ValueError) as exc:     # asyncio's: before Python 3.11
        raise UsageError(f"--cluster {address}: cannot reach the scheduler ({exc})") from None
