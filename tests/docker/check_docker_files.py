#!/usr/bin/python3
"""check_docker_files.py ROOT TREE BUILD - the container files against the build.

Run by test_docker_files.sh after `make install DESTDIR=TREE PREFIX=/usr/local`.
No Docker engine or cluster is needed: what can be checked without one is
checked against the installed tree and this machine's Debian package data.

- every YAML file under docker/ parses; the Kubernetes files hold the kinds
  they are meant to, with the security context the image's numeric USER
  allows, the image pinned to this sweepd's version, and HTTP probes of
  sweepd's own --metrics port (/healthz, /readyz) where Prometheus is told
  to scrape /metrics; compose's healthcheck runs `sweep ping`;
- sweepd.yaml is one shared world: one replica, Recreate, a Service that
  keeps the clients' addresses (externalTrafficPolicy: Local), a
  PodDisruptionBudget;
- the Agones Fleet opens one TCPUDP port on sweepd's container port, runs
  sweepd alone (it speaks the SDK itself) with health checking on and a
  ping period inside Agones', declares the Counter "worlds" with
  sweepd's --max-worlds as capacity and the List "players"; its
  FleetAutoscaler keeps a buffer of that Counter; the allocation example
  packs (allocated with room first, fullest first), counts its world and
  names a map of the image;
- the Dockerfile's runtime USER is numeric, every path it copies from /out
  exists in TREE, its ENTRYPOINT/CMD are exec form and their paths exist;
- every shared library a shipped program links belongs to a package the
  runtime stage installs or to the base image (see base_packages);
- TREE's sweepd, started with the Dockerfile's CMD, answers compose's probe
  command, which fails once sweepd has stopped; sweepd exits 0 on SIGTERM;
- TREE's sweepd started with the Deployment's and the Fleet's args serves
  /metrics and answers their probes (200) on their metrics port; the
  Fleet's calls Ready() and Health()
  and sets the Counter on a fake SDK server, as in a pod of the Fleet.

Prints cmocka's summary lines so tests/run-tests.sh counts the checks.
"""
import atexit
import glob
import http.server
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

try:
    import yaml
except ImportError:
    print("[  FAILED  ] no python3-yaml for %s" % sys.executable)
    print("[  FAILED  ] 1 test(s).")
    sys.exit(1)

ROOT, TREE, BUILD = sys.argv[1:4]
DOCKER = os.path.join(ROOT, "docker")
DOCKERFILE = os.path.join(DOCKER, "Dockerfile")
K8S = os.path.join(DOCKER, "k8s", "sweepd.yaml")
FLEET = os.path.join(DOCKER, "k8s", "agones-fleet.yaml")
ALLOCATION = os.path.join(DOCKER, "k8s", "agones-allocation.yaml")
COMPOSE = os.path.join(DOCKER, "compose.yaml")

passed = 0
failed = 0
skipped = 0


class Fail(Exception):
    pass


class Skip(Exception):
    """The check cannot be made honestly on this machine."""


def check(name, fn):
    """Runs one check: fn raises Fail (or anything) to fail it."""
    global passed, failed, skipped
    print("[ RUN      ] " + name, flush=True)
    try:
        note = fn()
    except Skip as e:
        # The reason line of tests/test_skip.h, which tests/run-tests.sh lists.
        skipped += 1
        print("skipped: %s" % e, flush=True)
        print("[  SKIPPED ] " + name, flush=True)
        return
    except Exception as e:  # a crash in a check is that check's failure
        failed += 1
        msg = str(e) if isinstance(e, Fail) else "%s: %s" % (type(e).__name__, e)
        print("[  FAILED  ] %s: %s" % (name, msg.replace("\n", "\n    ")), flush=True)
        return
    passed += 1
    print("[       OK ] %s%s" % (name, " (%s)" % note if note else ""), flush=True)


def expect(cond, msg):
    if not cond:
        raise Fail(msg)


def rebase(path):
    """An absolute path of the image, in the installed tree."""
    return os.path.join(TREE, path.lstrip("/"))


# --- the Dockerfile ----------------------------------------------------------

def dockerfile_instructions():
    """(KEYWORD, argument text) per instruction: continuation lines joined,
    comment lines dropped (as Docker does, even inside a continuation)."""
    out, cur = [], ""
    with open(DOCKERFILE) as f:
        for line in f:
            s = line.strip()
            if s.startswith("#") or (not s and not cur):
                continue
            if s.endswith("\\"):
                cur += s[:-1] + " "
                continue
            cur += s
            if cur.strip():
                kw, _, rest = cur.strip().partition(" ")
                out.append((kw.upper(), rest.strip()))
            cur = ""
    return out


INSTR = dockerfile_instructions()


def runtime_stage():
    last = max(i for i, (kw, _) in enumerate(INSTR) if kw == "FROM")
    return INSTR[last:]


def default_release():
    for kw, arg in INSTR:
        if kw == "FROM":
            break
        m = re.fullmatch(r"DEBIAN_RELEASE=(\S+)", arg) if kw == "ARG" else None
        if m:
            return m.group(1)
    return None


def runtime_user():
    users = [arg for kw, arg in runtime_stage() if kw == "USER"]
    expect(users, "the runtime stage has no USER: it would run as root")
    m = re.fullmatch(r"(\d+)(?::(\d+))?", users[-1])
    expect(m, "USER %r is not numeric (uid or uid:gid); the kubelet cannot "
              "verify runAsNonRoot for a named user" % users[-1])
    uid, gid = int(m.group(1)), m.group(2)
    expect(uid != 0, "USER is root")
    return uid, (int(gid) if gid is not None else None)


def apt_installed():
    """Packages the runtime stage's RUN lines apt-get install."""
    pkgs = []
    for kw, arg in runtime_stage():
        if kw != "RUN":
            continue
        words = shlex.split(arg)
        for i, w in enumerate(words):
            if w == "install" and i > 0 and words[i - 1] in ("apt-get", "apt"):
                for w2 in words[i + 1:]:
                    if w2 in ("&&", "||", ";", "|") or w2.endswith(";"):
                        break
                    if not w2.startswith("-"):
                        pkgs.append(w2)
    return pkgs


def copies_from_build():
    """(sources, destination) of each COPY --from=build of the runtime stage."""
    out = []
    for kw, arg in runtime_stage():
        if kw != "COPY" or "--from=build" not in arg.split():
            continue
        words = [w for w in shlex.split(arg) if not w.startswith("--")]
        out.append((words[:-1], words[-1]))
    return out


def exec_form(keyword):
    args = [arg for kw, arg in runtime_stage() if kw == keyword]
    expect(args, "no %s in the runtime stage" % keyword)
    try:
        v = json.loads(args[-1])
    except ValueError:
        raise Fail("%s %s is shell form: sweepd would not be PID 1 and would not "
                   "get the SIGTERM it stops gracefully on" % (keyword, args[-1]))
    expect(isinstance(v, list) and all(isinstance(x, str) for x in v), "%s is not a list of strings" % keyword)
    return v


def shipped_programs():
    progs = []
    for srcs, _ in copies_from_build():
        for s in srcs:
            if s.startswith("/out/usr/local/bin/") and not s.endswith("/"):
                progs.append(s[len("/out"):])
    return progs


def check_user():
    uid, gid = runtime_user()
    for kw, arg in runtime_stage():
        m = re.search(r"useradd\b.*--uid[ =](\d+)", arg) if kw == "RUN" else None
        if m:
            expect(int(m.group(1)) == uid, "useradd --uid %s but USER %d" % (m.group(1), uid))
    return "%d:%s" % (uid, gid)


def check_copies():
    missing = []
    n = 0
    for srcs, dest in copies_from_build():
        for s in srcs:
            expect(s.startswith("/out/"), "COPY --from=build source %s is outside /out" % s)
            p = rebase(s[len("/out"):])
            n += 1
            if s.endswith("/") and not os.path.isdir(p):
                missing.append(s + " (a directory)")
            elif not os.path.exists(p):
                missing.append(s)
    expect(n > 0, "no COPY --from=build in the runtime stage")
    expect(not missing, "not in `make install`'s tree: " + ", ".join(missing))
    progs = shipped_programs()
    for p in ("/usr/local/bin/sweepd", "/usr/local/bin/sweep", "/usr/local/bin/sweep-replay"):
        expect(p in progs, "%s is not copied into the image" % p)
    return "%d paths" % n


def check_entrypoint():
    ep, cmd = exec_form("ENTRYPOINT"), exec_form("CMD")
    expect(ep and os.access(rebase(ep[0]), os.X_OK), "ENTRYPOINT %s is not an installed program" % ep[:1])
    expect(ep[0] in shipped_programs(), "ENTRYPOINT %s is not copied into the image" % ep[0])
    missing = [a for a in ep[1:] + cmd if a.startswith("/") and not os.path.exists(rebase(a))]
    expect(not missing, "not in the installed tree: " + ", ".join(missing))
    expect("--listen" in cmd, "CMD has no --listen: sweepd's default 127.0.0.1 is unreachable from outside")


# --- the libraries ------------------------------------------------------------

def dpkg_packages():
    """name -> (installed, essential, priority, [dependency groups], provides)."""
    fmt = "${Package}\\t${db:Status-Abbrev}\\t${Essential}\\t${Priority}\\t${Pre-Depends}\\t${Depends}\\t${Provides}\\n"
    out = subprocess.run(["dpkg-query", "-W", "-f=" + fmt], capture_output=True, text=True, check=True).stdout
    pkgs = {}
    for line in out.splitlines():
        f = line.split("\t")
        if len(f) < 7:
            continue
        deps = [g for g in (f[4] + "," + f[5]).split(",") if g.strip()]
        groups = [[re.sub(r"[ (:].*", "", a.strip()) for a in g.split("|")] for g in deps]
        provides = [re.sub(r"[ (:].*", "", p.strip()) for p in f[6].split(",") if p.strip()]
        pkgs[f[0]] = (f[1].startswith("ii"), f[2] == "yes", f[3], groups, provides)
    return pkgs


def base_packages(pkgs):
    """What debian:<release>-slim holds whatever the Dockerfile installs:
    the image is a minbase bootstrap, so the Essential and Priority:
    required packages, and everything they depend on (libc6 and zlib1g
    are Priority: optional and there only as dependencies, of dpkg among
    others). Computed from this machine's package data, so only honest
    when this machine runs the image's release (the caller checks)."""
    return with_dependencies(pkgs, [n for n, p in pkgs.items() if p[0] and (p[1] or p[2] == "required")])


def with_dependencies(pkgs, names):
    """names and what they depend on (Pre-Depends and Depends), as apt
    would install them."""
    installed = {n for n, p in pkgs.items() if p[0]}
    providers = {}
    for n in installed:
        for v in pkgs[n][4]:
            providers.setdefault(v, n)
    todo = [n for n in names if n in installed]
    base = set()
    while todo:
        n = todo.pop()
        if n in base:
            continue
        base.add(n)
        for group in pkgs[n][3]:
            # The first alternative present here, as apt would have chosen.
            for alt in group:
                pick = alt if alt in installed else providers.get(alt)
                if pick:
                    todo.append(pick)
                    break
    return base


def linked_libraries(programs):
    """{library path: [programs]} from ldd on the installed programs."""
    libs = {}
    for prog in programs:
        r = subprocess.run(["ldd", rebase(prog)], capture_output=True, text=True)
        expect(r.returncode == 0, "ldd %s: %s" % (prog, r.stderr.strip()))
        for line in r.stdout.splitlines():
            line = line.strip()
            expect("not found" not in line, "%s: %s" % (prog, line))
            m = re.match(r"(?:\S+ => )?(/\S+) \(0x", line)
            if m:
                libs.setdefault(m.group(1), []).append(os.path.basename(prog))
    return libs


def owners(paths):
    """{path: package} via one dpkg -S over each path, its real path and
    their /usr-merged twins (dpkg knows a file by the path it shipped)."""
    cands = {}
    for p in paths:
        c = []
        for q in (p, os.path.realpath(p)):
            c += [q, q[4:] if q.startswith("/usr/") else "/usr" + q]
        cands[p] = list(dict.fromkeys(c))
    allc = sorted({q for c in cands.values() for q in c})
    out = subprocess.run(["dpkg-query", "-S"] + allc, capture_output=True, text=True).stdout
    found = {}
    for line in out.splitlines():
        pk, sep, path = line.partition(": ")
        if sep and not pk.startswith("diversion"):
            found[path.strip()] = pk.split(",")[0].strip().split(":")[0]
    return {p: next((found[q] for q in cands[p] if q in found), None) for p in paths}


def check_libraries():
    release = default_release()
    here = None
    if os.path.exists("/etc/os-release"):
        with open("/etc/os-release") as f:
            m = re.search(r"^VERSION_CODENAME=(\S+)", f.read(), re.M)
            here = m.group(1).strip('"') if m else None
    if here != release:
        raise Skip("this machine is %s, the image Debian %s: package names may differ" % (here, release))
    pkgs = dpkg_packages()
    base = base_packages(pkgs)
    apt = apt_installed()
    unknown = [p for p in apt if p not in pkgs or not pkgs[p][0]]
    expect(not unknown, "the runtime stage installs packages not installed here: %s" % unknown)
    # A listed package brings its dependencies (libmicrohttpd12 GnuTLS).
    brought = with_dependencies(pkgs, apt)
    libs = linked_libraries(shipped_programs())
    sanitizer = re.compile(r"/lib(asan|ubsan|lsan|tsan|hwasan)\.so")
    ignored = [p for p in libs if BUILD != "build" and sanitizer.search(p)]
    pkg_of = owners([p for p in libs if p not in ignored])
    bad = []
    used = {}
    for lib, pk in sorted(pkg_of.items()):
        progs = ", ".join(sorted(set(libs[lib])))
        if pk is None:
            bad.append("%s (linked by %s) belongs to no Debian package" % (lib, progs))
        elif pk in apt:
            used[os.path.basename(lib)] = pk
        elif pk in base:
            used[os.path.basename(lib)] = pk + " (base)"
        elif pk in brought:
            used[os.path.basename(lib)] = pk + " (a dependency)"
        else:
            bad.append("%s (linked by %s) is in %s, which the runtime stage does not install"
                       % (lib, progs, pk))
    expect(not bad, "\n".join(bad))
    note = ", ".join("%s->%s" % kv for kv in sorted(used.items()))
    if ignored:
        note += "; ignored the sanitizer runtime of %s: the image is built without one" % BUILD
    return note


# --- the YAML files -------------------------------------------------------------

def load(path):
    with open(path) as f:
        return [d for d in yaml.safe_load_all(f) if d is not None]


def check_yaml_parses():
    files = sorted(glob.glob(os.path.join(DOCKER, "**", "*.yaml"), recursive=True) +
                   glob.glob(os.path.join(DOCKER, "**", "*.yml"), recursive=True))
    expect(files, "no YAML files under docker/")
    for f in files:
        try:
            docs = load(f)
        except yaml.YAMLError as e:
            raise Fail("%s: %s" % (os.path.relpath(f, ROOT), e))
        expect(docs, "%s is empty" % os.path.relpath(f, ROOT))
    return "%d files" % len(files)


def pod_spec(doc):
    if doc["kind"] == "Deployment":
        return doc["spec"]["template"]["spec"]
    if doc["kind"] == "Fleet":
        return doc["spec"]["template"]["spec"]["template"]["spec"]
    raise Fail("no pod template in a %s" % doc["kind"])


def sweepd_containers(doc):
    """The containers that run the image's ENTRYPOINT (sweepd)."""
    spec = pod_spec(doc)
    if doc["kind"] == "Fleet":
        name = doc["spec"]["template"]["spec"].get("container")
        cs = [c for c in spec["containers"] if c["name"] == name]
        expect(cs, "the Fleet's spec.container %r names no container of its pod" % name)
        return cs
    cs = [c for c in spec["containers"] if "command" not in c]
    expect(cs, "no container runs the image's sweepd")
    return cs


def ping_command(cmd, where):
    """The --connect address and --timeout (ms) of a `sweep ping` command."""
    expect(isinstance(cmd, list) and len(cmd) >= 2 and os.path.basename(cmd[0]) == "sweep" and cmd[1] == "ping",
           "%s does not run `sweep ping`: %s" % (where, cmd))
    expect(cmd[0].startswith("/") and cmd[0] in shipped_programs(), "%s: %s is not a program of the image" % (where, cmd[0]))
    opts = dict(zip(cmd[2::2], cmd[3::2]))
    expect("--connect" in opts, "%s: no --connect" % where)
    expect("--timeout" in opts and opts["--timeout"].isdigit(),
           "%s: no --timeout (sweep waits 5 s per step by default)" % where)
    return opts["--connect"], int(opts["--timeout"])


def arg_of(args, name):
    """The value after --name in a container's args, or None."""
    return args[args.index(name) + 1] if name in args and args.index(name) + 1 < len(args) else None


def metrics_port(c, where):
    """The port of sweepd's --metrics HOST:PORT in container c."""
    m = arg_of(c.get("args", []), "--metrics")
    expect(m and re.fullmatch(r"0\.0\.0\.0:\d+", m),
           "%s: sweepd has no --metrics 0.0.0.0:PORT (the kubelet and Prometheus reach the pod's address): %s"
           % (where, m))
    return int(m.rsplit(":", 1)[1])


def probe_port(c, port, where):
    """A probe's httpGet port (a number, or a container port's name) as a number."""
    if isinstance(port, int):
        return port
    named = [p["containerPort"] for p in c.get("ports", []) if p.get("name") == port]
    expect(named, "%s: its port %r names no port of the container" % (where, port))
    return named[0]


def check_probes(doc, where, probes):
    """Every sweepd container: the probes asked for exist, are HTTP GETs of
    sweepd's own --metrics port, /healthz for liveness and /readyz for the
    others, and the pod is scraped there."""
    n = 0
    paths = {"startupProbe": "/readyz", "readinessProbe": "/readyz", "livenessProbe": "/healthz"}
    for c in sweepd_containers(doc):
        port = metrics_port(c, where)
        for probe in probes:
            w = "%s %s %s" % (where, c["name"], probe)
            expect(probe in c, "%s is missing" % w)
            p = c[probe]
            expect("httpGet" in p, "%s is not an HTTP probe of sweepd's health endpoints" % w)
            g = p["httpGet"]
            expect(g.get("path") == paths[probe], "%s asks %s, not %s" % (w, g.get("path"), paths[probe]))
            expect(probe_port(c, g.get("port"), w) == port, "%s asks port %s, sweepd's --metrics is %d"
                   % (w, g.get("port"), port))
            n += 1
        ann = pod_template(doc)["metadata"].get("annotations", {})
        expect(ann.get("prometheus.io/scrape") == "true" and ann.get("prometheus.io/port") == str(port)
               and ann.get("prometheus.io/path") == "/metrics",
               "%s: the pod is not annotated for scraping /metrics on %d: %s" % (where, port, ann))
    return n


def check_image(doc, where):
    """Each container's image is pinned to this build's version, never :latest."""
    version = subprocess.run([rebase("/usr/local/bin/sweepd"), "--version"], capture_output=True,
                             text=True).stdout.split()[-1]
    for c in pod_spec(doc)["containers"]:
        image = c.get("image", "")
        tag = image.rsplit(":", 1)[1] if ":" in image.rsplit("/", 1)[-1] else ""
        expect(tag and tag != "latest", "%s container %s: image %r is not pinned to a tag" % (where, c["name"], image))
        expect(tag == version, "%s container %s: image tag %s, but this is sweepd %s" % (where, c["name"], tag, version))
    return version


def pod_template(doc):
    if doc["kind"] == "Deployment":
        return doc["spec"]["template"]
    return doc["spec"]["template"]["spec"]["template"]


def c_port(doc, c):
    if doc["kind"] == "Fleet":
        ports = doc["spec"]["template"]["spec"]["ports"]
        return ports[0]["containerPort"]
    return c["ports"][0]["containerPort"]


def check_security(doc, where, uid, gid):
    spec = pod_spec(doc)
    psc = spec.get("securityContext", {})
    expect(psc.get("runAsNonRoot") is True, "%s: the pod lacks runAsNonRoot" % where)
    for c in spec["containers"]:
        sc = c.get("securityContext", {})
        w = "%s container %s" % (where, c["name"])
        expect(sc.get("runAsNonRoot", psc.get("runAsNonRoot")) is True, "%s: not runAsNonRoot" % w)
        expect(sc.get("runAsUser", psc.get("runAsUser")) == uid, "%s: runAsUser is not the image's %d" % (w, uid))
        if gid is not None:
            expect(sc.get("runAsGroup", psc.get("runAsGroup")) == gid, "%s: runAsGroup is not the image's %d" % (w, gid))
        expect(sc.get("allowPrivilegeEscalation") is False, "%s: allowPrivilegeEscalation is not false" % w)
        expect(sc.get("readOnlyRootFilesystem") is True, "%s: readOnlyRootFilesystem is not true" % w)
        expect(sc.get("capabilities", {}).get("drop") == ["ALL"], "%s: capabilities do not drop ALL" % w)
        expect("resources" in c and "requests" in c["resources"], "%s: no resource requests" % w)


def check_k8s():
    uid, gid = runtime_user()
    docs = load(K8S)
    kinds = [d.get("kind") for d in docs]
    expect(kinds == ["Deployment", "Service", "PodDisruptionBudget"],
           "sweepd.yaml holds %s, not [Deployment, Service, PodDisruptionBudget]" % kinds)
    dep, svc, pdb = docs
    # One shared world: two replicas would be two worlds behind one address.
    expect(dep["spec"].get("replicas") == 1, "the Deployment runs %s replicas: each would be a world of its own"
           % dep["spec"].get("replicas"))
    expect(dep["spec"].get("strategy", {}).get("type") == "Recreate",
           "the Deployment's rollout is not Recreate: old and new pod would serve two worlds at once")
    check_security(dep, "Deployment", uid, gid)
    n = check_probes(dep, "Deployment", ("startupProbe", "readinessProbe", "livenessProbe"))
    version = check_image(dep, "Deployment")
    c = sweepd_containers(dep)[0]
    cports = {(p["containerPort"], p.get("protocol", "TCP")) for p in c["ports"]}
    port = c["ports"][0]["containerPort"]
    expect(cports >= {(port, "TCP"), (port, "UDP")}, "the container does not open %d for TCP and UDP" % port)
    sports = {(p["port"], p.get("targetPort"), p.get("protocol", "TCP")) for p in svc["spec"]["ports"]}
    protos = {pr for (_, t, pr) in sports if t == port}
    expect(protos == {"TCP", "UDP"}, "the Service does not send TCP and UDP to port %d: %s" % (port, sorted(sports)))
    expect(len({sp for (sp, _, _) in sports}) == 1, "the Service's TCP and UDP ports differ: clients use one address")
    expect(svc["spec"].get("selector") == dep["spec"]["selector"]["matchLabels"], "the Service selects other pods")
    expect(metrics_port(c, "Deployment") not in {t for (_, t, _) in sports},
           "the Service exposes the metrics port, which has no authentication")
    # Source NAT would make every client the node's address: per-address limits would count the node.
    expect(svc["spec"].get("externalTrafficPolicy") == "Local",
           "the Service lacks externalTrafficPolicy: Local; sweepd would see the nodes' addresses, not the clients'")
    expect(pdb.get("apiVersion") == "policy/v1", "the PodDisruptionBudget is %s, not policy/v1" % pdb.get("apiVersion"))
    expect(pdb["spec"].get("selector", {}).get("matchLabels") == dep["spec"]["selector"]["matchLabels"],
           "the PodDisruptionBudget selects other pods")
    expect(pdb["spec"].get("minAvailable") == 1 or pdb["spec"].get("maxUnavailable") == 0,
           "the PodDisruptionBudget lets a drain evict the one world")
    return "%d probes, image %s" % (n, version)


def fleet_docs():
    docs = load(FLEET)
    kinds = [d.get("kind") for d in docs]
    expect(kinds == ["Fleet", "FleetAutoscaler"], "agones-fleet.yaml holds %s, not [Fleet, FleetAutoscaler]" % kinds)
    return docs


def check_fleet():
    uid, gid = runtime_user()
    fleet, fas = fleet_docs()
    expect(fleet.get("apiVersion") == "agones.dev/v1", "apiVersion is %r" % fleet.get("apiVersion"))
    gs = fleet["spec"]["template"]["spec"]
    ports = gs.get("ports", [])
    expect(len(ports) == 1 and ports[0].get("protocol") == "TCPUDP",
           "the GameServer needs one port with protocol TCPUDP (TCP and UDP on one number): %s" % ports)
    expect(ports[0].get("containerPort") == 7878, "containerPort is %s, not 7878" % ports[0].get("containerPort"))
    containers = pod_spec(fleet)["containers"]
    expect([c["name"] for c in containers] == [gs.get("container")],
           "the pod runs %s: sweepd speaks the SDK itself, no other container is needed"
           % [c["name"] for c in containers])
    check_security(fleet, "Fleet", uid, gid)
    n = check_probes(fleet, "Fleet", ("readinessProbe", "livenessProbe"))
    version = check_image(fleet, "Fleet")
    c = sweepd_containers(fleet)[0]
    args = c.get("args", [])
    expect(arg_of(args, "--listen") and arg_of(args, "--listen").endswith(":%d" % ports[0]["containerPort"]),
           "sweepd does not listen on the GameServer's containerPort")
    expect(arg_of(args, "--agones") == "on", "sweepd is not told to speak the Agones SDK (--agones on)")
    health = gs.get("health", {})
    expect(health.get("disabled", False) is False, "Agones health checking is off")
    period_ms = 1000 * health.get("periodSeconds", 5)
    ping_ms = int(arg_of(args, "--agones-health-ms") or 2000)
    expect(ping_ms < period_ms, "sweepd pings every %d ms, Agones expects one every %d ms" % (ping_ms, period_ms))
    expect(gs.get("eviction", {}).get("safe") == "Never",
           "eviction.safe is not Never: a drain could evict a GameServer in the middle of its matches")
    counter = gs.get("counters", {}).get("worlds")
    expect(counter is not None, "the GameServer declares no Counter 'worlds' (sweepd keeps it)")
    expect(str(counter.get("capacity")) == arg_of(args, "--max-worlds"),
           "Counter worlds has capacity %s, sweepd --max-worlds %s (sweepd sets its own)"
           % (counter.get("capacity"), arg_of(args, "--max-worlds")))
    players = gs.get("lists", {}).get("players")
    expect(players is not None and 0 < players.get("capacity", 0) <= 1000,
           "the GameServer declares no List 'players' of capacity 1..1000 (sweepd keeps it)")
    expect(arg_of(args, "--maps-dir"), "sweepd has no --maps-dir: an allocation could open no world")
    expect(os.path.isdir(rebase(arg_of(args, "--maps-dir"))), "--maps-dir %s is not in the image" % arg_of(args, "--maps-dir"))
    config = arg_of(args, "--config")
    if config:
        mounts = [m["mountPath"] for m in c.get("volumeMounts", [])]
        expect(os.path.dirname(config) in mounts, "--config %s is on no mounted volume" % config)
    # The autoscaler keeps free worlds, counted in the Counter sweepd keeps.
    expect(fas.get("apiVersion") == "autoscaling.agones.dev/v1", "the FleetAutoscaler's apiVersion is %r" % fas.get("apiVersion"))
    expect(fas["spec"].get("fleetName") == fleet["metadata"]["name"], "the FleetAutoscaler scales another Fleet")
    pol = fas["spec"].get("policy", {})
    cp = pol.get("counter", {})
    expect(pol.get("type") == "Counter" and cp.get("key") == "worlds",
           "the FleetAutoscaler does not keep a buffer of the Counter worlds: %s" % pol)
    buf, lo, hi = cp.get("bufferSize"), cp.get("minCapacity", 0), cp.get("maxCapacity")
    expect(isinstance(buf, int) and isinstance(hi, int) and 0 < buf <= hi and lo <= hi,
           "bufferSize %s, minCapacity %s, maxCapacity %s do not fit" % (buf, lo, hi))
    expect(lo >= counter["capacity"] and lo % counter["capacity"] == 0 and hi % counter["capacity"] == 0,
           "minCapacity and maxCapacity are not whole servers of %s worlds" % counter["capacity"])
    return "%d probes, image %s, capacity %s-%s worlds" % (n, version, lo, hi)


def check_allocation():
    docs = load(ALLOCATION)
    expect([d.get("kind") for d in docs] == ["GameServerAllocation"], "agones-allocation.yaml is not one GameServerAllocation")
    al = docs[0]
    expect(al.get("apiVersion") == "allocation.agones.dev/v1", "apiVersion is %r" % al.get("apiVersion"))
    fleet = fleet_docs()[0]
    spec = al["spec"]
    sel = spec.get("selectors", [])
    want = {"agones.dev/fleet": fleet["metadata"]["name"]}
    expect(all(s.get("matchLabels") == want for s in sel), "a selector picks GameServers of another Fleet")
    states = [s.get("gameServerState", "Ready") for s in sel]
    expect(states == ["Allocated", "Ready"],
           "selectors ask %s: packing takes an allocated sweepd with room first, then a Ready one" % states)
    for s in sel:
        expect(s.get("counters", {}).get("worlds", {}).get("minAvailable", 0) >= 1,
               "a selector takes a sweepd with no free world")
    pr = spec.get("priorities", [])
    expect(pr and pr[0] == {"type": "Counter", "key": "worlds", "order": "Ascending"},
           "the first priority is not the Counter worlds, Ascending (the fullest first): %s" % pr)
    inc = spec.get("counters", {}).get("worlds", {})
    expect(inc.get("action") == "Increment" and inc.get("amount") == 1,
           "the allocation does not count its world (counters: worlds: Increment 1)")
    ann = spec.get("metadata", {}).get("annotations", {})
    m = ann.get("sweep.dev/map")
    maps_dir = arg_of(sweepd_containers(fleet)[0]["args"], "--maps-dir")
    expect(m and os.path.isfile(os.path.join(rebase(maps_dir), m + ".db")),
           "annotation sweep.dev/map %r is no map of the image's %s" % (m, maps_dir))
    expect(ann.get("sweep.dev/world"), "no sweep.dev/world annotation: the players' Hello could not name the world")
    return "map %s" % m


def check_compose():
    docs = load(COMPOSE)
    svc = docs[0]["services"]["sweepd"]
    expect({"7878:7878/tcp", "7878:7878/udp"} <= set(svc.get("ports", [])), "compose does not publish 7878 for TCP and UDP")
    hc = svc.get("healthcheck")
    expect(hc and hc["test"][0] == "CMD", "compose has no exec-form healthcheck")
    addr, timeout_ms = ping_command(hc["test"][1:], "compose healthcheck")
    m = re.fullmatch(r"(\d+)s", str(hc.get("timeout", "30s")))
    expect(m and 3 * timeout_ms < 1000 * int(m.group(1)), "compose healthcheck: 3 x --timeout does not fit in its timeout")
    expect(svc.get("read_only") is True, "compose's container is not read_only")


# --- sweepd itself, as the image would run it -----------------------------------

def probe_commands():
    """The exec probes left: compose's healthcheck (Kubernetes asks sweepd's
    HTTP health endpoints)."""
    hc = load(COMPOSE)[0]["services"]["sweepd"]["healthcheck"]
    return [(hc["test"][1:], int(str(hc["timeout"]).rstrip("s")))]


def local(cmd, addr):
    """A probe command as run here: the installed program, sweepd's address."""
    out = [rebase(cmd[0])] + cmd[1:]
    i = out.index("--connect")
    out[i + 1] = addr
    return out


class Sweepd:
    """TREE's sweepd with the image's ENTRYPOINT and `args` (default: the
    Dockerfile's CMD), its paths in the tree (or in `paths`, a map of image
    path to local path), its --listen and --metrics on free ports of
    127.0.0.1, with `env` added to the environment."""

    def __init__(self, args=None, paths=None, env=None, what="the Dockerfile's CMD"):
        ep = exec_form("ENTRYPOINT")
        args = exec_form("CMD") if args is None else list(args)
        paths = paths or {}
        args = [paths.get(a) or (rebase(a) if a.startswith("/") else a) for a in ep + args]
        for opt in ("--listen", "--metrics"):
            if opt in args:
                args[args.index(opt) + 1] = "127.0.0.1:0"
        self.err = tempfile.TemporaryFile(mode="w+")
        self.p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=self.err, text=True,
                                  env=dict(ENV, **(env or {})))
        STARTED.append(self)
        self.addr = self.metrics = None
        line = [None]
        t = threading.Thread(target=lambda: line.__setitem__(0, self.p.stdout.readline()), daemon=True)
        t.start()
        t.join(10)
        m = re.match(r"sweepd ready tcp=(\S+)", line[0] or "")
        if not m:
            rc = self.stop()
            raise Fail("sweepd with %s did not get ready (exit status %s):\n%s" % (what, rc, self.log(5)))
        self.addr = m.group(1)
        mm = re.search(r" metrics=(\S+)", line[0])
        self.metrics = mm.group(1) if mm else None

    def log(self, lines=None):
        self.err.seek(0)
        text = self.err.readlines()
        return "".join(text[-lines:] if lines else text).strip()

    def stop(self):
        if self.p.poll() is None:
            self.p.send_signal(signal.SIGTERM)
            try:
                self.p.wait(10)
            except subprocess.TimeoutExpired:
                self.p.kill()
                self.p.wait()
        return self.p.returncode


# Every sweepd this script started is stopped when it ends, however it
# ends: an uncaught exception, or SIGTERM (run-tests.sh's time limit, an
# interrupted make test), which becomes an ordinary exit so this runs.
STARTED = []


def stop_started():
    for s in STARTED:
        s.stop()


atexit.register(stop_started)
for sig in (signal.SIGTERM, signal.SIGHUP):
    signal.signal(sig, lambda signum, frame: sys.exit(128 + signum))

SERVER = None
# A guest, as the probes are; and no Agones unless a check sets it up.
ENV = {k: v for k, v in os.environ.items() if k not in ("SWEEP_TOKEN", "AGONES_SDK_HTTP_PORT")}


def check_probes_live():
    global SERVER
    SERVER = Sweepd()
    for cmd, timeout_s in probe_commands():
        r = subprocess.run(local(cmd, SERVER.addr), capture_output=True, text=True, timeout=timeout_s, env=ENV)
        expect(r.returncode == 0, "%s failed against a running sweepd (rc %d): %s"
               % (" ".join(cmd), r.returncode, r.stderr.strip()))
    return "%d commands against %s" % (len(probe_commands()), SERVER.addr)


def check_probes_fail_when_stopped():
    expect(SERVER is not None, "sweepd did not start")
    addr = SERVER.addr
    rc = SERVER.stop()
    expect(rc == 0, "sweepd exited %s on SIGTERM, not 0" % rc)
    for cmd, timeout_s in probe_commands():
        r = subprocess.run(local(cmd, addr), capture_output=True, text=True, timeout=timeout_s, env=ENV)
        expect(r.returncode != 0, "%s succeeded with no sweepd" % " ".join(cmd))


def scrape(addr):
    """GET /metrics of sweepd's metrics address: the body."""
    with urllib.request.urlopen("http://%s/metrics" % addr, timeout=5) as r:
        expect(r.status == 200, "GET /metrics answered %d" % r.status)
        return r.read().decode()


def probes_answer(c, addr):
    """Each httpGet probe of container c, asked of sweepd's metrics address: 200."""
    n = 0
    for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
        if probe not in c:
            continue
        path = c[probe]["httpGet"]["path"]
        try:
            with urllib.request.urlopen("http://%s%s" % (addr, path), timeout=5) as r:
                status = r.status
        except urllib.error.HTTPError as e:
            status = e.code
        expect(status == 200, "%s GET %s answered %d from a serving sweepd" % (probe, path, status))
        n += 1
    return n


def check_deployment_live():
    """The Deployment's sweepd args start sweepd, and its metrics port (the
    probes' and Prometheus') answers."""
    c = sweepd_containers(load(K8S)[0])[0]
    s = Sweepd(c["args"], what="the Deployment's args")
    try:
        expect(s.metrics, "no metrics= on the ready line")
        expect("sweep_" in scrape(s.metrics), "GET /metrics has no sweep_ figures")
        n = probes_answer(c, s.metrics)
    finally:
        expect(s.stop() == 0, "sweepd exited non-zero on SIGTERM")
    return "metrics and %d probes on %s" % (n, s.metrics)


# --- the Fleet's sweepd and the Agones SDK -----------------------------------------

class FakeSDK(http.server.BaseHTTPRequestHandler):
    """What the Agones SDK server's REST gateway answers sweepd at start
    (tests/server/agones_double.h is the full double, with the state
    machine; this one only records): the GameServer, Ready, Health, the
    Counter and the List, and a watch stream of one GameServer."""
    protocol_version = "HTTP/1.1"
    calls = []

    def reply(self, body, close=False):
        b = body.encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(b)))
        if close:
            self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(b)

    def record(self):
        n = int(self.headers.get("Content-Length", 0))
        FakeSDK.calls.append((self.command, self.path, self.rfile.read(n).decode() if n else ""))

    def do_GET(self):
        self.record()
        gs = '{"object_meta": {"name": "sweepd-x"}, "status": {"state": "Scheduled"}}'
        if self.path == "/watch/gameserver":
            self.reply('{"result": %s}\n' % gs, close=True)
        else:
            self.reply(gs)

    def do_POST(self):
        self.record()
        self.reply("{}")

    def do_PATCH(self):
        self.record()
        self.reply("{}")

    def log_message(self, *a):
        pass


def check_fleet_live():
    """The Fleet's sweepd, with its args, a config file where the Secret
    would be mounted and AGONES_SDK_HTTP_PORT as Agones sets it, calls
    Ready() and Health() and sets the Counter to its capacity, and its
    metrics port answers."""
    fleet = fleet_docs()[0]
    c = sweepd_containers(fleet)[0]
    args = c["args"]
    work = tempfile.mkdtemp()
    paths = {}
    config = arg_of(args, "--config")
    if config:
        local_conf = os.path.join(work, "sweepd.conf")
        with open(local_conf, "w") as f:
            f.write("command-token = fleet-check-token\n")
        os.chmod(local_conf, 0o600)
        paths[config] = local_conf
    FakeSDK.calls = []
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), FakeSDK)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    s = None
    try:
        s = Sweepd(args, paths, {"AGONES_SDK_HTTP_PORT": str(httpd.server_address[1])}, "the Fleet's args")
        cap = str(fleet["spec"]["template"]["spec"]["counters"]["worlds"]["capacity"])

        def seen():
            paths = [(m, p) for (m, p, _) in FakeSDK.calls]
            patched = [b for (m, p, b) in FakeSDK.calls if (m, p) == ("PATCH", "/v1beta1/counters/worlds")]
            return ("POST", "/ready") in paths and ("POST", "/health") in paths and patched
        deadline = time.time() + 15
        while time.time() < deadline and not seen():
            time.sleep(0.05)
        expect(seen(), "calls %s; sweepd's log:\n%s" % (FakeSDK.calls, s.log(10)))
        patch = json.loads([b for (m, p, b) in FakeSDK.calls if m == "PATCH"][0])
        expect(str(patch.get("capacity")) == cap, "the Counter's capacity set to %s, the Fleet declares %s"
               % (patch.get("capacity"), cap))
        expect(s.metrics and "sweep_" in scrape(s.metrics), "GET /metrics has no sweep_ figures")
        probes_answer(c, s.metrics)
    finally:
        if s:
            expect(s.stop() == 0, "sweepd exited non-zero on SIGTERM")
        httpd.shutdown()
        httpd.server_close()
        for f in os.listdir(work):
            os.unlink(os.path.join(work, f))
        os.rmdir(work)
    return "%d SDK calls" % len(FakeSDK.calls)


def main():
    check("YAML files under docker/ parse", check_yaml_parses)
    check("Dockerfile runtime USER is numeric", check_user)
    check("Dockerfile COPY --from=build sources are installed", check_copies)
    check("Dockerfile ENTRYPOINT and CMD paths are installed", check_entrypoint)
    check("shipped programs' libraries come from installed packages", check_libraries)
    check("k8s sweepd.yaml: Deployment, Service, PodDisruptionBudget", check_k8s)
    check("k8s agones-fleet.yaml: Fleet and FleetAutoscaler", check_fleet)
    check("k8s agones-allocation.yaml: GameServerAllocation", check_allocation)
    check("compose.yaml", check_compose)
    check("probe commands answer a running sweepd", check_probes_live)
    check("probe commands fail once sweepd stopped", check_probes_fail_when_stopped)
    check("the Deployment's sweepd starts, serves metrics and answers its probes", check_deployment_live)
    check("the Fleet's sweepd calls Ready, Health and sets its Counter", check_fleet_live)
    if SERVER is not None:
        SERVER.stop()
    print("[==========] %d test(s) run." % (passed + failed + skipped))
    print("[  PASSED  ] %d test(s)." % passed)
    if skipped:
        print("[  SKIPPED ] %d test(s)." % skipped)
    if failed:
        print("[  FAILED  ] %d test(s)." % failed)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
