"""Submit -> event on `/v1/events` with a client that delays its ACKs, as Linux clients do once a
stream has settled: the event stream is read on a socket with TCP_QUICKACK turned off after
every read, while asks (each its own run, so each opens a prompt) arrive 10 ms apart. Prints how
late each `approval.requested` arrives after its submit was answered. With Nagle on at the
service, an event written while the previous one is unacknowledged waits for that delayed ACK.
Usage: delayed_ack.py PORT REQUESTER_TOKEN APPROVER_TOKEN COUNT (bench/delayed_ack.sh runs it)."""
import json, socket, sys, threading, time, http.client
port, req, app, n = int(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4])
s = socket.create_connection(("127.0.0.1", port))
s.sendall(f"GET /v1/events HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer {app}\r\nAccept: text/event-stream\r\n\r\n".encode())
arrived = {}
def reader():
    buf = b""
    while True:
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_QUICKACK, 0)
        data = s.recv(65536)
        if not data: return
        now = time.perf_counter()
        buf += data
        for line in buf.split(b"\n"):
            if line.startswith(b"data:") and b"nagle-" in line:
                try:
                    d = json.loads(line[5:])
                except Exception:
                    continue
                txt = json.dumps(d)
                for part in txt.split('"'):
                    if part.startswith("nagle-"):
                        arrived.setdefault(part, now)
        buf = buf.rsplit(b"\n", 1)[-1]
threading.Thread(target=reader, daemon=True).start()
time.sleep(0.5)
sent = {}
c = http.client.HTTPConnection("127.0.0.1", port)
for i in range(n):
    run = f"nagle-{i}"
    body = json.dumps({"run_id": run, "task_id": run, "requested_by": "agent",
        "action": {"kind": "shell", "command": "mvn -B test", "cwd": "/home/dev/shop"},
        "context": {"repo": "/home/dev/shop"}})
    c.request("POST", "/v1/actions", body, {"Authorization": f"Bearer {req}", "Content-Type": "application/json"})
    c.getresponse().read()
    sent[run] = time.perf_counter()
    time.sleep(0.01)
time.sleep(1)
lat = sorted((arrived[r] - t) * 1000 for r, t in sent.items() if r in arrived)
print(f"events {len(lat)}/{n} p50 {lat[len(lat)//2]:.2f} p90 {lat[int(len(lat)*0.9)]:.2f} p99 {lat[int(len(lat)*0.99)]:.2f} max {lat[-1]:.2f} ms; over 20 ms: {sum(1 for x in lat if x > 20)}")
