#!/usr/bin/python3
"""Integration tests for SigV4 backends (Amazon Managed Prometheus) and the
AWS credential chain: the real `staffer serve` against one fake server that
plays STS, the container credentials endpoint (EKS Pod Identity / ECS) and
AMP's Prometheus API, asked with python3-grpcio's GetMetrics.

    /usr/bin/python3 tests/integration/test_aws.py [--bin build/staffer]
        [--smoke] [--only SUBSTRING]... [--label PREFIX]

The fake AMP checks every request's signature by recomputing it with
botocore (python3-botocore: Debian's, not ours); a request that is unsigned
or badly signed is answered 403 and recorded, and the tests assert that
none was seen.  Every scenario starts its own staffer, with every AWS_*
variable (and any proxy setting) removed from the environment and only the
scenario's set.  Prints `ok N - name` / `not ok N - name` per test and
`N passed, N failed`; --smoke runs the subset marked smoke=True (used for
build/staffer-asan).
"""

import calendar
import contextlib
import hmac
import http.server
import json
import math
import os
import random
import re
import string
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness as h  # noqa: E402
from harness import grpc, note  # noqa: E402

try:
    from botocore.auth import SigV4Auth
    from botocore.awsrequest import AWSRequest
    from botocore.credentials import Credentials
except ImportError as e:  # pragma: no cover - setup problem, say it plainly
    sys.stderr.write("test_aws: %s (needs Debian's python3-botocore)\n" % e)
    sys.exit(2)

UNAVAIL = grpc.StatusCode.UNAVAILABLE
REGION, SERVICE = "us-east-1", "aps"
AMP_PREFIX = "/workspaces/ws-it0123"      # AMP serves the API under a prefix
# a query with characters that must be percent-encoded, as real ones have
QUERY = 'sum(rate(aws_it_requests_total{model="llama-70b"}[1m])) or vector(0)'

# The fake AMP answers LAMBDA to every query; with serviceTime W and the
# default square-root staffing (beta 1.5) the target is
# ceil(L + beta*sqrt(L)), L = LAMBDA*W: 20 + 6.708 -> 27
# (`build/staffer calc arrivalRate=2 serviceTime=10` prints 27).
LAMBDA, W, BETA = 2.0, 10.0, 1.5
EXPECT = math.ceil(LAMBDA * W + BETA * math.sqrt(LAMBDA * W))
# One query per call: no range query (no forecast, no hold, peakedness
# given), so that the fake AMP counts one request per GetMetrics.
META = {"arrivalRateQuery": QUERY, "serviceTime": str(int(W)),
        "coldStartSeconds": "0", "peakedness": "off"}

ROLE_ARN = "arn:aws:iam::111122223333:role/staffer-it"

test = h.Registry()


def rnd(n, alphabet=string.ascii_letters + string.digits):
    return "".join(random.choice(alphabet) for _ in range(n))


def iso(t):
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))


# ----------------------------------------------------------------------------
# SigV4 check, with botocore


def verify_sigv4(method, host_url, path, headers, keys, now=None):
    """Check one request's SigV4 signature.

    headers: list of (name, value) as received; keys: access key id ->
    (secret, session token or None).  Returns a dict: ok, why, akid,
    token_ok (the x-amz-security-token header is exactly the key's token,
    or absent for a key without one), signed (the SignedHeaders list)."""
    r = {"ok": False, "why": "", "akid": None, "token_ok": None, "signed": []}
    low = {}
    for n, v in headers:
        low.setdefault(n.lower(), []).append(v)
    auth = low.get("authorization")
    if not auth:
        r["why"] = "no Authorization header (unsigned request)"
        return r
    if len(auth) != 1:
        r["why"] = "%d Authorization headers" % len(auth)
        return r
    m = re.fullmatch(r"AWS4-HMAC-SHA256 Credential=([^/,\s]+)/(\d{8})/([^/,\s]+)/([^/,\s]+)"
                     r"/aws4_request,\s*SignedHeaders=([a-z0-9;_.-]+),\s*"
                     r"Signature=([0-9a-f]{64})", auth[0])
    if not m:
        r["why"] = "Authorization is not SigV4: %r" % auth[0][:200]
        return r
    akid, day, region, service, signed, sig = m.groups()
    r["akid"] = akid
    r["signed"] = signed.split(";")
    if (region, service) != (REGION, SERVICE):
        r["why"] = "credential scope %s/%s, want %s/%s" % (region, service, REGION, SERVICE)
        return r
    if akid not in keys:
        r["why"] = "unknown access key id %r" % akid
        return r
    secret, token = keys[akid]
    tok = low.get("x-amz-security-token")
    r["token_ok"] = (tok == [token]) if token else (tok is None)
    if not r["token_ok"]:
        r["why"] = "x-amz-security-token %r, want %r" % (tok, token)
        return r
    amzdate = low.get("x-amz-date", [""])[0]
    if not re.fullmatch(r"\d{8}T\d{6}Z", amzdate) or amzdate[:8] != day:
        r["why"] = "x-amz-date %r does not match the scope date %s" % (amzdate, day)
        return r
    skew = (now or time.time()) - calendar.timegm(time.strptime(amzdate, "%Y%m%dT%H%M%SZ"))
    if abs(skew) > 300:
        r["why"] = "x-amz-date %s is %.0f s off" % (amzdate, skew)
        return r
    for need in ("host", "x-amz-date") + (("x-amz-security-token",) if token else ()):
        if need not in r["signed"]:
            r["why"] = "%s is not among the signed headers %s" % (need, signed)
            return r
    hdrs = {}
    for n in r["signed"]:
        if n not in low:
            r["why"] = "signed header %s is not in the request" % n
            return r
        hdrs[n] = ",".join(low[n])
    # The query as AWS canonicalises it: each name and value decoded, then
    # (by botocore, from params) encoded again and sorted by name.  So a
    # query signed in another order or with another encoding than AWS's
    # fails here as it would at AWS.
    upath, _, query = path.partition("?")
    params = []
    for pair in query.split("&") if query else []:
        k, _, v = pair.partition("=")
        params.append((urllib.parse.unquote(k), urllib.parse.unquote(v)))
    req = AWSRequest(method=method, url=host_url + upath, headers=hdrs, params=params)
    req.context["timestamp"] = amzdate
    s4 = SigV4Auth(Credentials(akid, secret, token), SERVICE, REGION)
    mine = s4.signed_headers(s4.headers_to_sign(req))
    if mine != signed:
        r["why"] = "SignedHeaders %s, botocore signs %s" % (signed, mine)
        return r
    canon = s4.canonical_request(req)
    want = s4.signature(s4.string_to_sign(req, canon), req)
    if not hmac.compare_digest(want, sig):
        r["why"] = "signature mismatch (canonical request per botocore: %r)" % canon
        return r
    r["ok"] = True
    return r


# ----------------------------------------------------------------------------
# the fake server: /sts, /creds, AMP's /api/v1/query, and CONNECT


class Fake:
    """One HTTP server on loopback playing STS, the container credentials
    endpoint and AMP.  reset() sets what a scenario expects and clears the
    records."""

    def __init__(self):
        self.lock = threading.Lock()
        self.seq = 0
        self.reset()
        fake = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, fmt, *a):
                pass

            def do_GET(self):
                fake.handle(self, "GET")

            def do_POST(self):
                fake.handle(self, "POST")

            def do_CONNECT(self):
                with fake.lock:
                    fake.connects.append(self.path)
                self.send_response(403)
                self.send_header("Content-Length", "0")
                self.send_header("Connection", "close")
                self.end_headers()
                self.close_connection = True

        self.srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.srv.daemon_threads = True
        self.port = self.srv.server_address[1]
        self.url = "http://127.0.0.1:%d" % self.port
        threading.Thread(target=self.srv.serve_forever, daemon=True).start()

    def stop(self):
        self.srv.shutdown()
        self.srv.server_close()

    def reset(self, sts=None, creds=None, role_arn=ROLE_ARN, session_name="staffer",
              container_auth=None):
        """sts / creds: {"expires_in": seconds} for credentials, or
        {"status": 403, "code": ..., "message": ...} for an error, or
        {"status": 200, "body": "..."} for a raw reply."""
        with self.lock:
            self.sts_mode = sts
            self.creds_mode = creds
            self.role_arn = role_arn
            self.session_name = session_name
            self.container_auth = container_auth
            self.keys = {}          # akid -> (secret, token or None)
            self.issued = []        # akids handed out by /sts and /creds, in order
            self.sts = []           # one dict per STS call
            self.creds = []         # one dict per container call
            self.amp = []           # one dict per AMP request (verify_sigv4's)
            self.other = []         # requests to any other path
            self.connects = []      # CONNECT targets (proxy role)
            self.value = LAMBDA

    def add_key(self, akid, secret, token=None):
        with self.lock:
            self.keys[akid] = (secret, token)

    def _issue(self, prefix, expires_in):
        self.seq += 1
        akid = "%s%04d%s" % (prefix, self.seq, rnd(8, string.ascii_uppercase + string.digits))
        secret = rnd(40, string.ascii_letters + string.digits + "/+")
        token = "IQoJb3JpZ2luX2Vj" + rnd(180, string.ascii_letters + string.digits + "/+") + "=="
        self.keys[akid] = (secret, token)
        self.issued.append(akid)
        return akid, secret, token, iso(time.time() + expires_in)

    @staticmethod
    def _reply(hd, status, body, ctype):
        b = body.encode() if isinstance(body, str) else body
        hd.send_response(status)
        hd.send_header("Content-Type", ctype)
        hd.send_header("Content-Length", str(len(b)))
        hd.end_headers()
        hd.wfile.write(b)

    def handle(self, hd, method):
        n = int(hd.headers.get("Content-Length") or 0)
        body = hd.rfile.read(n) if n > 0 else b""
        path = urllib.parse.urlsplit(hd.path).path
        if path == "/sts" or path.startswith("/sts/"):
            return self.on_sts(hd, method, body)
        if path == "/creds":
            return self.on_creds(hd, method)
        if path in (AMP_PREFIX + "/api/v1/query", AMP_PREFIX + "/api/v1/query_range"):
            return self.on_amp(hd, method, path)
        with self.lock:
            self.other.append((method, hd.path))
        self._reply(hd, 404, "not found\n", "text/plain")

    def on_sts(self, hd, method, body):
        call = {"path": hd.path, "method": method, "ctype": hd.headers.get("Content-Type"),
                "problems": [], "token": None, "session": None, "akid": None,
                "t": time.monotonic()}
        p = call["problems"]
        if method != "POST":
            p.append("method %s, want POST" % method)
        if (call["ctype"] or "").split(";")[0].strip() != "application/x-www-form-urlencoded":
            p.append("Content-Type %r" % call["ctype"])
        try:
            pairs = urllib.parse.parse_qsl(body.decode(), keep_blank_values=True,
                                           strict_parsing=True)
        except (ValueError, UnicodeDecodeError) as e:
            pairs = []
            p.append("form does not parse: %s: %r" % (e, body[:200]))
        form = {}
        for k, v in pairs:
            if k in form:
                p.append("field %s given twice" % k)
            form[k] = v
        want = {"Action", "Version", "RoleArn", "RoleSessionName", "WebIdentityToken"}
        if set(form) != want:
            p.append("fields %s, want %s" % (sorted(form), sorted(want)))
        call["token"] = form.get("WebIdentityToken")
        call["session"] = form.get("RoleSessionName")
        with self.lock:
            if form.get("Action") != "AssumeRoleWithWebIdentity":
                p.append("Action %r" % form.get("Action"))
            if form.get("Version") != "2011-06-15":
                p.append("Version %r" % form.get("Version"))
            if form.get("RoleArn") != self.role_arn:
                p.append("RoleArn %r, want %r" % (form.get("RoleArn"), self.role_arn))
            if call["session"] != self.session_name:
                p.append("RoleSessionName %r, want %r" % (call["session"], self.session_name))
            if not call["token"]:
                p.append("empty WebIdentityToken")
            mode = dict(self.sts_mode or {"status": 500, "code": "InternalFailure",
                                          "message": "test: no STS reply set"})
            if p:
                mode = {"status": 400, "code": "InvalidParameterValue",
                        "message": "test: " + "; ".join(p)}
            if "expires_in" in mode:
                akid, secret, token, exp = self._issue("ASIASTS", mode["expires_in"])
                call["akid"] = akid
            self.sts.append(call)
        if "expires_in" in mode:
            xml = ("<AssumeRoleWithWebIdentityResponse xmlns=\"https://sts.amazonaws.com/doc/"
                   "2011-06-15/\"><AssumeRoleWithWebIdentityResult>"
                   "<SubjectFromWebIdentityToken>system:serviceaccount:keda:staffer"
                   "</SubjectFromWebIdentityToken>"
                   "<AssumedRoleUser><Arn>arn:aws:sts::111122223333:assumed-role/staffer-it/%s"
                   "</Arn><AssumedRoleId>AROA0000:%s</AssumedRoleId></AssumedRoleUser>"
                   "<Credentials><SessionToken>%s</SessionToken><SecretAccessKey>%s"
                   "</SecretAccessKey><Expiration>%s</Expiration><AccessKeyId>%s</AccessKeyId>"
                   "</Credentials><Audience>sts.amazonaws.com</Audience>"
                   "</AssumeRoleWithWebIdentityResult><ResponseMetadata><RequestId>"
                   "c6104cbe-af31-11e0-8154-cbc7ccf896c7</RequestId></ResponseMetadata>"
                   "</AssumeRoleWithWebIdentityResponse>\n"
                   % (call["session"], call["session"], token, secret, exp, akid))
            return self._reply(hd, 200, xml, "text/xml")
        if "body" in mode:
            return self._reply(hd, mode["status"], mode["body"], "text/xml")
        xml = ("<ErrorResponse xmlns=\"https://sts.amazonaws.com/doc/2011-06-15/\">"
               "<Error><Type>Sender</Type><Code>%s</Code><Message>%s</Message></Error>"
               "<RequestId>6a6d1c5e-0000-4d3f-9f6a-000000000000</RequestId></ErrorResponse>\n"
               % (mode["code"], mode["message"]))
        self._reply(hd, mode["status"], xml, "text/xml")

    def on_creds(self, hd, method):
        auth = hd.headers.get_all("Authorization") or []
        call = {"method": method, "auth": auth, "akid": None, "problems": []}
        with self.lock:
            if method != "GET":
                call["problems"].append("method %s, want GET" % method)
            if self.container_auth is not None and auth != [self.container_auth]:
                call["problems"].append("Authorization %r, want %r" % (auth, self.container_auth))
            if self.container_auth is None and auth:
                call["problems"].append("Authorization %r, want none" % auth)
            mode = self.creds_mode or {"status": 500, "body": "{}"}
            if call["problems"]:
                mode = {"status": 401, "body": json.dumps({"code": "AccessDenied",
                                                           "message": "; ".join(call["problems"])})}
            if "expires_in" in mode:
                akid, secret, token, exp = self._issue("ASIAPOD", mode["expires_in"])
                call["akid"] = akid
            self.creds.append(call)
        if "expires_in" in mode:
            return self._reply(hd, 200, json.dumps({
                "AccessKeyId": akid, "SecretAccessKey": secret, "Token": token,
                "AccountId": "111122223333", "Expiration": exp}), "application/json")
        self._reply(hd, mode["status"], mode["body"], "application/json")

    def on_amp(self, hd, method, path):
        with self.lock:
            keys = dict(self.keys)
            value = self.value
        host = hd.headers.get("Host") or ""
        rec = verify_sigv4(method, "http://" + host, hd.path, list(hd.headers.items()), keys)
        rec.update(path=hd.path, method=method, t=time.monotonic())
        with self.lock:
            self.amp.append(rec)
        if not rec["ok"]:
            return self._reply(hd, 403, json.dumps({"message": "test AMP: " + rec["why"]}),
                               "application/json")
        if path.endswith("/query_range"):
            # a flat history at value: the forecast is value too
            q = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(hd.path).query))
            t, end, step = float(q["start"]), float(q["end"]), float(q["step"])
            pts = []
            while t <= end + 1e-9 and len(pts) < 11000:
                pts.append([round(t, 3), repr(value)])
                t += step
            data = {"resultType": "matrix", "result": [{"metric": {}, "values": pts}]}
        else:
            data = {"resultType": "vector",
                    "result": [{"metric": {}, "value": [time.time(), repr(value)]}]}
        self._reply(hd, 200, json.dumps({"status": "success", "data": data}),
                    "application/json")

    # -- views for the tests
    def snap(self):
        with self.lock:
            return {"sts": list(self.sts), "creds": list(self.creds), "amp": list(self.amp),
                    "other": list(self.other), "connects": list(self.connects),
                    "issued": list(self.issued), "keys": dict(self.keys)}

    def summary(self):
        s = self.snap()
        lines = ["fake: %d STS call(s), %d container call(s), %d AMP request(s), other %s, "
                 "CONNECT %s" % (len(s["sts"]), len(s["creds"]), len(s["amp"]), s["other"],
                                 s["connects"])]
        for c in s["sts"]:
            lines.append("  STS %s token=%r session=%r akid=%s problems=%s"
                         % (c["path"], c["token"], c["session"], c["akid"], c["problems"]))
        for c in s["creds"]:
            lines.append("  creds auth=%r akid=%s problems=%s"
                         % (c["auth"], c["akid"], c["problems"]))
        for a in s["amp"][-6:]:
            lines.append("  AMP %s ok=%s akid=%s token_ok=%s %s"
                         % (a["path"], a["ok"], a["akid"], a["token_ok"], a["why"]))
        return "\n".join(lines)


# ----------------------------------------------------------------------------
# one staffer per scenario


def base_env():
    """The inherited environment without AWS_* and proxy settings."""
    drop = {"http_proxy", "https_proxy", "all_proxy", "no_proxy"}
    return {k: v for k, v in os.environ.items()
            if not k.startswith("AWS_") and k.lower() not in drop}


@contextlib.contextmanager
def staffer(c, env):
    """Start `staffer serve` with the sigv4 backend and exactly env on top
    of base_env(); yield (server, client); stop it (SIGTERM, exit 0, no
    sanitizer report)."""
    mport = h.free_port()
    s = h.Staffer(c.bin, config=c.cfg, dirpath=c.dir, args=[
        "--log-level", "info", "--metrics-listen", "127.0.0.1:%d" % mport])
    s.metrics_url = "http://127.0.0.1:%d/metrics" % mport
    s.env = base_env()
    s.env.update(env)
    c.last = s
    s.start(20)
    cl = h.Client(s.addr)
    ok = False
    try:
        yield s, cl
        ok = True
    finally:
        cl.close()
        rc, _ = s.stop(10)
        if ok:
            assert rc == 0, "staffer exited %s after SIGTERM\n%s" % (rc, s.log_tail())
            reps = s.sanitizer_reports()
            assert not reps, "sanitizer reports:\n" + "\n".join(reps)


def refreshes(s):
    """staffer's own count of credential requests: (ok, error)."""
    got = {}
    for line in h.http_get(s.metrics_url).decode().splitlines():
        if line.startswith("staffer_aws_credential_refreshes_total{"):
            k, v = line.rsplit(" ", 1)
            got[k.split('"')[1]] = int(float(v))
    return got.get("ok"), got.get("error")


def target(cl, name="so"):
    """GetMetrics must answer EXPECT (the fake AMP's LAMBDA with W)."""
    try:
        got = cl.target(META, name=name)
    except grpc.RpcError as e:
        raise AssertionError("GetMetrics %s: %s, want %d" % (e.code().name, e.details(), EXPECT))
    assert got == EXPECT, "GetMetrics %s, want %d" % (got, EXPECT)
    return got


def unavailable(cl, name="so"):
    """GetMetrics must answer UNAVAILABLE; returns its message."""
    code, details, res = h.status(cl.metrics_raw, META, name=name)
    assert code == UNAVAIL, "GetMetrics %s (%r, %r), want UNAVAILABLE" % (code, details, res)
    return details


def amp_all_ok(f, n=None):
    """Every AMP request was validly signed (and there were n of them)."""
    s = f.snap()
    bad = [a for a in s["amp"] if not a["ok"]]
    assert not bad, "AMP rejected %d request(s): %s" % (len(bad), [a["why"] for a in bad])
    if n is not None:
        assert len(s["amp"]) == n, "AMP got %d request(s), want %d" % (len(s["amp"]), n)
    return s["amp"]


def write(c, name, text):
    path = os.path.join(c.dir, name)
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)   # atomic, as the kubelet swaps projected tokens
    return path


def web_env(c, token, **extra):
    env = {"AWS_WEB_IDENTITY_TOKEN_FILE": write(c, "web-identity-token", token),
           "AWS_ROLE_ARN": ROLE_ARN,
           "AWS_ENDPOINT_URL_STS": c.f.url + "/sts"}
    env.update(extra)
    return env


def jwt():
    """Something shaped like a projected service-account token."""
    seg = string.ascii_letters + string.digits + "-_"
    return "eyJhbGciOiJSUzI1NiIs%s.%s.%s" % (rnd(20, seg), rnd(120, seg), rnd(86, seg))


# ----------------------------------------------------------------------------
# the verifier itself: it accepts botocore's signature and rejects a bad one


def _signed_get(url, akid, secret, token=None):
    req = AWSRequest(method="GET", url=url)
    SigV4Auth(Credentials(akid, secret, token), SERVICE, REGION).add_auth(req)
    return req


def _send(req, tamper=None):
    hdrs = dict(req.headers.items())
    url = req.url
    if tamper:
        url, hdrs = tamper(url, hdrs)
    r = urllib.request.Request(url, headers=hdrs, method=req.method)
    try:
        with urllib.request.urlopen(r, timeout=5) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode(errors="replace")


@test("fake AMP: accepts botocore's SigV4, rejects unsigned, tampered, wrong key/token", smoke=True)
def t_verifier(c):
    f = c.f
    f.reset()
    url = f.url + AMP_PREFIX + "/api/v1/query?query=" + urllib.parse.quote(QUERY, safe="")
    f.add_key("AKIAVERIFY1", "s3cr3t/one+x")
    f.add_key("ASIAVERIFY2", "s3cr3t/two", "tok/en+2==")
    st, body = _send(_signed_get(url, "AKIAVERIFY1", "s3cr3t/one+x"))
    assert st == 200 and body["data"]["result"][0]["value"][1] == repr(LAMBDA), (st, body)
    st, body = _send(_signed_get(url, "ASIAVERIFY2", "s3cr3t/two", "tok/en+2=="))
    assert st == 200, (st, body)
    cases = [
        ("unsigned", AWSRequest(method="GET", url=url), None),
        ("query changed after signing", _signed_get(url, "AKIAVERIFY1", "s3cr3t/one+x"),
         lambda u, hd: (u + "x", hd)),
        ("x-amz-date changed", _signed_get(url, "AKIAVERIFY1", "s3cr3t/one+x"),
         lambda u, hd: (u, dict(hd, **{"X-Amz-Date": time.strftime(
             "%Y%m%dT%H%M%SZ", time.gmtime(time.time() - 60))}))),
        ("wrong secret", _signed_get(url, "AKIAVERIFY1", "not-the-secret"), None),
        ("unknown key", _signed_get(url, "AKIANOBODY", "s3cr3t/one+x"), None),
        ("session token missing", _signed_get(url, "ASIAVERIFY2", "s3cr3t/two"), None),
        ("session token wrong", _signed_get(url, "ASIAVERIFY2", "s3cr3t/two", "other"), None),
        ("wrong service", None, None),
    ]
    for what, req, tamper in cases:
        if req is None:
            req = AWSRequest(method="GET", url=url)
            SigV4Auth(Credentials("AKIAVERIFY1", "s3cr3t/one+x"), "execute-api",
                      REGION).add_auth(req)
        st, body = _send(req, tamper)
        assert st == 403, "%s: HTTP %s %r, want 403" % (what, st, body)
    s = f.snap()
    oks = [a["ok"] for a in s["amp"]]
    assert oks == [True, True] + [False] * len(cases), oks
    whys = [a["why"] for a in s["amp"][2:]]
    assert "unsigned" in whys[0] and "mismatch" in whys[1], whys
    assert s["amp"][0]["token_ok"] is True and s["amp"][1]["token_ok"] is True, s["amp"][:2]
    assert "x-amz-security-token" in s["amp"][1]["signed"], s["amp"][1]


# ----------------------------------------------------------------------------
# (a) static keys from the environment


@test("static keys: every query signed with AWS_ACCESS_KEY_ID, no token header")
def t_static(c):
    f = c.f
    f.reset()
    akid, secret = "AKIAIT" + rnd(14, string.ascii_uppercase), rnd(40)
    f.add_key(akid, secret)
    with staffer(c, {"AWS_ACCESS_KEY_ID": akid, "AWS_SECRET_ACCESS_KEY": secret}) as (s, cl):
        for _ in range(3):
            target(cl)
    amp = amp_all_ok(f, 3)
    assert all(a["akid"] == akid and a["token_ok"] for a in amp), amp
    assert all("x-amz-security-token" not in a["signed"] for a in amp), amp
    sn = f.snap()
    assert not sn["sts"] and not sn["creds"], \
        "STS called %d, container endpoint %d times, want 0" % (len(sn["sts"]), len(sn["creds"]))


@test("static keys + AWS_SESSION_TOKEN: x-amz-security-token sent and signed", smoke=True)
def t_static_token(c):
    f = c.f
    f.reset()
    akid, secret = "ASIAIT" + rnd(14, string.ascii_uppercase), rnd(40) + "/+"
    token = "FwoGZXIvYXdzE" + rnd(200, string.ascii_letters + string.digits + "/+") + "="
    f.add_key(akid, secret, token)
    env = {"AWS_ACCESS_KEY_ID": akid, "AWS_SECRET_ACCESS_KEY": secret,
           "AWS_SESSION_TOKEN": token}
    with staffer(c, env) as (s, cl):
        for _ in range(2):
            target(cl)
    amp = amp_all_ok(f, 2)
    assert all(a["akid"] == akid and a["token_ok"] for a in amp), amp
    assert all("x-amz-security-token" in a["signed"] for a in amp), amp


@test("static keys: the forecast's range query (query_range, 4 parameters) is signed too",
      smoke=True)
def t_static_range(c):
    f = c.f
    f.reset()
    akid, secret = "AKIARANGE" + rnd(11, string.ascii_uppercase), rnd(40)
    f.add_key(akid, secret)
    meta = dict(META, coldStartSeconds="30", forecastWindowSeconds="60",
                peakedness="auto")
    with staffer(c, {"AWS_ACCESS_KEY_ID": akid, "AWS_SECRET_ACCESS_KEY": secret}) as (s, cl):
        try:
            got = cl.target(meta)
        except grpc.RpcError as e:
            raise AssertionError("GetMetrics %s: %s" % (e.code().name, e.details()))
    amp = amp_all_ok(f)
    paths = [urllib.parse.urlsplit(a["path"]).path for a in amp]
    assert AMP_PREFIX + "/api/v1/query_range" in paths, \
        "no range query reached AMP (paths %s)" % paths
    assert all(a["akid"] == akid for a in amp), amp
    assert got == EXPECT, "GetMetrics %s with a flat forecast history, want %d" % (got, EXPECT)


# ----------------------------------------------------------------------------
# (b), (c) web identity (IRSA)


@test("web identity: STS once for 4 queries (1 h expiry), its creds and token sign",
      smoke=True)
def t_web_identity(c):
    f = c.f
    f.reset(sts={"expires_in": 3600})
    tok = jwt()
    with staffer(c, web_env(c, tok + "\n")) as (s, cl):
        for _ in range(4):
            target(cl)
        counted = refreshes(s)
    sn = f.snap()
    assert counted == (1, 0), "staffer counted (ok, error) refreshes %r, want (1, 0)" % (counted,)
    assert len(sn["sts"]) == 1, "STS called %d times, want 1" % len(sn["sts"])
    call = sn["sts"][0]
    assert call["problems"] == [], call["problems"]
    assert call["path"] == "/sts", "STS request path %r, want /sts" % call["path"]
    assert call["token"] == tok, "WebIdentityToken %r, want the file's %r (trailing newline " \
        "trimmed)" % (call["token"], tok)
    assert call["session"] == "staffer", call["session"]
    amp = amp_all_ok(f, 4)
    assert all(a["akid"] == call["akid"] for a in amp), \
        "signed with %s, STS issued %s" % ([a["akid"] for a in amp], call["akid"])
    assert all(a["token_ok"] and "x-amz-security-token" in a["signed"] for a in amp), amp
    assert not sn["creds"], "container endpoint called %d times, want 0" % len(sn["creds"])


@test("web identity: expiry 100 s ahead -> still signs, STS at most once per 10 s")
def t_web_identity_short(c):
    # Credentials with less than 300 s left are due for a refresh, but the
    # source is asked at most once per 10 s (awscred.h): a source handing
    # out short-lived credentials must not get one call per query.  The
    # refresh itself, after those 10 s, is t_web_identity_rotation's.
    f = c.f
    f.reset(sts={"expires_in": 100})
    with staffer(c, web_env(c, jwt())) as (s, cl):
        t0 = time.monotonic()
        for _ in range(6):
            target(cl)
            time.sleep(0.2)
        dt = time.monotonic() - t0
    sn = f.snap()
    assert dt < 9, "the queries took %.1f s, too long to test the 10 s rule" % dt
    assert len(sn["sts"]) == 1, \
        "STS called %d times for 6 queries within %.1f s, want 1" % (len(sn["sts"]), dt)
    assert not sn["sts"][0]["problems"], sn["sts"][0]["problems"]
    amp = amp_all_ok(f, 6)
    assert all(a["akid"] == sn["sts"][0]["akid"] and a["token_ok"] for a in amp), amp


@test("web identity: expiry 100 s ahead -> refreshed after 10 s, with the rotated token")
def t_web_identity_rotation(c):
    f = c.f
    f.reset(sts={"expires_in": 100}, session_name="it-session-1")
    old, new = jwt(), jwt()
    env = web_env(c, old, AWS_ROLE_SESSION_NAME="it-session-1")
    with staffer(c, env) as (s, cl):
        target(cl)
        h.wait_until(lambda: len(f.snap()["sts"]) >= 1, 2, 0.02, "first STS call")
        write(c, "web-identity-token", new + "\n")
        t0 = time.monotonic()
        n = 1
        # however soon staffer asks STS again, the new token must be in it
        while len(f.snap()["sts"]) < 2:
            assert time.monotonic() - t0 < 15, "no second STS call within 15 s"
            target(cl)
            n += 1
            time.sleep(0.25)
        note("second STS call %.1f s after the rotation, after %d GetMetrics"
             % (time.monotonic() - t0, n))
        target(cl)
    sn = f.snap()
    assert [x["token"] for x in sn["sts"][:2]] == [old, new], \
        "tokens sent %r, want [old, new] = %r" % ([x["token"] for x in sn["sts"]], [old, new])
    assert all(x["session"] == "it-session-1" and not x["problems"] for x in sn["sts"]), \
        [(x["session"], x["problems"]) for x in sn["sts"]]
    amp = amp_all_ok(f)
    assert amp[-1]["akid"] in [x["akid"] for x in sn["sts"][1:]], \
        "last query signed with %s, not a key from the refreshed STS reply" % amp[-1]["akid"]


# ----------------------------------------------------------------------------
# (d) STS failures


@test("web identity: STS 403 AccessDenied -> UNAVAILABLE with STS's Code and Message, "
      "AMP untouched, no retry within 10 s", smoke=True)
def t_sts_denied(c):
    f = c.f
    msg = "Not authorized to perform sts:AssumeRoleWithWebIdentity"
    f.reset(sts={"status": 403, "code": "AccessDenied", "message": msg})
    with staffer(c, web_env(c, jwt())) as (s, cl):
        d1 = unavailable(cl)
        d2 = unavailable(cl, name="so2")
        sn = f.snap()
        counted = refreshes(s)
    assert counted == (0, 1), "staffer counted (ok, error) refreshes %r, want (0, 1)" % (counted,)
    note("UNAVAILABLE: %s" % d1)
    for d in (d1, d2):
        assert "AccessDenied" in d and msg in d, "message %r lacks STS's Code/Message" % d
        assert d.startswith("arrivalRateQuery"), \
            "message %r does not start from the failing query (arrivalRateQuery)" % d
    assert len(sn["sts"]) == 1, "STS called %d times within 10 s of a failure, want 1" \
        % len(sn["sts"])
    assert not sn["amp"], "AMP got %d request(s) without credentials" % len(sn["amp"])


@test("web identity: STS answers 200 with a non-STS body -> UNAVAILABLE, AMP untouched")
def t_sts_bad_reply(c):
    f = c.f
    f.reset(sts={"status": 200, "body": "<html><body>proxy login</body></html>\n"})
    with staffer(c, web_env(c, jwt())) as (s, cl):
        d = unavailable(cl)
    note("UNAVAILABLE: %s" % d)
    sn = f.snap()
    assert len(sn["sts"]) == 1, "STS called %d times, want 1" % len(sn["sts"])
    assert "STS" in d or "AssumeRoleWithWebIdentity" in d, \
        "message %r does not say the STS reply was the problem" % d
    assert not sn["amp"], "AMP got a request without credentials"


@test("web identity: STS endpoint from AWS_REGION, AWS_DEFAULT_REGION, the backend's region")
def t_sts_endpoint(c):
    # No AWS_ENDPOINT_URL_STS: staffer must go to https://sts.<region>.amazonaws.com/.
    # https_proxy points at the fake, which records the CONNECT target and
    # refuses it, so nothing leaves the machine.
    f = c.f
    cases = [({"AWS_REGION": "eu-west-1", "AWS_DEFAULT_REGION": "ap-south-1"}, "eu-west-1"),
             ({"AWS_DEFAULT_REGION": "ap-south-1"}, "ap-south-1"),
             ({}, REGION)]
    for extra, region in cases:
        f.reset(sts={"expires_in": 3600})
        env = web_env(c, jwt(), https_proxy=f.url, no_proxy="127.0.0.1,localhost", **extra)
        del env["AWS_ENDPOINT_URL_STS"]
        with staffer(c, env) as (s, cl):
            d = unavailable(cl)
        sn = f.snap()
        want = "sts.%s.amazonaws.com:443" % region
        assert sn["connects"] == [want], "with %s: CONNECT %s, want [%s] (message %r)" \
            % (extra or "no region variables", sn["connects"], want, d)
        assert not sn["amp"] and not sn["sts"], "AMP %d, STS %d requests, want 0" \
            % (len(sn["amp"]), len(sn["sts"]))


# ----------------------------------------------------------------------------
# (e) container credentials


@test("container: token file sent as Authorization, its creds sign, fetched once", smoke=True)
def t_container(c):
    f = c.f
    tok = "pod-identity-" + rnd(60)
    f.reset(creds={"expires_in": 3600}, container_auth=tok)
    env = {"AWS_CONTAINER_CREDENTIALS_FULL_URI": f.url + "/creds",
           "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE": write(c, "pod-token", tok)}
    with staffer(c, env) as (s, cl):
        for _ in range(3):
            target(cl)
    sn = f.snap()
    assert len(sn["creds"]) == 1, "container endpoint called %d times, want 1" % len(sn["creds"])
    assert sn["creds"][0]["auth"] == [tok], sn["creds"][0]
    amp = amp_all_ok(f, 3)
    assert all(a["akid"] == sn["creds"][0]["akid"] and a["token_ok"] for a in amp), amp
    assert not sn["sts"], "STS called %d times, want 0" % len(sn["sts"])


@test("container: AWS_CONTAINER_AUTHORIZATION_TOKEN from the environment")
def t_container_env_token(c):
    f = c.f
    tok = "Bearer-ish " + rnd(40)
    f.reset(creds={"expires_in": 3600}, container_auth=tok)
    env = {"AWS_CONTAINER_CREDENTIALS_FULL_URI": f.url + "/creds",
           "AWS_CONTAINER_AUTHORIZATION_TOKEN": tok}
    with staffer(c, env) as (s, cl):
        target(cl)
    sn = f.snap()
    assert [x["auth"] for x in sn["creds"]] == [[tok]], \
        "container calls with Authorization %r, want one with %r" \
        % ([x["auth"] for x in sn["creds"]], tok)
    amp = amp_all_ok(f, 1)
    assert amp[0]["akid"] == sn["creds"][0]["akid"], amp


@test("container: an error status with credentials in its body -> UNAVAILABLE that "
      "quotes none of them, in the answer or the log (before: the body's first 160 "
      "bytes, the secret key included)")
def t_container_error_secret(c):
    f = c.f
    secret = "TOPSECRET" + rnd(31)
    body = json.dumps({"AccessKeyId": "ASIALEAK" + rnd(12), "SecretAccessKey": secret,
                       "Token": "IQoJ" + rnd(60), "Expiration": "2099-01-01T00:00:00Z"})
    f.reset(creds={"status": 500, "body": body}, container_auth="t")
    env = {"AWS_CONTAINER_CREDENTIALS_FULL_URI": f.url + "/creds",
           "AWS_CONTAINER_AUTHORIZATION_TOKEN": "t"}
    with staffer(c, env) as (s, cl):
        d = unavailable(cl)
        log = s.log()
    note("UNAVAILABLE: %s" % d)
    assert "HTTP status 500" in d and "not shown" in d, d
    assert secret not in d and "TOPSECRET" not in log, "the secret was quoted"


# ----------------------------------------------------------------------------
# (f) nothing, (g) precedence


@test("no credentials at all: UNAVAILABLE 'no AWS credentials', nothing sent", smoke=True)
def t_nothing(c):
    f = c.f
    f.reset(sts={"expires_in": 3600}, creds={"expires_in": 3600})
    with staffer(c, {}) as (s, cl):
        d = unavailable(cl)
    note("UNAVAILABLE: %s" % d)
    assert "no AWS credentials" in d, d
    assert d.startswith("arrivalRateQuery"), \
        "message %r does not start from the failing query (arrivalRateQuery)" % d
    sn = f.snap()
    assert not sn["amp"] and not sn["sts"] and not sn["creds"], "AMP %d, STS %d, container %d " \
        "requests, want 0" % (len(sn["amp"]), len(sn["sts"]), len(sn["creds"]))


@test("precedence: static keys beat web identity and container; STS never called", smoke=True)
def t_precedence_static(c):
    f = c.f
    f.reset(sts={"expires_in": 3600}, creds={"expires_in": 3600})
    akid, secret = "AKIAPREC" + rnd(12, string.ascii_uppercase), rnd(40)
    f.add_key(akid, secret)
    env = web_env(c, jwt(), AWS_ACCESS_KEY_ID=akid, AWS_SECRET_ACCESS_KEY=secret,
                  AWS_CONTAINER_CREDENTIALS_FULL_URI=f.url + "/creds")
    with staffer(c, env) as (s, cl):
        for _ in range(2):
            target(cl)
    amp = amp_all_ok(f, 2)
    assert all(a["akid"] == akid for a in amp), amp
    sn = f.snap()
    assert not sn["sts"] and not sn["creds"], \
        "STS called %d, container endpoint %d times, want 0" % (len(sn["sts"]), len(sn["creds"]))


@test("precedence: web identity beats container credentials")
def t_precedence_web(c):
    f = c.f
    f.reset(sts={"expires_in": 3600}, creds={"expires_in": 3600})
    env = web_env(c, jwt(), AWS_CONTAINER_CREDENTIALS_FULL_URI=f.url + "/creds",
                  AWS_CONTAINER_AUTHORIZATION_TOKEN="x")
    with staffer(c, env) as (s, cl):
        target(cl)
    sn = f.snap()
    assert len(sn["sts"]) == 1 and not sn["creds"], "STS %d (want 1), container %d (want 0) calls" \
        % (len(sn["sts"]), len(sn["creds"]))
    amp = amp_all_ok(f, 1)
    assert amp[0]["akid"] == sn["sts"][0]["akid"], amp


# ----------------------------------------------------------------------------


def main():
    def setup(c, a):
        c.last = None
        c.dir = h.tmpdir("staffer-aws-")
        c.f = Fake()
        c.cfg = h.write_config(os.path.join(c.dir, "staffer.json"), [
            {"name": "amp", "url": c.f.url + AMP_PREFIX, "timeoutSeconds": 2,
             "auth": {"type": "sigv4", "region": REGION}},
        ], default="amp", ttl=0)

        def on_fail():
            out = c.f.summary()
            if c.last is not None:
                out += "\nstaffer log %s, last lines:\n%s" % (c.last.log_path,
                                                             c.last.log_tail(8))
            return out
        c.on_fail = on_fail

    def teardown(c, failed):
        c.f.stop()
        if failed:
            note("logs kept in %s" % c.dir)

    return h.suite_main(test, setup, teardown)


if __name__ == "__main__":
    sys.exit(main())
