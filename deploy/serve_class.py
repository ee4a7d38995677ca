"""Serve a class: ``posviz app`` processes behind Debian's nginx, with sticky sessions.

    python deploy/serve_class.py                                  # one process per core, http://127.0.0.1:8080
    python deploy/serve_class.py --processes 2 --port 8080
    python deploy/serve_class.py --processes 4 --listen 0.0.0.0   # let the room's network in (see docs/DEPLOY.md)
    python deploy/serve_class.py --listen 0.0.0.0 --upstream 10.0.0.11:8501 --upstream 10.0.0.12:8501

One Streamlit process runs a session's reruns on one core at a time (Python's GIL), so a class on a
machine with several cores is served by several processes. Each student's browser must keep talking to
the process that holds its session: the websocket, the reconnect after a network blip and the download
URLs of exports all live in that one process. nginx (``apt-get install nginx``) gives every new
browser a ``posviz_backend`` cookie and hashes on it, so a browser stays with its process; a hash on the
client address (``ip_hash``) would also be sticky, but sends a whole NAT'ed room, or every session of
a loopback benchmark, to one process. The app processes listen on 127.0.0.1 only; only nginx faces the
room. Everything lives in one temporary directory (config, logs, nginx's temp files), removed at exit.

The script supervises: an app process that exits (a crash, the out-of-memory killer) is started again on
its port after a back-off (1 s, 2 s, 4 s ... at most 30 s; back to 1 s once it has stayed up a minute)
while the others keep serving. nginx sends no one to it meanwhile (a refused connection goes to the next
process at once, and the process is marked ``down`` in the configuration) and takes it back once its
``/_stcore/health`` answers. nginx itself is restarted the same way. Each death and restart is one line
on stderr. Only Ctrl-C (or SIGTERM) stops nginx and every app process.

``--upstream HOST:PORT`` (repeatable) adds an app process that runs elsewhere, started separately (``posviz
app --server.address 0.0.0.0`` on another machine): nginx sends browsers to it with the same cookie and hash,
and with only upstreams no local process is started unless ``--processes`` asks for some. The script cannot
restart a process on another machine; it watches it instead. nginx's own passive check takes an upstream out
for ``fail_timeout`` at its first refused or failed connection; the supervisor asks every upstream's
``/_stcore/health`` every few seconds, marks it ``down`` after two failed answers in a row and takes it back at
its first good one (one line on stderr each).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[1]

BACKOFF_FIRST, BACKOFF_CAP = 1.0, 30.0  # seconds before restarting a dead process: 1, 2, 4 ... 30
STABLE_SECONDS = 60.0     # a process that stayed up this long starts the back-off again at BACKOFF_FIRST
START_SECONDS = 120.0     # a restarted app process that does not answer its health check by then is killed
FAIL_TIMEOUT = 5          # nginx: seconds a process that refused a connection gets no new connection
POLL_SECONDS = 0.2        # how often the supervisor looks at the processes
UPSTREAM_PROBE_SECONDS = 2.0  # how often the supervisor asks each --upstream's /_stcore/health
UPSTREAM_PROBE_TIMEOUT = 3.0  # seconds an answer may take (a busy app's health check answers between reruns)
UPSTREAM_DOWN_AFTER = 2       # failed answers in a row that take an upstream out (one slow answer does not)

NGINX_CONF = """\
daemon off;
worker_processes 1;
pid {run}/nginx.pid;
error_log {run}/error.log warn;
events {{ worker_connections 4096; }}

http {{
    access_log off;
    client_body_temp_path {run}/tmp/body;
    proxy_temp_path {run}/tmp/proxy;
    fastcgi_temp_path {run}/tmp/fastcgi;
    uwsgi_temp_path {run}/tmp/uwsgi;
    scgi_temp_path {run}/tmp/scgi;

    # Streamlit's websocket: pass the Upgrade handshake through
    map $http_upgrade $connection_upgrade {{ default upgrade; "" close; }}
    # Sticky sessions: a browser without the cookie gets a random key (this request's id) and the cookie
    # that repeats it; the hash maps the key to the same app process for every later request and websocket.
    map $cookie_posviz_backend $posviz_key {{ "" $request_id; default $cookie_posviz_backend; }}
    map $cookie_posviz_backend $posviz_set_cookie {{
        "" "posviz_backend=$request_id; Path=/; HttpOnly; SameSite=Lax";
        default "";
    }}

    upstream posviz {{
        hash $posviz_key consistent;
{servers}
    }}

    server {{
        listen {listen}:{port};
        # Streamlit's websocket: long-lived. A handshake the process cannot take (connection refused: the
        # process died; 502/503) is tried on the next process before anything reached the browser.
        location = /_stcore/stream {{
            proxy_pass http://posviz;
            proxy_http_version 1.1;
            proxy_set_header Upgrade $http_upgrade;
            proxy_set_header Connection $connection_upgrade;
            # with the port: Streamlit accepts a websocket only if its Origin matches the Host it sees
            proxy_set_header Host $http_host;
            proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
            proxy_connect_timeout 5s;
            proxy_next_upstream error timeout http_502 http_503;
            proxy_read_timeout 1h;
            proxy_send_timeout 1h;
            proxy_buffering off;
            add_header Set-Cookie $posviz_set_cookie always;
            add_header X-Posviz-Upstream $upstream_addr always;  # which app process answered (a loopback port)
        }}
        # Pages, static files, health, media and uploads: a GET that fails is retried on the next process
        # (nginx never retries a POST or PUT, e.g. an upload, that may have reached the process). A 404 is
        # retried too: after a failover a browser's session (and the export files it made) lives on the
        # process its websocket moved to, while its cookie hashes back to the restarted one
        location / {{
            proxy_pass http://posviz;
            proxy_http_version 1.1;
            proxy_set_header Upgrade $http_upgrade;
            proxy_set_header Connection $connection_upgrade;
            proxy_set_header Host $http_host;
            proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
            proxy_connect_timeout 5s;
            proxy_next_upstream error timeout http_502 http_503 http_504 http_404;
            proxy_read_timeout 1h;
            proxy_send_timeout 1h;
            proxy_buffering off;
            client_max_body_size 20m;
            add_header Set-Cookie $posviz_set_cookie always;
            add_header X-Posviz-Upstream $upstream_addr always;
        }}
    }}
}}
"""


def nginx_conf(run: Path, listen: str, port: int, backends: list[int | str],
               down: frozenset[int | str] = frozenset()) -> str:
    """nginx.conf text: ``listen:port`` proxied to every backend, sticky on a cookie.

    A backend is a port on 127.0.0.1 (a local app process) or ``"HOST:PORT"`` (an upstream elsewhere). One in
    ``down`` (a process that died and does not answer its health check yet) stays in the list but marked
    ``down``: consistent hashing keeps every other browser on its process. ``max_fails=1`` takes a process
    out for ``fail_timeout`` at its first refused connection, before the supervisor notices.
    """
    servers = "\n".join(f"        server {_address(b)} max_fails=1 fail_timeout={FAIL_TIMEOUT}s"
                         f"{' down' if b in down else ''};" for b in backends)
    return NGINX_CONF.format(run=run, listen=listen, port=port, servers=servers)


def _address(backend: int | str) -> str:
    return f"127.0.0.1:{backend}" if isinstance(backend, int) else backend


def upstream_address(text: str) -> str:
    """``HOST:PORT`` (``[v6]:PORT`` for an IPv6 address) checked and returned as nginx and a URL write it."""
    host, sep, port = text.strip().rpartition(":")
    bare = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    if not sep or not bare or not port.isdigit() or not 1 <= int(port) <= 65535 or ("[" in bare or "/" in bare):
        raise ValueError(f"upstream must be HOST:PORT with PORT in 1..65535 (e.g. 10.0.0.11:8501), got {text!r}")
    if ":" in bare and not host.startswith("["):
        raise ValueError(f"upstream must write an IPv6 address in brackets ([::1]:8501), got {text!r}")
    return f"{host}:{int(port)}"


def free_ports(n: int) -> list[int]:
    """``n`` distinct free TCP ports on loopback (bound together so they differ)."""
    socks = [socket.socket() for _ in range(n)]
    try:
        for s in socks:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def wait_healthy(url: str, procs: list[subprocess.Popen], seconds: float = 120) -> None:
    """Poll ``url``/_stcore/health until it answers "ok"; fail early if one of ``procs`` exits."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        for proc in procs:
            if proc.poll() is not None:
                log = Path(proc.stdout_path).read_text()[-1500:] if hasattr(proc, "stdout_path") else ""
                raise RuntimeError(f"{' '.join(map(str, proc.args[:4]))} exited with {proc.returncode}:\n{log}")
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as resp:
                if resp.read() == b"ok":
                    return
        except OSError:
            time.sleep(0.3)
    raise RuntimeError(f"{url}/_stcore/health did not answer within {seconds:.0f} s")


def _logged_popen(cmd: list[str], log: Path, mode: str = "w", **kwargs: object) -> subprocess.Popen:
    """Popen with stdout and stderr going to ``log`` (remembered as ``proc.stdout_path`` for errors).

    The process gets a session of its own, so a Ctrl-C in the terminal reaches only this script, which
    then stops nginx and the app processes in order (and the supervisor does not take it for a crash).
    """
    with log.open(mode) as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, start_new_session=True, **kwargs)
    proc.stdout_path = str(log)
    return proc


def _nginx() -> str:
    found = shutil.which("nginx") or next((p for p in ("/usr/sbin/nginx",) if os.access(p, os.X_OK)), None)
    if not found:
        raise RuntimeError("nginx is not installed: apt-get install nginx (Debian/Ubuntu)")
    return found


def _exit_text(code: int) -> str:
    """``-9 (SIGKILL)`` for a process killed by a signal, else the code itself."""
    if code < 0:
        try:
            return f"{code} ({signal.Signals(-code).name})"
        except ValueError:
            pass
    return str(code)


def _log(line: str) -> None:
    print(f"{time.strftime('%H:%M:%S')} serve_class: {line}", file=sys.stderr, flush=True)


def _healthy(url: str, timeout: float = 1.0) -> bool:
    """Whether ``url``/_stcore/health answers "ok" now."""
    try:
        with urllib.request.urlopen(f"{url}/_stcore/health", timeout=timeout) as resp:
            return resp.read() == b"ok"
    except OSError:
        return False


@dataclass
class _Child:
    """One supervised process: what starts it, and where it is in its cycle of death and restart."""

    name: str                      # "app process" or "nginx", for the log
    port: int                      # the port it listens on (an app's own port; nginx's public one)
    cmd: list[str]
    log: Path
    proc: subprocess.Popen
    started: float                 # time.monotonic() at its last start
    serving: bool = True           # an app: in nginx's upstream (False from its death until it is healthy)
    delay: float = BACKOFF_FIRST   # back-off before the next restart
    restart_at: float | None = None  # set while it is dead and waiting to be restarted
    last_exit: int | None = None


@dataclass
class _Upstream:
    """An app process on another host: whether nginx sends browsers to it, and its recent health answers."""

    address: str                   # HOST:PORT
    serving: bool = True
    fails: int = 0                 # failed health answers in a row
    next_probe: float = 0.0        # time.monotonic() of the next health check


class Classroom:
    """N app processes and nginx in front of them: ``with Classroom(2, 8080) as room: room.url``.

    ``upstreams`` (``"HOST:PORT"``, started elsewhere) join the local processes behind the same nginx; with
    upstreams, ``processes`` may be 0. While the room is open a supervisor thread restarts any local process
    that exits and watches the upstreams' health (see the module's doc); leaving the ``with`` block stops the
    supervisor first, then nginx, then the local app processes.
    """

    def __init__(self, processes: int, port: int, listen: str = "127.0.0.1", upstreams: Sequence[str] = ()) -> None:
        addresses = [upstream_address(u) for u in upstreams]
        if processes < (0 if addresses else 1) or len(set(addresses)) < len(addresses):
            raise ValueError(f"processes must be >= 1 (>= 0 with upstreams) and upstreams distinct, got "
                             f"processes={processes}, upstreams={addresses}")
        self.processes, self.port, self.listen = processes, port, listen
        self.upstreams = [_Upstream(a) for a in addresses]
        self.url = f"http://127.0.0.1:{port}"
        self.apps: list[_Child] = []
        self.nginx: _Child | None = None
        self.backends: list[int] = []
        self.run: Path | None = None
        self._env: dict[str, str] = {}
        self._stop = threading.Event()
        self._reload_pending = False
        self._supervisor: threading.Thread | None = None

    @property
    def procs(self) -> list[subprocess.Popen]:
        """The current processes: the apps in the order of ``backends``, then nginx."""
        return [c.proc for c in self.apps] + ([self.nginx.proc] if self.nginx else [])

    def _app_cmd(self, port: int) -> list[str]:
        return [sys.executable, "-m", "posviz", "app", "--server.port", str(port), "--server.address",
                "127.0.0.1", "--server.headless", "true", "--browser.gatherUsageStats", "false"]

    def _start_apps(self, run: Path) -> None:
        env = dict(os.environ)
        if (CHECKOUT / "posviz" / "__init__.py").is_file():  # a checkout: serve its posviz and app.py
            env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(CHECKOUT), env.get("PYTHONPATH")]))
        # one secret for all: a cookie signed by one process is valid in all (Streamlit takes it from the
        # environment or a config file only, never from the command line); a restarted process gets it too
        # (a secret in the environment is kept: upstreams on other machines are started with the same one)
        env["STREAMLIT_SERVER_COOKIE_SECRET"] = env.get("STREAMLIT_SERVER_COOKIE_SECRET") or secrets.token_hex(32)
        # glibc's per-thread arenas keep freed figure memory mapped: two arenas hold a process near its
        # measured bound (docs/DEPLOY.md, "What it holds")
        env.setdefault("MALLOC_ARENA_MAX", "2")
        self._env = env
        self.backends = free_ports(self.processes)
        for i, port in enumerate(self.backends):
            cmd, log = self._app_cmd(port), run / f"app{i}.log"
            proc = _logged_popen(cmd, log, cwd=run, env=env)
            self.apps.append(_Child("app process", port, cmd, log, proc, time.monotonic()))
        for port in self.backends:
            wait_healthy(f"http://127.0.0.1:{port}", self.procs)

    def _write_conf(self) -> None:
        down = frozenset([*(c.port for c in self.apps if not c.serving),
                          *(u.address for u in self.upstreams if not u.serving)])
        backends = [*self.backends, *(u.address for u in self.upstreams)]
        (self.run / "nginx.conf").write_text(nginx_conf(self.run, self.listen, self.port, backends, down))

    def _check_upstreams(self) -> None:
        """Ask every upstream's health once at start: one that does not answer yet starts out ``down``."""
        for up in self.upstreams:
            up.serving = _healthy(f"http://{up.address}", UPSTREAM_PROBE_TIMEOUT)
            up.next_probe = time.monotonic() + UPSTREAM_PROBE_SECONDS
            if not up.serving:
                _log(f"upstream {up.address} does not answer /_stcore/health; nginx sends no one there until it does")
        if not self.apps and not any(u.serving for u in self.upstreams):
            raise RuntimeError("no upstream answers /_stcore/health: start `posviz app` on them first")

    def _probe_upstreams(self) -> None:
        """Health of each upstream whose turn it is: ``down`` after UPSTREAM_DOWN_AFTER failures, back at once."""
        for up in self.upstreams:
            if self._stop.is_set() or time.monotonic() < up.next_probe:
                continue
            healthy = _healthy(f"http://{up.address}", UPSTREAM_PROBE_TIMEOUT)
            up.next_probe = time.monotonic() + UPSTREAM_PROBE_SECONDS
            up.fails = 0 if healthy else up.fails + 1
            if up.serving and up.fails >= UPSTREAM_DOWN_AFTER:
                up.serving = False
                _log(f"upstream {up.address} failed {up.fails} health checks in a row; marked down in nginx")
                self._reload_nginx()
            elif not up.serving and healthy:
                up.serving = True
                _log(f"upstream {up.address} answers /_stcore/health again; nginx sends browsers to it")
                self._reload_nginx()

    def _nginx_cmd(self, run: Path) -> list[str]:
        return [_nginx(), "-p", str(run), "-e", str(run / "error.log"), "-c", str(run / "nginx.conf")]

    def _start_nginx(self, run: Path) -> None:
        for sub in ("body", "proxy", "fastcgi", "uwsgi", "scgi"):
            (run / "tmp" / sub).mkdir(parents=True)
            (run / "tmp" / sub).chmod(0o777)  # nginx's workers drop root to nobody and write here
        self._write_conf()
        cmd = self._nginx_cmd(run)
        check = subprocess.run([cmd[0], "-t", "-q", *cmd[1:]], capture_output=True, text=True)
        if check.returncode:
            raise RuntimeError(f"nginx rejected its configuration: {check.stderr.strip()}")
        self.nginx = _Child("nginx", self.port, cmd, run / "nginx.out", _logged_popen(cmd, run / "nginx.out"),
                            time.monotonic())
        wait_healthy(self.url, self.procs, seconds=30)

    def _reload_nginx(self) -> None:
        """Write the configuration for the apps' current states; a running nginx re-reads it (SIGHUP).

        nginx starts new workers with it; the old ones finish the connections they hold, so the students
        on the healthy processes keep their websockets.
        """
        self._write_conf()
        self._reload_pending = True
        self._signal_reload(time.monotonic())

    def _signal_reload(self, now: float) -> None:
        """SIGHUP a pending reload to nginx once it has run a second (a just-started nginx, before it sets
        up its signal handlers, would die of it; a restarted nginx reads the current file anyway)."""
        nginx = self.nginx
        running = nginx is not None and nginx.restart_at is None and nginx.proc.poll() is None
        if self._reload_pending and running and now - nginx.started >= 1.0:
            nginx.proc.send_signal(signal.SIGHUP)
            self._reload_pending = False

    def _died(self, child: _Child, now: float) -> None:
        """Note ``child``'s exit, log it and schedule its restart after the back-off."""
        child.last_exit = child.proc.returncode
        if now - child.started >= STABLE_SECONDS:
            child.delay = BACKOFF_FIRST
        child.restart_at = now + child.delay
        _log(f"{child.name} on port {child.port} (pid {child.proc.pid}) exited with code "
             f"{_exit_text(child.last_exit)}; restarting it in {child.delay:g} s")
        child.delay = min(child.delay * 2, BACKOFF_CAP)
        if child is self.nginx:
            # a master killed outright leaves its workers (its process group) serving the old configuration
            with contextlib.suppress(ProcessLookupError):
                os.killpg(child.proc.pid, signal.SIGKILL)
        elif child.serving:
            child.serving = False
            self._reload_nginx()

    def _restart(self, child: _Child, now: float) -> None:
        """Start ``child`` again on its port (an app joins nginx later, once it is healthy)."""
        mode = {"cwd": self.run, "env": self._env} if child is not self.nginx else {}
        child.proc = _logged_popen(child.cmd, child.log, "a", **mode)
        child.started, child.restart_at = now, None
        _log(f"restarted {child.name} on port {child.port} (pid {child.proc.pid}; it had exited with code "
             f"{_exit_text(child.last_exit)})" + ("" if child is self.nginx else
                                                  "; it rejoins nginx once /_stcore/health answers"))
        if child is self.nginx:
            self._reload_pending = False  # it reads the file as it stands: the apps' states now

    def supervise_once(self) -> None:
        """One look at every process: note deaths, restart after the back-off, let healthy apps rejoin."""
        for child in [*self.apps, *([self.nginx] if self.nginx else [])]:
            if self._stop.is_set():
                return
            now = time.monotonic()
            if child.restart_at is not None:
                if now >= child.restart_at:
                    self._restart(child, now)
            elif child.proc.poll() is not None:
                self._died(child, now)
            elif child is not self.nginx and not child.serving:
                if _healthy(f"http://127.0.0.1:{child.port}"):
                    child.serving = True
                    self._reload_nginx()
                elif now - child.started > START_SECONDS:
                    _log(f"{child.name} on port {child.port} did not answer /_stcore/health within "
                         f"{START_SECONDS:g} s; killing it")
                    child.proc.kill()
        self._probe_upstreams()
        self._signal_reload(time.monotonic())

    def _supervise(self) -> None:
        while not self._stop.wait(POLL_SECONDS):
            try:
                self.supervise_once()
            except Exception as err:  # keep supervising: one failed look must not leave the class unattended
                _log(f"supervisor: {type(err).__name__}: {err}")

    def __enter__(self) -> Classroom:
        self.run = Path(tempfile.mkdtemp(prefix="posviz-class-"))
        self.run.chmod(0o755)
        try:
            self._start_apps(self.run)
            self._check_upstreams()
            self._start_nginx(self.run)
        except BaseException:
            self.__exit__()
            raise
        self._stop.clear()
        self._supervisor = threading.Thread(target=self._supervise, name="serve_class-supervisor", daemon=True)
        self._supervisor.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()  # no restarts from here on
        if self._supervisor is not None:
            self._supervisor.join()
            self._supervisor = None
        procs = self.procs
        for proc in reversed(procs):  # nginx first, then the apps
            if proc.poll() is None:
                proc.terminate()
        for proc in procs:
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        self.apps, self.nginx = [], None
        if self.run is not None:
            shutil.rmtree(self.run, ignore_errors=True)
            self.run = None

    def app_pids(self) -> list[int]:
        """Process ids of the app processes (not nginx), in the order of ``backends``; current after restarts."""
        return [c.proc.pid for c in self.apps]


def _addresses(listen: str, port: int) -> list[str]:
    if listen not in ("0.0.0.0", "::"):
        return [f"http://{listen}:{port}"]
    ips = {info[4][0] for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)}
    return [f"http://{ip}:{port}" for ip in sorted(ips) if not ip.startswith("127.")] or [f"http://127.0.0.1:{port}"]


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--processes", type=int, default=None,
                    help="local app processes (default: one per core; 0 with --upstream)")
    ap.add_argument("--upstream", action="append", default=[], metavar="HOST:PORT",
                    help="an app process started elsewhere (`posviz app` on another machine); repeatable")
    ap.add_argument("--port", type=int, default=8080, help="nginx's port")
    ap.add_argument("--listen", default="127.0.0.1",
                    help="nginx's address: 127.0.0.1 (this machine only, the default) or 0.0.0.0 (the room)")
    args = ap.parse_args(argv)
    if args.processes is None:
        args.processes = 0 if args.upstream else os.cpu_count() or 1
    return args


def main(argv: list[str] | None = None) -> int:
    args = _arguments(argv)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    signal.signal(signal.SIGINT, signal.default_int_handler)  # Ctrl-C, even if the shell started us ignoring it
    try:
        with Classroom(args.processes, args.port, args.listen, args.upstream) as room:
            if room.backends:
                print(f"{args.processes} posviz app processes on 127.0.0.1:{','.join(map(str, room.backends))}")
            for up in room.upstreams:
                print(f"upstream {up.address} ({'serving' if up.serving else 'down until it answers'})")
            print(f"nginx in front (run directory {room.run})")
            for address in _addresses(args.listen, args.port):
                print(f"  share: {address}")
            print("Ctrl-C stops everything; a local process that exits is restarted, an upstream that stops "
                  "answering is left out until it answers again.", flush=True)
            while True:  # the room's supervisor thread does the work; Ctrl-C or SIGTERM ends the wait
                time.sleep(3600)
    except KeyboardInterrupt:
        return 0
    except (RuntimeError, ValueError) as err:
        print(f"serve_class: error: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
