"""Serve a class: N ``posviz app`` processes on loopback behind Debian's nginx, with sticky sessions.

    python deploy/serve_class.py                                  # one process per core, http://127.0.0.1:8080
    python deploy/serve_class.py --processes 2 --port 8080
    python deploy/serve_class.py --processes 4 --listen 0.0.0.0   # let the room's network in (see docs/DEPLOY.md)

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
from dataclasses import dataclass
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[1]

BACKOFF_FIRST, BACKOFF_CAP = 1.0, 30.0  # seconds before restarting a dead process: 1, 2, 4 ... 30
STABLE_SECONDS = 60.0     # a process that stayed up this long starts the back-off again at BACKOFF_FIRST
START_SECONDS = 120.0     # a restarted app process that does not answer its health check by then is killed
FAIL_TIMEOUT = 5          # nginx: seconds a process that refused a connection gets no new connection
POLL_SECONDS = 0.2        # how often the supervisor looks at the processes

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
        # (nginx never retries a POST or PUT, e.g. an upload, that may have reached the process)
        location / {{
            proxy_pass http://posviz;
            proxy_http_version 1.1;
            proxy_set_header Upgrade $http_upgrade;
            proxy_set_header Connection $connection_upgrade;
            proxy_set_header Host $http_host;
            proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
            proxy_connect_timeout 5s;
            proxy_next_upstream error timeout http_502 http_503 http_504;
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


def nginx_conf(run: Path, listen: str, port: int, backends: list[int], down: frozenset[int] = frozenset()) -> str:
    """nginx.conf text: ``listen:port`` proxied to 127.0.0.1:<each backend>, sticky on a cookie.

    A backend in ``down`` (a process that died and does not answer its health check yet) stays in the list
    but marked ``down``: consistent hashing keeps every other browser on its process. ``max_fails=1``
    takes a process out for ``fail_timeout`` at its first refused connection, before the supervisor notices.
    """
    servers = "\n".join(f"        server 127.0.0.1:{p} max_fails=1 fail_timeout={FAIL_TIMEOUT}s"
                         f"{' down' if p in down else ''};" for p in backends)
    return NGINX_CONF.format(run=run, listen=listen, port=port, servers=servers)


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


class Classroom:
    """N app processes and nginx in front of them: ``with Classroom(2, 8080) as room: room.url``.

    While the room is open a supervisor thread restarts any process that exits (see the module's doc);
    leaving the ``with`` block stops the supervisor first, then nginx, then the app processes.
    """

    def __init__(self, processes: int, port: int, listen: str = "127.0.0.1") -> None:
        if processes < 1:
            raise ValueError(f"processes must be >= 1, got {processes}")
        self.processes, self.port, self.listen = processes, port, listen
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
        env["STREAMLIT_SERVER_COOKIE_SECRET"] = secrets.token_hex(32)
        self._env = env
        self.backends = free_ports(self.processes)
        for i, port in enumerate(self.backends):
            cmd, log = self._app_cmd(port), run / f"app{i}.log"
            proc = _logged_popen(cmd, log, cwd=run, env=env)
            self.apps.append(_Child("app process", port, cmd, log, proc, time.monotonic()))
        for port in self.backends:
            wait_healthy(f"http://127.0.0.1:{port}", self.procs)

    def _write_conf(self) -> None:
        down = frozenset(c.port for c in self.apps if not c.serving)
        (self.run / "nginx.conf").write_text(nginx_conf(self.run, self.listen, self.port, self.backends, down))

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


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--processes", type=int, default=os.cpu_count() or 1, help="app processes (default: cores)")
    ap.add_argument("--port", type=int, default=8080, help="nginx's port")
    ap.add_argument("--listen", default="127.0.0.1",
                    help="nginx's address: 127.0.0.1 (this machine only, the default) or 0.0.0.0 (the room)")
    args = ap.parse_args(argv)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    signal.signal(signal.SIGINT, signal.default_int_handler)  # Ctrl-C, even if the shell started us ignoring it
    try:
        with Classroom(args.processes, args.port, args.listen) as room:
            print(f"{args.processes} posviz app processes on 127.0.0.1:{','.join(map(str, room.backends))}, "
                  f"nginx in front (run directory {room.run})")
            for address in _addresses(args.listen, args.port):
                print(f"  share: {address}")
            print("Ctrl-C stops everything; a process that exits is restarted.", flush=True)
            while True:  # the room's supervisor thread does the work; Ctrl-C or SIGTERM ends the wait
                time.sleep(3600)
    except KeyboardInterrupt:
        return 0
    except (RuntimeError, ValueError) as err:
        print(f"serve_class: error: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
