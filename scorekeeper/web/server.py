"""Serving the page: bind a port, run waitress, tell the table where to look.

Shared by ``scorekeeper serve`` (the page alone) and ``scorekeeper run`` / ``demo`` / ``enrol`` (the
page in a thread beside the camera). Waitress rather than Werkzeug's development server: it reads
requests on one event loop, so a connection that never finishes its headers costs a socket, not a
thread, and is closed after ``channel_timeout``; it caps open connections; it is pure Python (no
compiler on the café's laptop) and speaks plain WSGI, so the Flask app is unchanged. Each open event
stream holds one of its worker threads, so the pool grows by one thread per open stream and shrinks
when it closes (an ended thread gives its stack back, a parked one would not), up to
``max_streams``; the hub refuses streams beyond that (the page then polls).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import ipaddress
import logging
import resource
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from waitress.channel import HTTPChannel
from waitress.server import BaseWSGIServer, create_server
from waitress.task import ThreadedTaskDispatcher, WSGITask

from scorekeeper.errors import ScorekeeperError
from scorekeeper.web.live import HANG_UP

SPARE_THREADS = 8
"""Worker threads left for ordinary requests when every event stream is open."""


class ServeError(ScorekeeperError):
    """The page cannot be served (the port is busy, the address is not this machine's)."""


@dataclass(frozen=True)
class ServerLimits:
    """How much one client may hold; each knob trades a hostile client's reach for a slow
    phone's."""

    channel_timeout: int = 20
    """Seconds a connection may sit idle (or dribble its headers) before it is closed; raising it
    helps phones on a bad Wi-Fi keep their connection, and lets idle sockets pile up for longer."""
    connection_limit: int = 4000
    """Open connections at most (lowered to fit the process's file limit); beyond it waitress stops
    accepting until some close."""
    max_streams: int = 256
    """Event streams open at once, one worker thread each."""
    outbuf_high_watermark: int = 16 << 10
    """Bytes queued for one connection before its worker waits for the phone to read."""
    max_request_header_size: int = 16 << 10
    max_request_body_size: int = 1 << 20
    send_buffer: int | None = None
    """The kernel's send buffer per connection (None: the system's, which grows to megabytes)."""


def check_port(port: int) -> int:
    if not 0 <= port <= 65535:
        raise ServeError(f"--port {port}: a port is a number from 1 to 65535 (0: any free port)")
    return port


def lan_address() -> str:
    """This machine's address on the LAN, as a phone would reach it (no packet is sent)."""
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect(
            ("192.0.2.1", 9)
        )  # a documentation address: connect() on UDP only picks a route
        address: str = probe.getsockname()[0]
        return address
    except OSError:
        return "127.0.0.1"
    finally:
        probe.close()


def qr_text(url: str) -> str:
    """The URL as a QR code in half-block characters; inverted, so it scans on a dark terminal."""
    import io

    import qrcode

    code = qrcode.QRCode(border=2)
    code.add_data(url)
    out = io.StringIO()
    code.print_ascii(out=out, invert=True)
    return out.getvalue().rstrip("\n")


def listen(host: str, port: int) -> socket.socket:
    """Bind here, so a bad address or a busy port is our one-line error."""
    check_port(port)
    try:
        family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
    except (socket.gaierror, UnicodeError):
        raise ServeError(
            f"--host {host!r} is not an address: use 0.0.0.0 (every network), "
            "127.0.0.1 (this machine) or one of this machine's addresses"
        ) from None
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # restart at once after Ctrl-C
        sock.bind((host, port))
        sock.listen(1024)
    except OSError as error:
        sock.close()
        if error.errno == errno.EADDRNOTAVAIL:
            raise ServeError(
                f"--host {host}: not an address of this machine: "
                "use 0.0.0.0 (every network) or 127.0.0.1"
            ) from None
        raise ServeError(
            f"cannot listen on {host}:{port}: {error.strerror}: choose another --port"
        ) from None
    return sock


def allowed_hosts(host: str, shown: str) -> list[str]:
    """Host headers the page answers: the address it prints and this machine by name. Anything else
    is a browser tricked by DNS rebinding into sending a page's requests to the table."""
    names = {"localhost", "127.0.0.1", "::1", shown}
    if host not in ("0.0.0.0", "::"):
        names.add(host)
    return sorted(names)


def _open_file_limit(wanted: int) -> int:
    """Raise this process's open-file limit towards ``wanted`` (each connection is a file)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError):
            pass
    return int(soft)


ACCEPT_BATCH = 64


def _accept_in_batches(server: Any, *, limit: int) -> Callable[[], None]:
    """Waitress accepts one connection per turn of its loop, and each turn visits every open
    connection: behind 1,000 sockets a phone would wait for 1,000 turns. Accept up to
    ``ACCEPT_BATCH`` at a time instead."""
    accept_one = server.handle_accept

    def accept() -> None:
        for _ in range(ACCEPT_BATCH):
            before = len(server._map)
            accept_one()
            if len(server._map) == before or len(server._map) >= limit:
                return  # nothing was waiting (or the cap is reached)

    return accept


_M_ARENA_MAX = -8


def _libc() -> Any:
    return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")


def share_malloc_arenas() -> None:
    """One glibc malloc arena per worker thread (up to 8 per core) keeps each thread's freed
    buffers to itself; two shared arenas let what one stream freed serve the next."""
    try:
        _libc().mallopt(_M_ARENA_MAX, 2)
    except (OSError, AttributeError):  # not glibc
        pass


def give_memory_back() -> None:
    """Ask glibc to return the free pages of every malloc arena to the system: the buffers of 200
    phones that went away are free, but sit inside per-thread arenas the process would keep."""
    try:
        _libc().malloc_trim(0)
    except (OSError, AttributeError):  # not glibc: nothing to ask
        pass


class _GrowingDispatcher(ThreadedTaskDispatcher):
    """Waitress's worker pool, grown by a thread whenever a request would wait (each open event
    stream holds one) up to ``most``, and shrunk back as streams close: an ended thread gives its
    stack and buffers back, a parked one would keep them."""

    def __init__(self, *, spare: int, most: int) -> None:
        super().__init__()
        self.spare = spare
        self.most = most
        self.set_thread_count(spare)

    def _running(self) -> int:
        return len(self.threads) - self.stop_count

    def add_task(self, task: Any) -> None:
        with self.lock:
            idle = self._running() - self.active_count
            grow = len(self.queue) >= idle and self._running() < self.most
            running = self._running()
        if grow:
            self.set_thread_count(running + 1)
        super().add_task(task)

    def shrink_to(self, busy: int) -> None:
        """``busy`` threads are held by streams: keep them and ``spare`` more."""
        with self.lock:
            running = self._running()
            waiting = len(self.queue)
        if not waiting and running > busy + self.spare:
            self.set_thread_count(busy + self.spare)
        if busy == 0:
            give_memory_back()


class _Task(WSGITask):
    def get_environment(self) -> dict[str, Any]:
        environ: dict[str, Any] = super().get_environment()
        channel = self.channel

        def hang_up() -> None:
            # Closing runs on the server's loop thread (its trigger), never under a worker's feet;
            # once the server has stopped, the connection closed with it.
            pull_trigger(channel.server, channel.handle_close)

        environ[HANG_UP] = hang_up
        return environ


class _Channel(HTTPChannel):
    task_class = _Task


@dataclass
class PageServer:
    server: Any
    url: str
    port: int
    hosts: list[str] = field(default_factory=list)
    """The Host headers the app should accept (``TRUSTED_HOSTS``)."""
    thread: threading.Thread | None = None
    on_stop: list[Callable[[], None]] = field(default_factory=list)

    def serve_forever(self) -> None:
        self.server.run()

    def start_in_background(self) -> None:
        self.thread = threading.Thread(target=self.server.run, name="scorekeeper-web", daemon=True)
        self.thread.start()

    def wait(self) -> None:
        """Block until the background server stops (Ctrl-C in the main thread ends the wait)."""
        if self.thread is not None:
            while self.thread.is_alive():
                self.thread.join(timeout=0.5)

    def stop(self) -> None:
        for hook in self.on_stop:  # the event streams end first, so their workers are free
            hook()
        loop_map = self.server._map
        leaving = list(loop_map.values())
        loop_map.clear()
        if self.thread is not None:
            # The loop ends when its map is empty; its sockets are closed once it has. Closed
            # under its select they fail it with EBADF, and a freed descriptor number can be
            # handed to another socket it still waits on.
            self.server.accepting = False
            deadline = time.monotonic() + 5
            while self.thread.is_alive() and time.monotonic() < deadline:
                self._wake_loop()
                self.thread.join(timeout=0.2)
                leaving += list(loop_map.values())  # accepted in the loop's last turn
                loop_map.clear()
        for dispatcher in leaving:
            dispatcher.close()
        self.server.task_dispatcher.shutdown(cancel_pending=True, timeout=2)

    def _wake_loop(self) -> None:
        # Without a trigger (the server closed it already) the loop's one-second timeout wakes it.
        pull_trigger(self.server)


def pull_trigger(server: Any, thunk: Callable[[], None] | None = None) -> None:
    """Wake waitress's loop (running ``thunk`` there), unless its trigger is closed: a closed
    trigger's descriptor number may belong to another file by now, which a wake-up byte would
    be written into."""
    trigger = server.trigger
    if trigger._closed:
        return
    try:
        trigger.pull_trigger(thunk)
    except OSError:  # closed between the check and the write
        pass


def make_page_server(
    app: Any, host: str, port: int, *, limits: ServerLimits | None = None
) -> PageServer:
    limits = limits or ServerLimits()
    listener = listen(host, port)
    share_malloc_arenas()
    connections = min(
        limits.connection_limit, _open_file_limit(limits.connection_limit + 256) - 128
    )
    workers = _GrowingDispatcher(spare=SPARE_THREADS, most=limits.max_streams + SPARE_THREADS)
    server = create_server(
        app,
        _dispatcher=workers,
        sockets=[listener],
        connection_limit=max(connections, 16),
        channel_timeout=limits.channel_timeout,
        cleanup_interval=max(1, limits.channel_timeout // 4),
        outbuf_high_watermark=limits.outbuf_high_watermark,
        max_request_header_size=limits.max_request_header_size,
        max_request_body_size=limits.max_request_body_size,
        asyncore_use_poll=True,  # select() stops at 1,024 sockets
        ident="scorekeeper",
        clear_untrusted_proxy_headers=True,
    )
    if not isinstance(server, BaseWSGIServer):  # one socket given, so one server made
        raise TypeError("waitress made a server for several sockets out of one")
    server.channel_class = _Channel
    if limits.send_buffer:  # waitress sets these on every connection it accepts
        server.adj.socket_options = [
            *server.adj.socket_options,
            (socket.SOL_SOCKET, socket.SO_SNDBUF, limits.send_buffer),
        ]
    # This one server's accept loop, replaced: waitress picks the server class itself.
    server.handle_accept = _accept_in_batches(  # type: ignore[method-assign]
        server, limit=max(connections, 16)
    )
    logging.getLogger("waitress").setLevel(logging.ERROR)  # not a line per phone that walks away
    bound = listener.getsockname()[1]
    shown = lan_address() if host in ("0.0.0.0", "::") else host
    named = f"[{shown}]" if _is_ipv6(shown) else shown
    page = PageServer(
        server=server, url=f"http://{named}:{bound}/", port=bound, hosts=allowed_hosts(host, shown)
    )
    configure = getattr(app, "config", None)
    if configure is not None:
        configure["TRUSTED_HOSTS"] = page.hosts
        configure.setdefault("MAX_STREAMS", limits.max_streams)
        hub = getattr(app, "extensions", {}).get("scorekeeper.hub")
        if hub is not None:
            hub.max_streams = limits.max_streams
            hub.on_stream_end = workers.shrink_to
            page.on_stop.append(hub.close)
    return page


def _is_ipv6(address: str) -> bool:
    try:
        return ipaddress.ip_address(address).version == 6
    except ValueError:
        return False


def announce(
    page: PageServer, *, pin: str | None, pin_origin: str, database: str, qr: bool
) -> None:
    """``pin`` None: the stored PIN is kept, and only its hash is known here."""
    print(f"Score page: {page.url}  (open it on a phone on the same network)")
    if qr:
        print(qr_text(page.url))
    print(f"Table PIN for corrections: {pin or 'unchanged'}  ({pin_origin})")
    print(f"Event store: {database}", flush=True)
