"""An old-style WebDriver proxy (a remote end without WebDriver BiDi): every
command passes through to the WebDriver at argv[1], but a new session's answer
loses `webSocketUrl`, as a Grid node without BiDi returns it. Prints its port."""

import http.client
import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

UPSTREAM = urlsplit(sys.argv[1])


class Proxy(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def forward(self):
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        up = http.client.HTTPConnection(UPSTREAM.hostname, UPSTREAM.port, timeout=120)
        headers = {"Content-Type": "application/json; charset=utf-8"} if body else {}
        up.request(self.command, self.path, body=body or None, headers=headers)
        answer = up.getresponse()
        data = answer.read()
        if self.command == "POST" and self.path.rstrip("/") == "/session":
            value = json.loads(data)
            value["value"]["capabilities"].pop("webSocketUrl", None)
            data = json.dumps(value).encode()
        self.send_response(answer.status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = do_DELETE = forward

    def log_message(self, *args):
        pass


server = ThreadingHTTPServer(("127.0.0.1", 0), Proxy)
print(server.server_address[1], flush=True)
server.serve_forever()
